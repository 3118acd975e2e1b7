/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-topology.h"

#include "fabric-channel.h"
#include "fabric-net-device.h"
#include "ns3/abort.h"
#include "ns3/node.h"

namespace ns3
{

uint32_t
FabricTopology::AddEndpoint(Ptr<Node> node, uint32_t address, const std::string& name)
{
    Vertex v;
    v.node = node;
    v.kind = Kind::ENDPOINT;
    v.address = address;
    v.endpointIndex = static_cast<uint32_t>(m_endpoints.size());
    v.name = name;
    const uint32_t id = static_cast<uint32_t>(boost::add_vertex(v, m_graph));
    m_endpoints.push_back(id);
    return id;
}

uint32_t
FabricTopology::AddSwitch(Ptr<Node> node, const std::string& name)
{
    Vertex v;
    v.node = node;
    v.kind = Kind::SWITCH;
    v.name = name;
    const uint32_t id = static_cast<uint32_t>(boost::add_vertex(v, m_graph));
    const uint32_t nodeId = node->GetId();
    if (m_switchOfNode.size() <= nodeId)
    {
        m_switchOfNode.resize(nodeId + 1, UINT32_MAX);
    }
    m_switchOfNode[nodeId] = id;
    return id;
}

void
FabricTopology::AddLink(uint32_t a,
                        uint32_t b,
                        Ptr<FabricNetDevice> portA,
                        Ptr<FabricNetDevice> portB,
                        Ptr<FabricChannel> channel)
{
    NS_ABORT_MSG_IF(a >= GetNVertices() || b >= GetNVertices() || a == b,
                    "FabricTopology: bad link " << a << "-" << b);
    boost::add_edge(a, b, Link{portA, portB, channel}, m_graph);
}

const FabricTopology::Graph&
FabricTopology::GetGraph() const
{
    return m_graph;
}

uint32_t
FabricTopology::GetNVertices() const
{
    return static_cast<uint32_t>(boost::num_vertices(m_graph));
}

uint32_t
FabricTopology::GetNLinks() const
{
    return static_cast<uint32_t>(boost::num_edges(m_graph));
}

uint32_t
FabricTopology::GetNEndpoints() const
{
    return static_cast<uint32_t>(m_endpoints.size());
}

uint32_t
FabricTopology::GetEndpointVertex(uint32_t endpointIndex) const
{
    NS_ABORT_MSG_IF(endpointIndex >= m_endpoints.size(),
                    "FabricTopology: no endpoint " << endpointIndex);
    return m_endpoints[endpointIndex];
}

const FabricTopology::Vertex&
FabricTopology::GetVertex(uint32_t v) const
{
    return m_graph[v];
}

uint32_t
FabricTopology::GetSwitchVertex(Ptr<Node> node) const
{
    const uint32_t nodeId = node->GetId();
    if (nodeId >= m_switchOfNode.size() || m_switchOfNode[nodeId] == UINT32_MAX)
    {
        return GetNVertices();
    }
    return m_switchOfNode[nodeId];
}

} // namespace ns3
