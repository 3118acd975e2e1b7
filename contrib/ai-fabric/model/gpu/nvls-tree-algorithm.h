/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLS_TREE_ALGORITHM_H
#define NVLS_TREE_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's NVLSTree all-reduce on servers of g GPUs with NVLS: the NVSwitch reduces
 *        inside each server, a double binary tree joins the servers, the NVSwitch multicasts
 *        the result inside each server.
 *
 * Ranks are server-major. The buffer is split in two halves, one per tree, each moved in
 * chunk-sized pieces. For piece k of tree t, the g GPUs of every server contribute to an NVLS
 * reduction delivered to the server's head (local GPU (channel + t) mod g: one rail per tree
 * and channel); the heads reduce up tree t of the double binary tree over the servers and
 * broadcast the sum down it, over their NICs; each head then stores the piece to its server's
 * multicast address, which the switches copy to the server's GPUs. A GPU contributes to piece
 * k once the multicast of piece k - PiecesInFlight has reached it. Every GPU of a server must
 * be GPU 0, 1, ... of its NVLink domain, in rank order.
 *
 * Its schedule gives every GPU, per channel and tree, a stream of contributions to its
 * server's reduction and a stream of the multicasts it receives; a head also sends up and down
 * the tree and multicasts. It holds the tree over the servers: O(servers x channels).
 */
class NvlsTreeAlgorithm : public CollectiveAlgorithm
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
    void Configure(uint32_t nRanks, const CollectiveSystem& system) override;

  protected:
    Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t channels,
                                       uint64_t chunkBytes) const override;

  private:
    uint32_t m_gpusPerServer{0}; //!< GpusPerServer (0: one server)
    uint32_t m_window{8};        //!< PiecesInFlight
};

} // namespace ns3

#endif /* NVLS_TREE_ALGORITHM_H */
