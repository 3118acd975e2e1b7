/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-flow-router.h"

#include "fabric-helper.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/fault-injector.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/nvlink-gpu-port.h"
#include "ns3/nvlink-header.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFlowRouter");
NS_OBJECT_ENSURE_REGISTERED(FabricFlowRouter);

namespace
{
/**
 * \param port a port
 * \return seconds per byte at its rate
 */
double
SecondsPerByte(Ptr<const FabricNetDevice> port)
{
    return 8.0 / static_cast<double>(port->GetDataRate().GetBitRate());
}

} // namespace

TypeId
FabricFlowRouter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricFlowRouter")
                            .SetParent<FlowRouter>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricFlowRouter>();
    return tid;
}

FabricFlowRouter::FabricFlowRouter()
    : m_network(CreateObject<FlowNetwork>())
{
    NS_LOG_FUNCTION(this);
}

FabricFlowRouter::~FabricFlowRouter()
{
    NS_LOG_FUNCTION(this);
}

void
FabricFlowRouter::DoDispose()
{
    m_fabric = nullptr;
    if (m_network)
    {
        m_network->Dispose();
    }
    m_network = nullptr;
    m_gpus.clear();
    m_linkOfPort.clear();
    m_portsOfLink.clear();
    m_connections.clear();
    m_linkNames.clear();
    FlowRouter::DoDispose();
}

std::string
FabricFlowRouter::NodeName(Ptr<Node> node)
{
    const std::string name = Names::FindName(node);
    return name.empty() ? "node" + std::to_string(node->GetId()) : name;
}

Ptr<FlowNetwork>
FabricFlowRouter::GetNetwork() const
{
    return m_network;
}

void
FabricFlowRouter::Setup(const FabricHelper* fabric, NodeContainer ranks, NodeContainer nics)
{
    NS_ABORT_MSG_IF(!m_gpus.empty(), "FabricFlowRouter: set up twice");
    m_fabric = fabric;
    m_gpus.resize(ranks.GetN());
    std::map<uint32_t, uint32_t> pcieOf; // NIC node -> its PCIe link (GPUs sharing it share it)
    for (uint32_t r = 0; r < ranks.GetN(); ++r)
    {
        Gpu& g = m_gpus[r];
        g.node = ranks.Get(r);
        g.nicNode = nics.GetN() > r ? nics.Get(r) : g.node;
        if (fabric)
        {
            g.nic = fabric->GetTransport(g.nicNode);
            g.address = fabric->GetHostAddress(g.nicNode);
            DataRateValue pcie;
            g.nic->GetAttribute("PcieRate", pcie);
            auto known = pcieOf.find(g.nicNode->GetId());
            if (known != pcieOf.end())
            {
                g.pcie = known->second;
            }
            else if (pcie.Get().GetBitRate() > 0)
            {
                g.pcie = m_network->AddLink(pcie.Get());
                m_portsOfLink.emplace_back();
                m_linkNames[g.pcie] = NodeName(g.nicNode) + "/pcie";
                pcieOf[g.nicNode->GetId()] = g.pcie;
            }
        }
        if (g.node->GetObject<NvLinkTransport>())
        {
            SetupNvLink(g);
        }
    }
}

void
FabricFlowRouter::SetupNvLink(Gpu& g)
{
    Ptr<NvLinkTransport> nv = g.node->GetObject<NvLinkTransport>();
    const std::vector<Ptr<NvLinkGpuPort>>& ports = nv->GetPorts();
    NS_ABORT_MSG_IF(ports.empty(), "FabricFlowRouter: a GPU with NVLink and no port");
    uint64_t out = 0;
    uint64_t in = 0;
    std::vector<Ptr<FabricNetDevice>> outPorts;
    std::vector<Ptr<FabricNetDevice>> inPorts;
    for (const Ptr<NvLinkGpuPort>& port : ports)
    {
        out += port->GetDataRate().GetBitRate();
        outPorts.push_back(port);
        Ptr<FabricChannel> cable = port->GetFabricChannel();
        NS_ABORT_MSG_IF(!cable, "FabricFlowRouter: an NVLink port without a cable");
        Ptr<FabricNetDevice> peer = cable->GetPeer(PeekPointer(port));
        in += peer->GetDataRate().GetBitRate();
        inPorts.push_back(peer);
    }
    g.domain = nv->GetDomain();
    g.outRate = DataRate(out);
    g.inRate = DataRate(in);
    g.nvOut = m_network->AddLink(g.outRate);
    m_portsOfLink.push_back(outPorts);
    m_linkNames[g.nvOut] = NodeName(g.node) + "/nvlink-out";
    g.nvIn = m_network->AddLink(g.inRate);
    m_portsOfLink.push_back(inPorts);
    m_linkNames[g.nvIn] = NodeName(g.node) + "/nvlink-in";
    // One packet's way: the GPU's port, its cable, the switch, the cable to the peer.
    Ptr<NvLinkGpuPort> port = ports[0];
    Ptr<FabricNetDevice> swPort = inPorts[0];
    Ptr<FabricSwitch> sw = swPort->GetNode()->GetObject<FabricSwitch>();
    NS_ABORT_MSG_IF(!sw, "FabricFlowRouter: an NVLink port not cabled to a switch");
    UintegerValue unit;
    nv->GetAttribute("TransferUnit", unit);
    DoubleValue efficiency;
    nv->GetAttribute("ProtocolEfficiency", efficiency);
    DoubleValue nvlsEfficiency;
    nv->GetAttribute("NvlsEfficiency", nvlsEfficiency);
    BooleanValue nvls;
    sw->GetAttribute("Nvls", nvls);
    g.nvls = nvls.Get();
    FlowRoute& r = g.nvRoute;
    r.nvlink = true;
    r.unit = static_cast<uint32_t>(unit.Get());
    r.perPacket = NvLinkHeader::SIZE;
    r.perMessage = 0;
    r.efficiency = efficiency.Get();
    r.lanes = static_cast<uint32_t>(ports.size());
    r.firstSecondsPerByte = 8.0 / static_cast<double>(out);
    r.fixed = port->GetFabricChannel()->GetDelay() * 2;
    FlowHop hop;
    hop.inSecondsPerByte = SecondsPerByte(port);
    hop.outSecondsPerByte = SecondsPerByte(swPort);
    hop.latency = sw->GetPortLatency();
    hop.cutThrough = sw->IsCutThrough();
    r.hops.assign(1, hop);
    r.acked = false;
    g.nvlsRoute = r;
    g.nvlsRoute.efficiency = nvlsEfficiency.Get();
    // Unicast messages take their packets port by port, each as its port frees; a message
    // of a few packets waits for the slowest port it used (DGX H100: 4 or 5 links a port).
    auto lanes = std::make_shared<std::vector<FlowHop>>();
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        FlowHop h = hop;
        h.inSecondsPerByte = SecondsPerByte(ports[i]);
        h.outSecondsPerByte = SecondsPerByte(inPorts[i]);
        lanes->push_back(h);
    }
    r.lanePorts = lanes;
}

int64_t
FabricFlowRouter::GetNvLinkDomain(uint32_t rank) const
{
    return m_gpus.at(rank).domain;
}

bool
FabricFlowRouter::IsNvLinkPeer(uint32_t a, uint32_t b) const
{
    const Gpu& ga = m_gpus.at(a);
    const Gpu& gb = m_gpus.at(b);
    return ga.domain >= 0 && ga.domain == gb.domain;
}

bool
FabricFlowRouter::GetNvls(uint32_t rank, uint32_t& out, uint32_t& in, FlowRoute& route)
{
    const Gpu& g = m_gpus.at(rank);
    if (g.domain < 0 || !g.nvls)
    {
        return false;
    }
    out = g.nvOut;
    in = g.nvIn;
    route = g.nvlsRoute;
    return true;
}

bool
FabricFlowRouter::GetNvLink(uint32_t rank,
                            DataRate& out,
                            DataRate& in,
                            FlowRoute& unicast,
                            FlowRoute& nvls,
                            bool& hasNvls) const
{
    const Gpu& g = m_gpus.at(rank);
    hasNvls = false;
    if (g.domain < 0)
    {
        return false;
    }
    out = g.outRate;
    in = g.inRate;
    unicast = g.nvRoute;
    nvls = g.nvlsRoute;
    hasNvls = g.nvls;
    return true;
}

std::string
FabricFlowRouter::GetLinkName(uint32_t link) const
{
    auto named = m_linkNames.find(link);
    if (named != m_linkNames.end())
    {
        return named->second;
    }
    NS_ABORT_MSG_IF(link >= m_portsOfLink.size() || m_portsOfLink[link].size() != 1,
                    "FabricFlowRouter: no link " << link);
    const Ptr<FabricNetDevice> port = m_portsOfLink[link][0];
    return NodeName(port->GetNode()) + "/" + std::to_string(port->GetIfIndex());
}

uint32_t
FabricFlowRouter::LinkOf(Ptr<FabricNetDevice> port)
{
    auto it = m_linkOfPort.find(PeekPointer(port));
    if (it != m_linkOfPort.end())
    {
        return it->second;
    }
    const uint32_t link = m_network->AddLink(port->GetDataRate());
    m_portsOfLink.push_back({port});
    m_linkOfPort.emplace(PeekPointer(port), link);
    return link;
}

void
FabricFlowRouter::Describe(const std::vector<Ptr<FabricNetDevice>>& ports,
                           double& first,
                           Time& fixed,
                           std::vector<FlowHop>& hops) const
{
    first = SecondsPerByte(ports[0]);
    fixed = Time(0);
    hops.clear();
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        fixed += ports[i]->GetFabricChannel()->GetDelay();
        if (i == 0)
        {
            continue;
        }
        Ptr<Node> node = ports[i]->GetNode();
        FlowHop hop;
        hop.inSecondsPerByte = SecondsPerByte(ports[i - 1]);
        hop.outSecondsPerByte = SecondsPerByte(ports[i]);
        hop.latency = m_fabric->GetSwitchLatency(node);
        hop.cutThrough = node->GetObject<FabricSwitch>()->IsCutThrough();
        hops.push_back(hop);
    }
}

bool
FabricFlowRouter::Resolve(uint32_t a,
                          uint32_t b,
                          uint32_t /* channel */,
                          FlowRoute& ab,
                          FlowRoute& ba,
                          std::string& error)
{
    Gpu& ga = m_gpus.at(a);
    Gpu& gb = m_gpus.at(b);
    if (IsNvLinkPeer(a, b))
    {
        ab = ga.nvRoute;
        ab.path = m_network->AddPath({{ga.nvOut, 1.0}, {gb.nvIn, 1.0}});
        ba = gb.nvRoute;
        ba.path = m_network->AddPath({{gb.nvOut, 1.0}, {ga.nvIn, 1.0}});
        return true;
    }
    if (!ga.nic || !gb.nic)
    {
        error = "ranks " + std::to_string(a) + " and " + std::to_string(b)
                + " are in different NVLink domains and one has no NIC";
        return false;
    }
    // The QPs the packet engine would open, in its order: their numbers give the entropy.
    Ptr<RdmaQueuePair> qa = ga.nic->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = gb.nic->CreateQueuePair();
    ga.nic->ConnectQueuePairs(qa, qb, gb.nic);
    Connection c;
    c.a = a;
    c.b = b;
    c.mtu = qa->GetMtu();
    c.timeout = qa->GetRetransmissionTimeout();
    c.entropyAb = qa->GetEntropy();
    c.entropyBa = qb->GetEntropy();
    ab = FlowRoute();
    ba = FlowRoute();
    if (!Trace(c, true, ab) || !Trace(c, false, ba))
    {
        error = "no route between ranks " + std::to_string(a) + " and " + std::to_string(b);
        return false;
    }
    ab.connection = ba.connection = static_cast<uint32_t>(m_connections.size());
    m_connections.push_back(c);
    return true;
}

bool
FabricFlowRouter::Trace(const Connection& c, bool forward, FlowRoute& route)
{
    const Gpu& src = m_gpus[forward ? c.a : c.b];
    const Gpu& dst = m_gpus[forward ? c.b : c.a];
    const std::vector<Ptr<FabricNetDevice>> fwd
        = m_fabric->TraceRdmaPath(src.nicNode, dst.address, forward ? c.entropyAb : c.entropyBa);
    const std::vector<Ptr<FabricNetDevice>> back
        = m_fabric->TraceRdmaPath(dst.nicNode, src.address, forward ? c.entropyBa : c.entropyAb);
    if (fwd.empty() || back.empty())
    {
        return false;
    }
    const uint32_t overhead = m_fabric->GetRdmaOverheadBytes();
    const uint32_t ackBytes = overhead + AethHeader::SIZE;
    FlowRoute r;
    r.connection = route.connection;
    r.forward = forward;
    r.unit = c.mtu;
    r.perPacket = overhead;
    r.perMessage = RethHeader::SIZE + ImmDtHeader::SIZE; // first packet, last packet
    r.perLast = ImmDtHeader::SIZE;
    Describe(fwd, r.firstSecondsPerByte, r.fixed, r.hops);
    r.fixed += src.nic->GetTxLatency();
    r.rxLatency = dst.nic->GetRxLatency();
    r.acked = true;
    r.ackBytes = ackBytes;
    Describe(back, r.ackFirstSecondsPerByte, r.ackFixed, r.ackHops);
    r.ackRxLatency = src.nic->GetRxLatency();
    r.retransmitTimeout = c.timeout;
    std::vector<FlowNetwork::Use> uses;
    for (const Ptr<FabricNetDevice>& port : fwd)
    {
        uses.push_back({LinkOf(port), 1.0});
        if (uses.size() > 1)
        {
            m_network->WatchLink(uses.back().link); // a switch's egress: flows converge there
        }
    }
    const double packet = r.unit + static_cast<double>(overhead);
    if (src.pcie != UINT32_MAX)
    {
        // The NIC reads each packet after its link headers over PCIe (RdmaTransport).
        uses.push_back({src.pcie, (r.unit + BthHeader::SIZE) / packet});
    }
    for (const Ptr<FabricNetDevice>& port : back)
    {
        uses.push_back({LinkOf(port), ackBytes / packet});
    }
    // A retrace that finds the same links keeps the path it had.
    bool same = route.connection != UINT32_MAX;
    if (same)
    {
        const std::vector<FlowNetwork::Use>& old = m_network->GetPath(route.path);
        same = old.size() == uses.size()
               && std::equal(uses.begin(),
                             uses.end(),
                             old.begin(),
                             [](const FlowNetwork::Use& x, const FlowNetwork::Use& y)
                             { return x.link == y.link && x.weight == y.weight; });
    }
    r.path = same ? route.path : m_network->AddPath(uses);
    route = std::move(r);
    return true;
}

bool
FabricFlowRouter::Retrace(FlowRoute& route)
{
    if (route.nvlink || route.connection >= m_connections.size())
    {
        return false;
    }
    const uint32_t before = route.path;
    FlowRoute r = route;
    if (!Trace(m_connections[route.connection], route.forward, r) || r.path == before)
    {
        return false;
    }
    route = std::move(r);
    return true;
}

void
FabricFlowRouter::Follow(Ptr<FaultInjector> injector)
{
    injector->TraceConnectWithoutContext("Fault", MakeCallback(&FabricFlowRouter::OnFault, this));
    injector->TraceConnectWithoutContext("Reroute",
                                         MakeCallback(&FabricFlowRouter::OnReroute, this));
}

void
FabricFlowRouter::OnFault(const std::string& /* what */)
{
    UpdateLinks();
}

void
FabricFlowRouter::OnReroute(const std::string& /* what */)
{
    NotifyRoutesChanged();
}

Time
FabricFlowRouter::GetRetransmissionTimeout() const
{
    Time longest(0);
    for (const Connection& c : m_connections)
    {
        longest = std::max(longest, c.timeout);
    }
    return longest;
}

void
FabricFlowRouter::UpdateLinks()
{
    for (uint32_t link = 0; link < m_portsOfLink.size(); ++link)
    {
        const std::vector<Ptr<FabricNetDevice>>& ports = m_portsOfLink[link];
        if (ports.empty())
        {
            continue; // a NIC's PCIe: no cable
        }
        uint64_t up = 0;
        for (const Ptr<FabricNetDevice>& port : ports)
        {
            if (port->GetFabricChannel()->IsLinkUp())
            {
                up += port->GetDataRate().GetBitRate();
            }
        }
        if (m_network->GetLinkRate(link).GetBitRate() != up)
        {
            m_network->SetLinkRate(link, DataRate(up));
        }
    }
}

void
FabricFlowRouter::AccountPorts() const
{
    for (uint32_t link = 0; link < m_portsOfLink.size(); ++link)
    {
        const std::vector<Ptr<FabricNetDevice>>& ports = m_portsOfLink[link];
        if (ports.empty())
        {
            continue;
        }
        const auto bytes = static_cast<uint64_t>(std::llround(m_network->GetLinkBytes(link)));
        const uint64_t packets = m_network->GetLinkPackets(link);
        // Split by the ports' rates (a GPU's NVLink ports share its link's bytes as the
        // transport sprays them); the last port takes what rounding leaves.
        double total = 0;
        for (const Ptr<FabricNetDevice>& port : ports)
        {
            total += static_cast<double>(port->GetDataRate().GetBitRate());
        }
        uint64_t bytesLeft = bytes;
        uint64_t packetsLeft = packets;
        for (std::size_t i = 0; i < ports.size(); ++i)
        {
            const double share = static_cast<double>(ports[i]->GetDataRate().GetBitRate()) / total;
            const uint64_t b = i + 1 == ports.size() ? bytesLeft : std::llround(bytes * share);
            const uint64_t k = i + 1 == ports.size() ? packetsLeft : std::llround(packets * share);
            ports[i]->AddFlowTx(b, k);
            bytesLeft -= std::min(b, bytesLeft);
            packetsLeft -= std::min(k, packetsLeft);
        }
    }
}

} // namespace ns3
