/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Rabenseifner's halving-doubling all-reduce: exchange sizes S/2^(s+1) step by step on a
// power of two, the pre- and post-steps of the extra ranks otherwise, a barrier per step, the
// plan executed as planned, and the latency regime against 2 log2(p) hops.

#include "ai-fabric-test-fixture.h"
#include "collective-test-fabric.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-channel.h"
#include "ns3/halving-doubling-algorithm.h"
#include "ns3/node-container.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

/// Port queues that hold a whole test collective: no drops (bytes).
constexpr uint32_t LOSSLESS_QUEUE_BYTES = 64 << 20;

class CollectiveHalvingDoublingTest : public AiFabricTest
{
};

} // namespace

// 8 ranks: three halving steps at distances 4, 2, 1 that exchange S/2, S/4, S/8 (reduced),
// then three doubling steps at distances 1, 2, 4 that exchange S/8, S/4, S/2; every rank
// sends and receives exactly that at every step, 2(n-1)/n S in all, like the ring.
TEST_F(CollectiveHalvingDoublingTest, PowerOfTwoHalvesThenDoubles)
{
    const uint32_t n = 8;
    const uint32_t channels = 2;
    const uint64_t bytes = channels * n * 3 * 4096; // every exchange a whole number of bytes
    const uint64_t chunk = 16384;
    Ptr<CollectivePlan> plan = CreateObject<HalvingDoublingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, n, bytes, channels, chunk);
    EXPECT_EQ(plan->GetAlgorithm(), "hd");
    ASSERT_EQ(plan->GetNSteps(), 6u);
    EXPECT_EQ(plan->GetNChannels(), channels);
    std::vector<uint64_t> expected(6);
    for (uint32_t s = 0; s < 3; ++s)
    {
        expected[s] = bytes >> (s + 1);     // halving
        expected[5 - s] = bytes >> (s + 1); // doubling, in reverse
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        EXPECT_EQ(PlanBytesByStep(*plan, r, true), expected) << "rank " << r;
        EXPECT_EQ(PlanBytesByStep(*plan, r, false), expected) << "rank " << r;
        EXPECT_EQ(plan->GetBytesSent(r), 2 * (n - 1) * bytes / n);
    }
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        const uint32_t distance = t.step < 3 ? 4 >> t.step : 1 << (t.step - 3);
        EXPECT_EQ(t.dst, t.src ^ distance) << "transfer " << id;
        EXPECT_EQ(t.reduce, t.step < 3);
        EXPECT_LE(t.bytes, chunk);
    }
    ExpectStepBarriers(*plan);
}

// 6 ranks: p = 4, r = 2. Ranks 1 and 3 hand their buffers to 0 and 2 (step 0) and get the
// result back (step 5); ranks 0, 2, 4, 5 play 0..3 in between: halving at distance 2
// (0-4, 2-5) then 1 (0-2, 4-5), doubling in reverse.
TEST_F(CollectiveHalvingDoublingTest, ExtraRanksFoldInAndOut)
{
    const uint32_t n = 6;
    const uint32_t channels = 3;
    const uint64_t chunk = 256 * 1024;
    using Edge = std::pair<uint32_t, uint32_t>;
    const std::vector<std::set<Edge>> edges = {
        {{1, 0}, {3, 2}},
        {{0, 4}, {4, 0}, {2, 5}, {5, 2}},
        {{0, 2}, {2, 0}, {4, 5}, {5, 4}},
        {{0, 2}, {2, 0}, {4, 5}, {5, 4}},
        {{0, 4}, {4, 0}, {2, 5}, {5, 2}},
        {{0, 1}, {2, 3}},
    };
    const std::vector<uint32_t> renumbered = {0, 99, 1, 99, 2, 3}; // 99: sits out
    for (uint64_t bytes : {uint64_t{channels * 4 * 250000}, uint64_t{10 * 1000 * 1000 + 7}})
    {
        Ptr<CollectivePlan> plan = CreateObject<HalvingDoublingAlgorithm>()->Build(
            CollectiveType::ALL_REDUCE, n, bytes, channels, chunk);
        ASSERT_EQ(plan->GetNSteps(), edges.size());
        std::vector<std::set<Edge>> used(edges.size());
        uint64_t total = 0;
        for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
        {
            const CollectiveTransfer& t = plan->GetTransfer(id);
            EXPECT_EQ(edges[t.step].count({t.src, t.dst}), 1u)
                << t.src << " -> " << t.dst << " at step " << t.step;
            used[t.step].insert({t.src, t.dst});
            EXPECT_EQ(t.reduce, t.step < 3);
            EXPECT_LE(t.bytes, chunk);
            total += t.bytes;
        }
        EXPECT_EQ(used, edges);
        // The folded ranks move the whole buffer (r S each way), the others (p-1) S in each
        // phase: 2(r + p - 1) S = 2(n-1) S in all, the ring's total.
        EXPECT_EQ(total, 2 * (n - 1) * bytes);
        // Renumbered rank j sends all but its own block in the halving steps and receives
        // all but its own block in the doubling steps.
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(bytes, channels);
        for (uint32_t q = 0; q < n; ++q)
        {
            const std::vector<uint64_t> sent = PlanBytesByStep(*plan, q, true);
            const std::vector<uint64_t> received = PlanBytesByStep(*plan, q, false);
            if (renumbered[q] == 99)
            {
                EXPECT_EQ(sent, (std::vector<uint64_t>{bytes, 0, 0, 0, 0, 0})) << "rank " << q;
                EXPECT_EQ(received, (std::vector<uint64_t>{0, 0, 0, 0, 0, bytes})) << "rank " << q;
                continue;
            }
            uint64_t allButOwn = 0;
            for (uint64_t share : shares)
            {
                allButOwn += share - CollectiveAlgorithm::Split(share, 4)[renumbered[q]];
            }
            EXPECT_EQ(sent[1] + sent[2], allButOwn) << "rank " << q;
            EXPECT_EQ(received[3] + received[4], allButOwn) << "rank " << q;
            EXPECT_EQ(received[0], q < 4 ? bytes : 0) << "rank " << q;
            EXPECT_EQ(sent[5], q < 4 ? bytes : 0) << "rank " << q;
            if (bytes % (channels * 4) == 0)
            {
                // Even blocks: S/2 and S/4 halving, S/4 and S/2 doubling, both ways.
                const std::vector<uint64_t> exchange = {bytes / 2, bytes / 4, bytes / 4, bytes / 2};
                EXPECT_EQ(std::vector<uint64_t>(sent.begin() + 1, sent.end() - 1), exchange);
                EXPECT_EQ(std::vector<uint64_t>(received.begin() + 1, received.end() - 1),
                          exchange);
            }
        }
        ExpectStepBarriers(*plan);
    }
    EXPECT_FALSE(CreateObject<HalvingDoublingAlgorithm>()->Supports(CollectiveType::ALL_REDUCE, 1));
    EXPECT_FALSE(CreateObject<HalvingDoublingAlgorithm>()->Supports(CollectiveType::BROADCAST, 8));
    // 2 and 3 ranks: one exchange each way, with a fold for the third rank.
    EXPECT_EQ(CreateObject<HalvingDoublingAlgorithm>()
                  ->Build(CollectiveType::ALL_REDUCE, 2, 1000, 1, chunk)
                  ->GetNSteps(),
              2u);
    EXPECT_EQ(CreateObject<HalvingDoublingAlgorithm>()
                  ->Build(CollectiveType::ALL_REDUCE, 3, 1000, 1, chunk)
                  ->GetNSteps(),
              4u);
}

// Executed on a fabric, every rank sends and receives exactly what the plan says, step by
// step, and the NICs deliver exactly those bytes once. With 6 ranks, rank 4 sends its first
// halving step to rank 0 while rank 1 folds in to it (2:1 incast at a fabric without PFC),
// so the queues are made deep enough to stand in for a lossless fabric; with 8 ranks every
// port has one sender per step and the default queues do.
TEST_F(CollectiveHalvingDoublingTest, ExecutionMatchesPlanByteForByte)
{
    for (uint32_t n : {6u, 8u})
    {
        const uint32_t channels = 2;
        Star star(n, channels, n == 6 ? LOSSLESS_QUEUE_BYTES : 0);
        Ptr<CollectivePlan> plan
            = CreateObject<HalvingDoublingAlgorithm>()->Build(CollectiveType::ALL_REDUCE,
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

// Latency regime, 8 ranks, one packet per exchange (blocks of 512 bytes): 2 log2(8) = 6
// steps of alpha (of each step's packet size), the reductions of the three halving steps,
// and the last ACK's return; exact to the picosecond, as every step has one sender per
// port.
TEST_F(CollectiveHalvingDoublingTest, LatencyRegimeIsTwiceLog2PSteps)
{
    const uint32_t n = 8;
    const uint32_t block = 512;
    Star star(n, 1);
    Ptr<CollectivePlan> plan = CreateObject<HalvingDoublingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, n, n * block, 1, 4096);
    const Time t = star.Run(plan);

    const PathLatency path(star);
    const std::vector<uint32_t> sizes = {4 * block, 2 * block, block, block, 2 * block, 4 * block};
    Time expected = path.ToPort(sizes.back()) + path.AckReturn();
    for (uint32_t s = 0; s + 1 < sizes.size(); ++s)
    {
        expected += path.Alpha(sizes[s]) + (s < 3 ? path.Reduction(sizes[s]) : Time(0));
    }
    EXPECT_EQ(t, expected) << "alpha " << path.Alpha(block).As(Time::NS);
}
