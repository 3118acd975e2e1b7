/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fat-tree-helper.h"

#include "fabric-helper.h"
#include "flow-fabric.h"
#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/roce-net-device.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FatTreeHelper");

namespace
{

/**
 * \param n numerator
 * \param d denominator (> 0)
 * \return ceil(n / d)
 */
uint64_t
CeilDiv(uint64_t n, uint64_t d)
{
    return (n + d - 1) / d;
}

/**
 * \param rate a rate
 * \return it with two decimals in the largest unit (b/s, Mb/s, Gb/s, Tb/s) not above it
 */
std::string
FormatRate(const DataRate& rate)
{
    const double bps = static_cast<double>(rate.GetBitRate());
    const char* unit = "b/s";
    double value = bps;
    if (bps >= 1e12)
    {
        unit = "Tb/s";
        value = bps / 1e12;
    }
    else if (bps >= 1e9)
    {
        unit = "Gb/s";
        value = bps / 1e9;
    }
    else if (bps >= 1e6)
    {
        unit = "Mb/s";
        value = bps / 1e6;
    }
    char text[64];
    std::snprintf(text, sizeof(text), "%.2f %s", value, unit);
    return text;
}

/**
 * \brief Give a node an ns-3 name, unless the name is taken.
 * \param name the name
 * \param node the node
 */
void
NameNode(const std::string& name, Ptr<Node> node)
{
    if (Names::Find<Object>(name))
    {
        NS_LOG_WARN("FatTreeHelper: name " << name << " already in use; node " << node->GetId()
                                           << " left unnamed");
        return;
    }
    Names::Add(name, node);
}

} // namespace

FatTreeHelper::FatTreeHelper()
{
    NS_LOG_FUNCTION(this);
}

void
FatTreeHelper::SetTiers(uint32_t tiers)
{
    NS_LOG_FUNCTION(this << tiers);
    RequireNotInstalled();
    m_tiers = tiers;
}

void
FatTreeHelper::SetServers(uint32_t servers)
{
    NS_LOG_FUNCTION(this << servers);
    RequireNotInstalled();
    m_servers = servers;
}

void
FatTreeHelper::SetGpusPerServer(uint32_t gpusPerServer)
{
    NS_LOG_FUNCTION(this << gpusPerServer);
    RequireNotInstalled();
    m_gpusPerServer = gpusPerServer;
}

void
FatTreeHelper::SetNicsPerServer(uint32_t nicsPerServer)
{
    RequireNotInstalled();
    m_nicsPerServer = nicsPerServer;
}

uint32_t
FatTreeHelper::GetNicsPerServer() const
{
    return HostsPerServer();
}

uint32_t
FatTreeHelper::HostsPerServer() const
{
    return m_nicsPerServer > 0 ? m_nicsPerServer : m_gpusPerServer;
}

void
FatTreeHelper::SetRadix(uint32_t radix)
{
    NS_LOG_FUNCTION(this << radix);
    RequireNotInstalled();
    m_radix = radix;
}

void
FatTreeHelper::SetOversubscription(uint32_t down, uint32_t up)
{
    NS_LOG_FUNCTION(this << down << up);
    RequireNotInstalled();
    m_ratioDown = down;
    m_ratioUp = up;
}

void
FatTreeHelper::SetRailOptimized(bool rail)
{
    NS_LOG_FUNCTION(this << rail);
    RequireNotInstalled();
    m_rail = rail;
}

void
FatTreeHelper::SetLinkRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    RequireNotInstalled();
    m_linkRate = rate;
    m_linkRateSet = true;
}

std::string
FatTreeHelper::Plan(Layout& layout) const
{
    std::ostringstream why;
    if (m_tiers != 2 && m_tiers != 3)
    {
        why << "tiers must be 2 or 3; asked for " << m_tiers;
        return why.str();
    }
    if (m_servers == 0)
    {
        why << "servers must be at least 1; asked for 0";
        return why.str();
    }
    if (m_gpusPerServer == 0)
    {
        why << "gpusPerServer must be at least 1; asked for 0";
        return why.str();
    }
    const uint64_t gpus = static_cast<uint64_t>(m_servers) * m_gpusPerServer;
    if (gpus > UINT32_MAX)
    {
        why << "servers x gpusPerServer = " << m_servers << " x " << m_gpusPerServer << " = "
            << gpus << " GPUs; ranks are 32-bit, at most " << UINT32_MAX;
        return why.str();
    }
    if (m_nicsPerServer > m_gpusPerServer || m_gpusPerServer % HostsPerServer() != 0)
    {
        why << "nicsPerServer " << m_nicsPerServer << " must divide gpusPerServer "
            << m_gpusPerServer << " (each NIC serves the same number of GPUs)";
        return why.str();
    }
    const uint64_t hosts = static_cast<uint64_t>(m_servers) * HostsPerServer();
    const uint64_t k = m_radix;
    if (k < 2 || k > UINT16_MAX)
    {
        why << "radix must be 2 to " << UINT16_MAX
            << " ports (switch port numbers are 16-bit); asked for " << m_radix;
        return why.str();
    }
    if (m_ratioDown == 0 || m_ratioUp == 0)
    {
        why << "oversubscription " << m_ratioDown << ":" << m_ratioUp
            << " needs both sides at least 1 (down:up ports at the leaf)";
        return why.str();
    }
    const uint64_t g = std::gcd(m_ratioDown, m_ratioUp);
    const uint64_t a = m_ratioDown / g;
    const uint64_t b = m_ratioUp / g;
    if (k % (a + b) != 0)
    {
        why << "oversubscription " << m_ratioDown << ":" << m_ratioUp << " does not divide radix "
            << k << ": a leaf's down + up = " << k << " ports in ratio " << a << ":" << b
            << " need a multiple of " << a + b;
        return why.str();
    }
    const uint64_t down = k / (a + b) * a;
    const uint64_t up = k / (a + b) * b;
    if (m_tiers == 3 && k % 2 != 0)
    {
        why << "3-tier needs an even radix (an aggregation switch has k/2 ports down and k/2 up); "
               "asked for "
            << k;
        return why.str();
    }
    // Rails: one per NIC of a server.
    const uint64_t gps = HostsPerServer();
    if (m_rail)
    {
        if (m_tiers == 2 && gps > k)
        {
            why << "rail-optimized 2-tier needs NICs per server (nicsPerServer, else "
                   "gpusPerServer) <= radix "
                << k << " (a group's rail leaves all hang under each spine); asked for " << gps;
            return why.str();
        }
        if (m_tiers == 3 && gps > k / 2)
        {
            why << "rail-optimized 3-tier needs NICs per server (nicsPerServer, else "
                   "gpusPerServer) <= k/2 = "
                << k / 2 << " (a group's rail leaves share one pod); asked for " << gps;
            return why.str();
        }
    }
    // Leaf slots under one spine (2 tiers) or in one pod (3 tiers).
    const uint64_t slots = m_tiers == 2 ? k : k / 2;
    const uint64_t leavesPerBlock = m_rail ? slots / gps * gps : slots;
    const uint64_t blocks = m_tiers == 2 ? 1 : k; // a core switch has one port per pod
    const uint64_t leaves = m_rail ? CeilDiv(m_servers, down) * gps : CeilDiv(hosts, down);
    if (leaves > leavesPerBlock * blocks)
    {
        why << "radix " << k << " with " << down << " down-links per leaf holds at most ";
        if (m_rail)
        {
            const uint64_t maxServers = leavesPerBlock / gps * blocks * down;
            why << maxServers << " servers x " << gps << " NICs";
        }
        else
        {
            why << leavesPerBlock * blocks * down << " NICs";
        }
        why << " in " << m_tiers << " tiers";
        if (m_tiers == 3)
        {
            why << " (" << blocks << " pods x " << leavesPerBlock << " leaves x " << down << ")";
        }
        if (m_rail)
        {
            why << ", rail-optimized; asked for " << m_servers << " servers";
        }
        else
        {
            why << "; asked for " << hosts;
        }
        return why.str();
    }

    layout = Layout();
    layout.gpus = static_cast<uint32_t>(gpus);
    layout.hosts = static_cast<uint32_t>(hosts);
    layout.down = static_cast<uint32_t>(down);
    layout.up = static_cast<uint32_t>(up);
    layout.leaves = static_cast<uint32_t>(leaves);
    layout.links = hosts + leaves * up;
    if (m_tiers == 2)
    {
        layout.spines = static_cast<uint32_t>(up);
    }
    else
    {
        layout.leavesPerPod = static_cast<uint32_t>(leavesPerBlock);
        layout.pods = static_cast<uint32_t>(CeilDiv(leaves, leavesPerBlock));
        layout.aggsPerPod = static_cast<uint32_t>(up);
        layout.cores = static_cast<uint32_t>(up * (k / 2));
        layout.links += static_cast<uint64_t>(layout.pods) * up * (k / 2);
    }
    return "";
}

std::string
FatTreeHelper::Check() const
{
    Layout layout;
    const std::string why = Plan(layout);
    if (!why.empty() || m_ranks == 1)
    {
        return why;
    }
    // Every rank must hold a node.
    std::vector<bool> held(m_ranks, false);
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        held[RankOfServer(s)] = true;
    }
    for (uint32_t i = 0; i < layout.leaves; ++i)
    {
        held[RankOfLeaf(layout, i)] = true;
    }
    const uint32_t uppers = layout.spines + layout.cores;
    for (uint32_t j = 0; j < uppers && j < m_ranks; ++j)
    {
        held[j] = true;
    }
    const auto empty = static_cast<uint32_t>(std::count(held.begin(), held.end(), false));
    if (empty > 0)
    {
        return "cannot split this fat-tree over " + std::to_string(m_ranks) + " MPI ranks: "
               + std::to_string(empty) + " would hold no node (a server stays whole on one rank; "
               + std::to_string(m_servers) + " server(s), " + std::to_string(layout.leaves)
               + " leaves, " + std::to_string(uppers) + " upper switches)";
    }
    return "";
}

uint32_t
FatTreeHelper::RankOfLeaf(const Layout& l, uint32_t i) const
{
    if (m_ranks > m_servers)
    {
        return i % m_ranks; // more ranks than servers: the leaves spread over all
    }
    uint32_t server = 0;
    if (m_rail)
    {
        // The group's leaves (rails) spread evenly over its servers' ranks.
        const uint32_t hps = HostsPerServer();
        const uint32_t first = i / hps * l.down;
        const uint32_t inGroup = std::min(l.down, m_servers - first);
        server = first + (i % hps) * inGroup / hps;
    }
    else
    {
        server = std::min(i * l.down, l.hosts - 1) / HostsPerServer();
    }
    return RankOfServer(server);
}

void
FatTreeHelper::SetRanks(uint32_t ranks)
{
    RequireNotInstalled();
    NS_ABORT_MSG_IF(ranks == 0, "FatTreeHelper: at least one rank");
    m_ranks = ranks;
}

uint32_t
FatTreeHelper::RankOfServer(uint32_t s) const
{
    if (m_ranks > m_servers)
    {
        return s; // one server per rank; the other ranks hold switches
    }
    return static_cast<uint32_t>(static_cast<uint64_t>(s) * m_ranks / m_servers);
}

std::string
FatTreeHelper::GetSplit() const
{
    RequireInstalled();
    std::vector<uint32_t> servers(m_ranks, 0);
    std::vector<uint32_t> switches(m_ranks, 0);
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        ++servers[RankOfServer(s)];
    }
    for (const NodeContainer* c : {&m_leaves, &m_spines, &m_aggregations, &m_cores})
    {
        for (uint32_t i = 0; i < c->GetN(); ++i)
        {
            ++switches[c->Get(i)->GetSystemId()];
        }
    }
    std::string line = "split over " + std::to_string(m_ranks)
                       + " MPI ranks (servers in blocks, leaves with their servers, upper "
                         "switches round robin):";
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        line += (r == 0 ? " " : "; ") + std::string("rank ") + std::to_string(r) + " "
                + std::to_string(servers[r]) + " server(s), "
                + std::to_string(servers[r] * m_gpusPerServer) + " GPUs, "
                + std::to_string(switches[r]) + " switches";
    }
    return line;
}

FatTreeHelper::Layout
FatTreeHelper::GetLayout() const
{
    Layout layout;
    const std::string why = Plan(layout);
    NS_ABORT_MSG_IF(!why.empty(), "FatTreeHelper: " << why);
    return layout;
}

uint32_t
FatTreeHelper::HostsOnLeaf(const Layout& layout, uint32_t leaf) const
{
    if (m_rail)
    {
        const uint64_t first = static_cast<uint64_t>(leaf / HostsPerServer()) * layout.down;
        return static_cast<uint32_t>(std::min<uint64_t>(layout.down, m_servers - first));
    }
    const uint64_t first = static_cast<uint64_t>(leaf) * layout.down;
    return static_cast<uint32_t>(std::min<uint64_t>(layout.down, layout.hosts - first));
}

uint32_t
FatTreeHelper::LeafOfHost(const Layout& layout, uint32_t host) const
{
    if (m_rail)
    {
        const uint32_t hps = HostsPerServer();
        const uint32_t server = host / hps;
        const uint32_t local = host % hps;
        return server / layout.down * hps + local;
    }
    return host / layout.down;
}

void
FatTreeHelper::Install(FabricHelper& fabric)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_installed, "FatTreeHelper: Install() called twice");
    NS_ABORT_MSG_IF(fabric.GetTopology()->GetNVertices() != 0,
                    "FatTreeHelper: the fabric helper already holds nodes; Install() builds on a "
                    "fresh one (NIC h, server by server, gets its (h + 1)-th host address)");
    if (m_linkRateSet)
    {
        fabric.SetDeviceAttribute("DataRate", DataRateValue(m_linkRate));
    }
    Wire(fabric);
    m_linkRate = fabric.GetHostPort(m_nics.Get(0))->GetDataRate();
    NS_ASSERT_MSG(fabric.GetTopology()->GetNLinks() == GetLayout().links,
                  "FatTreeHelper: built " << fabric.GetTopology()->GetNLinks() << " links, planned "
                                          << GetLayout().links);
    fabric.ComputeRoutes();
    m_installed = true;
}

void
FatTreeHelper::Install(FlowFabric& flow)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_installed, "FatTreeHelper: Install() called twice");
    NS_ABORT_MSG_IF(HostsPerServer() != m_gpusPerServer,
                    "FatTreeHelper: the flow-only fabric has a NIC per GPU; NICs shared by GPUs "
                    "need Install(FabricHelper&)");
    Wire(flow);
    flow.ComputeRoutes();
    m_installed = true;
}

template<class Builder>
void
FatTreeHelper::Wire(Builder& fabric)
{
    const Layout l = GetLayout();
    const uint32_t halfK = m_radix / 2;
    NS_ABORT_MSG_IF(m_ranks > 1 && !Check().empty(), "FatTreeHelper: " << Check());
    // Nodes by MPI rank (SetRanks()): the node ids are the same on any split.
    for (uint32_t r = 0; r < l.gpus; ++r)
    {
        m_gpus.Add(CreateObject<Node>(RankOfServer(r / m_gpusPerServer)));
    }
    // NIC j of a server on its first GPU of the j-th group of gpusPerServer / nicsPerServer.
    const uint32_t perNic = m_gpusPerServer / HostsPerServer();
    for (uint32_t h = 0; h < l.hosts; ++h)
    {
        m_nics.Add(m_gpus.Get(h * perNic));
    }
    fabric.InstallHosts(m_nics);

    for (uint32_t i = 0; i < l.leaves; ++i)
    {
        m_leaves.Add(CreateObject<Node>(RankOfLeaf(l, i)));
    }
    fabric.InstallSwitches(m_leaves);
    if (m_tiers == 2)
    {
        for (uint32_t j = 0; j < l.spines; ++j)
        {
            m_spines.Add(CreateObject<Node>(j % m_ranks));
        }
        fabric.InstallSwitches(m_spines);
    }
    else
    {
        for (uint32_t p = 0; p < l.pods; ++p)
        {
            for (uint32_t j = 0; j < l.aggsPerPod; ++j)
            {
                // With the pod's leaves (a pod's first leaves exist: pods are filled in order).
                const uint32_t leaf
                    = std::min(p * l.leavesPerPod + j % l.leavesPerPod, l.leaves - 1);
                m_aggregations.Add(CreateObject<Node>(m_leaves.Get(leaf)->GetSystemId()));
            }
        }
        fabric.InstallSwitches(m_aggregations);
        for (uint32_t c = 0; c < l.cores; ++c)
        {
            m_cores.Add(CreateObject<Node>(c % m_ranks));
        }
        fabric.InstallSwitches(m_cores);
    }
    for (uint32_t r = 0; r < l.gpus; ++r)
    {
        NameNode("gpu" + std::to_string(r), m_gpus.Get(r));
    }
    for (uint32_t i = 0; i < l.leaves; ++i)
    {
        NameNode("leaf" + std::to_string(i), m_leaves.Get(i));
    }
    for (uint32_t j = 0; j < l.spines; ++j)
    {
        NameNode("spine" + std::to_string(j), m_spines.Get(j));
    }
    for (uint32_t p = 0; p < l.pods; ++p)
    {
        for (uint32_t i = 0; i < l.aggsPerPod; ++i)
        {
            NameNode("pod" + std::to_string(p) + "-agg" + std::to_string(i),
                     m_aggregations.Get(p * l.aggsPerPod + i));
        }
    }
    for (uint32_t c = 0; c < l.cores; ++c)
    {
        NameNode("core" + std::to_string(c), m_cores.Get(c));
    }

    // NIC links first, in server order: a leaf's host ports are its first ports, and on a
    // rail leaf they follow the servers of the group.
    for (uint32_t h = 0; h < l.hosts; ++h)
    {
        fabric.Connect(m_nics.Get(h), m_leaves.Get(LeafOfHost(l, h)));
    }
    // Every leaf to every spine (2 tiers) or to every aggregation switch of its pod (3 tiers).
    for (uint32_t i = 0; i < l.leaves; ++i)
    {
        for (uint32_t j = 0; j < l.up; ++j)
        {
            Ptr<Node> upper = m_tiers == 2
                                  ? m_spines.Get(j)
                                  : m_aggregations.Get((i / l.leavesPerPod) * l.aggsPerPod + j);
            fabric.Connect(m_leaves.Get(i), upper);
        }
    }
    // Aggregation switch j of every pod to cores j*(k/2) .. j*(k/2) + k/2 - 1 (Al-Fares et al.).
    for (uint32_t p = 0; p < l.pods; ++p)
    {
        for (uint32_t j = 0; j < l.aggsPerPod; ++j)
        {
            for (uint32_t c = 0; c < halfK; ++c)
            {
                fabric.Connect(m_aggregations.Get(p * l.aggsPerPod + j),
                               m_cores.Get(j * halfK + c));
            }
        }
    }
}

uint32_t
FatTreeHelper::GetTiers() const
{
    return m_tiers;
}

uint32_t
FatTreeHelper::GetRadix() const
{
    return m_radix;
}

uint32_t
FatTreeHelper::GetNServers() const
{
    return m_servers;
}

uint32_t
FatTreeHelper::GetGpusPerServer() const
{
    return m_gpusPerServer;
}

bool
FatTreeHelper::IsRailOptimized() const
{
    return m_rail;
}

uint32_t
FatTreeHelper::GetNGpus() const
{
    return static_cast<uint32_t>(static_cast<uint64_t>(m_servers) * m_gpusPerServer);
}

uint32_t
FatTreeHelper::GetNLeafDownLinks() const
{
    return GetLayout().down;
}

uint32_t
FatTreeHelper::GetNLeafUpLinks() const
{
    return GetLayout().up;
}

uint32_t
FatTreeHelper::GetNLeaves() const
{
    return GetLayout().leaves;
}

uint32_t
FatTreeHelper::GetNSpines() const
{
    return GetLayout().spines;
}

uint32_t
FatTreeHelper::GetNPods() const
{
    return GetLayout().pods;
}

uint32_t
FatTreeHelper::GetNLeavesPerPod() const
{
    return GetLayout().leavesPerPod;
}

uint32_t
FatTreeHelper::GetNAggregationsPerPod() const
{
    return GetLayout().aggsPerPod;
}

uint32_t
FatTreeHelper::GetNAggregations() const
{
    const Layout l = GetLayout();
    return l.pods * l.aggsPerPod;
}

uint32_t
FatTreeHelper::GetNCores() const
{
    return GetLayout().cores;
}

uint32_t
FatTreeHelper::GetNSwitches() const
{
    const Layout l = GetLayout();
    return l.leaves + l.spines + l.pods * l.aggsPerPod + l.cores;
}

uint64_t
FatTreeHelper::GetNLinks() const
{
    return GetLayout().links;
}

uint32_t
FatTreeHelper::GetLeafOfGpu(uint32_t rank) const
{
    const Layout l = GetLayout();
    NS_ABORT_MSG_IF(rank >= l.gpus, "FatTreeHelper: no GPU of rank " << rank);
    return LeafOfHost(l, rank / (m_gpusPerServer / HostsPerServer()));
}

uint32_t
FatTreeHelper::GetPodOfLeaf(uint32_t leaf) const
{
    const Layout l = GetLayout();
    NS_ABORT_MSG_IF(leaf >= l.leaves, "FatTreeHelper: no leaf " << leaf);
    return m_tiers == 2 ? 0 : leaf / l.leavesPerPod;
}

DataRate
FatTreeHelper::GetLinkRate() const
{
    return m_linkRate;
}

DataRate
FatTreeHelper::GetBisectionBandwidth() const
{
    const Layout l = GetLayout();
    // Half A: the first floor(N/2) NICs in leaf order; half B: the rest. Flow in link units.
    uint64_t remainingA = l.hosts / 2;
    uint64_t local = 0; // A to B inside a leaf
    uint64_t upA = 0;   // what A's leaves can send up: sum of min(a - m, up)
    uint64_t upB = 0;   // what B's leaves can take down: sum of min(b - m, up)
    for (uint32_t leaf = 0; leaf < l.leaves; ++leaf)
    {
        const uint64_t h = HostsOnLeaf(l, leaf);
        const uint64_t a = std::min(h, remainingA);
        remainingA -= a;
        const uint64_t b = h - a;
        const uint64_t m = std::min(a, b);
        local += m;
        upA += std::min<uint64_t>(a - m, l.up);
        upB += std::min<uint64_t>(b - m, l.up);
    }
    // Above the leaves nothing is narrower: spines reach every leaf; aggregation switches are
    // 1:1 and a pod's core links (up * k/2) carry all its leaves' uplinks.
    const uint64_t flow = local + std::min(upA, upB);
    const uint64_t bps = m_linkRate.GetBitRate();
    NS_ABORT_MSG_IF(bps != 0 && flow > UINT64_MAX / bps,
                    "FatTreeHelper: bisection bandwidth exceeds 2^64 bit/s");
    return DataRate(flow * bps);
}

std::string
FatTreeHelper::Summary() const
{
    Layout l;
    const std::string why = Plan(l);
    if (!why.empty())
    {
        return "fat-tree: cannot be built: " + why;
    }
    const uint32_t g = std::gcd(m_ratioDown, m_ratioUp);
    auto count = [](uint64_t n, const char* one, const char* many)
    { return std::to_string(n) + " " + (n == 1 ? one : many); };
    std::ostringstream s;
    s << "fat-tree " << m_tiers << "-tier, radix " << m_radix << ", " << m_ratioDown / g << ":"
      << m_ratioUp / g << (m_rail ? ", rail-optimized" : "") << ": " << count(l.gpus, "GPU", "GPUs")
      << " (" << count(m_servers, "server", "servers") << " x " << m_gpusPerServer
      << (m_nicsPerServer > 0 && m_nicsPerServer != m_gpusPerServer
              ? ", " + count(m_nicsPerServer, "NIC", "NICs") + " each"
              : std::string())
      << "), switches: " << count(l.leaves, "leaf", "leaves") << ", ";
    if (m_tiers == 2)
    {
        s << count(l.spines, "spine", "spines");
    }
    else
    {
        s << l.pods * l.aggsPerPod << " aggregation, " << l.cores << " core ("
          << count(l.pods, "pod", "pods") << ")";
    }
    s << "; " << count(l.links, "link", "links") << "; bisection "
      << FormatRate(GetBisectionBandwidth());
    return s.str();
}

void
FatTreeHelper::RequireInstalled() const
{
    NS_ABORT_MSG_IF(!m_installed, "FatTreeHelper: call Install() first");
}

void
FatTreeHelper::RequireNotInstalled() const
{
    NS_ABORT_MSG_IF(m_installed,
                    "FatTreeHelper: the tree is built; set parameters before Install()");
}

Ptr<Node>
FatTreeHelper::GetGpu(uint32_t server, uint32_t local) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(server >= m_servers || local >= m_gpusPerServer,
                    "FatTreeHelper: no GPU " << local << " on server " << server << " ("
                                             << m_servers << " servers x " << m_gpusPerServer
                                             << ")");
    return m_gpus.Get(server * m_gpusPerServer + local);
}

Ptr<Node>
FatTreeHelper::GetGpuByRank(uint32_t rank) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(rank >= m_gpus.GetN(),
                    "FatTreeHelper: no GPU of rank " << rank << " (" << m_gpus.GetN() << " GPUs)");
    return m_gpus.Get(rank);
}

Ptr<Node>
FatTreeHelper::GetNicNode(uint32_t rank) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(rank >= m_gpus.GetN(), "FatTreeHelper: no GPU of rank " << rank);
    return m_nics.Get(rank / (m_gpusPerServer / HostsPerServer()));
}

NodeContainer
FatTreeHelper::GetNicNodes() const
{
    RequireInstalled();
    NodeContainer nodes;
    for (uint32_t r = 0; r < m_gpus.GetN(); ++r)
    {
        nodes.Add(GetNicNode(r));
    }
    return nodes;
}

NodeContainer
FatTreeHelper::GetNics() const
{
    RequireInstalled();
    return m_nics;
}

NodeContainer
FatTreeHelper::GetGpus() const
{
    RequireInstalled();
    return m_gpus;
}

Ptr<Node>
FatTreeHelper::GetLeaf(uint32_t i) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(i >= m_leaves.GetN(),
                    "FatTreeHelper: no leaf " << i << " (" << m_leaves.GetN() << " leaves)");
    return m_leaves.Get(i);
}

Ptr<Node>
FatTreeHelper::GetSpine(uint32_t j) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(j >= m_spines.GetN(),
                    "FatTreeHelper: no spine " << j << " (" << m_spines.GetN() << " spines in "
                                               << m_tiers << " tiers)");
    return m_spines.Get(j);
}

Ptr<Node>
FatTreeHelper::GetAggregation(uint32_t pod, uint32_t i) const
{
    RequireInstalled();
    const Layout l = GetLayout();
    NS_ABORT_MSG_IF(pod >= l.pods || i >= l.aggsPerPod,
                    "FatTreeHelper: no aggregation switch " << i << " in pod " << pod << " ("
                                                            << l.pods << " pods x " << l.aggsPerPod
                                                            << ")");
    return m_aggregations.Get(pod * l.aggsPerPod + i);
}

Ptr<Node>
FatTreeHelper::GetCore(uint32_t i) const
{
    RequireInstalled();
    NS_ABORT_MSG_IF(i >= m_cores.GetN(),
                    "FatTreeHelper: no core switch " << i << " (" << m_cores.GetN() << " cores)");
    return m_cores.Get(i);
}

} // namespace ns3
