/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-switch-port.h"

#include "ns3/fabric-part.h"
#include "ns3/fabric-strict-priority-scheduler.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "pfc-header.h"
#include "roce-pfc-watchdog.h"
#include "roce-pfc.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchPort");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitchPort);

TypeId
RoceSwitchPort::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceSwitchPort")
              .SetParent<RoceNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceSwitchPort>()
              .AddAttribute("PfcWatchdog",
                            "The port's PFC watchdog (RocePfcWatchdog: its Enabled, off by "
                            "default as in SONiC, Detection and Restoration attributes and its "
                            "Storm trace source).",
                            PointerValue(),
                            MakePointerAccessor(&RoceSwitchPort::SetPfcWatchdog,
                                                &RoceSwitchPort::GetPfcWatchdog),
                            MakePointerChecker<RocePfcWatchdog>());
    return tid;
}

RoceSwitchPort::RoceSwitchPort()
{
    NS_LOG_FUNCTION(this);
    SetRole(FabricPortRole::SWITCH);
    SetPfcWatchdog(CreateObject<RocePfcWatchdog>());
    // A switch port chooses forwarded frames ahead of their pipeline latency; a PFC pause
    // that arrives before one starts takes it back.
    SetWithdrawable(true);
}

RoceSwitchPort::~RoceSwitchPort()
{
    NS_LOG_FUNCTION(this);
}

void
RoceSwitchPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    m_withdrawalCb = DepartureCallback();
    if (m_pfcWatchdog)
    {
        m_pfcWatchdog->Dispose(); // kept, so that its counters can still be read
    }
    RoceNetDevice::DoDispose();
}

void
RoceSwitchPort::AttachToSwitch(ForwardCallback forward,
                               DepartureCallback departure,
                               DepartureCallback withdrawal)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull() && !withdrawal.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
    m_withdrawalCb = withdrawal;
}

inline bool
RoceSwitchPort::EnqueueFrame(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority)
{
    if (ingress != NO_INGRESS && m_pfcWatchdog->IsInStorm(priority))
    {
        DropInStorm(p, priority, ingress, inPriority);
        return false;
    }
    Enqueue(p, priority, ingress, inPriority);
    return true;
}

bool
RoceSwitchPort::EnqueueForwarded(Ptr<Packet> p,
                                 uint8_t priority,
                                 uint16_t ingress,
                                 uint8_t ingressPriority)
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
    if (!EnqueueFrame(p, priority, ingress, ingressPriority == 0xFF ? priority : ingressPriority))
    {
        return false;
    }
    TryTransmit();
    return true;
}

void
RoceSwitchPort::EnqueueAfter(
    Time delay, Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority)
{
    NS_ASSERT(priority < N_PRIORITIES);
    // Frames still in the pipeline as events go first: order is kept. A frame of a lossless
    // priority may be chosen ahead too: a PFC pause takes it back (withdrawal).
    if (m_delayedEnqueues == 0 && !IsCompletionPerFrame() && IsLinkUp()
        && !m_pfcWatchdog->IsInStorm(priority))
    {
        const Time ready = Simulator::Now() + delay;
        if (EnqueueFrame(p, priority, ingress, inPriority))
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
        delay, &RoceSwitchPort::DelayedEnqueue, this, p, priority, ingress, inPriority);
}

void
RoceSwitchPort::DelayedEnqueue(Ptr<Packet> p,
                               uint8_t priority,
                               uint16_t ingress,
                               uint8_t inPriority)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, priority, ingress, inPriority);
}

void
RoceSwitchPort::DoWithdraw(Ptr<Packet> p, uint32_t cookie, Time ready, Time start)
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

inline void
RoceSwitchPort::SetReadyLimit(const Time& now)
{
    // A forwarded frame is sendable from its ready time (EnqueueAfter): only heads ready by
    // now compete; if none is, the one ready first goes (the only one there, before issue 13).
    m_readyLimit = now;
    if (m_nonEmpty == 0)
    {
        return;
    }
    const RocePfc& pfc = *m_pfc;
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

inline bool
RoceSwitchPort::Sendable(uint8_t cls) const
{
    return !m_pfc->IsPaused(cls, m_selectNow) && QueuedSendable(cls);
}

bool
RoceSwitchPort::IsSendable(uint8_t cls)
{
    return Sendable(cls);
}

Ptr<Packet>
RoceSwitchPort::DequeueForTransmit()
{
    if (!m_macControl.empty())
    {
        return TakeMacControl();
    }
    const Time now = Simulator::Now();
    SetReadyLimit(now);
    m_selectNow = now;
    int32_t chosen = -1;
    if (m_strictPriority)
    {
        // The default scheduler's selection, without its virtual calls (the per-frame path).
        chosen = FabricStrictPriorityScheduler::SelectFrom(
            m_nonEmpty, [this](uint8_t cls) { return Sendable(cls); });
    }
    else
    {
        chosen = m_scheduler->Select(*this, N_PRIORITIES, m_nonEmpty);
    }
    if (chosen < 0)
    {
        return nullptr;
    }
    const auto prio = static_cast<uint8_t>(chosen);
    QueuedFrame f = TakeHead(prio);
    const uint32_t size = f.packet->GetSize();
    if (f.ingress != NO_INGRESS)
    {
        RoceQueueCounters& c = m_queueCounters[prio];
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
    if (!m_strictPriority)
    {
        m_scheduler->Served(prio, size);
    }
    return f.packet;
}

void
RoceSwitchPort::DoReceive(Ptr<Packet> p)
{
    // The Ethertype, without deserializing objects: MAC control frames end at the port that
    // receives them; every other frame goes to the switch.
    uint8_t h[14];
    p->CopyData(h, sizeof(h));
    if (static_cast<uint16_t>((h[12] << 8) | h[13]) == PfcHeader::ETHERTYPE_MAC_CONTROL)
    {
        ReceivePfc(p);
        return;
    }
    NS_ABORT_MSG_IF(m_forwardCb.IsNull(),
                    "RoceSwitchPort: a frame arrived at a port no switch adopted");
    m_forwardCb(this, p);
}

void
RoceSwitchPort::PausesReceived(uint32_t paused)
{
    // Frames chosen ahead that have not started are held, as if still in the pipeline.
    WithdrawUnstarted(paused);
}

void
RoceSwitchPort::PauseArrived(uint8_t priority)
{
    m_pfcWatchdog->OnPause(priority);
}

void
RoceSwitchPort::QueuedFrameDropped(const QueuedFrame& f, uint32_t size)
{
    if (f.ingress != NO_INGRESS)
    {
        m_departureCb(f.ingress, f.inPriority, size, Simulator::Now()); // frees its buffer
    }
}

void
RoceSwitchPort::EnterPfcStorm(uint8_t priority)
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
RoceSwitchPort::DropInStorm(const Ptr<Packet>& f,
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
RoceSwitchPort::GetPfcStorms() const
{
    return m_pfcWatchdog ? m_pfcWatchdog->GetStorms() : 0;
}

bool
RoceSwitchPort::IsInPfcStorm(uint8_t priority) const
{
    return m_pfcWatchdog && m_pfcWatchdog->IsInStorm(priority);
}

void
RoceSwitchPort::SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog)
{
    watchdog->SetPort(this); // adopts it (FabricAdoptPart)
    FabricReplacePart(m_pfcWatchdog, watchdog);
}

Ptr<RocePfcWatchdog>
RoceSwitchPort::GetPfcWatchdog() const
{
    return m_pfcWatchdog;
}

} // namespace ns3
