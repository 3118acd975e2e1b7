/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Rabenseifner's halving-doubling all-reduce: exchange sizes S/2^(s+1) step by step on a
// power of two, the pre- and post-steps of the extra ranks otherwise, a barrier per step, the
// plan executed as planned, and the latency regime against 2 log2(p) hops.

#include "ai-fabric-test-fixture.h"
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

namespace
{

/// One run of a collective on GPUs around one switch (as in test-collective-ring.cc).
class Star
{
  public:
    /**
     * \param n GPUs
     * \param channels channels
     * \param maxQueueBytes limit of every port's queues (bytes); 0 keeps the default
     */
    Star(uint32_t n, uint32_t channels, uint32_t maxQueueBytes = 0)
    {
        if (maxQueueBytes > 0)
        {
            fabric.SetDeviceAttribute("MaxQueueBytes", UintegerValue(maxQueueBytes));
        }
        gpus.Create(n);
        switches.Create(1);
        fabric.InstallHosts(gpus);
        fabric.InstallSwitches(switches);
        for (uint32_t i = 0; i < n; ++i)
        {
            fabric.Connect(gpus.Get(i), switches.Get(0));
        }
        fabric.ComputeRoutes();
        collectives.SetChannels(channels);
        collectives.Install(gpus, fabric);
    }

    /**
     * \param plan a plan to run now
     * \return the collective's time (slowest rank)
     */
    Time Run(Ptr<const CollectivePlan> plan)
    {
        collectives.Connect(*plan);
        Simulator::ScheduleNow(
            &CollectiveHelper::Run, &collectives, plan, MakeCallback(&Star::Done, this));
        Simulator::Run();
        return end - start;
    }

    NodeContainer gpus;           //!< GPUs
    NodeContainer switches;       //!< the switch
    RoceFabricHelper fabric;      //!< fabric
    CollectiveHelper collectives; //!< communicators
    Time start;                   //!< start of the run
    Time end;                     //!< end of the run

  private:
    /**
     * \param s start
     * \param e end
     */
    void Done(Time s, Time e)
    {
        start = s;
        end = e;
    }
};

/// Port queues that hold a whole test collective: no drops (bytes).
constexpr uint32_t LOSSLESS_QUEUE_BYTES = 64 << 20;

/// \return the switch's default port latency
Time
SwitchLatency()
{
    TimeValue v;
    CreateObject<RoceSwitch>()->GetAttribute("PortLatency", v);
    return v.Get();
}

/**
 * \brief Latencies of a transfer of one packet across the star, as in test-collective-ring.cc:
 * the step latency, the NIC's TX latency, two hops (serialization + cable) around the
 * switch's latency, then the NIC's RX latency.
 */
class PathLatency
{
  public:
    /// \param star the fabric
    explicit PathLatency(const Star& star)
        : m_comm(star.collectives.GetCommunicator(0))
        , m_nic(star.fabric.GetTransport(star.gpus.Get(0)))
        , m_rate(star.fabric.GetNic(star.gpus.Get(0))->GetDataRate())
        , m_cable(star.fabric.GetChannels()[0]->GetDelay())
        , m_switch(SwitchLatency())
    {
    }

    /**
     * \param payload bytes of a transfer of one packet
     * \return from the step's start to the packet at the receiver's port
     */
    Time ToPort(uint32_t payload) const
    {
        // A whole write in one packet: WRITE Only with Immediate.
        const uint32_t frame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                               + RethHeader::SIZE + ImmDtHeader::SIZE + payload + IcrcTrailer::SIZE;
        return m_comm->GetStepLatency() + m_nic->GetTxLatency() + Hop(frame) + m_switch
               + Hop(frame);
    }

    /**
     * \param payload bytes of a transfer of one packet
     * \return alpha: from the step's start to the data at the receiving GPU
     */
    Time Alpha(uint32_t payload) const
    {
        return ToPort(payload) + m_nic->GetRxLatency();
    }

    /// \return from the last packet at the receiver's port to its ACK at the sending GPU
    Time AckReturn() const
    {
        const uint32_t ackFrame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                                  + AethHeader::SIZE + IcrcTrailer::SIZE;
        return Hop(ackFrame) + m_switch + Hop(ackFrame) + m_nic->GetRxLatency();
    }

    /**
     * \param bytes bytes reduced
     * \return the GPU time of the reduction
     */
    Time Reduction(uint64_t bytes) const
    {
        return m_comm->ReductionTime(bytes);
    }

  private:
    /**
     * \param frameBytes a frame
     * \return its serialization (with preamble and gap) and the cable
     */
    Time Hop(uint32_t frameBytes) const
    {
        return m_rate.CalculateBytesTxTime(frameBytes + RoceNetDevice::ETHERNET_OVERHEAD_BYTES)
               + m_cable;
    }

    Ptr<Communicator> m_comm; //!< a communicator (step latency, reductions)
    Ptr<RdmaTransport> m_nic; //!< a NIC transport (TX and RX latency)
    DataRate m_rate;          //!< line rate
    Time m_cable;             //!< cable delay
    Time m_switch;            //!< switch latency
};

/**
 * \param plan a plan
 * \param rank a rank
 * \param sent true for the bytes it sends, false for those it receives
 * \return the plan's bytes of that rank, by step
 */
std::vector<uint64_t>
PlanBytesByStep(const CollectivePlan& plan, uint32_t rank, bool sent)
{
    std::vector<uint64_t> bytes(plan.GetNSteps(), 0);
    for (uint32_t id : sent ? plan.GetSends(rank) : plan.GetReceives(rank))
    {
        bytes[plan.GetTransfer(id).step] += plan.GetTransfer(id).bytes;
    }
    return bytes;
}

/**
 * \brief Every transfer a rank sends at a step depends on exactly the transfers that arrived
 * at it in the previous step on its channel (none at step 0).
 * \param plan a plan
 */
void
ExpectStepBarriers(const CollectivePlan& plan)
{
    for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan.GetTransfer(id);
        std::vector<uint32_t> expected;
        for (uint32_t j = 0; j < id; ++j)
        {
            const CollectiveTransfer& u = plan.GetTransfer(j);
            if (u.dst == t.src && u.channel == t.channel && u.step + 1 == t.step)
            {
                expected.push_back(j);
            }
        }
        std::vector<uint32_t> deps = plan.GetDependencies(id);
        std::sort(deps.begin(), deps.end());
        EXPECT_EQ(deps, expected) << "transfer " << id << ": " << t.src << " -> " << t.dst
                                  << " step " << t.step;
    }
}

/**
 * \brief Every rank sent and received exactly the plan's bytes, step by step, and its NIC's
 * QPs delivered them once, without retransmissions.
 * \param star the fabric after the run
 * \param plan the plan it ran
 */
void
ExpectExecutionMatchesPlan(const Star& star, const CollectivePlan& plan)
{
    for (uint32_t r = 0; r < plan.GetNRanks(); ++r)
    {
        Ptr<Communicator> comm = star.collectives.GetCommunicator(r);
        EXPECT_FALSE(comm->IsRunning()) << "rank " << r;
        EXPECT_EQ(comm->GetBytesSentByStep(), PlanBytesByStep(plan, r, true)) << "rank " << r;
        EXPECT_EQ(comm->GetBytesReceivedByStep(), PlanBytesByStep(plan, r, false)) << "rank " << r;
        Ptr<GpuTransport> gt = star.collectives.GetTransport(r);
        EXPECT_EQ(gt->GetBytesSent(), plan.GetBytesSent(r)); // Simple: no protocol overhead
        EXPECT_EQ(gt->GetBytesReceived(), plan.GetBytesReceived(r));
        uint64_t delivered = 0;
        for (const auto& qp : gt->GetQueuePairs())
        {
            delivered += qp->GetDeliveredBytes();
            EXPECT_EQ(qp->GetRetransmissions(), 0u);
        }
        EXPECT_EQ(delivered, plan.GetBytesReceived(r)) << "rank " << r;
    }
}

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
