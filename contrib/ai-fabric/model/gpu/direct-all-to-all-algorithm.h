/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef DIRECT_ALL_TO_ALL_ALGORITHM_H
#define DIRECT_ALL_TO_ALL_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief All-to-all as NCCL runs it: every rank posts its sends to all peers at once (a group
 * of point-to-point sends), with no order between them; the fabric and the NIC's QP scheduler
 * decide what moves first.
 *
 * The buffer (one rank's whole send buffer, as nccl-tests counts it) is cut into n parts;
 * part p goes to rank p, in chunk-sized pieces. Step s numbers the peer at distance s + 1
 * ((r + s + 1) mod n), for per-step accounting only: nothing waits on anything.
 */
class DirectAllToAllAlgorithm : public CollectiveAlgorithm
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

#endif /* DIRECT_ALL_TO_ALL_ALGORITHM_H */
