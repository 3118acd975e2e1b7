/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/fabric-strict-priority-scheduler.h"
#include "ns3/frame-bytes-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "pfc-header.h"
#include "roce-ecn-marker.h"
#include "roce-host-interface.h"
#include "roce-pfc-watchdog.h"
#include "roce-pfc.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

namespace
{
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
constexpr uint8_t IP_PROTO_UDP = 17;
constexpr uint8_t ECN_ECT0 = 0x2;
constexpr uint8_t ECN_CE = 0x3;
} // namespace

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceNetDevice")
              .SetParent<FabricNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceNetDevice>()
              .AddAttribute(
                  "MaxQueueBytes",
                  "Byte limit of each output queue of a port that no switch MMU manages (NIC "
                  "ports), drop-tail (bytes). Switch ports are governed by their switch's "
                  "RoceSwitchMmu instead. Default 656250: a 42 MB buffer divided evenly over "
                  "64 ports.",
                  UintegerValue(656250),
                  MakeUintegerAccessor(&RoceNetDevice::m_maxQueueBytes),
                  MakeUintegerChecker<uint32_t>(ETHERNET_MIN_FRAME_BYTES))
              .AddAttribute("RdmaDscp",
                            "IPv4 DSCP of RDMA data packets (priority = DSCP / 8). Default 26, "
                            "the RoCE traffic class that ConnectX NICs and SONiC use "
                            "(priority 3).",
                            UintegerValue(26),
                            MakeUintegerAccessor(&RoceNetDevice::m_rdmaDscp),
                            MakeUintegerChecker<uint8_t>(0, 63))
              .AddAttribute("ControlDscp",
                            "IPv4 DSCP of ACK, NAK and CNP packets, served in strict priority "
                            "(priority = DSCP / 8). Default 48, ConnectX's CNP DSCP "
                            "(priority 6).",
                            UintegerValue(48),
                            MakeUintegerAccessor(&RoceNetDevice::m_controlDscp),
                            MakeUintegerChecker<uint8_t>(0, 63))
              .AddAttribute("Marker",
                            "The congestion marker of the port's output queues: ECN at a "
                            "switch port's dequeue (RoceEcnMarker, its Enabled, Kmin, Kmax and "
                            "Pmax attributes). NIC ports never mark.",
                            PointerValue(),
                            MakePointerAccessor(&RoceNetDevice::SetMarker,
                                                &RoceNetDevice::GetCongestionMarker),
                            MakePointerChecker<FabricCongestionMarker>())
              .AddAttribute(
                  "Scheduler",
                  "The egress scheduler of the port's 8 priority queues: strict "
                  "priority (FabricStrictPriorityScheduler), IEEE 802.1Q's default "
                  "and what RoCE fabrics configure for the lossless class.",
                  PointerValue(),
                  MakePointerAccessor(&RoceNetDevice::SetScheduler, &RoceNetDevice::GetScheduler),
                  MakePointerChecker<FabricEgressScheduler>())
              .AddAttribute("FlowControl",
                            "The port's priority flow control (RocePfc): the pauses its peer "
                            "sent and the PFC frames it sends, with their Sent and Received "
                            "trace sources.",
                            PointerValue(),
                            MakePointerAccessor(&RoceNetDevice::SetPfc, &RoceNetDevice::GetPfc),
                            MakePointerChecker<RocePfc>())
              .AddAttribute("PfcWatchdog",
                            "The PFC watchdog of a switch port (RocePfcWatchdog: its Enabled, "
                            "off by default as in SONiC, Detection and Restoration attributes "
                            "and its Storm trace source).",
                            PointerValue(),
                            MakePointerAccessor(&RoceNetDevice::SetPfcWatchdog,
                                                &RoceNetDevice::GetPfcWatchdog),
                            MakePointerChecker<RocePfcWatchdog>())
              .AddAttribute("HostInterface",
                            "The host side of a NIC port: the PCIe and memory path that takes "
                            "received frames and the receive buffer before it "
                            "(RoceHostInterface: its Rate, 0 by default: the host keeps up, "
                            "BufferBytes, Pfc, XonOffset and ResponseQuanta attributes).",
                            PointerValue(),
                            MakePointerAccessor(&RoceNetDevice::SetHostInterface,
                                                &RoceNetDevice::GetHostInterface),
                            MakePointerChecker<RoceHostInterface>())
              .AddTraceSource("QueueBytes",
                              "Occupancy of an output queue changed: (priority, bytes).",
                              MakeTraceSourceAccessor(&RoceNetDevice::m_queueTrace),
                              "ns3::RoceNetDevice::QueueTracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
{
    NS_LOG_FUNCTION(this);
    SetFraming(ETHERNET_OVERHEAD_BYTES, ETHERNET_MIN_FRAME_BYTES);
    SetMarker(CreateObject<RoceEcnMarker>());
    SetPfc(CreateObject<RocePfc>());
    SetScheduler(CreateObject<FabricStrictPriorityScheduler>());
    // The parts of a role come with the role: the watchdog when a switch adopts the port
    // (AttachToSwitch()), the host interface when it gets its transport (SetTransport()).
    // Jumbo frames, as RoCE fabrics are configured for a 4096-byte RDMA MTU.
    SetMtu(JUMBO_MTU);
}

RoceNetDevice::~RoceNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
RoceNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_transport)
    {
        m_transport->Dispose(); // the NIC owns its transport, and so its QPs
    }
    m_transport = nullptr;
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    m_withdrawalCb = DepartureCallback();
    m_macControl.clear();
    // The parts are disposed but kept, so that their counters can still be read.
    if (m_marker)
    {
        m_marker->Dispose();
    }
    if (m_host)
    {
        m_host->Dispose();
    }
    if (m_pfc)
    {
        m_pfc->Dispose();
    }
    if (m_pfcWatchdog)
    {
        m_pfcWatchdog->Dispose();
    }
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
    m_transportFrame = nullptr;
    for (auto& q : m_queues)
    {
        q.clear();
    }
    FabricNetDevice::DoDispose();
}

Mac48Address
RoceNetDevice::MacFromIpv4(Ipv4Address address)
{
    uint8_t mac[6] = {0x02, 0x00, 0, 0, 0, 0};
    address.Serialize(mac + 2);
    Mac48Address m;
    m.CopyFrom(mac);
    return m;
}

void
RoceNetDevice::SetIpv4Address(Ipv4Address address)
{
    m_ipv4 = address;
    m_address = MacFromIpv4(address);
}

Ipv4Address
RoceNetDevice::GetIpv4Address() const
{
    return m_ipv4;
}

void
RoceNetDevice::SetTransport(Ptr<RdmaTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
    if (!m_host)
    {
        SetHostInterface(CreateObject<RoceHostInterface>());
    }
    m_transport->AttachPort(GetDataRate(),
                            ENCAPSULATION_BYTES + ETHERNET_OVERHEAD_BYTES,
                            MakeCallback(&RoceNetDevice::SendRdmaControl, this),
                            MakeCallback(&RoceNetDevice::DataReady, this));
}

Ptr<RdmaTransport>
RoceNetDevice::GetTransport() const
{
    return m_transport;
}

void
RoceNetDevice::AttachToSwitch(ForwardCallback forward,
                              DepartureCallback departure,
                              DepartureCallback withdrawal)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull() && !withdrawal.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
    m_withdrawalCb = withdrawal;
    SetRole(FabricPortRole::SWITCH);
    if (!m_pfcWatchdog)
    {
        SetPfcWatchdog(CreateObject<RocePfcWatchdog>());
    }
    // A switch port chooses forwarded frames ahead of their pipeline latency; a PFC pause
    // that arrives before one starts takes it back.
    SetWithdrawable(true);
}

uint32_t
RoceNetDevice::GetMaxQueueBytes() const
{
    return m_maxQueueBytes;
}

const RoceQueueCounters&
RoceNetDevice::GetQueueCounters(uint8_t priority) const
{
    NS_ASSERT(priority < N_PRIORITIES);
    return m_queueCounters[priority];
}

void
RoceNetDevice::DataReady()
{
    TryTransmit();
}

void
RoceNetDevice::EncapsulateRdma(Ptr<Packet> p, const RdmaPacketMeta& meta, uint8_t dscp)
{
    // Ethernet II, IPv4 and UDP, byte for byte what ns-3's EthernetHeader, Ipv4Header and
    // UdpHeader write (TestRoceFrames compares them), in one step (FrameBytesHeader).
    const uint32_t udpLength = p->GetSize() + 8;
    const uint32_t ipLength = udpLength + 20;
    FrameBytesHeader h;
    uint8_t* b = h.Prepare(ENCAPSULATION_BYTES);
    // Ethernet: the destination MAC derives from its IPv4 address (MacFromIpv4)
    b[0] = 0x02;
    b[1] = 0x00;
    b[2] = static_cast<uint8_t>(meta.dstAddress >> 24);
    b[3] = static_cast<uint8_t>(meta.dstAddress >> 16);
    b[4] = static_cast<uint8_t>(meta.dstAddress >> 8);
    b[5] = static_cast<uint8_t>(meta.dstAddress);
    m_address.CopyTo(b + 6);
    b[12] = static_cast<uint8_t>(ETHERTYPE_IPV4 >> 8);
    b[13] = static_cast<uint8_t>(ETHERTYPE_IPV4);
    // IPv4: no options, identification 0, DF, TTL 64. Data is ECN-capable (ECT(0)) so that
    // switches can mark it; control packets are not.
    uint8_t* ip = b + 14;
    ip[0] = 0x45;
    ip[1] = static_cast<uint8_t>((dscp << 2) | (meta.control ? 0 : ECN_ECT0));
    ip[2] = static_cast<uint8_t>(ipLength >> 8);
    ip[3] = static_cast<uint8_t>(ipLength);
    ip[4] = 0;
    ip[5] = 0;
    ip[6] = 0x40;
    ip[7] = 0;
    ip[8] = 64;
    ip[9] = IP_PROTO_UDP;
    ip[10] = 0;
    ip[11] = 0;
    for (int k = 0; k < 4; ++k)
    {
        ip[12 + k] = static_cast<uint8_t>(meta.srcAddress >> (24 - 8 * k));
        ip[16 + k] = static_cast<uint8_t>(meta.dstAddress >> (24 - 8 * k));
    }
    const uint16_t checksum = FrameBytesHeader::InternetChecksum(ip, 20);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
    // UDP: RoCEv2's destination port, the entropy as source port, no checksum (the ICRC
    // covers the packet)
    uint8_t* udp = ip + 20;
    udp[0] = static_cast<uint8_t>(meta.entropy >> 8);
    udp[1] = static_cast<uint8_t>(meta.entropy);
    udp[2] = static_cast<uint8_t>(ROCEV2_UDP_PORT >> 8);
    udp[3] = static_cast<uint8_t>(ROCEV2_UDP_PORT);
    udp[4] = static_cast<uint8_t>(udpLength >> 8);
    udp[5] = static_cast<uint8_t>(udpLength);
    udp[6] = 0;
    udp[7] = 0;
    p->AddHeader(h);
}

void
RoceNetDevice::SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    EncapsulateRdma(p, meta, m_controlDscp);
    if (Enqueue(p, m_controlDscp >> 3, NO_INGRESS, true, m_controlDscp >> 3))
    {
        TryTransmit();
    }
}

void
RoceNetDevice::SetMarker(Ptr<FabricCongestionMarker> marker)
{
    marker->Adopt(this);
    if (m_marker)
    {
        m_marker->Dispose();
    }
    m_marker = marker;
}

Ptr<FabricCongestionMarker>
RoceNetDevice::GetCongestionMarker() const
{
    return m_marker;
}

void
RoceNetDevice::SetScheduler(Ptr<FabricEgressScheduler> scheduler)
{
    scheduler->Adopt(this);
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
    m_scheduler = scheduler;
}

Ptr<FabricEgressScheduler>
RoceNetDevice::GetScheduler() const
{
    return m_scheduler;
}

bool
RoceNetDevice::Enqueue(
    Ptr<Packet> p, uint8_t priority, uint16_t ingress, bool limit, uint8_t inPriority)
{
    RoceQueueCounters& c = m_queueCounters[priority];
    const uint32_t size = p->GetSize();
    if (limit && c.bytes + size > m_maxQueueBytes)
    {
        ++c.droppedPackets;
        CountDrop(p, FabricDropReason::QUEUE_FULL);
        return false;
    }
    if (ingress != NO_INGRESS && m_pfcWatchdog->IsInStorm(priority))
    {
        DropInStorm(p, priority, ingress, inPriority);
        return false;
    }
    m_queues[priority].push_back({p, ingress, inPriority});
    m_nonEmpty |= static_cast<uint8_t>(1U << priority);
    ++c.enqueuedPackets;
    c.enqueuedBytes += size;
    c.bytes += size;
    if (c.bytes > c.maxBytes)
    {
        c.maxBytes = c.bytes;
    }
    m_queueTrace(priority, c.bytes);
    return true;
}

void
RoceNetDevice::DoLinkChange(bool up)
{
    // The peer's pauses end with the link; what waits for a link that went down is
    // discarded (LinkDown drops), and the switch frees its buffer.
    m_pfc->ReleaseAll(Simulator::Now());
    if (up)
    {
        return;
    }
    for (uint8_t prio = 0; prio < N_PRIORITIES; ++prio)
    {
        auto& q = m_queues[prio];
        while (!q.empty())
        {
            const QueuedFrame f = q.front();
            q.pop_front();
            const uint32_t size = f.packet->GetSize();
            m_queueCounters[prio].bytes -= size;
            CountDrop(f.packet, FabricDropReason::LINK_DOWN);
            if (f.ingress != NO_INGRESS)
            {
                m_departureCb(f.ingress, f.inPriority, size, Simulator::Now());
            }
        }
        m_queueTrace(prio, m_queueCounters[prio].bytes);
    }
    m_nonEmpty = 0;
    m_macControl.clear();
}

bool
RoceNetDevice::EnqueueForwarded(
    Ptr<Packet> p, uint8_t priority, uint16_t ingress, bool limit, uint8_t ingressPriority)
{
    NS_ASSERT(priority < N_PRIORITIES);
    if (!IsLinkUp())
    {
        // Routed to a port whose link is down (before the reroute): dropped.
        CountDrop(p, FabricDropReason::LINK_DOWN);
        if (ingress != NO_INGRESS)
        {
            m_departureCb(ingress,
                          ingressPriority == 0xFF ? priority : ingressPriority,
                          p->GetSize(),
                          Simulator::Now());
        }
        return false;
    }
    if (!Enqueue(p, priority, ingress, limit, ingressPriority == 0xFF ? priority : ingressPriority))
    {
        return false;
    }
    TryTransmit();
    return true;
}

void
RoceNetDevice::EnqueueAfter(Time delay,
                            Ptr<Packet> p,
                            uint8_t priority,
                            uint16_t ingress,
                            uint8_t inPriority,
                            bool pausable)
{
    NS_ASSERT(priority < N_PRIORITIES);
    // Frames still in the pipeline as events go first: order is kept. A frame a PFC pause may
    // hold is chosen ahead only where a pause can take it back (a switch port).
    if ((!pausable || IsSwitchPort()) && m_delayedEnqueues == 0 && !IsCompletionPerFrame()
        && IsLinkUp() && !m_pfcWatchdog->IsInStorm(priority))
    {
        const Time ready = Simulator::Now() + delay;
        if (Enqueue(p, priority, ingress, false, inPriority))
        {
            m_queues[priority].back().ready = ready;
            if (m_nonEmpty == (1U << priority) && m_queues[priority].size() == 1
                && m_macControl.empty() && !IsPaused(priority) && CanChooseAhead(ready))
            {
                TransmitAhead(); // alone in the queue: it leaves when ready or the wire frees
                return;
            }
            TryTransmit();
        }
        return;
    }
    ++m_delayedEnqueues;
    Simulator::Schedule(
        delay, &RoceNetDevice::DelayedEnqueue, this, p, priority, ingress, inPriority);
}

void
RoceNetDevice::DelayedEnqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, priority, ingress, false, inPriority);
}

bool
RoceNetDevice::HasPendingFrames() const
{
    return m_nonEmpty != 0 || !m_macControl.empty() || (m_transport && m_transport->HasReadyData());
}

void
RoceNetDevice::DoWithdraw(Ptr<Packet> p, uint32_t cookie, Time ready, Time start)
{
    const auto priority = static_cast<uint8_t>(cookie >> 24);
    const auto inPriority = static_cast<uint8_t>(cookie >> 16);
    const auto ingress = static_cast<uint16_t>(cookie);
    NS_ASSERT(priority < N_PRIORITIES);
    const uint32_t size = p->GetSize();
    if (ingress != NO_INGRESS)
    {
        m_withdrawalCb(ingress, inPriority, size, start); // it does not leave then
    }
    if (m_pfcWatchdog->IsInStorm(priority))
    {
        // The queue turned lossy meanwhile: it holds nothing.
        DropInStorm(p, priority, ingress, inPriority);
        return;
    }
    QueuedFrame f{p, ingress, inPriority, ready};
    f.withdrawn = true;
    m_queues[priority].push_front(f);
    m_nonEmpty |= static_cast<uint8_t>(1U << priority);
    RoceQueueCounters& c = m_queueCounters[priority];
    c.bytes += size;
    if (c.bytes > c.maxBytes)
    {
        c.maxBytes = c.bytes;
    }
    m_queueTrace(priority, c.bytes);
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    return m_pfc->IsPaused(priority, Simulator::Now());
}

uint32_t
RoceNetDevice::GetNTrafficClasses() const
{
    return N_PRIORITIES;
}

const char*
RoceNetDevice::GetTrafficClassName() const
{
    return "prio";
}

uint64_t
RoceNetDevice::GetClassQueuedBytes(uint8_t cls) const
{
    return cls < N_PRIORITIES ? m_queueCounters[cls].bytes : 0;
}

void
RoceNetDevice::GetClassSources(uint8_t cls,
                               std::vector<std::pair<uint16_t, uint8_t>>& sources) const
{
    sources.clear();
    if (cls >= N_PRIORITIES)
    {
        return;
    }
    for (const QueuedFrame& f : m_queues[cls])
    {
        const std::pair<uint16_t, uint8_t> s(f.ingress, f.inPriority);
        if (f.ingress != NO_INGRESS
            && std::find(sources.begin(), sources.end(), s) == sources.end())
        {
            sources.push_back(s);
        }
    }
}

Ptr<Packet>
RoceNetDevice::DequeueForTransmit()
{
    if (!m_macControl.empty())
    {
        // MAC control frames are not subject to pauses and go first.
        Ptr<Packet> p = m_macControl.front();
        m_macControl.pop_front();
        return p;
    }
    const Time now = Simulator::Now();
    const RocePfc& pfc = *m_pfc;
    // A forwarded frame is sendable from its ready time (EnqueueAfter): only heads ready by
    // now compete; if none is, the one ready first goes (the only one there, before issue 13).
    m_readyLimit = now;
    if (m_nonEmpty != 0 && IsSwitchPort())
    {
        bool anyReady = false;
        Time earliest = Time::Max();
        for (uint8_t prio = 0; prio < N_PRIORITIES; ++prio)
        {
            if ((m_nonEmpty & (1U << prio)) && !pfc.IsPaused(prio, now))
            {
                const Time ready = m_queues[prio].front().ready;
                anyReady = anyReady || ready <= now;
                earliest = std::min(earliest, ready);
            }
        }
        if (!anyReady && earliest != Time::Max())
        {
            m_readyLimit = earliest;
        }
    }
    // The scheduler asks the priorities in its order (IsSendable): those with frames, and on
    // a NIC port the RDMA priority, whose frames the transport makes when asked.
    uint32_t candidates = m_nonEmpty;
    if (m_transport)
    {
        candidates |= 1U << (m_rdmaDscp >> 3);
    }
    const int32_t chosen = m_scheduler->Select(*this, N_PRIORITIES, candidates);
    if (chosen < 0)
    {
        return nullptr;
    }
    const auto prio = static_cast<uint8_t>(chosen);
    if (m_transportFrame)
    {
        Ptr<Packet> p = std::move(m_transportFrame);
        m_transportFrame = nullptr;
        m_scheduler->Served(prio, p->GetSize());
        return p;
    }
    auto& q = m_queues[prio];
    QueuedFrame f = std::move(q.front());
    q.pop_front();
    SetFrameReady(f.ready,
                  (static_cast<uint32_t>(prio) << 24) | (static_cast<uint32_t>(f.inPriority) << 16)
                      | f.ingress);
    if (q.empty())
    {
        m_nonEmpty &= static_cast<uint8_t>(~(1U << prio));
    }
    RoceQueueCounters& c = m_queueCounters[prio];
    const uint32_t size = f.packet->GetSize();
    c.bytes -= size;
    m_queueTrace(prio, c.bytes);
    if (f.ingress != NO_INGRESS)
    {
        const uint64_t rate = GetDataRate().GetBitRate();
        if (!f.withdrawn && m_marker->MayMark(rate, c.bytes))
        {
            // Marking at dequeue, on the queue the frame leaves behind: the mark travels
            // without waiting behind the queue that caused it.
            FabricMarkContext ctx;
            ctx.bitRate = rate;
            ctx.queuedBytes = c.bytes;
            ctx.frameBytes = size;
            ctx.cls = prio;
            if (m_marker->Mark(f.packet, ctx))
            {
                ++c.ecnMarked;
            }
        }
        // Its buffer is freed when its first bit leaves (later, if chosen ahead).
        m_departureCb(f.ingress, f.inPriority, size, std::max({now, GetTransmitEnd(), f.ready}));
    }
    m_scheduler->Served(prio, size);
    return f.packet;
}

bool
RoceNetDevice::IsSendable(uint8_t cls)
{
    if (m_pfc->IsPaused(cls, Simulator::Now()))
    {
        return false; // the peer paused this priority
    }
    if ((m_nonEmpty & (1U << cls)) && m_queues[cls].front().ready <= m_readyLimit)
    {
        return true;
    }
    if (cls == (m_rdmaDscp >> 3) && m_transport)
    {
        RdmaPacketMeta meta;
        Ptr<Packet> p = m_transport->DequeueData(meta);
        if (p)
        {
            EncapsulateRdma(p, meta, m_rdmaDscp);
            m_transportFrame = std::move(p);
            return true;
        }
    }
    return false;
}

void
RoceNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    NS_ASSERT(priority < N_PRIORITIES);
    if (!IsLinkUp())
    {
        return; // no peer to pause while the link is down
    }
    Ptr<Packet> p = m_pfc->MakeFrame(priority, quanta, m_address);
    if (SendInGap(p))
    {
        return; // sent while a forwarded frame is still in the pipeline
    }
    m_macControl.push_back(p);
    TryTransmit();
}

void
RoceNetDevice::ReceivePfc(Ptr<Packet> p)
{
    uint32_t paused = 0;
    if (!m_pfc->Receive(p, GetDataRate().GetBitRate(), paused))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    if (paused != 0 && IsSwitchPort())
    {
        // Frames chosen ahead that have not started are held, as if still in the pipeline.
        WithdrawUnstarted(paused);
    }
    TryTransmit();
}

void
RoceNetDevice::SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog)
{
    watchdog->SetPort(this); // adopts it (FabricAdoptPart)
    if (m_pfcWatchdog)
    {
        m_pfcWatchdog->Dispose();
    }
    m_pfcWatchdog = watchdog;
}

Ptr<RocePfcWatchdog>
RoceNetDevice::GetPfcWatchdog() const
{
    return m_pfcWatchdog;
}

Time
RoceNetDevice::GetPauseStart(uint8_t priority) const
{
    return m_pfc->GetPauseStart(priority);
}

void
RoceNetDevice::SetPfc(Ptr<RocePfc> pfc)
{
    pfc->Adopt(this);
    if (m_pfc)
    {
        m_pfc->Dispose();
    }
    m_pfc = pfc;
    m_pfc->SetCallbacks(MakeCallback(&RoceNetDevice::PauseArrived, this),
                        MakeCallback(&RoceNetDevice::PauseExpired, this));
}

Ptr<RocePfc>
RoceNetDevice::GetPfc() const
{
    return m_pfc;
}

Ptr<FabricLinkFlowControl>
RoceNetDevice::GetLinkFlowControl() const
{
    return m_pfc;
}

void
RoceNetDevice::PauseArrived(uint8_t priority)
{
    if (IsSwitchPort())
    {
        m_pfcWatchdog->OnPause(priority);
    }
}

void
RoceNetDevice::EnterPfcStorm(uint8_t priority)
{
    auto& q = m_queues[priority];
    while (!q.empty())
    {
        const QueuedFrame f = q.front();
        q.pop_front();
        m_queueCounters[priority].bytes -= f.packet->GetSize();
        DropInStorm(f.packet, priority, f.ingress, f.inPriority);
    }
    m_nonEmpty &= static_cast<uint8_t>(~(1U << priority));
    m_queueTrace(priority, m_queueCounters[priority].bytes);
}

void
RoceNetDevice::DropInStorm(const Ptr<Packet>& f,
                           uint8_t priority,
                           uint16_t ingress,
                           uint8_t inPriority)
{
    ++m_queueCounters[priority].droppedPackets;
    CountDrop(f, FabricDropReason::PFC_WATCHDOG);
    if (ingress != NO_INGRESS)
    {
        m_departureCb(ingress, inPriority, f->GetSize(), Simulator::Now()); // frees its buffer
    }
}

uint64_t
RoceNetDevice::GetPfcStorms() const
{
    return m_pfcWatchdog ? m_pfcWatchdog->GetStorms() : 0;
}

bool
RoceNetDevice::IsInPfcStorm(uint8_t priority) const
{
    return m_pfcWatchdog && m_pfcWatchdog->IsInStorm(priority);
}

void
RoceNetDevice::PauseExpired(uint8_t /* priority */)
{
    TryTransmit(); // the part calls only when no newer pause holds the priority
}

uint64_t
RoceNetDevice::GetPfcPausesSent(uint8_t priority) const
{
    return m_pfc->GetPausesSent(priority);
}

uint64_t
RoceNetDevice::GetPfcReleasesSent(uint8_t priority) const
{
    return m_pfc->GetReleasesSent(priority);
}

uint64_t
RoceNetDevice::GetPfcFramesReceived(uint8_t priority) const
{
    return m_pfc->GetPausesReceived(priority);
}

Time
RoceNetDevice::GetPausedTime(uint8_t priority) const
{
    return m_pfc->GetHeldTime(priority); // a pause still running counts only up to now
}

void
RoceNetDevice::DoReceive(Ptr<Packet> p)
{
    // Read the fixed-format Ethernet/IPv4/UDP headers without deserializing objects.
    uint8_t h[ENCAPSULATION_BYTES];
    const uint32_t n = p->CopyData(h, ENCAPSULATION_BYTES);
    const uint16_t etherType = static_cast<uint16_t>((h[12] << 8) | h[13]);
    if (etherType == PfcHeader::ETHERTYPE_MAC_CONTROL)
    {
        ReceivePfc(p); // MAC control frames end at the port that receives them
        return;
    }
    if (IsSwitchPort())
    {
        m_forwardCb(this, p);
        return;
    }
    if (m_transport && n == ENCAPSULATION_BYTES && etherType == ETHERTYPE_IPV4 && h[14] == 0x45
        && h[23] == IP_PROTO_UDP && ((h[36] << 8) | h[37]) == ROCEV2_UDP_PORT)
    {
        RdmaPacketMeta meta;
        meta.srcAddress
            = (uint32_t(h[26]) << 24) | (uint32_t(h[27]) << 16) | (uint32_t(h[28]) << 8) | h[29];
        meta.dstAddress
            = (uint32_t(h[30]) << 24) | (uint32_t(h[31]) << 16) | (uint32_t(h[32]) << 8) | h[33];
        meta.entropy = static_cast<uint16_t>((h[34] << 8) | h[35]);
        meta.congestionMarked = (h[15] & 0x3) == ECN_CE;
        if (meta.dstAddress != m_ipv4.Get())
        {
            CountDrop(p, FabricDropReason::NOT_FOR_US);
            return;
        }
        if (m_host->IsLimited())
        {
            m_host->Receive(p, meta); // the host takes it later, through its receive buffer
            return;
        }
        DeliverToTransport(p, meta);
        return;
    }
    if (m_rxCallback.IsNull())
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    Ptr<Packet> q = p->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    m_macRxTrace(q);
    m_rxCallback(this, q, eth.GetLengthType(), eth.GetSource());
}

void
RoceNetDevice::DeliverToTransport(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    // The sender's traces may still hold this packet: strip headers from a copy.
    Ptr<Packet> q = p->Copy();
    q->RemoveAtStart(ENCAPSULATION_BYTES);
    if (!m_transport->Receive(q, meta))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
}

void
RoceNetDevice::SetHostInterface(Ptr<RoceHostInterface> host)
{
    host->SetPort(this); // adopts it (FabricAdoptPart)
    if (m_host)
    {
        m_host->Dispose();
    }
    m_host = host;
}

Ptr<RoceHostInterface>
RoceNetDevice::GetHostInterface() const
{
    return m_host;
}

uint8_t
RoceNetDevice::GetRdmaPriority() const
{
    return m_rdmaDscp >> 3;
}

uint32_t
RoceNetDevice::GetRxBufferMaxBytes() const
{
    return m_host ? m_host->GetMaxBytes() : 0;
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    return true;
}

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendFrom(packet, m_address, dest, protocolNumber);
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    m_macTxTrace(packet);
    uint8_t priority = 0;
    if (protocolNumber == ETHERTYPE_IPV4)
    {
        // Priority from the IPv4 DSCP, as for RDMA frames (byte 1 is the TOS).
        uint8_t ip[2];
        if (packet->CopyData(ip, 2) == 2)
        {
            priority = static_cast<uint8_t>(ip[1] >> 5);
        }
    }
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(source));
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    if (!Enqueue(packet, priority, NO_INGRESS, true, priority))
    {
        return false;
    }
    TryTransmit();
    return true;
}

uint64_t
RoceNetDevice::GetPeakQueuedBytes() const
{
    uint64_t peak = 0;
    for (uint8_t p = 0; p < N_PRIORITIES; ++p)
    {
        peak = std::max<uint64_t>(peak, GetQueueCounters(p).maxBytes);
    }
    return peak;
}

uint64_t
RoceNetDevice::GetClassPeakQueuedBytes(uint8_t cls) const
{
    return cls < N_PRIORITIES ? GetQueueCounters(cls).maxBytes : 0;
}

} // namespace ns3
