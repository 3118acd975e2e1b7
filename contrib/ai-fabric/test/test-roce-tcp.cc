/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// RDMA and TCP on one RoCEv2 leaf-spine: ns-3's internet stack sends through the RoCEv2 NICs
// in a lossy priority, RDMA in the lossless one. TCP's losses stay in its class; RDMA loses
// nothing.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/fabric-channel.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch.h"
#include "ns3/tcp-socket.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <array>

using namespace ns3;

namespace
{

class RoceTcpTest : public AiFabricTest
{
};

/// Drops by priority of the dropped frame.
struct DropsByPriority
{
    std::array<uint64_t, 8> count{}; //!< per priority
};

/**
 * \param drops where to count
 * \param p a dropped frame
 */
void
CountDrop(DropsByPriority* drops, Ptr<const Packet> p, uint8_t /* reason */)
{
    uint8_t h[16];
    if (p->CopyData(h, sizeof(h)) == sizeof(h) && h[12] == 0x08 && h[13] == 0x00)
    {
        ++drops->count[h[15] >> 5];
    }
}

} // namespace

TEST_F(RoceTcpTest, TcpLossesStayInTheLossyClass)
{
    // Leaf-spine: 2 leaves, 2 spines, 4 hosts per leaf, 100 Gb/s, a small (2 MB) buffer.
    NodeContainer hosts;
    hosts.Create(8);
    NodeContainer leaves;
    leaves.Create(2);
    NodeContainer spines;
    spines.Create(2);
    RoceFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(leaves);
    fabric.InstallSwitches(spines);
    for (uint32_t h = 0; h < 8; ++h)
    {
        fabric.Connect(hosts.Get(h), leaves.Get(h / 4));
    }
    for (uint32_t l = 0; l < 2; ++l)
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            fabric.Connect(leaves.Get(l), spines.Get(s));
        }
    }
    fabric.ComputeRoutes();
    const NodeContainer switches(leaves, spines);
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        (*it)->GetObject<RoceSwitch>()->GetMmu()->SetAttribute("BufferSize",
                                                               UintegerValue(2000000));
    }
    InternetStackHelper internet;
    internet.SetIpv6StackInstall(false);
    internet.Install(hosts);
    fabric.AssignIpv4(hosts);

    // RDMA: hosts 4, 5, 6 write 8 MB each to host 0, across the spines.
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(0));
    std::vector<Ptr<RdmaQueuePair>> requesters;
    std::vector<Ptr<RdmaQueuePair>> responders;
    const uint64_t rdmaBytes = 8 << 20;
    for (uint32_t h = 4; h <= 6; ++h)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(h));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        for (uint32_t m = 0; m < 8; ++m)
        {
            a->PostWrite(1 << 20, m);
        }
        requesters.push_back(a);
        responders.push_back(b);
    }

    // TCP: hosts 7 and 1 send 4 MB each to host 0 with large windows, from the same start.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(8900));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(5))); // datacenter
    const uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinks = sink.Install(hosts.Get(0));
    const uint64_t tcpBytes = 4 << 20;
    for (uint32_t h : {7u, 1u})
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(fabric.GetAddress(hosts.Get(0)), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(tcpBytes));
        bulk.SetAttribute("SendSize", UintegerValue(1 << 16));
        bulk.Install(hosts.Get(h));
    }

    DropsByPriority drops;
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
        {
            (*it)->GetDevice(d)->TraceConnectWithoutContext("Drop",
                                                            MakeBoundCallback(&CountDrop, &drops));
        }
    }
    Simulator::Stop(Seconds(5));
    Simulator::Run();

    // RDMA: every byte, no retransmission, no drop in its priority (3).
    for (std::size_t i = 0; i < requesters.size(); ++i)
    {
        EXPECT_EQ(responders[i]->GetDeliveredBytes(), rdmaBytes);
        EXPECT_EQ(requesters[i]->GetRetransmissions(), 0u);
    }
    EXPECT_EQ(drops.count[3], 0u);
    // TCP lost frames in its own priority (0), and still delivered everything.
    EXPECT_GT(drops.count[0], 0u);
    for (uint32_t p = 1; p < 8; ++p)
    {
        EXPECT_EQ(drops.count[p], 0u) << "priority " << p;
    }
    EXPECT_EQ(DynamicCast<PacketSink>(sinks.Get(0))->GetTotalRx(), 2 * tcpBytes);
    // The switches paused RDMA to keep it lossless.
    uint64_t pauses = 0;
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        pauses += (*it)->GetObject<RoceSwitch>()->GetMmu()->GetPausesSent();
    }
    EXPECT_GT(pauses, 0u);
}
