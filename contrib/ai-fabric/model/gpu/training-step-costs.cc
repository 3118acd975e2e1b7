/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "training-step-costs.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// The most micro-batches per pipeline a generated step has.
constexpr uint64_t MAX_MICRO_BATCHES = 65536;
/// The longest sequence a generated step takes.
constexpr uint64_t MAX_SEQUENCE = 1 << 20;
/// The most tokens a micro-batch of a mixture of experts routes (its routing is drawn token by
/// token).
constexpr uint64_t MAX_MOE_TOKENS = 1 << 24;

/// What one block (attention or MLP) of a layer costs a TP rank, forward.
using Block = GpuComputeModel::BlockCost;

} // namespace

TrainingStepCosts::TrainingStepCosts(const TransformerSpec& spec)
    : model(spec)
{
}

bool
TrainingStepCosts::Make(const TrainingConfig& config,
                        uint32_t gpus,
                        const GpuComputeModel& gpu,
                        TrainingStepCosts& costs,
                        std::string& error)
{
    const TransformerSpec& spec = config.model;
    const bool moe = spec.experts > 0;
    if (!moe && config.ep > 1)
    {
        error = "ep = " + std::to_string(config.ep) + " needs a mixture of experts; " + spec.name
                + " is dense";
        return false;
    }
    if (moe && config.tp > 1 && !config.sequenceParallel)
    {
        error = spec.name + " is a mixture of experts: at tp > 1 it needs sequence parallelism, "
                            "as Megatron-Core does with tensor and expert parallelism";
        return false;
    }
    if (config.gradientBytes != 2 && config.gradientBytes != 4)
    {
        error = "gradients are reduced in fp32 (4 bytes) or bf16 (2), not "
                + std::to_string(config.gradientBytes) + " bytes";
        return false;
    }
    if (config.zero != 0 && config.zero != 1 && config.zero != 3)
    {
        error = "zero = " + std::to_string(config.zero)
                + ": expected 0 (DDP), 1 (the distributed optimizer) or 3 (FSDP)";
        return false;
    }
    if (moe && (config.ep == 0 || spec.experts % config.ep != 0))
    {
        error = "ep = " + std::to_string(config.ep) + " does not divide the "
                + std::to_string(spec.experts) + " experts of " + spec.name;
        return false;
    }
    ParallelLayout layout;
    if (!ParallelLayout::Make(gpus, config.tp, config.pp, config.cp, config.ep, layout, error))
    {
        return false;
    }
    const uint32_t tp = config.tp;
    const uint32_t pp = config.pp;
    const uint32_t cp = config.cp;
    const uint32_t dp = layout.GetDp();
    // Each stage's first layer and layer count: the first and last stages' as asked (0: an
    // even share), the others' the rest evenly (Megatron-Core's
    // --decoder-first/last-pipeline-num-layers).
    std::vector<uint32_t> stageFirst(pp + 1, 0);
    {
        const uint32_t first = config.firstStageLayers;
        const uint32_t lastLayers = config.lastStageLayers;
        const bool uneven = first > 0 || lastLayers > 0;
        if (uneven && pp == 1)
        {
            error = "the first and last stages' layers need pp > 1";
            return false;
        }
        const uint64_t fixed = static_cast<uint64_t>(first) + lastLayers;
        const uint32_t others = pp - (first > 0 ? 1 : 0) - (lastLayers > 0 ? 1 : 0);
        if (fixed > spec.layers || (others == 0 && fixed != spec.layers)
            || (others > 0 && (spec.layers - fixed) % others != 0)
            || (others > 0 && spec.layers - fixed < others))
        {
            error = uneven ? "the " + std::to_string(spec.layers) + " layers of " + spec.name
                                 + " less " + std::to_string(fixed)
                                 + " on the first and last stages do not split evenly over the "
                                 + std::to_string(others) + " other stages"
                           : "pp = " + std::to_string(pp) + " does not divide the "
                                 + std::to_string(spec.layers) + " layers of " + spec.name;
            return false;
        }
        const uint32_t even
            = others > 0 ? static_cast<uint32_t>((spec.layers - fixed) / others) : 0;
        for (uint32_t stage = 0; stage < pp; ++stage)
        {
            uint32_t n = even;
            if (stage == 0 && first > 0)
            {
                n = first;
            }
            else if (stage + 1 == pp && lastLayers > 0)
            {
                n = lastLayers;
            }
            stageFirst[stage + 1] = stageFirst[stage] + n;
        }
    }
    const bool mla = spec.kvLoraRank > 0;
    const uint32_t kv = mla ? spec.heads : (spec.kvHeads > 0 ? spec.kvHeads : spec.heads);
    if (spec.heads % tp != 0 || spec.ffnHidden % tp != 0 || (kv % tp != 0 && tp % kv != 0))
    {
        error = "tp = " + std::to_string(tp) + " does not divide the heads and the MLP of "
                + spec.name;
        return false;
    }
    if (config.microBatch == 0)
    {
        error = "the micro-batch must hold at least one sequence";
        return false;
    }
    const uint64_t m = TrainingWorkload::MicroBatches(config, dp);
    if (m == 0)
    {
        error = "the global batch of " + std::to_string(config.globalBatch)
                + " sequences is not a whole number of micro-batches of "
                + std::to_string(config.microBatch) + " on each of " + std::to_string(dp)
                + " data-parallel replicas";
        return false;
    }
    const uint64_t seq = config.seqLength > 0 ? config.seqLength : spec.seqLength;
    if (seq == 0)
    {
        error = spec.name + " has no sequence length: give one";
        return false;
    }
    // Sequence parallelism splits each sequence's tokens over the TP ranks.
    const bool sp = config.sequenceParallel && tp > 1;
    if (mla && tp > 1 && !sp)
    {
        error = spec.name + "'s latent attention at tp > 1 is generated with sequence "
                            "parallelism only";
        return false;
    }
    if (moe && tp > 1 && config.dispatcher != MoeDispatcher::FLAT)
    {
        error
            = "at tp > 1 a mixture of experts is generated with the flat dispatcher only "
              "(Megatron-Core's DeepEP-backed dispatcher sends over the TP x EP group)";
        return false;
    }
    if (cp > 1 && seq % (2 * cp) != 0)
    {
        error = "context parallelism splits each sequence into 2 x cp chunks: "
                + std::to_string(seq) + " tokens do not split into " + std::to_string(2 * cp);
        return false;
    }
    if (sp && (seq / cp) % tp != 0)
    {
        error = "sequence parallelism splits each sequence over the TP ranks: tp = "
                + std::to_string(tp) + " does not divide " + std::to_string(seq / cp) + " tokens";
        return false;
    }
    if (!gpu.Supports(config.dtype))
    {
        error = std::string("the ") + gpu.GetGpu().name + " does not compute in "
                + ComputeDataTypeName(config.dtype);
        return false;
    }
    if (m > MAX_MICRO_BATCHES || seq > MAX_SEQUENCE)
    {
        error = "at most " + std::to_string(MAX_MICRO_BATCHES) + " micro-batches per pipeline and "
                + std::to_string(MAX_SEQUENCE) + " tokens per sequence";
        return false;
    }
    if (moe && static_cast<uint64_t>(config.microBatch) * seq > MAX_MOE_TOKENS)
    {
        error = "a mixture of experts routes at most " + std::to_string(MAX_MOE_TOKENS)
                + " tokens per micro-batch here; asked for "
                + std::to_string(static_cast<uint64_t>(config.microBatch) * seq);
        return false;
    }
    const TransformerModel& model = costs.model;
    // Weights in the compute's data type; activations, their all-reduces and transfers in
    // BF16 when the GEMMs run in FP8 (Transformer Engine's FP8 recipes keep them so).
    const double e = ComputeDataTypeBytes(config.dtype);
    const double a = config.dtype == ComputeDataType::FP8 ? 2 : e;
    // A rank's tokens of a micro-batch: its 1/cp of every sequence (context parallelism).
    const double T = static_cast<double>(config.microBatch) * static_cast<double>(seq) / cp;
    // The tokens a TP rank holds outside the split GEMMs (its norms, residuals and router).
    const double Tr = sp ? T / tp : T;
    const double h = static_cast<double>(spec.hidden);
    const double d = static_cast<double>(model.HeadDim());
    const double qWidth = spec.heads * d / tp;
    const double kvWidth = std::max(1.0, static_cast<double>(kv) / tp) * d;
    const double ffn = static_cast<double>(spec.ffnHidden) / tp;
    const double gates = spec.gatedMlp ? 2 : 1;
    // Per layer and TP rank, forward (the scores as TransformerModel counts them, below).
    Block attn;
    // What attention's TP collectives carry: its input gathered, its output scattered.
    double attnIn = a * T * static_cast<double>(spec.hidden);
    attn.gemmFlops = 2 * T * static_cast<double>(model.AttentionParameters()) / tp;
    attn.gemmBytes = e
                     * (static_cast<double>(model.AttentionParameters()) / tp
                        + T * (h + qWidth + 2 * kvWidth + qWidth + h));
    attn.scoreBytes = a * T * (2 * qWidth + 2 * kvWidth);
    attn.elementBytes = a * Tr * (2 * h + 3 * h); // layer norm; residual add
    // In FP8 (Transformer Engine's linear layers), each GEMM's input is quantized: forward the
    // norm's output (on the rank's own tokens, before the gather under sequence parallelism)
    // and the attention's output; backward the gradients of the QKV and the projection's
    // outputs.
    attn.quantizedForward = Tr * h + T * qWidth;
    attn.quantizedBackward = T * (qWidth + 2 * kvWidth) + Tr * h;
    if (mla)
    {
        // Multi-head latent attention (Megatron-Core's MLASelfAttention): the down-projections
        // to the query and key-value latents are whole on every TP rank, the up-projections
        // and the output projection split by heads. Every GEMM reads its input and writes its
        // output; the scores read queries and keys of nope + rope dimensions per head and
        // values of vHeadDim, and write outputs of vHeadDim.
        const double heads = static_cast<double>(spec.heads) / tp;
        const double qk = static_cast<double>(spec.qkNopeHeadDim + spec.qkRopeHeadDim);
        const double v = static_cast<double>(spec.vHeadDim);
        const double qr = static_cast<double>(spec.qLoraRank);
        const double kvr = static_cast<double>(spec.kvLoraRank);
        const double rope = static_cast<double>(spec.qkRopeHeadDim);
        const double nope = static_cast<double>(spec.qkNopeHeadDim);
        // With sequence parallelism the down-projections run on the rank's T / tp tokens
        // and the TP group gathers their latents (Megatron-Core's MLA gathers q_compressed
        // and kv_compressed, not the hidden states).
        const double down = static_cast<double>(model.LatentDownParameters());
        const double rest = static_cast<double>(model.AttentionParameters()) - down;
        const double weights = down + rest / tp;
        attn.gemmFlops = 2 * (Tr * down + T * rest / tp);
        const double movedDown = (qr > 0 ? h + qr : 0) + h + (kvr + rope);
        const double movedRest
            = (qr > 0 ? qr : h) + heads * qk + kvr + heads * (nope + v) + heads * v + h;
        attn.gemmBytes = e * (weights + Tr * movedDown + T * movedRest);
        attnIn = a * T * ((qr > 0 ? qr : h) + kvr + rope);
        attn.scoreBytes = a * T * heads * (2 * qk + 2 * v);
        // Quantized (FP8): each down-projection's input (the norm's output), the up-projections'
        // (the latents) and the output projection's; backward, their outputs' gradients.
        attn.quantizedForward
            = Tr * h + (qr > 0 ? Tr * h + T * qr : T * h) + T * kvr + T * heads * v;
        attn.quantizedBackward = Tr * (kvr + rope) + (qr > 0 ? Tr * qr : 0) + T * heads * qk
                                 + T * heads * (nope + v) + Tr * h;
    }
    // What a ring-attention step passes on (context parallelism): the keys and values of a
    // rank's tokens on its TP rank's heads (MLA: each head's expanded keys and values).
    const double kvBlockBytes
        = mla ? a * T * (static_cast<double>(spec.heads) / tp)
                    * static_cast<double>(spec.qkNopeHeadDim + spec.qkRopeHeadDim + spec.vHeadDim)
              : a * T * 2 * kvWidth;
    // Attention's core (the score products alone), which selective recomputation repeats.
    Block cores;
    Block mlp;
    mlp.gemmFlops = 2 * T * static_cast<double>(model.DenseMlpParameters()) / tp;
    mlp.gemmBytes = e
                    * (static_cast<double>(model.DenseMlpParameters()) / tp
                       + T * (h + gates * ffn + ffn + h));
    mlp.elementBytes = a * (Tr * (2 * h + 3 * h) + T * (gates + 1) * ffn); // norms; activation
    mlp.quantizedForward = Tr * h + T * ffn;                               // FC1's input, FC2's
    mlp.quantizedBackward = T * gates * ffn + Tr * h; // their outputs' gradients
    // The output layer is Megatron-Core's own ColumnParallelLinear, not Transformer Engine's:
    // in BF16 (its weights, input and logits) when the layers compute in FP8.
    Block output;
    output.highPrecision = true;
    output.gemmFlops = model.OutputForwardFlops(static_cast<uint64_t>(T)) / tp;
    output.gemmBytes = a * (static_cast<double>(spec.vocab) * h / tp + T * (h + spec.vocab / tp));
    output.elementBytes = a * T * (2.0 * spec.vocab / tp); // softmax and cross-entropy
    const double activationBytes = a * T * h;
    // A multi-token-prediction module's projection: its two norms (the hidden state and the
    // next token's embedding) and the 2 x hidden to hidden GEMM, split over the TP group.
    Block projection;
    projection.gemmFlops = 2 * T * static_cast<double>(model.MtpProjectionParameters()) / tp;
    projection.gemmBytes
        = e * (static_cast<double>(model.MtpProjectionParameters()) / tp + T * (2 * h + h));
    projection.elementBytes = a * Tr * (2 * 2 * h);
    projection.quantizedForward = Tr * 2 * h;
    projection.quantizedBackward = Tr * h;
    // What a stage sends the next: its rank's tokens (1 / tp of them with sequence parallelism).
    const double stageBytes = activationBytes / (sp ? tp : 1);
    // Attention's score products per layer and TP rank: the layer's FLOPs less its weights'.
    auto scoreFlops = [&](uint32_t layer)
    {
        return (model.LayerForwardFlops(layer, static_cast<uint64_t>(T), seq)
                - 2 * T * static_cast<double>(model.LayerActiveParameters(layer)))
               / tp;
    };
    attn.scoreFlops = scoreFlops(0);
    cores.scoreFlops = attn.scoreFlops;
    cores.scoreBytes = attn.scoreBytes;
    // Mixture of experts: the router on the rank's tokens, and the experts (split over the
    // TP group: ETP = TP, Megatron-Core's default) on the pairs the rank's TP group gets.
    const double ef = static_cast<double>(spec.expertFfnHidden);
    const double expertWeights = static_cast<double>(model.ExpertParameters());
    const double localExperts = moe ? static_cast<double>(spec.experts) / config.ep : 0;
    // The router (Megatron-Core's TopKRouter, a plain linear layer) stays in BF16 too.
    Block router;
    router.highPrecision = true;
    router.gemmFlops = 2 * Tr * static_cast<double>(model.RouterParameters());
    router.gemmBytes
        = a * (static_cast<double>(model.RouterParameters()) + Tr * h) + a * Tr * spec.experts;
    router.elementBytes = a * Tr * 2.0 * spec.experts + a * Tr * (2 * h); // softmax, top-k; norm
    costs.layout = layout;
    costs.stageFirst = stageFirst;
    costs.moe = moe;
    costs.mla = mla;
    costs.sp = sp;
    costs.tp = tp;
    costs.pp = pp;
    costs.cp = cp;
    costs.dp = dp;
    costs.seq = seq;
    costs.microBatches = m;
    costs.e = e;
    costs.a = a;
    costs.T = T;
    costs.Tr = Tr;
    costs.h = h;
    costs.gates = gates;
    costs.activationBytes = activationBytes;
    costs.stageBytes = stageBytes;
    costs.attnIn = attnIn;
    costs.kvBlockBytes = kvBlockBytes;
    costs.localExperts = localExperts;
    costs.expertWeights = expertWeights;
    costs.expertFfn = ef;
    costs.attn = attn;
    costs.cores = cores;
    costs.mlp = mlp;
    costs.output = output;
    costs.projection = projection;
    costs.router = router;
    costs.shared = costs.ExpertBlock(T * spec.sharedExperts, spec.sharedExperts, 0);
    return true;
}

GpuComputeModel::BlockCost
TrainingStepCosts::ExpertBlock(double pairs, double experts, double residualTokens) const
{
    Block b;
    const double efr = expertFfn / tp;
    b.gemmFlops = 2 * pairs * expertWeights / tp;
    b.gemmBytes = e * (experts * expertWeights / tp + pairs * (h + gates * efr + efr + h));
    b.elementBytes = a * pairs * (gates + 1) * efr + a * residualTokens * 3 * h;
    b.quantizedForward = pairs * (h + efr);          // FC1's input, FC2's (FP8)
    b.quantizedBackward = pairs * (gates * efr + h); // their outputs' gradients
    return b;
}

double
TrainingStepCosts::ReplicatedParameters(uint32_t layer) const
{
    return (model.IsMoeLayer(layer) ? static_cast<double>(model.RouterParameters()) : 0.0)
           + static_cast<double>(model.LatentDownParameters());
}

double
TrainingStepCosts::RankParameters(uint32_t layer) const
{
    const uint32_t experts = model.GetSpec().experts;
    const double all = static_cast<double>(model.LayerParameters(layer))
                       - (model.IsMoeLayer(layer) ? (experts - localExperts) : 0.0) * expertWeights;
    const double whole = tp > 1 ? ReplicatedParameters(layer) : 0.0;
    return (all - whole) / tp + whole;
}

double
TrainingStepCosts::RankExpertParameters(uint32_t layer) const
{
    return model.IsMoeLayer(layer) ? localExperts * expertWeights / tp : 0.0;
}

} // namespace ns3
