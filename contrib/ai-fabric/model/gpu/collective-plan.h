/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_PLAN_H
#define COLLECTIVE_PLAN_H

#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collectives of NCCL that ai-fabric runs.
 */
enum class CollectiveType : uint8_t
{
    ALL_REDUCE,     //!< every rank ends with the reduction of all ranks' buffers
    ALL_GATHER,     //!< every rank ends with every rank's piece
    REDUCE_SCATTER, //!< rank r ends with piece r of the reduction
    BROADCAST,      //!< every rank ends with the root's buffer
    ALL_TO_ALL,     //!< rank r sends piece p of its buffer to rank p
};

/**
 * \param type a collective
 * \return its name as on the command line ("allreduce", ...)
 */
const char* CollectiveTypeName(CollectiveType type);

/**
 * \param name a name as on the command line
 * \param type the collective
 * \return false if the name is not a collective
 */
bool ParseCollectiveType(const std::string& name, CollectiveType& type);

/**
 * \brief nccl-tests' bus bandwidth factor: busbw = algbw x factor.
 *
 * all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all (n-1)/n; broadcast 1
 * (nccl-tests doc/PERFORMANCE.md).
 * \param type the collective
 * \param nRanks ranks
 * \return the factor
 */
double BusBandwidthFactor(CollectiveType type, uint32_t nRanks);

/// How a transfer moves.
enum class TransferKind : uint8_t
{
    POINT_TO_POINT, //!< src writes to dst
    NVLS_REDUCE,    //!< src's contribution to an NVSwitch reduction delivered to dst
    NVLS_MULTICAST, //!< one NVSwitch multicast from src, one transfer per receiving rank
};

/**
 * \ingroup ai-fabric
 * One transfer of a collective: src writes bytes to dst on a channel (point to point), or
 * takes part in an NVLS group: the transfers of a group are consecutive; an NVLS_REDUCE group
 * has one transfer from every rank to the reduction's destination (which receives the
 * reduced data once, for all of them), an NVLS_MULTICAST group one transfer from its source to
 * every rank (sent once; the switch copies it).
 */
struct CollectiveTransfer
{
    uint32_t src{0};      //!< sending rank
    uint32_t dst{0};      //!< receiving rank
    uint32_t channel{0};  //!< channel (NCCL ring or tree instance)
    uint64_t bytes{0};    //!< payload bytes (before the protocol's overhead)
    uint32_t step{0};     //!< the algorithm's step this transfer belongs to
    bool reduce{false};   //!< dst reduces the data into its buffer on arrival (GPU time)
    uint32_t firstDep{0}; //!< index of its first dependency in the plan's dependency list
    uint32_t nDeps{0};    //!< transfers that must have arrived at src (reduced) before it starts
    TransferKind kind{TransferKind::POINT_TO_POINT}; //!< how it moves
    uint32_t group{0};     //!< first transfer of its NVLS group (itself for point to point)
    uint32_t groupSize{1}; //!< transfers in its group
    uint32_t groupBase{0}; //!< the first rank of its NVLS group (ranks base .. base + size - 1)
};

/**
 * \ingroup ai-fabric
 * \brief A collective decomposed into point-to-point transfers and their dependencies.
 *
 * A collective algorithm builds the plan once for (collective, ranks, bytes, channels, chunk);
 * each rank then executes its own part of it: it starts a transfer as soon as every transfer
 * it depends on has arrived at this rank (and been reduced, if it carries data to reduce), and
 * it is done when all its transfers have arrived and all its sends have completed. A
 * dependency always names a transfer whose destination is the dependent transfer's source.
 * The plan is immutable once finalized and shared by all ranks, like the schedule every NCCL
 * rank computes from the same inputs.
 */
class CollectivePlan : public SimpleRefCount<CollectivePlan>
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

    /// \return the collective
    CollectiveType GetType() const;
    /// \return the number of ranks
    uint32_t GetNRanks() const;
    /// \return the collective's size (bytes, as nccl-tests counts it)
    uint64_t GetBytes() const;
    /// \return the algorithm's name
    const std::string& GetAlgorithm() const;
    /// \return the number of channels used (highest channel + 1)
    uint32_t GetNChannels() const;
    /// \return the number of steps (highest step + 1)
    uint32_t GetNSteps() const;

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
    uint64_t GetBytesSent(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return payload bytes it receives in the whole collective
     */
    uint64_t GetBytesReceived(uint32_t rank) const;

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

    CollectiveType m_type;                           //!< the collective
    uint32_t m_nRanks;                               //!< ranks
    uint64_t m_bytes;                                //!< size
    std::string m_algorithm;                         //!< builder
    uint32_t m_nChannels{0};                         //!< channels used
    uint32_t m_nSteps{0};                            //!< steps used
    bool m_finalized{false};                         //!< no more transfers
    std::vector<CollectiveTransfer> m_transfers;     //!< by id
    std::vector<uint32_t> m_deps;                    //!< dependency lists, concatenated
    std::vector<std::vector<uint32_t>> m_dependents; //!< by id
    std::vector<std::vector<uint32_t>> m_sends;      //!< by rank
    std::vector<std::vector<uint32_t>> m_receives;   //!< by rank
    std::vector<uint32_t> m_sendIndex;               //!< by id
};

} // namespace ns3

#endif /* COLLECTIVE_PLAN_H */
