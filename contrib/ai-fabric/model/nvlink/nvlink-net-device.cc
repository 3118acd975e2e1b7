/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-net-device.h"

#include "ns3/fabric-channel.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "nvlink-credit-flow-control.h"
#include "nvlink-header.h"
#include "nvlink-transport.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkNetDevice");
NS_OBJECT_ENSURE_REGISTERED(NvLinkNetDevice);

namespace
{
/// Slot value of a credit packet that sets the credit (initialization) instead of adding to it
constexpr uint16_t CREDIT_INIT = 1;
} // namespace

TypeId
NvLinkNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvLinkNetDevice")
              .SetParent<FabricNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvLinkNetDevice>()
              .AddAttribute("FlowControl",
                            "The port's credit-based link-level flow control "
                            "(NvLinkCreditFlowControl: its BufferBytes, the credits the port "
                            "grants, and CreditUpdateBytes attributes).",
                            PointerValue(),
                            MakePointerAccessor(&NvLinkNetDevice::SetFlowControl,
                                                &NvLinkNetDevice::GetFlowControl),
                            MakePointerChecker<NvLinkCreditFlowControl>());
    return tid;
}

NvLinkNetDevice::NvLinkNetDevice()
{
    NS_LOG_FUNCTION(this);
    SetFraming(0, 0); // the data rate is NVLink's data rate; flits are not modelled
    SetFlowControl(CreateObject<NvLinkCreditFlowControl>());
}

void
NvLinkNetDevice::SetFlowControl(Ptr<NvLinkCreditFlowControl> fc)
{
    fc->Adopt(this);
    if (m_fc)
    {
        m_fc->Dispose();
    }
    m_fc = fc;
    m_fc->SetCreditCallback(MakeCallback(&NvLinkNetDevice::SendCredit, this));
}

Ptr<NvLinkCreditFlowControl>
NvLinkNetDevice::GetFlowControl() const
{
    return m_fc;
}

Ptr<FabricLinkFlowControl>
NvLinkNetDevice::GetLinkFlowControl() const
{
    return m_fc;
}

NvLinkNetDevice::~NvLinkNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
NvLinkNetDevice::DoDispose()
{
    m_transport = nullptr;
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    m_control.clear();
    m_queue.clear();
    if (m_fc)
    {
        m_fc->Dispose();
    }
    FabricNetDevice::DoDispose();
}

void
NvLinkNetDevice::DoInitialize()
{
    m_fc->Start(); // the peer may fill the whole buffer
    FabricNetDevice::DoInitialize();
}

void
NvLinkNetDevice::DoLinkChange(bool up)
{
    m_fc->LinkChange(up);
}

void
NvLinkNetDevice::SetTransport(Ptr<NvLinkTransport> transport, uint32_t index)
{
    m_transport = transport;
    m_portIndex = index;
}

Ptr<NvLinkTransport>
NvLinkNetDevice::GetTransport() const
{
    return m_transport;
}

void
NvLinkNetDevice::AttachToSwitch(ForwardCallback forward, DepartureCallback departure)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
    SetRole(FabricPortRole::SWITCH);
}

void
NvLinkNetDevice::DetachFromSwitch()
{
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    SetRole(FabricPortRole::HOST);
}

uint32_t
NvLinkNetDevice::GetBufferBytes() const
{
    return m_fc->GetBufferBytes();
}

uint64_t
NvLinkNetDevice::GetCredits() const
{
    return m_fc->GetCredits();
}

uint64_t
NvLinkNetDevice::GetQueuedBytes() const
{
    return m_queuedBytes;
}

uint64_t
NvLinkNetDevice::GetMaxQueuedBytes() const
{
    return m_maxQueuedBytes;
}

Time
NvLinkNetDevice::GetCreditStallTime() const
{
    return m_fc->GetHeldTime(0);
}

uint64_t
NvLinkNetDevice::GetDataBytesSent() const
{
    return m_dataBytesSent;
}

uint64_t
NvLinkNetDevice::GetDataFramesSent() const
{
    return m_dataFramesSent;
}

void
NvLinkNetDevice::SendCredit(uint32_t bytes, bool absolute)
{
    if (!GetFabricChannel())
    {
        return;
    }
    NvLinkHeader h;
    h.type = NvLinkHeader::CREDIT;
    h.bytes = bytes;
    h.slot = absolute ? CREDIT_INIT : 0;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    m_control.push_back(p);
    TryTransmit();
}

void
NvLinkNetDevice::DataReady()
{
    TryTransmit();
}

void
NvLinkNetDevice::EnqueueForwarded(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    m_queuedBytes += p->GetSize();
    m_maxQueuedBytes = std::max(m_maxQueuedBytes, m_queuedBytes);
    m_queue.push_back({p, ingress, dataBytes});
    TryTransmit();
}

void
NvLinkNetDevice::EnqueueAfter(Time delay, Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    // Packets still in the pipeline as events go first: order is kept.
    if (m_delayedEnqueues == 0 && !IsCompletionPerFrame() && IsLinkUp() && !m_transport)
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
    Simulator::Schedule(delay, &NvLinkNetDevice::DelayedEnqueue, this, p, ingress, dataBytes);
}

void
NvLinkNetDevice::DelayedEnqueue(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, ingress, dataBytes);
}

bool
NvLinkNetDevice::HasPendingFrames() const
{
    // A GPU port's transport hears of every frame's end (Sent()): always an event there.
    return m_transport || !m_queue.empty() || !m_control.empty();
}

void
NvLinkNetDevice::ReleaseBytes(uint32_t bytes)
{
    m_fc->Release(bytes, GetDataRate());
}

Ptr<Packet>
NvLinkNetDevice::DequeueForTransmit()
{
    if (!m_control.empty())
    {
        Ptr<Packet> p = m_control.front();
        m_control.pop_front();
        m_txData = false;
        return p;
    }
    if (!IsLinkUp())
    {
        return nullptr; // no credit is spent on a dead link
    }
    NvLinkCreditFlowControl& fc = *m_fc;
    if (m_transport)
    {
        bool creditBlocked = false;
        Ptr<Packet> p
            = m_transport->Dequeue(m_portIndex, fc.GetCredits(), creditBlocked, m_txHeader);
        fc.NoteStall(!creditBlocked);
        if (p)
        {
            fc.Spend(p->GetSize());
            m_txData = true; // its end tells the transport (DoTransmitComplete)
            ++m_dataFramesSent;
        }
        return p;
    }
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
    if (q.ingress != NO_INGRESS && IsSwitchPort())
    {
        m_departureCb(q.ingress, size); // the ingress port's buffer frees it
    }
    m_dataBytesSent += q.dataBytes; // counted when chosen: a switch port's frame end may pass
    ++m_dataFramesSent;
    return q.packet;
}

void
NvLinkNetDevice::DoTransmitComplete(Ptr<const Packet> /* p */)
{
    // A GPU port sends one frame at a time and hears of each frame's end (HasPendingFrames):
    // the header it kept when the transport made the frame is this frame's. Credit frames
    // come from the control queue and leave m_txData false.
    if (!m_txData)
    {
        return;
    }
    m_txData = false;
    m_dataBytesSent += m_txHeader.bytes; // a switch port counted it when it chose the frame
    m_transport->Sent(m_txHeader);
}

void
NvLinkNetDevice::DoReceive(Ptr<Packet> p)
{
    NvLinkHeader h;
    p->PeekHeader(h);
    if (h.type == NvLinkHeader::CREDIT)
    {
        m_fc->ReceiveCredit(h.bytes, h.slot == CREDIT_INIT);
        TryTransmit();
        return;
    }
    const uint32_t size = p->GetSize();
    if (!m_fc->Occupy(size))
    {
        // The sender started a packet its credits did not cover: a bug, never normal.
        CountDrop(p, FabricDropReason::CREDIT_VIOLATION);
        return;
    }
    if (IsSwitchPort())
    {
        m_forwardCb(this, p, h); // held in the buffer until it leaves the switch
        return;
    }
    if (m_transport)
    {
        m_transport->Receive(h);
    }
    else
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
    ReleaseBytes(size); // the GPU takes it into memory at once
}

bool
NvLinkNetDevice::Send(Ptr<Packet> /* packet */, const Address& /* dest */, uint16_t /* protocol */)
{
    return false; // no IP over NVLink
}

bool
NvLinkNetDevice::SendFrom(Ptr<Packet> /* packet */,
                          const Address& /* source */,
                          const Address& /* dest */,
                          uint16_t /* protocol */)
{
    return false;
}

uint64_t
NvLinkNetDevice::GetPeakQueuedBytes() const
{
    return GetMaxQueuedBytes();
}

} // namespace ns3
