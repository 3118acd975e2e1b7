/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "flow-file-scenario.h"

#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "ns3/fabric-helper.h"
#include "scenario-options.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace ns3
{

std::string
FlowFileScenario::ReadFlows(const std::string& path,
                            const FabricGraph& graph,
                            std::vector<Flow>& flows)
{
    flows.clear();
    std::ifstream in(path);
    if (!in)
    {
        return "cannot read it";
    }
    std::string line;
    uint64_t n = 0;
    while (std::getline(in, line) && line.find_first_not_of(" \t\r") == std::string::npos)
    {
    }
    std::istringstream first(line);
    std::string count;
    if (!(first >> count) || !FabricCli::ParseUnsigned(count, n) || n == 0 || n > (1U << 24))
    {
        return "line 1: expected the number of flows (1 or more)";
    }
    while (flows.size() < n && std::getline(in, line))
    {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
        {
            continue;
        }
        std::istringstream words(line);
        std::string src, dst, pg, dport, size, start;
        uint64_t s = 0;
        uint64_t d = 0;
        uint64_t p = 0;
        uint64_t port = 0;
        uint64_t bytes = 0;
        const std::string where = "flow \"" + line + "\": ";
        if (!(words >> src >> dst >> pg >> dport >> size >> start))
        {
            return where + "expected src dst pg dport size start_time";
        }
        if (!FabricCli::ParseUnsigned(src, s) || !FabricCli::ParseUnsigned(dst, d)
            || s >= graph.nodes.size() || d >= graph.nodes.size())
        {
            return where + "node ids below " + std::to_string(graph.nodes.size());
        }
        if (!graph.nodes[s].gpu || !graph.nodes[d].gpu || s == d)
        {
            return where + "its source and destination must be two hosts (" + graph.nodes[s].name
                   + ", " + graph.nodes[d].name + ")";
        }
        if (!FabricCli::ParseUnsigned(pg, p) || p > 7 || !FabricCli::ParseUnsigned(dport, port)
            || port > 65535)
        {
            return where + "expected a priority group 0-7 and a port 0-65535";
        }
        if (!FabricCli::ParseUnsigned(size, bytes) || bytes == 0)
        {
            return where + "size \"" + size + "\": expected a whole number of bytes, 1 or more";
        }
        char* end = nullptr;
        const double seconds = std::strtod(start.c_str(), &end);
        if (end != start.c_str() + start.size() || !(seconds >= 0) || seconds > 1e3)
        {
            return where + "start time \"" + start + "\": expected seconds, 0 to 1000";
        }
        Flow f;
        f.src = static_cast<uint32_t>(s);
        f.dst = static_cast<uint32_t>(d);
        f.pg = static_cast<uint32_t>(p);
        f.dport = static_cast<uint32_t>(port);
        f.bytes = bytes;
        f.start = PicoSeconds(static_cast<int64_t>(std::llround(seconds * 1e12)));
        flows.push_back(f);
    }
    if (flows.size() < n)
    {
        return std::to_string(flows.size()) + " flows, the first line says " + std::to_string(n);
    }
    return "";
}

void
FlowFileScenario::Configure(const FabricGraph& graph,
                            const std::vector<Flow>& flows,
                            RoceFlowScenarioConfig& cfg)
{
    // Hosts and switches numbered in the file's order.
    std::vector<uint32_t> index(graph.nodes.size());
    uint32_t hosts = 0;
    uint32_t switches = 0;
    for (std::size_t n = 0; n < graph.nodes.size(); ++n)
    {
        index[n] = graph.nodes[n].gpu ? hosts++ : switches++;
    }
    cfg.switches = switches;
    cfg.hostSwitch.assign(hosts, 0);
    cfg.hostRates.assign(hosts, DataRate(0));
    cfg.hostCables.assign(hosts, Time(-1));
    cfg.trunks.clear();
    cfg.trunkRates.clear();
    cfg.trunkCables.clear();
    for (const FabricGraph::Link& l : graph.links)
    {
        const DataRate rate = l.rateSet ? l.rate : DataRate(0);
        const Time delay = l.delaySet ? l.delay : Time(-1);
        if (graph.nodes[l.a].gpu || graph.nodes[l.b].gpu)
        {
            const uint32_t host = graph.nodes[l.a].gpu ? l.a : l.b;
            const uint32_t sw = graph.nodes[l.a].gpu ? l.b : l.a;
            cfg.hostSwitch[index[host]] = index[sw];
            cfg.hostRates[index[host]] = rate;
            cfg.hostCables[index[host]] = delay;
        }
        else
        {
            cfg.trunks.emplace_back(index[l.a], index[l.b]);
            cfg.trunkRates.push_back(rate);
            cfg.trunkCables.push_back(delay);
        }
    }
    cfg.flows.clear();
    for (const Flow& f : flows)
    {
        cfg.flows.push_back({index[f.src], index[f.dst], f.bytes, f.start});
    }
}

uint32_t
FlowFileScenario::HpccAddress(uint32_t node)
{
    return 0x0b000001U + ((node / 256) * 0x00010000U) + ((node % 256) * 0x00000100U);
}

bool
FlowFileScenario::WriteFct(const FabricGraph& graph,
                           const std::vector<Flow>& flows,
                           const RoceFlowScenarioResult& r,
                           const RoceFlowScenarioConfig& cfg,
                           double wireEfficiency,
                           std::ostream& os)
{
    const double payload = cfg.mtu;
    std::map<uint32_t, uint32_t> nextPort; // per source: HPCC's sport, 10000 up
    bool all = true;
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        const Flow& f = flows[i];
        // A shortest path (fewest hops), as the routing takes: its delay, its links'
        // serialization of one full packet, and its slowest link, at the rates and delays as
        // built.
        const FabricGraph::Reach reach = graph.Search(f.src);
        double delayNs = 0;
        double txNs = 0;
        double slowest = 0;
        for (uint32_t n = f.dst; n != f.src && reach.via[n] != UINT32_MAX;)
        {
            const FabricGraph::Link& l = graph.links[reach.via[n]];
            const double bps = static_cast<double>((l.rateSet ? l.rate : cfg.rate).GetBitRate());
            delayNs += (l.delaySet ? l.delay : cfg.cable).GetSeconds() * 1e9;
            txNs += payload * 8 / bps * 1e9;
            slowest = slowest == 0 ? bps : std::min(slowest, bps);
            n = l.a == n ? l.b : l.a;
        }
        const double wire = std::ceil(static_cast<double>(f.bytes) / wireEfficiency);
        const auto standalone
            = static_cast<uint64_t>(std::llround(2 * delayNs + txNs + wire * 8 / slowest * 1e9));
        const RoceFlowResult& result = r.flows[i];
        const uint64_t startNs = static_cast<uint64_t>(std::llround(f.start.GetSeconds() * 1e9));
        // HPCC's FCT: from the start to the requester's completion of the last write.
        const Time fct = result.completed - f.start;
        const uint64_t fctNs
            = result.complete ? static_cast<uint64_t>(std::llround(fct.GetSeconds() * 1e9)) : 0;
        all = all && result.complete;
        const uint32_t sport = 10000 + nextPort[f.src]++;
        char text[160];
        std::snprintf(text,
                      sizeof(text),
                      "%08x %08x %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                      HpccAddress(f.src),
                      HpccAddress(f.dst),
                      sport,
                      f.dport,
                      f.bytes,
                      startNs,
                      fctNs,
                      standalone);
        os << text;
    }
    return all;
}

int
FlowFileScenario::Main(const std::string& program, int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    RoceFlowScenarioConfig cfg;
    cfg.rate = DataRate("100Gbps"); // HPCC's hosts' default
    cfg.cable = NanoSeconds(1000);  // HPCC's 0.001ms
    cfg.dcqcn = true;               // RoCEv2's congestion control (off on ib)
    cfg.untilCompletion = true;     // HPCC's FCT ends at the requester's last ACK
    RoceScenarioCli common(program, cfg);
    ScenarioOptions options(program);
    options.Add("graph",
                "the fabric's file: GraphML, DOT, or the HPCC / SimAI topology text (see the "
                "manual's \"Imported fabrics\")",
                "");
    options.Add("format", "the graph file's format: auto, graphml, dot, hpcc or simai", "auto");
    options.Add("flows",
                "HPCC's flow file: a count, then \"src dst pg dport size start_s\" per flow; "
                "each flow an RDMA write from its start",
                "");
    options.Add("fct", "also write HPCC's fct.txt lines to this file", "");
    common.Declare(options);
    options.Parse(
        argc, argv, "The flows of an HPCC flow file on an imported fabric: FCT per flow.");
    const std::string graphFile = options.Get("graph");
    const std::string flowFile = options.Get("flows");
    if (graphFile.empty())
    {
        options.Fail("--flows needs the fabric: --graph=FILE");
    }
    FabricGraph graph;
    std::string why = FabricGraph::Read(graphFile, options.Get("format"), graph);
    if (why.empty())
    {
        why = graph.Check();
    }
    if (!why.empty())
    {
        options.Fail("--graph=" + graphFile + ": " + why);
    }
    if (!graph.GetServerPreset().empty())
    {
        options.Fail("--graph=" + graphFile
                     + ": --flows runs between hosts of kind gpu (an HPCC host); servers are "
                       "for the collective sweep");
    }
    std::vector<Flow> flows;
    why = ReadFlows(flowFile, graph, flows);
    if (!why.empty())
    {
        options.Fail("--flows=" + flowFile + ": " + why);
    }
    Configure(graph, flows, cfg);
    common.Apply(options, cfg);
    FabricOutputFile fct;
    if (!options.Get("fct").empty())
    {
        fct.OpenOrFail(program, "fct", options.Get("fct"));
    }
    const std::unique_ptr<FabricHelper> probe = FabricHelper::CreateByName(cfg.fabric);
    const double efficiency = probe->GetRdmaWireEfficiency(cfg.mtu);
    std::cout << "# " << program << ": " << graphFile << " (" << graph.format << "), "
              << flows.size() << " flows from " << flowFile << "; fct.txt lines: sip dip sport "
              << "dport size start_ns fct_ns standalone_fct_ns\n";
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    std::ostringstream lines;
    const bool all = WriteFct(graph, flows, r, cfg, efficiency, lines);
    std::cout << lines.str();
    std::cout.flush();
    if (fct.IsOpen())
    {
        fct.Stream() << lines.str();
        std::string error;
        if (!fct.Commit(error))
        {
            std::cerr << program << ": " << error << std::endl;
            return 1;
        }
    }
    nlohmann::ordered_json head;
    head["scenario"] = {{"topology", "graph"},
                        {"graph", graphFile},
                        {"format", graph.format},
                        {"flows_file", flowFile},
                        {"hosts", graph.GetGpus().size()},
                        {"switches", cfg.switches},
                        {"links", graph.links.size()},
                        {"fabric", cfg.fabric}};
    if (!common.WriteOutputs(r, head))
    {
        return 1;
    }
    if (!all)
    {
        std::cerr << program << ": a flow did not finish (its fct is 0)" << std::endl;
        return 1;
    }
    return 0;
}

} // namespace ns3
