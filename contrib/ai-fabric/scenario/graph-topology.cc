/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// A fabric imported from a file (FabricGraph: GraphML, DOT, the HPCC and SimAI simulators'
// topology text) as a topology of the scenario driver: ai-fabric-custom, and ai-fabric-sweep
// --topology=graph.

#include "collective-scenario.h"
#include "fabric-cli.h"
#include "fabric-graph.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/names.h"
#include "ns3/node.h"

namespace ns3
{

namespace
{

/// A fabric from a file.
class GraphTopology : public ScenarioTopology
{
  public:
    void DeclareOptions(ScenarioOptions& o) override
    {
        o.Use("fabric");
        o.Add("graph",
              "the fabric's file: GraphML (.graphml, .xml), Graphviz DOT (.dot, .gv) or the "
              "HPCC / SimAI simulators' topology text (any other name); see the manual's "
              "\"Imported fabrics\"",
              "");
        o.Add(
            "format", "the file's format: auto (by its name), graphml, dot, hpcc or simai", "auto");
        o.Add("linkRate", "rate of the links the file gives none, e.g. 400Gbps or 400G", "400Gbps");
        o.Use("collective");
        o.Use("algo");
        o.Use("channels");
        o.Use("pcap");
        o.UseFabricOption("pfc");
        o.UseFabricOption("ecn");
        o.Use("dcqcn");
        o.Use("cc");
        o.Use("preset");
        o.UseFabricOption("routing");
        o.Use("ibcc");
    }

    void Check(ScenarioOptions& o, FabricHelper& /* probe */) override
    {
        m_file = o.Get("graph");
        if (m_file.empty())
        {
            o.Fail("--graph: expected the fabric's file (--graph=FILE)");
        }
        const std::string why = FabricGraph::Read(m_file, o.Get("format"), m_graph);
        if (!why.empty())
        {
            o.Fail("--graph=" + m_file + ": " + why);
        }
        const std::string invalid = m_graph.Check();
        if (!invalid.empty())
        {
            o.Fail("--graph=" + m_file + ": " + invalid);
        }
        if (FabricCli::GetRanks() > 1)
        {
            o.Fail("--graph: an imported fabric runs in one process; run it without mpirun");
        }
        m_defaultLinkRate = o.LinkRate("linkRate");
        m_rate = m_defaultLinkRate;
        m_gpuIndex = m_graph.GetGpus();
        // The rate a GPU's NIC sends at: its link's (the first GPU's), for the tuner.
        for (const FabricGraph::Link& l : m_graph.links)
        {
            if ((l.a == m_gpuIndex[0] || l.b == m_gpuIndex[0]) && l.rateSet)
            {
                m_rate = l.rate;
            }
        }
        m_hops = m_graph.GetSwitchHops();
    }

    uint32_t GetNGpus() const override
    {
        return static_cast<uint32_t>(m_gpuIndex.size());
    }

    DataRate GetLinkRate() const override
    {
        return m_rate;
    }

    void Install(FabricHelper& fabric) override
    {
        // Nodes in the file's order, GPUs first (the ranks, in the file's order), as a
        // FatTreeHelper builds its GPUs, then its switches.
        const std::size_t n = m_graph.nodes.size();
        std::vector<Ptr<Node>> nodes(n);
        for (uint32_t g : m_gpuIndex)
        {
            nodes[g] = CreateObject<Node>();
            m_gpus.Add(nodes[g]);
        }
        NodeContainer switches;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (!m_graph.nodes[i].gpu)
            {
                nodes[i] = CreateObject<Node>();
                switches.Add(nodes[i]);
            }
        }
        // A GPU's NIC is made at its rate (its link's, or --linkRate's).
        std::vector<const FabricGraph::Link*> linkOf(n, nullptr);
        for (const FabricGraph::Link& l : m_graph.links)
        {
            linkOf[l.a] = m_graph.nodes[l.a].gpu ? &l : linkOf[l.a];
            linkOf[l.b] = m_graph.nodes[l.b].gpu ? &l : linkOf[l.b];
        }
        for (uint32_t g : m_gpuIndex)
        {
            const FabricGraph::Link* l = linkOf[g];
            fabric.SetDeviceAttribute("DataRate",
                                      DataRateValue(l && l->rateSet ? l->rate : m_defaultLinkRate));
            fabric.InstallHosts(NodeContainer(nodes[g]));
        }
        fabric.InstallSwitches(switches);
        m_firstSwitch = switches.Get(0);
        for (std::size_t i = 0; i < n; ++i)
        {
            if (!Names::Find<Object>(m_graph.nodes[i].name))
            {
                Names::Add(m_graph.nodes[i].name, nodes[i]);
            }
        }
        // Links in the file's order; a switch port at its link's rate.
        for (const FabricGraph::Link& l : m_graph.links)
        {
            fabric.SetDeviceAttribute("DataRate",
                                      DataRateValue(l.rateSet ? l.rate : m_defaultLinkRate));
            const NetDeviceContainer ports = fabric.Connect(nodes[l.a], nodes[l.b]);
            if (l.delaySet)
            {
                ports.Get(0)->GetChannel()->SetAttribute("Delay", TimeValue(l.delay));
            }
        }
        fabric.SetDeviceAttribute("DataRate", DataRateValue(m_defaultLinkRate));
        fabric.ComputeRoutes();
        const std::string missing = fabric.FindMissingRoute();
        if (!missing.empty())
        {
            FabricCli::Fail(ScenarioOptions::GetRunProgram(),
                            "--graph=" + m_file + ": cannot be routed with --routing="
                                + fabric.GetRoutingName() + ": " + missing);
        }
    }

    NodeContainer GetRanks() const override
    {
        return m_gpus;
    }

    Time GetPathLatency(const FabricHelper& fabric) const override
    {
        // The farthest GPU from the first: its switches and the links between.
        Time delay;
        for (const Ptr<FabricChannel>& c : fabric.GetChannels())
        {
            delay = std::max(delay, c->GetDelay());
        }
        return fabric.GetSwitchLatency(m_firstSwitch) * m_hops + delay * (m_hops + 1);
    }

    void PrintHeader(std::ostream& os, const CollectiveScenario& /* scenario */) const override
    {
        os << "graph " << m_file << " (" << m_graph.format << "): " << GetNGpus() << " GPUs, "
           << m_graph.nodes.size() - GetNGpus() << " switches, " << m_graph.links.size()
           << " links; up to " << m_hops << " switches between GPUs\n";
    }

    nlohmann::ordered_json GetScenarioJson(const CollectiveScenario& scenario,
                                           const FailureRunOutput& out) const override
    {
        const nlohmann::ordered_json c = scenario.GetCommonJson(out);
        nlohmann::ordered_json j;
        for (const char* key : {"fabric", "pfc", "ecn", "dcqcn", "ibcc"})
        {
            j[key] = c[key];
        }
        j["preset"] = c["preset"];
        j["routing"] = scenario.GetFabric().GetRoutingName();
        j["topology"] = "graph";
        j["graph"] = m_file;
        j["format"] = m_graph.format;
        j["gpus"] = GetNGpus();
        j["switches"] = m_graph.nodes.size() - GetNGpus();
        j["links"] = m_graph.links.size();
        j["switch_hops"] = m_hops;
        j["linkRate_gbps"] = m_rate.GetBitRate() / 1e9;
        scenario.AddSweepJson(j, out);
        return j;
    }

    std::unique_ptr<ScenarioTopology> Copy() const override
    {
        return std::make_unique<GraphTopology>(*this);
    }

  private:
    std::string m_file;                    //!< --graph
    FabricGraph m_graph;                   //!< what it holds
    std::vector<uint32_t> m_gpuIndex;      //!< the GPUs' node indices, in rank order
    DataRate m_rate;                       //!< the GPUs' NIC rate (the tuner's)
    DataRate m_defaultLinkRate{"400Gbps"}; //!< --linkRate
    uint32_t m_hops{0};                    //!< most switches between the first GPU and another
    NodeContainer m_gpus;                  //!< the ranks, once installed
    Ptr<Node> m_firstSwitch;               //!< a switch, once installed (its latency)
};

/// ai-fabric-custom's topology
const ScenarioTopologyRegistration g_graph("graph",
                                           []() { return std::make_unique<GraphTopology>(); });

} // namespace

} // namespace ns3
