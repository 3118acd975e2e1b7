/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PIPELINE_SCHEDULE_H
#define PIPELINE_SCHEDULE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One step of a pipeline stage: a micro-batch's forward or backward pass.
 */
struct PipelineOp
{
    bool forward{true};     //!< forward (else backward)
    uint32_t microbatch{0}; //!< the micro-batch
};

/**
 * \ingroup ai-fabric
 * \brief The one-forward-one-backward (1F1B) pipeline schedule of Megatron-LM (PipeDream-Flush,
 * Narayanan et al., SC21, section 2.2): each stage runs a few forward passes to fill the
 * pipeline, then alternates a forward and a backward, then drains the backwards.
 *
 * Stage s of p (0 first) with m micro-batches runs min(p - s - 1, m) warm-up forwards, then
 * m - warm-up pairs of (forward, backward), then the warm-up's backwards. A forward of
 * micro-batch i on stage s needs its forward on stage s - 1; a backward needs its backward on
 * stage s + 1 (the last stage's, its own forward). With every stage taking f per forward and b
 * per backward and nothing between stages, a step lasts (m + p - 1)(f + b): each stage is idle
 * (p - 1)(f + b) of it, the bubble fraction (p - 1) / (m + p - 1).
 */
class OneFOneBSchedule
{
  public:
    /**
     * \param stages pipeline stages p
     * \param stage this stage s (0 .. p - 1)
     * \param microbatches micro-batches m
     * \return the stage's operations in order
     */
    static std::vector<PipelineOp> StageOrder(uint32_t stages,
                                              uint32_t stage,
                                              uint32_t microbatches);

    /// A step's timing, with every stage's passes of fixed length.
    struct Timing
    {
        double makespan{0};       //!< from the first forward to the last backward
        double busyPerStage{0};   //!< one stage's compute: m (f + b)
        double bubbleFraction{0}; //!< 1 - busy / makespan (every stage is busy as long)
    };

    /**
     * \brief Run the schedule with fixed pass times: each stage runs its operations in order,
     *        each as soon as the stage is free and its input (an activation or a gradient from
     *        the next stage) has arrived.
     * \param stages p
     * \param microbatches m
     * \param forward one forward pass on one stage (s)
     * \param backward one backward pass on one stage (s)
     * \param transfer time from a pass's end to its result's arrival at the neighbour stage
     * \return the timing
     */
    static Timing Evaluate(uint32_t stages,
                           uint32_t microbatches,
                           double forward,
                           double backward,
                           double transfer = 0);
};

} // namespace ns3

#endif /* PIPELINE_SCHEDULE_H */
