/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Failures: the schedule's text and JSON forms and their refusals; a spine-leaf link failed
// mid all-reduce on RoCEv2 (BFD, ECMP) and on InfiniBand (the subnet manager's sweep): the
// collective completes with every byte delivered once, after detection and reroute at the
// configured delays; a NIC down ends the run with the finding; a link with bit errors slows
// the collective but it completes; a flapping link; names that do not exist.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/error-model.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace ns3;

namespace
{

class FaultTest : public AiFabricTest
{
};

/// The outcome of one run
struct FaultRun
{
    bool completed{false};            //!< the all-reduce finished
    Time time;                        //!< its time
    std::vector<FaultRecord> records; //!< the injector's
    std::string finding;              //!< the injector's
    std::string stall;                //!< the stall detector's report
    FabricTotals totals;              //!< fabric counters
    uint64_t linkDownDrops{0};        //!< drops because a link was down
    uint64_t otherDrops{0};           //!< every other drop
    bool exactlyOnce{true};           //!< every rank received exactly the plan's bytes
};

/// set when the collective finishes
Time g_end(-1);

/**
 * \param s start
 * \param e end
 */
void
Done(Time /* s */, Time e)
{
    g_end = e;
}

/// \return whether the collective finished
bool
IsDone()
{
    return !g_end.IsStrictlyNegative();
}

/**
 * \brief An 8 MiB ring all-reduce over 8 GPUs on a radix-4 leaf-spine (4 leaves, 2 spines),
 *        with failures.
 * \param fabric the fabric helper
 * \param spec the failures (empty: none)
 * \return what happened
 */
FaultRun
RunWith(FabricHelper& fabric, const std::string& spec)
{
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    fabric.AssignStreams(1);
    CollectiveHelper collectives;
    collectives.Install(tree.GetGpus(), fabric);
    Ptr<CollectivePlan> plan = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, 8, 8 << 20, 1, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    g_end = Time(-1);
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&Done));
    Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
    fabric.SetRecoveryDelays(injector);
    injector->Install(fabric.GetTopology(), MakeCallback(&FabricHelper::ComputeRoutes, &fabric));
    injector->AssignStreams(100);
    std::vector<FaultEvent> events;
    std::string error;
    EXPECT_TRUE(FaultSchedule::Parse(spec, events, error) || spec.empty()) << error;
    EXPECT_TRUE(injector->Schedule(events, error)) << error;
    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t r = 0; r < 8; ++r)
    {
        transports.push_back(fabric.GetTransport(tree.GetGpuByRank(r)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&IsDone));
    detector->Start();
    Simulator::Run();
    FaultRun r;
    r.completed = IsDone();
    r.time = g_end;
    r.records = injector->GetRecords();
    r.finding = injector->GetFinding();
    r.stall = detector->GetReport();
    r.totals = FabricStatsHelper::Totals();
    for (const Ptr<FabricChannel>& c : fabric.GetChannels())
    {
        for (std::size_t i = 0; i < 2; ++i)
        {
            const FabricPortCounters& k
                = StaticCast<FabricNetDevice>(c->GetDevice(i))->GetCounters();
            const uint64_t down = k.drops[static_cast<std::size_t>(FabricDropReason::LINK_DOWN)];
            r.linkDownDrops += down;
            r.otherDrops += k.TotalDrops() - down;
        }
    }
    for (uint32_t rank = 0; rank < 8 && r.completed; ++rank)
    {
        r.exactlyOnce
            = r.exactlyOnce
              && collectives.GetTransport(rank)->GetBytesReceived() == plan->GetBytesReceived(rank)
              && collectives.GetTransport(rank)->GetBytesSent() == plan->GetBytesSent(rank);
    }
    Simulator::Destroy();
    Names::Clear();
    return r;
}

/**
 * \param ib InfiniBand or RoCEv2
 * \param spec failures
 * \return the run
 */
FaultRun
RunOn(bool ib, const std::string& spec)
{
    std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(ib ? "ib" : "roce");
    return RunWith(*fabric, spec);
}

} // namespace

// The text form: every kind, options, up@ repairs, malformed input refused with a reason.
TEST_F(FaultTest, ScheduleTextForm)
{
    std::vector<FaultEvent> e;
    std::string error;
    ASSERT_TRUE(
        FaultSchedule::Parse("link:leaf0-spine1@2ms;up@5ms;switch:spine0@1.5ms;"
                             "nic:gpu3@10us;flap:leaf1-spine0@1ms,period=200us,count=4;"
                             "ber:leaf2-spine1@0ms,rate=1e-7;up@3ms",
                             e,
                             error))
        << error;
    ASSERT_EQ(e.size(), 7u);
    EXPECT_EQ(e[0].kind, FaultEvent::Kind::LINK_DOWN);
    EXPECT_EQ(e[0].target, "leaf0-spine1");
    EXPECT_EQ(e[0].at, MilliSeconds(2));
    EXPECT_EQ(e[1].kind, FaultEvent::Kind::LINK_UP);
    EXPECT_EQ(e[1].target, "leaf0-spine1");
    EXPECT_EQ(e[2].kind, FaultEvent::Kind::SWITCH_DOWN);
    EXPECT_EQ(e[2].at, MicroSeconds(1500));
    EXPECT_EQ(e[3].kind, FaultEvent::Kind::NIC_DOWN);
    EXPECT_EQ(e[4].kind, FaultEvent::Kind::FLAP);
    EXPECT_EQ(e[4].period, MicroSeconds(200));
    EXPECT_EQ(e[4].count, 4u);
    EXPECT_EQ(e[5].kind, FaultEvent::Kind::BER);
    EXPECT_DOUBLE_EQ(e[5].rate, 1e-7);
    EXPECT_EQ(e[6].kind, FaultEvent::Kind::BER_CLEAR);
    EXPECT_EQ(FaultSchedule::LastChange(e), MilliSeconds(5));
    for (const std::string bad : {"",
                                  "link:leaf0-spine1",
                                  "link:leaf0-spine1@2",
                                  "link:leaf0-spine1@soon",
                                  "link:leaf0-spine1@-1ms",
                                  "cable:leaf0-spine1@1ms",
                                  "link:leaf0@1ms",
                                  "link:@1ms",
                                  "up@1ms",
                                  "link:a-b@2ms;up@1ms",
                                  "link:a-b@1ms;;",
                                  "flap:a-b@1ms",
                                  "flap:a-b@1ms,period=0ms",
                                  "flap:a-b@1ms,period=1ms,count=0",
                                  "ber:a-b@1ms",
                                  "ber:a-b@1ms,rate=2",
                                  "ber:a-b@1ms,rate=x",
                                  "link:a-b@1ms,rate=1e-6",
                                  "link:a-b@1ms,period",
                                  "link:a-b@1ms;up@2ms;up@3ms"})
    {
        EXPECT_FALSE(FaultSchedule::Parse(bad, e, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

// The JSON form: the same events, "up" as a repair; malformed files refused.
TEST_F(FaultTest, ScheduleJsonForm)
{
    const std::string dir = TempDir();
    const std::string good = dir + "/failures.json";
    std::ofstream(good) << R"([{"what": "link", "target": "leaf0-spine1", "at": "2ms", "up": "5ms"},
        {"what": "flap", "target": "leaf1-spine0", "at": "1ms", "period": "200us", "count": 3},
        {"what": "ber", "target": "leaf2-spine1", "at": "0ms", "rate": 1e-7}])";
    std::vector<FaultEvent> e;
    std::string error;
    ASSERT_TRUE(FaultSchedule::Read(good, e, error)) << error;
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[1].kind, FaultEvent::Kind::LINK_UP);
    EXPECT_EQ(e[1].at, MilliSeconds(5));
    EXPECT_EQ(e[2].count, 3u);
    EXPECT_DOUBLE_EQ(e[3].rate, 1e-7);
    const std::string bad = dir + "/bad.json";
    for (const std::string text :
         {"{}",
          "not json",
          R"([{"what": "link", "target": "a-b"}])",
          R"([{"what": "melt", "target": "a-b", "at": "1ms"}])",
          R"([{"what": "link", "target": "a-b", "at": "1ms", "up": "0ms"}])",
          R"([{"what": "ber", "target": "a-b", "at": "1ms"}])",
          R"([{"what": "link", "target": "a-b", "at": "1ms", "upp": "2ms"}])"})
    {
        std::ofstream(bad) << text;
        EXPECT_FALSE(FaultSchedule::Read(bad, e, error)) << text;
        EXPECT_NE(error.find("bad.json"), std::string::npos) << error;
    }
    EXPECT_FALSE(FaultSchedule::Read(dir + "/missing.json", e, error));
}

// RoCEv2: a spine-leaf link fails 200 us into the all-reduce. BFD notices 30 ms later, ECMP
// has rerouted 5 ms after that; the packets lost on and for the link are LinkDown drops (no
// other drop: still lossless), the transport resends them, and every rank receives exactly
// the plan's bytes. The collective takes longer than without the failure.
TEST_F(FaultTest, RoceSpineLinkFailureRecovers)
{
    const FaultRun base = RunOn(false, "");
    ASSERT_TRUE(base.completed);
    ASSERT_GT(base.time, MicroSeconds(200)) << "the failure must strike mid-collective";
    const FaultRun r = RunOn(false, "link:leaf0-spine0@200us");
    ASSERT_TRUE(r.completed) << r.finding << r.stall;
    EXPECT_TRUE(r.exactlyOnce);
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].what, "link leaf0-spine0 down");
    EXPECT_EQ(r.records[0].at, MicroSeconds(200));
    EXPECT_EQ(r.records[0].detected, MicroSeconds(200) + MilliSeconds(30));
    EXPECT_EQ(r.records[0].rerouted, MicroSeconds(200) + MilliSeconds(35));
    EXPECT_GT(r.linkDownDrops, 0u);
    EXPECT_EQ(r.otherDrops, 0u);
    EXPECT_GT(r.totals.retransmits, 0u);
    EXPECT_GT(r.time, base.time);
    EXPECT_GT(r.time, r.records[0].rerouted); // some flow waited for the reroute
    EXPECT_EQ(r.finding, "");
}

// InfiniBand: the same failure; the subnet manager hears of it after 1 ms and has new LFTs in
// place 50 ms later. Credits are never violated and nothing but the lost packets is dropped.
TEST_F(FaultTest, InfinibandSpineLinkFailureRecovers)
{
    const FaultRun base = RunOn(true, "");
    ASSERT_TRUE(base.completed);
    const FaultRun r = RunOn(true, "link:leaf0-spine0@200us");
    ASSERT_TRUE(r.completed) << r.finding << r.stall;
    EXPECT_TRUE(r.exactlyOnce);
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].detected, MicroSeconds(200) + MilliSeconds(1));
    EXPECT_EQ(r.records[0].rerouted, MicroSeconds(200) + MilliSeconds(51));
    EXPECT_GT(r.linkDownDrops, 0u);
    EXPECT_EQ(r.otherDrops, 0u);
    EXPECT_GT(r.time, base.time);
}

// A GPU's NIC dies: after the reroute nothing reaches it, and the run ends with that finding
// instead of waiting for timeouts forever.
TEST_F(FaultTest, NicDownEndsTheRunWithAFinding)
{
    const FaultRun r = RunOn(false, "nic:gpu5@200us");
    EXPECT_FALSE(r.completed);
    EXPECT_EQ(r.finding, "unreachable: gpu5 cannot be reached from gpu0 after nic gpu5 down");
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].rerouted, MicroSeconds(200) + MilliSeconds(35));
}

// Bit errors on a spine link: frames are corrupted (ReceiveError drops), the transport
// resends, and the collective completes, later than without them; nothing is rerouted.
TEST_F(FaultTest, BitErrorsSlowButNeverHang)
{
    const FaultRun base = RunOn(false, "");
    const FaultRun r = RunOn(false, "ber:leaf0-spine0@0ms,rate=2e-7");
    ASSERT_TRUE(r.completed) << r.stall;
    EXPECT_TRUE(r.exactlyOnce);
    EXPECT_GT(r.otherDrops, 0u); // receive errors
    EXPECT_EQ(r.linkDownDrops, 0u);
    EXPECT_GT(r.totals.retransmits, 0u);
    EXPECT_GT(r.time, base.time);
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_TRUE(r.records[0].detected.IsStrictlyNegative());
}

// A link flapping four times (down, up, down, up) in the first millisecond: each change is
// detected and rerouted, and the collective completes exactly.
TEST_F(FaultTest, FlappingLinkCompletes)
{
    const FaultRun r = RunOn(false, "flap:leaf1-spine1@100us,period=200us,count=4");
    ASSERT_TRUE(r.completed) << r.stall;
    EXPECT_TRUE(r.exactlyOnce);
    ASSERT_EQ(r.records.size(), 4u);
    EXPECT_EQ(r.records[3].what, "link leaf1-spine1 up (flap 4/4)");
    EXPECT_EQ(r.records[3].at, MicroSeconds(700));
}

// Names that do not exist in the topology are refused and nothing is scheduled.
TEST_F(FaultTest, UnknownNamesAreRefused)
{
    RoceFabricHelper fabric;
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
    injector->Install(fabric.GetTopology(), MakeCallback(&FabricHelper::ComputeRoutes, &fabric));
    const std::vector<std::pair<std::string, std::string>> cases
        = {{"link:leaf0-spine9@1ms", "no cable 'leaf0-spine9'"},
           {"link:leaf0-leaf1@1ms", "no cable 'leaf0-leaf1'"},
           {"switch:gpu0@1ms", "no switch 'gpu0'"},
           {"nic:leaf0@1ms", "no GPU 'leaf0' with a NIC"},
           {"ber:gpu0-spine0@1ms,rate=1e-6", "no cable 'gpu0-spine0'"}};
    for (const auto& [spec, message] : cases)
    {
        std::vector<FaultEvent> events;
        std::string error;
        ASSERT_TRUE(FaultSchedule::Parse(spec, events, error)) << error;
        EXPECT_FALSE(injector->Schedule(events, error)) << spec;
        EXPECT_EQ(error.rfind(message, 0), 0u) << error;
    }
    Simulator::Run();
    EXPECT_TRUE(injector->GetRecords().empty());
}

// A QP that exhausts its retries (the peer's cable cut, nothing rerouted, RetryCount 0) ends
// the run with a finding that names it, instead of aborting or hanging.
TEST_F(FaultTest, QueuePairOutOfRetriesIsAFinding)
{
    RoceFabricHelper fabric;
    fabric.SetQueuePairAttribute("RetryCount", UintegerValue(0));
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    CollectiveHelper collectives;
    collectives.Install(tree.GetGpus(), fabric);
    Ptr<CollectivePlan> plan = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, 8, 8 << 20, 1, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    g_end = Time(-1);
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&Done));
    Ptr<FabricChannel> cable = fabric.GetHostPort(tree.GetGpuByRank(5))->GetFabricChannel();
    Simulator::Schedule(MicroSeconds(100), &FabricChannel::SetLinkUp, cable, false);
    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t r = 0; r < 8; ++r)
    {
        transports.push_back(fabric.GetTransport(tree.GetGpuByRank(r)));
    }
    detector->Install(*fabric.GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&IsDone));
    detector->Start();
    Simulator::Run();
    EXPECT_FALSE(IsDone());
    EXPECT_EQ(detector->GetFinding(), FabricStallDetector::Finding::STALL);
    // Both of gpu5's QPs: to it (gpu4's) and from it (its own, whose ACKs never come).
    EXPECT_EQ(detector->GetReport(),
              "stall: 2 queue pair(s) in the error state (retries exhausted): gpu4 qp 257 -> "
              "gpu5, gpu5 qp 257 -> gpu6");
    // One timeout (67.1 ms) after the last packet, within one check (2.5 ms).
    const Time rto
        = transports[4]->GetQueuePair(RdmaTransport::FIRST_QPN)->GetRetransmissionTimeout();
    EXPECT_GE(detector->GetDetectionTime(), rto);
    EXPECT_LE(detector->GetDetectionTime(), MicroSeconds(100) + rto + MilliSeconds(3));
}

// Clearing bit errors (ber:...;up@T) takes the error model off both ports of the cable:
// ns-3.37 refuses to set the ReceiveErrorModel attribute to a null pointer (SetAttribute
// aborted), so the injector uses FabricNetDevice::SetReceiveErrorModel. On both fabrics the
// collective completes exactly, with both changes recorded.
TEST_F(FaultTest, BitErrorsClearOnBothFabrics)
{
    for (const bool ib : {false, true})
    {
        const FaultRun r = RunOn(ib, "ber:leaf0-spine0@5us,rate=1e-7;up@10us");
        ASSERT_TRUE(r.completed) << (ib ? "ib: " : "roce: ") << r.stall;
        EXPECT_TRUE(r.exactlyOnce);
        ASSERT_EQ(r.records.size(), 2u);
        EXPECT_EQ(r.records[1].what, "bit errors cleared on leaf0-spine0");
        EXPECT_EQ(r.records[1].at, MicroSeconds(10));
        EXPECT_EQ(r.linkDownDrops, 0u);
    }
}

// The error model can be set and cleared on a port without the attribute.
TEST_F(FaultTest, ReceiveErrorModelSetterClears)
{
    RoceFabricHelper fabric;
    FatTreeHelper tree;
    tree.SetServers(8);
    tree.SetRadix(4);
    tree.Install(fabric);
    Ptr<FabricNetDevice> port = fabric.GetHostPort(tree.GetGpuByRank(0));
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    port->SetReceiveErrorModel(em);
    EXPECT_EQ(port->GetReceiveErrorModel(), em);
    port->SetReceiveErrorModel(nullptr);
    EXPECT_EQ(port->GetReceiveErrorModel(), nullptr);
}

// A time or a flap's last change that does not fit ns-3's time (int64 picoseconds, about
// 106 days) is refused in one line, before any Time arithmetic overflows: the last change
// of flap:...@1us,period=1000000s,count=11 (1e7 s) used to wrap to a negative time.
TEST_F(FaultTest, TimesBeyondTheRangeAreRefused)
{
    std::vector<FaultEvent> e;
    std::string error;
    for (const std::string bad : {"flap:leaf0-spine0@1us,period=1000000s,count=11",
                                  "flap:leaf0-spine0@1us,period=200000s,count=7",
                                  "flap:leaf0-spine0@999999s,period=2s,count=2",
                                  "link:leaf0-spine0@1000001s",
                                  "link:leaf0-spine0@10000000000000s"})
    {
        EXPECT_FALSE(FaultSchedule::Parse(bad, e, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
    EXPECT_NE(error.find("not a time"), std::string::npos) << error;
    ASSERT_TRUE(FaultSchedule::Parse("flap:leaf0-spine0@1us,period=1000000s,count=1", e, error))
        << error;
    ASSERT_TRUE(FaultSchedule::Parse("flap:leaf0-spine0@0s,period=100000s,count=11", e, error))
        << error;
    EXPECT_EQ(FaultSchedule::LastChange(e), Seconds(1e6));
    const std::string dir = TempDir();
    const std::string file = dir + "/far.json";
    std::ofstream(file)
        << R"([{"what": "flap", "target": "a-b", "at": "1us", "period": "1000000s", "count": 11}])";
    EXPECT_FALSE(FaultSchedule::Read(file, e, error));
    EXPECT_NE(error.find("far.json"), std::string::npos) << error;
    EXPECT_NE(error.find("beyond"), std::string::npos) << error;
}

// The unreachable finding names the failure that cut the destination off, not the one whose
// reroute noticed it: a spine link fails at 10 us (the fabric stays connected) and gpu3's NIC
// at 20 us; the link's reroute (at 45 us on RoCEv2, 61 us on InfiniBand) finds gpu3
// unreachable, and the NIC is the cause.
TEST_F(FaultTest, UnreachableNamesTheFailureThatCutItOff)
{
    for (const bool ib : {false, true})
    {
        const FaultRun r = RunOn(ib, "link:leaf0-spine0@10us;nic:gpu3@20us");
        EXPECT_FALSE(r.completed);
        EXPECT_EQ(r.finding, "unreachable: gpu3 cannot be reached from gpu0 after nic gpu3 down")
            << (ib ? "ib" : "roce");
        ASSERT_EQ(r.records.size(), 2u);
        EXPECT_EQ(r.records[0].what, "link leaf0-spine0 down");
    }
    // A repair in between does not hide the cause: the cut is the last change that
    // disconnected the fabric.
    const FaultRun r = RunOn(false, "nic:gpu3@10us;up@15us;link:leaf0-spine0@20us;nic:gpu5@30us");
    EXPECT_FALSE(r.completed);
    EXPECT_EQ(r.finding, "unreachable: gpu5 cannot be reached from gpu0 after nic gpu5 down");
}
