/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-routing.h"

#include "ns3/log.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbRouting");
NS_OBJECT_ENSURE_REGISTERED(IbMinHopRoutingEngine);

TypeId
IbMinHopRoutingEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbMinHopRoutingEngine")
                            .SetParent<FabricRoutingEngine>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbMinHopRoutingEngine>();
    return tid;
}

FabricRouteTable
IbMinHopRoutingEngine::Compute(const FabricTopology& topology) const
{
    const FabricRouteTable all = EcmpRoutingEngine().Compute(topology);
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t nVertices = topology.GetNVertices();
    const uint32_t nEndpoints = topology.GetNEndpoints();
    FabricRouteTable table(nVertices, nEndpoints);
    for (uint32_t v = 0; v < nVertices; ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH)
        {
            continue;
        }
        std::map<uint32_t, uint32_t> routes; // destinations per port so far (setup only)
        for (uint32_t ep = 0; ep < nEndpoints; ++ep)
        {
            const std::vector<uint32_t>& ports = all.GetPorts(v, ep);
            if (ports.empty())
            {
                continue;
            }
            uint32_t best = ports.front();
            for (uint32_t port : ports)
            {
                if (routes[port] < routes[best] || (routes[port] == routes[best] && port < best))
                {
                    best = port;
                }
            }
            ++routes[best];
            table.AddPort(v, ep, best);
        }
    }
    return table;
}

} // namespace ns3
