/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// CollectiveScenario's workload mode (ai-fabric-train): its flags, reading or generating the
// workload, making its schedules, and what a run reports (serving: collective-scenario-
// serving.cc).

#include "chakra-trace.h"
#include "collective-scenario.h"
#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-plan.h"
#include "ns3/collective-tuner.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/inference-runner.h"
#include "ns3/moe-all-to-all.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"
#include "ns3/training-workload.h"
#include "ns3/workload-runner.h"
#include "workload-file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <numeric>
#include <tuple>

namespace ns3
{

void
CollectiveScenario::DeclareWorkloadOptions()
{
    ScenarioOptions& o = m_options;
    o.Add("workload",
          "the workload: a JSON file of every rank's compute, collectives and transfers "
          "(the manual's \"Workload files\"); its collectives run with their \"algo\", "
          "or --algo, or the ring where --algo=auto",
          "");
    o.Add("timeline",
          "write every rank's operations to this file as a Chrome/Perfetto trace "
          "(chrome://tracing, ui.perfetto.dev)",
          "");
    o.Add("trace",
          "instead of --workload, MLCommons Chakra execution traces: PREFIX.0.et .. "
          "PREFIX.(n-1).et, one per GPU (the manual's \"Chakra traces\")",
          "");
    o.Add("commGroups",
          "with --trace: the process groups its collectives' pg_name attributes name, a JSON "
          "object of group name to ranks such as {\"1\": [0, 1]} (ASTRA-sim's "
          "--comm-group-configuration); without it every pg_name must be \"\" or \"0\" "
          "(every rank)",
          "");
    o.Add("model",
          "instead of --workload, one training step of a model as Megatron-LM runs it: "
              + ScenarioOptions::JoinNames(TransformerModel::GetPresetNames(), "or")
              + " (TP inside a layer, 1F1B pipeline, bucketed data-parallel gradient "
                "all-reduce overlapping the backward pass; mixtures of experts with --ep, their "
                "experts split over the TP ranks; DeepSeek's multi-head latent attention)",
          "");
    o.Add("tp",
          "with --model: tensor-parallel size (inside a server when it divides "
          "its GPUs)",
          "1");
    o.AddFlag("sequenceParallel",
              "with --model: Megatron-LM's sequence parallelism (--sequence-parallel): the "
              "norms and residuals on 1/tp of the tokens, each TP all-reduce a reduce-scatter "
              "and an all-gather; a mixture of experts at --tp above 1 needs it",
              false);
    o.Add("pp", "with --model: pipeline stages", "1");
    o.Add("mtpLayers",
          "with --model: multi-token-prediction modules on the last stage (DeepSeek-V3 trains "
          "with 1; Megatron-Core's --mtp-num-layers), each a projection, a layer like the "
          "model's last and the output layer again",
          "0");
    o.Add("zero",
          "with --model: data-parallel sharding: 0 (DDP: gradients all-reduced in buckets), 1 "
          "(Megatron's distributed optimizer: buckets reduce-scattered, parameters "
          "all-gathered) or 3 (FSDP: each layer's parameters gathered before its forward and "
          "backward, its gradients reduce-scattered every micro-batch)",
          "0");
    o.Add("gradReduce",
          "with --model: the type gradients are reduced in: fp32 (Megatron-LM's default with "
          "bf16) or bf16 (grad_reduce_in_fp32 off, as Megatron-Bridge's performance recipes)",
          "fp32");
    o.Add("recompute",
          "with --model: activation recomputation (Megatron-LM's --recompute-granularity): "
          "none, selective (each layer's core attention again before its backward) or full "
          "(each layer's whole forward again)",
          "none");
    o.Add("cp",
          "with --model: context-parallel size (each sequence split over cp ranks, attention "
          "as Megatron-Core's ring attention)",
          "1");
    o.Add("firstStageLayers",
          "with --model and --pp: layers of the first stage (0: an even share), the other "
          "stages sharing the rest evenly (Megatron-Core's --decoder-first-pipeline-num-layers)",
          "0");
    o.Add("lastStageLayers",
          "with --model and --pp: layers of the last stage (0: an even share; "
          "--decoder-last-pipeline-num-layers)",
          "0");
    o.Add("microBatch", "with --model: sequences per micro-batch", "1");
    o.Add("globalBatch", "with --model: sequences per step (0: one micro-batch per pipeline)", "0");
    o.Add("seqLength", "with --model: sequence length (0: the model's)", "0");
    o.Add("dtype", "with --model: the compute's data type: bf16, fp16, fp8, tf32, fp32", "bf16");
    o.Add("serve",
          "with --model: serve requests instead of training, disaggregated: PxD prefill and "
          "decode instances of --tp GPUs each (the manual's \"Serving\")",
          "");
    o.Add("requests", "with --serve: requests served", "32");
    o.Add("rate", "with --serve: mean arrival rate (requests/s, Poisson)", "20");
    o.Add("inputTokens", "with --serve: prompt tokens per request", "2048");
    o.Add("outputTokens", "with --serve: tokens generated per request", "128");
    o.Add("maxBatch", "with --serve: requests a decode step holds at most", "64");
    o.Add("ep",
          "with --model: expert-parallel size of a mixture of experts (inside the data-parallel "
          "ranks, as Megatron-Core lays them out)",
          "1");
    o.Add("dispatcher",
          "with --model: how a mixture of experts moves its tokens: flat (Megatron-Core's "
          "all-to-all) or deepep (DeepEP's relayed kernels)",
          "flat");
    o.Add("moe",
          "instead of --workload, one mixture-of-experts dispatch and combine over every GPU, "
          "as DeepEP's tests time them: flat (each token once to each GPU with its experts, an "
          "all-to-all-v) or deepep (each token once to each server, to the GPU of its rail, "
          "which forwards it over NVLink)",
          "");
    o.Add("tokens", "with --moe: tokens per GPU", "4096");
    o.Add("hidden", "with --moe: a token's hidden size (elements)", "7168");
    o.Add("experts", "with --moe: routed experts, spread evenly over the GPUs", "256");
    o.Add("topk", "with --moe: experts per token", "8");
    o.Add("expertGroups",
          "with --moe: groups of consecutive experts (0: one per server, as DeepEP's tests)",
          "0");
    o.Add("topkGroups",
          "with --moe: groups a token chooses its experts in (default: min(groups, 4), as "
          "DeepEP's tests)",
          "");
    o.Add("dispatchDtype",
          "with --moe: a dispatched token's type: fp8 (e4m3 values and an fp32 scale per 128, "
          "DeepEP's) or bf16",
          "fp8");
    o.Add("combineDtype", "with --moe: a combined output's type: bf16 or fp8", "bf16");
    o.Add("deepepRates",
          "DeepEP's kernels (--moe=deepep, --dispatcher=deepep): GB/s one GPU's dispatch and "
          "combine kernels land, counted as DeepEP's tests count (every token received, its own "
          "included), e.g. 153,158; 0,0: not costed (default: the GPU's measured figures, the "
          "H800's 153,158; none for the other GPUs)",
          "");
}

std::pair<double, double>
CollectiveScenario::DeepEpRates(const GpuSpec& gpu)
{
    ScenarioOptions& o = m_options;
    const std::string& text = o.Get("deepepRates");
    if (text.empty())
    {
        return {gpu.deepEpDispatchRate, gpu.deepEpCombineRate};
    }
    const std::size_t comma = text.find(',');
    double rates[2] = {0, 0};
    const std::string parts[2]
        = {text.substr(0, comma), comma == std::string::npos ? "" : text.substr(comma + 1)};
    for (uint32_t i = 0; i < 2; ++i)
    {
        char* end = nullptr;
        rates[i] = std::strtod(parts[i].c_str(), &end);
        if (parts[i].empty() || *end != '\0' || !(rates[i] >= 0) || rates[i] > 1e6)
        {
            o.Fail("--deepepRates=" + text
                   + ": expected two rates in GB/s, dispatch and combine, e.g. 153,158 "
                     "(0: not costed)");
        }
    }
    return {rates[0] * 1e9, rates[1] * 1e9};
}

std::string
CollectiveScenario::WorkloadSource() const
{
    const ScenarioOptions& o = m_options;
    for (const char* flag : {"model", "trace", "moe"})
    {
        if (!o.Get(flag).empty())
        {
            return std::string("--") + flag + "=" + o.Get(flag);
        }
    }
    return "--workload=" + o.Get("workload");
}

void
CollectiveScenario::MakeMoeWorkload(const GpuSpec& gpu)
{
    ScenarioOptions& o = m_options;
    MoeLayer layer;
    if (!ParseMoeDispatcher(o.Get("moe"), layer.dispatcher))
    {
        o.Fail("--moe=" + o.Get("moe") + ": expected flat or deepep");
    }
    const uint32_t gpus = m_topology->GetNGpus();
    CollectiveSweepConfig servers; // what the topology says of its servers
    m_topology->ConfigureSweep(servers);
    const uint32_t perServer = std::max<uint32_t>(1, servers.gpusPerServer);
    MoeRoutingConfig config;
    config.tokens = o.Whole("tokens", 1, 1 << 24);
    const uint32_t hidden = o.Whole("hidden", 1, 1 << 24);
    config.experts = o.Whole("experts", 1, 1 << 24);
    config.topk = o.Whole("topk", 1, 1 << 16);
    config.expertGroups = o.Whole("expertGroups", 0, 1 << 24);
    const uint32_t groups
        = config.expertGroups > 0 ? config.expertGroups : (gpus + perServer - 1) / perServer;
    config.topkGroups
        = o.Get("topkGroups").empty() ? std::min(groups, 4U) : o.Whole("topkGroups", 1, 1 << 24);
    // A token's bytes: fp8 values with one fp32 scale per 128 (DeepEP's per-token cast), or
    // two bytes a value.
    uint64_t bytes[2] = {0, 0};
    const char* flags[2] = {"dispatchDtype", "combineDtype"};
    for (uint32_t i = 0; i < 2; ++i)
    {
        const std::string& t = o.Get(flags[i]);
        if (t != "fp8" && t != "bf16")
        {
            o.Fail(std::string("--") + flags[i] + "=" + t + ": expected fp8 or bf16");
        }
        bytes[i] = t == "fp8" ? hidden + 4ULL * ((hidden + 127) / 128) : 2ULL * hidden;
    }
    layer.dispatchBytesPerToken = bytes[0];
    layer.combineBytesPerToken = bytes[1];
    std::tie(layer.dispatchCopyRate, layer.combineCopyRate) = DeepEpRates(gpu);
    std::vector<uint32_t> all(gpus);
    std::iota(all.begin(), all.end(), 0);
    const std::vector<uint32_t> nodeOf = MoeRouting::NodesOf(all, perServer);
    // The routing's own stream (no model part assigns streams this high); RngRun varies it.
    constexpr int64_t MOE_STREAM = 1 << 20;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(MOE_STREAM);
    std::string error;
    layer.routing = MoeRouting::Draw(config, nodeOf, rng, error);
    if (!layer.routing)
    {
        o.Fail("--moe=" + o.Get("moe") + ": " + error);
    }
    Workload& w = *m_workload;
    w.nRanks = gpus;
    w.moe.push_back(layer);
    w.ops.assign(gpus, {});
    for (uint32_t r = 0; r < gpus; ++r)
    {
        for (const bool combine : {false, true})
        {
            WorkloadOp op;
            op.kind = WorkloadOpKind::COLLECTIVE;
            op.collective = CollectiveType::ALL_TO_ALL;
            op.name = combine ? "combine" : "dispatch";
            op.moe = 1;
            op.combine = combine;
            op.bytes = config.tokens * (combine ? bytes[1] : bytes[0]);
            if (combine)
            {
                op.deps = {0};
            }
            w.ops[r].push_back(op);
        }
    }
    m_moe = true;
}

void
CollectiveScenario::ConfigureWorkload(const std::string& algo)
{
    ScenarioOptions& o = m_options;
    if (FabricCli::GetRanks() > 1)
    {
        o.Fail("workloads run in one process; run " + m_program + " without mpirun");
    }
    const std::string& file = o.Get("workload");
    const std::string& modelName = o.Get("model");
    const std::string& trace = o.Get("trace");
    if (file.empty() + modelName.empty() + trace.empty() + o.Get("moe").empty() != 3)
    {
        o.Fail(
            "give one of --workload=FILE (a workload file), --model=NAME (a training "
            "step), --trace=PREFIX (Chakra traces) and --moe=DISPATCHER (an expert-parallel "
            "dispatch and combine)");
    }
    m_workload = std::make_unique<Workload>();
    std::string error;
    if (!file.empty() && !WorkloadFile::Read(file, *m_workload, error))
    {
        o.Fail("--workload=" + file + ": " + error);
    }
    // The GPUs' compute model: what a trace's or a model's compute costs.
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    gpu->SetAttribute("Gpu", StringValue(m_topology->GetGpuPreset()));
    const std::string& commGroups = o.Get("commGroups");
    if (!commGroups.empty() && trace.empty())
    {
        o.Fail("--commGroups=" + commGroups + " names a --trace's process groups: give --trace");
    }
    if (!trace.empty())
    {
        ChakraTrace::Groups groups;
        if (!commGroups.empty()
            && !ChakraTrace::ReadCommGroups(commGroups, m_topology->GetNGpus(), groups, error))
        {
            o.Fail("--commGroups=" + commGroups + ": " + error);
        }
        if (!ChakraTrace::Read(trace, m_topology->GetNGpus(), *gpu, groups, *m_workload, error))
        {
            o.Fail("--trace=" + trace + ": " + error);
        }
    }
    if (!modelName.empty())
    {
        TrainingConfig config;
        if (!TransformerModel::GetPreset(modelName, config.model))
        {
            o.Fail("--model=" + modelName + ": expected "
                   + ScenarioOptions::JoinNames(TransformerModel::GetPresetNames(), "or"));
        }
        config.tp = o.Whole("tp", 1, 1 << 16);
        config.pp = o.Whole("pp", 1, 1 << 16);
        config.cp = o.Whole("cp", 1, 1 << 16);
        config.zero = o.Whole("zero", 0, 3);
        config.model.mtpLayers = o.Whole("mtpLayers", 0, 16);
        if (o.Get("gradReduce") != "fp32" && o.Get("gradReduce") != "bf16")
        {
            o.Fail("--gradReduce=" + o.Get("gradReduce") + ": expected fp32 or bf16");
        }
        config.gradientBytes = o.Get("gradReduce") == "fp32" ? 4 : 2;
        if (config.zero == 2)
        {
            o.Fail(
                "--zero=2: expected 0, 1 or 3 (the distributed optimizer, 1, shards the "
                "gradients too)");
        }
        if (!ParseRecompute(o.Get("recompute"), config.recompute))
        {
            o.Fail("--recompute=" + o.Get("recompute") + ": expected none, selective or full");
        }
        config.sequenceParallel = o.GetFlag("sequenceParallel");
        config.firstStageLayers = o.Whole("firstStageLayers", 0, 1 << 16);
        config.lastStageLayers = o.Whole("lastStageLayers", 0, 1 << 16);
        config.microBatch = o.Whole("microBatch", 1, 1 << 20);
        uint64_t value = 0;
        for (const auto& [flag, target] : {std::make_pair("globalBatch", &config.globalBatch),
                                           std::make_pair("seqLength", &config.seqLength)})
        {
            if (!FabricCli::ParseUnsigned(o.Get(flag), value))
            {
                o.Fail(std::string("--") + flag + "=" + o.Get(flag) + ": expected a whole number");
            }
            *target = value;
        }
        if (!ParseComputeDataType(o.Get("dtype"), config.dtype))
        {
            o.Fail("--dtype=" + o.Get("dtype") + ": expected fp64, fp32, tf32, bf16, fp16 or fp8");
        }
        if (config.seqLength > 0)
        {
            config.model.seqLength = config.seqLength;
        }
        config.ep = o.Whole("ep", 1, 1 << 16);
        if (!ParseMoeDispatcher(o.Get("dispatcher"), config.dispatcher))
        {
            o.Fail("--dispatcher=" + o.Get("dispatcher") + ": expected flat or deepep");
        }
        CollectiveSweepConfig servers; // what the topology says of its servers
        m_topology->ConfigureSweep(servers);
        config.gpusPerServer = servers.gpusPerServer;
        std::tie(config.dispatchCopyRate, config.combineCopyRate) = DeepEpRates(gpu->GetGpu());
        m_trainingGpu = gpu;
        if (!o.Get("serve").empty())
        {
            if (config.model.mtpLayers > 0)
            {
                o.Fail("--mtpLayers=" + o.Get("mtpLayers")
                       + ": multi-token prediction is generated in training steps only");
            }
            ConfigureServing(config);
        }
        else if (!TrainingWorkload::Make(config, m_topology->GetNGpus(), *gpu, *m_workload, error))
        {
            o.Fail("--model=" + modelName + ": " + error);
        }
        else
        {
            m_training = std::make_unique<TrainingConfig>(config);
        }
    }
    else if (!o.Get("serve").empty())
    {
        o.Fail("--serve=" + o.Get("serve") + " serves a --model");
    }
    if (!o.Get("moe").empty())
    {
        MakeMoeWorkload(gpu->GetGpu());
    }
    if (!m_inference && m_workload->nRanks != m_topology->GetNGpus())
    {
        o.Fail(WorkloadSource() + ": a workload of " + std::to_string(m_workload->nRanks)
               + " ranks on " + std::to_string(m_topology->GetNGpus()) + " GPUs");
    }
    m_sweep.algorithm = algo;
    m_sweep.progress = !o.GetFlag("quiet");
}

void
CollectiveScenario::PrepareWorkload(WorkloadRunner* runner,
                                    InferenceRunner* serving,
                                    CollectiveHelper& collectives,
                                    const CollectiveTuner& tuner)
{
    const std::string algo = m_options.Get("algo");
    const std::string protocol = m_options.Get("protocol");
    const std::string file = WorkloadSource();
    const uint32_t world = collectives.GetNRanks();
    // A group's tags carry its slot: check a schedule fits now, not mid-run.
    const uint32_t slots = collectives.GetSlots();
    uint32_t idBits = 0;
    while ((1U << idBits) < slots)
    {
        ++idBits;
    }
    auto checkTags = [&](const CollectiveSchedule& schedule, CollectiveType type, uint32_t n)
    {
        // A plan's tag names its transfer; a schedule's keeps 8 bits of a message's index.
        const bool plan = dynamic_cast<const CollectivePlan*>(&schedule) != nullptr;
        const uint32_t free = CollectiveSchedule::TAG_BITS - idBits - (plan ? 0 : 8);
        if (schedule.GetTagCodes() > (1ULL << free))
        {
            FailClean(file + ": a " + CollectiveTypeName(type) + " of " + std::to_string(n)
                      + " ranks has too many streams for a tag beside " + std::to_string(slots)
                      + " communicators on a GPU");
        }
    };
    auto make = [&](const WorkloadOp& op, uint32_t group, const std::vector<uint32_t>& ranks)
    {
        const CollectiveType type = op.collective;
        const uint64_t bytes = op.bytes;
        const auto n = static_cast<uint32_t>(ranks.size());
        if (op.moe > 0)
        {
            // The layer's routing moves its tokens; no NCCL algorithm or protocol.
            const MoeLayer& layer = m_workload->moe[op.moe - 1];
            Ptr<CollectivePlan> plan = MoeAllToAll::Build(
                *layer.routing,
                layer.dispatcher,
                op.combine,
                op.combine ? layer.combineBytesPerToken : layer.dispatchBytesPerToken,
                collectives.GetChunkBytes(NCCL_SIMPLE),
                collectives.GetChannels(),
                op.combine ? layer.combineCopyRate : layer.dispatchCopyRate);
            plan->SetProtocol(NCCL_SIMPLE);
            checkTags(*plan, type, n);
            return Ptr<CollectiveSchedule>(plan);
        }
        std::string name = op.algorithm;
        if (name.empty())
        {
            name = algo != "auto" ? algo : (type == CollectiveType::ALL_TO_ALL ? "direct" : "ring");
        }
        if (n != world && (name == "nvls" || name == "nvlstree"))
        {
            FailClean(file + ": " + name + " runs on every rank's communicator only, not on "
                      + "a group of " + std::to_string(n));
        }
        // What the tuner and the algorithm see: the group's servers, as far as its ranks
        // fill whole servers alike; every rank is configured as the sweep's collectives are.
        CollectiveSystem system = tuner.GetSystem();
        const uint32_t perServer = m_sweep.gpusPerServer;
        if (n == world)
        {
            system.serverAwareRing = m_sweep.serverAwareRing;
            system.gpusPerServer = system.gpusPerServer > 0 ? system.gpusPerServer : perServer;
            system.torusDims = m_sweep.torusDims;
        }
        else if (system.servers > 0 && perServer > 0)
        {
            std::map<uint32_t, uint32_t> servers; // server -> the group's ranks there
            for (uint32_t r : ranks)
            {
                ++servers[r / perServer];
            }
            const uint32_t k = servers.begin()->second;
            const bool alike = std::all_of(
                servers.begin(), servers.end(), [k](const auto& p) { return p.second == k; });
            system.servers = alike ? static_cast<uint32_t>(servers.size()) : 0;
            system.gpusPerServer = alike ? k : 0;
        }
        CollectiveTuner::Choice choice;
        std::string error;
        if (!tuner.Choose(type, n, bytes, name, protocol, choice, error, &system))
        {
            FailClean(file + ": a " + CollectiveTypeName(type) + " of " + std::to_string(n)
                      + " ranks: " + error);
        }
        Ptr<CollectiveAlgorithm> algorithm
            = CollectiveAlgorithm::CreateByName(name, type, n, error);
        if (!algorithm)
        {
            FailClean(file + ": " + error);
        }
        CollectiveSystem configured = tuner.GetSystem(choice.protocol);
        configured.servers = system.servers;
        configured.gpusPerServer = system.gpusPerServer;
        configured.serverAwareRing = system.serverAwareRing;
        configured.torusDims = system.torusDims;
        algorithm->Configure(n, configured);
        const bool ncclChannels = name != "nvls" && type != CollectiveType::ALL_TO_ALL;
        const uint32_t channels
            = ncclChannels ? collectives.GetGroupCommunicator(group, 0)->ChannelsFor(
                  bytes, collectives.GetChannels(), name == "ring", choice.protocol)
                           : collectives.GetChannels();
        Ptr<CollectiveSchedule> schedule = algorithm->Schedule(
            type, n, bytes, channels, collectives.GetChunkBytes(choice.protocol));
        schedule->SetProtocol(choice.protocol);
        checkTags(*schedule, type, n);
        return schedule;
    };
    if (runner)
    {
        runner->Prepare(collectives, make);
    }
    if (serving)
    {
        // An instance's TP all-reduces, as a workload's collective on its group.
        serving->Prepare(collectives,
                         [&make](CollectiveType type,
                                 uint32_t group,
                                 const std::vector<uint32_t>& ranks,
                                 uint64_t bytes)
                         {
                             WorkloadOp op;
                             op.kind = WorkloadOpKind::COLLECTIVE;
                             op.collective = type;
                             op.bytes = bytes;
                             // A MoE layer's all-gather runs as a ring, whatever --algo names
                             // for the all-reduces.
                             op.algorithm = type == CollectiveType::ALL_GATHER ? "ring" : "";
                             return make(op, group, ranks);
                         });
    }
}

void
CollectiveScenario::ReportWorkload(const WorkloadRunner& workload,
                                   uint32_t gpus,
                                   bool print,
                                   FailureRunOutput& out) const
{
    out.extra["workload"] = WorkloadFile::ToJson(workload);
    if (m_moe)
    {
        // Rank 0's dispatch and combine, counted as DeepEP's tests count them
        // (tests/test_internode.py): "RDMA" bytes are the token's bytes once per node it goes
        // to, its own node included; "NVL" bytes once per rank that receives it.
        const MoeLayer& layer = m_workload->moe.front();
        const MoeRouting& routing = *layer.routing;
        const MoeRoutingConfig& c = routing.GetConfig();
        nlohmann::ordered_json moe = {{"dispatcher", MoeDispatcherName(layer.dispatcher)},
                                      {"tokens", c.tokens},
                                      {"experts", c.experts},
                                      {"topk", c.topk},
                                      {"expert_groups", c.expertGroups},
                                      {"topk_groups", c.topkGroups},
                                      {"servers", routing.GetNNodes()}};
        std::string line
            = std::string("# moe ") + MoeDispatcherName(layer.dispatcher) + ", rank 0:";
        for (const bool combine : {false, true})
        {
            const WorkloadRunner::Record& rec = workload.GetRecords()[0][combine ? 1 : 0];
            const double t = rec.end.IsStrictlyNegative() ? 0 : (rec.end - rec.start).GetSeconds();
            const uint64_t b = combine ? layer.combineBytesPerToken : layer.dispatchBytesPerToken;
            const uint64_t rdma = routing.GetNodeTokenPairs(0) * b;
            const uint64_t nvl = routing.GetReceivedTokens(0) * b;
            const uint64_t wire = MoeAllToAll::NetworkTokens(routing, layer.dispatcher, 0) * b;
            const double rdmaRate = t > 0 ? rdma / t / 1e9 : 0;
            const double nvlRate = t > 0 ? nvl / t / 1e9 : 0;
            moe[combine ? "combine" : "dispatch"] = {{"time_us", t * 1e6},
                                                     {"bytes_per_token", b},
                                                     {"rdma_bytes", rdma},
                                                     {"rdma_GBps", rdmaRate},
                                                     {"nvl_bytes", nvl},
                                                     {"nvl_GBps", nvlRate},
                                                     {"network_bytes", wire}};
            char part[200];
            std::snprintf(part,
                          sizeof(part),
                          " %s %.2f us, %.2f GB/s (RDMA), %.2f GB/s (NVL), %.2f MB on the network;",
                          combine ? "combine" : "dispatch",
                          t * 1e6,
                          rdmaRate,
                          nvlRate,
                          wire / 1e6);
            line += part;
        }
        line.back() = '\n';
        out.extra["workload"]["moe"] = moe;
        if (print)
        {
            std::cout << line;
        }
    }
    if (m_training)
    {
        // The model's FLOPs per step over what the GPUs could do in that time.
        const TrainingConfig& c = *m_training;
        const uint32_t dp = gpus / (c.tp * c.pp * c.cp);
        const uint64_t m = TrainingWorkload::MicroBatches(c, dp);
        const uint64_t batch = m * c.microBatch * dp;
        const double flops = TransformerModel(c.model).TrainingStepFlops(batch);
        const double peak = m_trainingGpu->GetGpu().peakFlops[static_cast<uint32_t>(c.dtype)];
        const double step = workload.GetEndTime().GetSeconds();
        const double mfu = step > 0 ? flops / (step * gpus * peak) : 0;
        out.extra["workload"]["model"] = {{"name", c.model.name},
                                          {"tp", c.tp},
                                          {"sequence_parallel", c.sequenceParallel && c.tp > 1},
                                          {"pp", c.pp},
                                          {"cp", c.cp},
                                          {"recompute", RecomputeName(c.recompute)},
                                          {"zero", c.zero},
                                          {"mtp_layers", c.model.mtpLayers},
                                          {"grad_reduce", c.gradientBytes == 4 ? "fp32" : "bf16"},
                                          {"first_stage_layers", c.firstStageLayers},
                                          {"last_stage_layers", c.lastStageLayers},
                                          {"ep", c.ep},
                                          {"dispatcher", MoeDispatcherName(c.dispatcher)},
                                          {"dp", dp},
                                          {"micro_batches", m},
                                          {"micro_batch", c.microBatch},
                                          {"global_batch", batch},
                                          {"seq_length", c.model.seqLength},
                                          {"dtype", ComputeDataTypeName(c.dtype)},
                                          {"gpu", m_trainingGpu->GetGpu().name},
                                          {"step_flops", flops},
                                          {"mfu", mfu}};
        if (print)
        {
            // Uneven stages: each stage's layers (the middle ones share the rest evenly).
            std::string stages;
            if (c.firstStageLayers > 0 || c.lastStageLayers > 0)
            {
                const uint32_t others
                    = c.pp - (c.firstStageLayers > 0 ? 1 : 0) - (c.lastStageLayers > 0 ? 1 : 0);
                const uint32_t even
                    = others > 0
                          ? (c.model.layers - c.firstStageLayers - c.lastStageLayers) / others
                          : 0;
                const uint32_t first = c.firstStageLayers > 0 ? c.firstStageLayers : even;
                const uint32_t lastN = c.lastStageLayers > 0 ? c.lastStageLayers : even;
                stages = " (" + std::to_string(first) + " + ";
                if (c.pp > 2)
                {
                    stages += std::to_string(c.pp - 2) + " x " + std::to_string(even) + " + ";
                }
                stages += std::to_string(lastN) + " layers)";
            }
            char line[400];
            const int n = std::snprintf(
                line,
                sizeof(line),
                "# model %s: tp %u%s, pp %u%s%s, dp %u%s%s, %llu micro-batches of %u x %llu "
                "tokens, %.4g FLOP per step, MFU %.1f%% (%s %s peak %.1f TFLOP/s)\n",
                c.model.name.c_str(),
                c.tp,
                c.sequenceParallel && c.tp > 1 ? " (sequence parallel)" : "",
                c.pp,
                stages.c_str(),
                c.cp > 1 ? (", cp " + std::to_string(c.cp)).c_str() : "",
                dp,
                c.ep > 1 ? (", ep " + std::to_string(c.ep) + " (" + MoeDispatcherName(c.dispatcher)
                            + ")")
                               .c_str()
                         : "",
                (std::string(c.zero == 1   ? ", distributed optimizer"
                             : c.zero == 3 ? ", FSDP"
                                           : "")
                 + (c.recompute != Recompute::NONE
                        ? std::string(", recompute ") + RecomputeName(c.recompute)
                        : std::string())
                 + (c.model.mtpLayers > 0 ? ", mtp " + std::to_string(c.model.mtpLayers)
                                          : std::string()))
                    .c_str(),
                static_cast<unsigned long long>(m),
                c.microBatch,
                static_cast<unsigned long long>(c.model.seqLength),
                flops,
                100 * mfu,
                m_trainingGpu->GetGpu().name.c_str(),
                ComputeDataTypeName(c.dtype),
                peak / 1e12);
            std::cout << line;
            if (n >= static_cast<int>(sizeof(line)))
            {
                std::cout << "\n"; // cut short: the line still ends
            }
        }
    }
    if (print)
    {
        WorkloadFile::Print(std::cout, workload);
        if (m_timeline)
        {
            WorkloadFile::WriteTimeline(m_timeline->Stream(), workload);
        }
    }
}

} // namespace ns3
