/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvswitch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "nvlink-header.h"
#include "nvswitch-port.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitch");
NS_OBJECT_ENSURE_REGISTERED(NvSwitch);

TypeId
NvSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvSwitch")
              .SetParent<FabricSwitch>()
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
              .AddAttribute("Nvls",
                            "The chip reduces and multicasts in the switch (NVSwitch gen3 and "
                            "later). Off, NVLS packets have no route (dropped as NoRoute). "
                            "Default true; ServerHelper sets it from the preset.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&NvSwitch::m_nvls),
                            MakeBooleanChecker())
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
    for (const auto& port : m_ports)
    {
        port->DetachFromSwitch();
    }
    m_ports.clear();
    FabricSwitch::DoDispose();
}

uint32_t
NvSwitch::AddPort(Ptr<NvSwitchPort> port)
{
    const auto index = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(port->GetIfIndex() != index,
                    "NvSwitch: port " << index << " has interface index " << port->GetIfIndex()
                                      << "; a switch node holds only its ports, in order");
    m_ports.push_back(port);
    port->AttachToSwitch(MakeCallback(&NvSwitch::Forward, this),
                         MakeCallback(&NvSwitch::Departed, this));
    return index;
}

uint32_t
NvSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<NvSwitchPort>
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

Ptr<FabricNetDevice>
NvSwitch::GetFabricPort(uint32_t i) const
{
    return m_ports.at(i);
}

uint64_t
NvSwitch::GetNvlsReductions() const
{
    return m_nvlsReductions;
}

std::size_t
NvSwitch::GetPendingReductions() const
{
    return m_reductions.size();
}

uint64_t
NvSwitch::GetNvlsCopies() const
{
    return m_nvlsCopies;
}

Ptr<Packet>
NvSwitch::Derived(const NvLinkHeader& h, uint8_t type, uint16_t dstGpu, uint32_t payloadBytes)
{
    NvLinkHeader d = h;
    d.type = static_cast<NvLinkHeader::Type>(type);
    d.dstGpu = dstGpu;
    Ptr<Packet> p = Create<Packet>(payloadBytes);
    p->AddHeader(d);
    return p;
}

void
NvSwitch::Schedule(
    uint32_t out, Ptr<Packet> p, uint32_t ingress, Time serialization, uint32_t dataBytes)
{
    Time delay = m_latency;
    if (m_cutThrough)
    {
        delay = m_latency > serialization ? m_latency - serialization : Time(0);
    }
    ++m_forwarded;
    m_ports[out]->EnqueueAfter(delay, p, ingress, dataBytes);
}

void
NvSwitch::Forward(Ptr<NvSwitchPort> in, Ptr<Packet> p, const NvLinkHeader& h)
{
    const uint32_t ingress = in->GetIfIndex();
    const uint32_t size = p->GetSize();
    const Time serialization = FabricBytesTxTime(in->GetDataRate(), size);
    if (!m_nvls && (h.type == NvLinkHeader::NVLS_REDUCE || h.type == NvLinkHeader::NVLS_MULTICAST))
    {
        in->CountDrop(p, FabricDropReason::NO_ROUTE); // this chip has no NVLS engines
        in->ReleaseBytes(size);
        return;
    }
    if (h.type == NvLinkHeader::NVLS_REDUCE)
    {
        // The reduction engine takes the contribution in: its ingress buffer is free at once.
        in->ReleaseBytes(size);
        const uint64_t key = (static_cast<uint64_t>(h.tag) << 32) | h.index;
        uint16_t& count = m_reductions[key];
        if (++count < h.groupSize)
        {
            return;
        }
        m_reductions.erase(key);
        const uint32_t out = GetRoute(h.dstGpu);
        if (out == NO_PORT)
        {
            in->CountDrop(p, FabricDropReason::NO_ROUTE);
            return;
        }
        ++m_nvlsReductions;
        // The result comes from the reduction: the destination is its source too.
        NvLinkHeader r = h;
        r.srcGpu = h.dstGpu; // every packet of the result from the same source
        Ptr<Packet> result = Derived(r, NvLinkHeader::DATA, h.dstGpu, size - NvLinkHeader::SIZE);
        Schedule(out, result, NvLinkNetDevice::NO_INGRESS, serialization, r.bytes);
        return;
    }
    if (h.type == NvLinkHeader::NVLS_MULTICAST)
    {
        in->ReleaseBytes(size);
        for (uint16_t g = 0; g < h.groupSize; ++g)
        {
            const uint32_t out = GetRoute(g);
            if (out == NO_PORT)
            {
                in->CountDrop(p, FabricDropReason::NO_ROUTE);
                continue;
            }
            ++m_nvlsCopies;
            Schedule(out,
                     Derived(h, NvLinkHeader::DATA, g, size - NvLinkHeader::SIZE),
                     NvLinkNetDevice::NO_INGRESS,
                     serialization,
                     h.bytes);
        }
        return;
    }
    const uint32_t out = GetRoute(h.dstGpu);
    if (out == NO_PORT)
    {
        in->CountDrop(p, FabricDropReason::NO_ROUTE);
        in->ReleaseBytes(size);
        return;
    }
    Schedule(out, p, ingress, serialization, h.bytes);
}

void
NvSwitch::Departed(uint32_t ingress, uint32_t bytes)
{
    m_ports[ingress]->ReleaseBytes(bytes);
}

bool
NvSwitch::IsCutThrough() const
{
    return m_cutThrough;
}

} // namespace ns3
