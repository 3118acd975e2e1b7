/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "scale-benchmark-point.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-sweep.h"
#include "ns3/collective-tuner.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/failure-report.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flow-fabric.h"
#include "ns3/flow-network.h"
#include "ns3/global-value.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/nvlink-net-device.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-port.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/server-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>

namespace ns3
{
namespace scalebenchmark
{

/**
 * \param seconds a time (s)
 * \return it as text, exactly enough to read back
 */
std::string
SecondsText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", seconds);
    return text;
}

std::vector<std::string>
PointArguments(const PointSpec& spec)
{
    return {POINT_OPTION,
            "--servers=" + std::to_string(spec.servers),
            "--bytes=" + std::to_string(spec.bytes),
            "--algo=" + spec.algo,
            "--SchedulerType=" + spec.scheduler,
            "--SimulatorImplementationType=" + spec.simulator,
            "--maxWallTime=" + SecondsText(spec.maxWallTimeS),
            "--mode=" + spec.mode,
            "--tiers=" + std::to_string(spec.tiers),
            "--radix=" + std::to_string(spec.radix)};
}

namespace
{

/**
 * \param text "--name=value"
 * \param name the name
 * \param value set to the value
 * \return true if the text is that option
 */
bool
OptionValue(const std::string& text, const std::string& name, std::string& value)
{
    const std::string prefix = "--" + name + "=";
    if (text.rfind(prefix, 0) != 0)
    {
        return false;
    }
    value = text.substr(prefix.size());
    return true;
}

/**
 * \return the CPU time this process has used (s): on a shared machine, steadier than wall time
 */
double
ProcessCpuSeconds()
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/**
 * \brief The ladder's fat-tree for a point.
 * \param tree the helper
 * \param spec the point
 * \param servers its servers (the point's, or two for the flow level's sample)
 * \param gpusPerServer GPUs per server
 * \param rate the links' rate
 */
void
ConfigureTree(FatTreeHelper& tree,
              const PointSpec& spec,
              uint32_t servers,
              uint32_t gpusPerServer,
              DataRate rate)
{
    tree.SetServers(servers);
    tree.SetGpusPerServer(gpusPerServer);
    tree.SetTiers(spec.tiers);
    tree.SetRadix(spec.radix);
    tree.SetRailOptimized(true);
    tree.SetLinkRate(rate);
    tree.SetRanks(FabricCli::GetRanks());
}

/**
 * \brief RoCEv2's defaults, as ai-fabric-fattree runs them: PFC, ECN and DCQCN (ConnectX).
 * \param fabric the helper
 * \param rate the links' rate
 */
void
ConfigureFabric(RoceFabricHelper& fabric, DataRate rate)
{
    fabric.SetPortPartAttribute("Marker", "Enabled", BooleanValue(true));
    fabric.SetMmuAttribute("PfcEnabled", BooleanValue(true));
    fabric.SetDeviceAttribute("DataRate", DataRateValue(rate));
    fabric.SetTransportAttribute("CongestionControl", TypeIdValue(RdmaCcDcqcn::GetTypeId()));
    for (const auto& [name, value] : RdmaCcDcqcn::GetPreset("connectx"))
    {
        fabric.SetCongestionControlAttribute(name, StringValue(value));
    }
}

/**
 * \brief Limit each GPU's NIC to its PCIe link when that is slower than the NIC (as
 *        ai-fabric-fattree does).
 * \param fabric the built fabric
 * \param tree the built tree
 * \param pcie the servers' PCIe rate
 * \param rate the NIC rate
 */
void
LimitToPcie(RoceFabricHelper& fabric, const FatTreeHelper& tree, DataRate pcie, DataRate rate)
{
    if (pcie < rate)
    {
        for (uint32_t g = 0; g < tree.GetNGpus(); ++g)
        {
            Ptr<Node> gpu = tree.GetGpuByRank(g);
            fabric.GetTransport(gpu)->SetAttribute("PcieRate", DataRateValue(pcie));
            fabric.SetHostRate(gpu, pcie);
        }
    }
}

/// What the tuner of "auto" reads off a built fabric.
struct TunerInputs
{
    Time path;                //!< both NICs' latencies and the longest path's switches and cables
    double wireEfficiency{0}; //!< RDMA goodput share at a 4 KiB MTU
    double ringEfficiency{0}; //!< NVLink protocol efficiency
    double nvlsEfficiency{0}; //!< NVLS efficiency
};

/**
 * \param fabric a built fabric
 * \param tree its tree
 * \return the tuner's inputs
 */
TunerInputs
ReadTunerInputs(const RoceFabricHelper& fabric, const FatTreeHelper& tree)
{
    TunerInputs t;
    Ptr<RdmaTransport> nic = fabric.GetTransport(tree.GetGpuByRank(0));
    const int64_t switchHops = 2 * static_cast<int64_t>(tree.GetTiers()) - 1;
    t.path = nic->GetTxLatency() + nic->GetRxLatency()
             + fabric.GetSwitchLatency(tree.GetLeaf(0)) * switchHops
             + fabric.GetChannels()[0]->GetDelay() * (switchHops + 1);
    t.wireEfficiency = fabric.GetRdmaWireEfficiency(4096);
    Ptr<NvLinkTransport> nv = tree.GetGpuByRank(0)->GetObject<NvLinkTransport>();
    DoubleValue ringEfficiency;
    DoubleValue nvlsEfficiency;
    nv->GetAttribute("ProtocolEfficiency", ringEfficiency);
    nv->GetAttribute("NvlsEfficiency", nvlsEfficiency);
    t.ringEfficiency = ringEfficiency.Get();
    t.nvlsEfficiency = nvlsEfficiency.Get();
    return t;
}

/**
 * \param spec the point
 * \param server the servers
 * \param rate the NIC rate
 * \param inputs what the fabric gives
 * \param comm rank 0's communicator
 * \return the tuner of "auto", as ai-fabric-fattree builds it
 */
CollectiveTuner
MakeTuner(const PointSpec& spec,
          const ServerHelper& server,
          DataRate rate,
          const TunerInputs& inputs,
          Ptr<Communicator> comm)
{
    CollectiveTuner tuner(inputs.path, rate, inputs.wireEfficiency);
    tuner.SetProtocols(*comm);
    tuner.SetScaleUp(spec.servers,
                     server.GetServer().gpus,
                     Time(0),
                     server.GetGpuNvLinkRate(),
                     inputs.ringEfficiency,
                     inputs.nvlsEfficiency,
                     server.GetServer().nvls);
    return tuner;
}

/**
 * \param spec the point
 * \param gpusPerServer GPUs per server
 * \return the sweep of one all-reduce
 */
CollectiveSweepConfig
SweepOf(const PointSpec& spec, uint32_t gpusPerServer)
{
    CollectiveSweepConfig config;
    config.type = CollectiveType::ALL_REDUCE;
    config.algorithm = spec.algo;
    // Simple, as NCCL runs large collectives and as the ladder's figures were measured.
    config.protocol = "simple";
    config.minBytes = spec.bytes;
    config.maxBytes = spec.bytes;
    config.iterations = 1;
    config.warmup = 0;
    config.progress = false;
    config.gpusPerServer = gpusPerServer;
    config.serverAwareRing = true;
    return config;
}

/// A point's simulation, timed.
struct TimedRun
{
    FailureRunOutput out; //!< rows and finding
    double setupS{0};     //!< from the point's start to the run's (s)
    double runS{0};       //!< Simulator::Run() (s)
    double runCpuS{0};    //!< its CPU time (s)
};

/**
 * \param start when the point started
 * \param watch the armed watch
 * \param runner the scheduled sweep
 * \return the run, timed, with its rows and finding
 */
TimedRun
RunTimed(std::chrono::steady_clock::time_point start,
         const FailureWatch& watch,
         const CollectiveSweep& runner)
{
    TimedRun r;
    const double cpuStart = ProcessCpuSeconds();
    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    r.runCpuS = ProcessCpuSeconds() - cpuStart;
    r.setupS = std::chrono::duration<double>(runStart - start).count();
    r.runS = std::chrono::duration<double>(runEnd - runStart).count();
    FailureReport::Collect(watch, r.out);
    r.out.rows = runner.GetRows();
    return r;
}

/**
 * \param spec the point
 * \param gpus its GPUs
 * \param run its run
 * \param events events (every rank's)
 * \param runCpuS CPU time of the run (every rank's)
 * \return the child's JSON line's common head
 */
nlohmann::ordered_json
ResultJson(
    const PointSpec& spec, uint32_t gpus, const TimedRun& run, uint64_t events, double runCpuS)
{
    nlohmann::ordered_json j;
    const CollectiveSweepRow row
        = run.out.rows.empty() ? CollectiveSweepRow() : run.out.rows.front();
    j["gpus"] = gpus;
    j["servers"] = spec.servers;
    j["bytes"] = spec.bytes;
    j["algo"] = spec.algo;
    j["mode"] = spec.mode;
    j["algo_used"] = row.algorithm;
    j["time_us"] = row.timeUs;
    j["algbw_GBps"] = row.algbwGBps;
    j["busbw_GBps"] = row.busbwGBps;
    j["events"] = events;
    j["setup_s"] = run.setupS;
    j["run_s"] = run.runS;
    j["run_cpu_s"] = runCpuS;
    return j;
}

/**
 * \param j the child's JSON line: its tail added
 * \param watch the run's watch
 * \param run the run
 */
void
AddResultTail(nlohmann::ordered_json& j, const FailureWatch& watch, const TimedRun& run)
{
    j["scheduler"] = watch.watchdog->GetSchedulerType();
    // Whether this process's malloc was asked for transparent huge pages (--hugePages).
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    j["huge_pages"] = tunables != nullptr
                      && std::string(tunables).find("glibc.malloc.hugetlb=1") != std::string::npos;
    j["completed"] = run.out.finding.empty() && !run.out.rows.empty();
    j["finding"] = run.out.finding;
    j["sim_time_us"] = Simulator::Now().GetSeconds() * 1e6;
}

/**
 * \brief Run one point at the flow level and print its result as one JSON line: a sample of
 *        two servers built with every device gives the fixed costs (FlowFabric::Sample()) and
 *        the tuner's inputs, then the point's fat-tree is built without devices (FlowFabric).
 * \param spec the point
 * \param start when the point started
 * \return the exit status: 0, 2 if the tree cannot be built, FailureReport::EXIT_STALLED if
 *         it could not complete
 */
int
RunFlowPoint(const PointSpec& spec, std::chrono::steady_clock::time_point start)
{
    ServerHelper server;
    server.SetPreset(SERVER);
    const uint32_t gpusPerServer = server.GetServer().gpus;
    const DataRate rate = server.GetServer().nicRate;
    server.SetGpusPerServer(gpusPerServer);
    FlowFabric::Parameters parameters;
    TunerInputs inputs;
    {
        FatTreeHelper sample;
        ConfigureTree(sample, spec, 2, gpusPerServer, rate);
        RoceFabricHelper fabric;
        ConfigureFabric(fabric, rate);
        sample.Install(fabric);
        server.Install(sample.GetGpus());
        LimitToPcie(fabric, sample, server.GetPcieRate(), rate);
        const std::string error
            = FlowFabric::Sample(fabric, sample.GetGpus(), gpusPerServer, parameters);
        NS_ABORT_MSG_IF(!error.empty(), "the flow level's sample: " << error);
        inputs = ReadTunerInputs(fabric, sample);
        Simulator::Destroy(); // node ids start again at 0 for the point's tree
        Names::Clear();
    }
    FatTreeHelper tree;
    ConfigureTree(tree, spec, spec.servers, gpusPerServer, rate);
    const std::string topologyError = tree.Check();
    if (!topologyError.empty())
    {
        std::cerr << PROGRAM << ": " << topologyError << std::endl;
        return 2;
    }
    RoceFabricHelper fabric; // its addresses and ECMP hash; it builds nothing
    ConfigureFabric(fabric, rate);
    Ptr<FlowFabric> flow = CreateObject<FlowFabric>();
    flow->Setup(parameters, &fabric);
    tree.Install(*flow);
    flow->SetRanks(tree.GetGpus());
    CollectiveHelper collectives;
    collectives.SetChannels(std::min<uint32_t>(gpusPerServer, 16));
    collectives.SetFlowRouter(flow);
    collectives.Install(tree.GetGpus());
    const CollectiveTuner tuner
        = MakeTuner(spec, server, rate, inputs, collectives.GetCommunicator(0));
    CollectiveSweep runner(collectives, tuner, SweepOf(spec, gpusPerServer));
    runner.Schedule();
    FailureWatch watch;
    FailureReport::ArmWithoutFabric(MakeCallback(&CollectiveSweep::IsDone, &runner), watch);

    const TimedRun run = RunTimed(start, watch, runner);
    const Ptr<FlowNetwork> network = flow->GetNetwork();
    nlohmann::ordered_json j
        = ResultJson(spec, tree.GetNGpus(), run, Simulator::GetEventCount(), run.runCpuS);
    j["flows"] = network->GetFlowsStarted();
    j["flow_settlements"] = network->GetSettlements();
    j["flow_link_evaluations"] = network->GetLinkEvaluations();
    j["flow_full_solutions"] = network->GetFullSolutions();
    j["flow_links"] = network->GetNLinks();
    j["switches"] = tree.GetNSwitches();
    AddResultTail(j, watch, run);
    std::cout << j.dump() << std::endl;
    flow->Dispose();
    Simulator::Destroy();
    return run.out.finding.empty() ? 0 : FailureReport::EXIT_STALLED;
}

/**
 * \brief Run one point in this process and print its result as one JSON line.
 * \param spec the point
 * \return the exit status: 0, FailureReport::EXIT_STALLED if it could not complete
 */
int
RunPoint(const PointSpec& spec)
{
    const auto start = std::chrono::steady_clock::now();
    GlobalValue::Bind("SchedulerType", StringValue(spec.scheduler));
    if (!spec.simulator.empty() && FabricCli::GetRanks() == 1) // MPI's is bound by StartMpi()
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(spec.simulator));
    }
    Config::SetDefault("ns3::FabricWatchdog::MaxWallTime", TimeValue(Seconds(spec.maxWallTimeS)));

    if (spec.mode == "flow")
    {
        return RunFlowPoint(spec, start);
    }
    ServerHelper server;
    server.SetPreset(SERVER);
    const uint32_t gpusPerServer = server.GetServer().gpus;
    const DataRate rate = server.GetServer().nicRate;
    FatTreeHelper tree;
    ConfigureTree(tree, spec, spec.servers, gpusPerServer, rate);
    const std::string topologyError = tree.Check();
    if (!topologyError.empty())
    {
        if (FabricCli::IsMainRank())
        {
            std::cerr << PROGRAM << ": " << topologyError << std::endl;
        }
        return 2;
    }
    server.SetGpusPerServer(gpusPerServer);
    RoceFabricHelper fabric;
    ConfigureFabric(fabric, rate);
    tree.Install(fabric);
    server.Install(tree.GetGpus());
    LimitToPcie(fabric, tree, server.GetPcieRate(), rate);
    const int64_t streams = fabric.AssignStreams(1);
    const uint32_t ranks = tree.GetNGpus();
    CollectiveHelper collectives;
    collectives.SetChannels(std::min<uint32_t>(gpusPerServer, 16));
    collectives.Install(tree.GetGpus(), fabric);
    const CollectiveTuner tuner = MakeTuner(
        spec, server, rate, ReadTunerInputs(fabric, tree), collectives.GetCommunicator(0));
    CollectiveSweep runner(collectives, tuner, SweepOf(spec, gpusPerServer));
    runner.Schedule();

    // The stall detector and the watchdog, as every sweep program runs.
    FailureWatch watch;
    std::string error;
    FailureReport::Arm(fabric,
                       tree.GetGpus(),
                       MakeCallback(&CollectiveSweep::IsDone, &runner),
                       {},
                       false,
                       1 + streams,
                       watch,
                       error);
    const TimedRun run = RunTimed(start, watch, runner);

    // Data packet-hops on RoCEv2: every RDMA data packet leaves its NIC once per send (first
    // hop) and is queued once at the RDMA priority of every switch port it leaves by.
    uint64_t nicHops = 0;
    uint64_t switchPortHops = 0;
    uint64_t nvlinkHops = 0;  // every data frame an NVLink port sent, GPU's or switch's
    uint8_t rdmaPriority = 0; // the NICs' (the switch ports queue data at it)
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<RoceNicPort> nic = DynamicCast<RoceNicPort>(node->GetDevice(d)))
            {
                rdmaPriority = nic->GetRdmaPriority();
            }
        }
    }
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<NvLinkNetDevice> nvlink = DynamicCast<NvLinkNetDevice>(node->GetDevice(d)))
            {
                nvlinkHops += nvlink->GetDataFramesSent();
                continue;
            }
            if (Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(node->GetDevice(d)))
            {
                switchPortHops += port->GetQueueCounters(rdmaPriority).enqueuedPackets;
            }
            Ptr<RoceNicPort> nic = DynamicCast<RoceNicPort>(node->GetDevice(d));
            if (!nic)
            {
                continue;
            }
            Ptr<RdmaTransport> transport = nic->GetTransport();
            for (uint32_t q = 0; transport && q < transport->GetNQueuePairs(); ++q)
            {
                nicHops += transport->GetQueuePair(RdmaTransport::FIRST_QPN + q)->GetPacketsSent();
            }
        }
    }

    // Across MPI ranks: every rank's counts (each port's are nonzero on its own rank only).
    std::vector<uint64_t> counts{Simulator::GetEventCount(), nicHops, switchPortHops, nvlinkHops};
    std::vector<double> cpu{run.runCpuS};
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double rssMb = static_cast<double>(usage.ru_maxrss) / 1024.0;
    std::vector<uint8_t> rss(sizeof(rssMb));
    std::memcpy(rss.data(), &rssMb, sizeof(rssMb));
    nlohmann::ordered_json mpi;
    if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Get(); impl && impl->GetNRanks() > 1)
    {
        impl->SumAcrossRanks(counts);
        impl->SumAcrossRanks(cpu);
        const std::vector<uint8_t> all = impl->GatherAcrossRanks(rss);
        std::vector<double> perRank(impl->GetNRanks());
        std::memcpy(perRank.data(), all.data(), perRank.size() * sizeof(double));
        mpi = {{"ranks", impl->GetNRanks()},
               {"lookahead_ns", static_cast<double>(impl->GetLookahead().GetPicoSeconds()) / 1e3},
               {"windows", impl->GetWindows()},
               {"rank_peak_rss_mb", perRank}};
    }
    nicHops = counts[1];
    switchPortHops = counts[2];
    nvlinkHops = counts[3];

    nlohmann::ordered_json j = ResultJson(spec, ranks, run, counts[0], cpu[0]);
    j["data_packet_hops"] = nicHops + switchPortHops + nvlinkHops;
    j["rdma_nic_hops"] = nicHops;
    j["rdma_switch_hops"] = switchPortHops;
    j["nvlink_hops"] = nvlinkHops;
    j["retransmits"] = FabricStatsHelper::Totals().retransmits;
    AddResultTail(j, watch, run);
    if (!mpi.is_null())
    {
        j["mpi"] = mpi;
    }
    std::cout << j.dump() << std::endl; // rank 0's (the others' stdout is /dev/null)
    Simulator::Destroy();
    return run.out.finding.empty() ? 0 : FailureReport::EXIT_STALLED;
}

/**
 * \brief The child's side (declared in the header).
 */
} // namespace

int
PointMain(int argc, char* argv[])
{
    FabricCli::StartMpi(&argc, &argv); // when the parent ran it under mpirun (--ranks)
    PointSpec spec;
    for (int i = 2; i < argc; ++i)
    {
        const std::string arg = argv[i];
        std::string v;
        if (OptionValue(arg, "servers", v))
        {
            spec.servers = static_cast<uint32_t>(std::stoul(v));
        }
        else if (OptionValue(arg, "bytes", v))
        {
            spec.bytes = std::stoull(v);
        }
        else if (OptionValue(arg, "algo", v))
        {
            spec.algo = v;
        }
        else if (OptionValue(arg, "SchedulerType", v))
        {
            spec.scheduler = v;
        }
        else if (OptionValue(arg, "SimulatorImplementationType", v))
        {
            spec.simulator = v;
        }
        else if (OptionValue(arg, "maxWallTime", v))
        {
            spec.maxWallTimeS = std::stod(v);
        }
        else if (OptionValue(arg, "mode", v))
        {
            spec.mode = v;
        }
        else if (OptionValue(arg, "tiers", v))
        {
            spec.tiers = static_cast<uint32_t>(std::stoul(v));
        }
        else if (OptionValue(arg, "radix", v))
        {
            spec.radix = static_cast<uint32_t>(std::stoul(v));
        }
    }
    try
    {
        return RunPoint(spec);
    }
    catch (const std::bad_alloc&)
    {
        // The address space is limited (--maxMemory): say so rather than abort.
        std::cerr << PROGRAM << ": out of memory" << std::endl;
        std::_Exit(EXIT_OUT_OF_MEMORY);
    }
}

} // namespace scalebenchmark
} // namespace ns3
