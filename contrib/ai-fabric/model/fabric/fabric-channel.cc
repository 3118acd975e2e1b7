/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-channel.h"

#include "fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricChannel")
              .SetParent<Channel>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricChannel>()
              .AddAttribute("Delay",
                            "One-way propagation delay (s). Default 10 ns: a 2 m cable at "
                            "~5 ns/m (signal speed 2e8 m/s).",
                            TimeValue(NanoSeconds(10)),
                            MakeTimeAccessor(&FabricChannel::m_delay),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("LinkState",
                              "The link went down (false) or came up (true).",
                              MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                              "ns3::FabricChannel::LinkStateTracedCallback");
    return tid;
}

FabricChannel::FabricChannel()
{
    NS_LOG_FUNCTION(this);
}

FabricChannel::~FabricChannel()
{
    NS_LOG_FUNCTION(this);
}

void
FabricChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    Channel::DoDispose();
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_nDevices >= 2, "FabricChannel: a cable has exactly two ends");
    m_devices[m_nDevices] = device;
    m_nodeIds[m_nDevices] = device->GetNode()->GetId();
    ++m_nDevices;
}

bool
FabricChannel::Transmit(Ptr<Packet> p, const FabricNetDevice* src, Time txTime, uint32_t* ticket)
{
    NS_LOG_FUNCTION(this << p << src << txTime);
    NS_ASSERT_MSG(m_nDevices == 2, "FabricChannel: transmit on a cable with one end");
    if (!m_up)
    {
        return false;
    }
    const uint32_t dst = (src == PeekPointer(m_devices[0])) ? 1 : 0;
    if (ticket)
    {
        *ticket = m_nextTicket;
    }
    Simulator::ScheduleWithContext(
        m_nodeIds[dst], txTime + m_delay, &FabricChannel::Deliver, this, dst, p, m_nextTicket++);
    return true;
}

void
FabricChannel::Withdraw(uint32_t ticket)
{
    NS_LOG_FUNCTION(this << ticket);
    m_withdrawn.push_back(ticket);
}

void
FabricChannel::Deliver(uint32_t dst, Ptr<Packet> p, uint32_t ticket)
{
    if (!m_withdrawn.empty())
    {
        auto it = std::find(m_withdrawn.begin(), m_withdrawn.end(), ticket);
        if (it != m_withdrawn.end())
        {
            // Taken back before its first bit left (ScheduleWithContext gives no EventId to
            // cancel): it never was on the cable.
            *it = m_withdrawn.back();
            m_withdrawn.pop_back();
            return;
        }
    }
    // Serial-number order: tickets wrap after 2^32 frames, far more than a cable holds.
    if (static_cast<int32_t>(ticket - m_liveFrom) < 0)
    {
        // The link went down while the packet was on the cable.
        m_devices[dst]->NotifyLostInFlight(p);
        return;
    }
    m_devices[dst]->Receive(p);
}

void
FabricChannel::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    m_liveFrom = m_nextTicket;
    m_linkStateTrace(up);
    for (uint32_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyLinkChange(up);
    }
}

bool
FabricChannel::IsLinkUp() const
{
    return m_up;
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    NS_ASSERT(m_nDevices == 2);
    return (device == PeekPointer(m_devices[0])) ? m_devices[1] : m_devices[0];
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    NS_ASSERT(i < m_nDevices);
    return m_devices[i];
}

} // namespace ns3
