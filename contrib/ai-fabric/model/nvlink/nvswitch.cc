/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvswitch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "nvlink-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitch");
NS_OBJECT_ENSURE_REGISTERED(NvSwitch);

TypeId
NvSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvSwitch")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvSwitch>()
              .AddAttribute("PortLatency",
                            "Port-to-port latency (s). Default 100 ns: NVSwitch's latency is "
                            "not published; taken of the order of an InfiniBand switch's "
                            "(130 ns). NCCL's own per-hop latency on NVLink (the "
                            "Communicator's NVLink step latencies) is far larger.",
                            TimeValue(NanoSeconds(100)),
                            MakeTimeAccessor(&NvSwitch::m_latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("CutThrough",
                            "Cut-through forwarding: a packet's last bit leaves PortLatency "
                            "after it arrived. Off: store and forward. Default true.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&NvSwitch::m_cutThrough),
                            MakeBooleanChecker());
    return tid;
}

NvSwitch::NvSwitch()
{
    NS_LOG_FUNCTION(this);
}

NvSwitch::~NvSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
NvSwitch::DoDispose()
{
    m_ports.clear();
    Object::DoDispose();
}

uint32_t
NvSwitch::AddPort(Ptr<NvLinkNetDevice> port)
{
    const auto index = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(port->GetIfIndex() != index,
                    "NvSwitch: port " << index << " has interface index " << port->GetIfIndex()
                                      << "; a switch node holds only its ports, in order");
    m_ports.push_back(port);
    port->SetForwardCallback(MakeCallback(&NvSwitch::Forward, this));
    port->SetDepartureCallback(MakeCallback(&NvSwitch::Departed, this));
    return index;
}

uint32_t
NvSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<NvLinkNetDevice>
NvSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

void
NvSwitch::SetRoute(uint16_t gpu, uint32_t port)
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), "NvSwitch: no port " << port);
    if (gpu >= m_table.size())
    {
        m_table.resize(gpu + 1, NO_PORT);
    }
    m_table[gpu] = port;
}

uint32_t
NvSwitch::GetRoute(uint16_t gpu) const
{
    return gpu < m_table.size() ? m_table[gpu] : NO_PORT;
}

uint64_t
NvSwitch::GetForwardedPackets() const
{
    return m_forwarded;
}

void
NvSwitch::Forward(Ptr<NvLinkNetDevice> in, Ptr<Packet> p, uint16_t dstGpu)
{
    const uint32_t out = GetRoute(dstGpu);
    const uint32_t ingress = in->GetIfIndex();
    if (out == NO_PORT)
    {
        in->CountDrop(p, FabricDropReason::NO_ROUTE);
        in->ReleaseBytes(p->GetSize());
        return;
    }
    Time delay = m_latency;
    if (m_cutThrough)
    {
        const Time serialization = in->GetDataRate().CalculateBytesTxTime(p->GetSize());
        delay = m_latency > serialization ? m_latency - serialization : Time(0);
    }
    ++m_forwarded;
    Simulator::Schedule(delay, &NvLinkNetDevice::EnqueueForwarded, m_ports[out], p, ingress);
}

void
NvSwitch::Departed(uint32_t ingress, uint32_t bytes)
{
    m_ports[ingress]->ReleaseBytes(bytes);
}

} // namespace ns3
