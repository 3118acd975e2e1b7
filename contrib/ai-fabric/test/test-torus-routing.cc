/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Dimension-order routing on tori and meshes, dateline classes, and the stall detector:
// every route is minimal and corrects X before Y; the channel dependency graph of all routes
// has a cycle on a torus without datelines and none with them (Dally and Seitz); and under a
// tornado-loaded ring all-reduce, PFC and IB credits deadlock without datelines (the
// detector names the ring's cycle) and complete with them, losing nothing either way.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/torus-helper.h"
#include "ns3/torus-routing.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{

class TorusRoutingTest : public AiFabricTest
{
};

/// One hop of a route: the directed link (switch vertex, port) and its class.
struct Hop
{
    uint32_t vertex; //!< switch vertex
    uint32_t port;   //!< output port
    uint8_t cls;     //!< dateline class
};

/**
 * \brief Follow a table from a switch to an endpoint.
 * \param topology the fabric
 * \param table the routes
 * \param from a switch vertex
 * \param endpoint the destination endpoint
 * \return the hops, the last one into the endpoint (empty if a route is missing or loops)
 */
std::vector<Hop>
Walk(const FabricTopology& topology, const FabricRouteTable& table, uint32_t from, uint32_t ep)
{
    std::vector<Hop> hops;
    uint32_t v = from;
    for (uint32_t guard = 0; guard < 64; ++guard)
    {
        const std::vector<uint32_t>& ports = table.GetPorts(v, ep);
        if (ports.size() != 1)
        {
            return {};
        }
        hops.push_back({v, ports[0], table.GetSwitchClasses(v)[ep]});
        Ptr<Node> node = topology.GetVertex(v).node;
        Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(ports[0]));
        Ptr<Node> next = port->GetFabricChannel()->GetPeer(PeekPointer(port))->GetNode();
        if (next == topology.GetVertex(topology.GetEndpointVertex(ep)).node)
        {
            return hops;
        }
        v = topology.GetSwitchVertex(next);
    }
    return {};
}

/**
 * \brief Route every switch to every GPU and check dimension order and the classes.
 * \param wrap torus or mesh
 * \param datelines dateline classes
 * \return true if the channel dependency graph of all routes (channel = link and class) has
 *         a cycle
 */
bool
CheckRoutes(bool wrap, bool datelines)
{
    TorusHelper torus;
    torus.SetDimensions({4, 4});
    torus.SetWrap(wrap);
    RoceFabricHelper fabric;
    torus.Install(fabric);
    Ptr<DimensionOrderRoutingEngine> engine = CreateObject<DimensionOrderRoutingEngine>();
    const NodeContainer switches = torus.GetSwitches();
    engine->SetGeometry({4, 4}, wrap, {switches.Begin(), switches.End()});
    engine->SetAttribute("Datelines", BooleanValue(datelines));
    const FabricTopology& topology = *fabric.GetTopology();
    const FabricRouteTable table = engine->Compute(topology);
    EXPECT_EQ(table.HasClasses(), datelines && wrap);

    std::map<uint32_t, uint32_t> indexOf; // switch vertex -> linear index
    for (uint32_t i = 0; i < 16; ++i)
    {
        indexOf[topology.GetSwitchVertex(torus.GetSwitches().Get(i))] = i;
    }
    auto coordsOf = [&](uint32_t v) { return torus.GetCoordinates(indexOf.at(v)); };
    // Channel dependency graph: (vertex, port, class) -> next channels.
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>,
             std::set<std::tuple<uint32_t, uint32_t, uint8_t>>>
        cdg;
    for (uint32_t s = 0; s < 16; ++s)
    {
        const uint32_t from = topology.GetSwitchVertex(torus.GetSwitches().Get(s));
        for (uint32_t ep = 0; ep < 16; ++ep)
        {
            const std::vector<Hop> hops = Walk(topology, table, from, ep);
            EXPECT_FALSE(hops.empty()) << "no route from switch " << s << " to gpu" << ep;
            if (hops.empty())
            {
                continue;
            }
            // Minimal: one hop per step of ring (or line) distance, plus the hop to the GPU.
            const std::vector<uint32_t> a = torus.GetCoordinates(s);
            const std::vector<uint32_t> b = torus.GetCoordinates(ep);
            uint32_t expected = 1;
            for (uint32_t d = 0; d < 2; ++d)
            {
                const uint32_t fwd = (b[d] + 4 - a[d]) % 4;
                expected
                    += wrap ? std::min(fwd, 4 - fwd) : (a[d] > b[d] ? a[d] - b[d] : b[d] - a[d]);
            }
            EXPECT_EQ(hops.size(), expected) << "switch " << s << " to gpu" << ep;
            // Dimension order: the dimension of the switch-to-switch hops never decreases, and
            // within a dimension the class never falls from 1 to 0. A hop is class 0 exactly
            // while the wrap-around is still ahead in its dimension.
            uint32_t lastDim = 0;
            for (std::size_t h = 0; h + 1 < hops.size(); ++h)
            {
                const std::vector<uint32_t> here = coordsOf(hops[h].vertex);
                const std::vector<uint32_t> next = coordsOf(hops[h + 1].vertex);
                const uint32_t dim = here[0] != next[0] ? 0 : 1;
                EXPECT_GE(dim, lastDim);
                lastDim = dim;
                if (datelines && wrap)
                {
                    bool wrapAhead = false;
                    for (std::size_t k = h; k + 1 < hops.size(); ++k)
                    {
                        const std::vector<uint32_t> c0 = coordsOf(hops[k].vertex);
                        const std::vector<uint32_t> c1 = coordsOf(hops[k + 1].vertex);
                        if (c0[dim] == c1[dim])
                        {
                            break; // left the dimension
                        }
                        const bool wraps
                            = (c0[dim] == 3 && c1[dim] == 0) || (c0[dim] == 0 && c1[dim] == 3);
                        wrapAhead = wrapAhead || wraps;
                    }
                    EXPECT_EQ(hops[h].cls, wrapAhead ? 0 : 1);
                }
                else
                {
                    EXPECT_EQ(hops[h].cls, 0);
                }
            }
            EXPECT_EQ(hops.back().cls, 0); // into the GPU in the base class
            for (std::size_t h = 0; h + 2 < hops.size(); ++h)
            {
                cdg[{hops[h].vertex, hops[h].port, hops[h].cls}].insert(
                    {hops[h + 1].vertex, hops[h + 1].port, hops[h + 1].cls});
            }
        }
    }
    // Cycle search (depth-first, recursive over at most 128 channels).
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>, int> state;
    std::function<bool(const std::tuple<uint32_t, uint32_t, uint8_t>&)> visit
        = [&](const std::tuple<uint32_t, uint32_t, uint8_t>& c)
    {
        state[c] = 1;
        for (const auto& n : cdg[c])
        {
            if (state[n] == 1 || (state[n] == 0 && visit(n)))
            {
                return true;
            }
        }
        state[c] = 2;
        return false;
    };
    bool cycle = false;
    for (const auto& [c, next] : cdg)
    {
        if (state[c] == 0 && visit(c))
        {
            cycle = true;
            break;
        }
    }
    Simulator::Destroy();
    Names::Clear();
    return cycle;
}

// Every route of a 4x4 torus and mesh is minimal and in dimension order; the dependency graph
// of a torus's routes has a cycle without datelines and none with them; a mesh has none.
TEST_F(TorusRoutingTest, DimensionOrderAndDatelinesBreakTheCycles)
{
    EXPECT_TRUE(CheckRoutes(true, false));
    EXPECT_FALSE(CheckRoutes(true, true));
    EXPECT_FALSE(CheckRoutes(false, false));
}

/// The outcome of one tornado run
struct TornadoResult
{
    FabricStallDetector::Finding finding; //!< the detector's
    std::vector<std::string> cycle;       //!< its cycle
    std::string report;                   //!< its report
    bool completed;                       //!< the all-reduce finished
    uint64_t drops;                       //!< frames dropped
    uint64_t remarked;                    //!< frames re-marked by RoCEv2 switches
};

/// set when the collective finishes
bool g_done = false;

/**
 * \param s start
 * \param e end
 */
void
Done(Time /* s */, Time /* e */)
{
    g_done = true;
}

/// \return whether the collective finished
bool
IsDone()
{
    return g_done;
}

/**
 * \brief A 16 MiB ring all-reduce on a 4x4 torus in stride placement (ring neighbours two
 *        hops apart along X), four channels, no DCQCN.
 * \param fabric the fabric helper
 * \param datelines dateline classes
 * \return what happened
 */
TornadoResult
RunTornado(FabricHelper& fabric, bool datelines)
{
    TorusHelper torus;
    torus.SetDatelines(datelines);
    torus.Install(fabric);
    CollectiveHelper collectives;
    collectives.SetChannels(4);
    const NodeContainer gpus = torus.GetGpus("stride");
    collectives.Install(gpus, fabric);
    Ptr<CollectivePlan> plan = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, 16, 16 << 20, 4, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    g_done = false;
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&Done));
    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t r = 0; r < 16; ++r)
    {
        transports.push_back(fabric.GetTransport(gpus.Get(r)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&IsDone));
    detector->Start();
    Simulator::Run();
    TornadoResult r;
    r.finding = detector->GetFinding();
    r.cycle = detector->GetCycle();
    r.report = detector->GetReport();
    r.completed = g_done;
    r.drops = FabricStatsHelper::Totals().drops;
    r.remarked = 0;
    for (uint32_t i = 0; i < torus.GetNSwitches(); ++i)
    {
        if (Ptr<RoceSwitch> sw = torus.GetSwitches().Get(i)->GetObject<RoceSwitch>())
        {
            r.remarked += sw->GetRemarkedPackets();
        }
    }
    return r;
}

/**
 * \param r a run without datelines
 * \param cls the class name the cycle names ("prio 3", "VL 0")
 */
void
ExpectRingDeadlock(const TornadoResult& r, const std::string& cls)
{
    EXPECT_FALSE(r.completed);
    ASSERT_EQ(r.finding, FabricStallDetector::Finding::DEADLOCK) << r.report;
    EXPECT_EQ(r.report.rfind("deadlock: a cycle of 4 blocked queues: ", 0), 0u) << r.report;
    // The cycle is one X ring: four switches of one line, each waiting on the next.
    ASSERT_EQ(r.cycle.size(), 4u) << r.report;
    for (std::size_t i = 0; i < 4; ++i)
    {
        const std::string& q = r.cycle[i];
        EXPECT_EQ(q.rfind("torus", 0), 0u) << q;
        EXPECT_NE(q.find(cls), std::string::npos) << q;
        // "torusA-B port P (to torusC-B) ...": the next queue is at the switch this one feeds.
        const std::string to = q.substr(q.find("(to ") + 4, q.find(')') - q.find("(to ") - 4);
        const std::string& next = r.cycle[(i + 1) % 4];
        EXPECT_EQ(next.substr(0, next.find(' ')), to) << q << " then " << next;
    }
    EXPECT_EQ(r.drops, 0u); // deadlocked, but lossless
}

// RoCEv2 with PFC: the tornado-loaded rings deadlock without datelines; the detector names a
// ring's four paused queues. With datelines (a second lossless priority after the wrap-around)
// the same run completes. Nothing is dropped either way.
TEST_F(TorusRoutingTest, PfcTorusDeadlocksWithoutDatelinesOnly)
{
    {
        RoceFabricHelper fabric;
        fabric.SetMmuAttribute("BufferSize", UintegerValue(2 << 20));
        ExpectRingDeadlock(RunTornado(fabric, false), "prio 3");
    }
    Simulator::Destroy();
    Names::Clear();
    {
        RoceFabricHelper fabric;
        fabric.SetMmuAttribute("BufferSize", UintegerValue(2 << 20));
        const TornadoResult r = RunTornado(fabric, true);
        EXPECT_TRUE(r.completed) << r.report;
        EXPECT_EQ(r.finding, FabricStallDetector::Finding::NONE);
        EXPECT_EQ(r.drops, 0u);
        EXPECT_GT(r.remarked, 0u); // frames did change class at datelines
    }
}

// InfiniBand credits: the same, with the cycle on VL 0 and the dateline class on VL 1.
TEST_F(TorusRoutingTest, CreditTorusDeadlocksWithoutDatelinesOnly)
{
    {
        IbFabricHelper fabric;
        ExpectRingDeadlock(RunTornado(fabric, false), "VL 0");
    }
    Simulator::Destroy();
    Names::Clear();
    {
        IbFabricHelper fabric;
        const TornadoResult r = RunTornado(fabric, true);
        EXPECT_TRUE(r.completed) << r.report;
        EXPECT_EQ(r.finding, FabricStallDetector::Finding::NONE);
        EXPECT_EQ(r.drops, 0u);
    }
}

// A stall without a cycle: a GPU's own link goes down mid-run; nothing moves, no queue waits
// on another. The detector gives the transport two retransmission timeouts to recover, then
// says so instead of waiting for the end of time.
TEST_F(TorusRoutingTest, StallWithoutCycleIsReportedAsStall)
{
    RoceFabricHelper fabric;
    TorusHelper torus;
    torus.Install(fabric);
    CollectiveHelper collectives;
    collectives.Install(torus.GetGpus(), fabric);
    Ptr<CollectivePlan> plan = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, 16, 8 << 20, 1, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    g_done = false;
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&Done));
    Ptr<FabricChannel> gpu5 = fabric.GetHostPort(torus.GetGpus().Get(5))->GetFabricChannel();
    Simulator::Schedule(MicroSeconds(100), &FabricChannel::SetLinkUp, gpu5, false);
    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    detector->SetAttribute("StallTime", TimeValue(MilliSeconds(2)));
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t r = 0; r < 16; ++r)
    {
        transports.push_back(fabric.GetTransport(torus.GetGpus().Get(r)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&IsDone));
    detector->Start();
    Simulator::Run();
    EXPECT_FALSE(g_done);
    EXPECT_EQ(detector->GetFinding(), FabricStallDetector::Finding::STALL);
    EXPECT_EQ(detector->GetReport().rfind("stall: no progress for ", 0), 0u)
        << detector->GetReport();
    EXPECT_TRUE(detector->GetCycle().empty());
    // Declared two timeouts after the last delivery (before the link went down), within one
    // check (StallTime / 4).
    const Time rto = fabric.GetTransport(torus.GetGpus().Get(0))
                         ->GetQueuePair(RdmaTransport::FIRST_QPN)
                         ->GetRetransmissionTimeout();
    EXPECT_GE(detector->GetDetectionTime(), rto * 2);
    EXPECT_LE(detector->GetDetectionTime(), MicroSeconds(100) + rto * 2 + MilliSeconds(1));
}

// Placements: linear is the coordinate order; stride visits even X first; random is a
// permutation fixed by its seed; unknown names are refused.
TEST_F(TorusRoutingTest, Placements)
{
    TorusHelper torus;
    torus.SetDimensions({4, 2});
    RoceFabricHelper fabric;
    torus.Install(fabric);
    const NodeContainer stride = torus.GetGpus("stride");
    const std::vector<uint32_t> expected{0, 2, 4, 6, 1, 3, 5, 7};
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(stride.Get(i), torus.GetGpus().Get(expected[i]));
    }
    const NodeContainer a = torus.GetGpus("random", 7);
    const NodeContainer b = torus.GetGpus("random", 7);
    std::set<Ptr<Node>> seen;
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(a.Get(i), b.Get(i));
        seen.insert(a.Get(i));
    }
    EXPECT_EQ(seen.size(), 8u);
    EXPECT_TRUE(TorusHelper::IsPlacement("linear"));
    EXPECT_FALSE(TorusHelper::IsPlacement("snake"));
}

} // namespace
