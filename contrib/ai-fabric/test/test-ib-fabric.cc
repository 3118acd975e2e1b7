/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// InfiniBand through switches: perftest over IB (goodput and latency from the formulas, lower
// latency than RoCEv2), a capture tshark decodes as InfiniBand, min-hop routing on a
// fat-tree (a path for every pair, routes spread evenly), and a lossless incast with credit
// stalls.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "collective-test-fabric.h"
#include "fabric-star.h"
#include "ns3/chain-broadcast-algorithm.h"
#include "ns3/collective-algorithm.h"
#include "ns3/double-binary-tree-algorithm.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/halving-doubling-algorithm.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-headers.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/ib-vl-arbiter.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/pairwise-all-to-all-algorithm.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-perftest.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

using namespace ns3;

namespace
{

class IbFabricTest : public AiFabricTest
{
};

/// Hosts on one InfiniBand switch, host i on switch port i.
using IbStar = FabricStar<IbFabricHelper>;

/**
 * \param name attribute of ns3::IbSwitch
 * \return its default as Time
 */
Time
IbSwitchLatency()
{
    TimeValue v;
    CreateObject<IbSwitch>()->GetAttribute("PortLatency", v);
    return v.Get();
}

Time g_lastArrival; //!< the last message's arrival in the incast

/**
 * \param qp the responder
 * \param bytes the message
 */
void
RecordArrival(Ptr<RdmaQueuePair> /* qp */, uint64_t /* bytes */)
{
    g_lastArrival = Simulator::Now();
}

} // namespace

// write_bw over IB, 400 Gb/s, 4096 B MTU, one switch: the goodput of the IB framing (LRH, BTH,
// ICRC, VCRC: 26 bytes a packet, 16 more for the RETH of a message's first packet).
TEST_F(IbFabricTest, WriteBwMatchesIbGoodput)
{
    RdmaPerftestConfig cfg;
    cfg.fabric = "ib";
    cfg.test = "write_bw";
    cfg.size = 1 << 20;
    cfg.iterations = 100;
    cfg.rate = DataRate("400Gb/s");
    cfg.mtu = 4096;
    cfg.switches = 1;
    ASSERT_EQ(cfg.Validate(), "");
    const RdmaPerftestResult r = RdmaPerftest(cfg).Run();
    const double packets = cfg.size / cfg.mtu;
    const double perPacket = IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + IcrcTrailer::SIZE
                             + IbNetDevice::TRAILER_BYTES;
    EXPECT_DOUBLE_EQ(perPacket, 26.0);
    const double wire = cfg.size + packets * perPacket + RethHeader::SIZE;
    const double goodputGbps = cfg.rate.GetBitRate() * cfg.size / wire / 1e9;
    EXPECT_NEAR(r.bwAvgGbps, goodputGbps, goodputGbps * 0.005);
    EXPECT_LE(r.bwAvgGbps, goodputGbps * 1.0001);
    EXPECT_EQ(r.deliveredBytes, r.expectedBytes);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.retransmits, 0u);
}

// write_lat, 2-byte messages over IB: the one-way latency is the NIC latencies, the packet's
// serialization on the first hop, every cable, and PortLatency per cut-through switch (the
// last bit leaves PortLatency after it arrived), to the picosecond. It is lower than RoCEv2's
// with default attributes.
TEST_F(IbFabricTest, WriteLatEqualsSumOfPartsAndBeatsRoce)
{
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    const Time cable = CreateObject<FabricChannel>()->GetDelay();
    for (uint32_t switches : {0U, 1U, 3U})
    {
        RdmaPerftestConfig cfg;
        cfg.fabric = "ib";
        cfg.test = "write_lat";
        cfg.size = 2;
        cfg.iterations = 50;
        cfg.switches = switches;
        ASSERT_EQ(cfg.Validate(), "");
        const RdmaPerftestResult ib = RdmaPerftest(cfg).Run();
        // WRITE Only: LRH + BTH + RETH + 2 B payload + 2 B pad + ICRC + VCRC = 46 bytes.
        const uint32_t wire = IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + RethHeader::SIZE
                              + 2 + 2 + IcrcTrailer::SIZE + IbNetDevice::TRAILER_BYTES;
        EXPECT_EQ(wire, 46u);
        const Time expected = transport->GetTxLatency() + transport->GetRxLatency()
                              + cfg.rate.CalculateBytesTxTime(wire)
                              + cable * static_cast<int64_t>(switches + 1)
                              + IbSwitchLatency() * static_cast<int64_t>(switches);
        EXPECT_NEAR(ib.lat.typical, expected.GetSeconds() * 1e6, 1e-6) << switches;
        EXPECT_EQ(ib.deliveredBytes, ib.expectedBytes);

        cfg.fabric = "roce";
        const RdmaPerftestResult roce = RdmaPerftest(cfg).Run();
        if (switches > 0)
        {
            EXPECT_LT(ib.lat.typical, roce.lat.typical) << switches;
        }
    }
}

// A capture of an IB adapter port decodes in tshark as InfiniBand: LIDs, opcodes of a
// segmented WRITE, consecutive PSNs, and ACKs coming back.
TEST_F(IbFabricTest, PcapDecodesAsInfiniBand)
{
    ASSERT_EQ(RunCommand("command -v tshark").status, 0) << "tshark is not installed";
    const std::string dir = TempDir();
    const CommandResult r
        = RunCommand(ProgramPath("ai-fabric-perftest")
                     + " --fabric=ib --size=10000 --iters=3 --pcap=" + dir + "/ib");
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<uint32_t> opcodes;
    std::vector<uint32_t> psns;
    uint32_t acks = 0;
    for (const auto& row : TsharkFields(dir + "/ib-0-0.pcap",
                                        "",
                                        {"infiniband.lrh.slid",
                                         "infiniband.lrh.dlid",
                                         "infiniband.bth.opcode",
                                         "infiniband.bth.psn"}))
    {
        const std::string& slid = row[0];
        const std::string& dlid = row[1];
        const std::string& opcode = row[2];
        ASSERT_FALSE(opcode.empty()) << "not decoded as InfiniBand: LID " << slid;
        if (slid == "1")
        {
            EXPECT_EQ(dlid, "2");
            opcodes.push_back(std::stoul(opcode));
            psns.push_back(std::stoul(row[3]));
        }
        else
        {
            EXPECT_EQ(slid, "2");
            EXPECT_EQ(dlid, "1");
            EXPECT_EQ(std::stoul(opcode), static_cast<unsigned long>(RC_ACKNOWLEDGE));
            ++acks;
        }
    }
    const std::vector<uint32_t> expected = {RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST,
                                            RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST,
                                            RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST};
    EXPECT_EQ(opcodes, expected);
    for (std::size_t i = 1; i < psns.size(); ++i)
    {
        EXPECT_EQ(psns[i], (psns[i - 1] + 1) & RDMA_PSN_MASK);
    }
    EXPECT_EQ(acks, expected.size());
}

// Min-hop routing on a 2-tier fat-tree (16 hosts, 4 leaves, 4 spines): every LFT entry of
// every switch leads, hop by hop, to the destination, and each leaf spreads the remote
// destinations evenly over its up-links (counts differ by at most one).
TEST_F(IbFabricTest, MinHopRoutesEveryPairAndBalancesUplinks)
{
    FatTreeHelper tree;
    tree.SetServers(16);
    tree.SetRadix(8);
    IbFabricHelper fabric;
    tree.Install(fabric);
    const NodeContainer gpus = tree.GetGpus();
    // Walk from every host to every other host through the LFTs.
    for (uint32_t s = 0; s < gpus.GetN(); ++s)
    {
        for (uint32_t d = 0; d < gpus.GetN(); ++d)
        {
            if (s == d)
            {
                continue;
            }
            const uint16_t dlid = fabric.GetLid(gpus.Get(d));
            Ptr<FabricNetDevice> port = fabric.GetHostPort(gpus.Get(s));
            uint32_t hops = 0;
            while (true)
            {
                Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
                Ptr<IbSwitch> sw = peer->GetNode()->GetObject<IbSwitch>();
                if (!sw)
                {
                    EXPECT_EQ(peer, fabric.GetHostPort(gpus.Get(d))) << s << " -> " << d;
                    break;
                }
                ASSERT_LT(dlid, sw->GetLft().size());
                ASSERT_NE(sw->GetLft()[dlid], IbSwitch::NO_PORT) << s << " -> " << d;
                port = sw->GetPort(sw->GetLft()[dlid]);
                ASSERT_LT(++hops, 4u);
            }
        }
    }
    // A leaf's up-links: the remote destinations spread evenly.
    for (uint32_t l = 0; l < 4; ++l)
    {
        Ptr<IbSwitch> leaf = tree.GetLeaf(l)->GetObject<IbSwitch>();
        std::map<uint16_t, uint32_t> perPort;
        for (uint32_t d = 0; d < gpus.GetN(); ++d)
        {
            const uint16_t port = leaf->GetLft()[fabric.GetLid(gpus.Get(d))];
            Ptr<FabricNetDevice> peer = leaf->GetPort(port)->GetFabricChannel()->GetPeer(
                PeekPointer(leaf->GetPort(port)));
            if (peer->GetNode()->GetObject<IbSwitch>())
            {
                ++perPort[port];
            }
        }
        ASSERT_EQ(perPort.size(), 4u) << "leaf " << l;
        uint32_t lo = UINT32_MAX;
        uint32_t hi = 0;
        for (const auto& [port, n] : perPort)
        {
            lo = std::min(lo, n);
            hi = std::max(hi, n);
        }
        EXPECT_LE(hi - lo, 1u) << "leaf " << l;
    }
}

// Incast 8 to 1 at 400 Gb/s through one IB switch: nothing is lost (credits, not drops), the
// senders wait for credits, and the bottleneck stays busy while they send.
TEST_F(IbFabricTest, IncastIsLosslessWithCreditStalls)
{
    IbStar star(9);
    NodeContainer& hosts = star.hosts;
    NodeContainer& sw = star.sw;
    IbFabricHelper& fabric = star.fabric;
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(8));
    std::vector<Ptr<RdmaQueuePair>> responders;
    const uint64_t bytes = 4 << 20;
    for (uint32_t i = 0; i < 8; ++i)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        for (uint32_t m = 0; m < 4; ++m)
        {
            a->PostWrite(1 << 20, m);
        }
        b->SetArrivalCallback(MakeCallback(&RecordArrival));
        responders.push_back(b);
    }
    // The switch port to the receiver: data line time while it sends.
    Ptr<IbNetDevice> bottleneck = sw.Get(0)->GetObject<IbSwitch>()->GetPort(8);
    Simulator::Run();

    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
    for (const auto& b : responders)
    {
        EXPECT_EQ(b->GetDeliveredBytes(), bytes);
    }
    Time stalls;
    for (uint32_t i = 0; i < 8; ++i)
    {
        stalls += fabric.GetNic(hosts.Get(i))->GetCreditStallTime(0);
    }
    EXPECT_GT(stalls, MicroSeconds(100)); // each sender waits for credits most of the time
    // 32 MiB through one 400 Gb/s port: it was busy at least 95% of the transfer.
    const double busy = bottleneck->GetCounters().txWireBytes * 8.0 / 400e9;
    EXPECT_GE(busy / g_lastArrival.GetSeconds(), 0.95);
}

// The collectives run on InfiniBand exactly as on RoCEv2: every algorithm's plan, executed
// on GPUs around one IB switch, moves exactly its bytes per rank and per step, once, with no
// retransmission and no drop.
TEST_F(IbFabricTest, CollectivesRunAsPlannedOverIb)
{
    using aifabrictest::BasicStar;
    const uint32_t n = 6;
    const uint32_t channels = 2;
    const uint64_t bytes = 3 * 1000 * 1000 + 1;
    struct Case
    {
        CollectiveType type;           //!< collective
        Ptr<CollectiveAlgorithm> algo; //!< algorithm
    };
    const std::vector<Case> cases = {
        {CollectiveType::ALL_REDUCE, CreateObject<RingAlgorithm>()},
        {CollectiveType::ALL_GATHER, CreateObject<RingAlgorithm>()},
        {CollectiveType::REDUCE_SCATTER, CreateObject<RingAlgorithm>()},
        {CollectiveType::ALL_REDUCE, CreateObject<DoubleBinaryTreeAlgorithm>()},
        {CollectiveType::ALL_REDUCE, CreateObject<HalvingDoublingAlgorithm>()},
        {CollectiveType::BROADCAST, CreateObject<ChainBroadcastAlgorithm>()},
        {CollectiveType::ALL_TO_ALL, CreateObject<PairwiseAllToAllAlgorithm>()},
    };
    for (const Case& c : cases)
    {
        BasicStar<IbFabricHelper> star(n, channels);
        Ptr<CollectivePlan> plan
            = c.algo->Build(c.type, n, bytes, channels, star.collectives.GetChunkBytes());
        const Time t = star.Run(plan);
        EXPECT_TRUE(t.IsStrictlyPositive()) << CollectiveTypeName(c.type);
        aifabrictest::ExpectExecutionMatchesPlan(star, *plan);
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(star.fabric.GetHostPort(star.gpus.Get(r))->GetCounters().TotalDrops(), 0u);
        }
        Simulator::Destroy();
    }
}

// ai-fabric-fattree --fabric=ib: the table, no drop, credit stalls in the JSON (in total and
// per port and VL), and the same bytes as over RoCEv2.
TEST_F(IbFabricTest, FattreeRunsOverIb)
{
    const std::string dir = TempDir();
    const std::string args
        = " --server=none --servers=8 --radix=4 --minBytes=1M --maxBytes=4M --stepFactor=4 "
          "--iters=1 --warmup=0 --quiet --algo=ring";
    const CommandResult ib = RunCommand(ProgramPath("ai-fabric-fattree") + args
                                        + " --fabric=ib --json=" + dir + "/ib.json");
    ASSERT_EQ(ib.status, 0) << ib.err;
    EXPECT_NE(ib.out.find("# Avg bus bandwidth"), std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/ib.json"));
    EXPECT_EQ(j["scenario"]["fabric"], "ib");
    EXPECT_EQ(j["fabric"]["drops"], 0);
    EXPECT_EQ(j["fabric"]["retransmits"], 0);
    EXPECT_EQ(j["fabric"]["pfc_pause_frames"], 0);
    EXPECT_GE(j["fabric"]["credit_stall_us"].get<double>(), 0.0);
    // Per port and VL: every link direction lists its 8 data VLs; they sum to the total.
    double perVl = 0;
    for (const auto& l : j["links"])
    {
        ASSERT_EQ(l["credit_stall_us"].size(), 8u) << l["name"];
        for (const auto& v : l["credit_stall_us"])
        {
            perVl += v.get<double>();
        }
    }
    EXPECT_NEAR(perVl, j["fabric"]["credit_stall_us"].get<double>(), 1e-6 * (1 + perVl));
    ASSERT_EQ(j["results"].size(), 2u);
    const CommandResult roce
        = RunCommand(ProgramPath("ai-fabric-fattree") + args + " --json=" + dir + "/roce.json");
    ASSERT_EQ(roce.status, 0) << roce.err;
    const nlohmann::json k = nlohmann::json::parse(ReadFile(dir + "/roce.json"));
    // Same sizes; IB's thinner framing and cut-through switches: not slower.
    for (std::size_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(j["results"][i]["bytes"], k["results"][i]["bytes"]);
        EXPECT_LE(j["results"][i]["time_us"].get<double>(),
                  k["results"][i]["time_us"].get<double>());
    }
}

// ai-fabric-ib-credits: through one switch, every point of the table lands within 2% of
// min(link rate, credits / credit round trip), some limited by the line and some by credits.
TEST_F(IbFabricTest, CreditsExampleFollowsTheLaw)
{
    const std::string dir = TempDir();
    const CommandResult r
        = RunCommand(ProgramPath("ai-fabric-ib-credits")
                     + " --buffers=131072,16384 --cables=2,400,2000 --json=" + dir + "/c.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/c.json"));
    ASSERT_EQ(j["results"].size(), 6u);
    bool line = false;
    bool credits = false;
    const double lineGbps = j["results"][0]["formula_gbps"].get<double>();
    for (const auto& row : j["results"])
    {
        const double formula = row["formula_gbps"].get<double>();
        EXPECT_NEAR(row["simulated_gbps"].get<double>(), formula, 0.02 * formula) << row.dump();
        (formula >= lineGbps * 0.999 ? line : credits) = true;
    }
    EXPECT_TRUE(line);
    EXPECT_TRUE(credits);
    for (const std::string args : {"--buffers=0",
                                   "--buffers=1000000",
                                   "--buffers=1024",
                                   "--cables=x",
                                   "--mtu=1500",
                                   "--rate=400",
                                   "--messages=1",
                                   "--fabric=ib"})
    {
        const CommandResult bad = RunCommand(ProgramPath("ai-fabric-ib-credits") + " " + args);
        EXPECT_EQ(bad.status, 2) << args << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << args << ": " << bad.err;
        EXPECT_EQ(bad.out, "") << args;
    }
}

/// Bytes two flows delivered when the first of them finished.
struct ArbitrationResult
{
    uint64_t vl0{0}; //!< the flow on VL0
    uint64_t vl1{0}; //!< the flow on VL1
};

/**
 * \param result where to record
 * \param vl0 the VL0 flow's responder
 * \param vl1 the VL1 flow's responder
 * \param qp the responder that got a message
 * \param bytes the message
 */
void
RecordFirstDone(ArbitrationResult* result,
                Ptr<RdmaQueuePair> vl0,
                Ptr<RdmaQueuePair> vl1,
                Ptr<RdmaQueuePair> qp,
                uint64_t /* bytes */)
{
    if (result->vl0 == 0 && qp->GetDeliveredBytes() == 8u << 20)
    {
        result->vl0 = vl0->GetDeliveredBytes();
        result->vl1 = vl1->GetDeliveredBytes();
    }
}

/**
 * \brief Hosts 0 (SL 0, VL0) and 1 (SL 1, VL1) write 8 MiB each to host 2 through one switch,
 *        whose port to host 2 arbitrates between the VLs with the given tables.
 * \param high the IbVlArbiter's HighTable
 * \param low its LowTable
 * \param limit its HighLimit
 * \return what each flow had delivered when the first finished
 */
ArbitrationResult
Arbitrate(const std::string& high, const std::string& low, uint32_t limit)
{
    IbStar star(3);
    NodeContainer& hosts = star.hosts;
    NodeContainer& sw = star.sw;
    IbFabricHelper& fabric = star.fabric;
    fabric.GetNic(hosts.Get(1))->SetAttribute("Sl", UintegerValue(1));
    Ptr<IbNetDevice> out = sw.Get(0)->GetObject<IbSwitch>()->GetPort(2);
    Ptr<FabricEgressScheduler> arbiter = out->GetScheduler();
    EXPECT_NE(DynamicCast<IbVlArbiter>(arbiter), nullptr);
    arbiter->SetAttribute("HighTable", StringValue(high));
    arbiter->SetAttribute("LowTable", StringValue(low));
    arbiter->SetAttribute("HighLimit", UintegerValue(limit));
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(2));
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        for (uint32_t m = 0; m < 8; ++m)
        {
            a->PostWrite(1 << 20, m);
        }
        responders.push_back(b);
    }
    ArbitrationResult result;
    for (const auto& b : responders)
    {
        b->SetArrivalCallback(
            MakeBoundCallback(&RecordFirstDone, &result, responders[0], responders[1]));
    }
    Simulator::Run();
    EXPECT_EQ(responders[0]->GetDeliveredBytes(), 8u << 20);
    EXPECT_EQ(responders[1]->GetDeliveredBytes(), 8u << 20);
    Simulator::Destroy();
    return result;
}

// VL arbitration at a switch port shared by two VLs: weights 192:64 (in 64-byte units: three
// 4 KB packets to one) share the port 3:1; VL1 alone in the high-priority table takes the port
// until it is done; with a limit of high priority of one unit (4096 bytes), high and low
// alternate packet by packet; without tables the VLs take turns.
TEST_F(IbFabricTest, VlArbitrationFollowsTheTables)
{
    const ArbitrationResult weighted = Arbitrate("", "0:192,1:64", 255);
    ASSERT_GT(weighted.vl1, 0u);
    EXPECT_NEAR(double(weighted.vl0) / weighted.vl1, 3.0, 0.06);

    const ArbitrationResult strict = Arbitrate("1:255", "0:255", 255);
    EXPECT_EQ(strict.vl1, 8u << 20);        // VL1 finished first...
    EXPECT_LT(strict.vl0, (8u << 20) / 20); // ...while VL0 got almost nothing

    const ArbitrationResult limited = Arbitrate("1:255", "0:255", 1);
    ASSERT_GT(limited.vl0, 0u);
    EXPECT_NEAR(double(limited.vl1) / limited.vl0, 1.0, 0.05);

    const ArbitrationResult turns = Arbitrate("", "", 255);
    ASSERT_GT(turns.vl0, 0u);
    EXPECT_NEAR(double(turns.vl1) / turns.vl0, 1.0, 0.05);
}

namespace
{

/**
 * \param lmc the subnet's LMC
 * \return per up-link of the first leaf (two leaves, four spines), the data bytes it sent
 *         while eight QPs of one host write 1 MiB each to a host on the other leaf
 */
std::vector<uint64_t>
UpLinkBytes(uint32_t lmc)
{
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer leaves;
    leaves.Create(2);
    NodeContainer spines;
    spines.Create(4);
    IbFabricHelper fabric;
    EXPECT_TRUE(fabric.SetLmc(lmc));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(leaves);
    fabric.InstallSwitches(spines);
    fabric.Connect(hosts.Get(0), leaves.Get(0));
    fabric.Connect(hosts.Get(1), leaves.Get(1));
    for (uint32_t l = 0; l < 2; ++l)
    {
        for (uint32_t s = 0; s < 4; ++s)
        {
            fabric.Connect(leaves.Get(l), spines.Get(s));
        }
    }
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(1));
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t q = 0; q < 8; ++q)
    {
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(1 << 20, q);
        responders.push_back(b);
    }
    Simulator::Run();
    for (const auto& b : responders)
    {
        EXPECT_EQ(b->GetDeliveredBytes(), 1u << 20);
    }
    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
    Ptr<IbSwitch> leaf = leaves.Get(0)->GetObject<IbSwitch>();
    std::vector<uint64_t> bytes;
    for (uint32_t p = 1; p <= 4; ++p) // port 0 is the host's
    {
        bytes.push_back(leaf->GetPort(p)->GetCounters().txWireBytes);
    }
    Simulator::Destroy();
    return bytes;
}

} // namespace

// LMC > 0 is multipath: with one LID per host all eight QPs to one host take the same up-link;
// with LMC 2 each QP sends to one of the host's four LIDs (its entropy's low bits), the LIDs
// leave the leaf over different spines, and every byte still arrives exactly once.
TEST_F(IbFabricTest, LmcSpreadsQueuePairsOverPaths)
{
    auto used = [](const std::vector<uint64_t>& bytes)
    { return std::count_if(bytes.begin(), bytes.end(), [](uint64_t b) { return b > (1 << 20); }); };
    const std::vector<uint64_t> single = UpLinkBytes(0);
    const std::vector<uint64_t> multi = UpLinkBytes(2);
    EXPECT_EQ(used(single), 1);
    EXPECT_GE(used(multi), 3);
    // The same data crosses the up-links (flow-control packets aside: a few dozen bytes).
    const auto total = [](const std::vector<uint64_t>& b)
    { return static_cast<double>(std::accumulate(b.begin(), b.end(), uint64_t{0})); };
    EXPECT_NEAR(total(multi), total(single), 1e-3 * total(single));
    EXPECT_GT(total(single), 8.0 * (1 << 20));
}

namespace
{

/// MADs an adapter received: (arrival, source LID, bytes)
struct MadLog
{
    std::vector<Time> when;                  //!< arrivals
    std::vector<uint16_t> slid;              //!< source LIDs
    std::vector<std::vector<uint8_t>> bytes; //!< contents
};

void
RecordMad(MadLog* log, Ptr<Packet> mad, uint16_t slid)
{
    log->when.push_back(Simulator::Now());
    log->slid.push_back(slid);
    std::vector<uint8_t> b(mad->GetSize());
    mad->CopyData(b.data(), b.size());
    log->bytes.push_back(b);
}

/// \return a MAD whose byte i is (i + seed) mod 256
Ptr<Packet>
Mad(uint8_t seed)
{
    std::vector<uint8_t> b(IbNetDevice::MAD_BYTES);
    for (std::size_t i = 0; i < b.size(); ++i)
    {
        b[i] = static_cast<uint8_t>(i + seed);
    }
    return Create<Packet>(b.data(), b.size());
}

} // namespace

// VL15 carries management packets ahead of the data VLs and without credits: a MAD sent while
// two senders keep the switch's port to their receiver backed up by hundreds of kilobytes
// arrives within a microsecond, intact, from the right LID, and nothing is lost.
TEST_F(IbFabricTest, ManagementLaneOvertakesCongestedData)
{
    IbStar star(3);
    NodeContainer& hosts = star.hosts;
    NodeContainer& sw = star.sw;
    IbFabricHelper& fabric = star.fabric;
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(2));
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(8 << 20, 0);
    }
    MadLog log;
    fabric.GetNic(hosts.Get(2))->SetManagementCallback(MakeBoundCallback(&RecordMad, &log));
    Ptr<IbNetDevice> toReceiver = sw.Get(0)->GetObject<IbSwitch>()->GetPort(2);
    const Time sent = MicroSeconds(50);
    uint32_t queued = 0;
    Simulator::Schedule(
        sent,
        [&]()
        {
            queued = toReceiver->GetQueuedBytes(0);
            fabric.GetNic(hosts.Get(0))->SendManagement(Mad(7), fabric.GetLid(hosts.Get(2)));
        });
    Simulator::Run();
    // Behind the queue the MAD would wait queued x 8 / 400 Gb/s: at least 1.3 us.
    ASSERT_GT(queued, 64u * 1024);
    ASSERT_EQ(log.when.size(), 1u);
    EXPECT_LT(log.when[0] - sent, MicroSeconds(1));
    EXPECT_EQ(log.slid[0], fabric.GetLid(hosts.Get(0)));
    std::vector<uint8_t> expect(IbNetDevice::MAD_BYTES);
    Mad(7)->CopyData(expect.data(), expect.size());
    EXPECT_EQ(log.bytes[0], expect);
    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
    EXPECT_EQ(fabric.GetNic(hosts.Get(0))->GetManagementPacketsSent(), 1u);
}

// VL15 has no flow control: four adapters sending six MADs each at once to one adapter overrun
// the switch's VL15 buffers; the excess is dropped as Vl15Overflow (which IBTA allows), every
// other MAD arrives, and no data VL ever sees a credit violation.
TEST_F(IbFabricTest, ManagementLaneDropsWhatItsBufferCannotHold)
{
    IbStar star(5);
    NodeContainer& hosts = star.hosts;
    NodeContainer& sw = star.sw;
    IbFabricHelper& fabric = star.fabric;
    MadLog log;
    fabric.GetNic(hosts.Get(4))->SetManagementCallback(MakeBoundCallback(&RecordMad, &log));
    for (uint32_t h = 0; h < 4; ++h)
    {
        for (uint8_t m = 0; m < 6; ++m)
        {
            fabric.GetNic(hosts.Get(h))->SendManagement(Mad(m), fabric.GetLid(hosts.Get(4)));
        }
    }
    Simulator::Run();
    uint64_t overflow = 0;
    uint64_t violations = 0;
    Ptr<IbSwitch> ib = sw.Get(0)->GetObject<IbSwitch>();
    for (uint32_t p = 0; p < ib->GetNPorts(); ++p)
    {
        const auto& drops = ib->GetPort(p)->GetCounters().drops;
        overflow += drops[static_cast<std::size_t>(FabricDropReason::VL15_OVERFLOW)];
        violations += drops[static_cast<std::size_t>(FabricDropReason::CREDIT_VIOLATION)];
    }
    EXPECT_GT(overflow, 0u);
    EXPECT_EQ(log.when.size() + overflow, 24u);
    EXPECT_EQ(FabricStatsHelper::Totals().drops, overflow);
    EXPECT_EQ(violations, 0u);
}

// The SL-to-VL table: an adapter on SL 2 sends on VL 2; the switch's port to the receiver maps
// every SL to VL 5, so the packets leave the switch on VL 5 (its queue there fills, VL 2's
// stays empty), arrive complete, and the sender's VL 2 gets all its credits back.
TEST_F(IbFabricTest, SlToVlTableChoosesEachOutputVl)
{
    IbStar star(2, [](IbFabricHelper& f) { f.SetDeviceAttribute("Sl", UintegerValue(2)); });
    NodeContainer& hosts = star.hosts;
    NodeContainer& sw = star.sw;
    IbFabricHelper& fabric = star.fabric;
    Ptr<IbNetDevice> out = sw.Get(0)->GetObject<IbSwitch>()->GetPort(1);
    out->SetAttribute("SlToVl", StringValue("5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5"));
    EXPECT_EQ(out->VlOfSl(2), 5);
    EXPECT_EQ(fabric.GetNic(hosts.Get(0))->VlOfSl(2), 2);
    Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
    Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
    tx->ConnectQueuePairs(a, b, rx);
    a->PostWrite(4 << 20, 0);
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), 4u << 20);
    EXPECT_GT(out->GetMaxQueuedBytes(5), 0u);
    EXPECT_EQ(out->GetMaxQueuedBytes(2), 0u);
    Ptr<IbNetDevice> nic = fabric.GetNic(hosts.Get(0));
    EXPECT_EQ(nic->GetAvailableCredits(2) * IbNetDevice::BLOCK_BYTES, nic->GetVlBufferBytes());
    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
}
