/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-net-device.h"

#include "ib-fecn-marker.h"
#include "ib-headers.h"
#include "ib-vl-arbiter.h"
#include "ns3/fabric-part.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbNetDevice");
NS_OBJECT_ENSURE_REGISTERED(IbNetDevice);

TypeId
IbNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbNetDevice")
              .SetParent<FabricNetDevice>()
              .SetGroupName("AiFabric")
              .AddAttribute("DataVls",
                            "Data virtual lanes of the port (1-15). Default 8: VL0-VL7, what "
                            "ConnectX adapters and Quantum switches implement.",
                            UintegerValue(8),
                            MakeUintegerAccessor(&IbNetDevice::m_dataVls),
                            MakeUintegerChecker<uint32_t>(1, MAX_DATA_VLS))
              .AddAttribute("SlToVl",
                            "SL-to-VL mapping table of the port's output: 16 comma-separated "
                            "data VLs, for SL0 to SL15 (IBTA vol. 1, 7.6.6). Empty (the "
                            "default): SL mod DataVls. A switch sends a packet out on the VL "
                            "its output port's table gives the packet's SL.",
                            StringValue(""),
                            MakeStringAccessor(&IbNetDevice::SetSlToVl, &IbNetDevice::GetSlToVl),
                            MakeStringChecker())
              .AddAttribute(
                  "Scheduler",
                  "The egress scheduler of the port's data VLs: IBTA VL arbitration "
                  "(IbVlArbiter, its HighTable, LowTable and HighLimit attributes; "
                  "without tables, the default, the VLs take turns).",
                  PointerValue(),
                  MakePointerAccessor(&IbNetDevice::SetScheduler, &IbNetDevice::GetScheduler),
                  MakePointerChecker<FabricEgressScheduler>())
              .AddAttribute(
                  "Marker",
                  "The congestion marker of the port's data VLs: IB congestion "
                  "control's FECN at a switch port (IbFecnMarker, its Threshold, "
                  "MarkingRate, PacketSize and VictimMarking attributes; off by "
                  "default). NIC ports never mark.",
                  PointerValue(),
                  MakePointerAccessor(&IbNetDevice::SetMarker, &IbNetDevice::GetCongestionMarker),
                  MakePointerChecker<FabricCongestionMarker>())
              .AddAttribute(
                  "FlowControl",
                  "The port's credit-based link-level flow control, per data VL "
                  "(IbCreditFlowControl: its VlBufferBytes, the credits the port grants, "
                  "CreditUpdateBlocks and FlowControlPeriod, and its Sent and Received "
                  "traces of flow-control packets).",
                  PointerValue(),
                  MakePointerAccessor(&IbNetDevice::SetFlowControl, &IbNetDevice::GetFlowControl),
                  MakePointerChecker<IbCreditFlowControl>());
    return tid;
}

IbNetDevice::IbNetDevice()
{
    NS_LOG_FUNCTION(this);
    SetFraming(0, 0); // the data rate is after encoding; delimiters and idles are not modelled
    SetMtu(4096);
    SetMarker(CreateObject<IbFecnMarker>());
    SetFlowControl(CreateObject<IbCreditFlowControl>());
    SetScheduler(CreateObject<IbVlArbiter>());
}

IbNetDevice::~IbNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
IbNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (Lane& lane : m_lanes)
    {
        lane.queue.clear();
    }
    m_nonEmptyLanes = 0;
    m_fcQueue.clear();
    m_mgmtQueue.clear();
    if (m_marker)
    {
        m_marker->Dispose();
    }
    if (m_fc)
    {
        m_fc->Dispose();
    }
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
    m_plainArbiter = nullptr;
    FabricNetDevice::DoDispose();
}

void
IbNetDevice::DoInitialize()
{
    for (uint8_t vl : m_slToVl)
    {
        NS_ABORT_MSG_IF(vl >= m_dataVls,
                        "IbNetDevice: SlToVl maps an SL to VL " << unsigned{vl} << " of "
                                                                << m_dataVls << " data VLs");
    }
    m_fc->Start(m_dataVls); // each VL's initialization packet goes out
    FabricNetDevice::DoInitialize();
}

void
IbNetDevice::DoLinkChange(bool up)
{
    if (!up)
    {
        Flush();
    }
    m_fc->LinkChange(up); // up: the link retrains, both ends exchange their limits again
}

void
IbNetDevice::Flush()
{
    // A switch discards what is queued for a port that went down (it would wait for credits
    // that never come), and the ingress buffers those packets held are freed.
    for (uint32_t vl = 0; vl < m_dataVls; ++vl)
    {
        Lane& lane = m_lanes[vl];
        while (!lane.queue.empty())
        {
            const Queued q = lane.queue.front();
            lane.queue.pop_front();
            const uint32_t size = q.packet->GetSize();
            lane.queuedBytes -= size;
            CountDrop(q.packet, FabricDropReason::LINK_DOWN);
            if (q.ingress != NO_INGRESS)
            {
                Departed(q.ingress, q.inVl, size);
            }
        }
        m_nonEmptyLanes &= ~(1U << vl);
    }
    m_fcQueue.clear();
    while (!m_mgmtQueue.empty())
    {
        const auto [p, ingress] = m_mgmtQueue.front();
        m_mgmtQueue.pop_front();
        CountDrop(p, FabricDropReason::LINK_DOWN);
        if (ingress != NO_INGRESS)
        {
            Departed(ingress, MANAGEMENT_VL, p->GetSize());
        }
    }
}

void
IbNetDevice::Departed(uint16_t /* ingress */, uint8_t /* vl */, uint32_t /* bytes */)
{
}

void
IbNetDevice::FillFromTransport(uint8_t /* vl */)
{
}

uint32_t
IbNetDevice::TransportLanes() const
{
    return 0;
}

void
IbNetDevice::EnqueueData(
    Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl, Time ready, bool peak)
{
    Lane& lane = m_lanes[vl];
    lane.queuedBytes += p->GetSize();
    lane.queue.push_back({std::move(p), ingress, inVl, ready});
    m_nonEmptyLanes |= 1U << vl;
    if (peak)
    {
        lane.maxQueuedBytes = std::max(lane.maxQueuedBytes, lane.queuedBytes);
    }
}

void
IbNetDevice::EnqueueManagement(Ptr<Packet> p, uint16_t ingress)
{
    m_mgmtQueue.emplace_back(p, ingress);
}

uint8_t
IbNetDevice::VlOfSl(uint8_t sl) const
{
    return m_slToVl.empty() ? static_cast<uint8_t>(sl % m_dataVls) : m_slToVl[sl & 0x0F];
}

void
IbNetDevice::SetSlToVl(std::string text)
{
    std::vector<uint8_t> table;
    std::istringstream in(text);
    std::string item;
    while (!text.empty() && std::getline(in, item, ','))
    {
        NS_ABORT_MSG_IF(item.empty() || item.size() > 2
                            || item.find_first_not_of("0123456789") != std::string::npos
                            || std::stoul(item) >= MAX_DATA_VLS,
                        "IbNetDevice: SlToVl entry '" << item << "' is not a data VL (0-14)");
        table.push_back(static_cast<uint8_t>(std::stoul(item)));
    }
    NS_ABORT_MSG_IF(!text.empty() && (table.size() != 16 || text.back() == ','),
                    "IbNetDevice: SlToVl needs 16 VLs (SL0-SL15), got " << table.size());
    m_slToVlText = text;
    m_slToVl = table;
}

std::string
IbNetDevice::GetSlToVl() const
{
    return m_slToVlText;
}

uint32_t
IbNetDevice::GetDataVls() const
{
    return m_dataVls;
}

uint32_t
IbNetDevice::GetVlBufferBytes() const
{
    return m_fc->GetBufferBytes();
}

void
IbNetDevice::SetFlowControl(Ptr<IbCreditFlowControl> fc)
{
    fc->SetPort(this, MakeCallback(&IbNetDevice::QueueFlowControl, this)); // adopts it
    FabricReplacePart(m_fc, fc);
}

Ptr<IbCreditFlowControl>
IbNetDevice::GetFlowControl() const
{
    return m_fc;
}

void
IbNetDevice::SetScheduler(Ptr<FabricEgressScheduler> scheduler)
{
    scheduler->Adopt(this);
    FabricReplacePart(m_scheduler, scheduler);
    Ptr<IbVlArbiter> arbiter = DynamicCast<IbVlArbiter>(scheduler);
    m_plainArbiter = arbiter && arbiter->IsPlain() ? PeekPointer(arbiter) : nullptr;
}

Ptr<FabricEgressScheduler>
IbNetDevice::GetScheduler() const
{
    return m_scheduler;
}

Ptr<FabricLinkFlowControl>
IbNetDevice::GetLinkFlowControl() const
{
    return m_fc;
}

uint64_t
IbNetDevice::GetAvailableCredits(uint8_t vl) const
{
    return m_fc->GetAvailableCredits(vl);
}

uint64_t
IbNetDevice::GetFlowControlPacketsSent() const
{
    return m_fc->GetPacketsSent();
}

Time
IbNetDevice::GetFlowControlPeriod() const
{
    return m_fc->GetFlowControlPeriod();
}

void
IbNetDevice::QueueFlowControl(Ptr<Packet> p)
{
    // Never sent ahead of a packet chosen before it (SendInGap): its FCTBS counts that
    // packet, which must be on the wire before it.
    m_fcQueue.push_back(p);
    TryTransmit();
}

inline bool
IbNetDevice::Sendable(uint8_t vl)
{
    Lane& lane = m_lanes[vl];
    if (lane.queue.empty())
    {
        FillFromTransport(vl); // an adapter's transport VL (the only empty VLs asked)
        if (lane.queue.empty())
        {
            return false;
        }
    }
    const Queued& head = lane.queue.front();
    if (head.ready > m_readyLimit)
    {
        return false; // still in the switch's pipeline (EnqueueAfter)
    }
    return m_fc->CanSend(vl, Blocks(head.packet->GetSize()));
}

bool
IbNetDevice::IsSendable(uint8_t vl)
{
    return Sendable(vl);
}

Ptr<Packet>
IbNetDevice::Take(uint8_t vl)
{
    Lane& lane = m_lanes[vl];
    const Queued q = std::move(lane.queue.front());
    lane.queue.pop_front();
    if (lane.queue.empty())
    {
        m_nonEmptyLanes &= ~(1U << vl);
    }
    SetFrameReady(q.ready);
    const Ptr<Packet>& p = q.packet;
    const uint16_t ingress = q.ingress;
    const uint32_t size = p->GetSize();
    lane.queuedBytes -= size;
    m_fc->Sent(vl, Blocks(size));
    // A victim waited for the next hop's credits within the time its VL buffer takes to send
    // at line rate: credits, not this link, limit it (the root's link is the bottleneck).
    const bool victim = m_fc->IsVictim(vl, Simulator::Now());
    if (ingress != NO_INGRESS)
    {
        Departed(ingress, q.inVl, size); // the ingress port's buffer frees it
    }
    const uint64_t rate = GetDataRate().GetBitRate();
    if (ingress != NO_INGRESS && m_marker->MayMark(rate, lane.queuedBytes))
    {
        FabricMarkContext ctx;
        ctx.bitRate = rate;
        ctx.queuedBytes = lane.queuedBytes;
        ctx.frameBytes = size;
        ctx.classBufferBytes = m_fc->GetBufferBytes();
        ctx.cls = vl;
        ctx.victim = victim;
        Ptr<Packet> marked = p;
        if (m_marker->Mark(marked, ctx))
        {
            return marked;
        }
    }
    return p;
}

uint64_t
IbNetDevice::GetFecnMarks() const
{
    return m_marker->GetMarks();
}

void
IbNetDevice::SetMarker(Ptr<FabricCongestionMarker> marker)
{
    marker->Adopt(this);
    FabricReplacePart(m_marker, marker);
}

Ptr<FabricCongestionMarker>
IbNetDevice::GetCongestionMarker() const
{
    return m_marker;
}

Ptr<Packet>
IbNetDevice::DequeueForTransmit()
{
    if (!m_fcQueue.empty())
    {
        Ptr<Packet> p = m_fcQueue.front();
        m_fcQueue.pop_front();
        return p;
    }
    if (!IsLinkUp())
    {
        return nullptr; // no credit is spent on a dead link: data waits for the link to train
    }
    if (!m_mgmtQueue.empty())
    {
        // VL15 goes ahead of every data VL and needs no credits (IBTA vol. 1, 7.6.8).
        const auto [p, ingress] = m_mgmtQueue.front();
        m_mgmtQueue.pop_front();
        ++m_mgmtSent;
        if (ingress != NO_INGRESS)
        {
            Departed(ingress, MANAGEMENT_VL, p->GetSize());
        }
        return p;
    }
    // A forwarded packet is sendable from its ready time (EnqueueAfter): only heads ready by
    // now compete; if none is, those ready first (the only ones there, before issue 13).
    // (An adapter's packets are ready when queued: the limit stays now.)
    m_readyLimit = Simulator::Now();
    if (m_nonEmptyLanes != 0)
    {
        int64_t earliest = INT64_MAX;
        const int64_t now = m_readyLimit.GetTimeStep();
        for (uint32_t lanes = m_nonEmptyLanes; lanes != 0; lanes &= lanes - 1)
        {
            const int64_t ready = m_lanes[__builtin_ctz(lanes)].queue.front().ready.GetTimeStep();
            if (ready <= now)
            {
                earliest = INT64_MAX; // one is ready: the limit stays now
                break;
            }
            earliest = std::min(earliest, ready);
        }
        if (earliest != INT64_MAX)
        {
            m_readyLimit = TimeStep(earliest);
        }
    }
    // The scheduler (VL arbitration) asks the VLs in its order (IsSendable): the VLs that hold
    // a packet, and the transport's, which pulls one when asked.
    const uint32_t candidates = (m_nonEmptyLanes | TransportLanes()) & ((1U << m_dataVls) - 1);
    if (m_plainArbiter)
    {
        // The default scheduler, without its virtual calls (the per-packet path).
        const int32_t vl = m_plainArbiter->SelectWith(
            m_dataVls, candidates, [this](uint8_t v) { return Sendable(v); });
        if (vl < 0)
        {
            return nullptr;
        }
        Ptr<Packet> p = Take(static_cast<uint8_t>(vl));
        m_plainArbiter->IbVlArbiter::Served(static_cast<uint8_t>(vl), p->GetSize());
        return p;
    }
    const int32_t vl = m_scheduler->Select(*this, m_dataVls, candidates);
    if (vl < 0)
    {
        return nullptr;
    }
    Ptr<Packet> p = Take(static_cast<uint8_t>(vl));
    m_scheduler->Served(static_cast<uint8_t>(vl), p->GetSize());
    return p;
}

void
IbNetDevice::DoReceive(Ptr<Packet> p)
{
    const uint32_t size = p->GetSize();
    if (size == IbFlowControlHeader::SIZE)
    {
        // Link packets end at the port that receives them.
        if (!m_fc->Receive(p))
        {
            CountDrop(p, FabricDropReason::NOT_FOR_US); // a VL this port does not operate
            return;
        }
        TryTransmit();
        return;
    }
    // LRH (8) and the BTH's FECN byte (BTH offset 4), read without deserializing objects.
    uint8_t h[LrhHeader::SIZE + 5];
    if (p->CopyData(h, sizeof(h)) != sizeof(h))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    const auto vl = static_cast<uint8_t>(h[0] >> 4);
    if (vl == MANAGEMENT_VL)
    {
        ReceiveManagement(p, h);
        return;
    }
    if (vl >= m_dataVls)
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US); // a VL this port does not operate
        return;
    }
    const uint32_t blocks = Blocks(size);
    if (!m_fc->Occupy(vl, blocks))
    {
        // The sender started a packet its credits did not cover: a bug, never normal.
        CountDrop(p, FabricDropReason::CREDIT_VIOLATION);
        return;
    }
    ReceiveData(p, vl, blocks, h);
}

uint64_t
IbNetDevice::GetManagementPacketsSent() const
{
    return m_mgmtSent;
}

bool
IbNetDevice::HasPendingFrames() const
{
    return !QueuesEmpty();
}

uint32_t
IbNetDevice::GetQueuedBytes(uint8_t vl) const
{
    return m_lanes.at(vl).queuedBytes;
}

uint32_t
IbNetDevice::GetMaxQueuedBytes(uint8_t vl) const
{
    return m_lanes.at(vl).maxQueuedBytes;
}

bool
IbNetDevice::IsCreditStalled(uint8_t vl) const
{
    return m_fc->IsStalled(vl);
}

uint32_t
IbNetDevice::GetNTrafficClasses() const
{
    return m_dataVls;
}

const char*
IbNetDevice::GetTrafficClassName() const
{
    return "VL";
}

uint64_t
IbNetDevice::GetClassQueuedBytes(uint8_t cls) const
{
    return cls < m_dataVls ? m_lanes[cls].queuedBytes : 0;
}

void
IbNetDevice::GetClassSources(uint8_t cls, std::vector<std::pair<uint16_t, uint8_t>>& sources) const
{
    sources.clear();
    if (cls >= m_dataVls)
    {
        return;
    }
    for (const Queued& q : m_lanes[cls].queue)
    {
        const std::pair<uint16_t, uint8_t> s(q.ingress, q.inVl);
        if (q.ingress != NO_INGRESS
            && std::find(sources.begin(), sources.end(), s) == sources.end())
        {
            sources.push_back(s);
        }
    }
}

bool
IbNetDevice::Send(Ptr<Packet> /* packet */, const Address& /* dest */, uint16_t /* protocol */)
{
    return false; // no IP over InfiniBand
}

bool
IbNetDevice::SendFrom(Ptr<Packet> /* packet */,
                      const Address& /* source */,
                      const Address& /* dest */,
                      uint16_t /* protocol */)
{
    return false;
}

uint64_t
IbNetDevice::GetPeakQueuedBytes() const
{
    uint64_t peak = 0;
    for (uint8_t vl = 0; vl < MAX_DATA_VLS; ++vl)
    {
        peak = std::max<uint64_t>(peak, GetMaxQueuedBytes(vl));
    }
    return peak;
}

uint64_t
IbNetDevice::GetClassPeakQueuedBytes(uint8_t cls) const
{
    return cls < MAX_DATA_VLS ? GetMaxQueuedBytes(cls) : 0;
}

} // namespace ns3
