/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PAIRWISE_ALL_TO_ALL_ALGORITHM_H
#define PAIRWISE_ALL_TO_ALL_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief All-to-all by pairwise exchange, in n-1 steps, as MPICH's pairwise algorithm
 * (Thakur, Rabenseifner and Gropp, "Optimization of collective communication operations in
 * MPICH", IJHPCA 19(1), 2005).
 *
 * The buffer (one rank's whole send buffer, as nccl-tests counts it) is cut into n parts
 * (Split()); part p goes to rank p. At step s - 1 (s = 1 .. n-1) rank r sends part (r+s) mod n
 * to rank (r+s) mod n and receives from (r-s) mod n, in pieces of at most the chunk size.
 * Every piece a rank sends at a step depends on every transfer that arrived at it in the
 * previous step (from (r-s+1) mod n), so the ranks move through the steps pairwise as MPI's
 * sendrecv loop does; unlike MPI, a rank does not also wait for its own previous send to
 * complete (the plan only has arrival dependencies). Each rank sends (n-1)/n of its buffer,
 * one part per step; in the latency regime the time is (n-1) hop latencies, against one for
 * DirectAllToAllAlgorithm, which posts all sends at once.
 */
class PairwiseAllToAllAlgorithm : public CollectiveAlgorithm
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
    void DoBuild(CollectivePlan& plan,
                 uint32_t channel,
                 uint64_t bytes,
                 uint64_t chunkBytes) const override;
};

} // namespace ns3

#endif /* PAIRWISE_ALL_TO_ALL_ALGORITHM_H */
