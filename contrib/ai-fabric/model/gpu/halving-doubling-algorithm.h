/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef HALVING_DOUBLING_ALGORITHM_H
#define HALVING_DOUBLING_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Rabenseifner's all-reduce: a recursive-halving reduce-scatter followed by a
 * recursive-doubling all-gather, for any number of ranks.
 *
 * As in Thakur, Rabenseifner and Gropp, "Optimization of collective communication operations
 * in MPICH", IJHPCA 19(1), 2005 (MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather). With
 * p the largest power of two <= n and r = n - p:
 * - pre-step (step 0, only if r > 0): rank 2i+1 (i < r) sends its whole buffer to rank 2i,
 *   which reduces it; the odd ranks then sit out. The p remaining ranks are renumbered: 2i
 *   becomes i (i < r), every rank q >= 2r becomes q - r.
 * - reduce-scatter (log2 p steps, reduced at the receiver): the buffer is cut into p blocks
 *   (Split()); at step s renumbered rank j exchanges with j ^ d, d = p / 2^(s+1): it keeps the
 *   aligned run of d blocks that holds block j and sends the partner's run of d blocks, S /
 *   2^(s+1) bytes. Afterwards rank j holds block j, reduced over all ranks.
 * - all-gather (log2 p steps, no reduction): at step s it sends its aligned run of d = 2^s
 *   blocks to j ^ d and receives the partner's, S / 2^(log2 p - s) bytes.
 * - post-step (only if r > 0): rank 2i sends the whole result to 2i+1.
 *
 * Steps are numbered in this order, 2 log2 p (+ 2 if r > 0) in all. Both directions of an
 * exchange are separate transfers. Each transfer moves in pieces of at most the chunk size,
 * but a step is a barrier for the rank: every piece a rank sends at a step depends on every
 * transfer that arrived at it in the previous step, so pieces do not pipeline across steps
 * (the data a rank sends depends on all of what it received). A rank that received nothing
 * in the previous step (a rank >= 2r after the pre-step) starts at once.
 *
 * Its schedule (a StepSchedule) gives each rank a send and a receive stream per channel and
 * step, and holds only the channels' shares.
 */
class HalvingDoublingAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    std::string GetName() const override;
    bool Supports(CollectiveType type, uint32_t nRanks) const override;
    Time Predict(CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes,
                 const CollectiveSystem& system) const override;

  protected:
    Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t channels,
                                       uint64_t chunkBytes) const override;
};

} // namespace ns3

#endif /* HALVING_DOUBLING_ALGORITHM_H */
