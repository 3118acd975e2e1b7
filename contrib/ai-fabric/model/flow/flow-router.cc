/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "flow-router.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowRouter");
NS_OBJECT_ENSURE_REGISTERED(FlowRouter);

namespace
{
/**
 * \param hops switches
 * \param bytes wire bytes of the packet
 * \return seconds the packet spends in them and on their egress links
 */
double
HopSeconds(const std::vector<FlowHop>& hops, double bytes)
{
    double s = 0;
    for (const FlowHop& h : hops)
    {
        const double latency = h.latency.GetSeconds();
        // Cut-through: the egress starts PortLatency after the first bit, or when the
        // whole packet is in if that is later (the switch's model).
        s += h.cutThrough ? std::max(0.0, latency - bytes * h.inSecondsPerByte) : latency;
        s += bytes * h.outSecondsPerByte;
    }
    return s;
}
} // namespace

uint64_t
FlowRoute::Packets(uint64_t bytes) const
{
    return std::max<uint64_t>(1, (bytes + unit - 1) / unit);
}

uint64_t
FlowRoute::WireBytes(uint64_t bytes) const
{
    const uint64_t packets = std::max<uint64_t>(1, (bytes + unit - 1) / unit);
    const auto payload
        = efficiency >= 1.0 ? bytes : static_cast<uint64_t>(std::ceil(bytes / efficiency));
    return payload + packets * perPacket + perMessage;
}

double
FlowRoute::MaxRate(uint64_t bytes) const
{
    if (lanes <= 1)
    {
        return std::numeric_limits<double>::infinity();
    }
    // One packet on each port at a time: a message of fewer packets than ports uses fewer.
    const uint64_t packets = Packets(bytes);
    return static_cast<double>(std::min<uint64_t>(packets, lanes)) / (firstSecondsPerByte * lanes);
}

Time
FlowRoute::ArrivalDelay(uint64_t bytes) const
{
    const uint64_t packets = std::max<uint64_t>(1, (bytes + unit - 1) / unit);
    const uint64_t last = bytes - (packets - 1) * unit;
    const double lastWire
        = std::ceil(last / efficiency) + perPacket + (packets == 1 ? perMessage : perLast);
    return fixed + Seconds(HopSeconds(hops, lastWire));
}

Time
FlowRoute::CompletionDelay(uint64_t bytes) const
{
    if (!acked)
    {
        return Time(0); // done when its bytes left
    }
    const double ack = ackBytes * ackFirstSecondsPerByte + ackFixed.GetSeconds()
                       + HopSeconds(ackHops, ackBytes) + ackRxLatency.GetSeconds();
    return ArrivalDelay(bytes) + Seconds(ack);
}

TypeId
FlowRouter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowRouter").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

void
FlowRouter::DoDispose()
{
    m_listeners.clear();
    Object::DoDispose();
}

void
FlowRouter::AddListener(Listener* listener)
{
    m_listeners.push_back(listener);
}

bool
FlowRouter::Retrace(FlowRoute& /* route */)
{
    return false; // routes that never change
}

void
FlowRouter::NotifyRoutesChanged()
{
    for (Listener* listener : m_listeners)
    {
        listener->RoutesChanged();
    }
}

} // namespace ns3
