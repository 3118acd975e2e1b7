/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef HIERARCHICAL_ALGORITHM_H
#define HIERARCHICAL_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Hierarchical all-reduce on servers of g GPUs: reduce-scatter inside each server,
 *        all-reduce across servers between the GPUs that own the same part, all-gather
 *        inside each server.
 *
 * Ranks are server-major (rank = server x g + local). The buffer is split into g parts, each
 * moved in chunk-sized pieces. Inside a server the GPUs form a ring (local order rotated by
 * the channel, so channels spread the parts' owners over the rails): piece k of part j is
 * reduced along a chain of g - 1 hops that ends at the part's owner. The owners of part j in
 * the N servers (the same local GPU, so one rail) then run a ring all-reduce on each piece,
 * split into N sub-parts; once every sub-part of the piece is complete at an owner, a chain
 * of g - 1 hops copies the piece to the other GPUs of its server. Each piece moves through
 * the three phases on its own, so the phases overlap. Per GPU: 2 (g - 1) / g S over NVLink
 * and 2 (N - 1) / (N g) S through its NIC, every NIC carrying a 1 / g share.
 */
class HierarchicalAlgorithm : public CollectiveAlgorithm
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
    void Configure(uint32_t nRanks, const CollectiveSystem& system) override;

  protected:
    void DoBuild(CollectivePlan& plan,
                 uint32_t channel,
                 uint64_t bytes,
                 uint64_t chunkBytes) const override;

  private:
    uint32_t m_gpusPerServer{0}; //!< GpusPerServer (0: one server)
};

} // namespace ns3

#endif /* HIERARCHICAL_ALGORITHM_H */
