/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// RoCEv2 frames are written as bytes (FrameBytesHeader, issue 13): the bytes must be exactly
// what ns-3's EthernetHeader, Ipv4Header and UdpHeader write for the same fields, for data,
// ACKs and frames a switch marked with ECN CE (whose IPv4 checksum it computed again).

#include "ai-fabric-test-fixture.h"
#include "ns3/config.h"
#include "ns3/ethernet-header.h"
#include "ns3/frame-bytes-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

class FrameBytesTest : public AiFabricTest
{
  protected:
    void TearDown() override
    {
        AiFabricTest::TearDown();
        Config::Reset();
    }
};

/// What the receiver's port saw.
struct Seen
{
    uint64_t frames{0};  //!< IPv4 frames compared
    uint64_t marked{0};  //!< of which ECN CE
    uint64_t control{0}; //!< of which not ECN-capable (ACKs)
};

/**
 * \brief Compare a received frame's Ethernet, IPv4 and UDP bytes with ns-3's headers.
 * \param seen the tally
 * \param p the frame
 */
void
Compare(Seen* seen, Ptr<const Packet> p)
{
    constexpr uint32_t n = RoceNetDevice::ENCAPSULATION_BYTES;
    uint8_t got[n];
    ASSERT_EQ(p->CopyData(got, n), n);
    if (got[12] != 0x08 || got[13] != 0x00)
    {
        return; // PFC
    }
    Ptr<Packet> q = p->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    Ipv4Header ip;
    ip.EnableChecksum();
    q->RemoveHeader(ip);
    EXPECT_TRUE(ip.IsChecksumOk());
    UdpHeader udp;
    q->RemoveHeader(udp);
    // The same fields, written by ns-3's classes.
    Ptr<Packet> expected = q->Copy();
    UdpHeader u;
    u.SetSourcePort(udp.GetSourcePort());
    u.SetDestinationPort(RoceNetDevice::ROCEV2_UDP_PORT);
    expected->AddHeader(u);
    Ipv4Header i;
    i.SetSource(ip.GetSource());
    i.SetDestination(ip.GetDestination());
    i.SetProtocol(17);
    i.SetPayloadSize(expected->GetSize());
    i.SetTtl(64);
    i.SetDontFragment();
    i.SetTos(ip.GetTos());
    i.EnableChecksum();
    expected->AddHeader(i);
    EthernetHeader e(false);
    e.SetSource(eth.GetSource());
    e.SetDestination(eth.GetDestination());
    e.SetLengthType(0x0800);
    expected->AddHeader(e);
    uint8_t want[n];
    expected->CopyData(want, n);
    for (uint32_t k = 0; k < n; ++k)
    {
        EXPECT_EQ(got[k], want[k]) << "byte " << k;
    }
    EXPECT_EQ(expected->GetSize(), p->GetSize());
    ++seen->frames;
    seen->marked += (ip.GetTos() & 3) == 3 ? 1 : 0;
    seen->control += (ip.GetTos() & 3) == 0 ? 1 : 0;
}

} // namespace

// Two senders into one port with low ECN thresholds: data (ECT(0)), frames marked CE by the
// switch, and the receiver's ACKs all carry ns-3's bytes.
TEST_F(FrameBytesTest, RoceFramesAreNs3sBytes)
{
    Config::SetDefault("ns3::RoceEcnMarker::Kmin", UintegerValue(8000));
    Config::SetDefault("ns3::RoceEcnMarker::Kmax", UintegerValue(16000));
    NodeContainer hosts;
    hosts.Create(3);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    for (uint32_t h = 0; h < 3; ++h)
    {
        fabric.Connect(hosts.Get(h), sw.Get(0));
    }
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(2));
    for (uint32_t h = 0; h < 2; ++h)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(h));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        Simulator::Schedule(Time(0), &RdmaQueuePair::PostWrite, a, 256 * 1024, 1);
    }
    Seen atReceiver;
    Seen atSender;
    fabric.GetNic(hosts.Get(2))
        ->TraceConnectWithoutContext("PhyRxEnd", MakeBoundCallback(&Compare, &atReceiver));
    fabric.GetNic(hosts.Get(0))
        ->TraceConnectWithoutContext("PhyRxEnd", MakeBoundCallback(&Compare, &atSender));
    Simulator::Run();
    EXPECT_EQ(atReceiver.frames, 2u * 64);
    EXPECT_GT(atReceiver.marked, 0u);
    EXPECT_LT(atReceiver.marked, atReceiver.frames);
    EXPECT_EQ(atSender.frames, 64u); // its ACKs
    EXPECT_EQ(atSender.control, 64u);
}

// The checksum is RFC 1071's: a header with its checksum written sums to 0xFFFF.
TEST_F(FrameBytesTest, InternetChecksum)
{
    // RFC 1071's example words, in an IPv4-sized header with the checksum field (10-11) zero.
    uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                     0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    const uint16_t c = FrameBytesHeader::InternetChecksum(h, 20);
    EXPECT_EQ(c, 0xb861); // the well-known value of this header
    h[10] = static_cast<uint8_t>(c >> 8);
    h[11] = static_cast<uint8_t>(c);
    EXPECT_EQ(FrameBytesHeader::InternetChecksum(h, 20), 0u);
}
