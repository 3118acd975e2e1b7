/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TRAINING_STEP_COSTS_H
#define TRAINING_STEP_COSTS_H

#include "gpu-compute-model.h"
#include "parallel-layout.h"
#include "training-workload.h"
#include "transformer-model.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What a training step is made of, before its operations are generated
 *        (TrainingWorkload::Make): the configuration checked, the ranks laid out, the layers
 *        split into stages, and what one layer's blocks cost a rank per micro-batch, forward
 *        (their FLOPs and memory traffic, with tensor, sequence and context parallelism
 *        applied), with the bytes its collectives and transfers carry.
 */
class TrainingStepCosts
{
  public:
    /// \param spec the model
    explicit TrainingStepCosts(const TransformerSpec& spec);

    /**
     * \param config the step (its model must be the one given to the constructor)
     * \param gpus GPUs
     * \param gpu the compute model
     * \param costs filled
     * \param error set to why not (one line) when it returns false
     * \return false if the configuration does not fit
     */
    static bool Make(const TrainingConfig& config,
                     uint32_t gpus,
                     const GpuComputeModel& gpu,
                     TrainingStepCosts& costs,
                     std::string& error);

    /**
     * \param pairs (token, expert) pairs the rank's experts compute (shared experts' included)
     * \param experts experts whose weights it reads
     * \param residualTokens tokens of the residual add
     * \return the rank's share of the experts' block (split over the TP group, ETP = TP)
     */
    GpuComputeModel::BlockCost ExpertBlock(double pairs,
                                           double experts,
                                           double residualTokens) const;
    /// \param layer a layer \return its weights every TP rank holds whole (router, latent
    /// down-projections)
    double ReplicatedParameters(uint32_t layer) const;
    /// \param layer a layer \return a rank's share of its parameters (experts split over the
    /// EP group, all but the replicated weights over the TP group)
    double RankParameters(uint32_t layer) const;
    /// \param layer a layer \return a rank's share of its experts' parameters
    double RankExpertParameters(uint32_t layer) const;

    TransformerModel model;            //!< the model
    ParallelLayout layout;             //!< the ranks
    std::vector<uint32_t> stageFirst;  //!< by stage: its first layer (stage pp: the layers)
    bool moe{false};                   //!< a mixture of experts
    bool mla{false};                   //!< multi-head latent attention
    bool sp{false};                    //!< sequence parallelism (at tp > 1)
    uint32_t tp{1};                    //!< tensor-parallel size
    uint32_t pp{1};                    //!< pipeline stages
    uint32_t cp{1};                    //!< context-parallel size
    uint32_t dp{1};                    //!< data-parallel size
    uint64_t seq{0};                   //!< sequence length
    uint64_t microBatches{0};          //!< per pipeline
    double e{0};                       //!< bytes of a weight (the compute's data type)
    double a{0};                       //!< bytes of an activation
    double T{0};                       //!< a rank's tokens of a micro-batch (1/cp of each sequence)
    double Tr{0};                      //!< those outside the split GEMMs (T / tp with SP)
    double h{0};                       //!< hidden size
    double gates{1};                   //!< MLP input matrices (2: SwiGLU)
    double activationBytes{0};         //!< T x hidden activations
    double stageBytes{0};              //!< what a stage sends the next
    double attnIn{0};                  //!< what attention's input gather carries
    double kvBlockBytes{0};            //!< a ring-attention step's keys and values
    double localExperts{0};            //!< experts per EP rank
    double expertWeights{0};           //!< weights of one expert
    double expertFfn{0};               //!< an expert's inner dimension
    GpuComputeModel::BlockCost attn;   //!< a layer's attention
    GpuComputeModel::BlockCost cores;  //!< its score products alone (selective recompute)
    GpuComputeModel::BlockCost mlp;    //!< a dense MLP
    GpuComputeModel::BlockCost output; //!< the output layer
    GpuComputeModel::BlockCost projection; //!< a multi-token-prediction module's projection
    GpuComputeModel::BlockCost router;     //!< a MoE layer's router
    GpuComputeModel::BlockCost shared;     //!< the shared experts at tp > 1
};

} // namespace ns3

#endif /* TRAINING_STEP_COSTS_H */
