/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-buffer-manager.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-congestion-marker.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHelper");

FabricHelper::FabricHelper()
    : m_topology(Create<FabricTopology>())
    , m_parts("FabricHelper", FabricNetDevice::GetTypeId())
{
    m_channelFactory.SetTypeId(FabricChannel::GetTypeId());
    m_transportFactory.SetTypeId(RdmaTransport::GetTypeId());
}

FabricHelper::~FabricHelper() = default;

void
FabricHelper::SetPortTypes(TypeId nicPort, TypeId switchPort)
{
    m_nicPortFactory.SetTypeId(nicPort);
    m_switchPortFactory.SetTypeId(switchPort);
    m_parts.SetPortTypes(nicPort, switchPort);
}

void
FabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    const bool nic = m_nicPortFactory.GetTypeId().LookupAttributeByName(name, &info);
    const bool sw = m_switchPortFactory.GetTypeId().LookupAttributeByName(name, &info);
    NS_ABORT_MSG_IF(!nic && !sw, Name() << ": its ports have no attribute " << name);
    if (nic)
    {
        m_nicPortFactory.Set(name, value);
    }
    if (sw)
    {
        m_switchPortFactory.Set(name, value);
    }
}

void
FabricHelper::SetPortPart(const std::string& part, const std::string& type)
{
    m_parts.SetPart(part, type);
}

void
FabricHelper::SetPortPartAttribute(const std::string& part,
                                   const std::string& name,
                                   const AttributeValue& value)
{
    m_parts.SetAttribute(part, name, value);
}

Time
FabricHelper::GetSwitchLatency(Ptr<Node> sw) const
{
    return sw->GetObject<FabricSwitch>()->GetPortLatency();
}

uint64_t
FabricHelper::GetSwitchPausesSent(Ptr<Node> sw) const
{
    Ptr<FabricBufferManager> buffer = sw->GetObject<FabricSwitch>()->GetBufferManager();
    return buffer ? buffer->GetPausesSent() : 0;
}

void
FabricHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
FabricHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

void
FabricHelper::SetQueuePairAttribute(const std::string& name, const AttributeValue& value)
{
    m_qpAttributes.emplace_back(name, value.Copy());
}

void
FabricHelper::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

std::string
FabricHelper::SetCongestionControl(const std::string& name)
{
    RdmaCcRegistration::Entry cc;
    if (!RdmaCcRegistration::Lookup(name, cc))
    {
        return "unknown congestion control '" + name + "' (expected " + RdmaCcRegistration::Names()
               + " or the TypeId name of a subclass of ns3::RdmaCongestionControl)";
    }
    if (!cc.fabric.empty() && cc.fabric != GetFabricName())
    {
        return "congestion control '" + name + "' runs on --fabric=" + cc.fabric + " only";
    }
    SetTransportAttribute("CongestionControl", TypeIdValue(cc.typeId));
    PrepareCongestionControl(cc);
    return "";
}

void
FabricHelper::PrepareCongestionControl(const RdmaCcRegistration::Entry& /* cc */)
{
}

void
FabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

NetDeviceContainer
FabricHelper::InstallHosts(NodeContainer hosts)
{
    NetDeviceContainer devices;
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> node = *it;
        const uint32_t nodeId = node->GetId();
        NS_ABORT_MSG_IF(nodeId < m_portOfNode.size() && m_portOfNode[nodeId],
                        Name() << ": node " << nodeId << " already has a NIC");
        const uint32_t address = HostAddress(m_topology->GetNEndpoints());
        Ptr<RdmaTransport> transport = m_transportFactory.Create<RdmaTransport>();
        transport->SetAddress(address);
        for (const auto& [name, value] : m_qpAttributes)
        {
            transport->SetQueuePairAttribute(name, *value);
        }
        for (const auto& [name, value] : m_ccAttributes)
        {
            transport->SetCongestionControlAttribute(name, *value);
        }
        Ptr<FabricNetDevice> port = CreateHostPort(node, address, transport);
        m_parts.Configure(port);
        std::ostringstream name;
        name << "host" << m_transports.size();
        const uint32_t vertex = m_topology->AddEndpoint(node, address, name.str());
        if (m_portOfNode.size() <= nodeId)
        {
            m_portOfNode.resize(nodeId + 1);
            m_transportOfNode.resize(nodeId + 1);
            m_addressOfNode.resize(nodeId + 1, 0);
            m_vertexOfHost.resize(nodeId + 1, UINT32_MAX);
        }
        m_portOfNode[nodeId] = port;
        m_transportOfNode[nodeId] = transport;
        m_addressOfNode[nodeId] = address;
        m_vertexOfHost[nodeId] = vertex;
        m_transports.push_back(transport);
        devices.Add(port);
    }
    return devices;
}

void
FabricHelper::InstallSwitches(NodeContainer switches)
{
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        Ptr<Node> node = *it;
        NS_ABORT_MSG_IF(node->GetNDevices() != 0,
                        Name() << ": switch node " << node->GetId() << " already has devices");
        CreateSwitch(node);
        std::ostringstream name;
        name << "switch" << node->GetId();
        m_topology->AddSwitch(node, name.str());
    }
}

std::pair<Ptr<FabricNetDevice>, uint32_t>
FabricHelper::PortFor(Ptr<Node> node)
{
    Ptr<FabricNetDevice> port = CreateSwitchPort(node);
    if (port)
    {
        m_parts.Configure(port);
        return {port, m_topology->GetSwitchVertex(node)};
    }
    const uint32_t nodeId = node->GetId();
    NS_ABORT_MSG_IF(nodeId >= m_portOfNode.size() || !m_portOfNode[nodeId],
                    Name() << ": node " << nodeId << " is neither a host nor a switch");
    Ptr<FabricNetDevice> nic = m_portOfNode[nodeId];
    NS_ABORT_MSG_IF(nic->GetFabricChannel(),
                    Name() << ": host node " << nodeId << " has one NIC, already cabled");
    return {nic, m_vertexOfHost[nodeId]};
}

NetDeviceContainer
FabricHelper::Connect(Ptr<Node> a, Ptr<Node> b)
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

Ptr<FabricNetDevice>
FabricHelper::GetHostPort(Ptr<Node> host) const
{
    const uint32_t nodeId = host->GetId();
    NS_ABORT_MSG_IF(nodeId >= m_portOfNode.size() || !m_portOfNode[nodeId],
                    Name() << ": node " << nodeId << " is not a host");
    return m_portOfNode[nodeId];
}

Ptr<RdmaTransport>
FabricHelper::GetTransport(Ptr<Node> host) const
{
    GetHostPort(host); // checks it is a host
    return m_transportOfNode[host->GetId()];
}

uint32_t
FabricHelper::GetHostAddress(Ptr<Node> host) const
{
    GetHostPort(host);
    return m_addressOfNode[host->GetId()];
}

uint32_t
FabricHelper::SelectEqualCostPort(uint32_t /* switchNode */,
                                  uint32_t /* src */,
                                  uint32_t /* dst */,
                                  uint16_t /* entropy */,
                                  uint32_t n) const
{
    return n;
}

uint32_t
FabricHelper::GetHostAddressOf(uint32_t endpoint) const
{
    return HostAddress(endpoint);
}

uint32_t
FabricHelper::SelectRdmaEgress(Ptr<Node> sw,
                               Ptr<Node> /* host */,
                               uint32_t /* dst */,
                               uint16_t /* entropy */) const
{
    return sw->GetObject<FabricSwitch>()->GetNPorts();
}

std::vector<Ptr<FabricNetDevice>>
FabricHelper::TraceRdmaPath(Ptr<Node> host, uint32_t dst, uint16_t entropy) const
{
    constexpr uint32_t MAX_HOPS = 64;
    std::vector<Ptr<FabricNetDevice>> path;
    Ptr<FabricNetDevice> port = GetHostPort(host);
    while (path.size() < MAX_HOPS)
    {
        path.push_back(port);
        Ptr<FabricChannel> cable = port->GetFabricChannel();
        if (!cable || !cable->IsLinkUp())
        {
            return {};
        }
        Ptr<FabricNetDevice> peer = cable->GetPeer(PeekPointer(port));
        Ptr<Node> node = peer->GetNode();
        const uint32_t id = node->GetId();
        if (id < m_portOfNode.size() && m_portOfNode[id] == peer)
        {
            // A host: the receiver, or a frame that went astray.
            return m_addressOfNode[id] == dst ? path : std::vector<Ptr<FabricNetDevice>>();
        }
        Ptr<FabricSwitch> sw = node->GetObject<FabricSwitch>();
        if (!sw)
        {
            return {};
        }
        const uint32_t out = SelectRdmaEgress(node, host, dst, entropy);
        if (out >= sw->GetNPorts())
        {
            return {};
        }
        port = sw->GetFabricPort(out);
    }
    return {}; // a loop
}

Ptr<FabricTopology>
FabricHelper::GetTopology() const
{
    return m_topology;
}

const std::vector<Ptr<FabricChannel>>&
FabricHelper::GetChannels() const
{
    return m_channels;
}

int64_t
FabricHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& t : m_transports)
    {
        used += t->AssignStreams(stream + used);
    }
    // Then every cabled port's marker (RoCEv2's ECN decisions), cable by cable.
    for (const auto& c : m_channels)
    {
        for (std::size_t i = 0; i < c->GetNDevices(); ++i)
        {
            Ptr<FabricCongestionMarker> marker
                = StaticCast<FabricNetDevice>(c->GetDevice(i))->GetCongestionMarker();
            if (marker)
            {
                used += marker->AssignStreams(stream + used);
            }
        }
    }
    return used;
}

void
FabricHelper::UseRoutingEngine(Ptr<FabricRoutingEngine> engine)
{
    m_customEngine = engine;
}

Ptr<FabricRoutingEngine>
FabricHelper::GetCustomRoutingEngine() const
{
    return m_customEngine;
}

std::string
FabricHelper::FindMissingRoute() const
{
    if (!m_lastRoutes)
    {
        return "";
    }
    const FabricTopology::Graph& g = m_topology->GetGraph();
    const uint32_t nVertices = m_topology->GetNVertices();
    auto name = [&g](uint32_t v)
    {
        const std::string named = Names::FindName(g[v].node); // the topology helpers' names
        return !named.empty() ? named : g[v].name;
    };
    for (uint32_t ep = 0; ep < m_topology->GetNEndpoints(); ++ep)
    {
        // The switches connected to the endpoint over links that are up.
        const uint32_t target = m_topology->GetEndpointVertex(ep);
        std::vector<bool> seen(nVertices, false);
        std::vector<uint32_t> frontier{target};
        seen[target] = true;
        while (!frontier.empty())
        {
            const uint32_t v = frontier.back();
            frontier.pop_back();
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
            {
                const uint32_t u = static_cast<uint32_t>(boost::target(*e, g));
                if (!seen[u] && g[*e].channel->IsLinkUp()
                    && g[u].kind == FabricTopology::Kind::SWITCH)
                {
                    seen[u] = true;
                    frontier.push_back(u);
                }
            }
        }
        for (uint32_t v = 0; v < nVertices; ++v)
        {
            if (seen[v] && v != target && m_lastRoutes->GetPorts(v, ep).empty())
            {
                return name(v) + " has no route to " + name(target);
            }
        }
    }
    return "";
}

double
FabricHelper::GetRdmaWireEfficiency(uint32_t mtu) const
{
    return mtu / (mtu + static_cast<double>(GetRdmaOverheadBytes()));
}

std::vector<FabricHelper::Option>
FabricHelper::GetOptions() const
{
    return {};
}

bool
FabricHelper::HasOption(const std::string& name) const
{
    for (const Option& o : GetOptions())
    {
        if (o.name == name)
        {
            return true;
        }
    }
    return false;
}

std::string
FabricHelper::SetOption(const std::string& name, const std::string& /* value */)
{
    return std::string("not an option of ") + GetFabricName() + ": " + name;
}

void
FabricHelper::ApplyOptions(const std::vector<std::pair<std::string, std::string>>& options)
{
    for (const auto& [name, value] : options)
    {
        if (HasOption(name))
        {
            const std::string why = SetOption(name, value);
            NS_ABORT_MSG_IF(!why.empty(), Name() << ": --" << name << "=" << value << ": " << why);
        }
    }
}

std::unique_ptr<FabricHelper>
FabricHelper::CreateByName(const std::string& name)
{
    const FabricHelperRegistration::Factory* factory = FabricHelperRegistration::Find(name);
    return factory ? (*factory)() : nullptr;
}

FabricHelperRegistration::FabricHelperRegistration(const std::string& name, Factory factory)
{
    auto& registry = Registry();
    auto it = std::lower_bound(registry.begin(),
                               registry.end(),
                               name,
                               [](const std::pair<std::string, Factory>& e, const std::string& n)
                               { return e.first < n; });
    NS_ABORT_MSG_IF(it != registry.end() && it->first == name,
                    "FabricHelperRegistration: '" << name << "' is registered twice");
    registry.insert(it, {name, std::move(factory)});
}

std::vector<std::pair<std::string, FabricHelperRegistration::Factory>>&
FabricHelperRegistration::Registry()
{
    static std::vector<std::pair<std::string, Factory>> registry;
    return registry;
}

const FabricHelperRegistration::Factory*
FabricHelperRegistration::Find(const std::string& name)
{
    for (const auto& [n, factory] : Registry())
    {
        if (n == name)
        {
            return &factory;
        }
    }
    return nullptr;
}

std::vector<std::string>
FabricHelperRegistration::Names()
{
    std::vector<std::string> names;
    for (const auto& entry : Registry())
    {
        names.push_back(entry.first);
    }
    return names;
}

} // namespace ns3
