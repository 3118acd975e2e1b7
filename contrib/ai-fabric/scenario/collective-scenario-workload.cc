/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// CollectiveScenario's workload mode (ai-fabric-train): its flags, reading or generating the
// workload, making its schedules, and what a run reports.

#include "chakra-trace.h"
#include "collective-scenario.h"
#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-plan.h"
#include "ns3/collective-tuner.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/string.h"
#include "ns3/training-workload.h"
#include "ns3/workload-runner.h"
#include "workload-file.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

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
    o.Add("model",
          "instead of --workload, one training step of a model as Megatron-LM runs it: "
              + ScenarioOptions::JoinNames(TransformerModel::GetPresetNames(), "or")
              + " (dense models; TP inside a layer, 1F1B pipeline, bucketed data-parallel "
                "gradient all-reduce overlapping the backward pass)",
          "");
    o.Add("tp",
          "with --model: tensor-parallel size (inside a server when it divides "
          "its GPUs)",
          "1");
    o.Add("pp", "with --model: pipeline stages", "1");
    o.Add("microBatch", "with --model: sequences per micro-batch", "1");
    o.Add("globalBatch", "with --model: sequences per step (0: one micro-batch per pipeline)", "0");
    o.Add("seqLength", "with --model: sequence length (0: the model's)", "0");
    o.Add("dtype", "with --model: the compute's data type: bf16, fp16, fp8, tf32, fp32", "bf16");
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
    if (file.empty() + modelName.empty() + trace.empty() != 2)
    {
        o.Fail(
            "give one of --workload=FILE (a workload file), --model=NAME (a training "
            "step) and --trace=PREFIX (Chakra traces)");
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
    if (!trace.empty())
    {
        if (!ChakraTrace::Read(trace, m_topology->GetNGpus(), *gpu, *m_workload, error))
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
        if (!TrainingWorkload::Make(config, m_topology->GetNGpus(), *gpu, *m_workload, error))
        {
            o.Fail("--model=" + modelName + ": " + error);
        }
        m_training = std::make_unique<TrainingConfig>(config);
        m_trainingGpu = gpu;
    }
    if (m_workload->nRanks != m_topology->GetNGpus())
    {
        o.Fail("--workload=" + file + ": a workload of " + std::to_string(m_workload->nRanks)
               + " ranks on " + std::to_string(m_topology->GetNGpus()) + " GPUs");
    }
    m_sweep.algorithm = algo;
    m_sweep.progress = !o.GetFlag("quiet");
}

void
CollectiveScenario::PrepareWorkload(WorkloadRunner& runner,
                                    CollectiveHelper& collectives,
                                    const CollectiveTuner& tuner)
{
    const std::string algo = m_options.Get("algo");
    const std::string protocol = m_options.Get("protocol");
    const std::string file = !m_options.Get("trace").empty() ? "--trace=" + m_options.Get("trace")
                             : m_options.Get("workload").empty()
                                 ? "--model=" + m_options.Get("model")
                                 : "--workload=" + m_options.Get("workload");
    const uint32_t world = collectives.GetNRanks();
    runner.Prepare(
        collectives,
        [&](CollectiveType type,
            uint32_t group,
            const std::vector<uint32_t>& ranks,
            uint64_t bytes,
            const std::string& named)
        {
            const auto n = static_cast<uint32_t>(ranks.size());
            std::string name = named;
            if (name.empty())
            {
                name = algo != "auto" ? algo
                                      : (type == CollectiveType::ALL_TO_ALL ? "direct" : "ring");
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
            // A group's tags carry its slot: check the schedule fits now, not mid-run.
            const uint32_t slots = collectives.GetSlots();
            uint32_t idBits = 0;
            while ((1U << idBits) < slots)
            {
                ++idBits;
            }
            // A plan's tag names its transfer; a schedule's keeps 8 bits of a message's index.
            const bool plan = dynamic_cast<const CollectivePlan*>(PeekPointer(schedule)) != nullptr;
            const uint32_t free = CollectiveSchedule::TAG_BITS - idBits - (plan ? 0 : 8);
            if (schedule->GetTagCodes() > (1ULL << free))
            {
                FailClean(file + ": a " + CollectiveTypeName(type) + " of " + std::to_string(n)
                          + " ranks has too many streams for a tag beside " + std::to_string(slots)
                          + " communicators on a GPU");
            }
            return schedule;
        });
}

void
CollectiveScenario::ReportWorkload(const WorkloadRunner& workload,
                                   uint32_t gpus,
                                   bool print,
                                   FailureRunOutput& out) const
{
    out.extra["workload"] = WorkloadFile::ToJson(workload);
    if (m_training)
    {
        // The model's FLOPs per step over what the GPUs could do in that time.
        const TrainingConfig& c = *m_training;
        const uint32_t dp = gpus / (c.tp * c.pp);
        const uint64_t m = TrainingWorkload::MicroBatches(c, dp);
        const uint64_t batch = m * c.microBatch * dp;
        const double flops = TransformerModel(c.model).TrainingStepFlops(batch);
        const double peak = m_trainingGpu->GetGpu().peakFlops[static_cast<uint32_t>(c.dtype)];
        const double step = workload.GetEndTime().GetSeconds();
        const double mfu = step > 0 ? flops / (step * gpus * peak) : 0;
        out.extra["workload"]["model"] = {{"name", c.model.name},
                                          {"tp", c.tp},
                                          {"pp", c.pp},
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
            char line[240];
            std::snprintf(line,
                          sizeof(line),
                          "# model %s: tp %u, pp %u, dp %u, %llu micro-batches of %u x %llu "
                          "tokens, %.4g FLOP per step, MFU %.1f%% (%s %s peak %.1f TFLOP/s)\n",
                          c.model.name.c_str(),
                          c.tp,
                          c.pp,
                          dp,
                          static_cast<unsigned long long>(m),
                          c.microBatch,
                          static_cast<unsigned long long>(c.model.seqLength),
                          flops,
                          100 * mfu,
                          m_trainingGpu->GetGpu().name.c_str(),
                          ComputeDataTypeName(c.dtype),
                          peak / 1e12);
            std::cout << line;
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
