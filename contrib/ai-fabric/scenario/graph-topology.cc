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
#include "ns3/collective-tuner.h"
#include "ns3/communicator.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/server-helper.h"

#include <map>

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
        o.Add("flows",
              "HPCC's flow file: run its flows on the fabric instead of the sweep, each flow's "
              "FCT in HPCC's fct.txt format (ai-fabric-custom only; --flows=FILE --help lists "
              "that mode's flags)",
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
        if (!o.Get("flows").empty())
        {
            o.Fail("--flows: HPCC flow files run with ai-fabric-custom --graph=FILE --flows=FILE");
        }
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
        // Servers: a preset's GPUs in an NVLink domain, each with its NIC at the preset's
        // rate unless the link gives one.
        m_scaleUp = !m_graph.GetServerPreset().empty();
        if (m_scaleUp)
        {
            m_server.SetPreset(m_graph.GetServerPreset()); // checked by the reader
            const std::string serverError = m_server.Check(m_graph.GetNRanks());
            if (!serverError.empty())
            {
                o.Fail("--graph=" + m_file + ": " + serverError);
            }
            if (!o.IsGiven("linkRate"))
            {
                m_defaultLinkRate = m_server.GetServer().nicRate;
                m_rate = m_defaultLinkRate;
            }
            o.SetDefault("channels",
                         std::to_string(std::min<uint32_t>(m_server.GetServer().gpus, 16)));
        }
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
        return m_graph.GetNRanks();
    }

    std::string CheckAlgorithm(const std::string& algo) const override
    {
        const bool nvls = m_scaleUp && m_server.GetServer().nvls;
        if ((algo == "nvlstree" || algo == "nvls") && !nvls)
        {
            return "--algo=" + algo + " needs servers whose NVSwitches reduce in the switch "
                   "(kind server, preset dgx-h100, hgx-h800, hgx-b200 or gb200-nvl72)";
        }
        if (algo == "nvls" && m_gpuIndex.size() != 1)
        {
            return "--algo=nvls needs one server";
        }
        return "";
    }

    void ConfigureSweep(CollectiveSweepConfig& sweep) const override
    {
        if (m_scaleUp)
        {
            sweep.gpusPerServer = m_server.GetServer().gpus;
            sweep.serverAwareRing = true; // NCCL's rail-aligned rings over NVLink servers
        }
    }

    void ConfigureCollectives(CollectiveHelper& collectives) const override
    {
        if (m_scaleUp)
        {
            m_server.ConfigureCollectives(collectives); // the GPUs' memory for reductions
        }
    }

    void ConfigureTuner(CollectiveTuner& tuner, const Communicator& /* comm */) const override
    {
        if (!m_scaleUp)
        {
            return;
        }
        m_server.ConfigureTuner(tuner, m_gpus.Get(0), static_cast<uint32_t>(m_gpuIndex.size()));
    }

    DataRate GetLinkRate() const override
    {
        return m_rate;
    }

    void Install(FabricHelper& fabric) override
    {
        // Nodes in the file's order, GPUs first (the ranks: each host's GPUs, hosts in the
        // file's order), as a FatTreeHelper builds its GPUs, then its switches.
        const std::size_t n = m_graph.nodes.size();
        std::vector<std::vector<Ptr<Node>>> gpusOf(n);
        for (uint32_t h : m_gpuIndex)
        {
            for (uint32_t g = 0; g < m_graph.nodes[h].gpus; ++g)
            {
                gpusOf[h].push_back(CreateObject<Node>());
                m_gpus.Add(gpusOf[h].back());
            }
        }
        std::vector<Ptr<Node>> switchOf(n);
        NodeContainer switches;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (gpusOf[i].empty())
            {
                switchOf[i] = CreateObject<Node>();
                switches.Add(switchOf[i]);
            }
        }
        // Each link's end: a switch, a GPU, or a server's GPU (the link's nic).
        auto end = [&](uint32_t node, const FabricGraph::Link& l) {
            return !switchOf[node] ? gpusOf[node][m_graph.nodes[node].server ? l.nic : 0]
                                   : switchOf[node];
        };
        // A GPU's NIC is made at its link's rate (or the default's).
        std::map<Ptr<Node>, DataRate> nicRate;
        for (const FabricGraph::Link& l : m_graph.links)
        {
            for (uint32_t e : {l.a, l.b})
            {
                if (!switchOf[e])
                {
                    nicRate[end(e, l)] = l.rateSet ? l.rate : m_defaultLinkRate;
                }
            }
        }
        for (uint32_t r = 0; r < m_gpus.GetN(); ++r)
        {
            fabric.SetDeviceAttribute("DataRate", DataRateValue(nicRate[m_gpus.Get(r)]));
            fabric.InstallHosts(NodeContainer(m_gpus.Get(r)));
        }
        fabric.InstallSwitches(switches);
        m_firstSwitch = switches.Get(0);
        for (std::size_t i = 0; i < n; ++i)
        {
            const std::string& name = m_graph.nodes[i].name;
            if (switchOf[i] && !Names::Find<Object>(name))
            {
                Names::Add(name, switchOf[i]);
            }
            for (uint32_t g = 0; g < gpusOf[i].size(); ++g)
            {
                // A server's GPUs: "<server>-gpu<i>".
                const std::string gpu
                    = m_graph.nodes[i].server ? name + "-gpu" + std::to_string(g) : name;
                if (!Names::Find<Object>(gpu))
                {
                    Names::Add(gpu, gpusOf[i][g]);
                }
            }
        }
        // Links in the file's order; a switch port at its link's rate.
        for (const FabricGraph::Link& l : m_graph.links)
        {
            fabric.SetDeviceAttribute("DataRate",
                                      DataRateValue(l.rateSet ? l.rate : m_defaultLinkRate));
            const NetDeviceContainer ports = fabric.Connect(end(l.a, l), end(l.b, l));
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
        if (m_scaleUp)
        {
            m_server.Install(m_gpus); // NVLink inside each server
            // GPUDirect RDMA over the GPU-NIC PCIe link: it limits the NIC when slower.
            const DataRate pcie = m_server.GetPcieRate();
            for (uint32_t g = 0; g < m_gpus.GetN(); ++g)
            {
                Ptr<Node> gpu = m_gpus.Get(g);
                if (pcie < nicRate[gpu])
                {
                    fabric.GetTransport(gpu)->SetAttribute("PcieRate", DataRateValue(pcie));
                    fabric.SetHostRate(gpu, pcie);
                }
            }
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
        os << "graph " << m_file << " (" << m_graph.format << "): " << GetNGpus() << " GPUs";
        if (m_scaleUp)
        {
            os << " (" << m_gpuIndex.size() << " servers x " << m_server.GetServer().gpus << ")";
        }
        os << ", " << m_graph.nodes.size() - m_gpuIndex.size() << " switches, "
           << m_graph.links.size() << " links; up to " << m_hops << " switches between hosts\n";
        if (m_scaleUp)
        {
            const ServerPreset& p = m_server.GetServer();
            os << "servers: " << p.name << ", " << p.gpus << " GPUs per NVLink domain, NVLink "
               << m_server.GetGpuNvLinkRate().GetBitRate() / 8e9 << " GB/s per GPU\n";
        }
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
        j["servers"] = m_scaleUp ? m_gpuIndex.size() : 0;
        j["server"] = m_scaleUp ? m_server.GetServer().name : "none";
        j["switches"] = m_graph.nodes.size() - m_gpuIndex.size();
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
    ServerHelper m_server;                 //!< the servers' NVLink (with servers)
    bool m_scaleUp{false};                 //!< the hosts are servers
};

/// ai-fabric-custom's topology
const ScenarioTopologyRegistration g_graph("graph",
                                           []() { return std::make_unique<GraphTopology>(); });

} // namespace

} // namespace ns3
