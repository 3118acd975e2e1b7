/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_PLAN_H
#define COLLECTIVE_PLAN_H

#include "collective-schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A collective listed as every transfer and its dependencies.
 *
 * A plan lists every transfer of every rank, with the transfers each waits for: a dependency
 * always names a transfer whose destination is the dependent transfer's source. It is what
 * tests check (bytes per rank, per step, per link) and what an algorithm without its own
 * schedule builds. As a schedule, each transfer is a stream of its own: it starts as soon as
 * every transfer it depends on has arrived at its source (and been reduced). A plan
 * materialized from a CollectiveSchedule runs that schedule. The plan is immutable once
 * finalized and shared by all ranks. Its memory is O(transfers): a ring all-reduce on n ranks
 * lists 2n(n-1) transfers per channel and piece, so large runs use schedules.
 */
class CollectivePlan : public CollectiveSchedule
{
  public:
    /**
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the collective's size as nccl-tests reports it (the whole buffer for
     *        all-reduce and broadcast; the whole gathered array for all-gather and
     *        reduce-scatter; the whole send buffer of one rank for all-to-all)
     * \param algorithm name of the algorithm that built it
     */
    CollectivePlan(CollectiveType type, uint32_t nRanks, uint64_t bytes, std::string algorithm);

    /**
     * \brief Add a transfer.
     * \param src sending rank
     * \param dst receiving rank
     * \param channel channel
     * \param bytes payload bytes
     * \param step algorithm step
     * \param reduce the receiver reduces the data
     * \param deps transfers (ids) that must have arrived at src first
     * \return the transfer's id
     */
    uint32_t AddTransfer(uint32_t src,
                         uint32_t dst,
                         uint32_t channel,
                         uint64_t bytes,
                         uint32_t step,
                         bool reduce,
                         const std::vector<uint32_t>& deps);

    /**
     * \brief Add an NVLS reduction: every rank's contribution of bytes, reduced by the
     *        NVSwitch and delivered once to dst; transfer r of the group comes from rank r.
     * \param dst the rank that receives the reduction
     * \param channel channel
     * \param bytes payload bytes
     * \param step algorithm step
     * \param deps for each rank of the group, transfers that must have arrived at it before
     *        it contributes (empty: none)
     * \param firstRank the group's first rank (its ranks are consecutive; default 0)
     * \param count the group's ranks (0, the default: from firstRank to the last rank)
     * \return the group's first transfer id
     */
    uint32_t AddNvlsReduce(uint32_t dst,
                           uint32_t channel,
                           uint64_t bytes,
                           uint32_t step,
                           const std::vector<std::vector<uint32_t>>& deps,
                           uint32_t firstRank = 0,
                           uint32_t count = 0);

    /**
     * \brief Add an NVLS multicast of bytes from src to every rank (src included); transfer r
     *        of the group goes to rank r.
     * \param src sending rank
     * \param channel channel
     * \param bytes payload bytes
     * \param step algorithm step
     * \param deps transfers that must have arrived at src first
     * \param firstRank the group's first rank (its ranks are consecutive; default 0)
     * \param count the group's ranks (0, the default: from firstRank to the last rank)
     * \return the group's first transfer id
     */
    uint32_t AddNvlsMulticast(uint32_t src,
                              uint32_t channel,
                              uint64_t bytes,
                              uint32_t step,
                              const std::vector<uint32_t>& deps,
                              uint32_t firstRank = 0,
                              uint32_t count = 0);

    /// Build the per-rank indices; checks every dependency. No transfer can be added after.
    void Finalize();

    /**
     * \brief A point-to-point transfer as a plan of two ranks: rank 0 writes bytes to rank 1,
     *        in pieces of at most 1 GiB (an RDMA write moves less than 2 GiB), one after
     *        another on channel 0.
     * \param bytes the bytes (0: one empty message)
     * \param name the plan's algorithm name
     * \return the finalized plan
     */
    static Ptr<CollectivePlan> PointToPoint(uint64_t bytes, std::string name);

    /**
     * \brief Run this schedule when the plan runs (a plan materialized from it).
     * \param source the schedule
     */
    void SetSource(Ptr<const CollectiveSchedule> source);

    uint32_t GetNChannels() const override;
    uint32_t GetNSteps() const override;
    uint32_t GetNSendStreams(uint32_t rank) const override;
    uint64_t GetSendLength(uint32_t rank, uint32_t stream) const override;
    void GetSend(uint32_t rank,
                 uint32_t stream,
                 uint64_t index,
                 ScheduleMessage& message) const override;
    uint32_t GetNRecvStreams(uint32_t rank) const override;
    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override;
    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override;
    void GetRecv(uint32_t rank,
                 uint32_t stream,
                 uint64_t index,
                 CollectiveTransfer& transfer) const override;
    std::pair<uint32_t, uint32_t> LocateRecv(uint32_t rank, uint32_t code) const override;
    uint32_t GetTagIndexBits(uint32_t reservedBits = 0) const override;
    uint32_t GetTagCodes() const override;
    std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const override;
    uint64_t GetMemoryBytes() const override;
    Ptr<CollectivePlan> Materialize() const override;

    /// \return the number of transfers
    uint32_t GetNTransfers() const;
    /**
     * \param id a transfer id
     * \return the transfer
     */
    const CollectiveTransfer& GetTransfer(uint32_t id) const;
    /**
     * \param id a transfer id
     * \return the transfers it depends on
     */
    std::vector<uint32_t> GetDependencies(uint32_t id) const;
    /**
     * \param id a transfer id
     * \return the transfers that depend on it (they start at its destination)
     */
    const std::vector<uint32_t>& GetDependents(uint32_t id) const;
    /**
     * \param rank a rank
     * \return the ids of the transfers it sends, in id order
     */
    const std::vector<uint32_t>& GetSends(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return the ids of the transfers it receives, in id order
     */
    const std::vector<uint32_t>& GetReceives(uint32_t rank) const;
    /**
     * \param id a transfer id
     * \return its position in its source's send list
     */
    uint32_t GetSendIndex(uint32_t id) const;

    /**
     * \param rank a rank
     * \return payload bytes it sends in the whole collective
     */
    uint64_t GetBytesSent(uint32_t rank) const override;
    /**
     * \param rank a rank
     * \return payload bytes it receives in the whole collective
     */
    uint64_t GetBytesReceived(uint32_t rank) const override;

  private:
    /**
     * \brief Add a transfer of any kind (checked: ranks, dependencies).
     * \param src sending rank
     * \param dst receiving rank
     * \param channel channel
     * \param bytes payload bytes
     * \param step algorithm step
     * \param reduce the receiver reduces the data
     * \param deps transfers that must have arrived at src first
     * \return the transfer's id
     */
    uint32_t Add(uint32_t src,
                 uint32_t dst,
                 uint32_t channel,
                 uint64_t bytes,
                 uint32_t step,
                 bool reduce,
                 const std::vector<uint32_t>& deps);

    Ptr<const CollectiveSchedule> m_source;          //!< the schedule it lists (or null)
    uint32_t m_nChannels{0};                         //!< channels used
    uint32_t m_nSteps{0};                            //!< steps used
    bool m_finalized{false};                         //!< no more transfers
    std::vector<CollectiveTransfer> m_transfers;     //!< by id
    std::vector<uint32_t> m_deps;                    //!< dependency lists, concatenated
    std::vector<std::vector<uint32_t>> m_dependents; //!< by id
    std::vector<std::vector<uint32_t>> m_sends;      //!< by rank
    std::vector<std::vector<uint32_t>> m_receives;   //!< by rank
    std::vector<uint32_t> m_sendIndex;               //!< by id
    std::vector<uint32_t> m_recvIndex;               //!< by id: position in dst's receives
};

} // namespace ns3

#endif /* COLLECTIVE_PLAN_H */
