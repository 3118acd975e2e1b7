/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "clos-deadlock-scenario.h"

#include "fabric-series.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/names.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <functional>
#include <map>
#include <set>

namespace ns3
{

namespace
{
/// A directed link: (switch node id, output port)
using Channel = std::pair<uint32_t, uint32_t>;

/**
 * \brief The channel dependency graph of every ECMP path between every pair of GPUs on
 *        different leaves.
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
} // namespace

void
ClosDeadlockScenario::SetBufferBytes(uint32_t bytes)
{
    m_bufferBytes = bytes;
}

void
ClosDeadlockScenario::SetHostRate(DataRate rate)
{
    m_hostRate = rate;
}

void
ClosDeadlockScenario::SetFlowBytes(uint64_t bytes)
{
    m_flowBytes = bytes;
}

void
ClosDeadlockScenario::SetBottleneckBytes(uint64_t bytes)
{
    m_bottleneckBytes = bytes;
}

void
ClosDeadlockScenario::SetSeries(bool on)
{
    m_series = on;
}

ClosDeadlockResult
ClosDeadlockScenario::Run(bool bottleneck)
{
    RoceFabricHelper fabric;
    fabric.SetMmuAttribute("BufferSize", UintegerValue(m_bufferBytes));
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    fabric.AssignStreams(1);
    ClosDeadlockResult r;
    r.cycleBefore = RoutesHaveCycle(fabric, tree);

    Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
    injector->SetAttribute("DetectionDelay", TimeValue(Time(0)));
    injector->SetAttribute("RerouteDelay", TimeValue(Time(0)));
    injector->Install(fabric.GetTopology(), MakeCallback(&FabricHelper::ComputeRoutes, &fabric));
    std::vector<FaultEvent> events;
    std::string error;
    NS_ABORT_MSG_IF(
        !FaultSchedule::Parse("link:leaf0-spine0@0ms;link:leaf1-spine1@0ms", events, error)
            || !injector->Schedule(events, error),
        "ClosDeadlockScenario: " << error);

    std::vector<Ptr<RdmaQueuePair>> qps;
    auto flow = [&](uint32_t a, uint32_t b, uint32_t count, uint64_t bytes)
    {
        Ptr<RdmaTransport> ta = fabric.GetTransport(tree.GetGpuByRank(a));
        Ptr<RdmaTransport> tb = fabric.GetTransport(tree.GetGpuByRank(b));
        for (uint32_t q = 0; q < count; ++q)
        {
            Ptr<RdmaQueuePair> qa = ta->CreateQueuePair();
            Ptr<RdmaQueuePair> qb = tb->CreateQueuePair();
            qa->Connect(tb->GetAddress(), qb->GetQpn(), 0, 0);
            qb->Connect(ta->GetAddress(), qa->GetQpn(), 0, 0);
            Simulator::Schedule(MilliSeconds(1), &RdmaQueuePair::PostWrite, qa, bytes, q);
            qps.push_back(qa);
        }
    };
    for (uint32_t g : {0, 2, 4, 6})
    {
        fabric.GetTransport(tree.GetGpuByRank(g))
            ->SetAttribute("PcieRate", DataRateValue(m_hostRate));
    }
    // Four QPs per pair, so that ECMP takes every path (the bounce through leaf2 and leaf3).
    flow(0, 2, 4, m_flowBytes);
    flow(2, 0, 4, m_flowBytes);
    flow(4, 6, 4, m_flowBytes);
    flow(6, 4, 4, m_flowBytes);
    if (bottleneck)
    {
        flow(5, 3, 1, m_bottleneckBytes);
    }
    auto allDone = [&qps]()
    {
        for (const Ptr<RdmaQueuePair>& qp : qps)
        {
            if (qp->GetOutstandingRequests() > 0)
            {
                return false;
            }
        }
        return true;
    };
    Time end(-1);
    std::function<void()> watch = [&]()
    {
        if (allDone())
        {
            end = Simulator::Now();
            return;
        }
        Simulator::Schedule(MicroSeconds(10), watch);
    };
    Simulator::Schedule(MilliSeconds(1), watch);

    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t g = 0; g < tree.GetNGpus(); ++g)
    {
        transports.push_back(fabric.GetTransport(tree.GetGpuByRank(g)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    std::function<bool()> done = [&end]() { return !end.IsStrictlyNegative(); };
    detector->SetDoneCallback(MakeCallback(&std::function<bool()>::operator(), &done));
    Simulator::Schedule(MilliSeconds(1), &FabricStallDetector::Start, detector);
    Simulator::Schedule(MicroSeconds(500),
                        [&r, &fabric, &tree]() { r.cycleAfter = RoutesHaveCycle(fabric, tree); });
    FabricSeriesSampler sampler;
    if (m_series)
    {
        // Until the writes are done, or until the detector stops the run on the deadlock.
        sampler.Start(MakeCallback(&std::function<bool()>::operator(), &done));
    }
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named
    if (m_series)
    {
        r.series = sampler.ToJson();
    }
    r.completed = !end.IsStrictlyNegative();
    r.end = r.completed ? end : Simulator::Now();
    r.finding = detector->GetFinding();
    r.cycle = detector->GetCycle();
    r.report = detector->GetReport();
    const FabricTotals totals = FabricStatsHelper::Totals();
    r.drops = totals.drops;
    r.pauses = totals.pfcPauseFrames;
    Simulator::Destroy();
    Names::Clear();
    return r;
}

} // namespace ns3
