/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvswitch-port.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "nvlink-credit-flow-control.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitchPort");
NS_OBJECT_ENSURE_REGISTERED(NvSwitchPort);

TypeId
NvSwitchPort::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvSwitchPort")
                            .SetParent<NvLinkNetDevice>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvSwitchPort>();
    return tid;
}

NvSwitchPort::NvSwitchPort()
{
    NS_LOG_FUNCTION(this);
    SetRole(FabricPortRole::SWITCH);
}

NvSwitchPort::~NvSwitchPort()
{
    NS_LOG_FUNCTION(this);
}

void
NvSwitchPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    DetachFromSwitch();
    m_queue.clear();
    NvLinkNetDevice::DoDispose();
}

void
NvSwitchPort::AttachToSwitch(ForwardCallback forward, DepartureCallback departure)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
}

void
NvSwitchPort::DetachFromSwitch()
{
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
}

uint64_t
NvSwitchPort::GetQueuedBytes() const
{
    return m_queuedBytes;
}

uint64_t
NvSwitchPort::GetMaxQueuedBytes() const
{
    return m_maxQueuedBytes;
}

void
NvSwitchPort::EnqueueForwarded(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    m_queuedBytes += p->GetSize();
    m_maxQueuedBytes = std::max(m_maxQueuedBytes, m_queuedBytes);
    m_queue.push_back({p, ingress, dataBytes});
    TryTransmit();
}

void
NvSwitchPort::EnqueueAfter(Time delay, Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    // Packets still in the pipeline as events go first: order is kept.
    if (m_delayedEnqueues == 0 && !IsCompletionPerFrame() && IsLinkUp())
    {
        const Time ready = Simulator::Now() + delay;
        const bool alone
            = m_queue.empty() && m_control.empty() && p->GetSize() <= m_fc->GetCredits();
        m_queuedBytes += p->GetSize();
        m_maxQueuedBytes = std::max(m_maxQueuedBytes, m_queuedBytes);
        m_queue.push_back({p, ingress, dataBytes, ready});
        if (alone && CanChooseAhead(ready))
        {
            TransmitAhead(); // alone, with credits: it leaves when ready or the wire frees
            return;
        }
        TryTransmit();
        return;
    }
    ++m_delayedEnqueues;
    Simulator::Schedule(delay, &NvSwitchPort::DelayedEnqueue, this, p, ingress, dataBytes);
}

void
NvSwitchPort::DelayedEnqueue(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, ingress, dataBytes);
}

bool
NvSwitchPort::HasPendingFrames() const
{
    return !m_queue.empty() || !m_control.empty();
}

Ptr<Packet>
NvSwitchPort::DequeueForTransmit()
{
    if (Ptr<Packet> p = DequeueCredit())
    {
        return p;
    }
    if (!IsLinkUp())
    {
        return nullptr; // no credit is spent on a dead link
    }
    NvLinkCreditFlowControl& fc = *m_fc;
    if (m_queue.empty())
    {
        fc.NoteStall(true);
        return nullptr;
    }
    const uint32_t size = m_queue.front().packet->GetSize();
    if (size > fc.GetCredits())
    {
        fc.NoteStall(false);
        return nullptr;
    }
    fc.NoteStall(true);
    const Queued q = m_queue.front();
    m_queue.pop_front();
    SetFrameReady(q.ready);
    m_queuedBytes -= size;
    fc.Spend(size);
    if (q.ingress != NO_INGRESS)
    {
        m_departureCb(q.ingress, size); // the ingress port's buffer frees it
    }
    m_dataBytesSent += q.dataBytes; // counted when chosen: the frame's end may pass unseen
    ++m_dataFramesSent;
    return q.packet;
}

void
NvSwitchPort::ReceiveData(Ptr<Packet> p, const NvLinkHeader& h, uint32_t /* size */)
{
    NS_ABORT_MSG_IF(m_forwardCb.IsNull(),
                    "NvSwitchPort: a packet arrived at a port no switch adopted");
    m_forwardCb(this, p, h); // held in the buffer until it leaves the switch
}

uint64_t
NvSwitchPort::GetPeakQueuedBytes() const
{
    return GetMaxQueuedBytes();
}

} // namespace ns3
