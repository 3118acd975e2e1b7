/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFabricHelper");

RoceFabricHelper::RoceFabricHelper()
    : m_topology(Create<FabricTopology>())
{
    m_deviceFactory.SetTypeId(RoceNetDevice::GetTypeId());
    m_channelFactory.SetTypeId(FabricChannel::GetTypeId());
    m_transportFactory.SetTypeId(RdmaTransport::GetTypeId());
    m_switchFactory.SetTypeId(RoceSwitch::GetTypeId());
}

RoceFabricHelper::~RoceFabricHelper() {}

void
RoceFabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
RoceFabricHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
RoceFabricHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

void
RoceFabricHelper::SetQueuePairAttribute(const std::string& name, const AttributeValue& value)
{
    m_qpAttributes.emplace_back(name, value.Copy());
}

void
RoceFabricHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    m_mmuAttributes.emplace_back(name, value.Copy());
}

void
RoceFabricHelper::SetCongestionControlAttribute(const std::string& name,
                                                const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

void
RoceFabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
RoceFabricHelper::SetBaseAddress(Ipv4Address base)
{
    m_base = base;
}

NetDeviceContainer
RoceFabricHelper::InstallHosts(NodeContainer hosts)
{
    NetDeviceContainer devices;
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> node = *it;
        const uint32_t nodeId = node->GetId();
        NS_ABORT_MSG_IF(nodeId < m_nicOfNode.size() && m_nicOfNode[nodeId],
                        "RoceFabricHelper: node " << nodeId << " already has a NIC");
        const Ipv4Address address(m_base.Get() + 1 + m_topology->GetNEndpoints());
        Ptr<RoceNetDevice> nic = m_deviceFactory.Create<RoceNetDevice>();
        nic->SetIpv4Address(address);
        node->AddDevice(nic);
        Ptr<RdmaTransport> transport = m_transportFactory.Create<RdmaTransport>();
        transport->SetAddress(address.Get());
        for (const auto& [name, value] : m_qpAttributes)
        {
            transport->SetQueuePairAttribute(name, *value);
        }
        for (const auto& [name, value] : m_ccAttributes)
        {
            transport->SetCongestionControlAttribute(name, *value);
        }
        nic->SetTransport(transport);
        std::ostringstream name;
        name << "host" << m_transports.size();
        const uint32_t vertex = m_topology->AddEndpoint(node, address.Get(), name.str());
        if (m_nicOfNode.size() <= nodeId)
        {
            m_nicOfNode.resize(nodeId + 1);
            m_vertexOfHost.resize(nodeId + 1, UINT32_MAX);
        }
        m_nicOfNode[nodeId] = nic;
        m_vertexOfHost[nodeId] = vertex;
        m_transports.push_back(transport);
        devices.Add(nic);
    }
    return devices;
}

void
RoceFabricHelper::InstallSwitches(NodeContainer switches)
{
    uint32_t i = 0;
    for (auto it = switches.Begin(); it != switches.End(); ++it, ++i)
    {
        Ptr<Node> node = *it;
        NS_ABORT_MSG_IF(node->GetNDevices() != 0,
                        "RoceFabricHelper: switch node " << node->GetId()
                                                         << " already has devices");
        Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
        for (const auto& [name, value] : m_mmuAttributes)
        {
            sw->GetMmu()->SetAttribute(name, *value);
        }
        node->AggregateObject(sw);
        std::ostringstream name;
        name << "switch" << node->GetId();
        m_topology->AddSwitch(node, name.str());
    }
}

std::pair<Ptr<RoceNetDevice>, uint32_t>
RoceFabricHelper::PortFor(Ptr<Node> node)
{
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    if (sw)
    {
        Ptr<RoceNetDevice> port = m_deviceFactory.Create<RoceNetDevice>();
        port->SetAddress(Mac48Address::Allocate());
        node->AddDevice(port);
        sw->AddPort(port);
        return {port, m_topology->GetSwitchVertex(node)};
    }
    const uint32_t nodeId = node->GetId();
    NS_ABORT_MSG_IF(nodeId >= m_nicOfNode.size() || !m_nicOfNode[nodeId],
                    "RoceFabricHelper: node " << nodeId << " is neither a host nor a switch");
    Ptr<RoceNetDevice> nic = m_nicOfNode[nodeId];
    NS_ABORT_MSG_IF(nic->GetFabricChannel(),
                    "RoceFabricHelper: host node " << nodeId << " has one NIC, already cabled");
    return {nic, m_vertexOfHost[nodeId]};
}

NetDeviceContainer
RoceFabricHelper::Connect(Ptr<Node> a, Ptr<Node> b)
{
    auto [portA, vertexA] = PortFor(a);
    auto [portB, vertexB] = PortFor(b);
    Ptr<FabricChannel> channel = m_channelFactory.Create<FabricChannel>();
    portA->Attach(channel);
    portB->Attach(channel);
    m_topology->AddLink(vertexA, vertexB, portA, portB, channel);
    m_channels.push_back(channel);
    NetDeviceContainer devices;
    devices.Add(portA);
    devices.Add(portB);
    return devices;
}

Ipv4InterfaceContainer
RoceFabricHelper::AssignIpv4(NodeContainer hosts, Ipv4Mask mask)
{
    Ipv4InterfaceContainer interfaces;
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> host = *it;
        Ptr<Ipv4> ipv4 = host->GetObject<Ipv4>();
        NS_ABORT_MSG_IF(!ipv4,
                        "RoceFabricHelper::AssignIpv4: node " << host->GetId()
                                                              << " has no IPv4 stack (install "
                                                                 "one with InternetStackHelper)");
        Ptr<RoceNetDevice> nic = GetNic(host);
        int32_t index = ipv4->GetInterfaceForDevice(nic);
        if (index < 0)
        {
            index = static_cast<int32_t>(ipv4->AddInterface(nic));
        }
        ipv4->AddAddress(index, Ipv4InterfaceAddress(nic->GetIpv4Address(), mask));
        ipv4->SetMetric(index, 1);
        ipv4->SetUp(index);
        interfaces.Add(ipv4, index);
    }
    return interfaces;
}

void
RoceFabricHelper::ComputeRoutes()
{
    EcmpRoutingEngine engine;
    const FabricRouteTable table = engine.Compute(*m_topology);
    const FabricTopology::Graph& g = m_topology->GetGraph();
    for (uint32_t v = 0; v < m_topology->GetNVertices(); ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH)
        {
            continue;
        }
        g[v].node->GetObject<RoceSwitch>()->SetRoutes(Ipv4Address(m_base.Get() + 1),
                                                      table.GetSwitchTable(v));
    }
}

Ptr<RoceNetDevice>
RoceFabricHelper::GetNic(Ptr<Node> host) const
{
    const uint32_t nodeId = host->GetId();
    NS_ABORT_MSG_IF(nodeId >= m_nicOfNode.size() || !m_nicOfNode[nodeId],
                    "RoceFabricHelper: node " << nodeId << " is not a host");
    return m_nicOfNode[nodeId];
}

Ptr<RdmaTransport>
RoceFabricHelper::GetTransport(Ptr<Node> host) const
{
    return GetNic(host)->GetTransport();
}

Ipv4Address
RoceFabricHelper::GetAddress(Ptr<Node> host) const
{
    return GetNic(host)->GetIpv4Address();
}

Ptr<FabricTopology>
RoceFabricHelper::GetTopology() const
{
    return m_topology;
}

const std::vector<Ptr<FabricChannel>>&
RoceFabricHelper::GetChannels() const
{
    return m_channels;
}

int64_t
RoceFabricHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& t : m_transports)
    {
        used += t->AssignStreams(stream + used);
    }
    for (auto& c : m_channels)
    {
        for (std::size_t i = 0; i < c->GetNDevices(); ++i)
        {
            used += DynamicCast<RoceNetDevice>(c->GetDevice(i))->AssignStreams(stream + used);
        }
    }
    return used;
}

void
RoceFabricHelper::EnablePcapInternal(std::string prefix,
                                     Ptr<NetDevice> nd,
                                     bool /* promiscuous */,
                                     bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        return;
    }
    PcapHelper pcapHelper;
    const std::string filename
        = explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file
        = pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<RoceNetDevice>(device, "PromiscSniffer", file);
}

} // namespace ns3
