/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// InfiniBand congestion control (IBTA Annex A10): the adapter's table, index and timer against
// the spec's arithmetic; the switch marks FECN at the root of congestion and not at its
// victims; and on a fabric it relieves the victim of head-of-line blocking without a drop.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/ib-congestion-control.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/node-container.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-flow-scenario.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class IbCongestionControlTest : public AiFabricTest
{
};

/// \return an adapter's control at 100 Gb/s with a four-entry table (delays 0, 1.5, 2, 7)
Ptr<IbCongestionControl>
SmallTable()
{
    Ptr<IbCongestionControl> cc = CreateObject<IbCongestionControl>();
    cc->SetAttribute("Cct", StringValue("0:0,1:3,3:16,0:7"));
    cc->SetAttribute("CctiIncrease", UintegerValue(2));
    cc->SetAttribute("CctiTimer", UintegerValue(3));
    cc->SetLineRate(DataRate("100Gbps"));
    return cc;
}

// The rate at each index is line / (1 + multiplier / 2^shift); a BECN adds CCTI_Increase up to
// the table's end; each CCTI_Timer x 1.024 us takes one off, down to zero, then the timer
// stops.
TEST_F(IbCongestionControlTest, IndexRisesPerBecnAndFallsPerTimer)
{
    Ptr<IbCongestionControl> cc = SmallTable();
    ASSERT_EQ(cc->GetCctiLimit(), 3u);
    EXPECT_EQ(cc->RateAt(0).GetBitRate(), 100000000000ULL);
    EXPECT_EQ(cc->RateAt(1).GetBitRate(), 40000000000ULL); // 100 / 2.5
    EXPECT_EQ(cc->RateAt(2).GetBitRate(), 33333333333ULL); // 100 / 3
    EXPECT_EQ(cc->RateAt(3).GetBitRate(), 12500000000ULL); // 100 / 8
    EXPECT_EQ(cc->GetPacingGap(4122), Time(0));            // line rate: the port paces

    cc->OnCongestionNotification();
    EXPECT_EQ(cc->GetCcti(), 2u);
    EXPECT_EQ(cc->GetRate(), cc->RateAt(2));
    // After a packet of T = 329.76 ns the next starts T x (1 + 2) later.
    EXPECT_NEAR(cc->GetPacingGap(4122).GetSeconds() * 1e9, 4122 * 8 / 100.0 * 3, 0.01);
    cc->OnCongestionNotification();
    EXPECT_EQ(cc->GetCcti(), 3u); // capped at CCTI_Limit
    EXPECT_EQ(cc->GetBecnsReceived(), 2u);

    const Time tick = NanoSeconds(3 * IbCongestionControl::TIMER_UNIT_NS); // 3.072 us
    std::vector<uint32_t> seen;
    for (int i = 1; i <= 5; ++i)
    {
        Simulator::Schedule(tick * i - NanoSeconds(1),
                            [&seen, cc]() { seen.push_back(cc->GetCcti()); });
        Simulator::Schedule(tick * i + NanoSeconds(1),
                            [&seen, cc]() { seen.push_back(cc->GetCcti()); });
    }
    Simulator::Run();
    EXPECT_EQ(seen, (std::vector<uint32_t>{3, 2, 2, 1, 1, 0, 0, 0, 0, 0}));
    EXPECT_EQ(cc->GetRate(), cc->RateAt(0));
    EXPECT_EQ(Simulator::Now(), tick * 5 + NanoSeconds(1)); // no timer left running at zero
}

// CCTI_Min is a floor under the index from the first packet on, and the timer stops there.
TEST_F(IbCongestionControlTest, MinimumIndexIsAFloor)
{
    Ptr<IbCongestionControl> cc = SmallTable();
    cc->SetAttribute("CctiMin", UintegerValue(1));
    cc->OnPacketSent(4122);
    EXPECT_EQ(cc->GetCcti(), 1u);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 40000000000ULL);
    cc->OnCongestionNotification();
    EXPECT_EQ(cc->GetCcti(), 3u);
    Simulator::Run();
    EXPECT_EQ(cc->GetCcti(), 1u);
    EXPECT_EQ(Simulator::Now(), NanoSeconds(2 * 3 * IbCongestionControl::TIMER_UNIT_NS));
}

// Without a Cct the table is derived as Omni-Path's fabric manager derives it: 128 entries,
// shift 3, delays linear up to 8 us for a 4122-byte packet; rates fall monotonically.
TEST_F(IbCongestionControlTest, DerivedTableSpansTheMaximumDelay)
{
    Ptr<IbCongestionControl> cc = CreateObject<IbCongestionControl>();
    cc->SetLineRate(DataRate("400Gbps"));
    ASSERT_EQ(cc->GetCctiLimit(), 127u);
    EXPECT_EQ(cc->RateAt(0).GetBitRate(), 400000000000ULL);
    const double packet = 4122 * 8 / 400e9;
    const double last = 400e9 / (1 + 8e-6 / packet);
    EXPECT_NEAR(cc->RateAt(127).GetBitRate() / last, 1.0, 0.002);
    for (uint32_t i = 1; i <= 127; ++i)
    {
        EXPECT_LT(cc->RateAt(i), cc->RateAt(i - 1)) << "index " << i;
    }
}

// Tables in OpenSM's cc_cct form: entries in range are accepted, anything else is named.
TEST_F(IbCongestionControlTest, TableTextIsChecked)
{
    std::vector<IbCongestionControl::CctEntry> t;
    EXPECT_EQ(IbCongestionControl::ParseCct("0:0,3:16383,2:5", t), "");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[1].shift, 3);
    EXPECT_EQ(t[1].multiplier, 16383);
    for (const char* bad : {"4:1", "0:16384", "x", "1:", ":1", "1:2,", "1:2:3", "-1:2", "1:2,,0:0"})
    {
        EXPECT_NE(IbCongestionControl::ParseCct(bad, t), "") << bad;
    }
}

/// Marks at the ports of a two-switch fabric where one remote and three local senders
/// overload one receiver: the trunk between the switches waits for credits (a victim).
struct MarkCount
{
    uint64_t root{0};  //!< at the switch port to the receiver
    uint64_t trunk{0}; //!< at the first switch's port to the second
    uint64_t drops{0}; //!< anywhere
    uint64_t cnps{0};  //!< CNPs sent
};

MarkCount
HotSpotMarks(bool victimMarking, uint32_t mtu)
{
    NodeContainer hosts;
    hosts.Create(5); // 0 on switch 0; 1 (the receiver), 2, 3, 4 on switch 1
    NodeContainer sw;
    sw.Create(2);
    IbFabricHelper fabric;
    fabric.SetPortPartAttribute("Marker", "Threshold", UintegerValue(15));
    fabric.SetPortPartAttribute("Marker", "VictimMarking", BooleanValue(victimMarking));
    fabric.SetQueuePairAttribute("Mtu", UintegerValue(mtu));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    fabric.Connect(hosts.Get(0), sw.Get(0)); // switch 0 port 0
    fabric.Connect(sw.Get(0), sw.Get(1));    // switch 0 port 1, switch 1 port 0
    for (uint32_t h = 1; h < 5; ++h)
    {
        fabric.Connect(hosts.Get(h), sw.Get(1)); // switch 1 ports 1-4
    }
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(1));
    for (uint32_t h : {0U, 2U, 3U, 4U})
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(h));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(2 << 20, 0);
    }
    Simulator::Run();
    MarkCount m;
    m.root = sw.Get(1)->GetObject<IbSwitch>()->GetPort(1)->GetFecnMarks();
    m.trunk = sw.Get(0)->GetObject<IbSwitch>()->GetPort(1)->GetFecnMarks();
    const FabricTotals t = FabricStatsHelper::Totals();
    m.drops = t.drops;
    m.cnps = t.cnps;
    Simulator::Destroy();
    return m;
}

// The root of the congestion marks FECN; the trunk, whose queue grows only because it waits
// for the next switch's credits, marks nothing unless its victim-mask bit is set. Without
// IbCongestionControl at the adapters nobody answers a mark with a BECN.
TEST_F(IbCongestionControlTest, SwitchMarksTheRootNotTheVictim)
{
    // 4 KB packets take one credit update each; 1 KB packets share updates, so the trunk
    // sends some of them with credits left over: still a victim.
    for (uint32_t mtu : {4096U, 1024U})
    {
        const MarkCount plain = HotSpotMarks(false, mtu);
        EXPECT_GT(plain.root, 100u) << mtu;
        EXPECT_EQ(plain.trunk, 0u) << mtu;
        EXPECT_EQ(plain.drops, 0u) << mtu;
        EXPECT_EQ(plain.cnps, 0u) << mtu;
        const MarkCount victim = HotSpotMarks(true, mtu);
        EXPECT_GT(victim.trunk, 100u) << mtu;
        EXPECT_EQ(victim.drops, 0u) << mtu;
    }
}

/// \param ibcc IB congestion control on
/// \return the PFC head-of-line example's setting on IB: a victim V on switch 0 to W on
///         switch 1, one incast sender beside V and seven beside the receiver, 40 Gb/s, 5 ms
RoceFlowScenarioResult
HolOnIb(bool ibcc)
{
    RoceFlowScenarioConfig cfg;
    cfg.fabric = "ib";
    cfg.ibcc = ibcc;
    cfg.rate = DataRate("40Gbps");
    cfg.mtu = 1024;
    cfg.switches = 2;
    cfg.trunks = {{0, 1}};
    cfg.hostSwitch = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}; // V, A, W, R, B1..B7
    const Time end = MilliSeconds(5);
    const uint64_t bytes = 40e9 / 8 * end.GetSeconds() + 1;
    cfg.flows.push_back({0, 2, bytes, Time(0)});
    cfg.flows.push_back({1, 3, bytes, Time(0)});
    for (uint32_t b = 4; b < 11; ++b)
    {
        cfg.flows.push_back({b, 3, bytes, Time(0)});
    }
    cfg.watchHosts = {3, 2};
    cfg.stopTime = end;
    cfg.sampleInterval = MicroSeconds(10);
    EXPECT_EQ(RoceFlowScenario::Check(cfg), "");
    return RoceFlowScenario::Run(cfg);
}

// On the fabric: credits alone leave the victim at the incast's pace (about 1/8 of the link);
// with IB CC the incast senders are throttled at their adapters, the victim gets at least
// half its max-min share and twice what it had, the bottleneck stays busy, nothing is lost.
TEST_F(IbCongestionControlTest, RelievesHeadOfLineBlockingLosslessly)
{
    const RoceFlowScenarioResult off = HolOnIb(false);
    const RoceFlowScenarioResult on = HolOnIb(true);
    const Time from = MilliSeconds(2.5);
    const Time to = MilliSeconds(5);
    const double victimOff = RoceFlowScenario::MeanThroughput(off, from, to)[0];
    const double victimOn = RoceFlowScenario::MeanThroughput(on, from, to)[0];
    // R's port is shared by 8 incast flows; the trunk carries 1 of them and the victim.
    const double line = 40.0 * 1024 / (1024 + 8 + 12 + 4 + 2);
    const double fair = line - line / 8;
    EXPECT_EQ(off.totals.ecnMarks, 0u);
    EXPECT_EQ(off.totals.cnps, 0u);
    EXPECT_LT(victimOff, 0.25 * fair);
    EXPECT_GT(on.totals.ecnMarks, 0u);
    EXPECT_GT(on.totals.cnps, 0u);
    EXPECT_GE(victimOn, 0.5 * fair);
    EXPECT_GE(victimOn, 2 * victimOff);
    EXPECT_EQ(on.totals.drops, 0u);
    EXPECT_EQ(off.totals.drops, 0u);
    ASSERT_EQ(on.ports.size(), 2u);
    EXPECT_GE(on.ports[0].utilization, 0.95); // the port to R
    EXPECT_GT(on.ports[0].ecnMarks, 0u);      // the root: R's port
    EXPECT_EQ(on.ports[1].ecnMarks, 0u);      // W's port carries the victim alone
    for (std::size_t i = 1; i < on.flows.size(); ++i)
    {
        EXPECT_GT(on.flows[i].cnpsReceived, 0u) << "incast flow " << i; // each one throttled
    }
}

} // namespace
