/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-scenario.h"

#include "chakra-trace.h"
#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "fabric-plot.h"
#include "fabric-series.h"
#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-plan.h"
#include "ns3/collective-tuner.h"
#include "ns3/communicator.h"
#include "ns3/double.h"
#include "ns3/fabric-flow-router.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/flow-network.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/names.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/training-workload.h"
#include "ns3/workload-runner.h"
#include "workload-file.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace ns3
{

std::string
ScenarioTopology::CheckAlgorithm(const std::string& /* algo */) const
{
    return "";
}

void
ScenarioTopology::CheckFlowMode(ScenarioOptions& /* options */) const
{
}

NodeContainer
ScenarioTopology::GetNicNodes() const
{
    return GetRanks();
}

void
ScenarioTopology::ConfigureSweep(CollectiveSweepConfig& /* sweep */) const
{
}

void
ScenarioTopology::ConfigureFabric(FabricHelper& /* fabric */) const
{
}

void
ScenarioTopology::ConfigureCollectives(CollectiveHelper& /* collectives */) const
{
}

std::string
ScenarioTopology::GetGpuPreset() const
{
    return "h100";
}

void
ScenarioTopology::ConfigureTuner(CollectiveTuner& /* tuner */, const Communicator& /* comm */) const
{
}

void
ScenarioTopology::Watch(CollectiveHelper& /* collectives */)
{
}

std::string
ScenarioTopology::GetSplit() const
{
    return "";
}

void
ScenarioTopology::AfterRun(FailureRunOutput& /* out */,
                           std::ostream* /* os */,
                           const CollectiveScenario& /* scenario */)
{
}

std::vector<std::pair<std::string, ScenarioTopologyRegistration::Factory>>&
ScenarioTopologyRegistration::Registry()
{
    static std::vector<std::pair<std::string, Factory>> registry;
    return registry;
}

ScenarioTopologyRegistration::ScenarioTopologyRegistration(const std::string& name, Factory factory)
{
    for (const auto& entry : Registry())
    {
        NS_ABORT_MSG_IF(entry.first == name, "topology " << name << " is registered twice");
    }
    Registry().emplace_back(name, std::move(factory));
}

std::unique_ptr<ScenarioTopology>
ScenarioTopologyRegistration::Create(const std::string& name)
{
    for (const auto& [n, factory] : Registry())
    {
        if (n == name)
        {
            return factory();
        }
    }
    return nullptr;
}

std::vector<std::string>
ScenarioTopologyRegistration::Names()
{
    std::vector<std::string> names;
    for (const auto& entry : Registry())
    {
        names.push_back(entry.first);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string
ScenarioTopologyRegistration::JoinedNames()
{
    std::string names;
    for (const std::string& n : Names())
    {
        names += (names.empty() ? "" : ", ") + n;
    }
    return names;
}

CollectiveScenario::CollectiveScenario(const std::string& program, const std::string& topology)
    : m_program(program)
    , m_topologyName(topology)
    , m_options(program)
    , m_json(std::make_unique<FabricOutputFile>())
{
}

CollectiveScenario::~CollectiveScenario() = default;

const ScenarioOptions&
CollectiveScenario::GetOptions() const
{
    return m_options;
}

const FabricHelper&
CollectiveScenario::GetFabric() const
{
    return *m_probe;
}

const std::string&
CollectiveScenario::GetCongestionControl() const
{
    return m_cc;
}

const CollectiveSweepConfig&
CollectiveScenario::GetSweep() const
{
    return m_sweep;
}

uint32_t
CollectiveScenario::GetChannels() const
{
    return m_channels;
}

void
CollectiveScenario::Configure(int argc, char* argv[], const std::string& usage)
{
    ScenarioOptions& o = m_options;
    if (m_anyTopology)
    {
        const std::string names = ScenarioTopologyRegistration::JoinedNames();
        o.Add("topology",
              "the topology: " + names
                  + " (the flags below are its own; --topology=NAME --help lists another's)",
              "fat-tree");
    }
    // The topology's flags first (it may take shared ones with its own defaults), then the
    // driver's.
    m_topology->DeclareOptions(o);
    for (const char* name : {"fabric", "cc", "dcqcn"})
    {
        if (!o.Has(name))
        {
            o.Use(name);
        }
    }
    if (!o.Has("pfc"))
    {
        o.UseFabricOption("pfc");
    }
    for (const char* name : {"collective",
                             "algo",
                             "protocol",
                             "minBytes",
                             "maxBytes",
                             "stepFactor",
                             "iters",
                             "warmup",
                             "channels",
                             "pxn",
                             "mode",
                             "failures",
                             "json",
                             "plot",
                             "quiet"})
    {
        const std::string flag = name;
        const bool sweepOnly = flag == "collective" || flag == "minBytes" || flag == "maxBytes"
                               || flag == "stepFactor" || flag == "iters" || flag == "warmup"
                               || flag == "plot";
        if (!o.Has(name) && !(m_workloads && sweepOnly))
        {
            o.Use(name);
        }
    }
    if (m_workloads)
    {
        DeclareWorkloadOptions();
    }
    o.Parse(argc, argv, usage);

    // Check everything before building anything.
    const std::string& fabric = o.Get("fabric");
    FabricCli::CheckFabric(m_program, fabric);
    // The fabrics' own options, checked on a helper that builds nothing.
    m_probe = FabricHelper::CreateByName(fabric);
    FabricCli::ApplyFabricOptions(m_program, *m_probe, o.GetFabricOptions());
    const bool ibcc = o.Has("ibcc") && o.GetFlag("ibcc");
    m_cc = FabricCli::CongestionControl(m_program,
                                        o.Get("cc"),
                                        fabric,
                                        o.GetFlag("dcqcn"),
                                        o.IsGiven("dcqcn"),
                                        ibcc,
                                        o.Has("ibcc") && o.IsGiven("ibcc"));
    if (o.Has("preset") && RdmaCcDcqcn::GetPreset(o.Get("preset")).empty())
    {
        o.Fail("--preset=" + o.Get("preset") + ": expected connectx or paper");
    }
    m_topology->Check(o, *m_probe);
    if (!o.Get("failures").empty())
    {
        std::string error;
        if (!FaultSchedule::Read(o.Get("failures"), m_faults, error))
        {
            o.Fail("--failures=" + o.Get("failures") + ": " + error);
        }
    }
    const std::string collective = m_workloads ? std::string("allreduce") : o.Get("collective");
    if (!ParseCollectiveType(collective, m_type))
    {
        o.Fail("--collective=" + collective
               + ": choose allreduce, allgather, reducescatter, broadcast or alltoall");
    }
    const std::string& algo = o.Get("algo");
    const std::string why = m_topology->CheckAlgorithm(algo);
    if (!why.empty())
    {
        o.Fail(why);
    }
    const std::string& protocol = o.Get("protocol");
    NcclProtocol named = NCCL_SIMPLE;
    if (protocol != "auto" && !ParseNcclProtocol(protocol, named))
    {
        o.Fail("--protocol=" + protocol + ": expected auto, simple, ll or ll128");
    }
    if (algo != "auto")
    {
        std::string error;
        Ptr<CollectiveAlgorithm> algorithm
            = CollectiveAlgorithm::CreateByName(algo, m_type, m_topology->GetNGpus(), error);
        if (!algorithm)
        {
            o.Fail(error);
        }
        if (protocol != "auto" && !algorithm->SupportsProtocol(named))
        {
            o.Fail("--algo=" + algo + " does not run with --protocol=" + protocol
                   + " (NVLS and NVLSTree run with simple only, as in NCCL)");
        }
    }
    if (m_workloads)
    {
        ConfigureWorkload(algo);
    }
    else
    {
        m_sweep = CollectiveSweep::FromFlags(m_program,
                                             m_type,
                                             algo,
                                             o.Get("minBytes"),
                                             o.Get("maxBytes"),
                                             o.Get("stepFactor"),
                                             o.Get("iters"),
                                             o.Get("warmup"),
                                             o.GetFlag("quiet"));
    }
    m_sweep.protocol = protocol;
    m_topology->ConfigureSweep(m_sweep);
    m_channels = o.Whole("channels", 1, 64);
    const std::string& mode = o.Get("mode");
    if (mode != "packet" && mode != "flow")
    {
        o.Fail("--mode=" + mode + ": expected packet or flow");
    }
    m_flow = mode == "flow";
    if (m_flow)
    {
        // What only the packet engine has.
        if (o.Has("pcap") && !o.Get("pcap").empty())
        {
            o.Fail("--pcap: the flow level sends no packets to capture; use --mode=packet");
        }
        if (FabricCli::GetRanks() > 1)
        {
            o.Fail("--mode=flow runs in one process; run it without mpirun");
        }
        m_topology->CheckFlowMode(o);
    }
    if (o.Has("pcap") && !o.Get("pcap").empty() && !FabricCli::IsWritablePrefix(o.Get("pcap")))
    {
        o.Fail("--pcap=" + o.Get("pcap") + ": cannot write files with this prefix");
    }
    if (m_workloads && !o.Get("timeline").empty() && FabricCli::IsMainRank())
    {
        m_timeline = std::make_unique<FabricOutputFile>();
        m_timeline->OpenOrFail(m_program, "timeline", o.Get("timeline"));
    }
    if (o.Has("plot") && !o.Get("plot").empty() && FabricCli::IsMainRank())
    {
        const std::string why = FabricPlot::Prepare(o.Get("plot"));
        if (!why.empty())
        {
            o.Fail("--plot=" + o.Get("plot") + ": " + why);
        }
    }
    // Checked and created before anything runs; renamed over the target at the end.
    if (!o.Get("json").empty() && FabricCli::IsMainRank()) // rank 0 writes the output
    {
        m_json->OpenOrFail(m_program, "json", o.Get("json"));
    }
}

CollectiveScenario&
CollectiveScenario::EnableWorkloads()
{
    m_workloads = true;
    return *this;
}

void
CollectiveScenario::FailClean(const std::string& message)
{
    if (m_timeline)
    {
        m_timeline->Discard();
    }
    m_json->Discard();
    m_options.Fail(message);
}

CollectiveTuner
CollectiveScenario::MakeTuner(const FabricHelper& fabric,
                              const ScenarioTopology& topology,
                              CollectiveHelper& collectives) const
{
    // The tuner's alpha: both NICs + the longest path (its switches
    // and cables); beta from the goodput at the MTU.
    Ptr<Communicator> comm = collectives.GetCommunicator(0);
    const NodeContainer nics = topology.GetNicNodes();
    Ptr<RdmaTransport> nic = fabric.GetTransport(nics.Get(0));
    const Time alpha = nic->GetTxLatency() + nic->GetRxLatency() + topology.GetPathLatency(fabric);
    // Each GPU's share of the network: its NIC's rate over the GPUs that share the NIC.
    std::set<uint32_t> distinct;
    for (uint32_t r = 0; r < nics.GetN(); ++r)
    {
        distinct.insert(nics.Get(r)->GetId());
    }
    const DataRate perGpu(topology.GetLinkRate().GetBitRate() * distinct.size() / nics.GetN());
    CollectiveTuner tuner(alpha, perGpu, fabric.GetRdmaWireEfficiency(4096));
    tuner.SetProtocols(*comm);
    topology.ConfigureTuner(tuner, *comm);
    return tuner;
}

FailureRunOutput
CollectiveScenario::Simulate(bool inject, bool print)
{
    const ScenarioOptions& o = m_options;
    std::unique_ptr<ScenarioTopology> topology = m_topology->Copy();
    // Build. Each fabric takes its own options.
    std::unique_ptr<FabricHelper> helper = FabricHelper::CreateByName(o.Get("fabric"));
    FabricHelper& fabric = *helper;
    fabric.ApplyOptions(o.GetFabricOptions()); // checked in Configure()
    topology->ConfigureFabric(fabric);
    fabric.SetDeviceAttribute("DataRate", DataRateValue(topology->GetLinkRate()));
    fabric.SetCongestionControl(m_cc); // checked by FabricCli::CongestionControl
    if (m_cc == "dcqcn" && o.Has("preset"))
    {
        for (const auto& [name, value] : RdmaCcDcqcn::GetPreset(o.Get("preset")))
        {
            fabric.SetCongestionControlAttribute(name, StringValue(value));
        }
    }
    topology->Install(fabric);
    const int64_t streams = fabric.AssignStreams(1);
    const NodeContainer ranks = topology->GetRanks();
    const NodeContainer nicOf = topology->GetNicNodes();
    NodeContainer nics; // the nodes with a NIC, once each (GPUs may share one)
    {
        std::set<uint32_t> seen;
        for (uint32_t r = 0; r < nicOf.GetN(); ++r)
        {
            if (seen.insert(nicOf.Get(r)->GetId()).second)
            {
                nics.Add(nicOf.Get(r));
            }
        }
    }
    if (print && o.Has("pcap") && !o.Get("pcap").empty()) // the run that counts
    {
        // Across MPI ranks each rank traces its own NICs (one file per port, written once).
        NodeContainer local;
        FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
        for (uint32_t r = 0; r < nics.GetN(); ++r)
        {
            if (!impl || impl->IsLocal(nics.Get(r)->GetId()))
            {
                local.Add(nics.Get(r));
            }
        }
        fabric.EnablePcap(o.Get("pcap"), local, true);
    }
    CollectiveHelper collectives;
    collectives.SetChannels(m_channels);
    Ptr<FabricFlowRouter> router;
    if (m_flow)
    {
        router = CreateObject<FabricFlowRouter>();
        router->Setup(&fabric, ranks, nicOf);
        collectives.SetFlowRouter(router);
    }
    topology->ConfigureCollectives(collectives);
    collectives.SetNicNodes(nicOf);
    collectives.SetPxn(o.GetFlag("pxn"));
    Ptr<WorkloadRunner> workload;
    Ptr<InferenceRunner> serving;
    if (m_inference)
    {
        serving = CreateObject<InferenceRunner>();
        serving->Setup(*m_inference, m_trainingGpu);
        serving->AddGroups(collectives); // its communicators, before the GPUs get theirs
    }
    else if (m_workloads)
    {
        workload = CreateObject<WorkloadRunner>();
        workload->SetWorkload(*m_workload);
        workload->AddGroups(collectives); // its communicators, before the GPUs get theirs
    }
    collectives.Install(ranks, fabric);
    Ptr<Communicator> comm = collectives.GetCommunicator(0);
    const CollectiveTuner tuner = MakeTuner(fabric, *topology, collectives);
    std::unique_ptr<CollectiveSweep> sweep;
    Callback<bool> isDone;
    if (workload || serving)
    {
        PrepareWorkload(PeekPointer(workload), PeekPointer(serving), collectives, tuner);
        if (workload)
        {
            workload->Start();
            isDone = MakeCallback(&WorkloadRunner::IsDone, PeekPointer(workload));
        }
        else
        {
            serving->Start();
            isDone = MakeCallback(&InferenceRunner::IsDone, PeekPointer(serving));
        }
    }
    else
    {
        CollectiveSweepConfig runConfig = m_sweep;
        // The baseline run is silent; across MPI ranks, rank 0 speaks.
        runConfig.progress = m_sweep.progress && print && FabricCli::IsMainRank();
        sweep = std::make_unique<CollectiveSweep>(collectives, tuner, runConfig);
        sweep->Schedule();
        isDone = MakeCallback(&CollectiveSweep::IsDone, sweep.get());
    }

    FailureWatch watch;
    std::string error;
    if (!FailureReport::Arm(fabric, nics, isDone, m_faults, inject, 1 + streams, watch, error))
    {
        FailClean("--failures=" + o.Get("failures") + ": " + error);
    }
    if (router)
    {
        // The flow level follows the injector's failures and reroutes, and its flows are the
        // work the stall detector watches.
        router->Follow(watch.injector);
        watch.detector->SetWorkCallback(
            MakeCallback(&FlowNetwork::GetWork, PeekPointer(router->GetNetwork())),
            router->GetRetransmissionTimeout());
    }
    topology->Watch(collectives);
    if (print && FabricCli::GetRanks() > 1 && FabricCli::IsMainRank())
    {
        // On stderr: stdout is the same on any number of ranks.
        std::cerr << "# " << topology->GetSplit() << std::endl;
    }
    if (print)
    {
        topology->PrintHeader(std::cout, *this);
        if (serving)
        {
            const InferenceConfig& c = *m_inference;
            std::cout << "# serving --model=" << c.model.name << ": " << c.prefillInstances
                      << " prefill and " << c.decodeInstances << " decode instance(s) of " << c.tp
                      << " GPU(s), " << c.requests << " requests at " << c.rate << "/s, "
                      << c.inputTokens << " prompt and " << c.outputTokens
                      << " output tokens each, decode batch up to " << c.maxBatch << ", protocol "
                      << o.Get("protocol") << ", " << m_channels << " channel(s)\n";
        }
        else if (workload)
        {
            std::cout << "# workload " << WorkloadSource() << ": " << ranks.GetN() << " ranks, "
                      << m_workload->groups.size() - 1 << " group(s), algo " << o.Get("algo")
                      << ", protocol " << o.Get("protocol") << ", " << m_channels
                      << " channel(s)\n";
        }
        else
        {
            std::cout << "# collective " << o.Get("collective") << ", algo " << o.Get("algo")
                      << ", " << ranks.GetN() << " ranks, " << m_channels
                      << " channel(s), protocol " << o.Get("protocol") << ", " << m_sweep.warmup
                      << " warm-up + " << m_sweep.iterations << " timed iterations per size\n";
        }
        std::cout.flush();
    }

    // The figures' time series: in the run that counts, in one process (a rank sees only
    // its own ports).
    FabricSeriesSampler sampler;
    const bool sample
        = print && o.Has("plot") && !o.Get("plot").empty() && FabricCli::GetRanks() == 1;
    if (sample)
    {
        sampler.Start(collectives, isDone);
    }
    Simulator::Run();
    FailureRunOutput out;
    if (sample)
    {
        out.series = sampler.ToJson();
    }
    FailureReport::Collect(watch, out);
    if (workload)
    {
        out.timeOf = "step";
        out.simTime = workload->IsDone() ? workload->GetEndTime() : Simulator::Now();
    }
    else if (serving)
    {
        out.timeOf = "serving";
        out.simTime = serving->IsDone() ? serving->GetEndTime() : Simulator::Now();
    }
    else
    {
        out.simTime = sweep->IsDone() ? sweep->GetEndTime() : Simulator::Now();
    }
    out.events = Simulator::GetEventCount();
    if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Get())
    {
        std::vector<uint64_t> counts{out.events, impl->GetMessages()};
        impl->SumAcrossRanks(counts); // every rank's
        out.events = counts[0];
        out.ranks = impl->GetNRanks();
        out.lookahead = impl->GetLookahead();
        out.windows = impl->GetWindows();
        out.messages = counts[1];
    }
    out.protocol = o.Get("protocol");
    if (workload)
    {
        ReportWorkload(*workload, ranks.GetN(), print, out);
    }
    else if (serving)
    {
        ReportServing(*serving, print, out);
    }
    else
    {
        out.rows = sweep->GetRows();
        if (print)
        {
            CollectiveSweep::PrintTable(std::cout, out.rows, m_type);
        }
    }
    if (router)
    {
        router->AccountPorts(); // the links' bytes on their ports, for the statistics
        const Ptr<FlowNetwork> network = router->GetNetwork();
        out.flows = network->GetFlowsStarted();
        out.flowSettlements = network->GetSettlements();
        out.flowEvaluations = network->GetLinkEvaluations();
        out.flowFullSolutions = network->GetFullSolutions();
        const FlowNetwork::Congestion& congestion = network->GetCongestion();
        out.congestedLinks = congestion.links;
        out.congestionFanIn = congestion.peakFanIn;
        out.congestionDemand = congestion.peakDemand;
        out.sharedInputLinks = congestion.sharedInput;
        if (congestion.links > 0)
        {
            out.congestionLink = router->GetLinkName(congestion.peakLink);
            out.congestionTime = congestion.peakTime;
        }
        if (congestion.sharedInput > 0)
        {
            out.sharedInputLink = router->GetLinkName(congestion.sharedInputLink);
            out.sharedInputTime = congestion.sharedInputTime;
        }
        if (congestion.links > 0 || congestion.sharedInput > 0)
        {
            // One line on stderr (stdout is the table): the answer may be off there, either way.
            std::ostringstream seen;
            if (congestion.links > 0)
            {
                seen << congestion.links << " switch port(s) where flows from several ports "
                     << "converge and would take up to " << std::fixed << std::setprecision(1)
                     << congestion.peakDemand << std::defaultfloat << std::setprecision(6)
                     << "x its rate (most ports: " << congestion.peakFanIn << ", at "
                     << out.congestionLink << ", " << FailureReport::Us(congestion.peakTime)
                     << " us)";
            }
            if (congestion.sharedInput > 0)
            {
                DoubleValue threshold;
                network->GetAttribute("SharedInputDemand", threshold);
                seen << (congestion.links > 0 ? "; " : "") << congestion.sharedInput
                     << " switch port(s) where flows converge at " << threshold.Get()
                     << "x its rate or more from "
                     << "ports that also carry other flows (first at " << out.sharedInputLink
                     << ", " << FailureReport::Us(congestion.sharedInputTime)
                     << " us: there they run ahead into the buffer, or PFC pauses those ports "
                        "and the other flows with them)";
            }
            std::cerr << m_program << ": warning: the flow level saw congestion it does not "
                      << "model: " << seen.str()
                      << "; the packet level queues, pauses and throttles there, and its "
                         "time may differ (--mode=packet; the manual's \"The flow level\")"
                      << std::endl;
        }
    }
    topology->AfterRun(out, print ? &std::cout : nullptr, *this);
    out.totals = FabricStatsHelper::Totals();
    out.links = FabricStatsHelper::Links(out.simTime);
    Simulator::Destroy();
    Names::Clear();
    return out;
}

nlohmann::ordered_json
CollectiveScenario::GetCommonJson(const FailureRunOutput& out) const
{
    const ScenarioOptions& o = m_options;
    nlohmann::ordered_json j;
    j["fabric"] = o.Get("fabric");
    for (const char* flag : {"pfc", "ecn"})
    {
        if (o.Has(flag))
        {
            j[flag] = o.Bool(flag) && m_probe->HasOption(flag);
        }
    }
    j["dcqcn"] = m_cc == "dcqcn";
    if (o.Has("ibcc"))
    {
        j["ibcc"] = m_cc == "ibcc";
    }
    if (o.Has("preset"))
    {
        j["preset"] = o.Get("preset");
    }
    AddSweepJson(j, out);
    return j;
}

void
CollectiveScenario::AddSweepJson(nlohmann::ordered_json& j, const FailureRunOutput& out) const
{
    const ScenarioOptions& o = m_options;
    if (m_workloads)
    {
        j["workload"] = o.Get("workload");
        j["model"] = o.Get("model");
        j["trace"] = o.Get("trace");
        j["moe"] = o.Get("moe");
        j["serve"] = o.Get("serve");
        j["algo"] = o.Get("algo");
        j["channels"] = m_channels;
        j["pxn"] = o.GetFlag("pxn");
        j["mode"] = m_options.Get("mode");
        j["protocol"] = out.protocol;
        j["RngRun"] = RngSeedManager::GetRun();
        return;
    }
    j["collective"] = o.Get("collective");
    j["algo"] = o.Get("algo");
    j["channels"] = m_channels;
    j["pxn"] = o.GetFlag("pxn");
    j["mode"] = m_options.Get("mode");
    j["protocol"] = out.protocol;
    j["minBytes"] = m_sweep.minBytes;
    j["maxBytes"] = m_sweep.maxBytes;
    j["stepFactor"] = m_sweep.stepFactor;
    j["iters"] = m_sweep.iterations;
    j["warmup"] = m_sweep.warmup;
    j["RngRun"] = RngSeedManager::GetRun();
}

nlohmann::ordered_json
CollectiveScenario::MakeJson(const FailureRunOutput& base,
                             const FailureRunOutput& out,
                             double wall) const
{
    nlohmann::ordered_json j;
    j["scenario"] = m_topology->GetScenarioJson(*this, out);
    // An algorithm that no boolean key names (dcqcn always has one, ibcc where the program
    // takes --ibcc).
    if (m_cc != "none" && m_cc != "dcqcn" && !(m_cc == "ibcc" && m_options.Has("ibcc")))
    {
        j["scenario"]["cc"] = m_cc;
    }
    for (const auto& [key, value] : out.extra.items())
    {
        j[key] = value; // the topology's own results
    }
    FailureReport::AddRunJson(j,
                              m_workloads ? std::string("workload") : m_options.Get("collective"),
                              base,
                              out,
                              !m_faults.empty(),
                              wall);
    if (!out.series.is_null())
    {
        j["series"] = out.series;
    }
    return j;
}

int
CollectiveScenario::Main(int argc, char* argv[], const std::string& usage)
{
    if (Time::GetResolution() != Time::PS)
    {
        // Before any Time: the topology's are made below. (ns-3 converts the times made
        // before only once: a program that set it already must not set it again.)
        Time::SetResolution(Time::PS);
    }
    const auto wallStart = std::chrono::steady_clock::now();
    FabricCli::StartMpi(&argc, &argv); // when started by mpirun or srun, in an MPI build
    if (m_topologyName.empty())
    {
        // Any registered topology, by --topology (read before the flags it declares).
        m_anyTopology = true;
        m_topologyName = "fat-tree";
        const std::string prefix = "--topology=";
        const std::vector<std::string> args
            = ScenarioOptions::ExpandScenario(m_program, argc, argv);
        for (std::size_t i = 1; i < args.size(); ++i)
        {
            const std::string arg = args[i].size() > 1 && args[i][0] == '-' && args[i][1] != '-'
                                        ? "-" + args[i]
                                        : args[i];
            if (arg.compare(0, prefix.size(), prefix) == 0)
            {
                m_topologyName = arg.substr(prefix.size());
            }
        }
        m_topology = ScenarioTopologyRegistration::Create(m_topologyName);
        if (!m_topology)
        {
            m_options.Fail("--topology=" + m_topologyName + ": expected one of "
                           + ScenarioTopologyRegistration::JoinedNames());
        }
    }
    else
    {
        m_topology = ScenarioTopologyRegistration::Create(m_topologyName);
    }
    NS_ABORT_MSG_IF(!m_topology, "no topology " << m_topologyName << " is registered");
    Configure(argc, argv, usage);
    FailureRunOutput base;
    const FailureRunOutput out = FailureReport::RunWithBaseline(
        [this](bool inject, bool print) { return Simulate(inject, print); },
        m_faults,
        [this](const std::string& message) { FailClean(message); },
        base);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    FailureReport::Finish(
        m_program, base, out, !m_faults.empty(), m_options.GetFlag("quiet"), wall);
    if (m_timeline)
    {
        std::string why;
        if (!m_timeline->Commit(why))
        {
            std::cerr << m_program << ": --timeline=" << m_options.Get("timeline") << ": " << why
                      << std::endl;
            return 1;
        }
    }
    const std::string& json = m_options.Get("json");
    const std::string plot = m_options.Has("plot") ? m_options.Get("plot") : std::string();
    if ((!json.empty() || !plot.empty()) && FabricCli::IsMainRank())
    {
        const nlohmann::ordered_json j = MakeJson(base, out, wall);
        if (!json.empty() && !m_json->CommitJson(m_program, j))
        {
            return 1;
        }
        if (!plot.empty())
        {
            const std::string why = FabricPlot::Write(j, plot);
            if (!why.empty())
            {
                std::cerr << m_program << ": --plot=" << plot << ": " << why << std::endl;
                return 1;
            }
        }
    }
    return out.finding.empty() ? 0 : FailureReport::EXIT_STALLED;
}

} // namespace ns3
