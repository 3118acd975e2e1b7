/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// End-to-end checks of ai-fabric-perftest: bandwidth and latency against the model's
// formulas, loss recovery, determinism, bad input, and pcaps decoded by tshark.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/fabric-channel.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-perftest.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// The perftest program
const std::string PERFTEST = ProgramPath("ai-fabric-perftest");

/**
 * \param name attribute of ns3::RoceSwitch
 * \return its default as Time
 */
Time
SwitchLatency()
{
    TimeValue v;
    CreateObject<RoceSwitch>()->GetAttribute("PortLatency", v);
    return v.Get();
}

class PerftestTest : public AiFabricTest
{
};

} // namespace

// write_bw at 400 Gb/s, 4096 B MTU, 1 MiB messages through one switch: the average bandwidth
// is the goodput of the RoCEv2 framing, 400 x 4096 / 4178 = 392.1 Gb/s, within 0.5%.
TEST_F(PerftestTest, WriteBwMatchesRoceGoodput)
{
    RdmaPerftestConfig cfg;
    cfg.test = "write_bw";
    cfg.size = 1 << 20;
    cfg.iterations = 100;
    cfg.rate = DataRate("400Gb/s");
    cfg.mtu = 4096;
    cfg.switches = 1;
    ASSERT_EQ(cfg.Validate(), "");
    RdmaPerftest perftest(cfg);
    const RdmaPerftestResult r = perftest.Run();

    const double frame
        = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + cfg.mtu + IcrcTrailer::SIZE;
    const double wire = frame + RoceNetDevice::ETHERNET_OVERHEAD_BYTES;
    EXPECT_DOUBLE_EQ(wire, 4178.0);
    const double goodputGbps = cfg.rate.GetBitRate() * cfg.mtu / wire / 1e9;
    EXPECT_NEAR(r.bwAvgGbps, goodputGbps, goodputGbps * 0.005);
    EXPECT_LE(r.bwAvgGbps, goodputGbps * 1.0001); // never above the line's goodput
    EXPECT_EQ(r.deliveredBytes, r.expectedBytes);
    EXPECT_EQ(r.retransmits, 0u);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_TRUE(r.error.empty());
    // Every message of 1 MiB takes 256 packets.
    EXPECT_EQ(r.packets, cfg.iterations * 256);
}

// write_lat with 2-byte messages: the typical one-way latency equals, to the picosecond, the
// sum of the modelled parts: NIC TX latency, serialization of the actual wire bytes on every
// hop, propagation on every cable, switch latency, NIC RX latency.
TEST_F(PerftestTest, WriteLatEqualsSumOfParts)
{
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    const Time cable = CreateObject<FabricChannel>()->GetDelay();
    const Time portLatency = SwitchLatency();
    for (uint32_t switches : {0U, 1U, 3U})
    {
        RdmaPerftestConfig cfg;
        cfg.test = "write_lat";
        cfg.size = 2;
        cfg.iterations = 50;
        cfg.switches = switches;
        ASSERT_EQ(cfg.Validate(), "");
        RdmaPerftest perftest(cfg);
        const RdmaPerftestResult r = perftest.Run();

        // WRITE Only: Ethernet/IPv4/UDP + BTH + RETH + 2 B payload + 2 B pad + ICRC.
        const uint32_t frame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                               + RethHeader::SIZE + 2 + 2 + IcrcTrailer::SIZE;
        const uint32_t wire = std::max(frame, RoceNetDevice::ETHERNET_MIN_FRAME_BYTES)
                              + RoceNetDevice::ETHERNET_OVERHEAD_BYTES;
        const Time serialization = cfg.rate.CalculateBytesTxTime(wire);
        const Time expected = transport->GetTxLatency() + transport->GetRxLatency()
                              + (serialization + cable) * static_cast<int64_t>(switches + 1)
                              + portLatency * static_cast<int64_t>(switches);
        EXPECT_NEAR(r.lat.typical, expected.GetSeconds() * 1e6, 1e-6) << switches << " switches";
        EXPECT_DOUBLE_EQ(r.lat.min, r.lat.max); // an idle fabric: every sample the same
        EXPECT_EQ(r.deliveredBytes, r.expectedBytes);
    }
}

// Random loss on every link: every byte is delivered exactly once and in order, and the
// transport had to retransmit.
TEST_F(PerftestTest, LossIsRecovered)
{
    RdmaPerftestConfig cfg;
    cfg.test = "write_bw";
    cfg.size = 64 * 1024;
    cfg.iterations = 300;
    cfg.lossRate = 0.001;
    ASSERT_EQ(cfg.Validate(), "");
    RdmaPerftest perftest(cfg);
    const RdmaPerftestResult r = perftest.Run();
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.deliveredBytes, r.expectedBytes);
    EXPECT_GT(r.retransmits, 0u);
    EXPECT_GT(r.drops, 0u);
    EXPECT_GT(r.naks + r.timeouts, 0u);
}

// The program: --lossRate=0.001 gives a JSON that says every byte arrived once, and the same
// flags twice give byte-identical output.
TEST_F(PerftestTest, ProgramIsDeterministicAndReportsRecovery)
{
    const std::string dir = TempDir();
    const std::string args = " --size=64K --iters=200 --lossRate=0.001 --json=";
    const CommandResult a = RunCommand(PERFTEST + args + dir + "/a.json");
    const CommandResult b = RunCommand(PERFTEST + args + dir + "/b.json");
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
    const std::string ja = ReadFile(dir + "/a.json");
    EXPECT_EQ(ja, ReadFile(dir + "/b.json"));
    const nlohmann::json j = nlohmann::json::parse(ja);
    EXPECT_EQ(j["test"], "write_bw");
    EXPECT_EQ(j["fabric"], "roce");
    EXPECT_EQ(j["bytes"], 65536);
    EXPECT_EQ(j["iterations"], 200);
    EXPECT_EQ(j["delivered_bytes"].get<uint64_t>(), 65536ULL * 200);
    EXPECT_GT(j["transport"]["retransmits"].get<uint64_t>(), 0u);
    for (const char* key : {"bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps"})
    {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    for (const char* key : {"min", "typical", "avg", "max", "stdev", "p99", "p999"})
    {
        EXPECT_TRUE(j["lat_us"].contains(key)) << key;
    }
    for (const char* key : {"packets", "retransmits", "timeouts", "naks"})
    {
        EXPECT_TRUE(j["transport"].contains(key)) << key;
    }
    // A different run number draws other losses.
    const CommandResult c = RunCommand(PERFTEST + args + dir + "/c.json --RngRun=2");
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_NE(ReadFile(dir + "/c.json"), ja);
}

// Bad input: one line on stderr, exit status 2, nothing on stdout, no file written.
TEST_F(PerftestTest, BadInputIsRefused)
{
    const std::string dir = TempDir();
    for (const std::string args : {"--test=bogus",
                                   "--mtu=100",
                                   "--size=-1",
                                   "--size=12X",
                                   "--rate=fast",
                                   "--rate=400Gbpz",
                                   "--rate=400",
                                   "--lossRate=1.5",
                                   "--qps=0",
                                   "--fabric=ethernet",
                                   "--bogus=1",
                                   "--test=write_lat --qps=2",
                                   "--pcap=/nonexistent/dir/cap",
                                   "--RngRun=x",
                                   "--json=/nonexistent/dir/x.json"})
    {
        // With a JSON path that is fine, unless the bad value is the path itself.
        const bool badPath = args.rfind("--json", 0) == 0;
        const CommandResult r
            = RunCommand(PERFTEST + " " + args + (badPath ? "" : " --json=" + dir + "/out.json"));
        const CommandResult r2 = RunCommand(PERFTEST + " " + args);
        for (const CommandResult& c : {r, r2})
        {
            EXPECT_EQ(c.status, 2) << args;
            EXPECT_EQ(c.out, "") << args;
            EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << args << ": " << c.err;
            EXPECT_EQ(c.err.rfind("ai-fabric-perftest: ", 0), 0u) << c.err;
        }
        EXPECT_FALSE(std::ifstream(dir + "/out.json").good()) << args;
    }
}

// A pcap written with --pcap is decoded by tshark as RoCE: InfiniBand BTH over UDP 4791, with
// the opcodes of a segmented WRITE and consecutive PSNs, and ACKs coming back.
TEST_F(PerftestTest, PcapDecodesAsRoce)
{
    ASSERT_EQ(RunCommand("command -v tshark").status, 0) << "tshark is not installed";
    const std::string dir = TempDir();
    const CommandResult r = RunCommand(PERFTEST + " --size=10000 --iters=3 --pcap=" + dir + "/cap");
    ASSERT_EQ(r.status, 0) << r.err;
    // Node 0 is the sender; its NIC is device 0.
    std::vector<uint32_t> dataOpcodes;
    std::vector<uint32_t> dataPsns;
    uint32_t acks = 0;
    for (const auto& row :
         TsharkFields(dir + "/cap-0-0.pcap",
                      "",
                      {"ip.src", "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.psn"}))
    {
        const std::string& src = row[0];
        const std::string& opcode = row[2];
        ASSERT_EQ(row[1], "4791") << src;
        ASSERT_FALSE(opcode.empty()) << "not decoded as InfiniBand: " << src;
        if (src == "10.0.0.1")
        {
            dataOpcodes.push_back(std::stoul(opcode));
            dataPsns.push_back(std::stoul(row[3]));
        }
        else
        {
            EXPECT_EQ(std::stoul(opcode), static_cast<unsigned long>(RC_ACKNOWLEDGE));
            ++acks;
        }
    }
    // 10000 B at MTU 4096: WRITE First, Middle, Last, three times.
    const std::vector<uint32_t> expected = {RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST,
                                            RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST,
                                            RC_RDMA_WRITE_FIRST,
                                            RC_RDMA_WRITE_MIDDLE,
                                            RC_RDMA_WRITE_LAST};
    EXPECT_EQ(dataOpcodes, expected);
    ASSERT_EQ(dataPsns.size(), expected.size());
    for (std::size_t i = 1; i < dataPsns.size(); ++i)
    {
        EXPECT_EQ(dataPsns[i], (dataPsns[i - 1] + 1) & RDMA_PSN_MASK);
    }
    EXPECT_EQ(acks, expected.size()); // AckInterval 1: one ACK per packet
}
