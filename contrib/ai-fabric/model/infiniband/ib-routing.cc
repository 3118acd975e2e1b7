/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-routing.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbRouting");
NS_OBJECT_ENSURE_REGISTERED(IbMinHopRoutingEngine);
NS_OBJECT_ENSURE_REGISTERED(IbFatTreeRoutingEngine);
NS_OBJECT_ENSURE_REGISTERED(IbUpDownRoutingEngine);

namespace
{
/**
 * \brief Choose a port for each LID of one destination at one switch, as min-hop does: the
 *        port that the fewest of this destination's LIDs use so far, then the one with the
 *        fewest destinations so far, then the lowest; so a destination's LIDs take different
 *        paths where there are several.
 * \param candidates the admissible ports
 * \param lids the destination's LIDs (2^LMC)
 * \param routes LIDs routed per port so far at this switch (updated)
 * \param table the table (one port per LID appended, in LID order)
 * \param v the switch vertex
 * \param ep the destination's endpoint index
 */
void
SpreadLids(const std::vector<uint32_t>& candidates,
           uint32_t lids,
           std::map<uint32_t, uint32_t>& routes,
           FabricRouteTable& table,
           uint32_t v,
           uint32_t ep)
{
    std::map<uint32_t, uint32_t> mine; // this destination's LIDs per port
    for (uint32_t j = 0; j < lids; ++j)
    {
        uint32_t best = candidates.front();
        for (uint32_t port : candidates)
        {
            const auto key = std::make_tuple(mine[port], routes[port], port);
            if (key < std::make_tuple(mine[best], routes[best], best))
            {
                best = port;
            }
        }
        ++mine[best];
        ++routes[best];
        table.AddPort(v, ep, best);
    }
}

/**
 * \param topology a fabric
 * \param sources the vertices at distance 0
 * \return every vertex's hop distance from the nearest source over links that are up
 *         (UINT32_MAX: unreachable)
 */
std::vector<uint32_t>
DistancesFrom(const FabricTopology& topology, const std::vector<uint32_t>& sources)
{
    const FabricTopology::Graph& g = topology.GetGraph();
    std::vector<uint32_t> dist(topology.GetNVertices(), UINT32_MAX);
    std::deque<uint32_t> frontier;
    for (uint32_t v : sources)
    {
        dist[v] = 0;
        frontier.push_back(v);
    }
    while (!frontier.empty())
    {
        const uint32_t v = frontier.front();
        frontier.pop_front();
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        {
            const auto u = static_cast<uint32_t>(boost::target(*e, g));
            if (g[*e].channel->IsLinkUp() && dist[u] == UINT32_MAX)
            {
                dist[u] = dist[v] + 1;
                frontier.push_back(u);
            }
        }
    }
    return dist;
}

/**
 * \param topology a fabric
 * \return every vertex's distance from the nearest endpoint (endpoints 0)
 */
std::vector<uint32_t>
RankFromHosts(const FabricTopology& topology)
{
    std::vector<uint32_t> hosts;
    for (uint32_t ep = 0; ep < topology.GetNEndpoints(); ++ep)
    {
        hosts.push_back(topology.GetEndpointVertex(ep));
    }
    return DistancesFrom(topology, hosts);
}

/**
 * \param g the graph
 * \param v a vertex
 * \param e one of its edges
 * \return the port of v on that edge
 */
uint32_t
PortOf(const FabricTopology::Graph& g, uint32_t v, const FabricTopology::Graph::edge_descriptor& e)
{
    const FabricTopology::Link& link = g[e];
    return (link.portA->GetNode() == g[v].node ? link.portA : link.portB)->GetIfIndex();
}
} // namespace

TypeId
IbMinHopRoutingEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbMinHopRoutingEngine")
                            .SetParent<FabricRoutingEngine>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbMinHopRoutingEngine>()
                            .AddAttribute("Lmc",
                                          "LID mask control (0-7): each destination has 2^Lmc "
                                          "LIDs, each routed separately (multipath). Default 0.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&IbMinHopRoutingEngine::m_lmc),
                                          MakeUintegerChecker<uint32_t>(0, 7));
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
            if (!ports.empty())
            {
                SpreadLids(ports, 1u << m_lmc, routes, table, v, ep);
            }
        }
    }
    return table;
}

TypeId
IbFatTreeRoutingEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbFatTreeRoutingEngine")
                            .SetParent<FabricRoutingEngine>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbFatTreeRoutingEngine>()
                            .AddAttribute("Lmc",
                                          "LID mask control (0-7): each destination has 2^Lmc "
                                          "LIDs, each routed separately (multipath). Default 0.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&IbFatTreeRoutingEngine::m_lmc),
                                          MakeUintegerChecker<uint32_t>(0, 7));
    return tid;
}

FabricRouteTable
IbFatTreeRoutingEngine::Compute(const FabricTopology& topology) const
{
    const FabricRouteTable all = EcmpRoutingEngine().Compute(topology);
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t nVertices = topology.GetNVertices();
    const uint32_t nEndpoints = topology.GetNEndpoints();
    const std::vector<uint32_t> rank = RankFromHosts(topology);
    // Up-ports of every switch, and the largest count per rank.
    std::vector<std::vector<uint32_t>> upPorts(nVertices);
    std::map<uint32_t, uint32_t> upPerRank;
    for (uint32_t v = 0; v < nVertices; ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH || rank[v] == UINT32_MAX)
        {
            continue;
        }
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        {
            const auto u = static_cast<uint32_t>(boost::target(*e, g));
            if (g[*e].channel->IsLinkUp() && rank[u] != UINT32_MAX && rank[u] > rank[v])
            {
                upPorts[v].push_back(PortOf(g, v, *e));
            }
        }
        std::sort(upPorts[v].begin(), upPorts[v].end());
        uint32_t& n = upPerRank[rank[v]];
        n = std::max(n, static_cast<uint32_t>(upPorts[v].size()));
    }
    FabricRouteTable table(nVertices, nEndpoints);
    for (uint32_t v = 0; v < nVertices; ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH || rank[v] == UINT32_MAX)
        {
            continue;
        }
        uint64_t divisor = 1; // product of the up-port counts of the ranks below
        for (uint32_t r = 1; r < rank[v]; ++r)
        {
            divisor *= std::max<uint32_t>(upPerRank[r], 1);
        }
        for (uint32_t ep = 0; ep < nEndpoints; ++ep)
        {
            std::vector<uint32_t> ports = all.GetPorts(v, ep);
            if (ports.empty())
            {
                continue;
            }
            std::sort(ports.begin(), ports.end());
            std::vector<uint32_t> up;
            std::vector<uint32_t> down;
            for (uint32_t p : ports)
            {
                (std::binary_search(upPorts[v].begin(), upPorts[v].end(), p) ? up : down)
                    .push_back(p);
            }
            for (uint32_t j = 0; j < (1u << m_lmc); ++j)
            {
                // Below this switch: the way down. Up: d-mod-k with d = ep + j, so the LIDs
                // of one destination take distinct paths, as many as the up-port counts of
                // the ranks multiplied.
                table.AddPort(
                    v, ep, down.empty() ? up[((ep + j) / divisor) % up.size()] : down.front());
            }
        }
    }
    return table;
}

TypeId
IbUpDownRoutingEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbUpDownRoutingEngine")
                            .SetParent<FabricRoutingEngine>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbUpDownRoutingEngine>()
                            .AddAttribute("Lmc",
                                          "LID mask control (0-7): each destination has 2^Lmc "
                                          "LIDs, each routed separately (multipath). Default 0.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&IbUpDownRoutingEngine::m_lmc),
                                          MakeUintegerChecker<uint32_t>(0, 7));
    return tid;
}

FabricRouteTable
IbUpDownRoutingEngine::Compute(const FabricTopology& topology) const
{
    const FabricTopology::Graph& g = topology.GetGraph();
    const uint32_t nVertices = topology.GetNVertices();
    const uint32_t nEndpoints = topology.GetNEndpoints();
    // Ranks from the roots: the switches farthest from the hosts.
    const std::vector<uint32_t> fromHosts = RankFromHosts(topology);
    uint32_t top = 0;
    for (uint32_t v = 0; v < nVertices; ++v)
    {
        if (g[v].kind == FabricTopology::Kind::SWITCH && fromHosts[v] != UINT32_MAX)
        {
            top = std::max(top, fromHosts[v]);
        }
    }
    std::vector<uint32_t> roots;
    for (uint32_t v = 0; v < nVertices; ++v)
    {
        if (g[v].kind == FabricTopology::Kind::SWITCH && fromHosts[v] == top)
        {
            roots.push_back(v);
        }
    }
    const std::vector<uint32_t> rank = DistancesFrom(topology, roots);
    // A move from a to b goes up when b is closer to the roots (node id breaks ties).
    auto isUp = [&](uint32_t a, uint32_t b) {
        return rank[b] < rank[a] || (rank[b] == rank[a] && g[b].node->GetId() < g[a].node->GetId());
    };
    FabricRouteTable table(nVertices, nEndpoints);
    std::vector<std::map<uint32_t, uint32_t>> routes(nVertices); // destinations per port
    for (uint32_t ep = 0; ep < nEndpoints; ++ep)
    {
        // Backwards from the destination over legal routes (up* then down*): dist[v][0] is
        // the hops from v when v may still go up, dist[v][1] when it may only go down.
        const uint32_t target = topology.GetEndpointVertex(ep);
        std::vector<std::array<uint32_t, 2>> dist(nVertices, {UINT32_MAX, UINT32_MAX});
        std::deque<std::pair<uint32_t, uint32_t>> queue;
        dist[target] = {0, 0};
        queue.emplace_back(target, 0);
        queue.emplace_back(target, 1);
        while (!queue.empty())
        {
            const auto [v, phase] = queue.front();
            queue.pop_front();
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
            {
                const auto u = static_cast<uint32_t>(boost::target(*e, g));
                if (!g[*e].channel->IsLinkUp() || g[u].kind != FabricTopology::Kind::SWITCH)
                {
                    continue;
                }
                // u -> v: an up move keeps u in phase 0 and needs v in phase 0; a down move
                // is allowed from either phase and leaves v in phase 1.
                if (isUp(u, v))
                {
                    if (phase == 0 && dist[u][0] == UINT32_MAX)
                    {
                        dist[u][0] = dist[v][0] + 1;
                        queue.emplace_back(u, 0);
                    }
                }
                else if (phase == 1)
                {
                    for (uint32_t p : {0U, 1U})
                    {
                        if (dist[u][p] == UINT32_MAX)
                        {
                            dist[u][p] = dist[v][1] + 1;
                            queue.emplace_back(u, p);
                        }
                    }
                }
            }
        }
        for (uint32_t v = 0; v < nVertices; ++v)
        {
            if (g[v].kind != FabricTopology::Kind::SWITCH || dist[v][0] == UINT32_MAX)
            {
                continue;
            }
            // One table serves every packet at v, whether it came up or down: where a route
            // that only goes down exists, take it (legal in both phases; every switch on it
            // has one too); otherwise go up then down (only packets that have not gone down
            // yet can be here: a switch routes down only towards a switch with a down route).
            const bool downOnly = dist[v][1] != UINT32_MAX;
            const uint32_t hops = downOnly ? dist[v][1] : dist[v][0];
            std::vector<uint32_t> candidates;
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
            {
                const auto u = static_cast<uint32_t>(boost::target(*e, g));
                if (!g[*e].channel->IsLinkUp())
                {
                    continue;
                }
                bool next = false;
                if (u == target)
                {
                    next = hops == 1;
                }
                else if (g[u].kind == FabricTopology::Kind::SWITCH)
                {
                    next
                        = isUp(v, u) ? !downOnly && dist[u][0] + 1 == hops : dist[u][1] + 1 == hops;
                }
                if (!next)
                {
                    continue;
                }
                candidates.push_back(PortOf(g, v, *e));
            }
            if (!candidates.empty())
            {
                std::sort(candidates.begin(), candidates.end());
                SpreadLids(candidates, 1u << m_lmc, routes[v], table, v, ep);
            }
        }
    }
    return table;
}

} // namespace ns3
