/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// NCCL's PXN: point-to-point transfers to another server leave by the NIC that serves the
// destination's GPU index, relayed over NVLink, at the packet and the flow level.

#include "ai-fabric-test-collective.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/direct-all-to-all-algorithm.h"
#include "ns3/fabric-flow-router.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/gpu-transport.h"
#include "ns3/pxn-relay.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/server-helper.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

class PxnTest : public AiFabricTest
{
};

/**
 * \param servers servers
 * \param gpus GPUs per server
 * \param nics NICs per server (GPU g uses NIC g / (gpus / nics), whose id is its first GPU's)
 * \return every rank's place, rank = server * gpus + device
 */
std::vector<PxnPlace>
Places(uint32_t servers, uint32_t gpus, uint32_t nics)
{
    std::vector<PxnPlace> places;
    const uint32_t share = gpus / nics;
    for (uint32_t s = 0; s < servers; ++s)
    {
        for (uint32_t g = 0; g < gpus; ++g)
        {
            places.push_back({s, g, s * gpus + g / share * share});
        }
    }
    return places;
}

} // namespace

// The proxy is the sender's server's GPU with the destination's device index (one NIC per
// GPU), or the first GPU of the NIC that GPU uses (NICs shared by two GPUs: NCCL's
// ncclTopoGetLocalGpu takes the first, even for the other GPU of the pair); nobody relays
// inside a server, without NVLink, or where the communicator has no GPU of that index there.
TEST_F(PxnTest, TheProxyIsTheDestinationsRailOnTheSendersServer)
{
    PxnRelay one(Places(2, 8, 8));
    EXPECT_EQ(one.GetProxy(0, 8 + 3), 3u);
    EXPECT_EQ(one.GetProxy(5, 8 + 3), 3u);
    EXPECT_EQ(one.GetProxy(3, 8 + 3), 3u); // the same rail: its own NIC
    EXPECT_EQ(one.GetProxy(8 + 6, 1), 8u + 1);
    EXPECT_EQ(one.GetProxy(0, 7), 0u); // same server: NVLink

    PxnRelay shared(Places(2, 8, 4));
    EXPECT_EQ(shared.GetProxy(0, 8 + 5), 4u); // NIC 2 serves GPUs 4 and 5; 4 forwards
    EXPECT_EQ(shared.GetProxy(4, 8 + 5), 4u); // the NIC's first GPU sends itself
    EXPECT_EQ(shared.GetProxy(5, 8 + 5), 4u); // the pair's second GPU goes through the first
    EXPECT_EQ(shared.GetProxy(5, 8 + 4), 4u);
    EXPECT_EQ(shared.GetProxy(2, 8 + 0), 0u);

    // A data-parallel group of one GPU per server: no GPU of another index to relay through.
    PxnRelay dp({{0, 2, 2}, {1, 2, 10}, {2, 2, 18}});
    EXPECT_EQ(dp.GetProxy(0, 1), 0u);
    // The group of GPUs 0 and 1 of two servers: GPU 0 relays to GPU 1 of the other server.
    PxnRelay pairs({{0, 0, 0}, {0, 1, 1}, {1, 0, 8}, {1, 1, 9}});
    EXPECT_EQ(pairs.GetProxy(0, 3), 1u);
    EXPECT_EQ(pairs.GetProxy(1, 2), 0u);
    // No NVLink: the sender's NIC.
    PxnRelay none({{-1, 0, 0}, {-1, 0, 1}});
    EXPECT_EQ(none.GetProxy(0, 1), 0u);
}

// The rewrite of a direct all-to-all on 2 servers x 8 GPUs: each relayed transfer becomes an
// NVLink hop and the proxy's transfer, which waits for it; a GPU receives its own parts and
// the parts it forwards; every NIC sends 8 of its server's 64 cross-server parts, all to its
// own rail. Non-p2p plans and plans with nothing to relay are run as they are.
TEST_F(PxnTest, TheRewriteRelaysEachTransferOnce)
{
    const uint32_t n = 16;
    const uint64_t part = 1 << 20;
    Ptr<CollectivePlan> plan = CreateObject<DirectAllToAllAlgorithm>()->Build(
        CollectiveType::ALL_TO_ALL, n, n * part, 1, 512 * 1024);
    ASSERT_TRUE(plan->IsPeerToPeer());
    Ptr<PxnRelay> relay = Create<PxnRelay>(Places(2, 8, 8));
    Ptr<const CollectiveSchedule> routed = relay->Route(plan);
    ASSERT_NE(routed, plan);
    EXPECT_EQ(relay->Route(plan), routed); // made once
    Ptr<const CollectivePlan> p = DynamicCast<const CollectivePlan>(routed);
    ASSERT_TRUE(p);
    // 16 x 15 routes of 2 pieces; 16 x 7 of them relayed.
    EXPECT_EQ(plan->GetNTransfers(), 16u * 15 * 2);
    EXPECT_EQ(p->GetNTransfers(), 16u * 15 * 2 + 16 * 7 * 2);
    for (uint32_t r = 0; r < n; ++r)
    {
        // Its own 15 parts, and 7 parts it forwards (its server's GPUs' to its rail).
        EXPECT_EQ(p->GetBytesReceived(r), plan->GetBytesReceived(r) + 7 * part) << r;
        uint64_t nvlink = 0;
        uint64_t network = 0;
        for (uint32_t id : p->GetSends(r))
        {
            const CollectiveTransfer& t = p->GetTransfer(id);
            if (t.dst / 8 == r / 8)
            {
                nvlink += t.bytes;
            }
            else
            {
                network += t.bytes;
                EXPECT_EQ(t.dst % 8, r % 8) << r << " -> " << t.dst; // its own rail
                const std::vector<uint32_t> deps = p->GetDependencies(id);
                if (deps.size() == 1)
                {
                    EXPECT_EQ(p->GetTransfer(deps[0]).dst, r); // a relayed piece
                    EXPECT_NE(p->GetTransfer(deps[0]).src, r);
                }
            }
        }
        EXPECT_EQ(network, 8 * part) << r;    // 8 servers' GPUs' parts to its rail peer
        EXPECT_EQ(nvlink, 7 * part * 2) << r; // its server's 7 peers, 7 relayed parts
    }

    // One GPU per server, or a ring: nothing changes.
    Ptr<PxnRelay> flat = Create<PxnRelay>(Places(16, 1, 1));
    EXPECT_EQ(flat->Route(plan), plan);
    Ptr<CollectivePlan> ring = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, n, n * part, 1, 512 * 1024);
    EXPECT_FALSE(ring->IsPeerToPeer());
    EXPECT_EQ(relay->Route(ring), ring);
}

namespace
{

/// What one all-to-all on two DGX H100 on a rail-optimized leaf-spine did.
struct AllToAllRun
{
    Time time;                     //!< the collective's time
    std::vector<uint64_t> nvlink;  //!< payload each GPU sent over NVLink
    std::vector<uint64_t> network; //!< payload each GPU's transport sent by a NIC
    uint64_t spineBytes{0};        //!< bytes the spines sent (packet level)
    uint64_t drops{0};             //!< drops
};

/**
 * \param pxn relay as PXN does
 * \param flow the flow level
 * \param part bytes each GPU sends each other GPU
 * \return the run
 */
AllToAllRun
RunAllToAll(bool pxn, bool flow, uint64_t part)
{
    FatTreeHelper tree;
    tree.SetServers(2);
    tree.SetGpusPerServer(8);
    tree.SetRadix(16);
    tree.SetRailOptimized(true);
    RoceFabricHelper fabric;
    tree.Install(fabric);
    ServerHelper server;
    server.Install(tree.GetGpus());
    CollectiveHelper collectives;
    collectives.SetPxn(pxn);
    if (flow)
    {
        Ptr<FabricFlowRouter> router = CreateObject<FabricFlowRouter>();
        router->Setup(&fabric, tree.GetGpus());
        collectives.SetFlowRouter(router);
    }
    collectives.Install(tree.GetGpus(), fabric);
    const uint32_t n = tree.GetNGpus();
    Ptr<CollectivePlan> plan = CreateObject<DirectAllToAllAlgorithm>()->Build(
        CollectiveType::ALL_TO_ALL, n, n * part, 1, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    AllToAllRun run;
    run.time = RunCollectiveNow(collectives, plan);
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<GpuTransport> t = collectives.GetTransport(r);
        run.nvlink.push_back(t->GetNvLinkBytesSent());
        run.network.push_back(t->GetBytesSent() - t->GetNvLinkBytesSent());
    }
    for (uint32_t j = 0; j < tree.GetNSpines(); ++j)
    {
        Ptr<Node> spine = tree.GetSpine(j);
        for (uint32_t d = 0; d < spine->GetNDevices(); ++d)
        {
            if (Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(spine->GetDevice(d)))
            {
                run.spineBytes += port->GetCounters().txBytes;
            }
        }
    }
    run.drops = FabricStatsHelper::Totals().drops;
    Simulator::Destroy();
    Names::Clear();
    return run;
}

} // namespace

// On the wire: without PXN 7 of every 8 cross-server parts cross the spines; with it none
// does, every NIC still sends exactly 8 parts, and each GPU's NVLink carries 7 relayed parts
// beside its own 7. The flow level relays the same bytes, and its time is the packet
// level's within 5%. Lossless: no drop.
TEST_F(PxnTest, AllToAllStaysOnItsRail)
{
    const uint64_t part = 2 << 20;
    const AllToAllRun own = RunAllToAll(false, false, part);
    const AllToAllRun pxn = RunAllToAll(true, false, part);
    const AllToAllRun flow = RunAllToAll(true, true, part);
    EXPECT_GT(own.spineBytes, 2 * 8 * 7 * part);
    EXPECT_EQ(pxn.spineBytes, 0u);
    for (uint32_t r = 0; r < 16; ++r)
    {
        EXPECT_EQ(own.network[r], 8 * part) << r;
        EXPECT_EQ(own.nvlink[r], 7 * part) << r;
        EXPECT_EQ(pxn.network[r], 8 * part) << r;
        EXPECT_EQ(pxn.nvlink[r], 14 * part) << r;
        EXPECT_EQ(flow.network[r], pxn.network[r]) << r;
        EXPECT_EQ(flow.nvlink[r], pxn.nvlink[r]) << r;
    }
    EXPECT_EQ(own.drops, 0u);
    EXPECT_EQ(pxn.drops, 0u);
    ASSERT_TRUE(pxn.time.IsStrictlyPositive());
    EXPECT_NEAR(flow.time.GetSeconds() / pxn.time.GetSeconds(), 1.0, 0.05)
        << flow.time.As(Time::US) << " against " << pxn.time.As(Time::US);
    // The NICs are the bottleneck either way: 8 parts at 400 Gb/s, and a non-blocking fabric.
    const double wire = 8.0 * part * 8 / 400e9;
    EXPECT_GT(pxn.time.GetSeconds(), wire);
    EXPECT_LT(pxn.time.GetSeconds(), 1.25 * wire) << pxn.time.As(Time::US);
}
