/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Priority flow control: the 802.1Qbb frame, pause arithmetic at a port, and a lossless
// incast through a shared-buffer switch (and its lossy twin with PFC off).

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-host-interface.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-pfc.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

class PfcTest : public AiFabricTest
{
};

/**
 * \param times where to record
 * \param p a frame the port started to send
 */
void
RecordDataTx(std::vector<Time>* times, Ptr<const Packet> p)
{
    uint8_t h[RoceNetDevice::ENCAPSULATION_BYTES + 1];
    p->CopyData(h, sizeof(h));
    const uint16_t etherType = static_cast<uint16_t>((h[12] << 8) | h[13]);
    if (etherType == 0x0800 && h[RoceNetDevice::ENCAPSULATION_BYTES] != RC_ACKNOWLEDGE)
    {
        times->push_back(Simulator::Now());
    }
}

/// Result of an incast.
struct IncastResult
{
    uint64_t drops{0};         //!< frames dropped anywhere
    uint64_t headroomDrops{0}; //!< lossless frames beyond the headroom
    uint64_t pausesSent{0};    //!< PFC XOFF frames the switch sent
    uint64_t delivered{0};     //!< bytes delivered to the receiver
    uint64_t expected{0};      //!< bytes posted
    double utilization{0};     //!< bottleneck busy fraction while data flowed
    Time finish;               //!< last message delivered
};

/**
 * \brief N senders write to one receiver through one switch.
 * \param senders N
 * \param bytes bytes per sender
 * \param pfc PFC on
 * \param buffer switch buffer (bytes)
 * \param cable one-way delay of every cable
 * \return the outcome
 */
IncastResult
Incast(uint32_t senders, uint64_t bytes, bool pfc, uint64_t buffer, Time cable = NanoSeconds(10))
{
    NodeContainer hosts;
    hosts.Create(senders + 1);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.SetChannelAttribute("Delay", TimeValue(cable));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i <= senders; ++i)
    {
        fabric.Connect(hosts.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    Ptr<RoceSwitchMmu> mmu = sw.Get(0)->GetObject<RoceSwitch>()->GetMmu();
    mmu->SetAttribute("PfcEnabled", BooleanValue(pfc));
    mmu->SetAttribute("BufferSize", UintegerValue(buffer));
    Ptr<Node> receiver = hosts.Get(senders);
    Ptr<RdmaTransport> rx = fabric.GetTransport(receiver);
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t i = 0; i < senders; ++i)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        for (uint64_t left = bytes; left > 0; left -= std::min<uint64_t>(left, 1 << 20))
        {
            a->PostWrite(std::min<uint64_t>(left, 1 << 20), left);
        }
        responders.push_back(b);
    }
    // The bottleneck: the switch's port to the receiver.
    Ptr<RoceNetDevice> bottleneck = DynamicCast<RoceNetDevice>(
        fabric.GetNic(receiver)->GetFabricChannel()->GetPeer(PeekPointer(fabric.GetNic(receiver))));
    std::vector<Time> sent;
    bottleneck->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&RecordDataTx, &sent));
    Simulator::Run();

    IncastResult r;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            const FabricPortCounters& c
                = DynamicCast<FabricNetDevice>(node->GetDevice(d))->GetCounters();
            r.drops += c.TotalDrops();
            r.headroomDrops
                += c.drops[static_cast<std::size_t>(FabricDropReason::HEADROOM_EXCEEDED)];
        }
    }
    r.pausesSent = mmu->GetPausesSent();
    r.expected = senders * bytes;
    for (const auto& qp : responders)
    {
        r.delivered += qp->GetDeliveredBytes();
    }
    if (sent.size() > 1)
    {
        const double busy
            = bottleneck->GetCounters().txWireBytes * 8.0 / bottleneck->GetDataRate().GetBitRate();
        r.utilization = busy / (sent.back() - sent.front()).GetSeconds();
    }
    r.finish = sent.empty() ? Time(0) : sent.back();
    Simulator::Destroy();
    return r;
}

} // namespace

// 802.1Qbb: opcode 0x0101, class-enable vector, eight 16-bit pause times, padded to 46 bytes.
TEST_F(PfcTest, FrameLayout)
{
    PfcHeader pfc;
    pfc.SetPause(3, 0xFFFF);
    pfc.SetPause(6, 0x1234);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    ASSERT_EQ(p->GetSize(), PfcHeader::SIZE);
    ASSERT_EQ(PfcHeader::SIZE + 14, 60u); // a minimum Ethernet frame
    uint8_t b[PfcHeader::SIZE];
    p->CopyData(b, sizeof(b));
    EXPECT_EQ(b[0], 0x01);
    EXPECT_EQ(b[1], 0x01);
    EXPECT_EQ(b[2], 0x00);
    EXPECT_EQ(b[3], (1 << 3) | (1 << 6)); // class-enable vector
    EXPECT_EQ(b[4 + 2 * 3], 0xFF);
    EXPECT_EQ(b[5 + 2 * 3], 0xFF);
    EXPECT_EQ(b[4 + 2 * 6], 0x12);
    EXPECT_EQ(b[5 + 2 * 6], 0x34);
    for (uint32_t i = 4 + 16; i < PfcHeader::SIZE; ++i)
    {
        EXPECT_EQ(b[i], 0) << i; // padding
    }
    PfcHeader back;
    p->RemoveHeader(back);
    EXPECT_TRUE(back.IsEnabled(3));
    EXPECT_FALSE(back.IsEnabled(4));
    EXPECT_EQ(back.GetQuanta(6), 0x1234);
}

// A pause of N quanta at R bit/s holds the paused priority N x 512 / R: the NIC's first data
// frame leaves exactly when the pause that arrived before it expires.
TEST_F(PfcTest, PauseHoldsThePriorityForItsQuanta)
{
    for (uint16_t quanta : {1000, 30000})
    {
        NodeContainer hosts;
        hosts.Create(2);
        NodeContainer sw;
        sw.Create(1);
        RoceFabricHelper fabric;
        fabric.InstallHosts(hosts);
        fabric.InstallSwitches(sw);
        fabric.Connect(hosts.Get(0), sw.Get(0));
        fabric.Connect(sw.Get(0), hosts.Get(1));
        fabric.ComputeRoutes();
        Ptr<RoceNetDevice> nic = fabric.GetNic(hosts.Get(0));
        Ptr<RoceNetDevice> port = sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
        Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
        Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
        Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
        Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
        a->ConnectQueuePairs(qa, qb, b);
        const uint8_t rdmaPriority = 26 >> 3;
        // The switch pauses the NIC's RDMA priority at t = 0; the NIC posts at t = 0.
        Simulator::Schedule(Time(0), &RoceNetDevice::SendPfc, port, rdmaPriority, quanta);
        Simulator::Schedule(Time(0), &RdmaQueuePair::PostWrite, qa, 1000, 1);
        std::vector<Time> sent;
        nic->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&RecordDataTx, &sent));
        Simulator::Run();

        const DataRate rate = nic->GetDataRate();
        const Time cable = nic->GetFabricChannel()->GetDelay();
        // The PFC frame (60 bytes + 24 on the wire) crosses the cable, then the pause runs.
        const Time arrival = rate.CalculateBytesTxTime(60 + 24) + cable;
        // N x 512 bit times, in picoseconds (a 128-bit product: 65535 x 512 x 1e12 > 2^63).
        const __int128 bitPs = static_cast<__int128>(quanta) * 512 * 1000000000000LL;
        const Time pause = PicoSeconds(static_cast<int64_t>(bitPs / rate.GetBitRate()));
        ASSERT_EQ(sent.size(), 1u);
        EXPECT_EQ(sent[0], arrival + pause) << quanta << " quanta";
        EXPECT_EQ(nic->GetPfcFramesReceived(rdmaPriority), 1u);
        EXPECT_EQ(port->GetPfcPausesSent(rdmaPriority), 1u);
        EXPECT_EQ(nic->GetPausedTime(rdmaPriority), pause);
        EXPECT_EQ(qb->GetDeliveredBytes(), 1000u);
        Simulator::Destroy();
    }
}

/**
 * \param times where to record the arrival of a pause (not of a release)
 * \param priority the priority
 * \param quanta its pause time
 */
void
RecordPauseArrival(std::vector<Time>* times, uint8_t /* priority */, uint16_t quanta)
{
    if (quanta > 0)
    {
        times->push_back(Simulator::Now());
    }
}

// A switch port chooses a forwarded frame when it arrives and puts it on the wire to start
// after the pipeline latency, with no event then (issue 13). A PFC pause that arrives before
// such a frame's first bit leaves must still hold it: the port takes back every frame not yet
// started (their deliveries, its counters, the MMU's release of their buffer) and sends
// nothing of the priority until the pause ends, exactly then. Nothing is lost, duplicated or
// reordered, and the buffer is empty at the end.
TEST_F(PfcTest, PauseTakesBackFramesChosenAhead)
{
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    fabric.Connect(hosts.Get(0), sw.Get(0));
    fabric.Connect(sw.Get(0), hosts.Get(1));
    fabric.ComputeRoutes();
    Ptr<RoceSwitch> rs = sw.Get(0)->GetObject<RoceSwitch>();
    Ptr<RoceNetDevice> egress = rs->GetPort(1);
    Ptr<RoceNetDevice> rxNic = fabric.GetNic(hosts.Get(1));
    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    a->ConnectQueuePairs(qa, qb, b);
    const uint8_t rdmaPriority = 26 >> 3;
    const uint16_t quanta = 2000;
    const uint64_t bytes = 1 << 20;
    Simulator::Schedule(Time(0), &RdmaQueuePair::PostWrite, qa, bytes, 1);
    // The receiver pauses the switch in the middle of the stream, twice.
    for (const Time& t : {MicroSeconds(3), MicroSeconds(9)})
    {
        Simulator::Schedule(t, &RoceNetDevice::SendPfc, rxNic, rdmaPriority, quanta);
    }
    std::vector<Time> sent;
    std::vector<Time> pauses;
    egress->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&RecordDataTx, &sent));
    egress->GetPfc()->TraceConnectWithoutContext("Received",
                                                 MakeBoundCallback(&RecordPauseArrival, &pauses));
    Simulator::Run();

    // Line rate, 400 ns of pipeline: about five frames are chosen ahead at any time.
    EXPECT_GE(egress->GetWithdrawnFrames(), 2u);
    const DataRate rate = egress->GetDataRate();
    const __int128 bitPs = static_cast<__int128>(quanta) * 512 * 1000000000000LL;
    const Time pause = PicoSeconds(static_cast<int64_t>(bitPs / rate.GetBitRate()));
    ASSERT_EQ(pauses.size(), 2u);
    for (const Time& arrival : pauses)
    {
        bool resumed = false;
        for (const Time& t : sent)
        {
            EXPECT_FALSE(t >= arrival && t < arrival + pause)
                << "a data frame started at " << t << " within the pause from " << arrival;
            resumed = resumed || t == arrival + pause;
        }
        EXPECT_TRUE(resumed) << "the next frame starts as the pause from " << arrival << " ends";
    }
    EXPECT_EQ(qb->GetDeliveredBytes(), bytes);
    EXPECT_EQ(qa->GetRetransmissions(), 0u);
    EXPECT_EQ(qb->GetOutOfSequencePackets(), 0u);
    // Frames taken back were never on the cable: what the port counts is what arrived.
    EXPECT_EQ(egress->GetCounters().txPackets, rxNic->GetCounters().rxPackets);
    EXPECT_EQ(egress->GetCounters().TotalDrops() + rxNic->GetCounters().TotalDrops(), 0u);
    EXPECT_EQ(sent.size(), bytes / 4096);
    Ptr<RoceSwitchMmu> mmu = rs->GetMmu();
    for (uint32_t port = 0; port < 2; ++port)
    {
        EXPECT_EQ(mmu->GetBytes(port, rdmaPriority), 0u) << "port " << port;
    }
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
}

// Incast 8 to 1 at 400 Gb/s through a switch with a small (2 MB) shared buffer. With PFC:
// nothing is dropped, the switch pauses the senders, and the bottleneck stays busy. Without:
// the buffer overflows, frames are dropped, go-back-N still delivers every byte, later.
TEST_F(PfcTest, IncastIsLosslessWithPfc)
{
    const uint32_t senders = 8;
    const uint64_t bytes = 4 << 20;
    const uint64_t buffer = 2000000;
    const IncastResult lossless = Incast(senders, bytes, true, buffer);
    EXPECT_EQ(lossless.drops, 0u);
    EXPECT_EQ(lossless.headroomDrops, 0u);
    EXPECT_GT(lossless.pausesSent, 0u);
    EXPECT_EQ(lossless.delivered, lossless.expected);
    EXPECT_GE(lossless.utilization, 0.95);

    const IncastResult lossy = Incast(senders, bytes, false, buffer);
    EXPECT_GT(lossy.drops, 0u);
    EXPECT_EQ(lossy.pausesSent, 0u);
    EXPECT_EQ(lossy.delivered, lossy.expected);
    EXPECT_GT(lossy.finish, lossless.finish);
}

// Many senders, and long cables, put more bytes in flight after each pause: every paused
// queue's headroom absorbs its own, and nothing is lost (20 to 1 with 2 m cables; 8 to 1 with
// 20 m cables, 100 ns).
TEST_F(PfcTest, HeadroomHoldsWideAndLongIncasts)
{
    const IncastResult wide = Incast(20, 1 << 20, true, 2000000);
    EXPECT_EQ(wide.drops, 0u);
    EXPECT_EQ(wide.headroomDrops, 0u);
    EXPECT_GT(wide.pausesSent, 0u);
    EXPECT_EQ(wide.delivered, wide.expected);
    const IncastResult longCables = Incast(8, 2 << 20, true, 2000000, NanoSeconds(100));
    EXPECT_EQ(longCables.drops, 0u);
    EXPECT_EQ(longCables.headroomDrops, 0u);
    EXPECT_EQ(longCables.delivered, longCables.expected);
}

// The shared pool is what the reserved bytes and the headroom leave of the buffer, and it
// follows a port's headroom when its link is set after the pool was first used.
TEST_F(PfcTest, SharedPoolFollowsHeadroom)
{
    Ptr<RoceSwitchMmu> mmu = CreateObject<RoceSwitchMmu>();
    mmu->AddPort();
    mmu->AddPort();
    const uint8_t rdma = 3;
    const uint32_t before = mmu->GetThreshold(0, rdma); // no link yet: no headroom
    mmu->SetPortLink(0, 400000000000ULL, NanoSeconds(10));
    mmu->SetPortLink(1, 400000000000ULL, NanoSeconds(10));
    // 2 x 9038 + 2 x (400 Gb/s x 10 ns = 500 B) + 905 quanta x 64 B = 76996 B per port.
    EXPECT_EQ(mmu->GetHeadroom(0), 76996u);
    const uint32_t after = mmu->GetThreshold(0, rdma);
    EXPECT_EQ(before - after, 2 * 76996u); // alpha 1: the threshold is the free shared pool
}

/**
 * \param sent where to record
 * \param priority the paused priority
 * \param quanta its pause time
 */
void
RecordPfc(std::vector<std::pair<uint8_t, uint16_t>>* sent, uint8_t priority, uint16_t quanta)
{
    sent->emplace_back(priority, quanta);
}

// The PFC frames on the wire, read back from a capture by tshark, carry exactly the priority
// and the quanta the switch computed (pauses and releases, in order).
TEST_F(PfcTest, PcapCarriesTheComputedQuanta)
{
    ASSERT_EQ(RunCommand("command -v tshark").status, 0) << "tshark is not installed";
    // The capture file is complete once its device, and so everything that holds it, is gone.
    std::vector<std::pair<uint8_t, uint16_t>> sent;
    const std::string dir = TempDir();
    {
        NodeContainer hosts;
        hosts.Create(5);
        NodeContainer sw;
        sw.Create(1);
        RoceFabricHelper fabric;
        fabric.SetMmuAttribute("BufferSize", UintegerValue(1000000));
        fabric.SetMmuAttribute("PauseQuanta", UintegerValue(20000));
        fabric.InstallHosts(hosts);
        fabric.InstallSwitches(sw);
        for (uint32_t i = 0; i < 5; ++i)
        {
            fabric.Connect(hosts.Get(i), sw.Get(0));
        }
        fabric.ComputeRoutes();
        Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(4));
        for (uint32_t i = 0; i < 4; ++i)
        {
            Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
            Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
            Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
            tx->ConnectQueuePairs(a, b, rx);
            a->PostWrite(4 << 20, 1);
        }
        // Switch port 0 faces host 0: it pauses host 0.
        Ptr<RoceNetDevice> port = sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
        port->GetPfc()->TraceConnectWithoutContext("Sent", MakeBoundCallback(&RecordPfc, &sent));
        fabric.EnablePcap(dir + "/pfc.pcap", port, false, true);
        Simulator::Run();
        Simulator::Destroy();
    }

    ASSERT_FALSE(sent.empty());
    std::size_t i = 0;
    for (const auto& row :
         TsharkFields(dir + "/pfc.pcap",
                      "-Y macc",
                      {"macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c3"}))
    {
        ASSERT_LT(i, sent.size());
        EXPECT_EQ(std::stoul(row[0], nullptr, 16), 0x0101u) << i;
        EXPECT_EQ(std::stoul(row[1], nullptr, 16), 1u << sent[i].first) << i;
        EXPECT_EQ(std::stoul(row[2]), sent[i].second) << i;
        ++i;
    }
    EXPECT_EQ(i, sent.size());
    EXPECT_GT(std::count_if(sent.begin(), sent.end(), [](auto f) { return f.second == 20000; }), 0);
    EXPECT_GT(std::count_if(sent.begin(), sent.end(), [](auto f) { return f.second == 0; }), 0);
}

/// Outcome of a PFC storm from one NIC.
struct StormResult
{
    Time bystanderDone;           //!< when the flow to the healthy host finished
    uint64_t stormedDelivered{0}; //!< bytes delivered to the storming host
    uint64_t watchdogDrops{0};    //!< frames the watchdog dropped
    uint64_t storms{0};           //!< storms detected
    std::vector<bool> events;     //!< Storm trace: true at detection, false at the end
};

/**
 * \param result where to record
 * \param priority the priority
 * \param storm began or ended
 */
void
RecordStorm(StormResult* result, uint8_t /* priority */, bool storm)
{
    result->events.push_back(storm);
}

/**
 * \param result where to record
 * \param qp the responder
 */
void
RecordDone(StormResult* result, Ptr<RdmaQueuePair> qp, uint64_t /* bytes */)
{
    if (qp->GetDeliveredBytes() == 4u << 20)
    {
        result->bystanderDone = Simulator::Now();
    }
}

/**
 * \brief Host 0 writes to host 1, which pauses its switch port without end for 20 ms (a PFC
 *        storm: a stuck NIC), and to host 2, which is healthy.
 * \param watchdog the switch's PFC watchdog on
 * \return the outcome
 */
StormResult
Storm(bool watchdog)
{
    StormResult result;
    NodeContainer hosts;
    hosts.Create(3);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.SetPortPartAttribute("PfcWatchdog", "Enabled", BooleanValue(watchdog));
    fabric.SetPortPartAttribute("PfcWatchdog", "Detection", TimeValue(MilliSeconds(1)));
    fabric.SetPortPartAttribute("PfcWatchdog", "Restoration", TimeValue(MilliSeconds(1)));
    fabric.SetMmuAttribute("BufferSize", UintegerValue(1000000)); // less than a flow
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i < 3; ++i)
    {
        fabric.Connect(hosts.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(0));
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t dst : {1u, 2u})
    {
        Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(dst));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(4 << 20, dst);
        responders.push_back(b);
    }
    responders[1]->SetArrivalCallback(MakeBoundCallback(&RecordDone, &result));
    // The stuck NIC refreshes its pause (65535 quanta: 83.9 us at 400 Gb/s) every 40 us for
    // 20 ms.
    Ptr<RoceNetDevice> stuck = fabric.GetNic(hosts.Get(1));
    for (Time t; t < MilliSeconds(20); t += MicroSeconds(40))
    {
        Simulator::Schedule(t, &RoceNetDevice::SendPfc, stuck, 3, 65535);
    }
    Ptr<RoceSwitchPort> port = sw.Get(0)->GetObject<RoceSwitch>()->GetPort(1);
    port->GetPfcWatchdog()->TraceConnectWithoutContext("Storm",
                                                       MakeBoundCallback(&RecordStorm, &result));
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    result.stormedDelivered = responders[0]->GetDeliveredBytes();
    result.watchdogDrops
        = port->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::PFC_WATCHDOG)];
    result.storms = port->GetPfcStorms();
    Simulator::Destroy();
    return result;
}

// A NIC that never stops pausing spreads back-pressure: frames for it fill the switch's
// buffer, the switch pauses the sender, and the sender's flow to a healthy host stops too
// until the storm ends. With the watchdog, the stormed queue turns lossy after the detection
// time, the healthy flow finishes, the storm's end is seen, and the stormed flow recovers by
// retransmission.
TEST_F(PfcTest, WatchdogStopsAStormFromSpreading)
{
    const StormResult without = Storm(false);
    EXPECT_GT(without.bystanderDone, MilliSeconds(20));
    EXPECT_EQ(without.storms, 0u);
    EXPECT_EQ(without.watchdogDrops, 0u);
    EXPECT_EQ(without.stormedDelivered, 4u << 20);

    const StormResult with = Storm(true);
    EXPECT_LT(with.bystanderDone, MilliSeconds(5));
    EXPECT_EQ(with.storms, 1u);
    EXPECT_GT(with.watchdogDrops, 0u);
    EXPECT_EQ(with.events, (std::vector<bool>{true, false}));
    EXPECT_EQ(with.stormedDelivered, 4u << 20);
}

/// Outcome of an incast into a NIC whose host is slower than its link.
struct SlowHostResult
{
    uint64_t drops{0};       //!< frames dropped anywhere
    uint64_t nicPauses{0};   //!< PFC pauses the receiving NIC sent
    uint64_t delivered{0};   //!< bytes delivered
    uint64_t retransmits{0}; //!< packets sent again
    uint32_t maxRxBuffer{0}; //!< the NIC's receive buffer high-water mark
    Time finish;             //!< last byte delivered
};

/**
 * \param finish where to record
 * \param qp the responder
 * \param bytes the message
 */
void
RecordFinish(Time* finish, Ptr<RdmaQueuePair> /* qp */, uint64_t /* bytes */)
{
    *finish = std::max(*finish, Simulator::Now());
}

/**
 * \param rxPfc the receiving NIC pauses its switch port when its buffer fills
 * \return two senders writing 4 MB each to a 400 Gb/s NIC whose host takes 100 Gb/s
 */
SlowHostResult
SlowHost(bool rxPfc)
{
    NodeContainer hosts;
    hosts.Create(3);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i < 3; ++i)
    {
        fabric.Connect(hosts.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    Ptr<RoceNicPort> nic = fabric.GetNic(hosts.Get(2));
    nic->GetHostInterface()->SetAttribute("Rate", DataRateValue(DataRate("100Gbps")));
    nic->GetHostInterface()->SetAttribute("Pfc", BooleanValue(rxPfc));
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(2));
    std::vector<Ptr<RdmaQueuePair>> qps;
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(i));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(4 << 20, 1);
        qps.push_back(a);
        responders.push_back(b);
    }
    SlowHostResult r;
    for (const auto& b : responders)
    {
        b->SetArrivalCallback(MakeBoundCallback(&RecordFinish, &r.finish));
    }
    Simulator::Run();
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            r.drops += DynamicCast<FabricNetDevice>(node->GetDevice(d))->GetCounters().TotalDrops();
        }
    }
    r.nicPauses = nic->GetPfcPausesSent(3);
    for (uint32_t i = 0; i < 2; ++i)
    {
        r.delivered += responders[i]->GetDeliveredBytes();
        r.retransmits += qps[i]->GetRetransmissions();
    }
    r.maxRxBuffer = nic->GetRxBufferMaxBytes();
    Simulator::Destroy();
    return r;
}

// A NIC whose host takes frames at 100 Gb/s from a 400 Gb/s link pauses its switch port when
// its receive buffer fills: nothing is lost and the transfer runs at the host's rate. Without
// its pauses, the buffer overflows and the transport recovers the losses.
TEST_F(PfcTest, NicPausesWhenItsHostIsSlow)
{
    const SlowHostResult paced = SlowHost(true);
    EXPECT_EQ(paced.drops, 0u);
    EXPECT_GT(paced.nicPauses, 0u);
    EXPECT_EQ(paced.delivered, 8u << 20);
    EXPECT_EQ(paced.retransmits, 0u);
    EXPECT_LE(paced.maxRxBuffer, 262144u);
    // The host takes 8 MB of payload in frames of 4096 + 58 bytes (Ethernet without FCS,
    // IPv4, UDP, BTH, ICRC; the first of each message + 16 RETH) at 100 Gb/s; the rest of the
    // path adds microseconds.
    const double frames = 2.0 * (4 << 20) / 4096;
    const double seconds
        = (frames * (4096 + RoceNetDevice::ENCAPSULATION_BYTES + 12 + 4) + 2 * 16) * 8 / 100e9;
    EXPECT_GT(paced.finish.GetSeconds(), seconds);
    EXPECT_NEAR(paced.finish.GetSeconds(), seconds, seconds * 0.01);

    const SlowHostResult lossy = SlowHost(false);
    EXPECT_GT(lossy.drops, 0u);
    EXPECT_EQ(lossy.nicPauses, 0u);
    EXPECT_EQ(lossy.delivered, 8u << 20);
    EXPECT_GT(lossy.retransmits, 0u);
}
