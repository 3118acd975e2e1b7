/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-net-device.h"

#include "ns3/fabric-part.h"
#include "ns3/fabric-strict-priority-scheduler.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "roce-ecn-marker.h"
#include "roce-pfc.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceNetDevice")
              .SetParent<FabricNetDevice>()
              .SetGroupName("AiFabric")
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
    m_macControl.clear();
    // The parts are disposed but kept, so that their counters can still be read.
    if (m_marker)
    {
        m_marker->Dispose();
    }
    if (m_pfc)
    {
        m_pfc->Dispose();
    }
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
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

const RoceQueueCounters&
RoceNetDevice::GetQueueCounters(uint8_t priority) const
{
    NS_ASSERT(priority < N_PRIORITIES);
    return m_queueCounters[priority];
}

void
RoceNetDevice::SetMarker(Ptr<FabricCongestionMarker> marker)
{
    marker->Adopt(this);
    FabricReplacePart(m_marker, marker);
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
    FabricReplacePart(m_scheduler, scheduler);
    m_strictPriority = scheduler->IsPlainStrictPriority();
}

Ptr<FabricEgressScheduler>
RoceNetDevice::GetScheduler() const
{
    return m_scheduler;
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
            QueuedFrameDropped(f, size);
        }
        m_queueTrace(prio, m_queueCounters[prio].bytes);
    }
    m_nonEmpty = 0;
    m_macControl.clear();
}

void
RoceNetDevice::QueuedFrameDropped(const QueuedFrame& /* f */, uint32_t /* size */)
{
}

bool
RoceNetDevice::HasPendingFrames() const
{
    return m_nonEmpty != 0 || !m_macControl.empty();
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
    if (paused != 0)
    {
        PausesReceived(paused);
    }
    TryTransmit();
}

void
RoceNetDevice::PausesReceived(uint32_t /* paused */)
{
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
    FabricReplacePart(m_pfc, pfc);
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
RoceNetDevice::PauseArrived(uint8_t /* priority */)
{
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

bool
RoceNetDevice::Send(Ptr<Packet> /* packet */, const Address& /* dest */, uint16_t /* protocol */)
{
    return false; // a switch port originates no IP
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> /* packet */,
                        const Address& /* source */,
                        const Address& /* dest */,
                        uint16_t /* protocol */)
{
    return false;
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
