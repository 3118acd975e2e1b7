/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-congestion-marker.h"
#include "fabric-link-flow-control.h"
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

namespace
{
/// Bit-picoseconds per byte: 8 bits x 1e12 ps/s.
constexpr uint64_t BIT_PS_PER_BYTE = 8ULL * 1000000000000ULL;

/**
 * \brief Fire a packet trace source only if something listens: calling an empty one copies
 * the packet pointer all the same, on every frame.
 * \param trace the trace source
 * \param p the frame
 */
void
FireIfListened(const TracedCallback<Ptr<const Packet>>& trace, const Ptr<Packet>& p)
{
    if (!trace.IsEmpty())
    {
        trace(p);
    }
}
} // namespace

const char*
FabricDropReasonName(FabricDropReason reason)
{
    switch (reason)
    {
    case FabricDropReason::LINK_DOWN:
        return "LinkDown";
    case FabricDropReason::QUEUE_FULL:
        return "QueueFull";
    case FabricDropReason::RECEIVE_ERROR:
        return "ReceiveError";
    case FabricDropReason::NO_ROUTE:
        return "NoRoute";
    case FabricDropReason::NOT_FOR_US:
        return "NotForUs";
    case FabricDropReason::HEADROOM_EXCEEDED:
        return "HeadroomExceeded";
    case FabricDropReason::PFC_WATCHDOG:
        return "PfcWatchdog";
    case FabricDropReason::CREDIT_VIOLATION:
        return "CreditViolation";
    case FabricDropReason::VL15_OVERFLOW:
        return "Vl15Overflow";
    case FabricDropReason::COUNT:
        break;
    }
    return "Unknown";
}

uint64_t
FabricPortCounters::TotalDrops() const
{
    uint64_t total = 0;
    for (auto d : drops)
    {
        total += d;
    }
    return total;
}

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricNetDevice")
              .SetParent<NetDevice>()
              .SetGroupName("AiFabric")
              .AddAttribute("DataRate",
                            "Line rate of the port (bit/s). Default 400 Gb/s: NDR InfiniBand and "
                            "400GbE, the ConnectX-7 class NIC of a DGX H100.",
                            DataRateValue(DataRate("400Gb/s")),
                            MakeDataRateAccessor(&FabricNetDevice::m_dataRate),
                            MakeDataRateChecker())
              .AddAttribute("CompletionPerFrame",
                            "Make the end of every frame's serialization an event, as a "
                            "point-to-point device does, and forward every frame through a "
                            "switch's pipeline latency as an event of its own. Default false: "
                            "the end of a frame is an event only when another frame may follow, "
                            "and a frame that a switch forwards to an idle port is put on the "
                            "wire when it arrives, to leave one pipeline latency later (same "
                            "wire times, fewer events; PhyTxEnd then fires only at the events).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricNetDevice::m_completionPerFrame),
                            MakeBooleanChecker())
              .AddAttribute("ReceiveErrorModel",
                            "Error model applied to every received frame (none by default).",
                            PointerValue(),
                            MakePointerAccessor(&FabricNetDevice::m_receiveErrorModel),
                            MakePointerChecker<ErrorModel>())
              .AddTraceSource("MacTx",
                              "A packet was accepted from the upper layer for transmission.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_macTxTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("MacRx",
                              "A packet was passed up to the upper layer.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_macRxTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("PhyTxBegin",
                              "A frame started serialization onto the cable.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_phyTxBeginTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("PhyTxEnd",
                              "A frame finished serialization.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_phyTxEndTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("PhyRxEnd",
                              "The last bit of a frame arrived and the frame was accepted.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_phyRxEndTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("Drop",
                              "A frame was dropped at this port, with the FabricDropReason.",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                              "ns3::FabricNetDevice::DropTracedCallback")
              .AddTraceSource("Sniffer",
                              "Every frame sent or received (non-promiscuous sniffer).",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("PromiscSniffer",
                              "Every frame sent or received (pcap).",
                              MakeTraceSourceAccessor(&FabricNetDevice::m_promiscSnifferTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
{
    NS_LOG_FUNCTION(this);
}

FabricNetDevice::~FabricNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
FabricNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_txPacket = nullptr;
    m_ahead.clear();
    m_aheadHead = 0;
    m_rxCallback
        = MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_promiscCallback = MakeNullCallback<bool,
                                         Ptr<NetDevice>,
                                         Ptr<const Packet>,
                                         uint16_t,
                                         const Address&,
                                         const Address&,
                                         NetDevice::PacketType>();
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    m_channel = channel;
    m_channel->Attach(this);
    m_linkUp = m_channel->IsLinkUp();
    m_linkChangeCallbacks();
}

void
FabricNetDevice::SetFraming(uint32_t overheadBytes, uint32_t minFrameBytes)
{
    m_overheadBytes = overheadBytes;
    m_minFrameBytes = minFrameBytes;
}

uint32_t
FabricNetDevice::GetWireBytes(uint32_t frameBytes) const
{
    return std::max(frameBytes, m_minFrameBytes) + m_overheadBytes;
}

Time
FabricNetDevice::SerializationTime(uint32_t wireBytes)
{
    if (m_psPerTick == 0)
    {
        // The resolution is fixed once the simulation runs; read it once.
        m_psPerTick = static_cast<uint64_t>(TimeStep(1).GetPicoSeconds());
        NS_ABORT_MSG_IF(m_psPerTick == 0, "FabricNetDevice: time resolution finer than 1 ps");
    }
    const uint64_t bitRate = m_dataRate.GetBitRate();
    NS_ABORT_MSG_IF(bitRate == 0, "FabricNetDevice: DataRate is zero");
    // bits x ps, carried exactly: ticks = (bytes x 8e12 + carry) / (rate x ps per tick)
    const uint64_t numerator = wireBytes * BIT_PS_PER_BYTE + m_carry;
    const uint64_t denominator = bitRate * m_psPerTick;
    m_carry = numerator % denominator;
    return TimeStep(numerator / denominator);
}

void
FabricNetDevice::TryTransmit()
{
    if (m_choosing || m_completionPending || !m_channel)
    {
        return;
    }
    const Time now = Simulator::Now();
    if (now < m_txEnd)
    {
        // Something may be sendable after the frame on the wire: its end becomes an event.
        m_completionPending = true;
        m_completionEvent
            = Simulator::Schedule(m_txEnd - now, &FabricNetDevice::TransmitComplete, this);
        return;
    }
    // Choosing, too: a callback of the scheduler (a switch releasing buffer and sending a
    // PFC frame out of this very port) must not start a second transmission.
    m_choosing = true;
    Ptr<Packet> p = DequeueForTransmit();
    m_choosing = false;
    if (p)
    {
        StartFrame(p, now);
    }
}

void
FabricNetDevice::TransmitAhead()
{
    if (!m_channel || m_choosing || m_completionPending)
    {
        TryTransmit();
        return;
    }
    m_choosing = true;
    Ptr<Packet> p = DequeueForTransmit();
    m_choosing = false;
    if (p)
    {
        StartFrame(p, std::max(Simulator::Now(), m_txEnd));
    }
}

void
FabricNetDevice::StartFrame(Ptr<Packet> p, Time start)
{
    const Time now = Simulator::Now();
    const Time ready = m_txReady;
    if (ready > start)
    {
        start = ready; // chosen now, it leaves the switch's pipeline then
    }
    m_txReady = Time(0);
    const uint32_t frameBytes = p->GetSize();
    const uint32_t wireBytes = GetWireBytes(frameBytes);
    const bool keep = m_withdrawable && start > now;
    if (keep)
    {
        ForgetStarted(now);
        AheadFrame& f = m_ahead.emplace_back();
        f.packetBefore = m_txPacket;
        f.start = start;
        f.ready = ready;
        f.endBefore = m_txEnd;
        f.startBefore = m_txStart;
        f.prevEndBefore = m_prevEnd;
        f.lastTxTimeBefore = m_lastTxTime;
        f.carryBefore = m_carry;
        f.cookie = m_txCookie;
    }
    m_txPacket = p;
    const Time txTime = SerializationTime(wireBytes);
    m_lastTxTime = txTime;
    m_prevEnd = m_txEnd;
    m_txStart = start;
    m_txEnd = start + txTime;
    EventId txBegin;
    if (start > now
        && (!m_phyTxBeginTrace.IsEmpty() || !m_snifferTrace.IsEmpty()
            || !m_promiscSnifferTrace.IsEmpty()))
    {
        // Chosen ahead: the traces (and pcap) see it when its first bit leaves, as before;
        // an event only when something listens.
        txBegin = Simulator::Schedule(start - now, &FabricNetDevice::NotifyTxBegin, this, p);
    }
    else
    {
        NotifyTxBegin(p);
    }
    uint32_t ticket = 0;
    if (m_channel->Transmit(p, this, m_txEnd - now, keep ? &ticket : nullptr))
    {
        ++m_counters.txPackets;
        m_counters.txBytes += frameBytes;
        m_counters.txWireBytes += wireBytes;
        if (keep)
        {
            AheadFrame& f = m_ahead.back();
            f.packet = p;
            f.txBegin = txBegin;
            f.ticket = ticket;
            f.frameBytes = frameBytes;
            f.wireBytes = wireBytes;
        }
    }
    else
    {
        CountDrop(p, FabricDropReason::LINK_DOWN);
        if (keep)
        {
            m_ahead.pop_back(); // lost with the link: nothing to withdraw
        }
    }
    if (m_completionPerFrame || HasPendingFrames())
    {
        m_completionPending = true;
        m_completionEvent
            = Simulator::Schedule(m_txEnd - now, &FabricNetDevice::TransmitComplete, this);
    }
}

void
FabricNetDevice::ForgetStarted(Time now)
{
    while (m_aheadHead < m_ahead.size() && m_ahead[m_aheadHead].start <= now)
    {
        m_ahead[m_aheadHead] = AheadFrame();
        ++m_aheadHead;
    }
    if (m_aheadHead == m_ahead.size())
    {
        m_ahead.clear(); // keeps its capacity: no allocation per frame
        m_aheadHead = 0;
    }
    else if (m_aheadHead >= 64)
    {
        m_ahead.erase(m_ahead.begin(), m_ahead.begin() + static_cast<std::ptrdiff_t>(m_aheadHead));
        m_aheadHead = 0;
    }
}

void
FabricNetDevice::WithdrawUnstarted(uint32_t classMask)
{
    NS_ASSERT_MSG(!m_choosing, "FabricNetDevice: withdrawing while choosing");
    const Time now = Simulator::Now();
    ForgetStarted(now);
    std::size_t first = m_aheadHead;
    while (first < m_ahead.size() && !(classMask & (1U << (m_ahead[first].cookie >> 24))))
    {
        ++first;
    }
    if (first == m_ahead.size())
    {
        return; // nothing of those classes waits to start
    }
    NS_LOG_FUNCTION(this << classMask << m_ahead.size() - first);
    // The port's state first, then the frames back to the fabric (which may send a PFC frame
    // from here when its MMU charges them again).
    std::vector<AheadFrame> withdrawn(
        std::make_move_iterator(m_ahead.begin() + static_cast<std::ptrdiff_t>(first)),
        std::make_move_iterator(m_ahead.end()));
    m_ahead.resize(first);
    const AheadFrame& oldest = withdrawn.front();
    m_carry = oldest.carryBefore;
    m_txPacket = oldest.packetBefore;
    m_lastTxTime = oldest.lastTxTimeBefore;
    m_txStart = oldest.startBefore;
    m_prevEnd = oldest.prevEndBefore;
    // A PFC frame sent in the gap before a withdrawn frame stays on the wire.
    m_txEnd = std::max(oldest.endBefore, m_gapEnd);
    if (m_completionPending)
    {
        m_completionEvent.Cancel(); // TryTransmit() decides again
        m_completionPending = false;
    }
    for (auto f = withdrawn.rbegin(); f != withdrawn.rend(); ++f)
    {
        m_channel->Withdraw(f->ticket);
        f->txBegin.Cancel();
        --m_counters.txPackets;
        m_counters.txBytes -= f->frameBytes;
        m_counters.txWireBytes -= f->wireBytes;
        ++m_withdrawnFrames;
        DoWithdraw(f->packet, f->cookie, f->ready, f->start);
    }
}

void
FabricNetDevice::DoWithdraw(Ptr<Packet> /* p */,
                            uint32_t /* cookie */,
                            Time /* ready */,
                            Time /* start */)
{
    NS_FATAL_ERROR("FabricNetDevice: a withdrawable port must take its frames back");
}

uint64_t
FabricNetDevice::GetWithdrawnFrames() const
{
    return m_withdrawnFrames;
}

bool
FabricNetDevice::SendInGap(Ptr<Packet> p)
{
    const Time now = Simulator::Now();
    if (!m_channel || !m_linkUp || m_choosing || m_txStart <= now)
    {
        return false; // nothing chosen ahead: the usual way is as early
    }
    const Time begin = std::max(now, m_prevEnd);
    const uint32_t frameBytes = p->GetSize();
    const uint32_t wireBytes = GetWireBytes(frameBytes);
    const uint64_t bitRate = m_dataRate.GetBitRate();
    // Does it fit before the frame chosen ahead? (Rounded up; the carry is not touched.)
    const Time txTime = PicoSeconds((wireBytes * BIT_PS_PER_BYTE + bitRate - 1) / bitRate);
    if (begin + txTime > m_txStart)
    {
        return false;
    }
    if (begin > now
        && (!m_phyTxBeginTrace.IsEmpty() || !m_snifferTrace.IsEmpty()
            || !m_promiscSnifferTrace.IsEmpty()))
    {
        Simulator::Schedule(begin - now, &FabricNetDevice::NotifyTxBegin, this, p);
    }
    else
    {
        NotifyTxBegin(p);
    }
    if (m_channel->Transmit(p, this, begin + txTime - now))
    {
        ++m_counters.txPackets;
        m_counters.txBytes += frameBytes;
        m_counters.txWireBytes += wireBytes;
    }
    else
    {
        CountDrop(p, FabricDropReason::LINK_DOWN);
    }
    m_prevEnd = begin + txTime;
    m_gapEnd = m_prevEnd;
    return true;
}

void
FabricNetDevice::NotifyTxBegin(Ptr<Packet> p)
{
    FireIfListened(m_phyTxBeginTrace, p);
    FireIfListened(m_snifferTrace, p);
    FireIfListened(m_promiscSnifferTrace, p);
}

bool
FabricNetDevice::HasPendingFrames() const
{
    return true;
}

void
FabricNetDevice::TransmitComplete()
{
    NS_ASSERT(m_completionPending);
    m_completionPending = false;
    Ptr<Packet> p = m_txPacket;
    m_txPacket = nullptr;
    if (p)
    {
        m_phyTxEndTrace(p);
        DoTransmitComplete(p);
    }
    TryTransmit();
}

void
FabricNetDevice::DoTransmitComplete(Ptr<const Packet> /* p */)
{
}

void
FabricNetDevice::Receive(Ptr<Packet> p)
{
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(p))
    {
        CountDrop(p, FabricDropReason::RECEIVE_ERROR);
        return;
    }
    ++m_counters.rxPackets;
    m_counters.rxBytes += p->GetSize();
    FireIfListened(m_snifferTrace, p);
    FireIfListened(m_promiscSnifferTrace, p);
    FireIfListened(m_phyRxEndTrace, p);
    DoReceive(p);
}

void
FabricNetDevice::NotifyLostInFlight(Ptr<Packet> p)
{
    CountDrop(p, FabricDropReason::LINK_DOWN);
}

void
FabricNetDevice::NotifyLinkChange(bool up)
{
    NS_LOG_FUNCTION(this << up);
    m_linkUp = up;
    // Frames chosen ahead were on the cable when it changed: lost in flight, not withdrawn.
    m_ahead.clear();
    m_aheadHead = 0;
    m_linkChangeCallbacks();
    DoLinkChange(up);
    if (up)
    {
        TryTransmit();
    }
}

void
FabricNetDevice::DoLinkChange(bool /* up */)
{
}

uint32_t
FabricNetDevice::GetNTrafficClasses() const
{
    return 0;
}

const char*
FabricNetDevice::GetTrafficClassName() const
{
    return "class";
}

uint64_t
FabricNetDevice::GetClassQueuedBytes(uint8_t /* cls */) const
{
    return 0;
}

bool
FabricNetDevice::IsClassBlocked(uint8_t cls) const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    return fc && fc->IsHeld(cls);
}

Ptr<FabricLinkFlowControl>
FabricNetDevice::GetLinkFlowControl() const
{
    return nullptr;
}

void
FabricNetDevice::GetClassSources(uint8_t /* cls */,
                                 std::vector<std::pair<uint16_t, uint8_t>>& sources) const
{
    sources.clear();
}

void
FabricNetDevice::CountDrop(Ptr<const Packet> p, FabricDropReason reason)
{
    NS_LOG_FUNCTION(this << p << FabricDropReasonName(reason));
    ++m_counters.drops[static_cast<std::size_t>(reason)];
    m_dropTrace(p, static_cast<uint8_t>(reason));
}

bool
FabricNetDevice::IsTransmitting() const
{
    return m_choosing || Simulator::Now() < m_txEnd;
}

void
FabricNetDevice::AddFlowTx(uint64_t wireBytes, uint64_t packets)
{
    const uint64_t overhead = packets * m_overheadBytes;
    m_counters.txPackets += packets;
    m_counters.txWireBytes += wireBytes;
    m_counters.txBytes += wireBytes > overhead ? wireBytes - overhead : 0;
}

const FabricPortCounters&
FabricNetDevice::GetCounters() const
{
    return m_counters;
}

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> model)
{
    NS_LOG_FUNCTION(this << model);
    m_receiveErrorModel = model;
}

Ptr<ErrorModel>
FabricNetDevice::GetReceiveErrorModel() const
{
    return m_receiveErrorModel;
}

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return true;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return true;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

uint64_t
FabricNetDevice::GetCongestionMarks() const
{
    Ptr<FabricCongestionMarker> marker = GetCongestionMarker();
    return marker ? marker->GetMarks() : 0;
}

Ptr<FabricCongestionMarker>
FabricNetDevice::GetCongestionMarker() const
{
    return nullptr;
}

uint64_t
FabricNetDevice::GetPauseFramesSent() const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    uint64_t pauses = 0;
    for (uint32_t cls = 0; fc && cls < fc->GetNClasses(); ++cls)
    {
        pauses += fc->GetPausesSent(static_cast<uint8_t>(cls));
    }
    return pauses;
}

uint32_t
FabricNetDevice::GetCreditClasses() const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    return fc && fc->IsCreditBased() ? fc->GetNClasses() : 0;
}

Time
FabricNetDevice::GetCreditStallTime(uint8_t cls) const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    return fc && fc->IsCreditBased() ? fc->GetHeldTime(cls) : Time(0);
}

uint64_t
FabricNetDevice::GetPeakQueuedBytes() const
{
    return 0;
}

uint64_t
FabricNetDevice::GetClassPeakQueuedBytes(uint8_t /* cls */) const
{
    return 0;
}

uint64_t
FabricNetDevice::GetClassPausesSent(uint8_t cls) const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    return fc ? fc->GetPausesSent(cls) : 0;
}

uint64_t
FabricNetDevice::GetClassPausesReceived(uint8_t cls) const
{
    Ptr<FabricLinkFlowControl> fc = GetLinkFlowControl();
    return fc ? fc->GetPausesReceived(cls) : 0;
}

bool
FabricNetDevice::GetMarkingThresholds(uint32_t& kmin, uint32_t& kmax) const
{
    Ptr<FabricCongestionMarker> marker = GetCongestionMarker();
    if (!marker)
    {
        kmin = 0;
        kmax = 0;
        return false;
    }
    return marker->GetThresholds(GetDataRate().GetBitRate(), kmin, kmax);
}

} // namespace ns3
