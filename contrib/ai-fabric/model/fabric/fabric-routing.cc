/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-routing.h"

#include "fabric-channel.h"
#include "fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <deque>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRouting");
NS_OBJECT_ENSURE_REGISTERED(FabricRoutingEngine);
NS_OBJECT_ENSURE_REGISTERED(EcmpRoutingEngine);

FabricRouteTable::FabricRouteTable(uint32_t nVertices, uint32_t nEndpoints)
    : m_ports(nVertices, std::vector<std::vector<uint32_t>>(nEndpoints))
{
}

const std::vector<uint32_t>&
FabricRouteTable::GetPorts(uint32_t vertex, uint32_t endpoint) const
{
    return m_ports.at(vertex).at(endpoint);
}

const std::vector<std::vector<uint32_t>>&
FabricRouteTable::GetSwitchTable(uint32_t vertex) const
{
    return m_ports.at(vertex);
}

void
FabricRouteTable::AddPort(uint32_t vertex, uint32_t endpoint, uint32_t port)
{
    m_ports.at(vertex).at(endpoint).push_back(port);
}

void
FabricRouteTable::SetClass(uint32_t vertex, uint32_t endpoint, uint8_t cls)
{
    if (m_classes.empty())
    {
        m_classes.assign(m_ports.size(), std::vector<uint8_t>());
    }
    std::vector<uint8_t>& row = m_classes.at(vertex);
    if (row.empty())
    {
        row.assign(m_ports.at(vertex).size(), 0);
    }
    row.at(endpoint) = cls;
}

bool
FabricRouteTable::HasClasses() const
{
    return !m_classes.empty();
}

std::vector<uint8_t>
FabricRouteTable::GetSwitchClasses(uint32_t vertex) const
{
    if (m_classes.empty() || m_classes.at(vertex).empty())
    {
        return std::vector<uint8_t>(m_ports.at(vertex).size(), 0);
    }
    return m_classes[vertex];
}

TypeId
FabricRoutingEngine::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricRoutingEngine").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

std::vector<uint32_t>
FabricRoutingEngine::DistancesTo(const FabricTopology& topology, uint32_t endpoint)
{
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t source = topology.GetEndpointVertex(endpoint);
    std::vector<uint32_t> dist(topology.GetNVertices(), UINT32_MAX);
    std::deque<uint32_t> frontier;
    dist[source] = 0;
    frontier.push_back(source);
    while (!frontier.empty())
    {
        const uint32_t v = frontier.front();
        frontier.pop_front();
        if (v != source && g[v].kind == FabricTopology::Kind::ENDPOINT)
        {
            continue; // endpoints do not forward
        }
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        {
            if (!g[*e].channel->IsLinkUp())
            {
                continue;
            }
            const uint32_t u = static_cast<uint32_t>(boost::target(*e, g));
            if (dist[u] == UINT32_MAX)
            {
                dist[u] = dist[v] + 1;
                frontier.push_back(u);
            }
        }
    }
    return dist;
}

TypeId
EcmpRoutingEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcmpRoutingEngine")
                            .SetParent<FabricRoutingEngine>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<EcmpRoutingEngine>();
    return tid;
}

FabricRouteTable
EcmpRoutingEngine::Compute(const FabricTopology& topology) const
{
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t nVertices = topology.GetNVertices();
    const uint32_t nEndpoints = topology.GetNEndpoints();
    FabricRouteTable table(nVertices, nEndpoints);
    for (uint32_t ep = 0; ep < nEndpoints; ++ep)
    {
        const std::vector<uint32_t> dist = DistancesTo(topology, ep);
        const uint32_t target = topology.GetEndpointVertex(ep);
        for (uint32_t v = 0; v < nVertices; ++v)
        {
            if (g[v].kind != FabricTopology::Kind::SWITCH || dist[v] == UINT32_MAX)
            {
                continue;
            }
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
            {
                const FabricTopology::Link& link = g[*e];
                if (!link.channel->IsLinkUp())
                {
                    continue;
                }
                const uint32_t u = static_cast<uint32_t>(boost::target(*e, g));
                const bool towardTarget = dist[u] + 1 == dist[v];
                const bool transit = g[u].kind == FabricTopology::Kind::SWITCH || u == target;
                if (towardTarget && transit)
                {
                    // Undirected edges: find which end of the link is v's port.
                    Ptr<FabricNetDevice> port
                        = link.portA->GetNode() == g[v].node ? link.portA : link.portB;
                    table.AddPort(v, ep, port->GetIfIndex());
                }
            }
        }
    }
    return table;
}

} // namespace ns3
