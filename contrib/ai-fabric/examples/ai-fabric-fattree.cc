/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The front door: a fat-tree of GPU servers (DGX H100 by default, NVLink inside) on a RoCEv2 or
 * InfiniBand fabric runs an nccl-tests style sweep
 * of a collective and prints the table NCCL users read every day.
 *
 *   ./ns3 run ai-fabric-fattree
 *   ./ns3 run "ai-fabric-fattree --servers=4 --radix=16 --collective=allgather --algo=ring"
 *   ./ns3 run "ai-fabric-fattree --server=dgx-h100 --servers=1 --algo=nvls --maxBytes=1G"
 *   ./ns3 run "ai-fabric-fattree --server=none --servers=32 --radix=16"
 *   ./ns3 run "ai-fabric-fattree --radix=10 --oversubscription=4:1 --json=run.json"
 */

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-sweep.h"
#include "ns3/collective-tuner.h"
#include "ns3/command-line.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/failure-report.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/names.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/server-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

using namespace ns3;

namespace
{
const std::string PROGRAM = "ai-fabric-fattree";

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

} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    const auto wallStart = std::chrono::steady_clock::now();

    std::string fabricName = "roce";
    std::string servers; // 2 with a server preset, 16 without
    std::string gpusPerServer = "1";
    std::string nicRate = "400Gbps";
    std::string tiers = "2";
    std::string radix = "8";
    std::string oversubscription = "1:1";
    std::string rail; // true with a server preset, false without
    std::string collective = "allreduce";
    std::string algo = "auto";
    std::string serverPreset = "dgx-h100";
    std::string minBytes = "1M";
    std::string maxBytes = "32M";
    std::string stepFactor = "2";
    std::string iters = "5";
    std::string warmup = "1";
    std::string channels; // the GPUs of a server (up to 16) with a server preset, 1 without
    std::string failures;
    std::string json;
    std::string pcap;
    bool quiet = false;
    bool pfc = true;
    bool ecn = true;
    bool dcqcn = true;
    std::string cc;
    std::string preset = "connectx";
    std::string routing = "minhop";
    bool ibcc = false;
    std::string lmc = "0";

    FabricCli::CheckKnownOptions(PROGRAM,
                                 argc,
                                 argv,
                                 {"fabric",
                                  "servers",
                                  "gpusPerServer",
                                  "nicRate",
                                  "tiers",
                                  "radix",
                                  "oversubscription",
                                  "rail",
                                  "collective",
                                  "algo",
                                  "server",
                                  "minBytes",
                                  "maxBytes",
                                  "stepFactor",
                                  "iters",
                                  "warmup",
                                  "channels",
                                  "failures",
                                  "maxEvents",
                                  "maxWallTime",
                                  "json",
                                  "pcap",
                                  "quiet",
                                  "pfc",
                                  "ecn",
                                  "dcqcn",
                                  "cc",
                                  "preset",
                                  "routing",
                                  "ibcc",
                                  "lmc"},
                                 {"quiet", "pfc", "ecn", "dcqcn", "ibcc"});
    CommandLine cmd(__FILE__);
    cmd.Usage("An nccl-tests style sweep of a collective on a fat-tree of GPU servers.");
    cmd.AddValue("fabric", "roce (RoCEv2) or ib (InfiniBand)", fabricName);
    cmd.AddValue("servers", "servers (default 2; 16 with --server=none)", servers);
    cmd.AddValue("gpusPerServer",
                 "GPUs per server, each with its own NIC (default: the preset's; 1 with "
                 "--server=none)",
                 gpusPerServer);
    cmd.AddValue("nicRate", "NIC and link rate, e.g. 400Gbps or 400G", nicRate);
    cmd.AddValue("tiers", "switch tiers: 2 (leaf-spine) or 3 (k-ary fat-tree)", tiers);
    cmd.AddValue("radix", "ports per switch", radix);
    cmd.AddValue("oversubscription", "leaf down:up ratio, e.g. 1:1, 4:1 or 3", oversubscription);
    cmd.AddValue("rail",
                 "rail-optimized: local GPU i of every server on leaf i (default true; false "
                 "with --server=none)",
                 rail);
    cmd.AddValue(
        "collective", "allreduce, allgather, reducescatter, broadcast or alltoall", collective);
    cmd.AddValue("algo",
                 "ring, tree, hd, chain, pairwise, direct, nvls (one NVLS server), nvlstree (NVLS "
                 "servers), hier, torus (per dimension of the squarest 2D grid of ranks) or auto",
                 algo);
    cmd.AddValue("server",
                 "server preset: dgx-a100, dgx-h100, hgx-b200, gb200-nvl72 (NVLink domain, "
                 "GPUs per server and NIC rate unless given) or none",
                 serverPreset);
    cmd.AddValue("minBytes", "smallest size, K/M/G suffixes (nccl-tests -b)", minBytes);
    cmd.AddValue("maxBytes", "largest size (nccl-tests -e)", maxBytes);
    cmd.AddValue("stepFactor", "size multiplier between rows (nccl-tests -f)", stepFactor);
    cmd.AddValue("iters", "timed iterations per size (nccl-tests -n)", iters);
    cmd.AddValue("warmup", "untimed iterations per size first (nccl-tests -w)", warmup);
    cmd.AddValue("channels",
                 "channels (NCCL's nChannels), each with its own QPs (default: the GPUs of a "
                 "server, up to 16; 1 with --server=none)",
                 channels);
    cmd.AddValue("failures",
                 "failures to inject: link:A-B@T, switch:S@T, nic:G@T, flap:A-B@T,period=P,"
                 "count=N, ber:A-B@T,rate=R, up@T, separated by ';' (or a .json file); the "
                 "sweep runs without them first, for the slowdown",
                 failures);
    cmd.AddValue("json", "write the results as JSON to this file", json);
    cmd.AddValue("pcap", "write a pcap per GPU NIC with this prefix", pcap);
    cmd.AddValue("quiet", "no progress line on stderr", quiet);
    cmd.AddValue("pfc", "PFC on the RDMA priority (roce only)", pfc);
    cmd.AddValue("ecn", "ECN marking at switch egress (roce only)", ecn);
    cmd.AddValue("dcqcn", "DCQCN congestion control at the NICs (roce only)", dcqcn);
    cmd.AddValue("cc", FabricCli::CongestionControlHelp(), cc);
    cmd.AddValue("preset", "DCQCN parameters: connectx (firmware defaults) or paper", preset);
    cmd.AddValue("routing",
                 "InfiniBand subnet manager routing engine: minhop, ftree or updn (ib only)",
                 routing);
    cmd.AddValue("ibcc",
                 "InfiniBand congestion control: FECN at switches, BECN and CCT at the "
                 "adapters (ib only; off by default, as in most deployments)",
                 ibcc);
    cmd.AddValue("lmc",
                 "InfiniBand LID mask control 0-7: 2^lmc LIDs per host, each routed on its own "
                 "path, QPs spread over them (ib only)",
                 lmc);
    FabricWatchdog::AddCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Check everything before building anything.
    FabricCli::CheckFabric(PROGRAM, fabricName);
    // The fabrics' own options, checked on a helper that builds nothing.
    const std::vector<std::pair<std::string, std::string>> fabricOptions
        = {{"pfc", pfc ? "true" : "false"},
           {"ecn", ecn ? "true" : "false"},
           {"routing", routing},
           {"lmc", lmc}};
    const std::unique_ptr<FabricHelper> probe = FabricHelper::CreateByName(fabricName);
    FabricCli::ApplyFabricOptions(PROGRAM, *probe, fabricOptions);
    const std::string ccName = FabricCli::CongestionControl(PROGRAM,
                                                            cc,
                                                            fabricName,
                                                            dcqcn,
                                                            FabricCli::IsGiven(argc, argv, "dcqcn"),
                                                            ibcc,
                                                            FabricCli::IsGiven(argc, argv, "ibcc"));
    dcqcn = ccName == "dcqcn";
    ibcc = ccName == "ibcc";
    uint64_t lmcValue = 0;
    FabricCli::ParseUnsigned(lmc, lmcValue); // checked by its fabric, 0 by default elsewhere
    if (RdmaCcDcqcn::GetPreset(preset).empty())
    {
        FabricCli::Fail(PROGRAM, "--preset=" + preset + ": expected connectx or paper");
    }
    // A server preset brings its NVLink domain, and its GPU count and NIC rate unless those
    // flags are given.
    auto given
        = [argc, argv](const std::string& name) { return FabricCli::IsGiven(argc, argv, name); };
    const bool scaleUp = !serverPreset.empty() && serverPreset != "none";
    if (servers.empty())
    {
        servers = scaleUp ? "2" : "16";
    }
    ServerHelper server;
    if (scaleUp)
    {
        if (!server.SetPreset(serverPreset))
        {
            std::string names;
            for (const std::string& n : ServerHelper::PresetNames())
            {
                names += n + ", ";
            }
            FabricCli::Fail(PROGRAM,
                            "--server=" + serverPreset + ": expected " + names + "or none");
        }
        if (!given("gpusPerServer"))
        {
            gpusPerServer = std::to_string(server.GetServer().gpus);
        }
        if (rail.empty())
        {
            // Rail-optimized DGX-class servers (up to 8 GPUs and NICs each); a 72-GPU NVLink
            // domain's 72 rails would need 72 leaves per group.
            rail = server.GetServer().gpus <= 8 ? "true" : "false";
        }
        if (!given("nicRate"))
        {
            nicRate = std::to_string(server.GetServer().nicRate.GetBitRate()) + "bps";
        }
    }
    std::vector<FaultEvent> faultEvents;
    if (!failures.empty())
    {
        std::string error;
        if (!FaultSchedule::Read(failures, faultEvents, error))
        {
            FabricCli::Fail(PROGRAM, "--failures=" + failures + ": " + error);
        }
    }
    if (rail.empty())
    {
        rail = "false";
    }
    FatTreeHelper tree;
    const uint32_t nServers = FabricCli::Whole(PROGRAM, "servers", servers, 1, 1 << 20);
    const uint32_t nGpus = FabricCli::Whole(PROGRAM, "gpusPerServer", gpusPerServer, 1, 1024);
    DataRate rate;
    rate = FabricCli::LinkRate(PROGRAM, "nicRate", nicRate);
    uint32_t down = 1;
    uint32_t up = 1;
    if (!ParseRatio(oversubscription, down, up))
    {
        FabricCli::Fail(PROGRAM,
                        "--oversubscription=" + oversubscription
                            + ": expected a ratio down:up such as 1:1 or 4:1");
    }
    bool railOptimized = false;
    if (!FabricCli::ParseBool(rail, railOptimized))
    {
        FabricCli::Fail(PROGRAM, "--rail=" + rail + ": expected true or false");
    }
    if (!pcap.empty() && !FabricCli::IsWritablePrefix(pcap))
    {
        FabricCli::Fail(PROGRAM, "--pcap=" + pcap + ": cannot write files with this prefix");
    }
    tree.SetServers(nServers);
    tree.SetGpusPerServer(nGpus);
    tree.SetTiers(FabricCli::Whole(PROGRAM, "tiers", tiers, 1, 1000));
    tree.SetRadix(FabricCli::Whole(PROGRAM, "radix", radix, 1, 65536));
    tree.SetOversubscription(down, up);
    tree.SetRailOptimized(railOptimized);
    tree.SetLinkRate(rate);
    const std::string topologyError = tree.Check();
    if (!topologyError.empty())
    {
        FabricCli::Fail(PROGRAM, topologyError);
    }
    if (scaleUp)
    {
        server.SetGpusPerServer(nGpus);
        const std::string serverError = server.Check(tree.GetNGpus());
        if (!serverError.empty())
        {
            FabricCli::Fail(PROGRAM, "--server=" + serverPreset + ": " + serverError);
        }
    }
    CollectiveType type;
    if (!ParseCollectiveType(collective, type))
    {
        FabricCli::Fail(PROGRAM,
                        "--collective=" + collective +
                            ": choose allreduce, allgather, reducescatter, broadcast or "
                            "alltoall");
    }
    const uint32_t ranks = tree.GetNGpus();
    if (ranks < 2)
    {
        FabricCli::Fail(PROGRAM, "a collective needs at least 2 GPUs; this fat-tree has 1");
    }
    if (algo == "nvlstree" && (!scaleUp || !server.GetServer().nvls))
    {
        FabricCli::Fail(PROGRAM,
                        "--algo=nvlstree needs servers whose NVSwitches reduce in the switch: "
                        "--server=dgx-h100, hgx-b200 or gb200-nvl72");
    }
    if (algo == "nvls" && (!scaleUp || !server.GetServer().nvls || nServers != 1))
    {
        FabricCli::Fail(PROGRAM,
                        "--algo=nvls needs one server whose NVSwitches reduce in the switch: "
                        "--servers=1 and --server=dgx-h100, hgx-b200 or gb200-nvl72");
    }
    if (algo != "auto")
    {
        std::string error;
        if (!CollectiveAlgorithm::CreateByName(algo, type, ranks, error))
        {
            FabricCli::Fail(PROGRAM, error);
        }
    }
    CollectiveSweepConfig sweep = CollectiveSweep::FromFlags(
        PROGRAM, type, algo, minBytes, maxBytes, stepFactor, iters, warmup, quiet);
    sweep.gpusPerServer = nGpus;
    sweep.serverAwareRing = scaleUp; // NCCL's rail-aligned rings over NVLink servers
    if (channels.empty())
    {
        channels = std::to_string(scaleUp ? std::min<uint32_t>(nGpus, 16) : 1);
    }
    const uint32_t nChannels = FabricCli::Whole(PROGRAM, "channels", channels, 1, 64);
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(PROGRAM, "json", json);
    }

    // Bad input found once the topology exists: nothing half-written is left behind.
    auto FailClean = [&](const std::string& message)
    {
        jsonFile.Discard();
        FabricCli::Fail(PROGRAM, message);
    };

    // One run of the sweep, with or without the failures; the program runs it without them
    // first when failures are given, for the slowdown.
    auto simulate = [&](bool inject, bool print) -> FailureRunOutput
    {
        FatTreeHelper t = tree;
        ServerHelper srv = server;
        // Build. Each fabric takes its own options (InfiniBand is lossless by its credits: PFC
        // and ECN are RoCEv2's).
        std::unique_ptr<FabricHelper> helper = FabricHelper::CreateByName(fabricName);
        FabricCli::ApplyFabricOptions(PROGRAM, *helper, fabricOptions);
        FabricHelper& fabric = *helper;
        fabric.SetDeviceAttribute("DataRate", DataRateValue(rate));
        fabric.SetCongestionControl(ccName); // checked by FabricCli::CongestionControl
        if (dcqcn)
        {
            for (const auto& [name, value] : RdmaCcDcqcn::GetPreset(preset))
            {
                fabric.SetCongestionControlAttribute(name, StringValue(value));
            }
        }
        t.Install(fabric);
        if (scaleUp)
        {
            srv.Install(t.GetGpus()); // NVLink inside each server
            // GPUDirect RDMA over the GPU-NIC PCIe link: it limits the NIC when slower.
            const DataRate pcie = srv.GetPcieRate();
            if (pcie < rate)
            {
                for (uint32_t g = 0; g < t.GetNGpus(); ++g)
                {
                    Ptr<Node> gpu = t.GetGpuByRank(g);
                    fabric.GetTransport(gpu)->SetAttribute("PcieRate", DataRateValue(pcie));
                    fabric.SetHostRate(gpu, pcie);
                }
            }
        }
        const int64_t streams = fabric.AssignStreams(1);
        if (print && !pcap.empty()) // captures of the run that counts, not of the baseline
        {
            fabric.EnablePcap(pcap, t.GetGpus(), true);
        }
        CollectiveHelper collectives;
        collectives.SetChannels(nChannels);
        collectives.Install(t.GetGpus(), fabric);
        // The tuner's alpha: protocol step latency + both NICs + the switches of the longest path
        // (up and down every tier) + its cables; beta from the RoCEv2 goodput at the MTU.
        Ptr<Communicator> comm = collectives.GetCommunicator(0);
        Ptr<RdmaTransport> nic = fabric.GetTransport(t.GetGpuByRank(0));
        const Time portLatency = fabric.GetSwitchLatency(t.GetLeaf(0));
        const int64_t switchHops = 2 * static_cast<int64_t>(t.GetTiers()) - 1;
        const Time alpha = comm->GetStepLatency() + nic->GetTxLatency() + nic->GetRxLatency()
                           + portLatency * switchHops
                           + fabric.GetChannels()[0]->GetDelay() * (switchHops + 1);
        const double efficiency = fabric.GetRdmaWireEfficiency(4096);
        CollectiveTuner tuner(alpha, rate, efficiency);
        if (scaleUp)
        {
            Ptr<NvLinkTransport> nv = t.GetGpuByRank(0)->GetObject<NvLinkTransport>();
            DoubleValue ringEfficiency;
            DoubleValue nvlsEfficiency;
            nv->GetAttribute("ProtocolEfficiency", ringEfficiency);
            nv->GetAttribute("NvlsEfficiency", nvlsEfficiency);
            tuner.SetScaleUp(nServers,
                             nGpus,
                             comm->GetNvLinkStepLatency(),
                             srv.GetGpuNvLinkRate(),
                             ringEfficiency.Get(),
                             nvlsEfficiency.Get(),
                             srv.GetServer().nvls);
        }
        CollectiveSweepConfig runConfig = sweep;
        runConfig.progress = sweep.progress && print; // the baseline run is silent
        CollectiveSweep runner(collectives, tuner, runConfig);
        runner.Schedule();

        auto PrintHeader = [&]()
        {
            std::cout << t.Summary() << "\n";
            if (scaleUp)
            {
                const ServerPreset& p = srv.GetServer();
                std::cout << "servers: " << p.name << ", " << p.gpus << " GPUs per NVLink domain, "
                          << srv.GetAllSwitches().GetN() / srv.GetNDomains()
                          << " NVSwitch chips each, NVLink "
                          << srv.GetGpuNvLinkRate().GetBitRate() / 8e9 << " GB/s per GPU\n";
            }
            std::cout << "# collective " << collective << ", algo " << algo << ", " << ranks
                      << " ranks, " << nChannels << " channel(s), protocol "
                      << NcclProtocolName(comm->GetProtocol()) << ", " << sweep.warmup
                      << " warm-up + " << sweep.iterations << " timed iterations per size\n";
            std::cout.flush();
        };

        NodeContainer gpuOrder;
        for (uint32_t g = 0; g < t.GetNGpus(); ++g)
        {
            gpuOrder.Add(t.GetGpuByRank(g));
        }
        FailureWatch watch;
        {
            std::string error;
            if (!FailureReport::Arm(fabric,
                                    gpuOrder,
                                    MakeCallback(&CollectiveSweep::IsDone, &runner),
                                    faultEvents,
                                    inject,
                                    1 + streams,
                                    watch,
                                    error))
            {
                FailClean("--failures=" + failures + ": " + error);
            }
        }
        if (print)
        {
            PrintHeader();
        }

        Simulator::Run();
        FailureRunOutput out;
        FailureReport::Collect(watch, out);
        out.simTime = runner.IsDone() ? runner.GetEndTime() : Simulator::Now();
        out.events = Simulator::GetEventCount();
        out.rows = runner.GetRows();
        out.protocol = NcclProtocolName(comm->GetProtocol());
        out.nvswitches = scaleUp ? srv.GetAllSwitches().GetN() : 0U;
        out.nvlinkGBps = scaleUp ? srv.GetGpuNvLinkRate().GetBitRate() / 8e9 : 0.0;
        if (print)
        {
            CollectiveSweep::PrintTable(std::cout, out.rows, type);
        }
        out.totals = FabricStatsHelper::Totals();
        out.links = FabricStatsHelper::Links(out.simTime);
        Simulator::Destroy();
        Names::Clear();
        return out;
    };

    FailureRunOutput base;
    const FailureRunOutput out
        = FailureReport::RunWithBaseline(simulate, faultEvents, FailClean, base);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    FailureReport::Finish(PROGRAM, base, out, !faultEvents.empty(), quiet, wall);
    if (!json.empty())
    {
        nlohmann::ordered_json j;
        j["scenario"] = {{"fabric", fabricName},
                         {"pfc", pfc && probe->HasOption("pfc")},
                         {"ecn", ecn && probe->HasOption("ecn")},
                         {"dcqcn", dcqcn},
                         {"ibcc", ibcc},
                         {"lmc", lmcValue},
                         {"preset", preset},
                         {"routing", probe->GetRoutingName()},
                         {"topology", "fat-tree"},
                         {"tiers", tree.GetTiers()},
                         {"servers", tree.GetNServers()},
                         {"server", scaleUp ? serverPreset : std::string("none")},
                         {"nvlink_GBps_per_gpu", out.nvlinkGBps},
                         {"nvswitches", out.nvswitches},
                         {"gpusPerServer", tree.GetGpusPerServer()},
                         {"gpus", tree.GetNGpus()},
                         {"nicRate_gbps", rate.GetBitRate() / 1e9},
                         {"radix", tree.GetRadix()},
                         {"oversubscription", std::to_string(down) + ":" + std::to_string(up)},
                         {"rail", tree.IsRailOptimized()},
                         {"leaves", tree.GetNLeaves()},
                         {"spines", tree.GetNSpines()},
                         {"aggregations", tree.GetNAggregations()},
                         {"cores", tree.GetNCores()},
                         {"switches", tree.GetNSwitches()},
                         {"links", tree.GetNLinks()},
                         {"bisection_gbps", tree.GetBisectionBandwidth().GetBitRate() / 1e9},
                         {"collective", collective},
                         {"algo", algo},
                         {"channels", nChannels},
                         {"protocol", out.protocol},
                         {"minBytes", sweep.minBytes},
                         {"maxBytes", sweep.maxBytes},
                         {"stepFactor", sweep.stepFactor},
                         {"iters", sweep.iterations},
                         {"warmup", sweep.warmup},
                         {"RngRun", RngSeedManager::GetRun()}};
        if (!dcqcn && !ibcc && ccName != "none")
        {
            j["scenario"]["cc"] = ccName; // an algorithm beyond the dcqcn and ibcc keys
        }
        FailureReport::AddRunJson(j, collective, base, out, !faultEvents.empty(), wall);
        jsonFile.Stream() << j.dump(2) << "\n";
        std::string writeError;
        if (!jsonFile.Commit(writeError))
        {
            std::cerr << PROGRAM << ": " << writeError << std::endl;
            return 1;
        }
    }
    return out.finding.empty() ? 0 : FailureReport::EXIT_STALLED;
}
