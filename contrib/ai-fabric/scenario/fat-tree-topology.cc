/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The fat-tree of ai-fabric-fattree as a topology of the scenario driver: 2- and 3-tier,
// oversubscribed or rail-optimized, of plain hosts or of NVLink servers (ServerHelper's
// presets), built by FatTreeHelper.

#include "collective-scenario.h"
#include "fabric-cli.h"
#include "ns3/collective-tuner.h"
#include "ns3/communicator.h"
#include "ns3/fabric-helper.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/server-helper.h"

#include <numeric>
#include <vector>

namespace ns3
{

namespace
{

/**
 * \param text "N:M" or "N" (meaning N:1)
 * \param down set to N
 * \param up set to M
 * \return false if the text is not a ratio
 */
bool
ParseRatio(const std::string& text, uint32_t& down, uint32_t& up)
{
    const std::size_t colon = text.find(':');
    uint64_t a = 0;
    uint64_t b = 1;
    if (!FabricCli::ParseUnsigned(text.substr(0, colon), a)
        || (colon != std::string::npos && !FabricCli::ParseUnsigned(text.substr(colon + 1), b))
        || a == 0 || b == 0 || a > 1024 || b > 1024)
    {
        return false;
    }
    down = static_cast<uint32_t>(a);
    up = static_cast<uint32_t>(b);
    return true;
}

/// A fat-tree of GPU servers.
class FatTreeTopology : public ScenarioTopology
{
  public:
    void DeclareOptions(ScenarioOptions& o) override
    {
        o.Use("fabric");
        o.Use("servers", "", "default 2; 16 with --server=none");
        o.Add(
            "gpusPerServer", "GPUs per server (default: the preset's; 1 with --server=none)", "1");
        o.Add("nicsPerServer",
              "NICs per server, each shared by gpusPerServer / nicsPerServer GPUs (NCCL's "
              "GPU-NIC affinity; default: one per GPU)",
              "");
        o.Add("nicRate", "NIC and link rate, e.g. 400Gbps or 400G", "400Gbps");
        o.Add("tiers",
              "switch tiers: 2 (leaf-spine) or 3 (k-ary fat-tree) (default: 2 if the radix "
              "holds the servers, else 3)",
              "");
        o.Use("radix",
              "",
              "default: the smallest standard switch, 32, 64 or 128 ports, that holds the "
              "servers; with --server=none, 8 first");
        o.Add("oversubscription", "leaf down:up ratio, e.g. 1:1, 4:1 or 3", "1:1");
        o.Add("rail",
              "rail-optimized: NIC i of every server on leaf i (default true; false "
              "with --server=none)",
              "");
        o.Add("server",
              "server preset: " + Presets()
                  + " (NVLink domain, GPUs per server and NIC rate unless given) or none",
              "dgx-h100");
        o.Use("collective");
        o.Use("algo");
        o.Use("channels", "", "default: the GPUs of a server, up to 16; 1 with --server=none");
        o.Use("pcap");
        o.UseFabricOption("pfc");
        o.UseFabricOption("ecn");
        o.Use("dcqcn");
        o.Use("cc");
        o.Use("preset");
        o.UseFabricOption("routing");
        o.Use("ibcc");
        o.UseFabricOption("lmc");
    }

    void Check(ScenarioOptions& o, FabricHelper& /* probe */) override
    {
        // A server preset brings its NVLink domain, and its GPU count and NIC rate unless
        // those flags are given.
        const std::string& preset = o.Get("server");
        m_scaleUp = !preset.empty() && preset != "none";
        m_presetName = m_scaleUp ? preset : "none";
        if (o.Get("servers").empty())
        {
            o.Set("servers", m_scaleUp ? "2" : "16");
        }
        if (m_scaleUp)
        {
            if (!m_server.SetPreset(preset))
            {
                o.Fail("--server=" + preset + ": expected " + Presets() + ", or none");
            }
            o.SetDefault("gpusPerServer", std::to_string(m_server.GetServer().gpus));
            if (o.Get("rail").empty())
            {
                // Rail-optimized DGX-class servers (up to 8 GPUs and NICs each); a 72-GPU
                // NVLink domain's 72 rails would need 72 leaves per group.
                o.Set("rail", m_server.GetServer().gpus <= 8 ? "true" : "false");
            }
            o.SetDefault("nicRate",
                         std::to_string(m_server.GetServer().nicRate.GetBitRate()) + "bps");
        }
        if (o.Get("rail").empty())
        {
            o.Set("rail", "false");
        }
        const uint32_t servers = o.Whole("servers", 1, 1 << 20);
        const uint32_t gpus = o.Whole("gpusPerServer", 1, 1024);
        m_rate = o.LinkRate("nicRate");
        if (!ParseRatio(o.Get("oversubscription"), m_down, m_up))
        {
            o.Fail("--oversubscription=" + o.Get("oversubscription")
                   + ": expected a ratio down:up such as 1:1 or 4:1");
        }
        const bool rail = o.Bool("rail");
        m_tree.SetServers(servers);
        m_tree.SetGpusPerServer(gpus);
        if (!o.Get("nicsPerServer").empty())
        {
            const uint32_t nics = o.Whole("nicsPerServer", 1, 1024);
            if (gpus % nics != 0)
            {
                o.Fail("--nicsPerServer=" + o.Get("nicsPerServer") + " must divide the "
                       + std::to_string(gpus) + " GPUs per server");
            }
            if (nics < gpus && !m_scaleUp)
            {
                o.Fail("--nicsPerServer=" + o.Get("nicsPerServer")
                       + " shares NICs between GPUs, which then talk over NVLink: give a "
                         "--server preset, not --server=none");
            }
            m_tree.SetNicsPerServer(nics);
        }
        m_tree.SetOversubscription(m_down, m_up);
        m_tree.SetRailOptimized(rail);
        m_tree.SetLinkRate(m_rate);
        m_tree.SetRanks(FabricCli::GetRanks());
        Size(o);
        if (m_scaleUp)
        {
            m_server.SetGpusPerServer(gpus);
            const std::string serverError = m_server.Check(m_tree.GetNGpus());
            if (!serverError.empty())
            {
                o.Fail("--server=" + preset + ": " + serverError);
            }
        }
        if (m_tree.GetNGpus() < 2)
        {
            o.Fail("a collective needs at least 2 GPUs; this fat-tree has 1");
        }
        o.SetDefault("channels", std::to_string(m_scaleUp ? std::min<uint32_t>(gpus, 16) : 1));
        uint64_t lmc = 0;
        FabricCli::ParseUnsigned(o.Get("lmc"), lmc); // checked by its fabric
        m_lmc = lmc;
    }

    uint32_t GetNGpus() const override
    {
        return m_tree.GetNGpus();
    }

    DataRate GetLinkRate() const override
    {
        return m_rate;
    }

    std::string CheckAlgorithm(const std::string& algo) const override
    {
        const bool nvls = m_scaleUp && m_server.GetServer().nvls;
        if (algo == "nvlstree" && !nvls)
        {
            return "--algo=nvlstree needs servers whose NVSwitches reduce in the switch: "
                   "--server=dgx-h100, hgx-h800, hgx-b200 or gb200-nvl72";
        }
        if (algo == "nvls" && (!nvls || m_tree.GetNServers() != 1))
        {
            return "--algo=nvls needs one server whose NVSwitches reduce in the switch: "
                   "--servers=1 and --server=dgx-h100, hgx-h800, hgx-b200 or gb200-nvl72";
        }
        return "";
    }

    void ConfigureSweep(CollectiveSweepConfig& sweep) const override
    {
        sweep.gpusPerServer = m_tree.GetGpusPerServer();
        sweep.serverAwareRing = m_scaleUp; // NCCL's rail-aligned rings over NVLink servers
    }

    void Install(FabricHelper& fabric) override
    {
        m_tree.Install(fabric);
        if (!m_scaleUp)
        {
            return;
        }
        m_server.Install(m_tree.GetGpus()); // NVLink inside each server
        // GPUDirect RDMA over the GPU-NIC PCIe link: it limits the NIC when slower.
        const DataRate pcie = m_server.GetPcieRate();
        if (pcie < m_rate)
        {
            const NodeContainer nics = m_tree.GetNics();
            for (uint32_t h = 0; h < nics.GetN(); ++h)
            {
                fabric.GetTransport(nics.Get(h))->SetAttribute("PcieRate", DataRateValue(pcie));
                fabric.SetHostRate(nics.Get(h), pcie);
            }
        }
    }

    NodeContainer GetRanks() const override
    {
        return m_tree.GetGpus();
    }

    NodeContainer GetNicNodes() const override
    {
        return m_tree.GetNicNodes();
    }

    Time GetPathLatency(const FabricHelper& fabric) const override
    {
        // Up and down every tier.
        const int64_t switchHops = 2 * static_cast<int64_t>(m_tree.GetTiers()) - 1;
        return fabric.GetSwitchLatency(m_tree.GetLeaf(0)) * switchHops
               + fabric.GetChannels()[0]->GetDelay() * (switchHops + 1);
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
        m_server.ConfigureTuner(tuner, m_tree.GetGpuByRank(0), m_tree.GetNServers());
    }

    std::string GetGpuPreset() const override
    {
        return m_scaleUp ? m_server.GetServer().gpu : ScenarioTopology::GetGpuPreset();
    }

    std::string GetSplit() const override
    {
        return m_tree.GetSplit();
    }

    void PrintHeader(std::ostream& os, const CollectiveScenario& /* scenario */) const override
    {
        os << m_tree.Summary() << "\n";
        if (!m_sized.empty())
        {
            os << m_sized << "\n";
        }
        if (m_scaleUp)
        {
            const ServerPreset& p = m_server.GetServer();
            os << "servers: " << p.name << ", " << p.gpus << " GPUs per NVLink domain, "
               << m_server.GetAllSwitches().GetN() / m_server.GetNDomains()
               << " NVSwitch chips each, NVLink " << m_server.GetGpuNvLinkRate().GetBitRate() / 8e9
               << " GB/s per GPU\n";
        }
    }

    void AfterRun(FailureRunOutput& out,
                  std::ostream* /* os */,
                  const CollectiveScenario& /* scenario */) override
    {
        out.facts["nvlink_GBps_per_gpu"]
            = m_scaleUp ? m_server.GetGpuNvLinkRate().GetBitRate() / 8e9 : 0.0;
        out.facts["nvswitches"] = m_scaleUp ? m_server.GetAllSwitches().GetN() : 0U;
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
        j["lmc"] = m_lmc;
        j["preset"] = c["preset"];
        j["routing"] = scenario.GetFabric().GetRoutingName();
        j["topology"] = "fat-tree";
        j["tiers"] = m_tree.GetTiers();
        j["servers"] = m_tree.GetNServers();
        j["server"] = m_presetName;
        j["nvlink_GBps_per_gpu"] = out.facts["nvlink_GBps_per_gpu"];
        j["nvswitches"] = out.facts["nvswitches"];
        j["gpusPerServer"] = m_tree.GetGpusPerServer();
        j["nicsPerServer"] = m_tree.GetNicsPerServer();
        j["gpus"] = m_tree.GetNGpus();
        j["nicRate_gbps"] = m_rate.GetBitRate() / 1e9;
        j["radix"] = m_tree.GetRadix();
        j["sized"] = m_sized.empty()
                         ? "given"
                         : (m_switchPorts == m_tree.GetRadix()
                                ? "auto"
                                : "auto, " + std::to_string(m_switchPorts) + "-port switches");
        j["oversubscription"] = std::to_string(m_down) + ":" + std::to_string(m_up);
        j["rail"] = m_tree.IsRailOptimized();
        j["leaves"] = m_tree.GetNLeaves();
        j["spines"] = m_tree.GetNSpines();
        j["aggregations"] = m_tree.GetNAggregations();
        j["cores"] = m_tree.GetNCores();
        j["switches"] = m_tree.GetNSwitches();
        j["links"] = m_tree.GetNLinks();
        j["bisection_gbps"] = m_tree.GetBisectionBandwidth().GetBitRate() / 1e9;
        scenario.AddSweepJson(j, out); // the sweep's keys last
        return j;
    }

    std::unique_ptr<ScenarioTopology> Copy() const override
    {
        return std::make_unique<FatTreeTopology>(*this);
    }

  private:
    /**
     * \brief Set the tree's tiers and radix: those given, and for those not given the
     *        smallest that hold the servers (2 tiers before 3; switches of 32, 64 or 128
     *        ports, or 8 first for plain hosts, of which a leaf uses the most its down:up
     *        ratio divides). Fails, with the tree's reason, if none does.
     * \param o the options
     */
    void Size(ScenarioOptions& o)
    {
        const bool tiersGiven = !o.Get("tiers").empty();
        const bool radixGiven = !o.Get("radix").empty();
        const std::vector<uint32_t> tiers = tiersGiven
                                                ? std::vector<uint32_t>{o.Whole("tiers", 2, 3)}
                                                : std::vector<uint32_t>{2, 3};
        // Plain one-GPU hosts (--server=none) keep their small test fabric of radix 8 while it
        // holds them: several leaves and spines for a handful of hosts.
        std::vector<uint32_t> ports{32, 64, 128};
        if (radixGiven)
        {
            ports = {o.Whole("radix", 1, 65536)};
        }
        else if (!m_scaleUp)
        {
            ports.insert(ports.begin(), 8);
        }
        // A leaf's ports in its down:up ratio (and even, for a 3-tier aggregation switch).
        const uint32_t g = std::gcd(m_down, m_up);
        const uint32_t unit = (m_down + m_up) / g;
        std::string why;
        for (uint32_t t : tiers)
        {
            for (uint32_t p : ports)
            {
                uint32_t radix = p;
                if (!radixGiven)
                {
                    const uint32_t step = t == 3 ? std::lcm(unit, 2U) : unit;
                    radix = p / step * step;
                    if (radix == 0)
                    {
                        continue;
                    }
                }
                m_tree.SetTiers(t);
                m_tree.SetRadix(radix);
                why = m_tree.Check();
                if (why.empty())
                {
                    m_switchPorts = p;
                    if (!tiersGiven || !radixGiven)
                    {
                        m_sized = "sized to hold " + std::to_string(m_tree.GetNServers())
                                  + (m_tree.GetNServers() == 1 ? " server" : " servers") + ": "
                                  + std::to_string(t) + " tiers" + (tiersGiven ? " (given)" : "")
                                  + ", radix " + std::to_string(radix)
                                  + (radixGiven   ? " (given)"
                                     : radix == p ? ""
                                                  : " (" + std::to_string(p) + "-port switches, "
                                                        + std::to_string(radix) + " ports used at "
                                                        + std::to_string(m_down / g) + ":"
                                                        + std::to_string(m_up / g) + ")")
                                  + " (--tiers and --radix to choose)";
                    }
                    return;
                }
            }
        }
        if (tiersGiven && radixGiven)
        {
            o.Fail(why);
        }
        o.Fail(why
               + (radixGiven   ? " (2 and 3 tiers tried at the radix given)"
                  : tiersGiven ? " (radix 32, 64 and 128 tried at the tiers given)"
                               : " (radix 32, 64 and 128 tried in 2 and 3 tiers)"));
    }

    /// \return the server presets, "a, b, c"
    static std::string Presets()
    {
        std::string names;
        for (const std::string& n : ServerHelper::PresetNames())
        {
            names += (names.empty() ? "" : ", ") + n;
        }
        return names;
    }

    FatTreeHelper m_tree;      //!< the fat-tree
    ServerHelper m_server;     //!< the servers (with a preset)
    bool m_scaleUp{false};     //!< NVLink servers
    std::string m_presetName;  //!< --server, or "none"
    DataRate m_rate;           //!< --nicRate
    uint32_t m_down{1};        //!< oversubscription: down
    uint32_t m_up{1};          //!< oversubscription: up
    uint64_t m_lmc{0};         //!< --lmc
    std::string m_sized;       //!< the line saying how the tree was sized (empty: as given)
    uint32_t m_switchPorts{0}; //!< the switches' ports (the radix, or more if unused ports)
};

/// ai-fabric-fattree's topology
const ScenarioTopologyRegistration g_fatTree("fat-tree",
                                             []() { return std::make_unique<FatTreeTopology>(); });

} // namespace

} // namespace ns3
