/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "training-workload.h"

#include "ns3/abort.h"
#include "ns3/random-variable-stream.h"
#include "pipeline-schedule.h"
#include "training-step-costs.h"

#include <algorithm>
#include <map>

namespace ns3
{

namespace
{

/// Adam with fp32 master weights: reads parameter, gradient and both moments (4 x 4 bytes),
/// writes parameter and moments (3 x 4) and the 2-byte copy the next step computes with.
constexpr double OPTIMIZER_BYTES_PER_PARAMETER = 30;
/// Parameters are gathered in BF16 (sharded data parallelism).
constexpr double PARAMETER_BYTES = 2;

/// What one block (attention or MLP) of a layer costs a TP rank, forward.
using Block = GpuComputeModel::BlockCost;

} // namespace

const char*
RecomputeName(Recompute r)
{
    switch (r)
    {
    case Recompute::NONE:
        return "none";
    case Recompute::SELECTIVE:
        return "selective";
    case Recompute::FULL:
        return "full";
    }
    return "none";
}

bool
ParseRecompute(const std::string& name, Recompute& r)
{
    for (Recompute g : {Recompute::NONE, Recompute::SELECTIVE, Recompute::FULL})
    {
        if (name == RecomputeName(g))
        {
            r = g;
            return true;
        }
    }
    return false;
}

uint64_t
TrainingWorkload::MicroBatches(const TrainingConfig& config, uint32_t dp)
{
    if (config.globalBatch == 0)
    {
        return 1;
    }
    const uint64_t perPipeline = static_cast<uint64_t>(config.microBatch) * dp;
    return config.globalBatch % perPipeline == 0 ? config.globalBatch / perPipeline : 0;
}

bool
TrainingWorkload::Make(const TrainingConfig& config,
                       uint32_t gpus,
                       const GpuComputeModel& gpu,
                       Workload& workload,
                       std::string& error)
{
    TrainingStepCosts costs(config.model);
    if (!TrainingStepCosts::Make(config, gpus, gpu, costs, error))
    {
        return false;
    }
    // The step's shape and costs, under the names the generation below uses.
    const TransformerSpec& spec = config.model;
    const TransformerModel& model = costs.model;
    const ParallelLayout& layout = costs.layout;
    const std::vector<uint32_t>& stageFirst = costs.stageFirst;
    const bool moe = costs.moe;
    const bool sp = costs.sp;
    const uint32_t tp = costs.tp;
    const uint32_t pp = costs.pp;
    const uint32_t cp = costs.cp;
    const uint32_t dp = costs.dp;
    const uint64_t m = costs.microBatches;
    const double a = costs.a;
    const double T = costs.T;
    const double Tr = costs.Tr;
    const double h = costs.h;
    const double activationBytes = costs.activationBytes;
    const double stageBytes = costs.stageBytes;
    const double attnIn = costs.attnIn;
    const double kvBlockBytes = costs.kvBlockBytes;
    const double localExperts = costs.localExperts;
    const Block& attn = costs.attn;
    const Block& cores = costs.cores;
    const Block& mlp = costs.mlp;
    const Block& output = costs.output;
    const Block& projection = costs.projection;
    const Block& router = costs.router;
    const Block& sharedBlock = costs.shared;
    auto expertBlock = [&costs](double pairs, double experts, double residualTokens)
    { return costs.ExpertBlock(pairs, experts, residualTokens); };
    auto replicatedParameters
        = [&costs](uint32_t layer) { return costs.ReplicatedParameters(layer); };
    auto rankParameters = [&costs](uint32_t layer) { return costs.RankParameters(layer); };
    auto rankExpertParameters
        = [&costs](uint32_t layer) { return costs.RankExpertParameters(layer); };
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(config.moeStream);
    // The multi-token-prediction layers' routings from a stream of their own, so that adding
    // them leaves the model's layers' routings as they are.
    Ptr<UniformRandomVariable> mtpRng = CreateObject<UniformRandomVariable>();
    mtpRng->SetStream(config.moeStream + 1);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> routingOf; // (layer, EP group) -> moe

    Workload w;
    w.nRanks = gpus;
    // A communicator per parallelism and ranks: the EP group and the DP group of the same ranks
    // (ep = dp) are two communicators, as Megatron-Core's process groups are, whose
    // collectives overlap instead of queueing on one.
    std::map<std::pair<std::string, std::vector<uint32_t>>, uint32_t> groupIndex;
    auto groupOf = [&w, &groupIndex](const std::vector<uint32_t>& ranks, const std::string& kind)
    {
        auto [it, added] = groupIndex.emplace(std::make_pair(kind, ranks),
                                              static_cast<uint32_t>(w.groups.size()));
        if (added)
        {
            w.groupNames.push_back(kind + "[" + std::to_string(w.groups.size() - 1) + "]");
            w.groups.push_back(ranks);
        }
        return it->second;
    };
    // The MoE layer's routing over a rank's EP group (one per layer and group, drawn the first
    // time it is asked for), as an index in w.moe.
    auto routingFor = [&](uint32_t layer, uint32_t rank)
    {
        const std::vector<uint32_t> epRanks = layout.ExpertGroup(rank);
        const uint32_t epGroup = groupOf(epRanks, "ep");
        auto [it, added] = routingOf.emplace(std::make_pair(layer, epGroup),
                                             static_cast<uint32_t>(w.moe.size()));
        if (added)
        {
            const std::vector<uint32_t> nodeOf = MoeRouting::NodesOf(epRanks, config.gpusPerServer);
            const MoeRoutingConfig rc = model.RoutingConfig(static_cast<uint32_t>(Tr));
            MoeLayer layerMoe;
            std::string why;
            layerMoe.routing
                = MoeRouting::Draw(rc, nodeOf, layer >= spec.layers ? mtpRng : rng, why);
            NS_ABORT_MSG_IF(!layerMoe.routing, "TrainingWorkload: " << why);
            layerMoe.dispatcher = config.dispatcher;
            layerMoe.dispatchBytesPerToken = static_cast<uint64_t>(a * h);
            layerMoe.combineBytesPerToken = layerMoe.dispatchBytesPerToken;
            layerMoe.dispatchCopyRate = config.dispatchCopyRate;
            layerMoe.combineCopyRate = config.combineCopyRate;
            w.moe.push_back(layerMoe);
        }
        return it->second;
    };
    // The (token, expert) pairs a rank's experts get in a MoE layer.
    auto pairsOf = [&](uint32_t layer, uint32_t rank)
    {
        if (config.ep == 1)
        {
            return Tr * spec.topK; // every expert is the rank's
        }
        const std::vector<uint32_t> epRanks = layout.ExpertGroup(rank);
        const auto epIndex = static_cast<uint32_t>(std::find(epRanks.begin(), epRanks.end(), rank)
                                                   - epRanks.begin());
        return static_cast<double>(w.moe[routingFor(layer, rank)].routing->GetAssignments(epIndex));
    };
    w.ops.assign(gpus, {});
    for (uint32_t r = 0; r < gpus; ++r)
    {
        const ParallelLayout::Coordinates c = layout.Locate(r);
        const uint32_t s = c.pp;
        const uint32_t tpGroup = tp > 1 ? groupOf(layout.TensorGroup(r), "tp") : 0;
        // The dense layers' gradients: over the DP ranks, and with context parallelism over
        // the DP x CP ranks (each CP rank's gradients are of its part of the sequences).
        const uint32_t dpGroup
            = dp * cp > 1 ? groupOf(cp > 1 ? layout.DataContextGroup(r) : layout.DataGroup(r), "dp")
                          : 0;
        ParallelLayout::Coordinates ring = c;
        ring.cp = (c.cp + 1) % cp;
        const uint32_t cpNext = layout.RankOf(ring);
        ring.cp = (c.cp + cp - 1) % cp;
        const uint32_t cpPrev = layout.RankOf(ring);
        const std::vector<uint32_t> epRanks = layout.ExpertGroup(r);
        const uint32_t epGroup = moe && config.ep > 1 ? groupOf(epRanks, "ep") : 0;
        const std::vector<uint32_t> edpRanks = layout.ExpertDataGroup(r);
        const uint32_t edpGroup = moe && edpRanks.size() > 1 ? groupOf(edpRanks, "edp") : 0;
        // The multi-token-prediction modules (the last stage's, after its layers): their
        // parameters, kept with the stage's top layer for the gradients and the gathers.
        const bool lastStage = s + 1 == pp;
        const uint32_t top = stageFirst[s + 1] - 1;
        double mtpDense = 0;
        double mtpExperts = 0;
        for (uint32_t k = 0; lastStage && k < spec.mtpLayers; ++k)
        {
            const uint32_t layer = spec.layers + k;
            mtpDense += rankParameters(layer) - rankExpertParameters(layer)
                        + static_cast<double>(model.MtpProjectionParameters()) / tp;
            mtpExperts += rankExpertParameters(layer);
        }
        auto expertShare = [&](uint32_t layer)
        { return rankExpertParameters(layer) + (lastStage && layer == top ? mtpExperts : 0.0); };
        // Sharded data parallelism: a layer's parameters as this rank holds them whole (its TP
        // and EP share), the stage's embedding with its first layer and its output layer with
        // its last; the experts' apart (over the expert-data-parallel group).
        auto denseShare = [&](uint32_t layer)
        {
            double p = rankParameters(layer) - rankExpertParameters(layer);
            p += layer == stageFirst[s] && s == 0
                     ? static_cast<double>(model.EmbeddingParameters()) / tp
                     : 0.0;
            p += layer + 1 == stageFirst[s + 1] && s + 1 == pp
                     ? static_cast<double>(model.OutputParameters()) / tp + mtpDense
                     : 0.0;
            return p;
        };
        const std::vector<uint32_t> tpRanks = layout.TensorGroup(r);
        ParallelLayout::Coordinates prev = c;
        ParallelLayout::Coordinates next = c;
        prev.pp = s > 0 ? s - 1 : 0;
        next.pp = s + 1 < pp ? s + 1 : s;
        std::vector<WorkloadOp>& ops = w.ops[r];
        uint32_t last = 0;
        bool any = false;
        // Append an operation after the last one.
        // What the next operation added must also wait for (a layer's gathered parameters).
        std::vector<uint32_t> nextDeps;
        auto add = [&ops, &last, &any, &nextDeps](WorkloadOp op, std::vector<uint32_t> extra = {})
        {
            if (any)
            {
                op.deps.push_back(last);
            }
            op.deps.insert(op.deps.end(), extra.begin(), extra.end());
            op.deps.insert(op.deps.end(), nextDeps.begin(), nextDeps.end());
            nextDeps.clear();
            ops.push_back(std::move(op));
            last = static_cast<uint32_t>(ops.size() - 1);
            any = true;
            return last;
        };
        // While recomputing, compute counts no model FLOPs (the MFU's convention).
        bool recomputing = false;
        auto compute = [&](const std::string& name, Time t, double flops)
        {
            WorkloadOp op;
            op.kind = WorkloadOpKind::COMPUTE;
            op.name = name;
            op.duration = t;
            op.flops = recomputing ? 0 : flops;
            return add(op);
        };
        // A collective over the TP group, after the last operation (and extra ones).
        auto tpCollective = [&](CollectiveType type,
                                double bytes,
                                const std::string& name,
                                std::vector<uint32_t> extra = {})
        {
            WorkloadOp op;
            op.kind = WorkloadOpKind::COLLECTIVE;
            op.collective = type;
            op.group = tpGroup;
            op.bytes = static_cast<uint64_t>(bytes);
            op.name = name;
            return add(op, std::move(extra));
        };
        // An all-gather over the TP group beside the next operation (after the last one): a
        // backward pass's input gathered again for the weight gradients.
        auto regather = [&](double bytes, const std::string& name)
        {
            WorkloadOp op;
            op.kind = WorkloadOpKind::COLLECTIVE;
            op.collective = CollectiveType::ALL_GATHER;
            op.group = tpGroup;
            op.bytes = static_cast<uint64_t>(bytes);
            op.name = name;
            if (any)
            {
                op.deps.push_back(last);
            }
            ops.push_back(op);
            return std::vector<uint32_t>{static_cast<uint32_t>(ops.size() - 1)};
        };
        // A block's compute. Attention under context parallelism is Megatron-Core's ring
        // attention (--cp-comm-type p2p, Transformer Engine's AttnFuncWithCPAndKVP2P): cp equal
        // parts, each with the keys and values of another CP rank's tokens, which travel around
        // the CP ring beside the compute (sent on to the next rank as they are used). Backward
        // the ring runs the other way: the first step passes the keys and values, the middle
        // ones the keys and values with the gradients the part before computed for them, and
        // the last one the last gradients home.
        auto blockCompute
            = [&](const std::string& name, const Block& b, double scale, double flops, bool ring)
        {
            if (!ring || cp == 1)
            {
                compute(name, gpu.BlockTime(b, config.dtype, scale, scale != 1), flops);
                return;
            }
            const bool forward = scale == 1;
            const Time part = gpu.BlockTime(b, config.dtype, scale / cp, !forward);
            const uint32_t to = forward ? cpNext : cpPrev;
            const uint32_t from = forward ? cpPrev : cpNext;
            // A send after operations (none: at once), or a receive.
            auto transfer
                = [&](bool send, double bytes, const std::string& what, std::vector<uint32_t> after)
            {
                WorkloadOp op;
                op.kind = send ? WorkloadOpKind::SEND : WorkloadOpKind::RECV;
                op.peer = send ? to : from;
                op.bytes = static_cast<uint64_t>(bytes);
                op.name = what;
                op.deps = std::move(after);
                ops.push_back(op);
                return static_cast<uint32_t>(ops.size() - 1);
            };
            // The rank's own keys and values leave as its first part starts (the block's
            // projections are counted in the parts), once what that part waits for is done.
            std::vector<uint32_t> start = nextDeps;
            if (any)
            {
                start.push_back(last);
            }
            uint32_t previous = compute(name + "-cp0", part, flops / cp); // the part before
            std::vector<uint32_t> held = start; // when the keys and values to pass on are here
            for (uint32_t i = 1; i < cp; ++i)
            {
                const std::string n = std::to_string(i);
                const double step = forward || i == 1 ? kvBlockBytes : 2 * kvBlockBytes;
                // Backward, from the second step on, a block carries the gradients the part
                // before computed for it: it leaves when that part is done.
                std::vector<uint32_t> after = held;
                if (!forward && i > 1)
                {
                    after.push_back(previous);
                }
                transfer(true, step, name + "-kv-send" + n, after);
                const uint32_t got = transfer(false, step, name + "-kv-recv" + n, {});
                held = {got};
                WorkloadOp op;
                op.kind = WorkloadOpKind::COMPUTE;
                op.name = name + "-cp" + n;
                op.duration = part;
                op.flops = recomputing ? 0 : flops / cp;
                previous = add(op, {got});
            }
            if (!forward)
            {
                // The last block's gradients, once the last part has computed them.
                transfer(true, kvBlockBytes, name + "-dkv-send", {previous});
                const uint32_t home = transfer(false, kvBlockBytes, name + "-dkv-recv", {});
                WorkloadOp wait;
                wait.kind = WorkloadOpKind::COMPUTE;
                wait.name = name + "-dkv";
                add(wait, {home});
            }
        };
        // A block split over the TP group, forward (scale 1) or backward (2), whose input the
        // TP collectives carry as in bytes and output as out bytes. Forward: its compute and
        // the all-reduce of its output; with sequence parallelism an all-gather of its input
        // before and a reduce-scatter of its output after. Backward, the reverse: the
        // all-reduce of its input's gradient; with sequence parallelism an all-gather of its
        // output's gradient, its input gathered again for the weight gradients beside the
        // compute, and a reduce-scatter of its input's gradient.
        auto tpBlock = [&](const std::string& name,
                           const Block& b,
                           double scale,
                           double flops,
                           double in,
                           double out,
                           bool ring = false)
        {
            const bool forward = scale == 1;
            if (tp == 1)
            {
                blockCompute(name, b, scale, flops, ring);
                return;
            }
            if (!sp)
            {
                blockCompute(name, b, scale, flops, ring);
                tpCollective(CollectiveType::ALL_REDUCE, forward ? out : in, name + "-ar");
                return;
            }
            tpCollective(CollectiveType::ALL_GATHER, forward ? in : out, name + "-ag");
            const std::vector<uint32_t> again
                = forward ? std::vector<uint32_t>{} : regather(in, name + "-wgrad-ag");
            blockCompute(name, b, scale, flops, ring);
            tpCollective(CollectiveType::REDUCE_SCATTER, forward ? out : in, name + "-rs", again);
        };
        auto p2p = [&](bool send, uint32_t peer, const std::string& name)
        {
            WorkloadOp op;
            op.kind = send ? WorkloadOpKind::SEND : WorkloadOpKind::RECV;
            op.peer = peer;
            op.bytes = static_cast<uint64_t>(stageBytes);
            op.name = name;
            if (send && any)
            {
                op.deps.push_back(last); // what it sends; nothing waits for it but its peer
            }
            // A receive waits for nothing of its own rank: posted as soon as listed.
            ops.push_back(op);
            return static_cast<uint32_t>(ops.size() - 1);
        };
        // A dispatch (or a combine) of the layer's tokens over the EP group.
        auto moeAllToAll = [&](uint32_t index, bool combine, const std::string& name)
        {
            WorkloadOp op;
            op.kind = WorkloadOpKind::COLLECTIVE;
            op.collective = CollectiveType::ALL_TO_ALL;
            op.group = epGroup;
            op.moe = index + 1;
            op.combine = combine;
            op.bytes = static_cast<uint64_t>(a * Tr * h); // the rank's own tokens
            op.name = name;
            add(op);
        };
        // The MLP of a layer: dense (TP), or the experts (EP, ETP = TP), forward or backward
        // (x2).
        auto mlpBlock = [&](uint32_t layer, const std::string& at, double scale)
        {
            if (!model.IsMoeLayer(layer))
            {
                tpBlock(at + "-mlp",
                        mlp,
                        scale,
                        scale * mlp.gemmFlops,
                        activationBytes,
                        activationBytes);
                return;
            }
            const bool forward = scale == 1;
            const uint32_t index = config.ep > 1 ? routingFor(layer, r) : 0;
            // The pairs of the rank's TP group: each TP rank routes its own tokens over its
            // own EP group, and the group gathers what its ranks received.
            double pairs = 0;
            for (uint32_t peer : tpRanks)
            {
                pairs += pairsOf(layer, peer);
            }
            const bool shared = spec.sharedExperts > 0 && tp > 1;
            const Block experts = tp > 1 ? expertBlock(pairs, localExperts, Tr)
                                         : expertBlock(pairs + T * spec.sharedExperts,
                                                       localExperts + spec.sharedExperts,
                                                       T);
            // The shared experts first (Megatron-Core's MoELayer computes them before the
            // router and adds their output at the combine); backward, last.
            if (shared && forward)
            {
                tpBlock(at + "-shared",
                        sharedBlock,
                        1,
                        sharedBlock.gemmFlops,
                        activationBytes,
                        activationBytes);
            }
            if (forward)
            {
                compute(at + "-router", gpu.BlockTime(router, config.dtype, 1), router.gemmFlops);
            }
            if (config.ep > 1)
            {
                // Forward: the tokens out; backward: their outputs' gradients, the same way.
                moeAllToAll(index, false, at + "-dispatch");
            }
            if (tp > 1)
            {
                tpCollective(CollectiveType::ALL_GATHER, pairs * a * h, at + "-etp-ag");
            }
            compute(at + "-experts",
                    gpu.BlockTime(experts, config.dtype, scale, !forward),
                    scale * experts.gemmFlops);
            if (tp > 1)
            {
                tpCollective(CollectiveType::REDUCE_SCATTER, pairs * a * h, at + "-etp-rs");
            }
            if (config.ep > 1)
            {
                moeAllToAll(index, true, at + "-combine");
            }
            if (!forward)
            {
                compute(
                    at + "-router", gpu.BlockTime(router, config.dtype, 2), 2 * router.gemmFlops);
            }
            if (shared && !forward)
            {
                tpBlock(at + "-shared",
                        sharedBlock,
                        2,
                        2 * sharedBlock.gemmFlops,
                        activationBytes,
                        activationBytes);
            }
        };
        // A layer's backward pass: recomputation first, from the layer's kept input (its whole
        // forward, or its core attention just before the attention's backward), then the MLP
        // and the attention at twice the forward's FLOPs.
        auto layerBackward = [&](uint32_t layer, const std::string& at)
        {
            if (config.recompute == Recompute::FULL)
            {
                recomputing = true;
                tpBlock(at + "-re-attn",
                        attn,
                        1,
                        attn.gemmFlops + attn.scoreFlops,
                        attnIn,
                        activationBytes,
                        true);
                mlpBlock(layer, at + "-re", 1);
                recomputing = false;
            }
            mlpBlock(layer, at, 2);
            if (config.recompute == Recompute::SELECTIVE)
            {
                recomputing = true;
                blockCompute(at + "-re-core", cores, 1, attn.scoreFlops, true);
                recomputing = false;
            }
            tpBlock(at + "-attn",
                    attn,
                    2,
                    2 * (attn.gemmFlops + attn.scoreFlops),
                    attnIn,
                    activationBytes,
                    true);
        };
        // The multi-token-prediction modules of a micro-batch on the last stage (DeepSeek-V3's,
        // Megatron-Core's --mtp-num-layers): forward after the output layer, each its
        // projection, its layer and the output layer again; backward first, in reverse.
        auto mtpModules = [&](const std::string& mb, bool forward)
        {
            for (uint32_t i = 0; i < spec.mtpLayers; ++i)
            {
                const uint32_t k = forward ? i : spec.mtpLayers - 1 - i;
                const uint32_t layer = spec.layers + k;
                const std::string at = (forward ? "fwd" : "bwd") + mb + "-mtp" + std::to_string(k);
                const double scale = forward ? 1 : 2;
                auto head = [&]()
                {
                    if (forward)
                    {
                        if (sp)
                        {
                            tpCollective(
                                CollectiveType::ALL_GATHER, activationBytes, at + "-out-ag");
                        }
                        compute(
                            at + "-out", gpu.BlockTime(output, config.dtype, 1), output.gemmFlops);
                        return;
                    }
                    const std::vector<uint32_t> again
                        = sp ? regather(activationBytes, at + "-out-wgrad-ag")
                             : std::vector<uint32_t>{};
                    compute(
                        at + "-out", gpu.BlockTime(output, config.dtype, 2), 2 * output.gemmFlops);
                    if (tp > 1)
                    {
                        tpCollective(sp ? CollectiveType::REDUCE_SCATTER
                                        : CollectiveType::ALL_REDUCE,
                                     activationBytes,
                                     at + (sp ? "-out-rs" : "-out-ar"),
                                     again);
                    }
                };
                // The next tokens' embeddings: the vocabulary-parallel lookup sums its TP ranks'
                // (forward; with sequence parallelism its gradient is gathered backward).
                auto embedding = [&]()
                {
                    if (tp > 1 && (forward || sp))
                    {
                        tpCollective(forward ? (sp ? CollectiveType::REDUCE_SCATTER
                                                   : CollectiveType::ALL_REDUCE)
                                             : CollectiveType::ALL_GATHER,
                                     activationBytes,
                                     at + (forward ? (sp ? "-emb-rs" : "-emb-ar") : "-emb-ag"));
                    }
                };
                auto projectionBlock = [&]()
                {
                    tpBlock(at + "-proj",
                            projection,
                            scale,
                            scale * projection.gemmFlops,
                            2 * activationBytes,
                            activationBytes);
                };
                auto attentionBlock = [&]()
                {
                    tpBlock(at + "-attn",
                            attn,
                            scale,
                            scale * (attn.gemmFlops + attn.scoreFlops),
                            attnIn,
                            activationBytes,
                            true);
                };
                if (forward)
                {
                    embedding();
                    projectionBlock();
                    attentionBlock();
                    mlpBlock(layer, at, scale);
                    head();
                    continue;
                }
                head();
                layerBackward(layer, at);
                projectionBlock();
                embedding();
            }
        };
        std::vector<uint32_t> buckets; // this rank's DP and EDP all-reduces
        double bucket = 0;             // gradients waiting for the next bucket
        double expertBucket = 0;       // the experts' gradients waiting for theirs
        // A collective of a layer's parameters (bf16, PARAMETER_BYTES) or gradients over the DP
        // group and, for the experts, the expert-data-parallel group, after an operation (none:
        // in stream order only).
        auto shardCollective = [&](CollectiveType type,
                                   uint32_t layer,
                                   double bytesPerParameter,
                                   const std::string& name,
                                   std::vector<uint32_t> after)
        {
            std::vector<uint32_t> made;
            for (const bool experts : {false, true})
            {
                const uint32_t group = experts ? edpGroup : dpGroup;
                const double parameters = experts ? expertShare(layer) : denseShare(layer);
                if (group == 0 || parameters <= 0)
                {
                    continue;
                }
                WorkloadOp op;
                op.kind = WorkloadOpKind::COLLECTIVE;
                op.collective = type;
                op.group = group;
                op.bytes = static_cast<uint64_t>(parameters * bytesPerParameter);
                op.name = name + (experts ? "-experts" : "");
                op.deps = after;
                ops.push_back(op);
                made.push_back(static_cast<uint32_t>(ops.size() - 1));
            }
            return made;
        };
        // Each layer's parameter gathers a pass waits for (FSDP; the distributed optimizer's
        // at the step's start), by layer.
        std::vector<std::vector<uint32_t>> gathered(spec.layers);
        auto gather = [&](uint32_t layer, const std::string& name, bool afterLast)
        {
            gathered[layer] = shardCollective(CollectiveType::ALL_GATHER,
                                              layer,
                                              PARAMETER_BYTES,
                                              name,
                                              afterLast && any ? std::vector<uint32_t>{last}
                                                               : std::vector<uint32_t>{});
        };
        if (config.zero == 1)
        {
            // The distributed optimizer's parameter gathers of the step before, overlapping
            // this step's first forward layer by layer (--overlap-param-gather).
            for (uint32_t l = stageFirst[s]; l < stageFirst[s + 1]; ++l)
            {
                gather(l, "param-ag-L" + std::to_string(l), false);
            }
        }
        for (const PipelineOp& po : OneFOneBSchedule::StageOrder(pp, s, static_cast<uint32_t>(m)))
        {
            const std::string mb = std::to_string(po.microbatch);
            if (po.forward)
            {
                if (s > 0)
                {
                    const uint32_t recv = p2p(false, layout.RankOf(prev), "recv-act" + mb);
                    WorkloadOp wait;
                    wait.kind = WorkloadOpKind::COMPUTE;
                    wait.name = "fwd" + mb + "-in";
                    add(wait, {recv});
                }
                else if (tp > 1)
                {
                    if (config.zero == 3)
                    {
                        // FSDP: the embedding (with the first layer) gathered first.
                        gather(stageFirst[s],
                               "fwd" + mb + "-L" + std::to_string(stageFirst[s]) + "-param-ag",
                               true);
                        nextDeps = gathered[stageFirst[s]];
                    }
                    else if (config.zero == 1 && po.microbatch == 0)
                    {
                        nextDeps = gathered[stageFirst[s]]; // the embedding's gather
                    }
                    // The vocabulary-parallel embedding sums its ranks' lookups.
                    tpCollective(sp ? CollectiveType::REDUCE_SCATTER : CollectiveType::ALL_REDUCE,
                                 activationBytes,
                                 "fwd" + mb + (sp ? "-emb-rs" : "-emb-ar"));
                }
                for (uint32_t l = stageFirst[s]; l < stageFirst[s + 1]; ++l)
                {
                    const std::string at = "fwd" + mb + "-L" + std::to_string(l);
                    if (config.zero == 3)
                    {
                        // FSDP: the layer's parameters gathered (the first layer's now, each
                        // next one's as this one starts: one layer ahead).
                        if (l == stageFirst[s] && !(s == 0 && tp > 1)) // (else gathered above)
                        {
                            gather(l, at + "-param-ag", true);
                        }
                        const std::vector<uint32_t> own = gathered[l];
                        if (l + 1 < stageFirst[s + 1])
                        {
                            gather(l + 1,
                                   "fwd" + mb + "-L" + std::to_string(l + 1) + "-param-ag",
                                   true);
                        }
                        nextDeps = own;
                    }
                    else if (config.zero == 1 && po.microbatch == 0)
                    {
                        nextDeps = gathered[l];
                    }
                    tpBlock(at + "-attn",
                            attn,
                            1,
                            attn.gemmFlops + attn.scoreFlops,
                            attnIn,
                            activationBytes,
                            true);
                    mlpBlock(l, at, 1);
                }
                if (s + 1 == pp)
                {
                    if (sp)
                    {
                        // The vocabulary-parallel output layer takes every token.
                        tpCollective(
                            CollectiveType::ALL_GATHER, activationBytes, "fwd" + mb + "-out-ag");
                    }
                    compute("fwd" + mb + "-out",
                            gpu.BlockTime(output, config.dtype, 1),
                            output.gemmFlops);
                    mtpModules(mb, true);
                }
                else
                {
                    p2p(true, layout.RankOf(next), "send-act" + mb);
                }
                continue;
            }
            if (s + 1 < pp)
            {
                const uint32_t recv = p2p(false, layout.RankOf(next), "recv-grad" + mb);
                WorkloadOp wait;
                wait.kind = WorkloadOpKind::COMPUTE;
                wait.name = "bwd" + mb + "-in";
                add(wait, {recv});
            }
            else
            {
                if (config.zero == 3)
                {
                    // FSDP: the output layer (with the top layer) gathered first.
                    gather(top, "bwd" + mb + "-L" + std::to_string(top) + "-param-ag", true);
                    nextDeps = gathered[top];
                }
                mtpModules(mb, false);
                const std::vector<uint32_t> again
                    = sp ? regather(activationBytes, "bwd" + mb + "-out-wgrad-ag")
                         : std::vector<uint32_t>{};
                compute("bwd" + mb + "-out",
                        gpu.BlockTime(output, config.dtype, 2),
                        2 * output.gemmFlops);
                if (tp > 1)
                {
                    // Its input's gradient summed over the TP ranks (each holds a slice of
                    // the vocabulary).
                    tpCollective(sp ? CollectiveType::REDUCE_SCATTER : CollectiveType::ALL_REDUCE,
                                 activationBytes,
                                 "bwd" + mb + (sp ? "-out-rs" : "-out-ar"),
                                 again);
                }
            }
            const bool lastMicroBatch = po.microbatch + 1 == m;
            for (uint32_t k = stageFirst[s + 1] - stageFirst[s]; k-- > 0;)
            {
                const uint32_t layer = stageFirst[s] + k;
                const std::string at = "bwd" + mb + "-L" + std::to_string(layer);
                if (config.zero == 3)
                {
                    // FSDP: the parameters gathered again (one layer ahead, downwards).
                    if (layer + 1 == stageFirst[s + 1] && s + 1 < pp) // (else gathered above)
                    {
                        gather(layer, at + "-param-ag", true);
                    }
                    const std::vector<uint32_t> own = gathered[layer];
                    if (layer > stageFirst[s])
                    {
                        gather(layer - 1,
                               "bwd" + mb + "-L" + std::to_string(layer - 1) + "-param-ag",
                               true);
                    }
                    nextDeps = own;
                }
                layerBackward(layer, at);
                // Gradients, once the last micro-batch is done with the layer: the experts'
                // over their expert-data-parallel group, the rest over the DP group.
                if (config.zero == 3)
                {
                    // FSDP: this micro-batch's gradients of the layer, reduce-scattered to
                    // their shards at once (no unsharded gradients are kept).
                    for (uint32_t op : shardCollective(CollectiveType::REDUCE_SCATTER,
                                                       layer,
                                                       static_cast<double>(config.gradientBytes),
                                                       at + "-grad-rs",
                                                       {last}))
                    {
                        buckets.push_back(op);
                    }
                    continue;
                }
                // The distributed optimizer reduce-scatters the buckets DDP all-reduces.
                const bool scatter = config.zero == 1;
                auto reduce = [&](uint32_t group, double parameters, const std::string& name)
                {
                    WorkloadOp ar;
                    ar.kind = WorkloadOpKind::COLLECTIVE;
                    ar.collective
                        = scatter ? CollectiveType::REDUCE_SCATTER : CollectiveType::ALL_REDUCE;
                    ar.group = group;
                    ar.bytes = static_cast<uint64_t>(parameters) * config.gradientBytes;
                    ar.name = name + std::to_string(layer);
                    ar.deps.push_back(last);
                    ops.push_back(ar);
                    buckets.push_back(static_cast<uint32_t>(ops.size() - 1));
                };
                if (lastMicroBatch && edpGroup != 0)
                {
                    expertBucket += expertShare(layer);
                    if (expertBucket >= static_cast<double>(config.bucketParameters)
                        || (k == 0 && expertBucket > 0))
                    {
                        reduce(edpGroup,
                               expertBucket,
                               scatter ? "expert-grad-rs-L" : "expert-grad-ar-L");
                        expertBucket = 0;
                    }
                }
                if (lastMicroBatch && dp * cp > 1)
                {
                    bucket += rankParameters(layer) - rankExpertParameters(layer);
                    const bool stageEnd = k == 0;
                    if (bucket >= static_cast<double>(config.bucketParameters) || stageEnd)
                    {
                        if (stageEnd)
                        {
                            bucket += static_cast<double>(s == 0 ? model.EmbeddingParameters() : 0)
                                      / tp;
                            bucket
                                += static_cast<double>(s + 1 == pp ? model.OutputParameters() : 0)
                                       / tp
                                   + mtpDense;
                        }
                        reduce(dpGroup, bucket, scatter ? "grad-rs-L" : "grad-ar-L");
                        bucket = 0;
                    }
                }
            }
            if (s > 0)
            {
                p2p(true, layout.RankOf(prev), "send-grad" + mb);
            }
            else if (sp)
            {
                // The embedding's reduce-scatter, backward: its output's gradient gathered.
                tpCollective(CollectiveType::ALL_GATHER, activationBytes, "bwd" + mb + "-emb-ag");
            }
        }
        // With sequence parallelism each TP rank computed the gradients of the weights it
        // holds whole (routers, latent down-projections) on its own tokens: Megatron-Core
        // all-reduces them over the TP group before the optimizer.
        double replicated = 0;
        for (uint32_t l = stageFirst[s]; l < stageFirst[s + 1]; ++l)
        {
            replicated += replicatedParameters(l);
        }
        for (uint32_t k = 0; lastStage && k < spec.mtpLayers; ++k)
        {
            replicated += replicatedParameters(spec.layers + k);
        }
        if (sp && replicated > 0)
        {
            WorkloadOp ar;
            ar.kind = WorkloadOpKind::COLLECTIVE;
            ar.collective = CollectiveType::ALL_REDUCE;
            ar.group = tpGroup;
            ar.bytes = static_cast<uint64_t>(replicated) * config.gradientBytes;
            ar.name = "tp-grad-ar";
            ar.deps.push_back(last);
            ops.push_back(ar);
            buckets.push_back(static_cast<uint32_t>(ops.size() - 1));
        }
        // The optimizer, after every gradient is reduced: on the rank's whole share, or with
        // sharding (the distributed optimizer, FSDP) on its shard of it.
        double parameters = 0;
        for (uint32_t l = stageFirst[s]; l < stageFirst[s + 1]; ++l)
        {
            const double experts = expertShare(l);
            const double dense = denseShare(l);
            parameters += config.zero == 0 ? dense + experts
                                           : dense / (static_cast<double>(dp) * cp)
                                                 + experts / static_cast<double>(edpRanks.size());
        }
        WorkloadOp step;
        step.kind = WorkloadOpKind::COMPUTE;
        step.name = "optimizer";
        step.duration = gpu.KernelTime(0, OPTIMIZER_BYTES_PER_PARAMETER * parameters, config.dtype);
        add(step, buckets);
    }
    if (!w.Check(error))
    {
        return false;
    }
    workload = std::move(w);
    return true;
}

} // namespace ns3
