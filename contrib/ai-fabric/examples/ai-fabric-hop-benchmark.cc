/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * Benchmark of the per-packet engine: the cost of one frame crossing one hop (a port's
 * serialization, the cable, and the next node's receive and forwarding) in ai-fabric's RoCEv2
 * fabric, against ns-3's own point-to-point devices with IPv4 forwarding on the same chain.
 * The bar (the project's design): an ai-fabric hop costs at most half of a point-to-point hop.
 *
 *   ./ns3 run "ai-fabric-hop-benchmark --switches=4 --megabytes=512"
 *
 * Wall-clock figures vary from run to run; the simulated outcome (frames, hops) does not. For
 * repeatable instruction counts, run the program under `valgrind --tool=callgrind`.
 */

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-net-device.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/scenario-options.h"

#include <chrono>
#include <cstdio>
#include <iostream>

using namespace ns3;

namespace
{

/// Result of one side of the benchmark.
struct HopCost
{
    uint64_t frameHops{0}; //!< frames sent on any link (one per hop)
    uint64_t events{0};    //!< simulator events
    double wallSeconds{0}; //!< time spent in Simulator::Run()
};

/**
 * \param switches switches between the two hosts
 * \param bytes bytes to write
 * \param rate link rate
 * \return the cost of the ai-fabric run
 */
HopCost
RunAiFabric(uint32_t switches, uint64_t bytes, DataRate rate)
{
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer sw;
    sw.Create(switches);
    RoceFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(rate));
    // One ACK per 16 packets, so that the reverse direction does not dominate the count.
    fabric.SetQueuePairAttribute("AckInterval", UintegerValue(16));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    Ptr<Node> previous = hosts.Get(0);
    for (uint32_t i = 0; i < switches; ++i)
    {
        fabric.Connect(previous, sw.Get(i));
        previous = sw.Get(i);
    }
    fabric.Connect(previous, hosts.Get(1));
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    a->ConnectQueuePairs(qa, qb, b);
    const uint64_t message = 1ULL << 30;
    for (uint64_t left = bytes; left > 0; left -= std::min(left, message))
    {
        qa->PostWrite(std::min(left, message), left);
    }

    HopCost cost;
    const auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    cost.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cost.events = Simulator::GetEventCount();
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            cost.frameHops += dev ? dev->GetCounters().txPackets : 0;
        }
    }
    Simulator::Destroy();
    return cost;
}

/**
 * \param routers IPv4 routers between the two hosts
 * \param bytes bytes to send
 * \param rate link rate
 * \return the cost of the point-to-point run
 */
HopCost
RunPointToPoint(uint32_t routers, uint64_t bytes, DataRate rate)
{
    NodeContainer nodes;
    nodes.Create(routers + 2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000)); // no IP fragmentation
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(10)));
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.255.252");
    Ipv4InterfaceContainer last;
    for (uint32_t i = 0; i + 1 < nodes.GetN(); ++i)
    {
        NetDeviceContainer link = p2p.Install(nodes.Get(i), nodes.Get(i + 1));
        last = address.Assign(link);
        address.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // UDP datagrams of the same frame size as a full RoCEv2 packet, at just under line rate.
    const uint32_t payload = 4096 + 12 + 4 - 8 - 20; // the same IPv4 packet size as RoCEv2's
    const uint64_t packets = bytes / 4096;
    UdpServerHelper server(9);
    ApplicationContainer serverApp = server.Install(nodes.Get(nodes.GetN() - 1));
    UdpClientHelper client(last.GetAddress(1), 9);
    client.SetAttribute("MaxPackets", UintegerValue(packets));
    client.SetAttribute("PacketSize", UintegerValue(payload));
    client.SetAttribute("Interval", TimeValue(rate.CalculateBytesTxTime(payload + 28 + 2 + 24)));
    ApplicationContainer clientApp = client.Install(nodes.Get(0));
    serverApp.Start(Seconds(0));
    clientApp.Start(Seconds(0));

    HopCost cost;
    const auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    cost.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cost.events = Simulator::GetEventCount();
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        Ptr<Node> node = nodes.Get(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            cost.frameHops += dev->GetQueue()->GetTotalReceivedPackets()
                              - dev->GetQueue()->GetTotalDroppedPackets();
        }
    }
    Simulator::Destroy();
    return cost;
}

} // namespace

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-hop-benchmark";
    Time::SetResolution(Time::PS);
    ScenarioOptions options(program);
    options.SetWatchdog(false); // a benchmark of the engine alone
    options.Add("switches", "switches (routers for point-to-point) between two hosts", "4");
    options.Add("megabytes", "MiB to move across the chain", "256");
    options.Add("rate", "link rate", "400Gbps");
    options.Parse(
        argc, argv, "Cost of one packet hop in ai-fabric against ns-3's point-to-point device.");
    const std::string switches = options.Get("switches");
    const std::string megabytes = options.Get("megabytes");
    const std::string rate = options.Get("rate");
    uint64_t nSwitches = 0;
    uint64_t mib = 0;
    DataRate linkRate;
    if (!FabricCli::ParseUnsigned(switches, nSwitches) || nSwitches > 64)
    {
        FabricCli::Fail(program, "--switches=" + switches + ": expected 0..64");
    }
    if (!FabricCli::ParseUnsigned(megabytes, mib) || mib == 0 || mib > 65536)
    {
        FabricCli::Fail(program, "--megabytes=" + megabytes + ": expected 1..65536");
    }
    linkRate = FabricCli::LinkRate(program, "rate", rate);
    const uint64_t bytes = mib << 20;
    const HopCost fabric = RunAiFabric(static_cast<uint32_t>(nSwitches), bytes, linkRate);
    const HopCost p2p = RunPointToPoint(static_cast<uint32_t>(nSwitches), bytes, linkRate);

    std::printf(
        "%-16s %14s %14s %12s %14s\n", "model", "frame-hops", "events", "wall[s]", "ns/frame-hop");
    for (const auto& [name, c] :
         {std::make_pair("ai-fabric", fabric), std::make_pair("p2p+ipv4", p2p)})
    {
        std::printf("%-16s %14llu %14llu %12.3f %14.1f\n",
                    name,
                    static_cast<unsigned long long>(c.frameHops),
                    static_cast<unsigned long long>(c.events),
                    c.wallSeconds,
                    c.wallSeconds * 1e9 / c.frameHops);
    }
    const double ratio
        = (fabric.wallSeconds / fabric.frameHops) / (p2p.wallSeconds / p2p.frameHops);
    std::printf("ai-fabric / point-to-point cost per hop: %.2f (bar: <= 0.50)\n", ratio);
    return 0;
}
