/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-switch.h"

#include "ns3/abort.h"
#include "ns3/ethernet-header.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-part.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "roce-switch-mmu.h"
#include "roce-switch-port.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

namespace
{
/**
 * One round of a 32-bit multiply-xorshift mixer (the finalizer of MurmurHash3).
 * \param h the state
 * \return the mixed state
 */
inline uint32_t
Mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85EBCA6BU;
    h ^= h >> 13;
    h *= 0xC2B2AE35U;
    h ^= h >> 16;
    return h;
}
} // namespace

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceSwitch")
              .SetParent<FabricSwitch>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceSwitch>()
              .AddAttribute(
                  "BufferManager",
                  "The shared buffer's manager: admission, accounting per ingress "
                  "queue and PFC (a RoceSwitchMmu by default). Replace it before the "
                  "switch has ports.",
                  PointerValue(),
                  MakePointerAccessor(&RoceSwitch::SetBufferManager, &RoceSwitch::GetBufferManager),
                  MakePointerChecker<FabricBufferManager>())
              .AddAttribute("PortLatency",
                            "Port-to-port forwarding latency, from a frame's last bit in to its "
                            "enqueue at the output port (s). Default 400 ns: Tomahawk-class "
                            "Ethernet switches forward in ~300-500 ns.",
                            TimeValue(NanoSeconds(400)),
                            MakeTimeAccessor(&RoceSwitch::m_latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("HashSeed",
                            "Seed of the ECMP hash; 0 derives a distinct seed from the node id "
                            "(switches use different seeds to avoid hash polarization).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RoceSwitch::m_seedAttribute),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("DataDscp",
                            "DSCP of dateline class 0 (a torus's routes before the dateline). "
                            "Default 26, RoCE's data class (priority 3).",
                            UintegerValue(26),
                            MakeUintegerAccessor(&RoceSwitch::m_dataDscp),
                            MakeUintegerChecker<uint8_t>(0, 63))
              .AddAttribute("DatelineDscp",
                            "DSCP of dateline class 1 (after the dateline). Default 34 (AF41, "
                            "priority 4), a second lossless class, as torus-2QoS-style "
                            "deployments reserve one.",
                            UintegerValue(34),
                            MakeUintegerAccessor(&RoceSwitch::m_datelineDscp),
                            MakeUintegerChecker<uint8_t>(0, 63));
    return tid;
}

RoceSwitch::RoceSwitch()
{
    NS_LOG_FUNCTION(this);
    SetBufferManager(CreateObject<RoceSwitchMmu>());
}

void
RoceSwitch::SetBufferManager(Ptr<FabricBufferManager> manager)
{
    NS_ABORT_MSG_IF(!m_ports.empty(),
                    "RoceSwitch: the buffer manager is replaced before ports are added");
    manager->Adopt(this);
    FabricReplacePart(m_mmu, manager);
    m_mmu->SetPauseCallback(MakeCallback(&RoceSwitch::SendPause, this));
}

Ptr<FabricBufferManager>
RoceSwitch::GetBufferManager() const
{
    return m_mmu;
}

Ptr<FabricNetDevice>
RoceSwitch::GetFabricPort(uint32_t i) const
{
    return m_ports.at(i);
}

RoceSwitch::~RoceSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
RoceSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_ports.clear();
    if (m_mmu)
    {
        m_mmu->Dispose();
    }
    FabricSwitch::DoDispose();
}

void
RoceSwitch::NotifyNewAggregate()
{
    Ptr<Node> node = GetObject<Node>();
    if (node)
    {
        m_seed = SeedOf(node->GetId(), m_seedAttribute);
    }
    FabricSwitch::NotifyNewAggregate();
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceSwitchPort> port)
{
    NS_LOG_FUNCTION(this << port);
    const uint32_t index = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(port->GetIfIndex() != index,
                    "RoceSwitch: port " << index << " has interface index " << port->GetIfIndex()
                                        << "; a switch node holds only its ports, in order");
    m_ports.push_back(port);
    port->AttachToSwitch(MakeCallback(&RoceSwitch::Forward, this),
                         MakeCallback(&RoceSwitch::Departed, this),
                         MakeCallback(&RoceSwitch::Withdrawn, this));
    m_mmu->AddPort();
    return index;
}

uint32_t
RoceSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<RoceSwitchPort>
RoceSwitch::GetPort(uint32_t i) const
{
    NS_ASSERT(i < m_ports.size());
    return m_ports[i];
}

uint32_t
RoceSwitch::GetHashSeed() const
{
    return m_seed;
}

void
RoceSwitch::SetRoutes(Ipv4Address firstAddress,
                      const std::vector<std::vector<uint32_t>>& groups,
                      const std::vector<uint8_t>& classes)
{
    NS_ABORT_MSG_IF(!classes.empty() && classes.size() != groups.size(),
                    "RoceSwitch: " << classes.size() << " classes for " << groups.size()
                                   << " destinations");
    NS_ABORT_MSG_IF(!classes.empty() && (m_dataDscp >> 3) == (m_datelineDscp >> 3),
                    "RoceSwitch: DataDscp and DatelineDscp map to one priority");
    m_classes = classes;
    NS_LOG_FUNCTION(this << firstAddress << groups.size());
    // The fabric is cabled by now: the MMU sizes each port's headroom from its link.
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        Ptr<FabricChannel> cable = m_ports[i]->GetFabricChannel();
        if (cable)
        {
            m_mmu->SetPortLink(i, m_ports[i]->GetDataRate().GetBitRate(), cable->GetDelay());
        }
    }
    m_firstAddress = firstAddress.Get();
    m_groupStart.assign(1, 0);
    m_groupPorts.clear();
    for (const auto& g : groups)
    {
        for (uint32_t port : g)
        {
            NS_ABORT_MSG_IF(port >= m_ports.size(), "RoceSwitch: route to unknown port " << port);
            m_groupPorts.push_back(static_cast<uint16_t>(port));
        }
        m_groupStart.push_back(static_cast<uint32_t>(m_groupPorts.size()));
    }
}

std::vector<uint32_t>
RoceSwitch::GetRoute(Ipv4Address destination) const
{
    std::vector<uint32_t> ports;
    // Unsigned: an address below the first one wraps to a large index and finds no route.
    const uint32_t index = destination.Get() - m_firstAddress;
    if (index < NDestinations())
    {
        for (uint32_t k = m_groupStart[index]; k < m_groupStart[index + 1]; ++k)
        {
            ports.push_back(m_groupPorts[k]);
        }
    }
    return ports;
}

uint32_t
RoceSwitch::SelectPort(
    uint32_t src, uint32_t dst, uint8_t protocol, uint16_t srcPort, uint16_t dstPort) const
{
    const uint32_t index = dst - m_firstAddress;
    if (index >= NDestinations())
    {
        return GetNPorts();
    }
    const uint32_t begin = m_groupStart[index];
    const uint32_t n = m_groupStart[index + 1] - begin;
    if (n == 0)
    {
        return GetNPorts();
    }
    if (n == 1)
    {
        return m_groupPorts[begin];
    }
    return m_groupPorts[begin + Hash(m_seed, src, dst, protocol, srcPort, dstPort) % n];
}

uint32_t
RoceSwitch::SeedOf(uint32_t nodeId, uint32_t attribute)
{
    return attribute != 0 ? attribute : Mix(0x9E3779B9U + nodeId);
}

uint32_t
RoceSwitch::Hash(
    uint32_t seed, uint32_t src, uint32_t dst, uint8_t protocol, uint16_t srcPort, uint16_t dstPort)
{
    uint32_t h = Mix(seed ^ src);
    h = Mix(h ^ dst);
    h = Mix(h ^ ((uint32_t(protocol) << 16) | dstPort));
    return Mix(h ^ srcPort);
}

void
RoceSwitch::Forward(Ptr<RoceSwitchPort> inPort, Ptr<Packet> p)
{
    // Fixed offsets of Ethernet II (14) + IPv4 without options (20) + UDP/TCP ports (4).
    uint8_t h[38];
    const uint32_t n = p->CopyData(h, sizeof(h));
    if (n < 34 || h[12] != 0x08 || h[13] != 0x00)
    {
        inPort->CountDrop(p, FabricDropReason::NO_ROUTE);
        return;
    }
    const uint8_t ihl = h[14] & 0x0F;
    const uint8_t priority = h[15] >> 5;
    const uint8_t protocol = h[23];
    const uint32_t src
        = (uint32_t(h[26]) << 24) | (uint32_t(h[27]) << 16) | (uint32_t(h[28]) << 8) | h[29];
    const uint32_t dst
        = (uint32_t(h[30]) << 24) | (uint32_t(h[31]) << 16) | (uint32_t(h[32]) << 8) | h[33];
    uint16_t srcPort = 0;
    uint16_t dstPort = 0;
    if (ihl == 5 && n == sizeof(h) && (protocol == 17 || protocol == 6))
    {
        srcPort = static_cast<uint16_t>((h[34] << 8) | h[35]);
        dstPort = static_cast<uint16_t>((h[36] << 8) | h[37]);
    }
    const uint32_t out = SelectPort(src, dst, protocol, srcPort, dstPort);
    if (out >= m_ports.size())
    {
        inPort->CountDrop(p, FabricDropReason::NO_ROUTE);
        return;
    }
    const auto ingress = static_cast<uint16_t>(inPort->GetIfIndex());
    FabricDropReason reason;
    if (!m_mmu->Admit(ingress, priority, p->GetSize(), reason))
    {
        inPort->CountDrop(p, reason);
        return;
    }
    ++m_forwarded;
    uint8_t outPriority = priority;
    if (!m_classes.empty() && (priority == m_dataDscp >> 3 || priority == m_datelineDscp >> 3))
    {
        // Dateline: the frame leaves in its class's priority; it holds buffer at this
        // ingress under the priority it came in with.
        const uint8_t dscp = m_classes[dst - m_firstAddress] ? m_datelineDscp : m_dataDscp;
        if ((h[15] >> 2) != dscp)
        {
            p = Remark(p, dscp);
            outPriority = dscp >> 3;
        }
    }
    m_ports[out]->EnqueueAfter(m_latency, p, outPriority, ingress, priority);
}

Ptr<Packet>
RoceSwitch::Remark(Ptr<const Packet> p, uint8_t dscp)
{
    ++m_remarked;
    // On a copy (the sender's traces may hold the frame); the IPv4 checksum is recomputed.
    Ptr<Packet> q = p->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    Ipv4Header ip;
    q->RemoveHeader(ip);
    ip.SetTos(static_cast<uint8_t>((dscp << 2) | (ip.GetTos() & 0x3)));
    ip.EnableChecksum();
    q->AddHeader(ip);
    q->AddHeader(eth);
    return q;
}

uint64_t
RoceSwitch::GetRemarkedPackets() const
{
    return m_remarked;
}

void
RoceSwitch::Departed(uint16_t ingress, uint8_t priority, uint32_t bytes, Time at)
{
    m_mmu->ReleaseAt(at, ingress, priority, bytes);
}

void
RoceSwitch::Withdrawn(uint16_t ingress, uint8_t priority, uint32_t bytes, Time at)
{
    m_mmu->CancelRelease(at, ingress, priority, bytes);
}

void
RoceSwitch::SendPause(uint32_t port, uint8_t priority, uint16_t quanta)
{
    m_ports[port]->SendPfc(priority, quanta);
}

Ptr<RoceSwitchMmu>
RoceSwitch::GetMmu() const
{
    return DynamicCast<RoceSwitchMmu>(m_mmu);
}

uint32_t
RoceSwitch::NDestinations() const
{
    return m_groupStart.empty() ? 0 : static_cast<uint32_t>(m_groupStart.size() - 1);
}

} // namespace ns3
