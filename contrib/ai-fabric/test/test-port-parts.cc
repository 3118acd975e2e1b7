/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Ports composed of parts: a congestion marker written in this file replaces every port's
// own through the fabric helper and sees every forwarded frame; the markers' promise to be
// skipped (SetFloor) is withdrawn when a setting it rests on changes.

#include "ai-fabric-test-fixture.h"
#include "fabric-star.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/fabric-buffer-manager.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-congestion-marker.h"
#include "ns3/fabric-link-flow-control.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-fecn-marker.h"
#include "ns3/ib-nic-port.h"
#include "ns3/ib-switch-port.h"
#include "ns3/ib-switch.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/nvlink-credit-flow-control.h"
#include "ns3/nvlink-gpu-port.h"
#include "ns3/nvlink-net-device.h"
#include "ns3/nvlink-transport.h"
#include "ns3/nvswitch-port.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-ecn-marker.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-host-interface.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nic-port.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-pfc.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/server-helper.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// A marker that counts every forwarded frame as marked without writing anything: the
/// frames stay unmarked (no congestion control reacts), the port's count is every frame.
class CountEveryFrameMarker : public FabricCongestionMarker
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestCountEveryFrameMarker")
                                .SetParent<FabricCongestionMarker>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<CountEveryFrameMarker>()
                                .AddAttribute("Limit",
                                              "Count no frame that leaves more bytes behind.",
                                              UintegerValue(~uint32_t(0)),
                                              MakeUintegerAccessor(&CountEveryFrameMarker::m_limit),
                                              MakeUintegerChecker<uint32_t>());
        return tid;
    }

    bool Mark(Ptr<Packet>& /* p */, const FabricMarkContext& ctx) override
    {
        if (ctx.queuedBytes > m_limit)
        {
            return false;
        }
        NotifyMarked(ctx);
        return true;
    }

  private:
    uint32_t m_limit{0};
};

NS_OBJECT_ENSURE_REGISTERED(CountEveryFrameMarker);

/// \return an Ethernet II / IPv4 frame that is ECN-capable (ECT(0)), of 1000 bytes
Ptr<Packet>
EctFrame()
{
    Ptr<Packet> p = Create<Packet>(1000 - 14 - 20);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    ip.EnableChecksum();
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetLengthType(0x0800);
    p->AddHeader(eth);
    return p;
}

/// \return the ECN bits of an Ethernet II / IPv4 frame
uint8_t
EcnOf(Ptr<const Packet> p)
{
    uint8_t h[16];
    p->CopyData(h, sizeof(h));
    return h[15] & 0x3;
}

/// A buffer manager that admits every frame and keeps only the books: bytes admitted and
/// released per ingress port, releases announced ahead and cancelled.
class BookkeepingBufferManager : public FabricBufferManager
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestBookkeepingBufferManager")
                                .SetParent<FabricBufferManager>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<BookkeepingBufferManager>();
        return tid;
    }

    void SetPauseCallback(PauseCallback /* pause */) override {}

    void AddPort() override
    {
        held.push_back(0);
    }

    void SetPortLink(uint32_t /* port */, uint64_t bitRate, Time /* delay */) override
    {
        links += bitRate > 0 ? 1 : 0;
    }

    bool Admit(uint32_t port, uint8_t /* cls */, uint32_t bytes, FabricDropReason&) override
    {
        held.at(port) += bytes;
        admitted += bytes;
        return true;
    }

    void Release(uint32_t port, uint8_t /* cls */, uint32_t bytes) override
    {
        held.at(port) -= bytes;
        released += bytes;
    }

    void ReleaseAt(Time /* at */, uint32_t port, uint8_t cls, uint32_t bytes) override
    {
        Release(port, cls, bytes);
    }

    void CancelRelease(Time /* at */, uint32_t port, uint8_t /* cls */, uint32_t bytes) override
    {
        held.at(port) += bytes;
        released -= bytes;
    }

    bool IsLossless(uint8_t /* cls */) const override
    {
        return false;
    }

    uint32_t GetBytes(uint32_t port, uint8_t /* cls */) const override
    {
        return static_cast<uint32_t>(held.at(port));
    }

    uint64_t GetPausesSent() const override
    {
        return 0;
    }

    std::vector<uint64_t> held; //!< bytes held per ingress port
    uint64_t admitted{0};       //!< bytes admitted
    uint64_t released{0};       //!< bytes released
    uint32_t links{0};          //!< ports described
};

NS_OBJECT_ENSURE_REGISTERED(BookkeepingBufferManager);

class PortPartsTest : public AiFabricTest
{
};

} // namespace

// SetPortPart gives every port a marker of the test's type; the switch ports hand it every
// frame they forward (data one way, ACKs the other), NIC ports none: the marks counted at the
// switch equal the frames its ports sent, exactly.
TEST_F(PortPartsTest, HelperReplacesEveryPortsMarker)
{
    FabricStar<RoceFabricHelper> star(
        2,
        [](RoceFabricHelper& fabric)
        { fabric.SetPortPart("Marker", "ns3::TestCountEveryFrameMarker"); });
    auto [a, b] = star.Connect(0, 1);
    a->PostWrite(64 * 4096, 1);
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), 64u * 4096);
    Ptr<RoceSwitch> s = star.sw.Get(0)->GetObject<RoceSwitch>();
    uint64_t forwarded = 0;
    uint64_t marks = 0;
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        Ptr<RoceNetDevice> port = s->GetPort(i);
        EXPECT_NE(DynamicCast<CountEveryFrameMarker>(port->GetCongestionMarker()), nullptr);
        forwarded += port->GetCounters().txPackets;
        for (uint8_t prio = 0; prio < RoceNetDevice::N_PRIORITIES; ++prio)
        {
            forwarded -= port->GetPfcPausesSent(prio) + port->GetPfcReleasesSent(prio);
        }
        marks += port->GetCongestionMarks();
    }
    EXPECT_GE(forwarded, 64u); // 64 data frames and their ACKs
    EXPECT_EQ(marks, forwarded);
    for (uint32_t h = 0; h < 2; ++h)
    {
        EXPECT_EQ(star.fabric.GetNic(star.hosts.Get(h))->GetCongestionMarks(), 0u);
    }
}

// SetPortPartAttribute reaches the part the helper created, and refuses a part the fabric's
// ports do not have.
TEST_F(PortPartsTest, PartAttributesReachTheParts)
{
    FabricStar<RoceFabricHelper> star(
        1,
        [](RoceFabricHelper& fabric)
        {
            fabric.SetPortPart("Marker", "ns3::TestCountEveryFrameMarker");
            fabric.SetPortPartAttribute("Marker", "Limit", UintegerValue(12345));
            fabric.SetPortPartAttribute("PfcWatchdog", "Enabled", BooleanValue(true));
        });
    RoceFabricHelper& fabric = star.fabric;
    Ptr<RoceSwitchPort> port = star.sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
    UintegerValue limit;
    port->GetCongestionMarker()->GetAttribute("Limit", limit);
    EXPECT_EQ(limit.Get(), 12345u);
    BooleanValue on;
    port->GetPfcWatchdog()->GetAttribute("Enabled", on);
    EXPECT_TRUE(on.Get());
    EXPECT_DEATH(fabric.SetPortPartAttribute("NoSuchPart", "X", UintegerValue(1)),
                 "RoceNicPort and ns3::RoceSwitchPort have no part called NoSuchPart");
    IbFabricHelper ib;
    EXPECT_DEATH(ib.SetPortPartAttribute("PfcWatchdog", "Enabled", BooleanValue(true)),
                 "IbNicPort and ns3::IbSwitchPort have no part called PfcWatchdog");
}

// RED-style ECN: nothing at or below Kmin, always above Kmax; the marked copy carries CE and
// the original keeps ECT(0). Once Mark() has promised to skip frames below Kmin (MayMark
// false), a lower Kmin withdraws the promise.
TEST_F(PortPartsTest, EcnMarkerFloorFollowsItsSettings)
{
    Ptr<RoceEcnMarker> m = CreateObject<RoceEcnMarker>();
    m->SetAttribute("Kmin", UintegerValue(1000));
    m->SetAttribute("Kmax", UintegerValue(2000));
    const uint64_t rate = 400000000000ULL;
    FabricMarkContext ctx;
    ctx.bitRate = rate;
    ctx.queuedBytes = 500;
    ctx.frameBytes = 1000;
    Ptr<Packet> p = EctFrame();
    EXPECT_TRUE(m->MayMark(rate, 500)); // no promise before the first call
    EXPECT_FALSE(m->Mark(p, ctx));
    EXPECT_FALSE(m->MayMark(rate, 500));
    EXPECT_FALSE(m->MayMark(rate, 1000));
    EXPECT_TRUE(m->MayMark(rate, 1001));
    EXPECT_TRUE(m->MayMark(rate / 2, 500)); // another rate: thresholds may differ
    m->SetAttribute("Kmin", UintegerValue(100));
    m->SetAttribute("Kmax", UintegerValue(200));
    EXPECT_TRUE(m->MayMark(rate, 500));
    Ptr<Packet> original = p;
    EXPECT_TRUE(m->Mark(p, ctx)); // 500 > Kmax: always
    EXPECT_NE(p, original);
    EXPECT_EQ(EcnOf(p), 0x3);
    EXPECT_EQ(EcnOf(original), static_cast<uint8_t>(Ipv4Header::ECN_ECT0));
    EXPECT_EQ(m->GetMarks(), 1u);
    Ipv4Header ip; // the rewritten checksum is valid
    Ptr<Packet> q = p->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    ip.EnableChecksum();
    q->RemoveHeader(ip);
    EXPECT_TRUE(ip.IsChecksumOk());
    m->SetAttribute("Enabled", BooleanValue(false));
    EXPECT_TRUE(m->MayMark(rate, 500)); // the promise was withdrawn ...
    EXPECT_FALSE(m->Mark(p, ctx));      // ... and disabled, nothing is marked
    EXPECT_FALSE(m->MayMark(rate, 1000000));
    uint32_t kmin = 0;
    uint32_t kmax = 0;
    EXPECT_TRUE(m->GetThresholds(rate, kmin, kmax));
    EXPECT_EQ(kmin, 100u);
    EXPECT_EQ(kmax, 200u);
    m->SetAttribute("Kmin", UintegerValue(0));
    m->SetAttribute("Kmax", UintegerValue(0));
    EXPECT_TRUE(m->GetThresholds(rate, kmin, kmax)); // derived: 100 KB and 400 KB per 25 Gb/s
    EXPECT_EQ(kmin, 1600000u);
    EXPECT_EQ(kmax, 6400000u);
}

// IB congestion control off (Threshold 0): the marker promises to be skipped at once; a
// threshold withdraws the promise.
TEST_F(PortPartsTest, FecnMarkerOffIsSkipped)
{
    Ptr<IbFecnMarker> m = CreateObject<IbFecnMarker>();
    FabricMarkContext ctx;
    ctx.bitRate = 400000000000ULL;
    ctx.queuedBytes = 100000;
    ctx.frameBytes = 4096;
    ctx.classBufferBytes = 65536;
    Ptr<Packet> p = Create<Packet>(100);
    EXPECT_FALSE(m->Mark(p, ctx));
    EXPECT_FALSE(m->MayMark(ctx.bitRate, 100000));
    m->SetAttribute("Threshold", UintegerValue(8));
    EXPECT_TRUE(m->MayMark(ctx.bitRate, 100000));
    uint32_t kmin = 1;
    uint32_t kmax = 1;
    EXPECT_FALSE(m->GetThresholds(ctx.bitRate, kmin, kmax));
    EXPECT_EQ(kmin + kmax, 0u);
}

// Every switch is a FabricSwitch: ports, latency and (RoCEv2) its buffer manager, asked
// without knowing the fabric.
TEST_F(PortPartsTest, SwitchesShareOneBase)
{
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper roce;
    roce.InstallHosts(hosts);
    roce.InstallSwitches(sw);
    roce.Connect(hosts.Get(0), sw.Get(0));
    Ptr<FabricSwitch> s = sw.Get(0)->GetObject<FabricSwitch>();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->GetNPorts(), 1u);
    EXPECT_EQ(s->GetFabricPort(0)->GetRole(), FabricPortRole::SWITCH);
    EXPECT_EQ(s->GetPortLatency(), NanoSeconds(400));
    EXPECT_EQ(roce.GetSwitchLatency(sw.Get(0)), NanoSeconds(400));
    EXPECT_NE(DynamicCast<RoceSwitchMmu>(s->GetBufferManager()), nullptr);

    NodeContainer ibHosts;
    ibHosts.Create(1);
    NodeContainer ibSw;
    ibSw.Create(1);
    IbFabricHelper ib;
    ib.InstallHosts(ibHosts);
    ib.InstallSwitches(ibSw);
    ib.Connect(ibHosts.Get(0), ibSw.Get(0));
    Ptr<FabricSwitch> t = ibSw.Get(0)->GetObject<FabricSwitch>();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->GetNPorts(), 1u);
    EXPECT_EQ(t->GetBufferManager(), nullptr); // credits: the ports' own buffers
    EXPECT_EQ(ib.GetSwitchPausesSent(ibSw.Get(0)), 0u);
    EXPECT_EQ(ib.GetSwitchLatency(ibSw.Get(0)), t->GetPortLatency());
}

// A buffer manager written in this file replaces the RoCE switch's MMU: the switch admits
// every frame it forwards through it and releases each exactly once (the books balance to the
// byte, and every byte forwarded was admitted). It cannot be replaced once ports exist.
TEST_F(PortPartsTest, SwitchTakesAnyBufferManager)
{
    NodeContainer hosts;
    hosts.Create(3);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    Ptr<RoceSwitch> s = sw.Get(0)->GetObject<RoceSwitch>();
    Ptr<BookkeepingBufferManager> books = CreateObject<BookkeepingBufferManager>();
    s->SetAttribute("BufferManager", PointerValue(books));
    EXPECT_EQ(s->GetMmu(), nullptr);
    for (uint32_t h = 0; h < 3; ++h)
    {
        fabric.Connect(hosts.Get(h), sw.Get(0));
    }
    fabric.ComputeRoutes();
    Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(2));
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t h = 0; h < 2; ++h)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(h));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        a->PostWrite(256 * 1024, 1);
        responders.push_back(b);
    }
    Simulator::Run();
    for (const auto& b : responders)
    {
        EXPECT_EQ(b->GetDeliveredBytes(), 256u * 1024);
    }
    uint64_t forwardedBytes = 0;
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        forwardedBytes += s->GetPort(i)->GetCounters().txBytes;
    }
    EXPECT_EQ(books->links, 3u);
    EXPECT_GT(books->admitted, 2u * 256 * 1024);
    EXPECT_EQ(books->admitted, forwardedBytes); // no PFC: every byte out was admitted
    EXPECT_EQ(books->released, books->admitted);
    for (uint64_t held : books->held)
    {
        EXPECT_EQ(held, 0u);
    }
    EXPECT_DEATH(s->SetBufferManager(CreateObject<BookkeepingBufferManager>()),
                 "replaced before ports are added");
}

// RoCEv2's flow control is a part seen through FabricLinkFlowControl: a pause of 1000 quanta
// holds the NIC's priority 3 for exactly 1000 x 512 bit times at 400 Gb/s (1.28 us), counted
// at both ends.
TEST_F(PortPartsTest, PfcIsTheLinkFlowControl)
{
    FabricStar<RoceFabricHelper> star(1);
    Ptr<RoceNetDevice> nic = star.fabric.GetNic(star.hosts.Get(0));
    Ptr<RoceNetDevice> port = star.sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
    ASSERT_EQ(nic->GetDataRate(), DataRate("400Gbps"));
    Ptr<FabricLinkFlowControl> fc = nic->GetLinkFlowControl();
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc, nic->GetPfc());
    EXPECT_FALSE(fc->IsCreditBased());
    EXPECT_EQ(fc->GetNClasses(), 8u);
    Simulator::Schedule(Time(0), &RoceNetDevice::SendPfc, port, 3, 1000);
    bool heldMidway = false;
    bool blockedMidway = false;
    Simulator::Schedule(MicroSeconds(1),
                        [&]()
                        {
                            heldMidway = fc->IsHeld(3) && !fc->IsHeld(2);
                            blockedMidway = nic->IsClassBlocked(3);
                        });
    Simulator::Run();
    EXPECT_TRUE(heldMidway);
    EXPECT_TRUE(blockedMidway);
    EXPECT_FALSE(fc->IsHeld(3));
    EXPECT_EQ(fc->GetHeldTime(3), PicoSeconds(1280000));
    EXPECT_EQ(nic->GetPausedTime(3), PicoSeconds(1280000));
    EXPECT_EQ(fc->GetPausesReceived(3), 1u);
    EXPECT_EQ(nic->GetClassPausesReceived(3), 1u);
    EXPECT_EQ(port->GetClassPausesSent(3), 1u);
    EXPECT_EQ(port->GetPauseFramesSent(), 1u);
    EXPECT_EQ(nic->GetPauseFramesSent(), 0u);
}

// InfiniBand's per-VL credits are a credit-based FabricLinkFlowControl: the helper's VL buffer
// reaches every port's part. With a buffer of one 4 KB-MTU packet (65 blocks) and a 1 us cable,
// the sending adapter may start a packet only when the last one's credits came back: each of
// its packets but the first waits the credit round trip (2 us of cable) less its own
// serialization, which the part reports as the VL's time held. At the end every credit is back
// and nothing was dropped.
TEST_F(PortPartsTest, IbCreditsAreTheLinkFlowControl)
{
    std::string bufferError;
    FabricStar<IbFabricHelper> star(2,
                                    [&bufferError](IbFabricHelper& fabric)
                                    {
                                        bufferError = fabric.SetSwitchBuffer(4160);
                                        fabric.SetChannelAttribute("Delay",
                                                                   TimeValue(MicroSeconds(1)));
                                    });
    ASSERT_EQ(bufferError, "");
    Ptr<IbNetDevice> nic = star.fabric.GetNic(star.hosts.Get(0));
    Ptr<FabricLinkFlowControl> fc = nic->GetLinkFlowControl();
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc, nic->GetFlowControl());
    EXPECT_TRUE(fc->IsCreditBased());
    EXPECT_EQ(nic->GetCreditClasses(), nic->GetDataVls());
    EXPECT_EQ(fc->GetNClasses(), 8u);
    EXPECT_EQ(nic->GetVlBufferBytes(), 4160u);
    EXPECT_EQ(star.sw.Get(0)->GetObject<IbSwitch>()->GetPort(1)->GetVlBufferBytes(), 4160u);

    auto [a, b] = star.Connect(0, 1);
    const uint32_t packets = 64;
    a->PostWrite(packets * 4096, 0);
    bool heldMidway = false;
    Simulator::Schedule(MicroSeconds(5),
                        [&]() { heldMidway = fc->IsHeld(0) && nic->IsClassBlocked(0); });
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), packets * 4096u);
    EXPECT_TRUE(heldMidway);
    EXPECT_FALSE(fc->IsHeld(0));
    const Time txTime = nic->GetDataRate().CalculateBytesTxTime(4096 + 8 + 12 + 16 + 4 + 2);
    EXPECT_GE(fc->GetHeldTime(0), (packets - 1) * (MicroSeconds(2) - txTime));
    EXPECT_EQ(nic->GetCreditStallTime(0), fc->GetHeldTime(0));
    EXPECT_EQ(fc->GetHeldTime(1), Time(0));
    EXPECT_EQ(nic->GetAvailableCredits(0), 4160u / IbNetDevice::BLOCK_BYTES);
    EXPECT_EQ(fc->GetPausesSent(0), 0u);
    EXPECT_EQ(nic->GetPauseFramesSent(), 0u);
    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
}

// NVLink's credits are a credit-based FabricLinkFlowControl: the server helper sets its buffer
// through the part, and a buffer smaller than the credit round trip makes the sending GPU
// wait for credits, which the port reports through the interface.
TEST_F(PortPartsTest, NvLinkCreditsAreTheLinkFlowControl)
{
    ServerHelper server;
    server.SetPreset("dgx-h100");
    server.SetGpusPerServer(2);
    server.SetSingleSwitch(true);
    server.SetLinkDelay(MicroSeconds(1));
    server.SetPortPartAttribute("FlowControl", "BufferBytes", UintegerValue(200000));
    NodeContainer gpus;
    gpus.Create(2);
    server.Install(gpus);
    Ptr<NvLinkTransport> a = gpus.Get(0)->GetObject<NvLinkTransport>();
    Ptr<NvLinkNetDevice> port = a->GetPorts()[0];
    Ptr<FabricLinkFlowControl> fc = port->GetLinkFlowControl();
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc, port->GetFlowControl());
    EXPECT_TRUE(fc->IsCreditBased());
    EXPECT_EQ(port->GetCreditClasses(), 1u);
    EXPECT_EQ(port->GetBufferBytes(), 200000u);
    a->Send(1, 4 << 20, 42);
    Simulator::Run();
    EXPECT_GT(fc->GetHeldTime(0), Time(0));
    EXPECT_EQ(port->GetCreditStallTime(0), fc->GetHeldTime(0));
    EXPECT_EQ(port->GetCreditStallTime(), fc->GetHeldTime(0));
    EXPECT_FALSE(fc->IsHeld(0));
    EXPECT_EQ(port->GetCredits(), 200000u); // every credit came back
    EXPECT_DEATH(server.SetPortPartAttribute("Marker", "Kmin", UintegerValue(1)),
                 "NvLinkGpuPort and ns3::NvSwitchPort have no part called Marker");
}

// A part serves one port, and is replaced only before the simulation starts: a part given to
// two ports (an object factory's PointerValue would do that) and a part replaced on a running
// port are refused with a message. A replaced part is disposed: it stops watching the port.
TEST_F(PortPartsTest, PartsServeOnePortAndAreReplacedBeforeTheRun)
{
    Ptr<RoceSwitchPort> a = CreateObject<RoceSwitchPort>();
    Ptr<RoceSwitchPort> b = CreateObject<RoceSwitchPort>();
    Ptr<RoceEcnMarker> shared = CreateObject<RoceEcnMarker>();
    a->SetAttribute("Marker", PointerValue(shared));
    EXPECT_EQ(a->GetCongestionMarker(), shared);
    EXPECT_DEATH(b->SetAttribute("Marker", PointerValue(shared)), "given to two owners");
    Ptr<RocePfc> pfc = CreateObject<RocePfc>();
    a->SetAttribute("FlowControl", PointerValue(pfc));
    EXPECT_DEATH(b->SetAttribute("FlowControl", PointerValue(pfc)), "given to two owners");
    Ptr<RocePfcWatchdog> watchdog = CreateObject<RocePfcWatchdog>();
    a->SetPfcWatchdog(watchdog);
    EXPECT_DEATH(b->SetPfcWatchdog(watchdog), "given to two owners");
    Ptr<RocePfcWatchdog> replacement = CreateObject<RocePfcWatchdog>();
    a->SetPfcWatchdog(replacement);
    EXPECT_EQ(a->GetPfcWatchdog(), replacement);
    a->Initialize();
    EXPECT_DEATH(a->SetPfcWatchdog(CreateObject<RocePfcWatchdog>()),
                 "replaced after the simulation started");
    EXPECT_DEATH(a->SetAttribute("Marker", PointerValue(CreateObject<RoceEcnMarker>())),
                 "replaced after the simulation started");
}

// A port's role is its type: the fabric helpers make NIC ports and switch ports of their own
// classes, each with its role's attributes and parts; SetDeviceAttribute reaches the role
// types that have the attribute, and refuses one that neither has.
TEST_F(PortPartsTest, RolesAreTypes)
{
    NodeContainer hosts;
    hosts.Create(1);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper roce;
    roce.SetDeviceAttribute("MaxQueueBytes", UintegerValue(100000));         // NIC ports only
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("200Gbps"))); // both
    roce.InstallHosts(hosts);
    roce.InstallSwitches(sw);
    roce.Connect(hosts.Get(0), sw.Get(0));
    Ptr<RoceNicPort> nic = roce.GetNic(hosts.Get(0));
    Ptr<RoceSwitchPort> port = sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
    EXPECT_EQ(nic->GetInstanceTypeId(), RoceNicPort::GetTypeId());
    EXPECT_EQ(port->GetInstanceTypeId(), RoceSwitchPort::GetTypeId());
    EXPECT_EQ(nic->GetRole(), FabricPortRole::HOST);
    EXPECT_EQ(port->GetRole(), FabricPortRole::SWITCH);
    EXPECT_EQ(nic->GetMaxQueueBytes(), 100000u);
    EXPECT_EQ(nic->GetDataRate(), DataRate("200Gbps"));
    EXPECT_EQ(port->GetDataRate(), DataRate("200Gbps"));
    EXPECT_NE(nic->GetHostInterface(), nullptr);
    EXPECT_NE(port->GetPfcWatchdog(), nullptr);
    TypeId::AttributeInformation info;
    EXPECT_FALSE(RoceSwitchPort::GetTypeId().LookupAttributeByName("HostInterface", &info));
    EXPECT_FALSE(RoceNicPort::GetTypeId().LookupAttributeByName("PfcWatchdog", &info));
    EXPECT_DEATH(roce.SetDeviceAttribute("NoSuchAttribute", UintegerValue(1)),
                 "its ports have no attribute NoSuchAttribute");

    NodeContainer ibHosts;
    ibHosts.Create(1);
    NodeContainer ibSw;
    ibSw.Create(1);
    IbFabricHelper ib;
    ib.SetDeviceAttribute("Vl15BufferBytes", UintegerValue(580)); // switch ports only
    ib.SetDeviceAttribute("Sl", UintegerValue(3));                // adapter ports only
    ib.InstallHosts(ibHosts);
    ib.InstallSwitches(ibSw);
    ib.Connect(ibHosts.Get(0), ibSw.Get(0));
    Ptr<IbNicPort> hca = ib.GetNic(ibHosts.Get(0));
    Ptr<IbSwitchPort> ibPort = ibSw.Get(0)->GetObject<IbSwitch>()->GetPort(0);
    EXPECT_EQ(hca->GetRole(), FabricPortRole::HOST);
    EXPECT_EQ(ibPort->GetRole(), FabricPortRole::SWITCH);
    UintegerValue value;
    hca->GetAttribute("Sl", value);
    EXPECT_EQ(value.Get(), 3u);
    ibPort->GetAttribute("Vl15BufferBytes", value);
    EXPECT_EQ(value.Get(), 580u);
    EXPECT_FALSE(IbNicPort::GetTypeId().LookupAttributeByName("Vl15BufferBytes", &info));

    ServerHelper server;
    server.SetPreset("dgx-h100");
    server.SetGpusPerServer(2);
    server.SetSingleSwitch(true);
    NodeContainer gpus;
    gpus.Create(2);
    server.Install(gpus);
    Ptr<NvLinkGpuPort> gpuPort = gpus.Get(0)->GetObject<NvLinkTransport>()->GetPorts()[0];
    EXPECT_EQ(gpuPort->GetRole(), FabricPortRole::HOST);
    Ptr<NvSwitchPort> chipPort
        = DynamicCast<NvSwitchPort>(gpuPort->GetFabricChannel()->GetPeer(PeekPointer(gpuPort)));
    ASSERT_NE(chipPort, nullptr);
    EXPECT_EQ(chipPort->GetRole(), FabricPortRole::SWITCH);
}
