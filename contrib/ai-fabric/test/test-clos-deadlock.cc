/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// PFC deadlock in a Clos after failures (Hu et al., HotNets 2016): with leaf0-spine0 and
// leaf1-spine1 down, the rerouted shortest paths bounce up-down-up (leaf0 -> spine1 -> leaf2
// -> spine0 -> leaf1), and the routes hold a cyclic buffer dependency that up-down routing
// never has. A CBD alone is not enough: the flows that close it, each host sending at half
// the line rate, complete. Add one flow that oversubscribes a link of the cycle and every
// buffer of the cycle fills: the detector names the four paused queues.

#include "ai-fabric-test-fixture.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

using namespace ns3;

namespace
{

class ClosDeadlockTest : public AiFabricTest
{
};

/// A directed link: (switch node id, output port)
using Channel = std::pair<uint32_t, uint32_t>;

/**
 * \brief The channel dependency graph of every ECMP path between every pair of GPUs.
 * \param fabric the fabric
 * \param tree the fat-tree
 * \return true if it has a cycle
 */
bool
RoutesHaveCycle(RoceFabricHelper& fabric, FatTreeHelper& tree)
{
    std::map<Channel, std::set<Channel>> cdg;
    const uint32_t n = tree.GetNGpus();
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t d = 0; d < n; ++d)
        {
            if (tree.GetLeafOfGpu(s) == tree.GetLeafOfGpu(d))
            {
                continue;
            }
            const Ipv4Address dst = fabric.GetAddress(tree.GetGpuByRank(d));
            // Every path from the source's leaf, depth first.
            std::function<void(Ptr<Node>, const Channel*, uint32_t)> walk
                = [&](Ptr<Node> node, const Channel* previous, uint32_t depth)
            {
                Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
                if (!sw || depth > 8)
                {
                    return;
                }
                for (uint32_t port : sw->GetRoute(dst))
                {
                    const Channel c{node->GetId(), port};
                    if (previous)
                    {
                        cdg[*previous].insert(c);
                    }
                    Ptr<FabricNetDevice> dev = sw->GetPort(port);
                    walk(dev->GetFabricChannel()->GetPeer(PeekPointer(dev))->GetNode(),
                         &c,
                         depth + 1);
                }
            };
            walk(tree.GetLeaf(tree.GetLeafOfGpu(s)), nullptr, 0);
        }
    }
    std::map<Channel, int> state;
    std::function<bool(const Channel&)> visit = [&](const Channel& c)
    {
        state[c] = 1;
        for (const Channel& next : cdg[c])
        {
            if (state[next] == 1 || (state[next] == 0 && visit(next)))
            {
                return true;
            }
        }
        state[c] = 2;
        return false;
    };
    for (const auto& [c, next] : cdg)
    {
        if (state[c] == 0 && visit(c))
        {
            return true;
        }
    }
    return false;
}

/// What one run found
struct ClosRun
{
    bool cycleBefore{false};              //!< CBD in the routes before the failures
    bool cycleAfter{false};               //!< CBD after the reroute
    bool completed{false};                //!< every write completed
    FabricStallDetector::Finding finding; //!< the detector's
    std::vector<std::string> cycle;       //!< its cycle
    std::string report;                   //!< its report
    uint64_t drops{0};                    //!< drops of any reason
};

/// the QPs whose writes must complete
std::vector<Ptr<RdmaQueuePair>> g_qps;

/// \return true once every QP's writes completed
bool
AllDone()
{
    for (const Ptr<RdmaQueuePair>& qp : g_qps)
    {
        if (qp->GetOutstandingRequests() > 0)
        {
            return false;
        }
    }
    return true;
}

/**
 * \brief 8 GPUs on a radix-4 leaf-spine (4 leaves, 2 spines, RoCEv2 with PFC, no DCQCN);
 *        leaf0-spine0 and leaf1-spine1 fail at 0 and are rerouted (ECMP over the links that
 *        are up) before traffic starts at 1 ms.
 * \param bottleneck add the flow gpu5 -> gpu3, not rate-limited, over the cycle's link
 *        leaf2 -> spine0
 * \return what happened
 */
ClosRun
RunClos(bool bottleneck)
{
    RoceFabricHelper fabric;
    fabric.SetMmuAttribute("BufferSize", UintegerValue(2 << 20)); // a small switch: 2 MB
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    fabric.AssignStreams(1);
    ClosRun r;
    r.cycleBefore = RoutesHaveCycle(fabric, tree);

    Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
    injector->SetAttribute("DetectionDelay", TimeValue(Time(0)));
    injector->SetAttribute("RerouteDelay", TimeValue(Time(0)));
    injector->Install(fabric.GetTopology(), MakeCallback(&FabricHelper::ComputeRoutes, &fabric));
    std::vector<FaultEvent> events;
    std::string error;
    EXPECT_TRUE(FaultSchedule::Parse("link:leaf0-spine0@0ms;link:leaf1-spine1@0ms", events, error));
    EXPECT_TRUE(injector->Schedule(events, error)) << error;

    // The flows that close the cycle: leaf0 <-> leaf1 (bouncing through leaf2 or leaf3) and
    // leaf2 <-> leaf3, four QPs each so that ECMP takes every path; their hosts send at half
    // the line rate (PCIe-limited), so no link carries more than its rate.
    g_qps.clear();
    auto flow = [&](uint32_t a, uint32_t b, uint32_t qps, uint64_t bytes)
    {
        Ptr<RdmaTransport> ta = fabric.GetTransport(tree.GetGpuByRank(a));
        Ptr<RdmaTransport> tb = fabric.GetTransport(tree.GetGpuByRank(b));
        for (uint32_t q = 0; q < qps; ++q)
        {
            Ptr<RdmaQueuePair> qa = ta->CreateQueuePair();
            Ptr<RdmaQueuePair> qb = tb->CreateQueuePair();
            qa->Connect(tb->GetAddress(), qb->GetQpn(), 0, 0);
            qb->Connect(ta->GetAddress(), qa->GetQpn(), 0, 0);
            Simulator::Schedule(MilliSeconds(1), &RdmaQueuePair::PostWrite, qa, bytes, q);
            g_qps.push_back(qa);
        }
    };
    for (uint32_t g : {0, 2, 4, 6})
    {
        fabric.GetTransport(tree.GetGpuByRank(g))
            ->SetAttribute("PcieRate", DataRateValue(DataRate("200Gbps")));
    }
    flow(0, 2, 4, 4 << 20);
    flow(2, 0, 4, 4 << 20);
    flow(4, 6, 4, 4 << 20);
    flow(6, 4, 4, 4 << 20);
    if (bottleneck)
    {
        // leaf2 -> spine0 -> leaf1 at the full line rate, with the bounced leaf0 -> leaf1
        // traffic: spine0 -> leaf1 is oversubscribed and backs up into the cycle.
        flow(5, 3, 1, 16 << 20);
    }

    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t g = 0; g < 8; ++g)
    {
        transports.push_back(fabric.GetTransport(tree.GetGpuByRank(g)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&AllDone));
    Simulator::Schedule(MilliSeconds(1), &FabricStallDetector::Start, detector);
    Simulator::Schedule(MicroSeconds(500),
                        [&r, &fabric, &tree]() { r.cycleAfter = RoutesHaveCycle(fabric, tree); });
    Simulator::Run();
    r.completed = AllDone();
    r.finding = detector->GetFinding();
    r.cycle = detector->GetCycle();
    r.report = detector->GetReport();
    r.drops = FabricStatsHelper::Totals().drops;
    g_qps.clear();
    return r;
}

} // namespace

// Up-down routes have no cyclic buffer dependency; the bounce routes after the failures do.
// The four flows that close it, at half the line rate each, complete: no deadlock, nothing
// dropped (a CBD alone is not enough).
TEST_F(ClosDeadlockTest, CyclicDependencyAloneDoesNotDeadlock)
{
    const ClosRun r = RunClos(false);
    EXPECT_FALSE(r.cycleBefore);
    EXPECT_TRUE(r.cycleAfter);
    EXPECT_TRUE(r.completed) << r.report;
    EXPECT_EQ(r.finding, FabricStallDetector::Finding::NONE);
    EXPECT_EQ(r.drops, 0u);
}

// The same and one more flow at the full line rate over leaf2 -> spine0, a link of the cycle,
// into spine0 -> leaf1, which the bounced traffic also takes: that link is oversubscribed, the
// queue behind it backs up into the cycle, and the cycle's buffers fill and pause each other; the
// detector stops the run and names the four queues of the cycle, and still nothing was dropped.
TEST_F(ClosDeadlockTest, BottleneckFlowDeadlocksTheCycle)
{
    const ClosRun r = RunClos(true);
    EXPECT_TRUE(r.cycleAfter);
    EXPECT_FALSE(r.completed);
    ASSERT_EQ(r.finding, FabricStallDetector::Finding::DEADLOCK) << r.report;
    ASSERT_EQ(r.cycle.size(), 4u) << r.report;
    std::set<std::string> hops;
    for (const std::string& q : r.cycle)
    {
        // "spine1 port 2 (to leaf2) prio 3" -> "spine1>leaf2"
        const std::string from = q.substr(0, q.find(' '));
        const std::string to = q.substr(q.find("(to ") + 4, q.find(')') - q.find("(to ") - 4);
        hops.insert(from + ">" + to);
        EXPECT_NE(q.find("prio 3"), std::string::npos) << q;
    }
    EXPECT_EQ(
        hops,
        (std::set<std::string>{"spine1>leaf2", "leaf2>spine0", "spine0>leaf3", "leaf3>spine1"}))
        << r.report;
    EXPECT_EQ(r.drops, 0u);
}
