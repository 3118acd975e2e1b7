/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// What a training step is made of: the model presets' parameter counts against their
// published sizes, a step's FLOPs against Megatron-LM's formula, Megatron's rank mapping, and
// the 1F1B pipeline's bubble against (p - 1) / (m + p - 1).

#include "ai-fabric-test-training.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/parallel-layout.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/training-workload.h"
#include "ns3/transformer-model.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace ns3;

namespace
{

/**
 * \param name a preset
 * \return its model
 */
TransformerModel
Preset(const std::string& name)
{
    TransformerSpec spec;
    EXPECT_TRUE(TransformerModel::GetPreset(name, spec)) << name;
    return TransformerModel(spec);
}

} // namespace

// Each preset's weights, counted from its shape, are its published size.
TEST_F(TrainingModelTest, ParameterCountsAreThePublishedSizes)
{
    EXPECT_EQ(
        TransformerModel::GetPresetNames(),
        (std::vector<std::string>{
            "gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"}));
    // GPT-3: 12 h^2 per layer (4 h^2 of attention, 8 h^2 of MLP) and the tied embedding.
    const double h = 12288;
    const TransformerModel gpt3 = Preset("gpt3-175b");
    EXPECT_EQ(gpt3.TotalParameters(), static_cast<uint64_t>(96 * 12 * h * h + 51200 * h));
    EXPECT_NEAR(gpt3.TotalParameters() / 1e9, 175, 0.01 * 175);
    // Llama 3: 8.03, 70.6 and 405 billion (Meta's model cards); GQA with 8 KV heads.
    EXPECT_NEAR(Preset("llama3-8b").TotalParameters() / 1e9, 8.03, 0.01 * 8.03);
    EXPECT_NEAR(Preset("llama3-70b").TotalParameters() / 1e9, 70.6, 0.01 * 70.6);
    EXPECT_NEAR(Preset("llama3-405b").TotalParameters() / 1e9, 405, 0.01 * 405);
    const TransformerModel llama8 = Preset("llama3-8b");
    EXPECT_EQ(llama8.AttentionParameters(), 2u * 4096 * 4096 + 2u * 4096 * 1024);
    EXPECT_EQ(llama8.DenseMlpParameters(), 3u * 4096 * 14336);
    // Mixtral 8x7B: 46.7 billion, 12.9 billion per token (Mistral AI).
    const TransformerModel mixtral = Preset("mixtral-8x7b");
    EXPECT_NEAR(mixtral.TotalParameters() / 1e9, 46.7, 0.01 * 46.7);
    EXPECT_NEAR(mixtral.ActiveParameters() / 1e9, 12.9, 0.01 * 12.9);
    EXPECT_TRUE(mixtral.IsMoeLayer(0));
    // DeepSeek-V3: 671 billion, 37 billion per token (DeepSeek-V3 technical report).
    const TransformerModel deepseek = Preset("deepseek-v3");
    EXPECT_NEAR(deepseek.TotalParameters() / 1e9, 671, 0.01 * 671);
    EXPECT_NEAR(deepseek.ActiveParameters() / 1e9, 37, 0.02 * 37);
    EXPECT_FALSE(deepseek.IsMoeLayer(2));
    EXPECT_TRUE(deepseek.IsMoeLayer(3));
    TransformerSpec none;
    EXPECT_FALSE(TransformerModel::GetPreset("gpt5", none));
}

// A step of B sequences of GPT-3 is Megatron-LM's 72 B s l h^2 (1 + s / (6h) + V / (12 l h))
// FLOPs without recomputation: 3 passes of 24 s h^2 + 4 s^2 h per layer and 2 s h V of logits.
TEST_F(TrainingModelTest, StepFlopsAreMegatronsFormula)
{
    const TransformerModel gpt3 = Preset("gpt3-175b");
    const double B = 1536;
    const double s = 2048;
    const double l = 96;
    const double h = 12288;
    const double V = 51200;
    const double megatron = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    EXPECT_NEAR(gpt3.TrainingStepFlops(1536) / megatron, 1.0, 1e-12);
    // A forward pass is 2 FLOPs per weight a token meets, plus the attention scores.
    const TransformerModel mixtral = Preset("mixtral-8x7b");
    const double tokens = 4096;
    const double scores = 2 * tokens * 4096 * 32 * (128 + 128);
    EXPECT_NEAR(mixtral.LayerForwardFlops(0, 4096, 4096),
                2 * tokens * mixtral.LayerActiveParameters(0) + scores,
                1);
}

// Megatron's order tp-cp-ep-dp-pp: TP groups are consecutive ranks (inside a server), DP
// strides TP x CP, a pipeline strides TP x CP x DP, and EP splits a stage's CP x DP ranks.
TEST_F(TrainingModelTest, RankMappingIsMegatrons)
{
    ParallelLayout l;
    std::string error;
    ASSERT_TRUE(ParallelLayout::Make(64, 8, 2, 1, 2, l, error)) << error;
    EXPECT_EQ(l.GetDp(), 4u);
    EXPECT_EQ(l.TensorGroup(13), (std::vector<uint32_t>{8, 9, 10, 11, 12, 13, 14, 15}));
    EXPECT_EQ(l.DataGroup(0), (std::vector<uint32_t>{0, 8, 16, 24}));
    EXPECT_EQ(l.PipelineGroup(3), (std::vector<uint32_t>{3, 35}));
    EXPECT_EQ(l.ExpertGroup(0), (std::vector<uint32_t>{0, 8}));
    EXPECT_EQ(l.ExpertGroup(17), (std::vector<uint32_t>{17, 25}));
    EXPECT_EQ(l.ExpertDataGroup(0), (std::vector<uint32_t>{0, 16}));
    EXPECT_TRUE(l.TensorGroupsInsideServers(8));
    EXPECT_FALSE(l.TensorGroupsInsideServers(4));
    const ParallelLayout::Coordinates c = l.Locate(45);
    EXPECT_EQ(c.tp, 5u);
    EXPECT_EQ(c.dp, 1u);
    EXPECT_EQ(c.pp, 1u);
    EXPECT_EQ(l.RankOf(c), 45u);
    // Every group of a kind partitions the ranks.
    ASSERT_TRUE(ParallelLayout::Make(96, 2, 3, 2, 4, l, error)) << error;
    EXPECT_EQ(l.GetDp(), 8u);
    for (auto group : {&ParallelLayout::TensorGroup,
                       &ParallelLayout::ContextGroup,
                       &ParallelLayout::DataGroup,
                       &ParallelLayout::DataContextGroup,
                       &ParallelLayout::PipelineGroup,
                       &ParallelLayout::ExpertGroup,
                       &ParallelLayout::ExpertDataGroup})
    {
        std::set<uint32_t> seen;
        for (uint32_t r = 0; r < 96; ++r)
        {
            const std::vector<uint32_t> g = (l.*group)(r);
            EXPECT_NE(std::find(g.begin(), g.end(), r), g.end());
            for (uint32_t other : g)
            {
                EXPECT_EQ((l.*group)(other), g); // one group per rank, the same from each member
            }
            seen.insert(g.begin(), g.end());
        }
        EXPECT_EQ(seen.size(), 96u);
    }
    // TP 2, CP 2, DP 8: rank 0's CP pair is {0, 2}, its DP x CP group the 16 ranks of TP
    // index 0 in stage 0.
    EXPECT_EQ(l.ContextGroup(0), (std::vector<uint32_t>{0, 2}));
    std::vector<uint32_t> dpcp;
    for (uint32_t r = 0; r < 32; r += 2)
    {
        dpcp.push_back(r);
    }
    EXPECT_EQ(l.DataContextGroup(2), dpcp);
    EXPECT_FALSE(ParallelLayout::Make(64, 8, 3, 1, 1, l, error));
    EXPECT_EQ(error, "tp x pp x cp = 24 does not divide the 64 GPUs");
    EXPECT_FALSE(ParallelLayout::Make(64, 8, 2, 1, 3, l, error));
    EXPECT_EQ(error, "ep = 3 does not divide cp x dp = 4");
    EXPECT_FALSE(ParallelLayout::Make(64, 0, 2, 1, 1, l, error));
}

// 1F1B: each stage runs 2m passes, the first stage p - 1 forwards before its first backward;
// the bubble is (p - 1) / (m + p - 1) and the step (m + p - 1)(f + b).
TEST_F(TrainingModelTest, OneFOneBBubble)
{
    const std::vector<PipelineOp> first = OneFOneBSchedule::StageOrder(4, 0, 8);
    ASSERT_EQ(first.size(), 16u);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_TRUE(first[i].forward);
    }
    EXPECT_TRUE(first[3].forward);
    EXPECT_FALSE(first[4].forward);
    EXPECT_EQ(first[4].microbatch, 0u);
    const std::vector<PipelineOp> last = OneFOneBSchedule::StageOrder(4, 3, 8);
    EXPECT_TRUE(last[0].forward);
    EXPECT_FALSE(last[1].forward);
    for (const auto& [p, m] : std::vector<std::pair<uint32_t, uint32_t>>{
             {1, 4}, {2, 2}, {4, 8}, {8, 8}, {8, 64}, {12, 32}, {4, 2}})
    {
        for (const auto& [f, b] : std::vector<std::pair<double, double>>{{1, 2}, {3, 3}})
        {
            const OneFOneBSchedule::Timing t = OneFOneBSchedule::Evaluate(p, m, f, b);
            if (m >= p)
            {
                EXPECT_NEAR(t.makespan, (m + p - 1) * (f + b), 1e-9) << p << " " << m;
                EXPECT_NEAR(t.bubbleFraction, (p - 1.0) / (m + p - 1.0), 1e-12) << p << " " << m;
            }
            EXPECT_NEAR(t.busyPerStage, m * (f + b), 1e-12);
            // Time between stages only lengthens the step.
            EXPECT_GT(OneFOneBSchedule::Evaluate(p, m, f, b, 0.5).makespan + (p == 1 ? 1 : 0),
                      t.makespan);
        }
    }
}

// A generated step does the model's FLOPs exactly, split over the ranks: the sum of its compute
// operations' FLOPs is TrainingStepFlops() of the global batch. Its structure: per micro-batch
// and layer a TP rank computes attention and MLP forward and backward with a TP all-reduce
// after each, stages exchange one activation and one gradient per micro-batch, and every rank
// ends with data-parallel gradient all-reduces and the optimizer.
TEST_F(TrainingModelTest, GeneratedStepDoesTheModelsFlops)
{
    TrainingConfig c;
    c.model = SmallModel();
    c.tp = 2;
    c.pp = 2;
    c.microBatch = 2;
    c.globalBatch = 16; // dp 2: 4 micro-batches per pipeline
    c.bucketParameters = 10000000;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error;
    EXPECT_EQ(TrainingWorkload::MicroBatches(c, 2), 4u);
    double flops = StepFlops(w);
    const double expected = TransformerModel(c.model).TrainingStepFlops(16);
    EXPECT_NEAR(flops / expected, 1.0, 1e-9);
    // Rank 0: stage 0, TP 0, DP 0.
    uint32_t attention = 0;
    uint32_t tpReductions = 0;
    uint32_t dpReductions = 0;
    uint32_t sends = 0;
    uint32_t recvs = 0;
    for (const WorkloadOp& op : w.ops[0])
    {
        attention
            += op.name.find("-attn") != std::string::npos && op.kind == WorkloadOpKind::COMPUTE;
        if (op.kind == WorkloadOpKind::COLLECTIVE)
        {
            const bool tp = w.groupNames[op.group].rfind("tp", 0) == 0;
            tp ? ++tpReductions : ++dpReductions;
            EXPECT_EQ(op.bytes, tp ? 2u * 2048 * 1024 * 2 : op.bytes); // T x h in bf16
        }
        sends += op.kind == WorkloadOpKind::SEND;
        recvs += op.kind == WorkloadOpKind::RECV;
    }
    EXPECT_EQ(attention, 4u * 4 * 2); // 4 micro-batches x 4 layers, forward and backward
    // After each attention and MLP, both ways, and the embedding's sum of each micro-batch.
    EXPECT_EQ(tpReductions, 4u * 4 * 4 + 4);
    EXPECT_GE(dpReductions, 1u);
    EXPECT_EQ(sends, 4u); // activations to stage 1
    EXPECT_EQ(recvs, 4u); // their gradients back
    EXPECT_EQ(w.ops[0].back().name, "optimizer");
    EXPECT_EQ(w.groups.size(), 1u + 4 + 4); // every rank's, 4 TP pairs, 4 DP pairs

    // Sequence parallelism: the same FLOPs; each TP all-reduce becomes a reduce-scatter and an
    // all-gather of the same T x h, the backward pass gathers each block's input again, and a
    // stage sends its rank's half of the tokens. The last stage's output layer gathers its
    // input forward and reduce-scatters its gradient backward.
    c.sequenceParallel = true;
    Workload sp;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, sp, error)) << error;
    for (uint32_t rank : {0u, 6u}) // stage 0 and stage 1
    {
        std::map<CollectiveType, uint32_t> kinds;
        for (const WorkloadOp& op : sp.ops[rank])
        {
            if (op.kind == WorkloadOpKind::COLLECTIVE && sp.groupNames[op.group][0] == 't')
            {
                ++kinds[op.collective];
                EXPECT_EQ(op.bytes, 2u * 2048 * 1024 * 2) << op.name;
            }
            if (op.kind == WorkloadOpKind::SEND || op.kind == WorkloadOpKind::RECV)
            {
                EXPECT_EQ(op.bytes, 2u * 2048 * 1024 * 2 / 2) << op.name;
            }
        }
        // 4 micro-batches x 4 layers x 2 blocks: forward a gather and a scatter, backward two
        // gathers and a scatter; stage 0's embedding scatters forward and gathers backward,
        // stage 1's output layer gathers forward, and backward gathers its input again and
        // scatters. No TP all-reduce: a dense model holds no weight whole on every TP rank.
        const uint32_t blocks = 4 * 4 * 2;
        EXPECT_EQ(kinds[CollectiveType::ALL_REDUCE], 0u);
        EXPECT_EQ(kinds[CollectiveType::ALL_GATHER], 3 * blocks + (rank == 6 ? 8 : 4)) << rank;
        EXPECT_EQ(kinds[CollectiveType::REDUCE_SCATTER], 2 * blocks + 4) << rank;
    }
    flops = StepFlops(sp);
    EXPECT_NEAR(flops / expected, 1.0, 1e-9);
}

// What does not fit gets one line.
TEST_F(TrainingModelTest, TrainingConfigurationsThatDoNotFit)
{
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    TrainingConfig c;
    c.model = SmallModel();
    c.pp = 3;
    EXPECT_FALSE(TrainingWorkload::Make(c, 6, *gpu, w, error));
    EXPECT_EQ(error, "pp = 3 does not divide the 8 layers of small");
    c.pp = 1;
    c.tp = 3;
    EXPECT_FALSE(TrainingWorkload::Make(c, 6, *gpu, w, error));
    EXPECT_EQ(error, "tp = 3 does not divide the heads and the MLP of small");
    c.tp = 2;
    c.globalBatch = 5;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_NE(error.find("not a whole number of micro-batches"), std::string::npos) << error;
    c.globalBatch = 0;
    EXPECT_FALSE(TrainingWorkload::Make(c, 5, *gpu, w, error));
    EXPECT_EQ(error, "tp x pp x cp = 2 does not divide the 5 GPUs");
    TransformerModel::GetPreset("mixtral-8x7b", c.model);
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_EQ(error,
              "mixtral-8x7b is a mixture of experts: at tp > 1 it needs sequence parallelism, "
              "as Megatron-Core does with tensor and expert parallelism");
    c.sequenceParallel = true;
    c.seqLength = 1001;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_EQ(error,
              "sequence parallelism splits each sequence over the TP ranks: tp = 2 does not "
              "divide 1001 tokens");
    c.seqLength = 0;
    c.ep = 2;
    c.dispatcher = MoeDispatcher::HIERARCHICAL;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_EQ(error,
              "at tp > 1 a mixture of experts is generated with the flat dispatcher only "
              "(Megatron-Core's DeepEP-backed dispatcher sends over the TP x EP group)");
    c.dispatcher = MoeDispatcher::FLAT;
    c.ep = 1;
    c.sequenceParallel = false;
    c.tp = 1;
    c.ep = 3;
    EXPECT_FALSE(TrainingWorkload::Make(c, 6, *gpu, w, error));
    EXPECT_EQ(error, "ep = 3 does not divide the 8 experts of mixtral-8x7b");
    c.ep = 8;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_EQ(error, "ep = 8 does not divide cp x dp = 4");
    c.model = SmallModel();
    c.ep = 2;
    EXPECT_FALSE(TrainingWorkload::Make(c, 4, *gpu, w, error));
    EXPECT_EQ(error, "ep = 2 needs a mixture of experts; small is dense");
}

// DeepSeek-V3's step (multi-head latent attention, 3 dense layers then 58 MoE layers of 256
// experts with a shared one, routed to at most 4 of 8 groups) on one server, EP 8, a
// 256-token sequence per rank: its FLOPs are the model's (MLA's latent projections and
// scores included) to 1e-9; every routing keeps each token's 8 experts within 4 groups, so a
// token reaches at most 4 of the 8 GPUs; the attention of a layer costs its GEMMs'
// 2 x tokens x AttentionParameters() FLOPs plus its scores' 2 x 2 x tokens x seq x 128 x
// (192 + 128) / 2.
TEST_F(TrainingModelTest, DeepSeekV3StepWithLatentAttention)
{
    TrainingConfig c;
    ASSERT_TRUE(TransformerModel::GetPreset("deepseek-v3", c.model));
    c.model.seqLength = 256;
    c.seqLength = 256;
    c.ep = 8;
    c.microBatch = 1;
    c.globalBatch = 8;
    c.gpusPerServer = 8;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error;
    const double flops = StepFlops(w);
    double attention = 0;
    for (const WorkloadOp& op : w.ops[0])
    {
        attention += op.name == "fwd0-L0-attn" ? op.flops : 0;
    }
    const TransformerModel model(c.model);
    EXPECT_NEAR(flops / model.TrainingStepFlops(8), 1.0, 1e-9);
    const double T = 256;
    EXPECT_NEAR(attention,
                2 * T * model.AttentionParameters() + 2.0 * 2 * T * 256 * 128 * (192 + 128) / 2,
                1e-6 * attention);
    ASSERT_EQ(w.moe.size(), 58u); // one routing per MoE layer (one EP group)
    for (const MoeLayer& layer : w.moe)
    {
        uint64_t pairs = 0;
        for (uint32_t r = 0; r < 8; ++r)
        {
            pairs += layer.routing->GetAssignments(r);
        }
        EXPECT_EQ(pairs, 8u * 256 * 8); // 8 ranks' tokens, 8 experts each
        for (uint32_t r = 0; r < 8; ++r)
        {
            uint64_t copies = 0; // (token, GPU) pairs: at most 4 GPUs a token (5.3 unlimited)
            for (uint32_t d = 0; d < 8; ++d)
            {
                copies += layer.routing->GetTokens(r, d);
            }
            EXPECT_LE(copies, 4u * 256);
            EXPECT_GT(copies, 3u * 256);
        }
    }
    // MLA's weights: q 7168 x 1536 + 1536 x 128 x 192, kv 7168 x (512 + 64) + 512 x 128 x
    // 256, out 128 x 128 x 7168.
    EXPECT_EQ(model.AttentionParameters(),
              7168ULL * 1536 + 1536ULL * 128 * 192 + 7168ULL * 576 + 512ULL * 128 * 256
                  + 128ULL * 128 * 7168);
}

// A mixture-of-experts step (8 experts, top 2, on 8 GPUs: PP 2, EP 2, DP 4, so expert-data
// parallel 2) still does the model's FLOPs exactly: the (token, expert) pairs its routings
// land on each rank sum to every token's top 2. Each MoE layer runs, per micro-batch, a
// dispatch and a combine forward and again backward on its EP pair; the experts' gradients
// are all-reduced over the EDP pair, the rest over DP; the same configuration generates the
// same routings.
TEST_F(TrainingModelTest, MixtureOfExpertsStep)
{
    TrainingConfig c;
    c.model = SmallMoeModel();
    c.model.firstMoeLayer = 2; // layers 0 and 1 dense
    c.pp = 2;
    c.ep = 2;
    c.microBatch = 1;
    c.globalBatch = 8; // dp 4: 2 micro-batches per pipeline
    c.seqLength = 512;
    c.gpusPerServer = 4;
    c.dispatcher = MoeDispatcher::HIERARCHICAL;
    c.model.seqLength = 512;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    Workload w;
    std::string error;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, w, error)) << error;
    double flops = StepFlops(w);
    EXPECT_NEAR(flops / TransformerModel(c.model).TrainingStepFlops(8), 1.0, 1e-9);
    // 6 MoE layers, one routing per layer and EP pair (4 pairs: 2 per stage).
    EXPECT_EQ(w.moe.size(), 6u * 2);
    for (const MoeLayer& layer : w.moe)
    {
        EXPECT_EQ(layer.routing->GetNRanks(), 2u);
        EXPECT_EQ(layer.dispatcher, MoeDispatcher::HIERARCHICAL);
        EXPECT_EQ(layer.dispatchBytesPerToken, 2u * 1024); // bf16 activations
        EXPECT_EQ(layer.routing->GetAssignments(0) + layer.routing->GetAssignments(1),
                  2u * 512 * 2);
    }
    // Rank 0: stage 0 (layers 0-3, two of them MoE), EP index 0.
    uint32_t dispatches = 0;
    uint32_t combines = 0;
    uint32_t expertReductions = 0;
    uint32_t reductions = 0;
    for (const WorkloadOp& op : w.ops[0])
    {
        if (op.kind != WorkloadOpKind::COLLECTIVE)
        {
            continue;
        }
        if (op.moe > 0)
        {
            op.combine ? ++combines : ++dispatches;
            EXPECT_EQ(w.groups[op.group], (std::vector<uint32_t>{0, 1}));
            continue;
        }
        const bool expert = w.groupNames[op.group].rfind("edp", 0) == 0;
        expert ? ++expertReductions : ++reductions;
        const std::vector<uint32_t> members
            = expert ? std::vector<uint32_t>{0, 2} : std::vector<uint32_t>{0, 1, 2, 3};
        EXPECT_EQ(w.groups[op.group], members);
    }
    EXPECT_EQ(dispatches, 2u * 2 * 2); // 2 micro-batches x 2 MoE layers, forward and backward
    EXPECT_EQ(combines, dispatches);
    EXPECT_GE(expertReductions, 1u);
    EXPECT_GE(reductions, 1u);
    // Rank 0's gradients: its 4 experts of each of its 2 MoE layers over the EDP pair, the
    // rest of its stage (embedding, attention, routers, the 2 dense layers' MLPs) over DP.
    const TransformerModel model(c.model);
    uint64_t expertBytes = 0;
    uint64_t denseBytes = 0;
    for (const WorkloadOp& op : w.ops[0])
    {
        if (op.kind == WorkloadOpKind::COLLECTIVE && op.moe == 0)
        {
            (w.groupNames[op.group].rfind("edp", 0) == 0 ? expertBytes : denseBytes) += op.bytes;
        }
    }
    EXPECT_EQ(expertBytes, 2u * 4 * model.ExpertParameters() * 4);
    const uint64_t stage = model.EmbeddingParameters() + 4 * model.AttentionParameters()
                           + 2 * model.DenseMlpParameters() + 2 * model.RouterParameters();
    EXPECT_NEAR(static_cast<double>(denseBytes), 4.0 * stage, 4.0 * 8); // buckets round down
    Workload again;
    ASSERT_TRUE(TrainingWorkload::Make(c, 8, *gpu, again, error)) << error;
    for (uint32_t i = 0; i < w.moe.size(); ++i)
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            for (uint32_t d = 0; d < 2; ++d)
            {
                EXPECT_EQ(again.moe[i].routing->GetTokens(s, d), w.moe[i].routing->GetTokens(s, d));
            }
            EXPECT_EQ(again.moe[i].routing->GetAssignments(s), w.moe[i].routing->GetAssignments(s));
        }
    }
}
