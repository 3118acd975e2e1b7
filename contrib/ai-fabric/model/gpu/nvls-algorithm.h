/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLS_ALGORITHM_H
#define NVLS_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's NVLS all-reduce inside one NVLink domain: the NVSwitch reduces and multicasts.
 *
 * The buffer is split into one slice per rank, moved in pieces of the chunk size. For piece k
 * of the slice of rank o, every rank contributes its piece to the switch's reduction (NCCL's
 * multimem.ld_reduce, issued by o), the switch delivers the sum to o once, and o stores it to
 * the multicast address (multimem.st), which the switch copies to every rank. Each rank thus
 * sends S (its contributions) plus S / n (its slices' results) and receives S / n plus S
 * through its NVLinks: an all-reduce of S bytes on links of bandwidth B takes
 * S (n + 1) / n / B, and nccl-tests' busbw is 2 (n - 1) / (n + 1) B. A rank contributes to piece
 * k of a slice once the multicast of piece k - PiecesInFlight of that slice has reached it
 * (NCCL's NVLS kernel pipelines its chunks). Every rank must be rank r on
 * GPU r of one NVLink domain whose NVSwitch chips have NVLS.
 */
class NvlsAlgorithm : public CollectiveAlgorithm
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
    bool FitsSystem(const CollectiveSystem& system) const override;
    bool SupportsProtocol(NcclProtocol protocol) const override;

  protected:
    void DoBuild(CollectivePlan& plan,
                 uint32_t channel,
                 uint64_t bytes,
                 uint64_t chunkBytes) const override;

  private:
    uint32_t m_window{8}; //!< PiecesInFlight
};

} // namespace ns3

#endif /* NVLS_ALGORITHM_H */
