/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-switch-port.h"

#include "ib-credit-flow-control.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbSwitchPort");
NS_OBJECT_ENSURE_REGISTERED(IbSwitchPort);

TypeId
IbSwitchPort::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbSwitchPort")
              .SetParent<IbNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbSwitchPort>()
              .AddAttribute("Vl15BufferBytes",
                            "Receive buffer of the management lane VL15 (bytes). VL15 has no "
                            "credits: a management packet that does not fit is dropped "
                            "(Vl15Overflow), as IBTA allows. Default 870: three 290-byte "
                            "management packets (IBTA requires room for at least one).",
                            UintegerValue(3 * MANAGEMENT_PACKET_BYTES),
                            MakeUintegerAccessor(&IbSwitchPort::m_vl15BufferBytes),
                            MakeUintegerChecker<uint32_t>(MANAGEMENT_PACKET_BYTES));
    return tid;
}

IbSwitchPort::IbSwitchPort()
{
    NS_LOG_FUNCTION(this);
    SetRole(FabricPortRole::SWITCH);
}

IbSwitchPort::~IbSwitchPort()
{
    NS_LOG_FUNCTION(this);
}

void
IbSwitchPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_forwardCb = ForwardCallback();
    m_departureCb = DepartureCallback();
    IbNetDevice::DoDispose();
}

void
IbSwitchPort::ReceiveData(Ptr<Packet> p, uint8_t vl, uint32_t /* blocks */, const uint8_t* /* h */)
{
    NS_ABORT_MSG_IF(m_forwardCb.IsNull(),
                    "IbSwitchPort: a packet arrived at a port no switch adopted");
    m_forwardCb(this, p, vl); // its blocks are held until it leaves the switch
}

void
IbSwitchPort::ReceiveManagement(Ptr<Packet> p, const uint8_t* /* lrh */)
{
    NS_ABORT_MSG_IF(m_forwardCb.IsNull(),
                    "IbSwitchPort: a packet arrived at a port no switch adopted");
    const uint32_t size = p->GetSize();
    if (m_vl15Occupied + size > m_vl15BufferBytes)
    {
        CountDrop(p, FabricDropReason::VL15_OVERFLOW);
        return;
    }
    m_vl15Occupied += size; // held until it leaves the switch
    m_forwardCb(this, p, MANAGEMENT_VL);
}

void
IbSwitchPort::Departed(uint16_t ingress, uint8_t vl, uint32_t bytes)
{
    m_departureCb(ingress, vl, bytes);
}

void
IbSwitchPort::AttachToSwitch(ForwardCallback forward, DepartureCallback departure)
{
    NS_ASSERT(!forward.IsNull() && !departure.IsNull());
    m_forwardCb = forward;
    m_departureCb = departure;
}

void
IbSwitchPort::EnqueueForwarded(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
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
        EnqueueManagement(p, ingress);
        TryTransmit();
        return;
    }
    EnqueueData(p, vl, ingress, inVl);
    TryTransmit();
}

void
IbSwitchPort::EnqueueAfter(Time delay, Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
{
    // Packets still in the pipeline as events go first: order is kept.
    if (m_delayedEnqueues == 0 && !IsCompletionPerFrame() && vl != MANAGEMENT_VL && vl < m_dataVls
        && IsLinkUp())
    {
        const Time ready = Simulator::Now() + delay;
        const bool alone = QueuesEmpty() && m_fc->HasCredits(vl, Blocks(p->GetSize()));
        EnqueueData(p, vl, ingress, inVl, ready);
        if (alone && CanChooseAhead(ready))
        {
            TransmitAhead(); // alone, with credits: it leaves when ready or the wire frees
            return;
        }
        TryTransmit();
        return;
    }
    ++m_delayedEnqueues;
    Simulator::Schedule(delay, &IbSwitchPort::DelayedEnqueue, this, p, vl, ingress, inVl);
}

void
IbSwitchPort::DelayedEnqueue(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl)
{
    --m_delayedEnqueues;
    EnqueueForwarded(p, vl, ingress, inVl);
}

void
IbSwitchPort::ReleaseBlocks(uint8_t vl, uint32_t bytes)
{
    if (vl == MANAGEMENT_VL)
    {
        m_vl15Occupied -= bytes; // no credits to return on VL15
        return;
    }
    m_fc->Free(vl, Blocks(bytes));
}

} // namespace ns3
