/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-net-device.h"

#include "ib-fecn-marker.h"
#include "ib-headers.h"
#include "ib-vl-arbiter.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-headers.h"
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
              .AddConstructor<IbNetDevice>()
              .AddAttribute("DataVls",
                            "Data virtual lanes of the port (1-15). Default 8: VL0-VL7, what "
                            "ConnectX adapters and Quantum switches implement.",
                            UintegerValue(8),
                            MakeUintegerAccessor(&IbNetDevice::m_dataVls),
                            MakeUintegerChecker<uint32_t>(1, MAX_DATA_VLS))
              .AddAttribute("Sl",
                            "Service level of the transport's packets (0-15); its VL comes "
                            "from SlToVl. Default 0.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbNetDevice::m_sl),
                            MakeUintegerChecker<uint8_t>(0, 15))
              .AddAttribute("Vl15BufferBytes",
                            "Receive buffer of the management lane VL15 (bytes). VL15 has no "
                            "credits: a management packet that does not fit is dropped "
                            "(Vl15Overflow), as IBTA allows. Default 870: three 290-byte "
                            "management packets (IBTA requires room for at least one).",
                            UintegerValue(3 * MANAGEMENT_PACKET_BYTES),
                            MakeUintegerAccessor(&IbNetDevice::m_vl15BufferBytes),
                            MakeUintegerChecker<uint32_t>(MANAGEMENT_PACKET_BYTES))
              .AddAttribute("PathBitsFromQp",
                            "With an LMC above 0 (SetLmc), each QP sends to the LID base + "
                            "(its flow entropy mod 2^LMC), so the QPs to one host spread over "
                            "its paths; false: always the base LID. Default true.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&IbNetDevice::m_pathBitsFromQp),
                            MakeBooleanChecker())
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
    if (m_transport)
    {
        m_transport->Dispose();
    }
    m_transport = nullptr;
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    for (Lane& lane : m_lanes)
    {
        lane.queue.clear();
    }
    m_fcQueue.clear();
    m_mgmtQueue.clear();
    m_mgmtCb = ManagementCallback();
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
                m_departureCb(q.ingress, q.inVl, size);
            }
        }
    }
    m_fcQueue.clear();
    while (!m_mgmtQueue.empty())
    {
        const auto [p, ingress] = m_mgmtQueue.front();
        m_mgmtQueue.pop_front();
        CountDrop(p, FabricDropReason::LINK_DOWN);
        if (ingress != NO_INGRESS)
        {
            m_departureCb(ingress, MANAGEMENT_VL, p->GetSize());
        }
    }
}

void
IbNetDevice::SetTransport(Ptr<RdmaTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
    m_transport->SetCnpOpcode(IB_CNP);
    m_transport->AttachPort(GetDataRate(),
                            ENCAPSULATION_BYTES + TRAILER_BYTES,
                            MakeCallback(&IbNetDevice::SendRdmaControl, this),
                            MakeCallback(&IbNetDevice::DataReady, this));
}

Ptr<RdmaTransport>
IbNetDevice::GetTransport() const
{
    return m_transport;
}

void
IbNetDevice::SetLid(uint16_t lid)
{
    m_lid = lid;
    uint8_t mac[6]
        = {0x02, 0x1b, 0, 0, static_cast<uint8_t>(lid >> 8), static_cast<uint8_t>(lid & 0xFF)};
    m_address.CopyFrom(mac);
}

void
IbNetDevice::SetLmc(uint32_t lmc)
{
    NS_ABORT_MSG_IF(lmc > 7, "IbNetDevice: LMC " << lmc << " above 7");
    NS_ABORT_MSG_IF(m_lid & ((1u << lmc) - 1),
                    "IbNetDevice: base LID " << m_lid << " is not a multiple of 2^" << lmc);
    m_lmc = lmc;
}

uint32_t
IbNetDevice::GetLmc() const
{
    return m_lmc;
}

uint16_t
IbNetDevice::GetLid() const
{
    return m_lid;
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
    if (m_fc)
    {
        m_fc->Dispose();
    }
    m_fc = fc;
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
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
    m_scheduler = scheduler;
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
IbNetDevice::Encapsulate(Ptr<Packet> p, const RdmaPacketMeta& meta) const
{
    LrhHeader lrh;
    lrh.SetVl(VlOfSl(m_sl));
    lrh.SetSl(m_sl);
    uint32_t dlid = meta.dstAddress;
    if (m_lmc > 0 && m_pathBitsFromQp)
    {
        dlid |= meta.entropy & ((1u << m_lmc) - 1); // the QP's path among the LMC's
    }
    lrh.SetDlid(static_cast<uint16_t>(dlid));
    lrh.SetSlid(static_cast<uint16_t>(meta.srcAddress));
    lrh.SetPktLen(static_cast<uint16_t>((p->GetSize() + LrhHeader::SIZE) / 4));
    p->AddHeader(lrh);
    p->AddTrailer(VcrcTrailer());
}

void
IbNetDevice::SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    Encapsulate(p, meta);
    Lane& lane = m_lanes[VlOfSl(m_sl)];
    lane.queue.push_back({p, NO_INGRESS, 0});
    lane.queuedBytes += p->GetSize();
    TryTransmit();
}

void
IbNetDevice::DataReady()
{
    TryTransmit();
}

void
IbNetDevice::QueueFlowControl(Ptr<Packet> p)
{
    // Never sent ahead of a packet chosen before it (SendInGap): its FCTBS counts that
    // packet, which must be on the wire before it.
    m_fcQueue.push_back(p);
    TryTransmit();
}

bool
IbNetDevice::IsSendable(uint8_t vl)
{
    Lane& lane = m_lanes[vl];
    if (lane.queue.empty() && vl == VlOfSl(m_sl) && m_transport)
    {
        RdmaPacketMeta meta;
        Ptr<Packet> p = m_transport->DequeueData(meta);
        if (p)
        {
            Encapsulate(p, meta);
            lane.queue.push_back({p, NO_INGRESS, 0});
            lane.queuedBytes += p->GetSize();
            lane.maxQueuedBytes = std::max(lane.maxQueuedBytes, lane.queuedBytes);
        }
    }
    if (lane.queue.empty() || lane.queue.front().ready > m_readyLimit)
    {
        return false; // none, or still in the switch's pipeline (EnqueueAfter)
    }
    return m_fc->CanSend(vl, Blocks(lane.queue.front().packet->GetSize()));
}

Ptr<Packet>
IbNetDevice::Take(uint8_t vl)
{
    Lane& lane = m_lanes[vl];
    const Queued q = lane.queue.front();
    lane.queue.pop_front();
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
        m_departureCb(ingress, q.inVl, size); // the ingress port's buffer frees it
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
    if (m_marker)
    {
        m_marker->Dispose();
    }
    m_marker = marker;
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
            m_departureCb(ingress, MANAGEMENT_VL, p->GetSize());
        }
        return p;
    }
    // A forwarded packet is sendable from its ready time (EnqueueAfter): only heads ready by
    // now compete; if none is, those ready first (the only ones there, before issue 13).
    m_readyLimit = Simulator::Now();
    if (IsSwitchPort())
    {
        bool anyReady = false;
        Time earliest = Time::Max();
        for (uint8_t vl = 0; vl < m_dataVls; ++vl)
        {
            if (!m_lanes[vl].queue.empty())
            {
                const Time ready = m_lanes[vl].queue.front().ready;
                anyReady = anyReady || ready <= m_readyLimit;
                earliest = std::min(earliest, ready);
            }
        }
        if (!anyReady && earliest != Time::Max())
        {
            m_readyLimit = earliest;
        }
    }
    // The scheduler (VL arbitration) asks the VLs in its order (IsSendable): every data VL may
    // have a packet, the transport's by pulling one.
    const int32_t vl = m_scheduler->Select(*this, m_dataVls, (1U << m_dataVls) - 1);
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
    if (IsSwitchPort())
    {
        m_forwardCb(this, p, vl); // its blocks are held until it leaves the switch
        return;
    }
    const uint16_t dlid = static_cast<uint16_t>((h[2] << 8) | h[3]);
    if (!m_transport || (dlid >> m_lmc) != (m_lid >> m_lmc))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        m_fc->Free(vl, blocks);
        return;
    }
    RdmaPacketMeta meta;
    meta.srcAddress = static_cast<uint16_t>((h[6] << 8) | h[7]);
    meta.dstAddress = m_lid;                                      // the base LID of the LMC's block
    meta.congestionMarked = (h[LrhHeader::SIZE + 4] & 0x80) != 0; // FECN
    // The sender's traces may still hold this packet: strip headers from a copy.
    Ptr<Packet> q = p->Copy();
    q->RemoveAtStart(ENCAPSULATION_BYTES);
    q->RemoveAtEnd(TRAILER_BYTES);
    if (!m_transport->Receive(q, meta))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
    m_fc->Free(vl, blocks); // the adapter moves the packet to the host at once
}

void
IbNetDevice::SendManagement(Ptr<Packet> mad, uint16_t dlid)
{
    NS_ABORT_MSG_IF(mad->GetSize() != MAD_BYTES,
                    "IbNetDevice: a MAD is " << MAD_BYTES << " bytes, not " << mad->GetSize());
    // DETH: Q_Key (0 for QP0), reserved byte, source QP 0; then the MAD.
    const uint8_t deth[8] = {};
    Ptr<Packet> p = Create<Packet>(deth, sizeof(deth));
    p->AddAtEnd(mad);
    BthHeader bth;
    bth.SetOpcode(UD_SEND_ONLY);
    bth.SetDestQp(0); // QP0: the subnet management agent
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());
    LrhHeader lrh;
    lrh.SetVl(MANAGEMENT_VL);
    lrh.SetSl(0);
    lrh.SetDlid(dlid);
    lrh.SetSlid(m_lid);
    lrh.SetPktLen(static_cast<uint16_t>((p->GetSize() + LrhHeader::SIZE) / 4));
    p->AddHeader(lrh);
    p->AddTrailer(VcrcTrailer());
    m_mgmtQueue.emplace_back(p, NO_INGRESS);
    TryTransmit();
}

void
IbNetDevice::ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh)
{
    const uint32_t size = p->GetSize();
    if (IsSwitchPort())
    {
        if (m_vl15Occupied + size > m_vl15BufferBytes)
        {
            CountDrop(p, FabricDropReason::VL15_OVERFLOW);
            return;
        }
        m_vl15Occupied += size; // held until it leaves the switch
        m_forwardCb(this, p, MANAGEMENT_VL);
        return;
    }
    const uint16_t dlid = static_cast<uint16_t>((lrh[2] << 8) | lrh[3]);
    if ((dlid >> m_lmc) != (m_lid >> m_lmc) || size != MANAGEMENT_PACKET_BYTES)
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    Ptr<Packet> mad = p->CreateFragment(ENCAPSULATION_BYTES + BthHeader::SIZE + 8, MAD_BYTES);
    if (!m_mgmtCb.IsNull())
    {
        m_mgmtCb(mad, static_cast<uint16_t>((lrh[6] << 8) | lrh[7]));
    }
}

void
IbNetDevice::SetManagementCallback(ManagementCallback cb)
{
    m_mgmtCb = cb;
}

uint64_t
IbNetDevice::GetManagementPacketsSent() const
{
    return m_mgmtSent;
}

void
IbNetDevice::AttachToSwitch(ForwardCallback forward, DepartureCallback departure)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
    SetRole(FabricPortRole::SWITCH);
}

void
IbNetDevice::EnqueueForwarded(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
{
    if (!IsLinkUp())
    {
        // Routed to a port whose link is down (before the subnet manager reroutes): dropped.
        CountDrop(p, FabricDropReason::LINK_DOWN);
        if (ingress != NO_INGRESS)
        {
            m_departureCb(ingress, vl == MANAGEMENT_VL ? MANAGEMENT_VL : inVl, p->GetSize());
        }
        return;
    }
    if (vl == MANAGEMENT_VL)
    {
        m_mgmtQueue.emplace_back(p, ingress);
        TryTransmit();
        return;
    }
    Lane& lane = m_lanes[vl];
    lane.queue.push_back({p, ingress, inVl});
    lane.queuedBytes += p->GetSize();
    lane.maxQueuedBytes = std::max(lane.maxQueuedBytes, lane.queuedBytes);
    TryTransmit();
}

void
IbNetDevice::EnqueueAfter(Time delay, Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
{
    // Packets still in the pipeline as events go first: order is kept.
    if (m_delayedEnqueues == 0 && !IsCompletionPerFrame() && vl != MANAGEMENT_VL && vl < m_dataVls
        && IsLinkUp())
    {
        Lane& lane = m_lanes[vl];
        const Time ready = Simulator::Now() + delay;
        bool alone = lane.queue.empty() && m_fcQueue.empty() && m_mgmtQueue.empty() && !m_transport
                     && m_fc->HasCredits(vl, Blocks(p->GetSize()));
        for (uint8_t v = 0; alone && v < m_dataVls; ++v)
        {
            alone = m_lanes[v].queue.empty();
        }
        lane.queue.push_back({p, ingress, inVl, ready});
        lane.queuedBytes += p->GetSize();
        lane.maxQueuedBytes = std::max(lane.maxQueuedBytes, lane.queuedBytes);
        if (alone && CanChooseAhead(ready))
        {
            TransmitAhead(); // alone, with credits: it leaves when ready or the wire frees
            return;
        }
        TryTransmit();
        return;
    }
    ++m_delayedEnqueues;
    Simulator::Schedule(delay, &IbNetDevice::DelayedEnqueue, this, p, vl, ingress, inVl);
}

void
IbNetDevice::DelayedEnqueue(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, vl, ingress, inVl);
}

bool
IbNetDevice::HasPendingFrames() const
{
    if (!m_fcQueue.empty() || !m_mgmtQueue.empty() || (m_transport && m_transport->HasReadyData()))
    {
        return true;
    }
    for (uint8_t v = 0; v < m_dataVls; ++v)
    {
        if (!m_lanes[v].queue.empty())
        {
            return true;
        }
    }
    return false;
}

void
IbNetDevice::ReleaseBlocks(uint8_t vl, uint32_t bytes)
{
    if (vl == MANAGEMENT_VL)
    {
        m_vl15Occupied -= bytes; // no credits to return on VL15
        return;
    }
    m_fc->Free(vl, Blocks(bytes));
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
