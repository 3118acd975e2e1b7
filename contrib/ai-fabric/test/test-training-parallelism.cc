/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// A training step's parallelism beyond TP, PP and DP: mixtures of experts with tensor
// parallelism, uneven pipeline stages, latent attention with TP, context parallelism's ring
// attention, activation recomputation, sharded data parallelism and multi-token prediction.
// Each generated step's FLOPs against the model's, and its collectives' and transfers' bytes,
// peers and order.

#include "ai-fabric-test-training.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/moe-routing.h"
#include "ns3/parallel-layout.h"
#include "ns3/training-workload.h"
#include "ns3/transformer-model.h"
#include "ns3/workload-runner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace ns3;

// A mixture of experts with tensor parallelism (TP 2, EP 2, sequence parallelism, one shared
// expert), as Megatron-Core runs it with its default expert tensor parallelism (ETP = TP): the
// step's FLOPs are the model's to 1e-9; each TP rank routes its half of the tokens over its
// own EP group (the ranks of its TP index), so every routing covers 2 x T / 2 tokens; the TP
// pair gathers the pairs both received before the experts and scatters them after, so the
// gather's bytes are the pair's (token, expert) pairs in BF16; the shared expert runs on every
// token, split over the pair, between a gather and a scatter of the activations. Without
// sequence parallelism it is refused, as Megatron-Core refuses it.
TEST_F(TrainingModelTest, MixtureOfExpertsWithTensorParallelism)
{
    TrainingConfig c;
    c.model = SmallMoeModel();
    c.model.sharedExperts = 1;
    c.model.firstMoeLayer = 2; // layers 0 and 1 dense
    c.model.seqLength = 512;
    c.tp = 2;
    c.ep = 2;
    c.sequenceParallel = true;
    c.gpusPerServer = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error; // dp 4
    double flops = StepFlops(w);
    const TransformerModel model(c.model);
    EXPECT_NEAR(flops / model.TrainingStepFlops(4), 1.0, 1e-9);
    // 6 MoE layers, one routing per layer and EP group: {0, 2}, {4, 6}, {1, 3}, {5, 7}.
    ASSERT_EQ(w.moe.size(), 6u * 4);
    for (const MoeLayer& layer : w.moe)
    {
        EXPECT_EQ(layer.routing->GetAssignments(0) + layer.routing->GetAssignments(1),
                  2u * 256 * 2); // two ranks of 256 tokens, top 2
    }
    // Rank 0's TP pair is {0, 1}: its EP group {0, 2}, its peer's {1, 3}, both EP index 0.
    std::map<std::string, uint64_t> bytes;
    uint32_t dispatches = 0;
    for (const WorkloadOp& op : w.ops[0])
    {
        if (op.kind != WorkloadOpKind::COLLECTIVE)
        {
            continue;
        }
        if (op.moe > 0)
        {
            dispatches += !op.combine;
            EXPECT_EQ(w.groups[op.group], (std::vector<uint32_t>{0, 2}));
            continue;
        }
        bytes[op.name] = op.bytes;
        if (op.name.find("-etp-") != std::string::npos
            || op.name.find("-shared-") != std::string::npos)
        {
            EXPECT_EQ(w.groups[op.group], (std::vector<uint32_t>{0, 1})) << op.name;
        }
    }
    EXPECT_EQ(dispatches, 6u * 2); // forward and backward
    // Layer 2, forward: the gather carries the pairs ranks 0 and 1 received (each EP index 0
    // of its own group's routing), in BF16 of h 1024.
    auto routingOf = [&w](uint32_t rank)
    {
        for (const WorkloadOp& op : w.ops[rank])
        {
            if (op.name == "fwd0-L2-dispatch")
            {
                return w.moe[op.moe - 1].routing;
            }
        }
        return Ptr<const MoeRouting>();
    };
    ASSERT_TRUE(routingOf(0) && routingOf(1));
    EXPECT_NE(routingOf(0), routingOf(1));
    const uint64_t pairs = routingOf(0)->GetAssignments(0) + routingOf(1)->GetAssignments(0);
    EXPECT_EQ(bytes.at("fwd0-L2-etp-ag"), pairs * 1024 * 2);
    EXPECT_EQ(bytes.at("fwd0-L2-etp-rs"), pairs * 1024 * 2);
    EXPECT_EQ(bytes.at("bwd0-L2-etp-ag"), pairs * 1024 * 2);
    EXPECT_EQ(bytes.at("bwd0-L2-etp-rs"), pairs * 1024 * 2);
    // The routers' gradients (every TP rank holds them whole and computed them on its own
    // tokens), all-reduced over the TP pair once, in fp32; no other TP all-reduce.
    EXPECT_EQ(bytes.at("tp-grad-ar"), 6u * model.RouterParameters() * 4);
    for (const WorkloadOp& op : w.ops[0])
    {
        if (op.kind == WorkloadOpKind::COLLECTIVE && op.collective == CollectiveType::ALL_REDUCE
            && w.groupNames[op.group][0] == 't')
        {
            EXPECT_EQ(op.name, "tp-grad-ar");
        }
        if (op.moe > 0)
        {
            EXPECT_EQ(op.bytes, 256u * 1024 * 2); // the rank's own tokens
        }
    }
    // The shared expert: the activations gathered and scattered, and gathered again backward.
    EXPECT_EQ(bytes.at("fwd0-L2-shared-ag"), 512u * 1024 * 2);
    EXPECT_EQ(bytes.at("fwd0-L2-shared-rs"), 512u * 1024 * 2);
    EXPECT_EQ(bytes.at("bwd0-L2-shared-wgrad-ag"), 512u * 1024 * 2);

    c.sequenceParallel = false;
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
    EXPECT_EQ(error,
              "small-moe is a mixture of experts: at tp > 1 it needs sequence parallelism, as "
              "Megatron-Core does with tensor and expert parallelism");
}

// Uneven pipeline stages (Megatron-Core's --decoder-first/last-pipeline-num-layers): 10 layers
// over 4 stages with 1 on the first and 3 on the last leave 3 for each of the 2 between. Each
// stage's ranks run their layers (forward and backward per micro-batch), the step's FLOPs stay
// the model's, and a stage's DP gradients are its layers' parameters (with the embedding on the
// first and the output layer on the last). What does not split gets one line.
TEST_F(TrainingModelTest, UnevenPipelineStages)
{
    TrainingConfig c;
    c.model = SmallModel();
    c.model.layers = 10;
    c.pp = 4;
    c.firstStageLayers = 1;
    c.lastStageLayers = 3;
    c.globalBatch = 8; // dp 2: 4 micro-batches per pipeline
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error;
    double flops = StepFlops(w);
    const TransformerModel model(c.model);
    EXPECT_NEAR(flops / model.TrainingStepFlops(8), 1.0, 1e-9);
    const uint32_t layers[] = {1, 3, 3, 3};
    const uint32_t first[] = {0, 1, 4, 7};
    for (uint32_t s = 0; s < 4; ++s)
    {
        const uint32_t rank = 2 * s; // DP 0 of stage s
        std::set<std::string> names;
        uint32_t attention = 0;
        uint64_t gradientBytes = 0;
        for (const WorkloadOp& op : w.ops[rank])
        {
            if (op.kind == WorkloadOpKind::COMPUTE && op.name.find("-attn") != std::string::npos)
            {
                ++attention;
                names.insert(op.name.substr(op.name.find("-L")));
            }
            if (op.kind == WorkloadOpKind::COLLECTIVE)
            {
                gradientBytes += op.bytes;
            }
        }
        EXPECT_EQ(attention, layers[s] * 4 * 2) << s; // forward and backward, 4 micro-batches
        std::set<std::string> expected;
        for (uint32_t l = first[s]; l < first[s] + layers[s]; ++l)
        {
            expected.insert("-L" + std::to_string(l) + "-attn");
        }
        EXPECT_EQ(names, expected) << s;
        double parameters = 0;
        for (uint32_t l = first[s]; l < first[s] + layers[s]; ++l)
        {
            parameters += static_cast<double>(model.LayerParameters(l));
        }
        parameters += s == 0 ? static_cast<double>(model.EmbeddingParameters()) : 0;
        parameters += s == 3 ? static_cast<double>(model.OutputParameters()) : 0;
        EXPECT_NEAR(static_cast<double>(gradientBytes), 4 * parameters, 4.0 * 4) << s;
    }
    c.lastStageLayers = 2; // 7 left for 2 stages
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
    EXPECT_EQ(error,
              "the 10 layers of small less 3 on the first and last stages do not split evenly "
              "over the 2 other stages");
    c.pp = 1;
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
    EXPECT_EQ(error, "the first and last stages' layers need pp > 1");
    c.pp = 2;
    c.firstStageLayers = 10; // nothing for the last
    c.lastStageLayers = 0;
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
}

// DeepSeek-V3's latent attention with TP 2 and sequence parallelism (4 of its layers: 3 dense,
// 1 MoE; EP 2): each TP rank runs the down-projections on its half of the tokens and the TP
// pair gathers their latents (1536 + 512 + 64 values a token), not the 7168-wide hidden
// states, as Megatron-Core's MLA does; the step's FLOPs stay the model's; the latent
// down-projections and the router, whole on both ranks, have their gradients all-reduced over
// the pair.
TEST_F(TrainingModelTest, LatentAttentionWithTensorParallelism)
{
    TrainingConfig c;
    ASSERT_TRUE(TransformerModel::GetPreset("deepseek-v3", c.model));
    c.model.layers = 4;
    c.model.seqLength = 256;
    c.tp = 2;
    c.ep = 2;
    c.sequenceParallel = true;
    c.gpusPerServer = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error; // dp 4
    double flops = StepFlops(w);
    const TransformerModel model(c.model);
    EXPECT_NEAR(flops / model.TrainingStepFlops(4), 1.0, 1e-9);
    std::map<std::string, uint64_t> bytes;
    for (const WorkloadOp& op : w.ops[0])
    {
        if (op.kind == WorkloadOpKind::COLLECTIVE && op.moe == 0)
        {
            bytes[op.name] = op.bytes;
        }
    }
    const uint64_t latent = 256u * (1536 + 512 + 64) * 2;
    const uint64_t hidden = 256u * 7168 * 2;
    EXPECT_EQ(bytes.at("fwd0-L0-attn-ag"), latent);
    EXPECT_EQ(bytes.at("fwd0-L0-attn-rs"), hidden);
    EXPECT_EQ(bytes.at("bwd0-L0-attn-ag"), hidden);       // the output's gradient
    EXPECT_EQ(bytes.at("bwd0-L0-attn-wgrad-ag"), latent); // the latents again
    EXPECT_EQ(bytes.at("bwd0-L0-attn-rs"), latent);       // the latents' gradient
    EXPECT_EQ(bytes.at("tp-grad-ar"),
              (4 * model.LatentDownParameters() + model.RouterParameters()) * 4);
    c.sequenceParallel = false;
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
    c.model.experts = 0; // a dense latent-attention model
    c.ep = 1;
    EXPECT_FALSE(TrainingWorkload::Make(c, 8, *gpu, w, error));
    EXPECT_EQ(error,
              "deepseek-v3's latent attention at tp > 1 is generated with sequence parallelism "
              "only");
}

// Context parallelism (CP 2 and 4, with and without TP 2 and sequence parallelism): each rank
// holds 1/cp of every sequence; the step's FLOPs stay the model's; per layer a rank passes the
// keys and values of T / cp tokens around the CP ring to the next rank, cp - 1 times forward;
// backward the ring runs to the previous rank, the keys and values first, then cp - 2 times
// with their gradients, then the gradients alone (2 (cp - 1) blocks, as Transformer Engine's
// AttnFuncWithCPAndKVP2P); the dense gradients are all-reduced over the DP x CP ranks; a
// sequence that does not split into 2 x cp chunks is refused.
TEST_F(TrainingModelTest, ContextParallelRingAttention)
{
    for (const auto& [cp, tp, sp] : std::vector<std::tuple<uint32_t, uint32_t, bool>>{
             {2, 1, false}, {4, 1, false}, {2, 2, true}, {2, 2, false}})
    {
        TrainingConfig c;
        c.model = SmallModel(); // 16 heads, 8 KV heads of 64, h 1024, 8 layers
        c.model.seqLength = 1024;
        c.cp = cp;
        c.tp = tp;
        c.sequenceParallel = sp;
        Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
        Workload w;
        std::string error;
        const uint32_t gpus = 16;
        const uint32_t dp = gpus / (cp * tp);
        c.globalBatch = dp; // one micro-batch of one sequence per pipeline
        ASSERT_TRUE(TrainingWorkload::Make(c, gpus, *gpu, w, error)) << error;
        double flops = StepFlops(w);
        const TransformerModel model(c.model);
        EXPECT_NEAR(flops / model.TrainingStepFlops(dp), 1.0, 1e-9) << cp << " " << tp;
        // Rank 0 (CP index 0): its ring neighbours are CP indices 1 and cp - 1.
        ParallelLayout layout;
        ASSERT_TRUE(ParallelLayout::Make(gpus, tp, 1, cp, 1, layout, error));
        ParallelLayout::Coordinates next = layout.Locate(0);
        next.cp = 1;
        ParallelLayout::Coordinates prev = layout.Locate(0);
        prev.cp = cp - 1;
        const uint64_t block = 1024 / cp * 2 * (8 / tp) * 64 * 2; // tokens x (K, V) x bf16
        uint32_t forward = 0;
        uint32_t backward = 0;
        uint32_t home = 0;
        uint32_t recvs = 0;
        for (const WorkloadOp& op : w.ops[0])
        {
            // Forward the ring runs to the next CP rank, backward to the previous one.
            const bool fwd = op.name.rfind("fwd", 0) == 0;
            if (op.kind == WorkloadOpKind::RECV)
            {
                EXPECT_EQ(op.peer, layout.RankOf(fwd ? prev : next)) << op.name;
                ++recvs;
            }
            if (op.kind != WorkloadOpKind::SEND)
            {
                if (op.kind == WorkloadOpKind::COLLECTIVE && w.groupNames[op.group][0] == 'd')
                {
                    EXPECT_EQ(w.groups[op.group], layout.DataContextGroup(0));
                }
                continue;
            }
            EXPECT_EQ(op.peer, layout.RankOf(fwd ? next : prev)) << op.name;
            if (op.name.find("-dkv-") != std::string::npos)
            {
                ++home; // the last step: the gradients alone
                EXPECT_EQ(op.bytes, block);
            }
            else if (fwd)
            {
                ++forward;
                EXPECT_EQ(op.bytes, block);
            }
            else
            {
                // Backward the first step passes the keys and values, the others them and
                // their gradients.
                ++backward;
                const bool first = op.name.find("-kv-send1") != std::string::npos;
                EXPECT_EQ(op.bytes, first ? block : 2 * block) << op.name;
            }
        }
        EXPECT_EQ(forward, 8 * (cp - 1));
        EXPECT_EQ(backward, 8 * (cp - 1));
        EXPECT_EQ(home, 8u);
        EXPECT_EQ(recvs, forward + backward + home);
    }
    TrainingConfig c;
    c.model = SmallModel();
    c.model.seqLength = 1000;
    c.cp = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    EXPECT_FALSE(TrainingWorkload::Make(c, 16, *gpu, w, error));
    EXPECT_EQ(error,
              "context parallelism splits each sequence into 2 x cp chunks: 1000 tokens do not "
              "split into 16");
}

// Activation recomputation (TP 2 with sequence parallelism, 2 micro-batches): no model FLOPs
// are added (the step's FLOPs stay the model's); selective recomputation runs each layer's
// core attention again before its backward (one operation per layer and micro-batch, its score
// products' time); full recomputation runs each layer's forward again, its TP gathers and
// scatters included; the compute grows in that order.
TEST_F(TrainingModelTest, ActivationRecomputation)
{
    std::map<Recompute, double> computeTime;
    for (Recompute r : {Recompute::NONE, Recompute::SELECTIVE, Recompute::FULL})
    {
        TrainingConfig c;
        c.model = SmallModel(); // 8 layers
        c.tp = 2;
        c.sequenceParallel = true;
        c.globalBatch = 4; // dp 2: 2 micro-batches per pipeline
        c.recompute = r;
        Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
        Workload w;
        std::string error;
        ASSERT_TRUE(TrainingWorkload::Make(c, 4, *gpu, w, error)) << error;
        double flops = StepFlops(w);
        EXPECT_NEAR(flops / TransformerModel(c.model).TrainingStepFlops(4), 1.0, 1e-9);
        uint32_t core = 0;
        uint32_t again = 0;
        uint32_t collectives = 0;
        for (const WorkloadOp& op : w.ops[0])
        {
            if (op.kind == WorkloadOpKind::COMPUTE)
            {
                computeTime[r] += op.duration.GetSeconds();
            }
            if (op.name.find("-re-") == std::string::npos)
            {
                continue;
            }
            EXPECT_EQ(op.flops, 0.0) << op.name;
            if (op.kind == WorkloadOpKind::COLLECTIVE)
            {
                ++collectives;
                EXPECT_EQ(op.bytes, 2048u * 1024 * 2) << op.name; // T x h in bf16
                continue;
            }
            EXPECT_GT(op.duration, Time(0)) << op.name;
            op.name.find("-re-core") != std::string::npos ? ++core : ++again;
        }
        EXPECT_EQ(core, r == Recompute::SELECTIVE ? 8u * 2 : 0u);
        EXPECT_EQ(again, r == Recompute::FULL ? 8u * 2 * 2 : 0u);           // attention and MLP
        EXPECT_EQ(collectives, r == Recompute::FULL ? 8u * 2 * 2 * 2 : 0u); // gather, scatter
    }
    EXPECT_LT(computeTime[Recompute::NONE], computeTime[Recompute::SELECTIVE]);
    EXPECT_LT(computeTime[Recompute::SELECTIVE], computeTime[Recompute::FULL]);
    Recompute r;
    EXPECT_TRUE(ParseRecompute("selective", r));
    EXPECT_EQ(r, Recompute::SELECTIVE);
    EXPECT_FALSE(ParseRecompute("some", r));
}

// Sharded data parallelism on the small model (8 layers, DP 4, 2 micro-batches per pipeline):
// the distributed optimizer (zero 1) reduce-scatters the buckets DDP all-reduces (the same
// fp32 bytes), gathers every parameter once in BF16 before the layer's first forward, and runs
// the optimizer on a quarter; FSDP (zero 3) gathers each layer's parameters before each of its
// forward and backward passes and reduce-scatters its gradients every micro-batch, and the
// layer's compute waits for its gather. The FLOPs stay the model's.
TEST_F(TrainingModelTest, ShardedDataParallelism)
{
    std::map<uint32_t, Workload> w;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    TrainingConfig c;
    c.model = SmallModel();
    c.globalBatch = 8; // dp 4: 2 micro-batches per pipeline
    const TransformerModel model(c.model);
    const double all = 8.0 * static_cast<double>(model.LayerParameters(0))
                       + static_cast<double>(model.EmbeddingParameters())
                       + static_cast<double>(model.OutputParameters());
    for (uint32_t zero : {0u, 1u, 3u})
    {
        c.zero = zero;
        std::string error;
        ASSERT_TRUE(TrainingWorkload::Make(c, 4, *gpu, w[zero], error)) << error;
        double flops = StepFlops(w[zero]);
        EXPECT_NEAR(flops / model.TrainingStepFlops(8), 1.0, 1e-9);
        std::map<CollectiveType, double> bytes;
        std::map<CollectiveType, uint32_t> count;
        for (const WorkloadOp& op : w[zero].ops[0])
        {
            if (op.kind == WorkloadOpKind::COLLECTIVE)
            {
                bytes[op.collective] += static_cast<double>(op.bytes);
                ++count[op.collective];
            }
        }
        if (zero == 0)
        {
            EXPECT_NEAR(bytes[CollectiveType::ALL_REDUCE], 4 * all, 4.0 * 8);
            EXPECT_EQ(count[CollectiveType::ALL_GATHER] + count[CollectiveType::REDUCE_SCATTER],
                      0u);
        }
        else if (zero == 1)
        {
            EXPECT_EQ(count[CollectiveType::ALL_REDUCE], 0u);
            EXPECT_NEAR(bytes[CollectiveType::REDUCE_SCATTER], 4 * all, 4.0 * 8);
            EXPECT_EQ(count[CollectiveType::ALL_GATHER], 8u); // a layer each, once
            EXPECT_NEAR(bytes[CollectiveType::ALL_GATHER], 2 * all, 2.0 * 8);
        }
        else
        {
            EXPECT_EQ(count[CollectiveType::ALL_REDUCE], 0u);
            EXPECT_EQ(count[CollectiveType::ALL_GATHER], 8u * 2 * 2); // forward and backward
            EXPECT_EQ(count[CollectiveType::REDUCE_SCATTER], 8u * 2); // every micro-batch
            EXPECT_NEAR(bytes[CollectiveType::ALL_GATHER], 2 * 2 * 2 * all, 2 * 2 * 2.0 * 8);
            EXPECT_NEAR(bytes[CollectiveType::REDUCE_SCATTER], 2 * 4 * all, 2 * 4.0 * 8);
            // Each layer's forward compute waits for its own gather.
            const std::vector<WorkloadOp>& ops = w[zero].ops[0];
            for (uint32_t i = 0; i < ops.size(); ++i)
            {
                if (ops[i].name.rfind("fwd0-L", 0) != 0 || ops[i].kind != WorkloadOpKind::COMPUTE
                    || ops[i].name.find("-attn") == std::string::npos)
                {
                    continue;
                }
                const std::string layer = ops[i].name.substr(0, ops[i].name.find("-attn"));
                bool waits = false;
                for (uint32_t d : ops[i].deps)
                {
                    waits |= ops[d].name == layer + "-param-ag";
                }
                EXPECT_TRUE(waits) << ops[i].name;
            }
        }
    }
    // The optimizer on a quarter of the parameters.
    auto optimizer = [&w](uint32_t zero) { return w[zero].ops[0].back().duration.GetSeconds(); };
    EXPECT_NEAR(optimizer(1) / optimizer(0), 0.25, 0.01);
    EXPECT_NEAR(optimizer(3) / optimizer(0), 0.25, 0.01);
    c.zero = 2;
    Workload bad;
    std::string error;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, bad, error));
    EXPECT_EQ(error, "zero = 2: expected 0 (DDP), 1 (the distributed optimizer) or 3 (FSDP)");
}

// Sharding combined with the rest: FSDP and the distributed optimizer with experts (EP 2: the
// experts' gathers and scatters over the expert-data-parallel pair, the rest over the DP
// group), with CP 2 (over the DP x CP group), with PP 2 (each stage its own layers, the output
// layer's backward waiting for the gather that carries it), and with gradients reduced in
// BF16 (half the scatters' bytes). Every combination passes the workload's own check (the
// same collectives in the same order on every rank of a communicator).
TEST_F(TrainingModelTest, ShardedDataParallelismCombinations)
{
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    for (uint32_t zero : {1u, 3u})
    {
        TrainingConfig c;
        c.model = SmallModel();
        c.model.experts = 4;
        c.model.topK = 2;
        c.model.expertFfnHidden = 704;
        c.model.firstMoeLayer = 4; // layers 4-7 MoE
        c.model.seqLength = 512;
        c.ep = 2;
        c.pp = 2;
        c.cp = 2;
        c.zero = zero;
        c.gpusPerServer = 8;
        c.globalBatch = 4; // 16 GPUs: pp 2, cp 2, dp 4: one micro-batch per pipeline
        Workload w;
        std::string error;
        ASSERT_TRUE(TrainingWorkload::Make(c, 16, *gpu, w, error)) << zero << ": " << error;
        EXPECT_NEAR(StepFlops(w) / TransformerModel(c.model).TrainingStepFlops(4), 1.0, 1e-9);
        // Rank 15: stage 1 (layers 4-7, all MoE, and the output layer).
        std::map<std::string, uint32_t> byGroup;
        const std::vector<WorkloadOp>& ops = w.ops[15];
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            if (op.kind == WorkloadOpKind::COLLECTIVE && op.moe == 0)
            {
                const std::string& g = w.groupNames[op.group];
                ++byGroup[g.substr(0, g.find('['))
                          + (op.collective == CollectiveType::ALL_GATHER ? "-ag" : "-rs")];
            }
            if (zero == 3 && op.name == "bwd0-out")
            {
                bool waits = false;
                for (uint32_t d : op.deps)
                {
                    waits |= ops[d].name == "bwd0-L7-param-ag";
                }
                EXPECT_TRUE(waits);
            }
        }
        // FSDP: per layer two gathers and a scatter on each of the two groups; the
        // distributed optimizer: a gather per layer on each, and the buckets' scatters.
        EXPECT_EQ(byGroup["dp-ag"], zero == 3 ? 4u * 2 : 4u);
        EXPECT_EQ(byGroup["edp-ag"], zero == 3 ? 4u * 2 : 4u);
        if (zero == 3)
        {
            EXPECT_EQ(byGroup["dp-rs"], 4u);
            EXPECT_EQ(byGroup["edp-rs"], 4u);
        }
        else
        {
            EXPECT_GE(byGroup["dp-rs"], 1u);
            EXPECT_GE(byGroup["edp-rs"], 1u);
        }
    }
    // BF16 gradients: the scatters carry half the bytes.
    TrainingConfig c;
    c.model = SmallModel();
    c.globalBatch = 4;
    c.zero = 3;
    std::map<uint32_t, double> scattered;
    for (uint32_t bytes : {4u, 2u})
    {
        c.gradientBytes = bytes;
        Workload w;
        std::string error;
        ASSERT_TRUE(TrainingWorkload::Make(c, 4, *gpu, w, error)) << error;
        for (const WorkloadOp& op : w.ops[0])
        {
            if (op.kind == WorkloadOpKind::COLLECTIVE
                && op.collective == CollectiveType::REDUCE_SCATTER)
            {
                scattered[bytes] += static_cast<double>(op.bytes);
            }
        }
    }
    EXPECT_NEAR(scattered[2] / scattered[4], 0.5, 1e-6);
}

// DeepSeek-V3's multi-token prediction (one module; 4 of its layers, 3 dense and 1 MoE; TP 2
// with sequence parallelism, EP 2, PP 2): the module (its 2 x hidden projection, a MoE layer
// like the model's last, the output layer again) is on the last stage only, forward after the
// output layer and backward before it; the step's FLOPs are the model's with the module's
// (TrainingStepFlops counts it); its parameters are the layer's and the projection's.
TEST_F(TrainingModelTest, MultiTokenPrediction)
{
    TrainingConfig c;
    ASSERT_TRUE(TransformerModel::GetPreset("deepseek-v3", c.model));
    c.model.layers = 4;
    c.model.seqLength = 256;
    const double without = TransformerModel(c.model).TrainingStepFlops(2);
    const uint64_t parameters = TransformerModel(c.model).TotalParameters();
    c.model.mtpLayers = 1;
    const TransformerModel model(c.model);
    EXPECT_EQ(model.TotalParameters(), parameters + model.LayerParameters(4) + 2ULL * 7168 * 7168);
    EXPECT_GT(model.TrainingStepFlops(2), without);
    c.tp = 2;
    c.sequenceParallel = true;
    c.ep = 2;
    c.pp = 2;
    c.gpusPerServer = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error; // dp 2
    EXPECT_NEAR(StepFlops(w) / model.TrainingStepFlops(2), 1.0, 1e-9);
    for (uint32_t rank : {0u, 4u}) // stage 0, stage 1
    {
        std::vector<std::string> mtp;
        for (const WorkloadOp& op : w.ops[rank])
        {
            if (op.kind == WorkloadOpKind::COMPUTE && op.name.find("-mtp0-") != std::string::npos)
            {
                mtp.push_back(op.name);
            }
        }
        if (rank == 0)
        {
            EXPECT_TRUE(mtp.empty());
            continue;
        }
        // (The shared expert runs before the router forward, after it backward.)
        const std::vector<std::string> expected = {"fwd0-mtp0-proj",
                                                   "fwd0-mtp0-attn",
                                                   "fwd0-mtp0-shared",
                                                   "fwd0-mtp0-router",
                                                   "fwd0-mtp0-experts",
                                                   "fwd0-mtp0-out",
                                                   "bwd0-mtp0-out",
                                                   "bwd0-mtp0-experts",
                                                   "bwd0-mtp0-router",
                                                   "bwd0-mtp0-shared",
                                                   "bwd0-mtp0-attn",
                                                   "bwd0-mtp0-proj"};
        EXPECT_EQ(mtp, expected);
    }
    // Rank 4's gradients (stage 1: layers 2 and 3, the output layer and the module; TP 2, its
    // 128 of 256 experts over EP 2 inside DP 2, so no expert-data-parallel reduction): the
    // DP all-reduces carry its dense share of each, once; the TP all-reduce the weights it
    // holds whole (MLA's down-projections, the MoE layers' routers).
    const double h = 7168;
    auto dense = [&](uint32_t layer)
    {
        const double down = static_cast<double>(model.LatentDownParameters());
        const double router = model.IsMoeLayer(layer) ? h * 256 : 0;
        const double experts
            = model.IsMoeLayer(layer) ? 256 * static_cast<double>(model.ExpertParameters()) : 0;
        const double all = static_cast<double>(model.LayerParameters(layer)) - experts / 2;
        return (all - down - router) / 2 + down + router - experts / 2 / 2;
    };
    const double expected = dense(2) + dense(3) + dense(4)
                            + static_cast<double>(model.OutputParameters()) / 2 + 2 * h * h / 2;
    double reduced = 0;
    double tpReduced = 0;
    for (const WorkloadOp& op : w.ops[4])
    {
        if (op.kind == WorkloadOpKind::COLLECTIVE && op.collective == CollectiveType::ALL_REDUCE)
        {
            (w.groupNames[op.group][0] == 'd' ? reduced : tpReduced)
                += static_cast<double>(op.bytes);
        }
    }
    EXPECT_NEAR(reduced, 4 * expected, 4.0 * 8);
    EXPECT_NEAR(
        tpReduced, 4 * (3 * static_cast<double>(model.LatentDownParameters()) + 2 * h * 256), 4.0);
}

// The EP and DP groups of the same ranks (ep = dp, as DeepSeek-V3's EP 64 over DP 64) are two
// communicators, as Megatron-Core's process groups are: the experts' all-to-alls and the
// gradients' all-reduce each run on their own, and overlap, instead of queueing on one. A
// rank's dispatches and combines are on its "ep" communicator, its gradient all-reduces on its
// "dp" one, both of every rank. At EP 1 the expert-data-parallel group and the DP group are
// two as well.
TEST_F(TrainingModelTest, ExpertAndDataGroupsOfTheSameRanksAreTwoCommunicators)
{
    TrainingConfig c;
    c.model = SmallMoeModel();
    c.model.seqLength = 512;
    c.ep = 8;
    c.gpusPerServer = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error; // dp 8 = ep 8
    const std::vector<uint32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
    for (uint32_t r = 0; r < 8; ++r)
    {
        std::set<std::string> moeGroups;
        std::set<std::string> allReduceGroups;
        for (const WorkloadOp& op : w.ops[r])
        {
            if (op.kind != WorkloadOpKind::COLLECTIVE)
            {
                continue;
            }
            EXPECT_EQ(w.groups[op.group], all);
            if (op.moe > 0)
            {
                moeGroups.insert(WorkloadRunner::CommunicatorName(w, op));
            }
            else if (op.collective == CollectiveType::ALL_REDUCE)
            {
                allReduceGroups.insert(WorkloadRunner::CommunicatorName(w, op));
            }
        }
        EXPECT_EQ(moeGroups, (std::set<std::string>{"ep"})) << "rank " << r;
        EXPECT_EQ(allReduceGroups, (std::set<std::string>{"dp"})) << "rank " << r;
    }
    EXPECT_EQ(w.groups.size(), 3u); // every rank, dp, ep
    // At EP 1 the expert-data-parallel group is the DP group's ranks: the experts' gradients
    // are all-reduced on an "edp" communicator of their own, the others' on "dp".
    c.ep = 1;
    Workload one;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, one, error)) << error;
    std::set<std::string> allReduceGroups;
    for (const WorkloadOp& op : one.ops[0])
    {
        if (op.kind == WorkloadOpKind::COLLECTIVE && op.collective == CollectiveType::ALL_REDUCE)
        {
            EXPECT_EQ(one.groups[op.group], all);
            allReduceGroups.insert(WorkloadRunner::CommunicatorName(one, op));
        }
    }
    EXPECT_EQ(allReduceGroups, (std::set<std::string>{"dp", "edp"}));
}
