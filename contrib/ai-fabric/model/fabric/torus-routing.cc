/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "torus-routing.h"

#include "fabric-channel.h"
#include "fabric-net-device.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"

#include <array>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TorusRouting");
NS_OBJECT_ENSURE_REGISTERED(DimensionOrderRoutingEngine);

TypeId
DimensionOrderRoutingEngine::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::DimensionOrderRoutingEngine")
              .SetParent<FabricRoutingEngine>()
              .SetGroupName("AiFabric")
              .AddConstructor<DimensionOrderRoutingEngine>()
              .AddAttribute("Datelines",
                            "Give each hop its dateline class (0 before the packet crosses its "
                            "ring's wrap-around link, 1 after), so that a torus cannot deadlock. "
                            "Default false: one class, and the rings of a torus can deadlock.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&DimensionOrderRoutingEngine::m_datelines),
                            MakeBooleanChecker());
    return tid;
}

void
DimensionOrderRoutingEngine::SetGeometry(const std::vector<uint32_t>& dims,
                                         bool wrap,
                                         const std::vector<Ptr<Node>>& switches)
{
    uint32_t n = 1;
    for (uint32_t d : dims)
    {
        NS_ABORT_MSG_IF(d < 2, "DimensionOrderRoutingEngine: a dimension of size " << d);
        n *= d;
    }
    NS_ABORT_MSG_IF(dims.empty() || n != switches.size(),
                    "DimensionOrderRoutingEngine: " << switches.size() << " switches for " << n
                                                    << " coordinates");
    m_dims = dims;
    m_wrap = wrap;
    m_switches = switches;
}

FabricRouteTable
DimensionOrderRoutingEngine::Compute(const FabricTopology& topology) const
{
    NS_ABORT_MSG_IF(m_switches.empty(), "DimensionOrderRoutingEngine: SetGeometry() first");
    constexpr uint32_t NONE = UINT32_MAX;
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t nVertices = topology.GetNVertices();
    const uint32_t nEndpoints = topology.GetNEndpoints();
    const uint32_t nDims = static_cast<uint32_t>(m_dims.size());
    const uint32_t nSwitches = static_cast<uint32_t>(m_switches.size());
    FabricRouteTable table(nVertices, nEndpoints);

    std::vector<uint32_t> vertexOf(nSwitches);
    std::vector<uint32_t> indexOf(nVertices, NONE);
    std::vector<std::vector<uint32_t>> coords(nSwitches, std::vector<uint32_t>(nDims));
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        const uint32_t v = topology.GetSwitchVertex(m_switches[i]);
        NS_ABORT_MSG_IF(v >= nVertices, "DimensionOrderRoutingEngine: node is not a switch");
        vertexOf[i] = v;
        indexOf[v] = i;
        uint32_t rest = i;
        for (uint32_t d = 0; d < nDims; ++d)
        {
            coords[i][d] = rest % m_dims[d];
            rest /= m_dims[d];
        }
    }

    // The port of each switch one step up (0) and down (1) each dimension, over links that
    // are up, and the switch and port of each endpoint.
    std::vector<std::vector<std::array<uint32_t, 2>>> step(
        nSwitches, std::vector<std::array<uint32_t, 2>>(nDims, {NONE, NONE}));
    std::vector<uint32_t> endpointSwitch(nEndpoints, NONE);
    std::vector<uint32_t> endpointPort(nEndpoints, NONE);
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        const uint32_t v = vertexOf[i];
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        {
            const FabricTopology::Link& link = g[*e];
            if (!link.channel->IsLinkUp())
            {
                continue;
            }
            const uint32_t port
                = (link.portA->GetNode() == g[v].node ? link.portA : link.portB)->GetIfIndex();
            const uint32_t u = static_cast<uint32_t>(boost::target(*e, g));
            if (g[u].kind == FabricTopology::Kind::ENDPOINT)
            {
                endpointSwitch[g[u].endpointIndex] = i;
                endpointPort[g[u].endpointIndex] = port;
                continue;
            }
            const uint32_t j = indexOf[u];
            NS_ABORT_MSG_IF(j == NONE, "DimensionOrderRoutingEngine: a switch outside the torus");
            for (uint32_t d = 0; d < nDims; ++d)
            {
                if (coords[i][d] == coords[j][d])
                {
                    continue;
                }
                const uint32_t k = m_dims[d];
                const uint32_t delta = (coords[j][d] + k - coords[i][d]) % k;
                if (delta == 1 && step[i][d][0] == NONE)
                {
                    step[i][d][0] = port;
                }
                if (delta == k - 1 && step[i][d][1] == NONE)
                {
                    step[i][d][1] = port;
                }
                break;
            }
        }
    }

    for (uint32_t ep = 0; ep < nEndpoints; ++ep)
    {
        const uint32_t s = endpointSwitch[ep];
        if (s == NONE)
        {
            continue; // the endpoint's own link is down
        }
        for (uint32_t i = 0; i < nSwitches; ++i)
        {
            const uint32_t v = vertexOf[i];
            if (i == s)
            {
                table.AddPort(v, ep, endpointPort[ep]);
                continue;
            }
            uint32_t d = 0;
            while (coords[i][d] == coords[s][d])
            {
                ++d;
            }
            const uint32_t k = m_dims[d];
            const uint32_t here = coords[i][d];
            const uint32_t there = coords[s][d];
            bool up;
            if (m_wrap)
            {
                const uint32_t forward = (there + k - here) % k;
                up = forward <= k - forward; // the shorter way; a tie goes up
            }
            else
            {
                up = there > here;
            }
            const uint32_t port = step[i][d][up ? 0 : 1];
            if (port == NONE)
            {
                continue; // the next link of the path is down: no route
            }
            table.AddPort(v, ep, port);
            if (m_datelines && m_wrap)
            {
                // Class 0 while the path ahead in this ring still crosses the wrap-around.
                const bool beforeDateline = up ? here > there : here < there;
                table.SetClass(v, ep, beforeDateline ? 0 : 1);
            }
        }
    }
    return table;
}

} // namespace ns3
