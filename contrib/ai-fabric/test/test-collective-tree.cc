/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The double binary tree all-reduce: NCCL's tree shapes, exact bytes per rank and per step,
// dependencies along the trees, the plan executed as planned, and the latency regime
// against 2 ceil(log2 n) hops.

#include "ai-fabric-test-fixture.h"
#include "collective-test-fabric.h"
#include "ns3/collective-helper.h"
#include "ns3/double-binary-tree-algorithm.h"
#include "ns3/fabric-channel.h"
#include "ns3/node-container.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

class CollectiveTreeTest : public AiFabricTest
{
};

constexpr uint32_t NONE = DoubleBinaryTreeAlgorithm::NO_PARENT;

/// Port queues that hold a whole test collective: no drops (bytes).
constexpr uint32_t LOSSLESS_QUEUE_BYTES = 64 << 20;

/**
 * \param parents a tree's parents
 * \param rank a rank
 * \return its children in the tree
 */
uint32_t
CountChildren(const std::vector<uint32_t>& parents, uint32_t rank)
{
    uint32_t children = 0;
    for (uint32_t parent : parents)
    {
        children += parent == rank ? 1 : 0;
    }
    return children;
}

} // namespace

// The two trees are NCCL's: the illustrations of ncclGetDtree() for 12 ranks (mirrored) and
// 13 ranks (shifted), written down here by hand.
TEST_F(CollectiveTreeTest, TreesAreNcclDoubleBinaryTrees)
{
    using Tree = DoubleBinaryTreeAlgorithm;
    // 0-8, 8-{4,10}, 4-{2,6}, 2-{1,3}, 6-{5,7}, 10-{9,11}
    EXPECT_EQ(Tree::GetParents(12, 0),
              (std::vector<uint32_t>{NONE, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10}));
    // 11-3, 3-{1,7}, 1-{0,2}, 7-{5,9}, 5-{4,6}, 9-{8,10}
    EXPECT_EQ(Tree::GetParents(12, 1),
              (std::vector<uint32_t>{1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, NONE}));
    // 0-8, 8-{4,12}, 4-{2,6}, 12-{10}, 2-{1,3}, 6-{5,7}, 10-{9,11}
    EXPECT_EQ(Tree::GetParents(13, 0),
              (std::vector<uint32_t>{NONE, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8}));
    // 1-9, 9-{5,0}, 0-{11}, 5-{3,7}, 3-{2,4}, 7-{6,8}, 11-{10,12}
    EXPECT_EQ(Tree::GetParents(13, 1),
              (std::vector<uint32_t>{9, NONE, 3, 5, 3, 9, 7, 5, 7, 1, 11, 0, 11}));
    EXPECT_EQ(Tree::GetRoot(12, 1), 11u);
    EXPECT_EQ(Tree::GetRoot(13, 1), 1u);

    for (uint32_t n = 2; n <= 70; ++n)
    {
        std::vector<std::vector<uint32_t>> parents;
        for (uint32_t t = 0; t < Tree::TREES; ++t)
        {
            parents.push_back(Tree::GetParents(n, t));
            const uint32_t root = Tree::GetRoot(n, t);
            EXPECT_EQ(parents[t][root], NONE) << n;
            // Every rank reaches the root in at most ceil(log2 n) hops; some in exactly that.
            const auto depth = static_cast<uint32_t>(std::ceil(std::log2(n)));
            uint32_t deepest = 0;
            for (uint32_t r = 0; r < n; ++r)
            {
                uint32_t hops = 0;
                for (uint32_t q = r; q != root && hops <= n; q = parents[t][q])
                {
                    ASSERT_LT(parents[t][q], n) << "n " << n << " tree " << t << " rank " << q;
                    ++hops;
                }
                EXPECT_LE(hops, depth) << "n " << n << " tree " << t << " rank " << r;
                deepest = std::max(deepest, hops);
                EXPECT_LE(CountChildren(parents[t], r), 2u);
            }
            EXPECT_EQ(deepest, depth) << "n " << n << " tree " << t;
        }
        // The complementary trees: no rank has more than two children over both, and with an
        // even count no rank is interior in both (with an odd one, only rank 0, with one
        // child in each).
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t c0 = CountChildren(parents[0], r);
            const uint32_t c1 = CountChildren(parents[1], r);
            EXPECT_LE(c0 + c1, 2u) << "n " << n << " rank " << r;
            if (n % 2 == 0 || r != 0)
            {
                EXPECT_TRUE(c0 == 0 || c1 == 0) << "n " << n << " rank " << r;
            }
        }
    }
}

// The plan: each tree carries half of every channel's share; a rank that is not a tree's
// root sends that half up (reduced) and receives it back down; a rank with c children in a
// tree receives c halves up and sends c halves down. Every transfer is a tree edge, and its
// dependencies are the pieces it is made of.
TEST_F(CollectiveTreeTest, AllReducePlanMovesExactBytes)
{
    const uint64_t bytes = 10 * 1000 * 1000 + 7; // not a multiple of anything
    const uint32_t channels = 3;
    const uint64_t chunk = 256 * 1024;
    for (uint32_t n : {8u, 13u})
    {
        Ptr<CollectivePlan> plan = CreateObject<DoubleBinaryTreeAlgorithm>()->Build(
            CollectiveType::ALL_REDUCE, n, bytes, channels, chunk);
        EXPECT_EQ(plan->GetNSteps(), 2u);
        EXPECT_EQ(plan->GetNChannels(), channels);
        EXPECT_EQ(plan->GetAlgorithm(), "tree");
        std::vector<std::vector<uint32_t>> parents;
        std::vector<uint32_t> roots;
        // halves[t]: the bytes tree t carries, over all channels.
        std::vector<uint64_t> halves(DoubleBinaryTreeAlgorithm::TREES, 0);
        for (uint32_t t = 0; t < DoubleBinaryTreeAlgorithm::TREES; ++t)
        {
            parents.push_back(DoubleBinaryTreeAlgorithm::GetParents(n, t));
            roots.push_back(DoubleBinaryTreeAlgorithm::GetRoot(n, t));
            for (uint64_t share : CollectiveAlgorithm::Split(bytes, channels))
            {
                halves[t] += CollectiveAlgorithm::Split(share, 2)[t];
            }
        }
        uint64_t total = 0;
        for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
        {
            const CollectiveTransfer& t = plan->GetTransfer(id);
            total += t.bytes;
            EXPECT_LE(t.bytes, chunk);
            const std::vector<uint32_t> deps = plan->GetDependencies(id);
            for (uint32_t d : deps)
            {
                EXPECT_EQ(plan->GetTransfer(d).bytes, t.bytes);
                EXPECT_EQ(plan->GetTransfer(d).channel, t.channel);
            }
            bool edge = false;
            if (t.step == DoubleBinaryTreeAlgorithm::UP_STEP)
            {
                EXPECT_TRUE(t.reduce);
                // Up an edge of a tree, once the piece arrived from all of src's children.
                for (uint32_t tree = 0; tree < 2; ++tree)
                {
                    edge = edge
                           || (parents[tree][t.src] == t.dst
                               && deps.size() == CountChildren(parents[tree], t.src));
                }
                for (uint32_t d : deps)
                {
                    EXPECT_EQ(plan->GetTransfer(d).step, DoubleBinaryTreeAlgorithm::UP_STEP);
                }
            }
            else
            {
                EXPECT_EQ(t.step, DoubleBinaryTreeAlgorithm::DOWN_STEP);
                EXPECT_FALSE(t.reduce);
                // Down an edge: from the root once all its children's pieces are reduced,
                // else once the piece came down from the parent.
                for (uint32_t tree = 0; tree < 2; ++tree)
                {
                    if (parents[tree][t.dst] != t.src)
                    {
                        continue;
                    }
                    if (t.src == roots[tree])
                    {
                        edge = edge || deps.size() == CountChildren(parents[tree], t.src);
                    }
                    else
                    {
                        edge = edge
                               || (deps.size() == 1
                                   && plan->GetTransfer(deps[0]).step
                                          == DoubleBinaryTreeAlgorithm::DOWN_STEP
                                   && plan->GetTransfer(deps[0]).src == parents[tree][t.src]);
                    }
                }
            }
            EXPECT_TRUE(edge) << "transfer " << id << ": " << t.src << " -> " << t.dst << " step "
                              << t.step;
        }
        // Every half crosses each of the n-1 edges of its tree twice.
        EXPECT_EQ(total, 2 * (n - 1) * bytes) << "n " << n;
        for (uint32_t r = 0; r < n; ++r)
        {
            std::vector<uint64_t> sent(2, 0);
            std::vector<uint64_t> received(2, 0);
            for (uint32_t t = 0; t < DoubleBinaryTreeAlgorithm::TREES; ++t)
            {
                const uint64_t notRoot = r == roots[t] ? 0 : 1;
                const uint64_t children = CountChildren(parents[t], r);
                sent[DoubleBinaryTreeAlgorithm::UP_STEP] += notRoot * halves[t];
                sent[DoubleBinaryTreeAlgorithm::DOWN_STEP] += children * halves[t];
                received[DoubleBinaryTreeAlgorithm::UP_STEP] += children * halves[t];
                received[DoubleBinaryTreeAlgorithm::DOWN_STEP] += notRoot * halves[t];
            }
            EXPECT_EQ(PlanBytesByStep(*plan, r, true), sent) << "n " << n << " rank " << r;
            EXPECT_EQ(PlanBytesByStep(*plan, r, false), received) << "n " << n << " rank " << r;
            // At most 2 S per rank: one half up and two down in one tree, one up in the
            // other (against 2(n-1)/n S for the ring).
            EXPECT_LE(plan->GetBytesSent(r), 2 * bytes + 2 * channels);
        }
    }
    EXPECT_FALSE(
        CreateObject<DoubleBinaryTreeAlgorithm>()->Supports(CollectiveType::ALL_REDUCE, 1));
    EXPECT_FALSE(
        CreateObject<DoubleBinaryTreeAlgorithm>()->Supports(CollectiveType::ALL_GATHER, 8));
    EXPECT_TRUE(CreateObject<DoubleBinaryTreeAlgorithm>()->Supports(CollectiveType::ALL_REDUCE, 2));
}

// Executed on a fabric, every rank sends and receives exactly what the plan says, step by
// step, and the NICs deliver exactly those bytes once. A parent receives from two children
// at once (2:1 incast at its switch port), which overflows the default drop-tail queues of
// a fabric without PFC or congestion control; queues deep enough for the whole collective
// stand in for a lossless fabric here.
TEST_F(CollectiveTreeTest, ExecutionMatchesPlanByteForByte)
{
    for (uint32_t n : {6u, 7u})
    {
        const uint32_t channels = 2;
        Star star(n, channels, LOSSLESS_QUEUE_BYTES);
        Ptr<CollectivePlan> plan
            = CreateObject<DoubleBinaryTreeAlgorithm>()->Build(CollectiveType::ALL_REDUCE,
                                                               n,
                                                               3 * 1000 * 1000 + 1,
                                                               channels,
                                                               star.collectives.GetChunkBytes());
        const Time t = star.Run(plan);
        EXPECT_TRUE(t.IsStrictlyPositive());
        ExpectExecutionMatchesPlan(star, *plan);
        Simulator::Destroy();
    }
}

// Latency regime: one small packet per tree and channel, 8 ranks. A piece goes up
// ceil(log2 8) = 3 hops, reduced at each, and down 3 hops, so T is at least
// 5 alpha + 3 reductions + the last hop to the port + its ACK's return, with alpha as in
// test-collective-ring.cc. Both trees run at once, and two packets may meet on a link (two
// children sending to one parent, a parent sending to two children), which can delay a hop
// by the serialization of the packets ahead of it, at most two per hop.
TEST_F(CollectiveTreeTest, LatencyRegimeIsTwiceTheDepth)
{
    const uint32_t n = 8;
    const uint32_t half = 256; // payload of each tree's one piece
    Star star(n, 1);
    Ptr<CollectivePlan> plan = CreateObject<DoubleBinaryTreeAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, n, 2 * half, 1, 4096);
    const Time t = star.Run(plan);

    Ptr<Communicator> comm = star.collectives.GetCommunicator(0);
    Ptr<RdmaTransport> nic = star.fabric.GetTransport(star.gpus.Get(0));
    const DataRate rate = star.fabric.GetNic(star.gpus.Get(0))->GetDataRate();
    const Time cable = star.fabric.GetChannels()[0]->GetDelay();
    const uint32_t frame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + RethHeader::SIZE
                           + ImmDtHeader::SIZE + half + IcrcTrailer::SIZE;
    const uint32_t ackFrame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                              + AethHeader::SIZE + IcrcTrailer::SIZE;
    const Time frameTime
        = rate.CalculateBytesTxTime(frame + RoceNetDevice::ETHERNET_OVERHEAD_BYTES);
    auto hop = [&](uint32_t frameBytes) {
        return rate.CalculateBytesTxTime(frameBytes + RoceNetDevice::ETHERNET_OVERHEAD_BYTES)
               + cable;
    };
    const Time toPort
        = comm->GetStepLatency() + nic->GetTxLatency() + hop(frame) + SwitchLatency() + hop(frame);
    const Time alpha = toPort + nic->GetRxLatency();
    const int64_t depth = 3;
    const Time lower = alpha * (2 * depth - 1) + comm->ReductionTime(half) * depth + toPort
                       + hop(ackFrame) + SwitchLatency() + hop(ackFrame) + nic->GetRxLatency();
    EXPECT_GE(t, lower) << "alpha " << alpha.As(Time::NS);
    EXPECT_LE(t, lower + frameTime * (2 * 2 * depth)) << "alpha " << alpha.As(Time::NS);
}
