/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The flow engine alone (FlowNetwork): max-min sharing against its formula, a flow's own
// limit, congestion, the incremental allocation against progressive filling from scratch, a
// connection's next message taking over its flow, and a flow moved to another path. The flow
// level above it (routes, the GPU transport, the programs) is test-flow-level.cc.

#include "ai-fabric-test-fixture.h"
#include "ns3/double.h"
#include "ns3/flow-network.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

class FlowNetworkTest : public AiFabricTest
{
};

/// Records each flow's finish time.
class Recorder : public FlowNetwork::Owner
{
  public:
    void FlowFinished(uint32_t /* flow */, uint64_t cookie) override
    {
        finished[cookie] = Simulator::Now();
    }

    std::map<uint64_t, Time> finished; //!< by cookie
};

/// Starts a flow of 1 MB on each path at time 0 (cookies 1, 2, ...) and runs them to the end.
void
RunMegabyteFlows(const Ptr<FlowNetwork>& net, Recorder& rec, const std::vector<uint32_t>& paths)
{
    Simulator::Schedule(Seconds(0),
                        [&]()
                        {
                            for (std::size_t i = 0; i < paths.size(); ++i)
                            {
                                net->Start(paths[i], 1000000, 1, &rec, i + 1);
                            }
                        });
    Simulator::Run();
}

// Two links, two flows: flow 1 on A (100 Gb/s) alone, flow 2 on A and B. With B at 40 Gb/s,
// flow 2 is limited by B (5 GB/s) and flow 1 takes the rest of A (7.5 GB/s); with B at 80
// Gb/s, A limits both (6.25 GB/s each), and when flow 1 ends flow 2 speeds up to B's 10 GB/s.
TEST_F(FlowNetworkTest, TwoFlowsShareMaxMin)
{
    for (const uint64_t b : {40, 80})
    {
        Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
        const uint32_t linkA = net->AddLink(DataRate("100Gbps"));
        const uint32_t linkB = net->AddLink(DataRate(b * 1000000000ULL));
        const uint32_t p1 = net->AddPath({{linkA, 1.0}});
        const uint32_t p2 = net->AddPath({{linkA, 1.0}, {linkB, 1.0}});
        Recorder rec;
        const uint64_t bytes1 = b == 40 ? 1000000 : 500000;
        const uint64_t bytes2 = 1000000;
        uint32_t f1 = 0;
        uint32_t f2 = 0;
        Simulator::Schedule(Seconds(0),
                            [&]()
                            {
                                f1 = net->Start(p1, bytes1, 1, &rec, 1);
                                f2 = net->Start(p2, bytes2, 1, &rec, 2);
                            });
        Simulator::Schedule(NanoSeconds(1),
                            [&]()
                            {
                                EXPECT_DOUBLE_EQ(net->GetRate(f1), b == 40 ? 7.5e9 : 6.25e9);
                                EXPECT_DOUBLE_EQ(net->GetRate(f2), b == 40 ? 5e9 : 6.25e9);
                                EXPECT_DOUBLE_EQ(net->GetLinkLoad(linkA), 12.5e9); // A is full
                            });
        Simulator::Run();
        ASSERT_EQ(rec.finished.size(), 2u);
        // Finish times, rounded up to the picosecond.
        const double t1 = b == 40 ? 1e6 / 7.5e9 : 5e5 / 6.25e9;
        const double t2 = b == 40 ? 1e6 / 5e9 : 80e-6 + 5e5 / 10e9;
        EXPECT_NEAR(rec.finished[1].GetSeconds(), t1, 2e-12) << b;
        EXPECT_NEAR(rec.finished[2].GetSeconds(), t2, 2e-12) << b;
        EXPECT_EQ(net->GetNActive(), 0u);
        EXPECT_DOUBLE_EQ(net->GetLinkBytes(linkA), 1.0 * (bytes1 + bytes2));
        EXPECT_DOUBLE_EQ(net->GetLinkBytes(linkB), 1.0 * bytes2);
        net->Dispose();
        Simulator::Destroy();
    }
}

// A flow's own limit (NVLink: a message of fewer packets than ports) caps it below its links.
TEST_F(FlowNetworkTest, FlowLimitCapsItsRate)
{
    Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
    const uint32_t link = net->AddLink(DataRate("80Gbps")); // 10 GB/s
    const uint32_t path = net->AddPath({{link, 1.0}});
    Recorder rec;
    uint32_t f1 = 0;
    uint32_t f2 = 0;
    Simulator::Schedule(Seconds(0),
                        [&]()
                        {
                            f1 = net->Start(path, 1000000, 1, &rec, 1, 2e9);
                            f2 = net->Start(path, 1000000, 1, &rec, 2);
                        });
    Simulator::Schedule(NanoSeconds(1),
                        [&]()
                        {
                            EXPECT_DOUBLE_EQ(net->GetRate(f1), 2e9);
                            EXPECT_DOUBLE_EQ(net->GetRate(f2), 8e9);
                            net->SolveFromScratch(); // the same levels from scratch
                            EXPECT_DOUBLE_EQ(net->GetLinkLoad(link), 10e9);
                        });
    Simulator::Run();
    EXPECT_NEAR(rec.finished[2].GetSeconds(), 1e6 / 8e9, 2e-12);
    net->Dispose();
    Simulator::Destroy();
}

// A switch port (C, watched) where flows converge: senders A and B (10 GB/s each) send one
// flow each through C (10 GB/s). C limits both (5 GB/s each); without it they would take
// 20 GB/s: twice its rate, by two links. Congested at CongestionDemand 2, not at 2.5; two
// flows that come by the same link (A) are one upstream link: not congested at any demand.
TEST_F(FlowNetworkTest, ConvergingFlowsAreCongestion)
{
    for (const double threshold : {2.0, 2.5})
    {
        for (const bool sameLink : {false, true})
        {
            Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
            net->SetAttribute("CongestionDemand", DoubleValue(threshold));
            const uint32_t a = net->AddLink(DataRate("80Gbps"));
            const uint32_t b = net->AddLink(DataRate("80Gbps"));
            const uint32_t c = net->AddLink(DataRate("80Gbps"));
            net->WatchLink(c);
            const uint32_t pa = net->AddPath({{a, 1.0}, {c, 1.0}});
            const uint32_t pb = net->AddPath({{sameLink ? a : b, 1.0}, {c, 1.0}});
            uint32_t traced = 0;
            net->TraceConnectWithoutContext(
                "Congestion",
                MakeBoundCallback(
                    +[](uint32_t* n, uint32_t /* link */, uint32_t /* fanIn */) { ++*n; },
                    &traced));
            Recorder rec;
            RunMegabyteFlows(net, rec, {pa, pb});
            const FlowNetwork::Congestion& seen = net->GetCongestion();
            const bool congested = !sameLink && threshold <= 2.0;
            EXPECT_EQ(seen.links, congested ? 1u : 0u) << threshold << " " << sameLink;
            EXPECT_EQ(traced > 0, congested) << threshold << " " << sameLink;
            if (congested)
            {
                EXPECT_EQ(seen.peakLink, c);
                EXPECT_EQ(seen.peakFanIn, 2u);
                EXPECT_DOUBLE_EQ(seen.peakDemand, 2.0);
                EXPECT_EQ(seen.peakTime, Seconds(0));
            }
            // Sharing C, both end at 2 x 1 MB / 10 GB/s (the same link: A limits them alike).
            EXPECT_NEAR(rec.finished[2].GetSeconds(), 2e-4, 2e-12);
            net->Dispose();
            Simulator::Destroy();
        }
    }
}

// Converging on shared inputs: senders A, B and C (10 GB/s links each) send a flow each
// through port D (10 GB/s, watched), and A's link also carries a flow to E. D limits the three
// to 10/3 GB/s; without it they would take 5 (A's half), 10 and 10 GB/s: 2.5 times its rate,
// below CongestionDemand (4), at or above SharedInputDemand 2 and 2.5, not 3. With the flow to
// E, one flow on D's input links does not cross D: flagged, once, at its start. Without it
// (the three alone) nothing is flagged at any threshold.
TEST_F(FlowNetworkTest, ConvergingOnSharedInputs)
{
    for (const double threshold : {2.0, 2.5, 3.0})
    {
        for (const bool other : {true, false})
        {
            Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
            net->SetAttribute("SharedInputDemand", DoubleValue(threshold));
            const DataRate rate("80Gbps");
            const uint32_t a = net->AddLink(rate);
            const uint32_t b = net->AddLink(rate);
            const uint32_t c = net->AddLink(rate);
            const uint32_t d = net->AddLink(rate);
            const uint32_t e = net->AddLink(rate);
            net->WatchLink(d);
            net->WatchLink(e);
            const uint32_t pa = net->AddPath({{a, 1.0}, {d, 1.0}});
            const uint32_t pb = net->AddPath({{b, 1.0}, {d, 1.0}});
            const uint32_t pc = net->AddPath({{c, 1.0}, {d, 1.0}});
            const uint32_t pe = net->AddPath({{a, 1.0}, {e, 1.0}});
            std::vector<std::pair<uint32_t, uint32_t>> traced;
            net->TraceConnectWithoutContext(
                "SharedInput",
                MakeBoundCallback(
                    +[](std::vector<std::pair<uint32_t, uint32_t>>* seen,
                        uint32_t link,
                        uint32_t others) { seen->emplace_back(link, others); },
                    &traced));
            Recorder rec;
            std::vector<uint32_t> paths{pa, pb, pc};
            if (other)
            {
                paths.push_back(pe);
            }
            RunMegabyteFlows(net, rec, paths);
            const FlowNetwork::Congestion& seen = net->GetCongestion();
            const bool flagged = other && threshold <= 2.5;
            EXPECT_EQ(seen.links, 0u) << threshold << " " << other;
            EXPECT_EQ(seen.sharedInput, flagged ? 1u : 0u) << threshold << " " << other;
            EXPECT_EQ(!traced.empty(), flagged) << threshold << " " << other;
            if (flagged)
            {
                EXPECT_EQ(seen.sharedInputLink, d);
                EXPECT_EQ(seen.sharedInputTime, Seconds(0));
                EXPECT_EQ(traced.front(), std::make_pair(d, 1u));
            }
            // D's three flows at 10/3 GB/s each: 1 MB in 300 us; the flow to E takes A's
            // other 20/3 GB/s (150 us).
            EXPECT_NEAR(rec.finished[1].GetSeconds(), 3e-4, 2e-12);
            EXPECT_NEAR(rec.finished[3].GetSeconds(), 3e-4, 2e-12);
            if (other)
            {
                EXPECT_NEAR(rec.finished[4].GetSeconds(), 1.5e-4, 2e-12);
            }
            net->Dispose();
            Simulator::Destroy();
        }
    }
}

// The incremental allocation is the allocation from scratch: a random network of 30 links
// and 200 flows arriving over time, each flow's finish time with EvaluationLimit 1 (nearly
// every settlement from scratch) and 1000 (propagation only).
TEST_F(FlowNetworkTest, IncrementalEqualsFromScratch)
{
    std::vector<std::map<uint64_t, Time>> runs;
    for (const uint32_t limit : {1u, 1000u})
    {
        Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
        net->SetAttribute("EvaluationLimit", UintegerValue(limit));
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(7);
        for (uint32_t l = 0; l < 30; ++l)
        {
            net->AddLink(DataRate(static_cast<uint64_t>(u->GetInteger(10, 400)) * 1000000000ULL));
        }
        Recorder rec;
        for (uint64_t i = 0; i < 200; ++i)
        {
            std::vector<FlowNetwork::Use> uses;
            const uint32_t hops = u->GetInteger(1, 5);
            while (uses.size() < hops)
            {
                const uint32_t l = u->GetInteger(0, 29);
                bool seen = false;
                for (const auto& x : uses)
                {
                    seen = seen || x.link == l;
                }
                if (!seen)
                {
                    uses.push_back({l, uses.empty() ? 1.0 : u->GetValue(0.01, 1.0)});
                }
            }
            const uint32_t path = net->AddPath(uses);
            const uint64_t bytes = u->GetInteger(1000, 10000000);
            const double cap = u->GetValue() < 0.2 ? u->GetValue(1e9, 20e9)
                                                   : std::numeric_limits<double>::infinity();
            Simulator::Schedule(NanoSeconds(u->GetInteger(0, 200000)),
                                [net, path, bytes, &rec, i, cap]()
                                { net->Start(path, bytes, 1, &rec, i, cap); });
        }
        Simulator::Run();
        EXPECT_EQ(rec.finished.size(), 200u);
        if (limit == 1)
        {
            EXPECT_GT(net->GetFullSolutions(), 0u);
        }
        else
        {
            // Propagation settles nearly every change by itself.
            EXPECT_LT(net->GetFullSolutions() * 20, net->GetSettlements());
        }
        runs.push_back(rec.finished);
        net->Dispose();
        Simulator::Destroy();
    }
    for (const auto& [flow, t] : runs[0])
    {
        EXPECT_NEAR(t.GetSeconds(), runs[1][flow].GetSeconds(), 1e-9) << "flow " << flow;
    }
}

// Ties with ACK weights, solved from scratch: on a leaf-spine of equal links, every flow's
// data crosses its host's uplink, the leaves' link and the receiver's downlink, and its ACKs
// (86 bytes per 4,178) the reverse ones, so links fill at the same level and a link's flows
// can all be frozen by others with rounding left over. Such a link limits none of its flows:
// solved from scratch it came out at level 0 and stopped every flow crossing it (an
// all-to-all on a 4:1 fat-tree stalled flows until a later change moved them). Every
// settlement solved from scratch (EvaluationLimit 1) gives the incremental run's finish
// times, and every flow finishes.
TEST_F(FlowNetworkTest, FromScratchTiesWithAcks)
{
    const double ack = 86.0 / 4178.0;
    std::vector<std::map<uint64_t, Time>> runs;
    for (const uint32_t limit : {1u, 1000u})
    {
        Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
        net->SetAttribute("EvaluationLimit", UintegerValue(limit));
        // Hosts 0-7 on leaf 0, 8-15 on leaf 1: up[h], down[h], and the leaves' link each way.
        std::vector<uint32_t> up;
        std::vector<uint32_t> down;
        for (uint32_t h = 0; h < 16; ++h)
        {
            up.push_back(net->AddLink(DataRate("400Gb/s")));
            down.push_back(net->AddLink(DataRate("400Gb/s")));
        }
        const uint32_t across[2]
            = {net->AddLink(DataRate("400Gb/s")), net->AddLink(DataRate("400Gb/s"))};
        Recorder rec;
        uint64_t cookie = 0;
        for (uint32_t src = 0; src < 16; ++src)
        {
            for (uint32_t dst = 0; dst < 16; ++dst)
            {
                if (src == dst)
                {
                    continue;
                }
                std::vector<FlowNetwork::Use> uses{{up[src], 1.0}};
                const uint32_t from = src / 8;
                const uint32_t to = dst / 8;
                if (from != to)
                {
                    uses.push_back({across[from], 1.0});
                }
                uses.push_back({down[dst], 1.0});
                uses.push_back({up[dst], ack});
                if (from != to)
                {
                    uses.push_back({across[to], ack});
                }
                uses.push_back({down[src], ack});
                const uint32_t path = net->AddPath(uses);
                const uint64_t bytes = 1000000 * (1 + (src + dst) % 3);
                const uint64_t id = cookie++;
                Simulator::Schedule(NanoSeconds(100 * (src % 4)),
                                    [net, path, bytes, &rec, id]()
                                    { net->Start(path, bytes, 1, &rec, id); });
            }
        }
        Simulator::Run();
        EXPECT_EQ(rec.finished.size(), cookie) << "EvaluationLimit " << limit;
        EXPECT_EQ(net->GetNActive(), 0u);
        if (limit == 1)
        {
            EXPECT_GT(net->GetFullSolutions(), 10u);
        }
        runs.push_back(rec.finished);
        net->Dispose();
        Simulator::Destroy();
    }
    ASSERT_EQ(runs[0].size(), runs[1].size());
    for (const auto& [flow, t] : runs[1])
    {
        EXPECT_NEAR(runs[0][flow].GetSeconds(), t.GetSeconds(), 1e-9) << "flow " << flow;
    }
}

/// Starts a connection's next message from FlowFinished(): on the same path (a take-over),
/// or, with later set, from an event at the same time (a flow of its own).
class Chain : public FlowNetwork::Owner
{
  public:
    void FlowFinished(uint32_t flow, uint64_t cookie) override
    {
        finished.emplace_back(cookie, Simulator::Now());
        flows.push_back(flow);
        if (cookie + 1 < messages)
        {
            if (later)
            {
                Simulator::ScheduleNow([this, cookie]() { Next(cookie + 1); });
            }
            else
            {
                Next(cookie + 1);
            }
        }
    }

    /// \param cookie the message to start
    void Next(uint64_t cookie)
    {
        started.push_back(net->Start(path, bytes, packets, this, cookie));
    }

    Ptr<FlowNetwork> net;                            //!< the network
    uint32_t path{0};                                //!< the connection's path
    uint64_t bytes{0};                               //!< each message's bytes
    uint64_t packets{0};                             //!< each message's packets
    uint64_t messages{0};                            //!< messages to send
    bool later{false};                               //!< start the next from an event
    std::vector<std::pair<uint64_t, Time>> finished; //!< (message, when)
    std::vector<uint32_t> flows;                     //!< the flow of each finished message
    std::vector<uint32_t> started;                   //!< the flow of each started message
};

// A connection's next message, started as its last one finishes, takes that flow's place on
// the links (FlowNetwork::Start()): the same finish times as a flow of its own started at
// the same time (max-min shares depend on the flows, not on their numbers), the same flow
// number, and every message's bytes and packets counted on its links. Link A (100 Gb/s)
// carries a chain of five 1 MB messages and, for the first 1.5 MB of its life, a flow of
// 2 MB on A and B (40 Gb/s, so the other flow is limited there to 5 GB/s and the chain
// takes the rest of A, 7.5 GB/s).
TEST_F(FlowNetworkTest, NextMessageTakesOverItsFlow)
{
    std::vector<std::vector<std::pair<uint64_t, Time>>> runs;
    for (const bool later : {false, true})
    {
        Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
        const uint32_t a = net->AddLink(DataRate("100Gb/s"));
        const uint32_t b = net->AddLink(DataRate("40Gb/s"));
        Chain chain;
        chain.net = net;
        chain.path = net->AddPath({{a, 1.0}});
        chain.bytes = 1000000;
        chain.packets = 250;
        chain.messages = 5;
        chain.later = later;
        Recorder rec;
        const uint32_t both = net->AddPath({{a, 1.0}, {b, 1.0}});
        Simulator::Schedule(Seconds(0),
                            [&]()
                            {
                                chain.Next(0);
                                net->Start(both, 2000000, 500, &rec, 99);
                            });
        Simulator::Run();
        ASSERT_EQ(chain.finished.size(), 5u);
        // The other flow: 5 GB/s, 400 us.
        EXPECT_NEAR(rec.finished[99].GetMicroSeconds(), 400, 0.01);
        // The chain: 7.5 GB/s while the other flow runs (3 MB by 400 us), then 12.5 GB/s.
        const double expected[5]
            = {1e6 / 7.5e9, 2e6 / 7.5e9, 3e6 / 7.5e9, 400e-6 + 1e6 / 12.5e9, 400e-6 + 2e6 / 12.5e9};
        for (uint32_t i = 0; i < 5; ++i)
        {
            EXPECT_EQ(chain.finished[i].first, i);
            EXPECT_NEAR(chain.finished[i].second.GetSeconds(), expected[i], 1e-11) << i;
        }
        if (!later)
        {
            // Each message took over the flow of the one before.
            for (uint32_t i = 0; i + 1 < chain.started.size(); ++i)
            {
                EXPECT_EQ(chain.started[i + 1], chain.flows[i]);
            }
        }
        EXPECT_EQ(net->GetFlowsStarted(), 6u);
        EXPECT_NEAR(net->GetLinkBytes(a), 7e6, 1);
        EXPECT_NEAR(net->GetLinkBytes(b), 2e6, 1);
        EXPECT_EQ(net->GetLinkPackets(a), 5 * 250u + 500u);
        EXPECT_EQ(net->GetLinkPackets(b), 500u);
        uint64_t progress = 0;
        uint64_t outstanding = 0;
        net->GetWork(progress, outstanding);
        EXPECT_EQ(progress, 7000000u);
        EXPECT_EQ(outstanding, 0u);
        runs.push_back(chain.finished);
        net->Dispose();
        Simulator::Destroy();
    }
    for (uint32_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(runs[0][i].second, runs[1][i].second) << i;
    }
}

// A link goes down under a flow (capacity 0): the flow stops, its bytes stay; moved to another
// path it goes on with what it had left at that path's rate. 10 MB: 5 MB in 0.5 ms at 10 GB/s
// on A, stopped 0.9 ms, then 5 MB at 5 GB/s on B: done at 2.4 ms; A carried 5 MB, B 5 MB.
TEST_F(FlowNetworkTest, MovedFlowKeepsItsBytes)
{
    Ptr<FlowNetwork> net = CreateObject<FlowNetwork>();
    const uint32_t a = net->AddLink(DataRate("80Gbps"));
    const uint32_t b = net->AddLink(DataRate("40Gbps"));
    const uint32_t onA = net->AddPath({{a, 1.0}});
    const uint32_t onB = net->AddPath({{b, 1.0}});
    Recorder rec;
    uint32_t flow = 0;
    Simulator::Schedule(Seconds(0), [&]() { flow = net->Start(onA, 10000000, 2500, &rec, 1); });
    uint64_t progressDown = 0;
    Simulator::Schedule(MicroSeconds(500), [&]() { net->SetLinkRate(a, DataRate(0)); });
    Simulator::Schedule(MicroSeconds(1400),
                        [&]()
                        {
                            uint64_t outstanding = 0;
                            net->GetWork(progressDown, outstanding);
                            EXPECT_EQ(outstanding, 1u);
                            EXPECT_EQ(net->GetRate(flow), 0.0);
                            net->Move(flow, onB);
                        });
    Simulator::Schedule(MicroSeconds(1500), [&]() { EXPECT_EQ(net->GetFlowPath(flow), onB); });
    Simulator::Run();
    EXPECT_EQ(progressDown, 5000000u);
    ASSERT_EQ(rec.finished.count(1), 1u);
    EXPECT_NEAR(rec.finished[1].GetSeconds(), 2.4e-3, 1e-9);
    EXPECT_NEAR(net->GetLinkBytes(a), 5e6, 1);
    EXPECT_NEAR(net->GetLinkBytes(b), 5e6, 1);
    EXPECT_EQ(net->GetLinkPackets(a) + net->GetLinkPackets(b), 2500u);
    uint64_t progress = 0;
    uint64_t outstanding = 0;
    net->GetWork(progress, outstanding);
    EXPECT_EQ(progress, 10000000u);
    EXPECT_EQ(outstanding, 0u);
    Simulator::Destroy();
}

} // namespace
