/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Congestion on a lossless RoCEv2 fabric: ECN marking at switch egress, DCQCN end to end
// (incast, two-flow convergence), PFC congestion spreading onto a victim flow, and the three
// congestion examples (output, determinism, bad input).

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/roce-flow-scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

class CongestionTest : public AiFabricTest
{
};

/**
 * \param senders N
 * \param bytes bytes per sender
 * \return an N-to-1 incast through one switch at 400 Gb/s
 */
RoceFlowScenarioConfig
Incast(uint32_t senders, uint64_t bytes)
{
    RoceFlowScenarioConfig cfg;
    cfg.hostSwitch.assign(senders + 1, 0);
    for (uint32_t i = 1; i <= senders; ++i)
    {
        cfg.flows.push_back({i, 0, bytes, Time(0)});
    }
    cfg.watchHosts = {0};
    return cfg;
}

/// Every flow delivered every byte.
void
ExpectAllDelivered(const RoceFlowScenarioResult& r)
{
    for (const RoceFlowResult& f : r.flows)
    {
        EXPECT_TRUE(f.done);
        EXPECT_EQ(f.delivered, f.spec.bytes);
    }
}

/**
 * \param r a run
 * \return the last flow's completion
 */
Time
LastFinish(const RoceFlowScenarioResult& r)
{
    Time last;
    for (const RoceFlowResult& f : r.flows)
    {
        last = std::max(last, f.finish);
    }
    return last;
}

/**
 * \param preset DCQCN preset
 * \return two flows at 40 Gb/s on one bottleneck, the paper's ECN thresholds, 20 ms
 */
RoceFlowScenarioConfig
TwoFlows(const std::string& preset)
{
    RoceFlowScenarioConfig cfg;
    cfg.rate = DataRate("40Gbps");
    cfg.mtu = 1024;
    cfg.dcqcn = true;
    cfg.dcqcnPreset = preset;
    cfg.ecnKmin = 5000;
    cfg.ecnKmax = 200000;
    cfg.ecnPmax = 0.01;
    cfg.sampleInterval = MicroSeconds(10);
    cfg.stopTime = MilliSeconds(30);
    cfg.hostSwitch.assign(3, 0);
    cfg.flows = {{1, 0, 1ULL << 30, Time(0)}, {2, 0, 1ULL << 30, MilliSeconds(2)}};
    cfg.watchHosts = {0};
    return cfg;
}

} // namespace

// ECN: nothing is marked below Kmin or with marking off; above Kmax everything ECN-capable is.
// Marks alone change nothing without DCQCN (no CNP), and with it every CNP answers a mark.
TEST_F(CongestionTest, EcnMarksAboveTheThresholds)
{
    RoceFlowScenarioConfig cfg = Incast(4, 1 << 20);
    cfg.ecn = false;
    const RoceFlowScenarioResult off = RoceFlowScenario::Run(cfg);
    EXPECT_EQ(off.totals.ecnMarks, 0u);
    ExpectAllDelivered(off);

    cfg.ecn = true;
    cfg.ecnKmin = 100000000; // never reached
    cfg.ecnKmax = 200000000;
    const RoceFlowScenarioResult below = RoceFlowScenario::Run(cfg);
    EXPECT_EQ(below.totals.ecnMarks, 0u);

    // A standing queue of 4 MB (3 of every 4 MB sent waits): with Kmin = Kmax = 4 KB every
    // data frame leaving more than 4 KB behind is marked.
    cfg.ecnKmin = 4096;
    cfg.ecnKmax = 4096;
    cfg.ecnPmax = 1.0;
    const RoceFlowScenarioResult marked = RoceFlowScenario::Run(cfg);
    const uint64_t dataPackets = 4 * ((1 << 20) / 4096);
    EXPECT_GT(marked.totals.ecnMarks, dataPackets / 2);
    EXPECT_LE(marked.totals.ecnMarks, dataPackets);
    EXPECT_EQ(marked.ports[0].ecnMarks, marked.totals.ecnMarks); // only the bottleneck marks
    EXPECT_EQ(marked.totals.cnps, 0u);                           // no DCQCN: no CNP
    ExpectAllDelivered(marked);

    cfg.dcqcn = true;
    const RoceFlowScenarioResult dcqcn = RoceFlowScenario::Run(cfg);
    EXPECT_GT(dcqcn.totals.cnps, 0u);
    EXPECT_LE(dcqcn.totals.cnps, dcqcn.totals.ecnMarks);
    uint64_t received = 0;
    for (const RoceFlowResult& f : dcqcn.flows)
    {
        received += f.cnpsReceived;
        EXPECT_GT(f.cnpsReceived, 0u);
    }
    EXPECT_EQ(received, dcqcn.totals.cnps); // CNPs are lossless control traffic
    ExpectAllDelivered(dcqcn);
}

// Incast 8 to 1 at 400 Gb/s with the default 42 MB buffer: PFC alone pauses and loses
// nothing with the bottleneck busy; without PFC frames are dropped, every byte still arrives,
// later; DCQCN makes the senders back off so that the switch pauses them less.
TEST_F(CongestionTest, IncastWithPfcAndDcqcn)
{
    RoceFlowScenarioConfig cfg = Incast(8, 16 << 20);
    cfg.ecn = false;
    const RoceFlowScenarioResult pfc = RoceFlowScenario::Run(cfg);
    EXPECT_EQ(pfc.totals.drops, 0u);
    EXPECT_EQ(pfc.headroomDrops, 0u);
    EXPECT_GT(pfc.switchPausesSent, 0u);
    EXPECT_GE(pfc.ports[0].utilization, 0.95);
    ExpectAllDelivered(pfc);

    cfg.pfc = false;
    const RoceFlowScenarioResult lossy = RoceFlowScenario::Run(cfg);
    EXPECT_GT(lossy.totals.drops, 0u);
    EXPECT_GT(lossy.totals.retransmits, 0u);
    EXPECT_EQ(lossy.switchPausesSent, 0u);
    ExpectAllDelivered(lossy);
    EXPECT_GT(LastFinish(lossy), LastFinish(pfc));

    cfg.pfc = true;
    cfg.ecn = true;
    cfg.dcqcn = true;
    const RoceFlowScenarioResult dcqcn = RoceFlowScenario::Run(cfg);
    EXPECT_EQ(dcqcn.totals.drops, 0u);
    EXPECT_GT(dcqcn.totals.cnps, 0u);
    EXPECT_LT(dcqcn.switchPausesSent, pfc.switchPausesSent);
    ExpectAllDelivered(dcqcn);
}

// DCQCN, two flows at 40 Gb/s with the paper's parameters: fair over the second half (Jain's
// index >= 0.95), the queue mostly between Kmin and Kmax, the link nearly full. With the
// ConnectX defaults the flows also converge.
TEST_F(CongestionTest, DcqcnTwoFlowsConverge)
{
    const RoceFlowScenarioConfig cfg = TwoFlows("paper");
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    const Time end = cfg.stopTime;
    const std::vector<double> half = RoceFlowScenario::MeanThroughput(r, end / 2, end);
    ASSERT_EQ(half.size(), 2u);
    EXPECT_GE(RoceFlowScenario::JainIndex(half), 0.95);
    const double goodput = 40.0 * 1024 / (1024 + 82);
    EXPECT_GE(half[0] + half[1], 0.85 * goodput);
    uint32_t rows = 0;
    uint32_t between = 0;
    for (const RoceSample& s : r.samples)
    {
        if (s.time > end / 2)
        {
            ++rows;
            between += s.queueBytes[0] >= cfg.ecnKmin && s.queueBytes[0] <= cfg.ecnKmax;
        }
    }
    EXPECT_GT(between, rows / 2) << between << " of " << rows;
    EXPECT_EQ(r.totals.drops, 0u);

    const RoceFlowScenarioConfig cx = TwoFlows("connectx");
    const RoceFlowScenarioResult c = RoceFlowScenario::Run(cx);
    const std::vector<double> cxHalf = RoceFlowScenario::MeanThroughput(c, end / 2, end);
    EXPECT_GE(RoceFlowScenario::JainIndex(cxHalf), 0.9);
    EXPECT_GE(cxHalf[0] + cxHalf[1], 0.7 * goodput);
}

// InfiniBand incast 8 to 1 at 400 Gb/s through the same scenario: lossless by its credits,
// the senders wait for credits, the bottleneck stays busy, and nothing is paused or marked.
TEST_F(CongestionTest, IbIncastIsLosslessByCredits)
{
    RoceFlowScenarioConfig cfg = Incast(8, 16 << 20);
    cfg.fabric = "ib";
    ASSERT_EQ(RoceFlowScenario::Check(cfg), "");
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    EXPECT_EQ(r.totals.drops, 0u);
    EXPECT_EQ(r.totals.pfcPauseFrames, 0u);
    EXPECT_EQ(r.totals.ecnMarks, 0u);
    EXPECT_GT(r.totals.creditStallUs, 0.0);
    EXPECT_GE(r.ports[0].utilization, 0.95);
    for (const RoceFlowResult& f : r.flows)
    {
        EXPECT_GT(f.creditStallUs, 0.0);
    }
    ExpectAllDelivered(r);
}

// Jain's index: 1 for equal shares, 1/n when one flow takes everything.
TEST_F(CongestionTest, JainIndex)
{
    EXPECT_DOUBLE_EQ(RoceFlowScenario::JainIndex({5, 5, 5, 5}), 1.0);
    EXPECT_DOUBLE_EQ(RoceFlowScenario::JainIndex({8, 0, 0, 0}), 0.25);
    EXPECT_DOUBLE_EQ(RoceFlowScenario::JainIndex({1, 3}), 16.0 / 20.0);
}

/// What ai-fabric-pfc-hol's victim got, as a fraction of its max-min fair share.
double
VictimShare(const std::string& args)
{
    const std::string dir = TempDir();
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-pfc-hol") + " --duration=4ms " + args
                                       + " --json=" + dir + "/hol.json");
    EXPECT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/hol.json"));
    EXPECT_EQ(j["fabric"]["drops"], 0);
    return j["summary"]["victim_fraction_of_fair"].get<double>();
}

// Congestion spreading: the victim shares no bottleneck with the incast, yet PFC alone costs
// it most of its share; with DCQCN it gets most of it back.
TEST_F(CongestionTest, PfcHeadOfLineBlockingAndDcqcn)
{
    const double pfcOnly = VictimShare("--dcqcn=false");
    const double withDcqcn = VictimShare("--dcqcn=true");
    EXPECT_LT(pfcOnly, 0.5);
    EXPECT_GT(withDcqcn, 0.8);
}

// The examples: output byte for byte the same for the same flags, and JSON with the fabric
// counters and the flows.
TEST_F(CongestionTest, IncastExampleIsDeterministic)
{
    const std::string dir = TempDir();
    const std::string args = " --senders=4 --bytes=2M --dcqcn=true --trace=" + dir + "/t";
    const CommandResult a
        = RunCommand(ProgramPath("ai-fabric-incast") + args + " --json=" + dir + "/a.json");
    const CommandResult b = RunCommand(ProgramPath("ai-fabric-incast") + args);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/a.json"));
    for (const char* key : {"drops",
                            "pfc_pause_frames",
                            "ecn_marks",
                            "cnps",
                            "retransmits",
                            "credit_stall_us",
                            "max_queue_bytes"})
    {
        EXPECT_TRUE(j["fabric"].contains(key)) << key;
    }
    ASSERT_EQ(j["flows"].size(), 4u);
    for (const auto& f : j["flows"])
    {
        EXPECT_EQ(f["bytes"], 2 << 20);
        EXPECT_EQ(f["delivered"], 2 << 20);
        EXPECT_GT(f["finish_us"].get<double>(), f["start_us"].get<double>());
    }
    const std::string csv = ReadFile(dir + "/t.csv");
    EXPECT_EQ(csv.rfind("time_us,queue_bytes_h0,rate_gbps_f0,thr_gbps_f0,paused_f0,", 0), 0u)
        << csv.substr(0, 200);
}

// Bad input: one line on stderr, exit status 2, no JSON written.
TEST_F(CongestionTest, ExamplesRefuseBadInput)
{
    const std::string dir = TempDir();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ai-fabric-incast", "--senders=0"},
        {"ai-fabric-incast", "--bytes=-1"},
        {"ai-fabric-incast", "--topology=ring"},
        {"ai-fabric-incast", "--preset=bogus"},
        {"ai-fabric-incast", "--pmax=2"},
        {"ai-fabric-incast", "--kmin=300K --kmax=100K"},
        {"ai-fabric-incast", "--fabric=ethernet"},
        {"ai-fabric-incast", "--fabric=ib --dcqcn=true"},
        {"ai-fabric-incast", "--pfc=maybe"},
        {"ai-fabric-incast", "--rate=fast"},
        {"ai-fabric-incast", "--mtu=1500"},
        {"ai-fabric-incast", "--interval=0s --trace=" + dir + "/x"},
        {"ai-fabric-incast", "--bogus=1"},
        {"ai-fabric-dcqcn", "--flows=0"},
        {"ai-fabric-dcqcn", "--stagger=30ms"},
        {"ai-fabric-dcqcn", "--duration=soon"},
        {"ai-fabric-dcqcn", "--printEvery=5"},
        {"ai-fabric-pfc-hol", "--duration=-1ms"},
        {"ai-fabric-pfc-hol", "--local=0"},
        {"ai-fabric-pfc-hol", "--trace=/nonexistent/dir/x"},
        {"ai-fabric-pfc-pause", "--quanta=65536"},
        {"ai-fabric-pfc-pause", "--rate=0Gbps"},
    };
    for (const auto& [program, args] : cases)
    {
        const CommandResult r
            = RunCommand(ProgramPath(program) + " " + args + " --json=" + dir + "/out.json");
        EXPECT_EQ(r.status, 2) << program << " " << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
            << program << " " << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << program << " " << args;
        EXPECT_FALSE(std::ifstream(dir + "/out.json").good()) << program << " " << args;
    }
}
