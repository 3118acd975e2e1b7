/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Events per data packet per hop (issue 13): counted by kind with FabricEventCounter and
// bounded by what the model needs; the same bandwidth with and without the per-frame events;
// coalesced credits that never let a lossless fabric drop.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/fabric-event-counter.h"
#include "ns3/global-value.h"
#include "ns3/pointer.h"
#include "ns3/rdma-perftest.h"
#include "ns3/roce-flow-scenario.h"
#include "ns3/type-id.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Messages and size of the perftest runs: 200 x 64 KiB, 16 packets each.
constexpr uint64_t MESSAGES = 200;
constexpr uint64_t MESSAGE_BYTES = 64 * 1024;
constexpr uint64_t PACKETS = MESSAGES * MESSAGE_BYTES / 4096;

class EventsPerHopTest : public AiFabricTest
{
  protected:
    void SetUp() override
    {
        AiFabricTest::SetUp();
        m_tally = CreateObject<FabricEventTally>();
        GlobalValue::Bind("SchedulerType", TypeIdValue(FabricEventCounter::GetTypeId()));
        Config::SetDefault("ns3::FabricEventCounter::Tally", PointerValue(m_tally));
        Config::SetDefault("ns3::FabricEventCounter::Print", BooleanValue(false));
    }

    void TearDown() override
    {
        AiFabricTest::TearDown();
        GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName("ns3::MapScheduler")));
        Config::SetDefault("ns3::FabricEventCounter::Tally", PointerValue());
        Config::SetDefault("ns3::FabricEventCounter::Print", BooleanValue(true));
        Config::Reset();
    }

    /**
     * \param fabric roce or ib
     * \param switches switches between the hosts
     * \return the perftest result; the events are in m_tally
     */
    RdmaPerftestResult Run(const std::string& fabric, uint32_t switches)
    {
        m_tally->Reset();
        RdmaPerftestConfig cfg;
        cfg.fabric = fabric;
        cfg.test = "write_bw";
        cfg.size = MESSAGE_BYTES;
        cfg.iterations = MESSAGES;
        cfg.switches = switches;
        EXPECT_EQ(cfg.Validate(), "");
        RdmaPerftest perftest(cfg);
        RdmaPerftestResult r = perftest.Run();
        Simulator::Destroy();
        return r;
    }

    Ptr<FabricEventTally> m_tally; //!< the counts
};

} // namespace

// Through N switches (N + 1 links), a data packet needs one cable delivery per link and one
// end of frame at the sender (the queue pair always has the next packet); its ACK (one per
// packet, AckInterval 1) needs one delivery per link, and the end of a frame only where
// another frame waits behind it. Per message the verbs add a doorbell and a completion. The
// switch's pipeline latency is no event, for the lossless data too (a PFC pause that arrives
// before a frame chosen ahead starts takes it back: test-pfc.cc). Anything more is a bug in
// the event economy: the end of an idle port's frame is no event. Issue 13's target of 2.5
// events per data packet-hop holds from three switches on (through one, the two deliveries
// per cable and the sender's end of frame are 2.5 already).
TEST_F(EventsPerHopTest, RoceWithinTheModelsBound)
{
    for (bool pfc : {true, false})
    {
        Config::SetDefault("ns3::RoceSwitchMmu::PfcEnabled", BooleanValue(pfc));
        for (uint32_t switches : {1U, 3U})
        {
            const RdmaPerftestResult r = Run("roce", switches);
            ASSERT_EQ(r.deliveredBytes, MESSAGES * MESSAGE_BYTES);
            ASSERT_EQ(r.packets, PACKETS);
            const uint64_t hops = switches + 1;
            EXPECT_EQ(m_tally->GetExecuted("ns3::FabricChannel"), 2 * PACKETS * hops)
                << switches << " switches, PFC " << pfc << ": data and ACKs";
            EXPECT_LE(m_tally->GetExecuted("ns3::FabricNetDevice"), PACKETS)
                << switches << " switches, PFC " << pfc << ": the sender's ends of frames";
            EXPECT_EQ(m_tally->GetExecuted("ns3::RoceNetDevice"), 0U)
                << switches << " switches, PFC " << pfc << ": no pipeline latency event";
            EXPECT_EQ(m_tally->GetExecuted("ns3::RoceSwitchMmu"), 0U)
                << switches << " switches, PFC " << pfc << ": no buffer release event";
            const double perHop = static_cast<double>(m_tally->GetExecuted()) / (PACKETS * hops);
            EXPECT_LE(perHop, 2.0 + (1.0 + 2.0 / 16) / hops + 0.01)
                << switches << " switches, PFC " << pfc;
            if (switches >= 3)
            {
                EXPECT_LE(perHop, 2.5) << switches << " switches (issue 13's target)";
            }
        }
    }
}

// InfiniBand adds the flow-control packets: with the default 128 KiB VL buffers on 2 m
// cables the credits are returned once per 256 blocks (four 4 KB packets) instead of per
// packet, so their deliveries add about a quarter event per data packet-hop; where a
// flow-control packet and an ACK leave one port together, the second's start is an end of
// frame (measured 3.42 and 3.26 events per data packet-hop through 1 and 3 switches, from
// 7.15 and 7.62).
TEST_F(EventsPerHopTest, IbCreditsCoalesced)
{
    for (uint32_t switches : {1U, 3U})
    {
        const RdmaPerftestResult r = Run("ib", switches);
        ASSERT_EQ(r.deliveredBytes, MESSAGES * MESSAGE_BYTES);
        EXPECT_EQ(r.drops, 0U);
        const uint64_t hops = switches + 1;
        const uint64_t deliveries = m_tally->GetExecuted("ns3::FabricChannel");
        EXPECT_GE(deliveries, 2 * PACKETS * hops);
        // Each data packet is 65 blocks, an ACK 1: 66 blocks per hop, 256 per update.
        // ... and each port repeats its last update once per FlowControlPeriod (5.24 us;
        // the run is about 270 us: at most 2 x 60 per cable).
        EXPECT_LE(deliveries, 2 * PACKETS * hops + (PACKETS * 66 / 256 + 120) * hops)
            << switches << " switches: flow-control packets";
        EXPECT_EQ(m_tally->GetExecuted("ns3::IbNetDevice(ns3::Ptr"), 0U)
            << switches << " switches: the switch latency is no event";
        const double perHop = static_cast<double>(m_tally->GetExecuted()) / (PACKETS * hops);
        EXPECT_LE(perHop, 3.5) << switches << " switches";
    }
}

// CompletionPerFrame restores the per-frame events (the end of every frame, the switch
// latency as an event): the wire times are the same, so is the bandwidth.
TEST_F(EventsPerHopTest, PerFrameEventsSameBandwidth)
{
    for (const std::string fabric : {"roce", "ib"})
    {
        const RdmaPerftestResult lean = Run(fabric, 3);
        const uint64_t leanEvents = m_tally->GetExecuted();
        Config::SetDefault("ns3::FabricNetDevice::CompletionPerFrame", BooleanValue(true));
        const RdmaPerftestResult full = Run(fabric, 3);
        Config::SetDefault("ns3::FabricNetDevice::CompletionPerFrame", BooleanValue(false));
        EXPECT_EQ(full.deliveredBytes, lean.deliveredBytes) << fabric;
        EXPECT_NEAR(full.bwAvgGbps, lean.bwAvgGbps, lean.bwAvgGbps * 1e-4) << fabric;
        EXPECT_EQ(m_tally->GetExecuted("ns3::FabricNetDevice"),
                  m_tally->GetExecuted("ns3::FabricChannel"))
            << fabric << ": every frame sent has its end as an event";
        EXPECT_GT(m_tally->GetExecuted(), leanEvents * 13 / 10) << fabric;
    }
}

// A 16-to-1 InfiniBand incast through one switch, the switch's input buffers full: with
// coalesced credit updates the senders never start a packet the buffer cannot hold (a credit
// violation is a drop) and every byte arrives.
TEST_F(EventsPerHopTest, IbIncastCoalescedCreditsLossless)
{
    RoceFlowScenarioConfig cfg;
    cfg.fabric = "ib";
    cfg.switches = 1;
    cfg.hostSwitch.push_back(0);
    const uint64_t bytes = 2 << 20;
    for (uint32_t i = 1; i <= 16; ++i)
    {
        cfg.hostSwitch.push_back(0);
        cfg.flows.push_back({i, 0, bytes, Time(0)});
    }
    cfg.watchHosts = {0};
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    for (const RoceFlowResult& f : r.flows)
    {
        EXPECT_TRUE(f.done);
        EXPECT_EQ(f.delivered, bytes);
    }
    EXPECT_EQ(r.totals.drops, 0U);
    EXPECT_GT(r.totals.creditStallUs, 0.0); // the credits were the limit
}
