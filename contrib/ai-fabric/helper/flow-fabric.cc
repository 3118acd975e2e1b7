/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "flow-fabric.h"

#include "fabric-flow-router.h"
#include "fabric-helper.h"
#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-transport.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowFabric");
NS_OBJECT_ENSURE_REGISTERED(FlowFabric);

TypeId
FlowFabric::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowFabric")
                            .SetParent<FlowRouter>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FlowFabric>();
    return tid;
}

FlowFabric::FlowFabric()
    : m_network(CreateObject<FlowNetwork>())
{
    NS_LOG_FUNCTION(this);
}

FlowFabric::~FlowFabric()
{
    NS_LOG_FUNCTION(this);
}

void
FlowFabric::DoDispose()
{
    m_fabric = nullptr;
    if (m_network)
    {
        m_network->Dispose();
    }
    m_network = nullptr;
    m_vertices.clear();
    FlowRouter::DoDispose();
}

std::string
FlowFabric::Sample(const FabricHelper& fabric,
                   NodeContainer gpus,
                   uint32_t gpusPerServer,
                   Parameters& parameters)
{
    if (gpus.GetN() <= gpusPerServer)
    {
        return "the sample needs two servers";
    }
    const std::vector<Ptr<FabricChannel>>& cables = fabric.GetChannels();
    NS_ABORT_MSG_IF(cables.empty(), "FlowFabric: a sample without cables");
    Parameters p;
    p.cableDelay = cables[0]->GetDelay();
    Ptr<FabricNetDevice> nicPort = fabric.GetHostPort(gpus.Get(0));
    p.linkRate = nicPort->GetDataRate();
    Time switchLatency(-1);
    int cutThrough = -1;
    for (const Ptr<FabricChannel>& cable : cables)
    {
        if (cable->GetDelay() != p.cableDelay)
        {
            return "cables of different delays";
        }
        for (std::size_t end = 0; end < cable->GetNDevices(); ++end)
        {
            Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(cable->GetDevice(end));
            if (port->GetDataRate() != p.linkRate)
            {
                return "ports of different rates";
            }
            Ptr<FabricSwitch> sw = port->GetNode()->GetObject<FabricSwitch>();
            if (!sw)
            {
                continue;
            }
            const Time latency = fabric.GetSwitchLatency(port->GetNode());
            if ((switchLatency.IsPositive() || switchLatency.IsZero()) && latency != switchLatency)
            {
                return "switches of different latencies";
            }
            if (cutThrough >= 0 && cutThrough != static_cast<int>(sw->IsCutThrough()))
            {
                return "switches that forward differently";
            }
            switchLatency = latency;
            cutThrough = sw->IsCutThrough() ? 1 : 0;
        }
    }
    Ptr<RdmaTransport> nic = fabric.GetTransport(gpus.Get(0));
    p.txLatency = nic->GetTxLatency();
    DataRateValue pcie;
    nic->GetAttribute("PcieRate", pcie);
    p.pcieRate = pcie.Get();

    Ptr<FabricFlowRouter> router = CreateObject<FabricFlowRouter>();
    router->Setup(&fabric, gpus);
    FlowRoute ab;
    FlowRoute ba;
    std::string error;
    if (!router->Resolve(0, gpusPerServer, 0, ab, ba, error))
    {
        router->Dispose();
        return error;
    }
    if (ab.nvlink || ab.hops.size() != 1 || ba.hops.size() != 1)
    {
        router->Dispose();
        return "ranks 0 and " + std::to_string(gpusPerServer) + " are not on one leaf";
    }
    p.nic = ab;
    p.nic.path = 0;
    if (router->GetNvLink(0, p.nvOut, p.nvIn, p.nvRoute, p.nvlsRoute, p.nvls))
    {
        p.gpusPerDomain = gpusPerServer;
        p.nvRoute.path = 0;
        p.nvlsRoute.path = 0;
    }
    router->Dispose();
    parameters = p;
    return "";
}

void
FlowFabric::Setup(const Parameters& parameters, const FabricHelper* fabric)
{
    NS_ABORT_MSG_IF(!m_vertices.empty(), "FlowFabric: Setup() after InstallHosts()");
    NS_ABORT_MSG_IF(!fabric, "FlowFabric: no fabric helper");
    m_parameters = parameters;
    m_fabric = fabric;
}

uint32_t
FlowFabric::AddVertex(Ptr<Node> node, bool host)
{
    const uint32_t id = node->GetId();
    if (id >= m_vertexOfNode.size())
    {
        m_vertexOfNode.resize(id + 1, NONE);
    }
    NS_ABORT_MSG_IF(m_vertexOfNode[id] != NONE, "FlowFabric: node " << id << " installed twice");
    const auto v = static_cast<uint32_t>(m_vertices.size());
    m_vertexOfNode[id] = v;
    m_vertices.emplace_back();
    Vertex& vertex = m_vertices.back();
    vertex.node = node;
    vertex.host = host;
    vertex.index = NONE;
    return v;
}

uint32_t
FlowFabric::VertexOf(Ptr<Node> node) const
{
    const uint32_t id = node->GetId();
    NS_ABORT_MSG_IF(id >= m_vertexOfNode.size() || m_vertexOfNode[id] == NONE,
                    "FlowFabric: node " << id << " is not installed");
    return m_vertexOfNode[id];
}

void
FlowFabric::InstallHosts(NodeContainer hosts)
{
    NS_ABORT_MSG_IF(!m_fabric, "FlowFabric: InstallHosts() before Setup()");
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        const uint32_t v = AddVertex(hosts.Get(i), true);
        m_vertices[v].index = static_cast<uint32_t>(m_hosts.size());
        m_hosts.push_back(v);
    }
}

void
FlowFabric::InstallSwitches(NodeContainer switches)
{
    for (uint32_t i = 0; i < switches.GetN(); ++i)
    {
        AddVertex(switches.Get(i), false);
    }
}

void
FlowFabric::Connect(Ptr<Node> a, Ptr<Node> b)
{
    const uint32_t va = VertexOf(a);
    const uint32_t vb = VertexOf(b);
    Vertex& x = m_vertices[va];
    Vertex& y = m_vertices[vb];
    NS_ABORT_MSG_IF(x.host && !x.ports.empty(), "FlowFabric: a host with two ports");
    NS_ABORT_MSG_IF(y.host && !y.ports.empty(), "FlowFabric: a host with two ports");
    NS_ABORT_MSG_IF(x.ports.size() >= UINT16_MAX || y.ports.size() >= UINT16_MAX,
                    "FlowFabric: a switch of more than 65,535 ports");
    Port pa;
    pa.peer = vb;
    pa.peerPort = static_cast<uint32_t>(y.ports.size());
    Port pb;
    pb.peer = va;
    pb.peerPort = static_cast<uint32_t>(x.ports.size());
    x.ports.push_back(pa);
    y.ports.push_back(pb);
    ++m_cables;
}

void
FlowFabric::ComputeRoutes()
{
    // The switches hosts attach to, numbered.
    m_attachments.clear();
    for (uint32_t h : m_hosts)
    {
        NS_ABORT_MSG_IF(m_vertices[h].ports.empty(), "FlowFabric: a host without a cable");
        const uint32_t sw = m_vertices[h].ports[0].peer;
        NS_ABORT_MSG_IF(m_vertices[sw].host, "FlowFabric: two hosts cabled to each other");
        if (m_vertices[sw].index == NONE)
        {
            m_vertices[sw].index = static_cast<uint32_t>(m_attachments.size());
            m_attachments.push_back(sw);
        }
    }
    const auto nAttachments = static_cast<uint32_t>(m_attachments.size());
    for (Vertex& v : m_vertices)
    {
        if (!v.host)
        {
            v.groups.assign(1, {}); // group 0: no route
            v.group.assign(nAttachments, 0);
        }
    }
    // Hop distances from each attachment switch over switches (hosts do not forward); a
    // switch's group toward it: its ports to switches one hop closer, in port order.
    std::vector<uint32_t> dist(m_vertices.size(), NONE);
    std::vector<uint32_t> reached;
    std::vector<uint16_t> group;
    for (uint32_t a = 0; a < nAttachments; ++a)
    {
        const uint32_t root = m_attachments[a];
        for (uint32_t v : reached)
        {
            dist[v] = NONE;
        }
        reached.assign(1, root);
        dist[root] = 0;
        for (std::size_t i = 0; i < reached.size(); ++i)
        {
            const uint32_t v = reached[i];
            for (const Port& port : m_vertices[v].ports)
            {
                if (!m_vertices[port.peer].host && dist[port.peer] == NONE)
                {
                    dist[port.peer] = dist[v] + 1;
                    reached.push_back(port.peer);
                }
            }
        }
        for (std::size_t i = 1; i < reached.size(); ++i) // the root reaches its hosts directly
        {
            Vertex& v = m_vertices[reached[i]];
            const uint32_t d = dist[reached[i]];
            group.clear();
            for (uint32_t p = 0; p < v.ports.size(); ++p)
            {
                const uint32_t u = v.ports[p].peer;
                if (!m_vertices[u].host && dist[u] + 1 == d)
                {
                    group.push_back(static_cast<uint16_t>(p));
                }
            }
            // Few distinct groups per switch (all uplinks; one downlink per pod or leaf):
            // the previous attachment's first, then the others.
            const uint32_t last = a > 0 ? v.group[a - 1] : 0;
            uint32_t found = NONE;
            if (v.groups[last] == group)
            {
                found = last;
            }
            for (uint32_t k = 0; found == NONE && k < v.groups.size(); ++k)
            {
                if (v.groups[k] == group)
                {
                    found = k;
                }
            }
            if (found == NONE)
            {
                found = static_cast<uint32_t>(v.groups.size());
                v.groups.push_back(group);
            }
            v.group[a] = found;
        }
    }
}

void
FlowFabric::SetRanks(NodeContainer ranks)
{
    NS_ABORT_MSG_IF(!m_rankHost.empty(), "FlowFabric: SetRanks() twice");
    const Parameters& p = m_parameters;
    m_nextQpn.assign(m_hosts.size(), 0);
    for (uint32_t r = 0; r < ranks.GetN(); ++r)
    {
        const uint32_t v = VertexOf(ranks.Get(r));
        NS_ABORT_MSG_IF(!m_vertices[v].host, "FlowFabric: rank " << r << " is a switch");
        m_rankHost.push_back(v);
        // The links FabricFlowRouter adds per GPU, in its order: PCIe, NVLink out, in.
        uint32_t pcie = NONE;
        if (p.pcieRate.GetBitRate() > 0)
        {
            pcie = m_network->AddLink(p.pcieRate);
            m_linkOwner.emplace_back(r, PCIE);
        }
        m_pcie.push_back(pcie);
        if (p.gpusPerDomain > 0)
        {
            m_nvOut.push_back(m_network->AddLink(p.nvOut));
            m_linkOwner.emplace_back(r, NV_OUT);
            m_nvIn.push_back(m_network->AddLink(p.nvIn));
            m_linkOwner.emplace_back(r, NV_IN);
        }
    }
}

Ptr<FlowNetwork>
FlowFabric::GetNetwork() const
{
    return m_network;
}

int64_t
FlowFabric::GetNvLinkDomain(uint32_t rank) const
{
    const uint32_t g = m_parameters.gpusPerDomain;
    return g > 0 ? static_cast<int64_t>(rank / g) : -1;
}

bool
FlowFabric::IsNvLinkPeer(uint32_t a, uint32_t b) const
{
    const uint32_t g = m_parameters.gpusPerDomain;
    return g > 0 && a / g == b / g;
}

bool
FlowFabric::GetNvls(uint32_t rank, uint32_t& out, uint32_t& in, FlowRoute& route)
{
    if (m_parameters.gpusPerDomain == 0 || !m_parameters.nvls)
    {
        return false;
    }
    out = m_nvOut.at(rank);
    in = m_nvIn.at(rank);
    route = m_parameters.nvlsRoute;
    return true;
}

uint32_t
FlowFabric::LinkOf(uint32_t from, uint32_t port)
{
    Port& p = m_vertices[from].ports[port];
    if (p.link == NONE)
    {
        p.link = m_network->AddLink(m_parameters.linkRate);
        m_linkOwner.emplace_back(from, port);
    }
    return p.link;
}

bool
FlowFabric::Trace(uint32_t src,
                  uint32_t dst,
                  uint16_t entropy,
                  std::vector<std::pair<uint32_t, uint32_t>>& hops) const
{
    hops.assign(1, {src, 0});
    const uint32_t srcAddress = m_fabric->GetHostAddressOf(m_vertices[src].index);
    const uint32_t dstAddress = m_fabric->GetHostAddressOf(m_vertices[dst].index);
    const Port& last = m_vertices[dst].ports[0];
    const uint32_t attachment = m_vertices[last.peer].index;
    uint32_t v = m_vertices[src].ports[0].peer;
    for (std::size_t step = 0; step < m_vertices.size(); ++step)
    {
        if (v == dst)
        {
            return true;
        }
        const Vertex& sw = m_vertices[v];
        if (sw.host)
        {
            return false; // another host: it does not forward
        }
        uint32_t port;
        if (v == last.peer)
        {
            port = last.peerPort; // the receiver's own port
        }
        else
        {
            const std::vector<uint16_t>& group = sw.groups[sw.group[attachment]];
            const auto n = static_cast<uint32_t>(group.size());
            if (n == 0)
            {
                return false;
            }
            uint32_t pick = 0;
            if (n > 1)
            {
                pick = m_fabric->SelectEqualCostPort(
                    sw.node->GetId(), srcAddress, dstAddress, entropy, n);
                if (pick >= n)
                {
                    return false; // the fabric does not pick by hash
                }
            }
            port = group[pick];
        }
        hops.emplace_back(v, port);
        v = sw.ports[port].peer;
    }
    return false; // a loop
}

FlowRoute
FlowFabric::NicRoute(uint32_t forward, uint32_t back) const
{
    const Parameters& p = m_parameters;
    FlowRoute r = p.nic;
    r.fixed = p.txLatency;
    for (uint32_t i = 0; i <= forward; ++i)
    {
        r.fixed += p.cableDelay; // as FabricFlowRouter sums them, cable by cable
    }
    r.hops.assign(forward, p.nic.hops[0]);
    r.ackFixed = Time(0);
    for (uint32_t i = 0; i <= back; ++i)
    {
        r.ackFixed += p.cableDelay;
    }
    r.ackHops.assign(back, p.nic.ackHops[0]);
    return r;
}

bool
FlowFabric::Resolve(uint32_t a,
                    uint32_t b,
                    uint32_t /* channel */,
                    FlowRoute& ab,
                    FlowRoute& ba,
                    std::string& error)
{
    const Parameters& p = m_parameters;
    NS_ABORT_MSG_IF(a >= m_rankHost.size() || b >= m_rankHost.size(),
                    "FlowFabric: ranks " << a << " and " << b << " of " << m_rankHost.size()
                                         << " (SetRanks() first)");
    if (IsNvLinkPeer(a, b))
    {
        ab = p.nvRoute;
        ab.path = m_network->AddPath({{m_nvOut[a], 1.0}, {m_nvIn[b], 1.0}});
        ba = p.nvRoute;
        ba.path = m_network->AddPath({{m_nvOut[b], 1.0}, {m_nvIn[a], 1.0}});
        return true;
    }
    // The QPs the packet engine would open, in its order: their numbers give the entropy.
    const uint32_t ha = m_rankHost.at(a);
    const uint32_t hb = m_rankHost.at(b);
    const uint32_t ea = m_vertices[ha].index;
    const uint32_t eb = m_vertices[hb].index;
    const uint32_t qa = RdmaTransport::FIRST_QPN + m_nextQpn[ea]++;
    const uint32_t qb = RdmaTransport::FIRST_QPN + m_nextQpn[eb]++;
    std::vector<std::pair<uint32_t, uint32_t>> pathAb;
    std::vector<std::pair<uint32_t, uint32_t>> pathBa;
    if (!Trace(ha, hb, RdmaTransport::EntropyOf(m_fabric->GetHostAddressOf(ea), qa), pathAb)
        || !Trace(hb, ha, RdmaTransport::EntropyOf(m_fabric->GetHostAddressOf(eb), qb), pathBa))
    {
        error = "no route between ranks " + std::to_string(a) + " and " + std::to_string(b);
        return false;
    }
    const double packet = p.nic.unit + static_cast<double>(p.nic.perPacket);
    for (const auto& [route, src, fwd, back] :
         {std::make_tuple(&ab, a, &pathAb, &pathBa), std::make_tuple(&ba, b, &pathBa, &pathAb)})
    {
        FlowRoute& r = *route;
        r = NicRoute(static_cast<uint32_t>(fwd->size() - 1),
                     static_cast<uint32_t>(back->size() - 1));
        std::vector<FlowNetwork::Use> uses;
        for (const auto& [vertex, port] : *fwd)
        {
            uses.push_back({LinkOf(vertex, port), 1.0});
            if (uses.size() > 1)
            {
                m_network->WatchLink(uses.back().link); // a switch's egress
            }
        }
        if (m_pcie[src] != NONE)
        {
            // The NIC reads each packet after its link headers over PCIe (RdmaTransport).
            uses.push_back({m_pcie[src], (r.unit + BthHeader::SIZE) / packet});
        }
        for (const auto& [vertex, port] : *back)
        {
            uses.push_back({LinkOf(vertex, port), r.ackBytes / packet});
        }
        r.path = m_network->AddPath(uses);
    }
    return true;
}

std::string
FlowFabric::GetLinkName(uint32_t link) const
{
    NS_ABORT_MSG_IF(link >= m_linkOwner.size(), "FlowFabric: no link " << link);
    const auto [owner, what] = m_linkOwner[link];
    switch (what)
    {
    case NV_OUT:
        return FabricFlowRouter::NodeName(m_vertices[m_rankHost[owner]].node) + "/nvlink-out";
    case NV_IN:
        return FabricFlowRouter::NodeName(m_vertices[m_rankHost[owner]].node) + "/nvlink-in";
    case PCIE:
        return FabricFlowRouter::NodeName(m_vertices[m_rankHost[owner]].node) + "/pcie";
    default:
        return FabricFlowRouter::NodeName(m_vertices[owner].node) + "/" + std::to_string(what);
    }
}

uint32_t
FlowFabric::GetNVertices() const
{
    return static_cast<uint32_t>(m_vertices.size());
}

uint64_t
FlowFabric::GetNCables() const
{
    return m_cables;
}

} // namespace ns3
