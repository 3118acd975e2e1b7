/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "pipeline-schedule.h"

#include "ns3/abort.h"

#include <algorithm>
#include <limits>

namespace ns3
{

std::vector<PipelineOp>
OneFOneBSchedule::StageOrder(uint32_t stages, uint32_t stage, uint32_t microbatches)
{
    NS_ABORT_MSG_IF(stages == 0 || stage >= stages,
                    "OneFOneBSchedule: stage " << stage << " of " << stages);
    const uint32_t warmup = std::min(stages - stage - 1, microbatches);
    std::vector<PipelineOp> ops;
    ops.reserve(2 * static_cast<std::size_t>(microbatches));
    for (uint32_t i = 0; i < warmup; ++i)
    {
        ops.push_back({true, i});
    }
    for (uint32_t i = 0; i < microbatches - warmup; ++i)
    {
        ops.push_back({true, warmup + i});
        ops.push_back({false, i});
    }
    for (uint32_t i = microbatches - warmup; i < microbatches; ++i)
    {
        ops.push_back({false, i});
    }
    return ops;
}

OneFOneBSchedule::Timing
OneFOneBSchedule::Evaluate(
    uint32_t stages, uint32_t microbatches, double forward, double backward, double transfer)
{
    NS_ABORT_MSG_IF(stages == 0 || microbatches == 0,
                    "OneFOneBSchedule: a pipeline needs stages and micro-batches");
    constexpr double NOT_YET = std::numeric_limits<double>::infinity();
    // When each pass ended: [stage][micro-batch].
    std::vector<std::vector<double>> fEnd(stages, std::vector<double>(microbatches, NOT_YET));
    std::vector<std::vector<double>> bEnd(stages, std::vector<double>(microbatches, NOT_YET));
    std::vector<std::vector<PipelineOp>> order(stages);
    for (uint32_t s = 0; s < stages; ++s)
    {
        order[s] = StageOrder(stages, s, microbatches);
    }
    std::vector<std::size_t> next(stages, 0);
    std::vector<double> free(stages, 0);
    std::size_t left = 2 * static_cast<std::size_t>(stages) * microbatches;
    while (left > 0)
    {
        bool progress = false;
        for (uint32_t s = 0; s < stages; ++s)
        {
            while (next[s] < order[s].size())
            {
                const PipelineOp& op = order[s][next[s]];
                double ready = 0;
                if (op.forward && s > 0)
                {
                    ready = fEnd[s - 1][op.microbatch] + transfer;
                }
                else if (!op.forward)
                {
                    ready = s + 1 < stages ? bEnd[s + 1][op.microbatch] + transfer
                                           : fEnd[s][op.microbatch];
                }
                if (ready == NOT_YET)
                {
                    break; // its input is not there yet
                }
                const double end = std::max(free[s], ready) + (op.forward ? forward : backward);
                (op.forward ? fEnd : bEnd)[s][op.microbatch] = end;
                free[s] = end;
                ++next[s];
                --left;
                progress = true;
            }
        }
        NS_ABORT_MSG_IF(!progress, "OneFOneBSchedule: the schedule cannot proceed");
    }
    Timing t;
    t.makespan = *std::max_element(free.begin(), free.end());
    t.busyPerStage = microbatches * (forward + backward);
    t.bubbleFraction = t.makespan > 0 ? 1 - t.busyPerStage / t.makespan : 0;
    return t;
}

} // namespace ns3
