/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-graph.h"

#include "fabric-cli.h"
#include "ns3/server-helper.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/property_map/dynamic_property_map.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <queue>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// What the readers keep of a node.
struct VertexText
{
    std::string id;     //!< DOT's node name
    std::string name;   //!< a "name" attribute
    std::string kind;   //!< the "kind" attribute
    std::string preset; //!< the "preset" attribute (servers)
};

/// What the readers keep of an edge.
struct EdgeText
{
    std::string rate;  //!< the "rate" attribute
    std::string delay; //!< the "delay" attribute
    std::string nic;   //!< the "nic" attribute (a server's GPU whose NIC the link is)
};

using TextGraph
    = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexText, EdgeText>;

/**
 * \param value a value a reader put (GraphML's by their declared type, DOT's strings)
 * \return it as text
 */
std::string
AsText(const boost::any& value)
{
    if (const auto* s = boost::any_cast<std::string>(&value))
    {
        return *s;
    }
    std::ostringstream os;
    if (const auto* d = boost::any_cast<double>(&value))
    {
        os << *d;
    }
    else if (const auto* f = boost::any_cast<float>(&value))
    {
        os << *f;
    }
    else if (const auto* i = boost::any_cast<int>(&value))
    {
        os << *i;
    }
    else if (const auto* l = boost::any_cast<long>(&value))
    {
        os << *l;
    }
    else if (const auto* b = boost::any_cast<bool>(&value))
    {
        os << (*b ? "true" : "false");
    }
    return os.str();
}

/**
 * A property map for Boost's readers that takes a value of any declared type as its text,
 * into a field of the graph's vertices or edges (GraphML's attr.type may be string, double,
 * int, ...).
 */
template<typename Descriptor, typename Bundle>
class TextMap : public boost::dynamic_property_map
{
  public:
    /**
     * \param g the graph
     * \param field the field
     */
    TextMap(TextGraph& g, std::string Bundle::*field)
        : m_g(g)
        , m_field(field)
    {
    }

    boost::any get(const boost::any& key) override
    {
        return m_g[boost::any_cast<Descriptor>(key)].*m_field;
    }

    std::string get_string(const boost::any& key) override
    {
        return m_g[boost::any_cast<Descriptor>(key)].*m_field;
    }

    void put(const boost::any& key, const boost::any& value) override
    {
        m_g[boost::any_cast<Descriptor>(key)].*m_field = AsText(value);
    }

    const std::type_info& key() const override
    {
        return typeid(Descriptor);
    }

    const std::type_info& value() const override
    {
        return typeid(std::string);
    }

  private:
    TextGraph& m_g;               //!< the graph
    std::string Bundle::*m_field; //!< the field
};

/**
 * \param g the graph the reader fills
 * \return the properties it may fill: node kind, name and DOT id; edge rate and delay; the
 *         rest of the file's attributes ignored
 */
boost::dynamic_properties
Properties(TextGraph& g)
{
    using V = boost::graph_traits<TextGraph>::vertex_descriptor;
    using E = boost::graph_traits<TextGraph>::edge_descriptor;
    boost::dynamic_properties dp(boost::ignore_other_properties);
    dp.insert("kind", boost::make_shared<TextMap<V, VertexText>>(g, &VertexText::kind));
    dp.insert("name", boost::make_shared<TextMap<V, VertexText>>(g, &VertexText::name));
    dp.insert("node_id", boost::make_shared<TextMap<V, VertexText>>(g, &VertexText::id));
    dp.insert("rate", boost::make_shared<TextMap<E, EdgeText>>(g, &EdgeText::rate));
    dp.insert("delay", boost::make_shared<TextMap<E, EdgeText>>(g, &EdgeText::delay));
    dp.insert("preset", boost::make_shared<TextMap<V, VertexText>>(g, &VertexText::preset));
    dp.insert("nic", boost::make_shared<TextMap<E, EdgeText>>(g, &EdgeText::nic));
    return dp;
}

/**
 * \param text a rate ("400Gbps", "400G") or a number (Gb/s)
 * \param rate filled
 * \return false if it is neither
 */
bool
ParseLinkRate(const std::string& text, DataRate& rate)
{
    char* end = nullptr;
    const double gbps = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size())
    {
        if (!(gbps > 0) || gbps > 1e5)
        {
            return false;
        }
        rate = DataRate(static_cast<uint64_t>(gbps * 1e9));
        return true;
    }
    return FabricCli::ParseRate(text, rate) && rate.GetBitRate() > 0;
}

/**
 * \brief A Boost graph into a FabricGraph.
 * \param g the graph read
 * \param dot names from DOT's node ids
 * \param graph filled
 * \return empty, or why not
 */
std::string
FromText(const TextGraph& g, bool dot, FabricGraph& graph)
{
    std::set<std::string> names;
    for (std::size_t v = 0; v < boost::num_vertices(g); ++v)
    {
        const VertexText& t = g[v];
        std::string kind = t.kind;
        std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
        FabricGraph::Node node;
        if (kind == "gpu" || kind == "host")
        {
            node.gpu = true;
        }
        else if (kind == "server")
        {
            node.server = true;
            node.preset = t.preset.empty() ? "dgx-h100" : t.preset;
            ServerPreset preset;
            if (!ServerHelper::GetPreset(node.preset, preset))
            {
                return "node " + (dot ? t.id : std::to_string(v)) + ": preset \"" + node.preset
                       + "\": expected a server preset of ai-fabric-fattree --server";
            }
            node.gpus = preset.gpus;
        }
        else if (kind != "switch")
        {
            return "node " + (dot ? t.id : std::to_string(v)) + ": kind \"" + t.kind
                   + "\": expected gpu (or host), server or switch";
        }
        node.name = !t.name.empty()        ? t.name
                    : dot && !t.id.empty() ? t.id
                                           : (node.gpu      ? "gpu"
                                              : node.server ? "server"
                                                            : "switch")
                                                 + std::to_string(v);
        if (!names.insert(node.name).second)
        {
            return "two nodes are named " + node.name;
        }
        graph.nodes.push_back(node);
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e)
    {
        FabricGraph::Link link;
        link.a = static_cast<uint32_t>(boost::source(*e, g));
        link.b = static_cast<uint32_t>(boost::target(*e, g));
        const EdgeText& t = g[*e];
        const std::string where
            = "link " + graph.nodes[link.a].name + "-" + graph.nodes[link.b].name;
        if (!t.rate.empty())
        {
            if (!ParseLinkRate(t.rate, link.rate))
            {
                return where + ": rate \"" + t.rate
                       + "\": expected a rate such as 400Gbps or 400G, or Gb/s as a number";
            }
            link.rateSet = true;
        }
        if (!t.delay.empty())
        {
            if (!FabricCli::ParseTime(t.delay, link.delay) || link.delay.IsStrictlyNegative())
            {
                return where + ": delay \"" + t.delay + "\": expected a time such as 100ns";
            }
            link.delaySet = true;
        }
        if (!t.nic.empty())
        {
            uint64_t nic = 0;
            if (!FabricCli::ParseUnsigned(t.nic, nic) || nic > 1024)
            {
                return where + ": nic \"" + t.nic + "\": expected a server's GPU, 0 up";
            }
            link.nic = static_cast<int32_t>(nic);
        }
        graph.links.push_back(link);
    }
    return "";
}

/**
 * \brief The text format of the HPCC and SimAI simulators: a first line of counts (HPCC:
 *        nodes, switches, links; SimAI: nodes, GPUs per server, NVSwitches, switches, links,
 *        GPU type), a line of the switches' (and NVSwitches') ids, then a line per link:
 *        "src dst rate delay error_rate".
 * \param in the file
 * \param graph filled
 * \return empty, or why not
 */
std::string
ReadText(std::istream& in, FabricGraph& graph)
{
    std::string line;
    std::vector<std::string> first;
    while (first.empty() && std::getline(in, line))
    {
        std::istringstream words(line);
        std::string w;
        while (words >> w)
        {
            first.push_back(w);
        }
    }
    auto whole = [](const std::string& s, uint64_t& v) { return FabricCli::ParseUnsigned(s, v); };
    uint64_t nodes = 0;
    uint64_t switches = 0;
    uint64_t links = 0;
    if (first.size() == 3 && whole(first[0], nodes) && whole(first[1], switches)
        && whole(first[2], links))
    {
        graph.format = "hpcc";
    }
    else if (first.size() == 6 && whole(first[0], nodes) && whole(first[3], switches)
             && whole(first[4], links))
    {
        graph.format = "simai";
        uint64_t nvswitches = 0;
        if (!whole(first[2], nvswitches))
        {
            return "line 1: expected SimAI's counts: nodes, GPUs per server, NVSwitches, "
                   "switches, links, GPU type";
        }
        if (nvswitches > 0)
        {
            return "line 1: " + std::to_string(nvswitches) +
                   " NVSwitches: NVLink domains are not imported (the servers' NVLink comes "
                   "from ai-fabric-fattree's --server presets); a SimAI file without them "
                   "imports";
        }
    }
    else
    {
        return "line 1: expected the counts of HPCC's format (nodes switches links) or "
               "SimAI's (nodes gpus_per_server nvswitches switches links gpu_type)";
    }
    if (nodes < 2 || nodes > (1U << 24) || switches >= nodes || links > (1U << 26))
    {
        return "line 1: " + std::to_string(nodes) + " nodes, " + std::to_string(switches)
               + " switches, " + std::to_string(links) + " links: out of range";
    }
    std::vector<bool> isSwitch(nodes, false);
    uint64_t seen = 0;
    while (seen < switches && in >> line)
    {
        uint64_t id = 0;
        if (!whole(line, id) || id >= nodes)
        {
            return "the switches' line: \"" + line + "\": expected a node id below "
                   + std::to_string(nodes);
        }
        isSwitch[id] = true;
        ++seen;
    }
    if (seen < switches)
    {
        return "the switches' line: " + std::to_string(seen) + " ids, expected "
               + std::to_string(switches);
    }
    graph.nodes.resize(nodes);
    uint32_t gpu = 0;
    uint32_t sw = 0;
    for (uint64_t n = 0; n < nodes; ++n)
    {
        graph.nodes[n].gpu = !isSwitch[n];
        graph.nodes[n].name
            = isSwitch[n] ? "switch" + std::to_string(sw++) : "gpu" + std::to_string(gpu++);
    }
    std::getline(in, line); // the rest of the switches' line
    for (uint64_t l = 0; l < links; ++l)
    {
        if (!std::getline(in, line))
        {
            return "link " + std::to_string(l + 1) + " of " + std::to_string(links)
                   + ": the file ends";
        }
        std::istringstream words(line);
        std::string src, dst, rate, delay, error;
        if (!(words >> src >> dst >> rate >> delay))
        {
            --l; // a blank line
            if (line.find_first_not_of(" \t\r") != std::string::npos)
            {
                return "link line \"" + line + "\": expected src dst rate delay error_rate";
            }
            continue;
        }
        words >> error;
        FabricGraph::Link link;
        uint64_t a = 0;
        uint64_t b = 0;
        if (!whole(src, a) || !whole(dst, b) || a >= nodes || b >= nodes)
        {
            return "link \"" + line + "\": node ids below " + std::to_string(nodes);
        }
        link.a = static_cast<uint32_t>(a);
        link.b = static_cast<uint32_t>(b);
        if (!ParseLinkRate(rate, link.rate))
        {
            return "link \"" + line + "\": rate \"" + rate + "\": expected e.g. 100Gbps";
        }
        link.rateSet = true;
        if (!FabricCli::ParseTime(delay, link.delay) || link.delay.IsStrictlyNegative())
        {
            return "link \"" + line + "\": delay \"" + delay + "\": expected e.g. 0.001ms";
        }
        link.delaySet = true;
        if (!error.empty() && std::strtod(error.c_str(), nullptr) != 0)
        {
            return "link \"" + line + "\": error rate " + error
                   + ": a lossy link is not imported (--failures=ber:A-B@T,rate=R is)";
        }
        graph.links.push_back(link);
    }
    return "";
}

} // namespace

std::string
FabricGraph::Read(const std::string& path, const std::string& format, FabricGraph& graph)
{
    graph = FabricGraph();
    std::ifstream in(path);
    if (!in)
    {
        return "cannot read it";
    }
    std::string f = format;
    if (f == "auto")
    {
        auto ends = [&](const std::string& s)
        {
            return path.size() >= s.size()
                   && std::equal(s.rbegin(),
                                 s.rend(),
                                 path.rbegin(),
                                 [](char a, char b) { return a == ::tolower(b); });
        };
        f = ends(".graphml") || ends(".xml") ? "graphml"
            : ends(".dot") || ends(".gv")    ? "dot"
                                             : "text";
    }
    if (f == "hpcc" || f == "simai" || f == "text")
    {
        const std::string why = ReadText(in, graph);
        if (why.empty() && f != "text" && graph.format != f)
        {
            return "not in " + f + "'s format (its first line is " + graph.format + "'s)";
        }
        return why;
    }
    if (f != "graphml" && f != "dot")
    {
        return "format " + format + ": expected auto, graphml, dot, hpcc or simai";
    }
    graph.format = f;
    TextGraph g;
    boost::dynamic_properties dp = Properties(g);
    try
    {
        if (f == "graphml")
        {
            boost::read_graphml(in, g, dp);
        }
        else if (!boost::read_graphviz(in, g, dp, "node_id"))
        {
            return "not a DOT graph";
        }
    }
    catch (const boost::directed_graph_error&)
    {
        return "a directed graph: declare it undirected (GraphML edgedefault=\"undirected\", "
               "DOT graph { a -- b }): each edge is a cable, both ways";
    }
    catch (const std::exception& e)
    {
        std::string why = e.what();
        std::replace(why.begin(), why.end(), '\n', ' ');
        return "not " + std::string(f == "graphml" ? "GraphML" : "DOT") + " (" + why + ")";
    }
    return FromText(g, f == "dot", graph);
}

std::vector<uint32_t>
FabricGraph::GetGpus() const
{
    std::vector<uint32_t> gpus;
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (nodes[n].gpu || nodes[n].server)
        {
            gpus.push_back(n);
        }
    }
    return gpus;
}

uint32_t
FabricGraph::GetNRanks() const
{
    uint32_t ranks = 0;
    for (const Node& n : nodes)
    {
        ranks += n.gpu || n.server ? n.gpus : 0;
    }
    return ranks;
}

std::string
FabricGraph::GetServerPreset() const
{
    for (const Node& n : nodes)
    {
        if (n.server)
        {
            return n.preset;
        }
    }
    return "";
}

std::string
FabricGraph::Check() const
{
    const std::vector<uint32_t> gpus = GetGpus();
    if (GetNRanks() < 2)
    {
        return std::to_string(GetNRanks()) + " GPU" + (GetNRanks() == 1 ? "" : "s")
               + ": a collective needs at least 2 (nodes of kind gpu, or servers)";
    }
    // Hosts all GPUs, or all servers of one preset (one NVLink model for the run).
    for (uint32_t h : gpus)
    {
        if (nodes[h].server != nodes[gpus[0]].server || nodes[h].preset != nodes[gpus[0]].preset)
        {
            return "hosts " + nodes[gpus[0]].name + " and " + nodes[h].name
                   + " differ: the hosts are all GPUs, or all servers of one preset";
        }
    }
    auto host = [this](uint32_t n) { return nodes[n].gpu || nodes[n].server; };
    std::vector<uint32_t> degree(nodes.size(), 0); // links per node
    for (const Link& l : links)
    {
        if (l.a == l.b)
        {
            return "a link from " + nodes[l.a].name + " to itself";
        }
        if (host(l.a) && host(l.b))
        {
            return "a link between hosts " + nodes[l.a].name + " and " + nodes[l.b].name
                   + ": a host's links are its NICs', to switches (a server's NVLink is its "
                     "preset's)";
        }
        ++degree[l.a];
        ++degree[l.b];
    }
    for (uint32_t g : gpus)
    {
        if (degree[g] == 0)
        {
            return (nodes[g].server ? "server " : "GPU ") + nodes[g].name
                   + " has no link: it has no NIC";
        }
        if (!nodes[g].server && degree[g] > 1)
        {
            return "GPU " + nodes[g].name + " has " + std::to_string(degree[g])
                   + " links: a GPU has one NIC, one link";
        }
    }
    // A server: a link per GPU's NIC, each naming its GPU (its rail).
    std::vector<std::vector<bool>> nicUsed(nodes.size());
    for (const Link& l : links)
    {
        for (uint32_t end : {l.a, l.b})
        {
            if (!nodes[end].server)
            {
                continue;
            }
            const Node& n = nodes[end];
            if (l.nic < 0 || static_cast<uint32_t>(l.nic) >= n.gpus)
            {
                return "server " + n.name + ": a link without a nic from 0 to "
                       + std::to_string(n.gpus - 1) + " (the GPU whose NIC it is)";
            }
            nicUsed[end].resize(n.gpus, false);
            if (nicUsed[end][l.nic])
            {
                return "server " + n.name + ": two links from the NIC of GPU "
                       + std::to_string(l.nic) + " (one NIC, one link)";
            }
            nicUsed[end][l.nic] = true;
        }
    }
    for (uint32_t g : gpus)
    {
        if (nodes[g].server && degree[g] != nodes[g].gpus)
        {
            return "server " + nodes[g].name + ": " + std::to_string(degree[g]) + " NIC links for "
                   + std::to_string(nodes[g].gpus)
                   + " GPUs: each GPU needs its own NIC (NICs shared by GPUs are not modelled)";
        }
    }
    // Every host reachable from the first, through switches.
    const Reach reach = Search(gpus[0]);
    for (uint32_t g : gpus)
    {
        if (reach.hops[g] == UINT32_MAX)
        {
            return "disconnected: no path from " + nodes[gpus[0]].name + " to " + nodes[g].name;
        }
    }
    return "";
}

FabricGraph::Reach
FabricGraph::Search(uint32_t from) const
{
    std::vector<std::vector<uint32_t>> linksOf(nodes.size());
    for (uint32_t i = 0; i < links.size(); ++i)
    {
        linksOf[links[i].a].push_back(i);
        linksOf[links[i].b].push_back(i);
    }
    Reach reach;
    reach.hops.assign(nodes.size(), UINT32_MAX);
    reach.via.assign(nodes.size(), UINT32_MAX);
    reach.hops[from] = 0;
    std::queue<uint32_t> frontier;
    frontier.push(from);
    while (!frontier.empty())
    {
        const uint32_t n = frontier.front();
        frontier.pop();
        for (uint32_t i : linksOf[n])
        {
            const uint32_t m = links[i].a == n ? links[i].b : links[i].a;
            if (reach.hops[m] == UINT32_MAX)
            {
                reach.hops[m] = reach.hops[n] + 1;
                reach.via[m] = i;
                if (!nodes[m].gpu && !nodes[m].server)
                {
                    frontier.push(m); // switches forward; hosts do not
                }
            }
        }
    }
    return reach;
}

uint32_t
FabricGraph::GetSwitchHops() const
{
    const std::vector<uint32_t> hosts = GetGpus();
    const Reach reach = Search(hosts.at(0));
    uint32_t most = 0;
    for (uint32_t h : hosts)
    {
        if (h != hosts[0] && reach.hops[h] != UINT32_MAX)
        {
            most = std::max(most, reach.hops[h] - 1); // the nodes between are switches
        }
    }
    return most;
}

} // namespace ns3
