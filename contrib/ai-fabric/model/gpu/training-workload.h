/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TRAINING_WORKLOAD_H
#define TRAINING_WORKLOAD_H

#include "gpu-compute-model.h"
#include "moe-all-to-all.h"
#include "parallel-layout.h"
#include "transformer-model.h"
#include "workload.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Activation recomputation (Megatron-LM's --recompute-granularity): what the backward pass
 * computes again of the forward.
 */
enum class Recompute
{
    NONE,      //!< nothing: every activation kept
    SELECTIVE, //!< the core attention (the score products), before each layer's backward
    FULL,      //!< each layer's whole forward, before its backward (--recompute-method uniform)
};

/**
 * \param r a granularity
 * \return its name: none, selective or full
 */
const char* RecomputeName(Recompute r);

/**
 * \param name none, selective or full
 * \param r set to the granularity
 * \return false if the name is none of them
 */
bool ParseRecompute(const std::string& name, Recompute& r);

/**
 * \ingroup ai-fabric
 * A training step's configuration: the model, its parallelism and its batch.
 */
struct TrainingConfig
{
    TransformerSpec model;   //!< the model's shape
    uint32_t tp{1};          //!< tensor-parallel size
    uint32_t pp{1};          //!< pipeline stages
    uint32_t cp{1};          //!< context-parallel size (each sequence split over cp ranks)
    uint32_t microBatch{1};  //!< sequences per micro-batch
    uint64_t globalBatch{0}; //!< sequences per step (0: one micro-batch per pipeline)
    uint64_t seqLength{0};   //!< sequence length (0: the model's)
    ComputeDataType dtype{ComputeDataType::BF16}; //!< the compute's data type
    uint64_t bucketParameters{40000000};          //!< gradients per data-parallel all-reduce bucket
    uint32_t ep{1};                               //!< expert-parallel size (MoE models)
    MoeDispatcher dispatcher{MoeDispatcher::FLAT}; //!< how MoE layers move their tokens
    uint32_t gpusPerServer{0};  //!< GPUs per server, for the MoE relays (0: one server)
    double dispatchCopyRate{0}; //!< DeepEP: MoeLayer::dispatchCopyRate (0: not costed)
    double combineCopyRate{0};  //!< DeepEP: MoeLayer::combineCopyRate (0: not costed)
    /// the random stream the MoE routings are drawn from (the multi-token-prediction layers'
    /// from the next one)
    int64_t moeStream{1 << 20};
    /// Megatron-LM's sequence parallelism (--sequence-parallel): outside the TP-split GEMMs a
    /// TP rank holds 1/tp of the tokens, and each TP all-reduce is a reduce-scatter and an
    /// all-gather. Mixtures of experts at tp > 1 need it, as Megatron-Core does with EP.
    bool sequenceParallel{false};
    /// Layers of the first pipeline stage (0: an even share), as Megatron-Core's
    /// --decoder-first-pipeline-num-layers; the stages between share what is left evenly.
    uint32_t firstStageLayers{0};
    /// Layers of the last pipeline stage (0: an even share; --decoder-last-pipeline-num-layers).
    uint32_t lastStageLayers{0};
    Recompute recompute{Recompute::NONE}; //!< what the backward pass computes again
    /// Data-parallel sharding (ZeRO stage): 0 DDP (gradients all-reduced in buckets); 1
    /// Megatron's distributed optimizer (buckets reduce-scattered, the optimizer on a shard,
    /// parameters all-gathered, overlapping the next forward); 3 FSDP (Megatron-FSDP's
    /// optim_grads_params: each layer's parameters gathered before its forward and again
    /// before its backward, its gradients reduce-scattered every micro-batch).
    uint32_t zero{0};
    /// Bytes of a gradient as it is reduced: 4 (fp32, Megatron-LM's default with BF16, which
    /// sets --accumulate-allreduce-grads-in-fp32) or 2 (BF16: grad_reduce_in_fp32 off, as
    /// Megatron-Bridge's performance recipes run).
    uint32_t gradientBytes{4};
};

/**
 * \ingroup ai-fabric
 * \brief One training step as Megatron-LM runs it, as a Workload: tensor parallelism inside
 * a layer, a 1F1B pipeline over stages, and data parallelism with gradient all-reduces in
 * buckets that overlap the backward pass.
 *
 * Ranks are laid out as ParallelLayout does (TP fastest). Each stage holds consecutive
 * layers, layers / pp of them, or firstStageLayers and lastStageLayers on the first and last
 * stages and the rest evenly between (the first also holds the embedding, the last the output
 * layer). Per
 * micro-batch of T = microBatch x seq tokens and per layer, a TP rank runs the forward as
 * Megatron's column- and row-parallel layers do: attention (its share of the QKV and output
 * GEMMs and of the heads' score products, with the layer norm and residual traffic), a TP
 * all-reduce of the T x hidden activations, the MLP (its share of the GEMMs, with the
 * activation's and the other norm's traffic), another TP all-reduce; the backward pass runs the
 * MLP then the attention at twice the forward's FLOPs and memory traffic, each followed by its
 * TP all-reduce. Stages exchange T x hidden activations (and their gradients) by send and
 * receive in 1F1B order (OneFOneBSchedule). After a layer's backward pass of the last
 * micro-batch its gradients join a bucket; a bucket of bucketParameters (Megatron-LM's default
 * 40 M, fp32 gradients) is all-reduced over the DP group at once, beside the rest of the
 * backward pass. The step ends with the optimizer (Adam with fp32 master weights: 30 bytes of
 * memory traffic per parameter). Kernel times come from GpuComputeModel. Each compute
 * operation's model FLOPs are kept in WorkloadOp::flops (the GEMMs and score products): their
 * sum over the ranks is TransformerModel::TrainingStepFlops() of the global batch. With FP8
 * the GEMMs run in FP8 and the attention's score products in BF16, as Transformer Engine's FP8
 * recipes do by default.
 *
 * With context parallelism (cp > 1) each rank holds 1/cp of every sequence (its queries), its
 * attention is Megatron-Core's ring attention (the keys and values of the other CP ranks' tokens
 * passed around the CP ring beside cp parts of the compute; backward with their gradients),
 * and the dense gradients are all-reduced over the DP x CP ranks.
 *
 * With activation recomputation the backward pass of each layer first computes again, with
 * no model FLOPs counted: its core attention (SELECTIVE: the score products, and at cp > 1 their
 * ring), or its whole forward with its collectives (FULL).
 *
 * With sequence parallelism (sequenceParallel) a TP rank holds T / tp tokens outside the
 * split GEMMs: the norms and residuals run on them, each block is an all-gather of the
 * T x hidden activations before it and a reduce-scatter after it, and the backward pass
 * gathers the block's input again for its weight gradients (beside the block's compute) as
 * Megatron-LM does; stages exchange T / tp tokens.
 *
 * Mixture-of-experts layers (EP ranks as ParallelLayout lays them out, inside the DP
 * dimension, the experts split over the TP group as Megatron-Core's default expert tensor
 * parallelism, ETP = TP): after attention, the router's GEMM on the rank's tokens, the
 * dispatch of its tokens to their experts' ranks over the EP group (MoeAllToAll, flat or
 * DeepEP's relayed), at tp > 1 an all-gather over the TP group of the (token, expert) pairs its
 * ranks received, the local experts' share of GEMMs on them, a reduce-scatter back, and the
 * combine; shared experts at tp > 1 run after the combine as a TP-split MLP on the gathered
 * tokens (at tp 1 beside the routed experts); backward, the outputs' gradients travel as a
 * dispatch, the experts run at twice the FLOPs, and the inputs' gradients return as a
 * combine. Tokens travel in the activations' type (BF16 under FP8, as Megatron-Core's
 * dispatchers send them). Each MoE layer of each EP group has one MoeRouting (drawn from
 * moeStream), used by every micro-batch. The experts' gradients are all-reduced over the
 * expert-data-parallel group (its own buckets), the rest over the DP group.
 */
class TrainingWorkload
{
  public:
    /**
     * \param config the step
     * \param gpus GPUs (TP x PP must divide them; DP is the rest)
     * \param gpu the compute model
     * \param workload set to the step's workload
     * \param error set to why not (one line) when it returns false
     * \return false if the configuration does not fit
     */
    static bool Make(const TrainingConfig& config,
                     uint32_t gpus,
                     const GpuComputeModel& gpu,
                     Workload& workload,
                     std::string& error);

    /**
     * \param config the step
     * \param dp the data-parallel size
     * \return the micro-batches each pipeline runs per step
     */
    static uint64_t MicroBatches(const TrainingConfig& config, uint32_t dp);
};

} // namespace ns3

#endif /* TRAINING_WORKLOAD_H */
