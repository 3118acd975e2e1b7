/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * InfiniBand credits against distance: one adapter writes to another through one switch,
 * for every combination of VL buffer and cable length, and the throughput is printed beside
 * min(link rate, credits / credit round trip).
 *
 * A packet of P wire bytes takes b = ceil(P / 64) credit blocks, so a VL buffer of C blocks
 * lets k = floor(C / b) packets be outstanding on a link. The switch holds a packet's blocks
 * in its ingress buffer until the packet leaves its output port, so the credit round trip of
 * the sender's link is: the packet's serialization, the cable twice, the switch's holding time
 * (cut-through: PortLatency less the serialization, at least 0), and the flow-control
 * packet's serialization. Throughput = min(line rate, k packets per round trip).
 *
 *   ./ns3 run "ai-fabric-ib-credits"
 *   ./ns3 run "ai-fabric-ib-credits --rate=200G --buffers=65536 --cables=10,500,2000"
 */

#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-headers.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/scenario-options.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{
const std::string PROGRAM = "ai-fabric-ib-credits";

/// Data packets a port started, and when.
struct DataSpan
{
    Time first;        //!< first data packet started
    Time last;         //!< last data packet started
    uint32_t count{0}; //!< data packets
};

/**
 * \param span where to record
 * \param p a packet the sender's port started
 */
void
RecordData(DataSpan* span, Ptr<const Packet> p)
{
    uint8_t h[LrhHeader::SIZE + 1];
    if (p->GetSize() <= IbFlowControlHeader::SIZE || p->CopyData(h, sizeof(h)) != sizeof(h)
        || h[LrhHeader::SIZE] == RC_ACKNOWLEDGE)
    {
        return;
    }
    if (span->count++ == 0)
    {
        span->first = Simulator::Now();
    }
    span->last = Simulator::Now();
}

/**
 * \param name the option
 * \param text a comma-separated list of whole numbers
 * \return them
 */
std::vector<uint64_t>
ParseList(const std::string& name, const std::string& text)
{
    std::vector<uint64_t> values;
    std::istringstream is(text);
    std::string item;
    while (std::getline(is, item, ','))
    {
        uint64_t v = 0;
        if (!FabricCli::ParseBytes(item, v) || v == 0)
        {
            FabricCli::Fail(PROGRAM,
                            "--" + name + "=" + text + ": expected positive whole numbers, "
                                                       "separated by commas");
        }
        values.push_back(v);
    }
    if (values.empty())
    {
        FabricCli::Fail(PROGRAM, "--" + name + "=: expected at least one value");
    }
    return values;
}

/// One row of the table.
struct Row
{
    uint64_t buffer{0};      //!< VL buffer (bytes)
    uint64_t cableMeters{0}; //!< cable length
    double roundTripUs{0};   //!< credit round trip of the sender's link
    double formulaGbps{0};   //!< min(line, credits / round trip), payload
    double simulatedGbps{0}; //!< measured, payload
};

/**
 * \param rate link rate
 * \param mtu path MTU
 * \param buffer VL buffer bytes
 * \param cable cable delay
 * \param messages one-packet writes to send
 * \return the row
 */
Row
Measure(DataRate rate, uint32_t mtu, uint64_t buffer, Time cable, uint32_t messages)
{
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer sw;
    sw.Create(1);
    IbFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(rate));
    fabric.SetPortPartAttribute("FlowControl", "VlBufferBytes", UintegerValue(buffer));
    fabric.SetChannelAttribute("Delay", TimeValue(cable));
    fabric.SetQueuePairAttribute("Mtu", UintegerValue(mtu));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    fabric.Connect(hosts.Get(0), sw.Get(0));
    fabric.Connect(sw.Get(0), hosts.Get(1));
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    a->ConnectQueuePairs(qa, qb, b);
    for (uint32_t m = 0; m < messages; ++m)
    {
        qa->PostWrite(mtu, m); // one packet each: every data packet has the same size
    }
    DataSpan span;
    fabric.GetNic(hosts.Get(0))
        ->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&RecordData, &span));
    TimeValue latency;
    sw.Get(0)->GetObject<IbSwitch>()->GetAttribute("PortLatency", latency);
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named

    Row row;
    row.buffer = buffer;
    const uint32_t wire = IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + RethHeader::SIZE
                          + mtu + IcrcTrailer::SIZE + IbNetDevice::TRAILER_BYTES;
    const double ser = wire * 8.0 / rate.GetBitRate();
    const double hold = std::max(latency.Get().GetSeconds() - ser, 0.0);
    const double fc = IbFlowControlHeader::SIZE * 8.0 / rate.GetBitRate();
    const double roundTrip = ser + 2 * cable.GetSeconds() + hold + fc;
    const double k
        = std::floor(double(buffer / IbNetDevice::BLOCK_BYTES) / IbNetDevice::Blocks(wire));
    const double packetsPerSecond = std::min(1.0 / ser, k / roundTrip);
    row.roundTripUs = roundTrip * 1e6;
    row.formulaGbps = packetsPerSecond * mtu * 8 / 1e9;
    row.simulatedGbps
        = span.count > 1 ? (span.count - 1) / (span.last - span.first).GetSeconds() * mtu * 8 / 1e9
                         : 0;
    if (qb->GetDeliveredBytes() != uint64_t(messages) * mtu)
    {
        // The run could not complete: a named finding (exit status 3), as in every program.
        std::cerr << PROGRAM << ": not every byte was delivered" << std::endl;
        std::exit(3);
    }
    Simulator::Destroy();
    return row;
}
} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    ScenarioOptions options(PROGRAM);
    options.Add("rate",
                "link rate, 1Gbps to 100Tbps, e.g. 400Gbps or 200G (below 1 Gb/s a packet "
                "would outlast the 67 ms ACK timeout and the sender give up)",
                "400Gbps");
    options.Add("mtu", "IBTA path MTU: 256, 512, 1024, 2048 or 4096", "4096");
    options.Add(
        "buffers", "VL buffer bytes to try, comma-separated (64 to 131072)", "131072,32768");
    options.Add("cables", "cable lengths in metres to try, comma-separated", "2,100,400,1000");
    options.Add("messages", "one-packet writes per point", "2000");
    options.Use("json");
    options.Parse(argc,
                  argv,
                  "InfiniBand throughput against VL buffer and cable length, beside min(link rate, "
                  "credits / credit round trip).");
    const std::string rate = options.Get("rate");
    const std::string mtu = options.Get("mtu");
    const std::string buffers = options.Get("buffers");
    const std::string cables = options.Get("cables");
    const std::string messages = options.Get("messages");
    const std::string json = options.Get("json");

    DataRate r;
    r = FabricCli::LinkRate(PROGRAM, "rate", rate);
    uint64_t m = 0;
    if (!FabricCli::ParseUnsigned(mtu, m)
        || (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096))
    {
        FabricCli::Fail(
            PROGRAM, "--mtu=" + mtu + ": the IBTA path MTU is one of 256, 512, 1024, 2048, 4096");
    }
    const std::vector<uint64_t> bufferList = ParseList("buffers", buffers);
    for (uint64_t b : bufferList)
    {
        if (b < IbNetDevice::BLOCK_BYTES
            || b > IbNetDevice::MAX_OUTSTANDING_BLOCKS * IbNetDevice::BLOCK_BYTES)
        {
            FabricCli::Fail(PROGRAM,
                            "--buffers=" + buffers + ": a VL buffer is 64 to 131072 bytes (2048 "
                                                     "blocks, the most a 12-bit FCCL grants)");
        }
        const uint32_t wire = IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + RethHeader::SIZE
                              + static_cast<uint32_t>(m) + IcrcTrailer::SIZE
                              + IbNetDevice::TRAILER_BYTES;
        if (b < uint64_t(IbNetDevice::Blocks(wire)) * IbNetDevice::BLOCK_BYTES)
        {
            FabricCli::Fail(
                PROGRAM,
                "--buffers=" + buffers + ": a VL buffer must hold one packet ("
                    + std::to_string(IbNetDevice::Blocks(wire) * IbNetDevice::BLOCK_BYTES)
                    + " bytes at this MTU)");
        }
    }
    const std::vector<uint64_t> cableList = ParseList("cables", cables);
    for (uint64_t c : cableList)
    {
        if (c > 100000)
        {
            FabricCli::Fail(PROGRAM, "--cables=" + cables + ": at most 100000 metres");
        }
    }
    uint64_t n = 0;
    if (!FabricCli::ParseUnsigned(messages, n) || n < 2 || n > 1000000)
    {
        FabricCli::Fail(PROGRAM, "--messages=" + messages + ": expected 2 to 1000000");
    }
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(PROGRAM, "json", json);
    }

    std::cout << "# " << PROGRAM << ": one switch, " << r.GetBitRate() / 1e9 << " Gb/s, MTU " << m
              << ", one-packet writes; payload rates\n"
              << "#  buffer(B)  cable(m)  credit RTT(us)  formula(Gb/s)  simulated(Gb/s)  "
                 "error\n"
              << std::fixed;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (uint64_t b : bufferList)
    {
        for (uint64_t c : cableList)
        {
            Row row = Measure(
                r, static_cast<uint32_t>(m), b, NanoSeconds(5 * c), static_cast<uint32_t>(n));
            row.cableMeters = c;
            const double error = (row.simulatedGbps / row.formulaGbps - 1) * 100;
            std::cout << std::setw(12) << row.buffer << std::setw(10) << row.cableMeters
                      << std::setprecision(3) << std::setw(16) << row.roundTripUs
                      << std::setprecision(2) << std::setw(15) << row.formulaGbps << std::setw(17)
                      << row.simulatedGbps << std::setw(6) << std::showpos << error << "%"
                      << std::noshowpos << "\n";
            rows.push_back({{"buffer_bytes", row.buffer},
                            {"cable_m", row.cableMeters},
                            {"credit_rtt_us", row.roundTripUs},
                            {"formula_gbps", row.formulaGbps},
                            {"simulated_gbps", row.simulatedGbps},
                            {"error_pct", error}});
        }
    }
    if (!json.empty())
    {
        nlohmann::ordered_json j = {{"scenario",
                                     {{"program", PROGRAM},
                                      {"fabric", "ib"},
                                      {"rate_gbps", r.GetBitRate() / 1e9},
                                      {"mtu", m},
                                      {"messages", n}}},
                                    {"results", rows}};
        if (!jsonFile.CommitJson(PROGRAM, j))
        {
            return 1;
        }
    }
    return 0;
}
