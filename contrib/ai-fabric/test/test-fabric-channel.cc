/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricChannel and FabricNetDevice, driven through RoceNetDevice ports built by
// RoceFabricHelper: arrival times against the serialization + propagation formula, exact
// per-port counters, and link failures (LinkState trace, LINK_DOWN drops, frames in flight).

#include "ai-fabric-test-fixture.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// Attributes of the fabric under test, away from every default so that a formula that
/// silently used a default would fail.
const DataRate RATE("100Gb/s");
const Time CABLE_DELAY = NanoSeconds(123);
const Time TX_LATENCY = NanoSeconds(77);
const Time RX_LATENCY = NanoSeconds(55);
const Time PORT_LATENCY = NanoSeconds(321);
const uint32_t MTU = 1024;
/// Retransmission timeout exponent: 4.096 us x 2^6 = 262 us, so that recovery is quick.
const uint32_t ACK_TIMEOUT = 6;

/**
 * \param payload payload bytes of one WRITE packet
 * \param first true if it carries a RETH (First or Only)
 * \return the frame bytes: Ethernet/IPv4/UDP + BTH [+ RETH] + payload + pad + ICRC
 */
uint32_t
DataFrameBytes(uint32_t payload, bool first)
{
    const uint32_t pad = (4 - payload % 4) % 4;
    return RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + (first ? RethHeader::SIZE : 0)
           + payload + pad + IcrcTrailer::SIZE;
}

/// \return the frame bytes of an ACK: Ethernet/IPv4/UDP + BTH + AETH + ICRC
uint32_t
AckFrameBytes()
{
    return RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + AethHeader::SIZE
           + IcrcTrailer::SIZE;
}

/**
 * \param frameBytes a frame
 * \return its line time: (frame, padded to 60, + 24 B of preamble, IFG, FCS) x 8 / rate,
 *         exact in picoseconds
 */
Time
Serialization(uint32_t frameBytes)
{
    const uint64_t wire = std::max(frameBytes, RoceNetDevice::ETHERNET_MIN_FRAME_BYTES)
                          + RoceNetDevice::ETHERNET_OVERHEAD_BYTES;
    const uint64_t bitPs = wire * 8 * 1000000000000ULL;
    EXPECT_EQ(bitPs % RATE.GetBitRate(), 0u) << "pick a rate that makes this exact";
    return PicoSeconds(bitPs / RATE.GetBitRate());
}

/**
 * \param bytes a message
 * \return the frame bytes of its packets
 */
std::vector<uint32_t>
MessageFrames(uint64_t bytes)
{
    std::vector<uint32_t> frames;
    const uint64_t n = bytes == 0 ? 1 : (bytes + MTU - 1) / MTU;
    for (uint64_t k = 0; k < n; ++k)
    {
        const uint32_t payload = static_cast<uint32_t>(k + 1 < n ? MTU : bytes - k * MTU);
        frames.push_back(DataFrameBytes(payload, k == 0));
    }
    return frames;
}

/// What one port saw, through its trace sources.
struct PortLog
{
    std::vector<Time> rxEnd;                     //!< PhyRxEnd times
    std::vector<Time> txBegin;                   //!< PhyTxBegin times
    std::vector<std::pair<Time, uint8_t>> drops; //!< Drop trace: time and reason
    std::vector<uint32_t> rxSizes;               //!< PhyRxEnd frame sizes
};

class FabricChannelTest : public AiFabricTest
{
  protected:
    /**
     * \brief Build host A - [switch] - host B with the attributes above and one QP pair.
     * \param switches 0 or 1
     */
    void Build(uint32_t switches)
    {
        m_hosts.Create(2);
        m_switches.Create(switches);
        m_fabric.SetDeviceAttribute("DataRate", DataRateValue(RATE));
        m_fabric.SetChannelAttribute("Delay", TimeValue(CABLE_DELAY));
        m_fabric.SetTransportAttribute("TxLatency", TimeValue(TX_LATENCY));
        m_fabric.SetTransportAttribute("RxLatency", TimeValue(RX_LATENCY));
        m_fabric.SetSwitchAttribute("PortLatency", TimeValue(PORT_LATENCY));
        m_fabric.SetQueuePairAttribute("Mtu", UintegerValue(MTU));
        m_fabric.SetQueuePairAttribute("LocalAckTimeout", UintegerValue(ACK_TIMEOUT));
        m_fabric.InstallHosts(m_hosts);
        m_fabric.InstallSwitches(m_switches);
        if (switches == 0)
        {
            m_fabric.Connect(m_hosts.Get(0), m_hosts.Get(1));
        }
        else
        {
            m_fabric.Connect(m_hosts.Get(0), m_switches.Get(0));
            m_fabric.Connect(m_switches.Get(0), m_hosts.Get(1));
        }
        m_fabric.ComputeRoutes();
        m_fabric.AssignStreams(1);
        m_nicA = m_fabric.GetNic(m_hosts.Get(0));
        m_nicB = m_fabric.GetNic(m_hosts.Get(1));
        Ptr<RdmaTransport> ta = m_fabric.GetTransport(m_hosts.Get(0));
        Ptr<RdmaTransport> tb = m_fabric.GetTransport(m_hosts.Get(1));
        m_qpA = ta->CreateQueuePair();
        m_qpB = tb->CreateQueuePair();
        ta->ConnectQueuePairs(m_qpA, m_qpB, tb);
        m_qpB->SetArrivalCallback(Callback<void, Ptr<RdmaQueuePair>, uint64_t>(
            [this](Ptr<RdmaQueuePair>, uint64_t bytes)
            { m_arrivals.emplace_back(Simulator::Now(), bytes); }));
        m_qpA->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [this](Ptr<RdmaQueuePair>, const RdmaCompletion& c) { m_completions.push_back(c); }));
    }

    /**
     * \brief Record a port's traces into a log.
     * \param dev the port
     * \param log where to record
     */
    static void Watch(Ptr<FabricNetDevice> dev, PortLog& log)
    {
        dev->TraceConnectWithoutContext("PhyRxEnd",
                                        Callback<void, Ptr<const Packet>>(
                                            [&log](Ptr<const Packet> p)
                                            {
                                                log.rxEnd.push_back(Simulator::Now());
                                                log.rxSizes.push_back(p->GetSize());
                                            }));
        dev->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>([&log](Ptr<const Packet>)
                                              { log.txBegin.push_back(Simulator::Now()); }));
        dev->TraceConnectWithoutContext("Drop",
                                        Callback<void, Ptr<const Packet>, uint8_t>(
                                            [&log](Ptr<const Packet>, uint8_t r)
                                            { log.drops.emplace_back(Simulator::Now(), r); }));
    }

    /**
     * \brief Send one frame, take the link down while the frame is in flight and bring it back
     * up before the frame's last bit would arrive; check the loss and the recovery.
     * \param propagating take it down during propagation (else during serialization)
     */
    void CheckFrameInFlightIsLost(bool propagating)
    {
        Build(0);
        PortLog a;
        PortLog b;
        Watch(m_nicA, a);
        Watch(m_nicB, b);
        const uint32_t payload = 500;
        const Time ser = Serialization(DataFrameBytes(payload, true));
        const Time arrival = TX_LATENCY + ser + CABLE_DELAY;
        const Time down = propagating ? TX_LATENCY + ser + CABLE_DELAY / 2 : TX_LATENCY + ser / 2;
        const Time up = arrival - CABLE_DELAY / 4;
        Ptr<FabricChannel> ch = FirstChannel();
        std::vector<std::pair<Time, bool>> states;
        ch->TraceConnectWithoutContext(
            "LinkState",
            Callback<void, bool>([&states](bool s) { states.emplace_back(Simulator::Now(), s); }));
        Simulator::Schedule(down, &FabricChannel::SetLinkUp, ch, false);
        Simulator::Schedule(up, &FabricChannel::SetLinkUp, ch, true);
        m_qpA->PostWrite(payload, 1);
        const Time rto = m_qpA->GetRetransmissionTimeout();
        Simulator::Stop(arrival + rto / 2);
        Simulator::Run();

        ASSERT_EQ(states.size(), 2u);
        EXPECT_EQ(states[0], std::make_pair(down, false));
        EXPECT_EQ(states[1], std::make_pair(up, true));
        // Accepted by the cable at the sender, lost at the receiver.
        EXPECT_EQ(m_nicA->GetCounters().txPackets, 1u);
        EXPECT_TRUE(a.drops.empty());
        ASSERT_EQ(b.drops.size(), 1u);
        EXPECT_EQ(b.drops[0].first, arrival);
        EXPECT_EQ(b.drops[0].second, static_cast<uint8_t>(FabricDropReason::LINK_DOWN));
        const FabricPortCounters& cb = m_nicB->GetCounters();
        EXPECT_EQ(cb.drops[static_cast<std::size_t>(FabricDropReason::LINK_DOWN)], 1u);
        EXPECT_EQ(cb.TotalDrops(), 1u);
        EXPECT_EQ(cb.rxPackets, 0u);
        EXPECT_TRUE(b.rxEnd.empty());
        EXPECT_TRUE(m_arrivals.empty());

        // Over the restored link, the retransmission after the timeout gets through: the timer
        // was armed when the frame left, TxLatency after the post.
        Simulator::Run();
        EXPECT_EQ(m_qpA->GetTimeouts(), 1u);
        ASSERT_EQ(m_arrivals.size(), 1u);
        EXPECT_EQ(m_arrivals[0].second, payload);
        ASSERT_EQ(b.rxEnd.size(), 1u);
        EXPECT_EQ(b.rxEnd[0], TX_LATENCY + rto + ser + CABLE_DELAY);
        ASSERT_EQ(m_completions.size(), 1u);
        EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);
    }

    /// \return the channel between host A and its neighbour
    Ptr<FabricChannel> FirstChannel() const
    {
        return m_fabric.GetChannels().front();
    }

    /// \return the switch's ports (toward A, toward B)
    std::pair<Ptr<RoceNetDevice>, Ptr<RoceNetDevice>> SwitchPorts() const
    {
        Ptr<RoceSwitch> sw = m_switches.Get(0)->GetObject<RoceSwitch>();
        return {sw->GetPort(0), sw->GetPort(1)};
    }

    NodeContainer m_hosts;                             //!< A and B
    NodeContainer m_switches;                          //!< none or one
    RoceFabricHelper m_fabric;                         //!< the builder
    Ptr<RoceNicPort> m_nicA;                           //!< A's NIC
    Ptr<RoceNicPort> m_nicB;                           //!< B's NIC
    Ptr<RdmaQueuePair> m_qpA;                          //!< requester
    Ptr<RdmaQueuePair> m_qpB;                          //!< responder
    std::vector<std::pair<Time, uint64_t>> m_arrivals; //!< messages at B
    std::vector<RdmaCompletion> m_completions;         //!< completions at A
};

} // namespace

// The framing constants: Ethernet II + IPv4 + UDP = 42 B, 24 B of line overhead, 60 B minimum.
TEST_F(FabricChannelTest, EthernetFramingConstants)
{
    EXPECT_EQ(RoceNetDevice::ENCAPSULATION_BYTES, 14u + 20u + 8u);
    EXPECT_EQ(RoceNetDevice::ETHERNET_OVERHEAD_BYTES, 8u + 12u + 4u);
    EXPECT_EQ(RoceNetDevice::ETHERNET_MIN_FRAME_BYTES, 60u);
    Ptr<RoceNetDevice> dev = CreateObject<RoceNicPort>();
    EXPECT_EQ(dev->GetWireBytes(1000), 1024u);
    EXPECT_EQ(dev->GetWireBytes(20), 84u); // padded to 60, + 24
    EXPECT_EQ(AckFrameBytes(), 62u);
}

// Host to host: the frame starts serialization TxLatency after the post, its last bit
// arrives after wire bytes x 8 / rate + Delay, the message is visible RxLatency later, and
// the ACK's arrival adds its own serialization and Delay.
TEST_F(FabricChannelTest, ArrivalTimeBackToBack)
{
    Build(0);
    PortLog a;
    PortLog b;
    Watch(m_nicA, a);
    Watch(m_nicB, b);
    const uint32_t payload = 1001; // WRITE Only with 3 bytes of padding
    m_qpA->PostWrite(payload, 1);
    Simulator::Run();

    const uint32_t frame = DataFrameBytes(payload, true);
    EXPECT_EQ(frame, 14u + 20u + 8u + 12u + 16u + 1001u + 3u + 4u);
    ASSERT_EQ(a.txBegin.size(), 1u);
    EXPECT_EQ(a.txBegin[0], TX_LATENCY);
    ASSERT_EQ(b.rxEnd.size(), 1u);
    EXPECT_EQ(b.rxSizes[0], frame);
    const Time arrival = TX_LATENCY + Serialization(frame) + CABLE_DELAY;
    EXPECT_EQ(b.rxEnd[0], arrival);
    ASSERT_EQ(m_arrivals.size(), 1u);
    EXPECT_EQ(m_arrivals[0].first, arrival + RX_LATENCY);
    EXPECT_EQ(m_arrivals[0].second, payload);
    // The ACK leaves B at once and comes back.
    ASSERT_EQ(b.txBegin.size(), 1u);
    EXPECT_EQ(b.txBegin[0], arrival);
    ASSERT_EQ(a.rxEnd.size(), 1u);
    EXPECT_EQ(a.rxSizes[0], AckFrameBytes());
    const Time ackArrival = arrival + Serialization(AckFrameBytes()) + CABLE_DELAY;
    EXPECT_EQ(a.rxEnd[0], ackArrival);
    ASSERT_EQ(m_completions.size(), 1u);
    EXPECT_EQ(m_completions[0].completionTime, ackArrival + RX_LATENCY);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);
}

// Through one switch: + PortLatency (store and forward) + a second serialization + Delay.
TEST_F(FabricChannelTest, ArrivalTimeThroughOneSwitch)
{
    Build(1);
    PortLog a;
    PortLog b;
    PortLog swIn;
    PortLog swOut;
    Watch(m_nicA, a);
    Watch(m_nicB, b);
    Watch(SwitchPorts().first, swIn);
    Watch(SwitchPorts().second, swOut);
    const uint32_t payload = 2;
    m_qpA->PostWrite(payload, 1);
    Simulator::Run();

    const Time ser = Serialization(DataFrameBytes(payload, true));
    const Time atSwitch = TX_LATENCY + ser + CABLE_DELAY;
    ASSERT_EQ(swIn.rxEnd.size(), 1u);
    EXPECT_EQ(swIn.rxEnd[0], atSwitch);
    ASSERT_EQ(swOut.txBegin.size(), 1u);
    EXPECT_EQ(swOut.txBegin[0], atSwitch + PORT_LATENCY);
    const Time arrival = atSwitch + PORT_LATENCY + ser + CABLE_DELAY;
    ASSERT_EQ(b.rxEnd.size(), 1u);
    EXPECT_EQ(b.rxEnd[0], arrival);
    ASSERT_EQ(m_arrivals.size(), 1u);
    EXPECT_EQ(m_arrivals[0].first, arrival + RX_LATENCY);
    const Time serAck = Serialization(AckFrameBytes());
    ASSERT_EQ(a.rxEnd.size(), 1u);
    EXPECT_EQ(a.rxEnd[0], arrival + (serAck + CABLE_DELAY) * 2 + PORT_LATENCY);
}

// Back-to-back frames of one message: each arrives one serialization time after the previous
// one (the port's transmit state machine never overlaps two frames on a cable).
TEST_F(FabricChannelTest, FramesAreSerializedBackToBack)
{
    Build(0);
    PortLog b;
    Watch(m_nicB, b);
    const uint64_t bytes = 3 * MTU + 5;
    m_qpA->PostWrite(bytes, 1);
    Simulator::Run();
    const std::vector<uint32_t> frames = MessageFrames(bytes);
    ASSERT_EQ(b.rxEnd.size(), frames.size());
    Time t = TX_LATENCY + CABLE_DELAY;
    for (std::size_t i = 0; i < frames.size(); ++i)
    {
        t += Serialization(frames[i]);
        EXPECT_EQ(b.rxEnd[i], t) << "frame " << i;
        EXPECT_EQ(b.rxSizes[i], frames[i]) << "frame " << i;
    }
}

// Every port's counters, through a switch: frames and frame bytes each way, wire bytes = frame
// bytes + 24 per frame, no drops, and the switch forwarded data and ACKs.
TEST_F(FabricChannelTest, PortCountersAreExact)
{
    Build(1);
    const uint64_t bytes = 2 * MTU + 453; // First, Middle, Last with 3 bytes of padding
    m_qpA->PostWrite(bytes, 1);
    Simulator::Run();
    ASSERT_EQ(m_completions.size(), 1u);

    const std::vector<uint32_t> frames = MessageFrames(bytes);
    ASSERT_EQ(frames.size(), 3u);
    uint64_t dataBytes = 0;
    for (uint32_t f : frames)
    {
        dataBytes += f;
    }
    const uint64_t n = frames.size();
    const uint64_t ackBytes = n * AckFrameBytes(); // AckInterval 1: one ACK per packet
    const uint64_t overhead = RoceNetDevice::ETHERNET_OVERHEAD_BYTES;

    auto [swA, swB] = SwitchPorts();
    // Data flows A -> swA ... swB -> B; ACKs the other way.
    for (const auto& [dev, name, txP, txB, rxP, rxB] : std::vector<
             std::tuple<Ptr<RoceNetDevice>, const char*, uint64_t, uint64_t, uint64_t, uint64_t>>{
             {m_nicA, "nicA", n, dataBytes, n, ackBytes},
             {swA, "switch port A", n, ackBytes, n, dataBytes},
             {swB, "switch port B", n, dataBytes, n, ackBytes},
             {m_nicB, "nicB", n, ackBytes, n, dataBytes}})
    {
        const FabricPortCounters& c = dev->GetCounters();
        EXPECT_EQ(c.txPackets, txP) << name;
        EXPECT_EQ(c.txBytes, txB) << name;
        EXPECT_EQ(c.txWireBytes, txB + txP * overhead) << name;
        EXPECT_EQ(c.rxPackets, rxP) << name;
        EXPECT_EQ(c.rxBytes, rxB) << name;
        EXPECT_EQ(c.TotalDrops(), 0u) << name;
    }
    EXPECT_EQ(m_switches.Get(0)->GetObject<RoceSwitch>()->GetForwardedPackets(), 2 * n);
}

// SetLinkUp fires LinkState once per change (not on a repeated state) and both ports, and
// their NetDevice link-change callbacks, follow.
TEST_F(FabricChannelTest, LinkStateTrace)
{
    Build(0);
    Ptr<FabricChannel> ch = FirstChannel();
    std::vector<bool> states;
    ch->TraceConnectWithoutContext(
        "LinkState", Callback<void, bool>([&states](bool up) { states.push_back(up); }));
    uint32_t linkChanges = 0;
    m_nicA->AddLinkChangeCallback(Callback<void>([&linkChanges]() { ++linkChanges; }));
    EXPECT_TRUE(ch->IsLinkUp());
    EXPECT_TRUE(m_nicA->IsLinkUp());
    EXPECT_TRUE(m_nicB->IsLinkUp());

    ch->SetLinkUp(false);
    EXPECT_FALSE(ch->IsLinkUp());
    EXPECT_FALSE(m_nicA->IsLinkUp());
    EXPECT_FALSE(m_nicB->IsLinkUp());
    ch->SetLinkUp(false); // no change: no trace
    ch->SetLinkUp(true);
    EXPECT_TRUE(ch->IsLinkUp());
    EXPECT_TRUE(m_nicA->IsLinkUp());
    EXPECT_TRUE(m_nicB->IsLinkUp());
    EXPECT_EQ(states, (std::vector<bool>{false, true}));
    EXPECT_EQ(linkChanges, 2u);
}

// Frames sent on a link that is down are dropped at the sender as LINK_DOWN, one Drop trace
// each at the time its serialization would have started; none are counted as sent or
// received.
TEST_F(FabricChannelTest, FramesSentWhileDownAreDropped)
{
    Build(0);
    PortLog a;
    PortLog b;
    Watch(m_nicA, a);
    Watch(m_nicB, b);
    FirstChannel()->SetLinkUp(false);
    const uint64_t bytes = 2 * MTU + 453;
    m_qpA->PostWrite(bytes, 1);
    // Stop before the retransmission timer.
    Simulator::Stop(m_qpA->GetRetransmissionTimeout() / 2);
    Simulator::Run();

    const std::vector<uint32_t> frames = MessageFrames(bytes);
    ASSERT_EQ(a.drops.size(), frames.size());
    Time t = TX_LATENCY;
    for (std::size_t i = 0; i < frames.size(); ++i)
    {
        EXPECT_EQ(a.drops[i].second, static_cast<uint8_t>(FabricDropReason::LINK_DOWN));
        EXPECT_EQ(a.drops[i].first, t) << "frame " << i;
        t += Serialization(frames[i]); // the port still spends the line time
    }
    const FabricPortCounters& ca = m_nicA->GetCounters();
    EXPECT_EQ(ca.drops[static_cast<std::size_t>(FabricDropReason::LINK_DOWN)], frames.size());
    EXPECT_EQ(ca.TotalDrops(), frames.size());
    EXPECT_EQ(ca.txPackets, 0u);
    EXPECT_EQ(ca.txBytes, 0u);
    EXPECT_EQ(m_nicB->GetCounters().rxPackets, 0u);
    EXPECT_TRUE(b.rxEnd.empty());
    EXPECT_TRUE(b.drops.empty());
    EXPECT_TRUE(m_arrivals.empty());
}

// A frame on the cable when the link goes down is lost, even if the link is back up before
// its last bit would have arrived: the receiver counts LINK_DOWN at the arrival time. The
// transport then recovers by timeout over the restored link.
TEST_F(FabricChannelTest, FrameInFlightIsDroppedAtReceiver)
{
    // Down while the sender serializes.
    CheckFrameInFlightIsLost(false);
}

TEST_F(FabricChannelTest, FrameOnCableIsDroppedAtReceiver)
{
    // Down while the frame propagates (serialization done).
    CheckFrameInFlightIsLost(true);
}

// Drop reasons have the names statistics print.
TEST_F(FabricChannelTest, DropReasonNames)
{
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::LINK_DOWN), "LinkDown");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::QUEUE_FULL), "QueueFull");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::RECEIVE_ERROR), "ReceiveError");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::NO_ROUTE), "NoRoute");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::NOT_FOR_US), "NotForUs");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::HEADROOM_EXCEEDED), "HeadroomExceeded");
    EXPECT_STREQ(FabricDropReasonName(FabricDropReason::PFC_WATCHDOG), "PfcWatchdog");
}

// FabricBytesTxTime() computes in integers what DataRate::CalculateBytesTxTime() computes in
// fixed point: the same picoseconds for every size and the rates the fabrics use, ties (a
// time half-way between two picoseconds) included; beyond 512 MiB, where ns-3's 32-bit bit
// count overflows, the exact time.
TEST(FabricTxTimeTest, SameAsNs3AndExactBeyond)
{
    ASSERT_EQ(Time::GetResolution(), Time::PS);
    for (const char* r : {"400Gbps",
                          "200Gbps",
                          "100Gbps",
                          "800Gbps",
                          "25Gbps",
                          "53.125Gbps",
                          "450GBps",
                          "50GBps",
                          "64GBps",
                          "32GBps",
                          "3350GBps",
                          "1Gbps"})
    {
        const DataRate rate(r);
        for (uint64_t bytes = 0; bytes <= 70000; ++bytes)
        {
            ASSERT_EQ(FabricBytesTxTime(rate, bytes), rate.CalculateBytesTxTime(bytes))
                << r << ", " << bytes << " bytes";
        }
        for (uint64_t bytes = 70001; bytes < (1ULL << 29); bytes = bytes * 3 / 2 + 7)
        {
            ASSERT_EQ(FabricBytesTxTime(rate, bytes), rate.CalculateBytesTxTime(bytes))
                << r << ", " << bytes << " bytes";
        }
    }
    // 4 bytes at 64 GB/s are 62.5 ps: ns-3's fixed point rounds this tie down, and so does
    // this function (it asks ns-3).
    EXPECT_EQ(FabricBytesTxTime(DataRate("64GBps"), 4), PicoSeconds(62));
    // 1 GiB at 400 Gb/s: 2^33 bits / 4e11 b/s = 21,474,836,480 ps exactly; 8 GiB and 5 bytes
    // at 3 Tb/s: 68,719,476,776 / 3 = 22,906,492,258.67 ps, rounded to the nearest.
    EXPECT_EQ(FabricBytesTxTime(DataRate("400Gbps"), 1ULL << 30), PicoSeconds(21474836480));
    EXPECT_EQ(FabricBytesTxTime(DataRate("3000Gbps"), (1ULL << 33) + 5), PicoSeconds(22906492259));
}
