/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef CHAIN_BROADCAST_ALGORITHM_H
#define CHAIN_BROADCAST_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Broadcast from rank 0 along a pipelined chain, as NCCL's ring broadcast: the ring
 * opened after its root (0 -> 1 -> ... -> n-1), since the last rank need not send back.
 *
 * Each channel's share of the buffer moves in pieces of at most the chunk size; rank i
 * forwards piece k to rank i+1 as soon as piece k has arrived (nothing is reduced). The
 * transfer from rank i to i+1 belongs to step i (the hop), n-1 steps in all, and every step
 * moves the whole buffer once. Pipelined, the time is about (n - 2 + pieces) piece times
 * plus (n-1) hop latencies in the latency regime; every rank but the last sends the whole
 * buffer once and every rank but the root receives it once (busbw = algbw, nccl-tests).
 *
 * Its schedule gives each rank one send stream (to the next) and one receive stream (from
 * the previous) per channel, and holds only the channels' shares.
 */
class ChainBroadcastAlgorithm : public CollectiveAlgorithm
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

#endif /* CHAIN_BROADCAST_ALGORITHM_H */
