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
 * \param h a switch
 * \param bytes wire bytes of the packet
 * \return seconds the packet spends in it and on its egress link
 */
double
HopSeconds(const FlowHop& h, double bytes)
{
    // Cut-through: the egress starts PortLatency after the first bit, or when the whole
    // packet is in if that is later (the switch's model).
    const double latency = h.latency.GetSeconds();
    return (h.cutThrough ? std::max(0.0, latency - bytes * h.inSecondsPerByte) : latency)
           + bytes * h.outSecondsPerByte;
}

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
        s += HopSeconds(h, bytes);
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

void
FlowRoute::Spray(uint64_t bytes, double& send, double& arrival) const
{
    const std::vector<FlowHop>& ports = *lanePorts;
    const uint64_t packets = Packets(bytes);
    const uint64_t last = bytes - (packets - 1) * unit;
    const double full = std::ceil(unit / efficiency) + perPacket;
    const double lastWire
        = std::ceil(last / efficiency) + perPacket + (packets == 1 ? perMessage : perLast);
    std::vector<double> free(ports.size(), 0.0);
    send = 0;
    arrival = 0;
    for (uint64_t k = 0; k < packets; ++k)
    {
        std::size_t p = 0;
        for (std::size_t q = 1; q < free.size(); ++q)
        {
            if (free[q] < free[p])
            {
                p = q;
            }
        }
        const double wire = k + 1 == packets ? lastWire : full;
        free[p] += wire * ports[p].inSecondsPerByte;
        send = std::max(send, free[p]);
        arrival = std::max(arrival, free[p] + HopSeconds(ports[p], wire));
    }
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
    if (lanes > 1 && lanePorts && !lanePorts->empty())
    {
        // Its flow takes the ports together, at their sum (the next message fills what a
        // port leaves idle); alone, its last packet arrives when the ports, each taking the
        // next packet as it frees, have sent every packet and the slowest way has carried it.
        double send = 0;
        double arrival = 0;
        Spray(bytes, send, arrival);
        const double flow = static_cast<double>(WireBytes(bytes)) / MaxRate(bytes);
        return fixed + Seconds(std::max(0.0, arrival - flow));
    }
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
