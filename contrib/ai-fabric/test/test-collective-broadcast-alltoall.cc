/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The chain broadcast and the pairwise all-to-all: bytes per rank and per step, their
// dependencies, the plans executed as planned, and the latency regime against (n-1) hops.

#include "ai-fabric-test-fixture.h"
#include "collective-test-fabric.h"
#include "ns3/chain-broadcast-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-channel.h"
#include "ns3/node-container.h"
#include "ns3/pairwise-all-to-all-algorithm.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace ns3;
using namespace ns3::aifabrictest;

namespace
{

class CollectiveBroadcastAllToAllTest : public AiFabricTest
{
};

} // namespace

// Broadcast from rank 0 along 0 -> 1 -> ... -> n-1: hop i is step i and moves the whole
// buffer; every rank but the last sends it once, every rank but the root receives it once;
// a piece is forwarded once it arrived, nothing else waits.
TEST_F(CollectiveBroadcastAllToAllTest, ChainBroadcastPlan)
{
    const uint32_t n = 6;
    const uint64_t bytes = 5 * 1000 * 1000 + 3;
    const uint32_t channels = 2;
    const uint64_t chunk = 256 * 1024;
    Ptr<CollectivePlan> plan = CreateObject<ChainBroadcastAlgorithm>()->Build(
        CollectiveType::BROADCAST, n, bytes, channels, chunk);
    EXPECT_EQ(plan->GetAlgorithm(), "chain");
    ASSERT_EQ(plan->GetNSteps(), n - 1);
    EXPECT_EQ(plan->GetNChannels(), channels);
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        EXPECT_EQ(t.dst, t.src + 1);
        EXPECT_EQ(t.step, t.src);
        EXPECT_FALSE(t.reduce);
        EXPECT_LE(t.bytes, chunk);
        const std::vector<uint32_t> deps = plan->GetDependencies(id);
        ASSERT_EQ(deps.size(), t.step == 0 ? 0u : 1u) << "transfer " << id;
        if (!deps.empty())
        {
            // The same piece, one hop earlier.
            EXPECT_EQ(plan->GetTransfer(deps[0]).step + 1, t.step);
            EXPECT_EQ(plan->GetTransfer(deps[0]).bytes, t.bytes);
            EXPECT_EQ(plan->GetTransfer(deps[0]).channel, t.channel);
        }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<uint64_t> sent(n - 1, 0);
        std::vector<uint64_t> received(n - 1, 0);
        if (r + 1 < n)
        {
            sent[r] = bytes;
        }
        if (r > 0)
        {
            received[r - 1] = bytes;
        }
        EXPECT_EQ(PlanBytesByStep(*plan, r, true), sent) << "rank " << r;
        EXPECT_EQ(PlanBytesByStep(*plan, r, false), received) << "rank " << r;
    }
    EXPECT_TRUE(CreateObject<ChainBroadcastAlgorithm>()->Supports(CollectiveType::BROADCAST, n));
    EXPECT_FALSE(CreateObject<ChainBroadcastAlgorithm>()->Supports(CollectiveType::ALL_REDUCE, n));
}

// All-to-all by pairwise exchange: at step s-1 (s = 1..n-1) rank r sends its part for
// (r+s) mod n, one part per step, (n-1)/n of its buffer in all, and receives the part for r
// from (r-s) mod n; a step's sends wait for everything the previous step brought.
TEST_F(CollectiveBroadcastAllToAllTest, PairwiseAllToAllPlan)
{
    const uint32_t n = 6;
    const uint64_t bytes = 6 * 1000 * 1000 + 5; // one rank's send buffer
    const uint32_t channels = 2;
    const uint64_t chunk = 256 * 1024;
    Ptr<CollectivePlan> plan = CreateObject<PairwiseAllToAllAlgorithm>()->Build(
        CollectiveType::ALL_TO_ALL, n, bytes, channels, chunk);
    EXPECT_EQ(plan->GetAlgorithm(), "pairwise");
    ASSERT_EQ(plan->GetNSteps(), n - 1);
    EXPECT_EQ(plan->GetNChannels(), channels);
    // part[p]: bytes every rank sends to rank p, over all channels.
    std::vector<uint64_t> part(n, 0);
    for (uint64_t share : CollectiveAlgorithm::Split(bytes, channels))
    {
        const std::vector<uint64_t> parts = CollectiveAlgorithm::Split(share, n);
        for (uint32_t p = 0; p < n; ++p)
        {
            part[p] += parts[p];
        }
    }
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        EXPECT_EQ(t.dst, (t.src + t.step + 1) % n);
        EXPECT_FALSE(t.reduce);
        EXPECT_LE(t.bytes, chunk);
        for (uint32_t d : plan->GetDependencies(id))
        {
            // Arrived at src in the previous step, from (src - step) mod n.
            EXPECT_EQ(plan->GetTransfer(d).src, (t.src + n - t.step) % n);
        }
    }
    ExpectStepBarriers(*plan);
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<uint64_t> sent(n - 1);
        std::vector<uint64_t> received(n - 1);
        for (uint32_t s = 1; s < n; ++s)
        {
            sent[s - 1] = part[(r + s) % n];
            received[s - 1] = part[r];
        }
        EXPECT_EQ(PlanBytesByStep(*plan, r, true), sent) << "rank " << r;
        EXPECT_EQ(PlanBytesByStep(*plan, r, false), received) << "rank " << r;
        EXPECT_EQ(plan->GetBytesSent(r), bytes - part[r]); // (n-1)/n of the buffer
        EXPECT_EQ(plan->GetBytesReceived(r), (n - 1) * part[r]);
    }
    EXPECT_TRUE(CreateObject<PairwiseAllToAllAlgorithm>()->Supports(CollectiveType::ALL_TO_ALL, n));
    EXPECT_FALSE(
        CreateObject<PairwiseAllToAllAlgorithm>()->Supports(CollectiveType::ALL_GATHER, n));
}

// Executed on a fabric, every rank sends and receives exactly what the plans say, step by
// step, and the NICs deliver exactly those bytes once (neither plan has incast).
TEST_F(CollectiveBroadcastAllToAllTest, ExecutionMatchesPlanByteForByte)
{
    const uint32_t n = 6;
    const uint32_t channels = 2;
    for (CollectiveType type : {CollectiveType::BROADCAST, CollectiveType::ALL_TO_ALL})
    {
        Star star(n, channels);
        Ptr<CollectiveAlgorithm> algorithm;
        if (type == CollectiveType::BROADCAST)
        {
            algorithm = CreateObject<ChainBroadcastAlgorithm>();
        }
        else
        {
            algorithm = CreateObject<PairwiseAllToAllAlgorithm>();
        }
        Ptr<CollectivePlan> plan = algorithm->Build(
            type, n, 3 * 1000 * 1000 + 1, channels, star.collectives.GetChunkBytes());
        const Time t = star.Run(plan);
        EXPECT_TRUE(t.IsStrictlyPositive()) << CollectiveTypeName(type);
        ExpectExecutionMatchesPlan(star, *plan);
        Simulator::Destroy();
    }
}

// Latency regime, 8 ranks, one packet per transfer: the chain broadcast of one piece takes
// n-1 hops of alpha, and so does the pairwise all-to-all of one-packet parts (n-1 steps, one
// sender per port at each), exact to the picosecond: the last transfer reaches its port
// (n-2) alpha + its path after the start, and its sender is done when the ACK is back.
TEST_F(CollectiveBroadcastAllToAllTest, LatencyRegimeIsNMinusOneHops)
{
    const uint32_t n = 8;
    const uint32_t piece = 1000;
    for (CollectiveType type : {CollectiveType::BROADCAST, CollectiveType::ALL_TO_ALL})
    {
        Star star(n, 1);
        Ptr<CollectivePlan> plan;
        if (type == CollectiveType::BROADCAST)
        {
            plan = CreateObject<ChainBroadcastAlgorithm>()->Build(type, n, piece, 1, 4096);
        }
        else
        {
            plan = CreateObject<PairwiseAllToAllAlgorithm>()->Build(type, n, n * piece, 1, 4096);
        }
        EXPECT_EQ(plan->GetNSteps(), n - 1);
        const Time t = star.Run(plan);
        const PathLatency path(star);
        const Time expected = path.Alpha(piece) * (n - 2) + path.ToPort(piece) + path.AckReturn();
        EXPECT_EQ(t, expected) << CollectiveTypeName(type) << ", alpha "
                               << path.Alpha(piece).As(Time::NS);
        Simulator::Destroy();
    }
}
