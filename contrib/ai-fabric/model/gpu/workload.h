/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef WORKLOAD_H
#define WORKLOAD_H

#include "collective-schedule.h"
#include "moe-all-to-all.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What one operation of a rank's workload does.
 */
enum class WorkloadOpKind : uint8_t
{
    COMPUTE,    //!< GPU compute of a given time
    COLLECTIVE, //!< a collective on one of the workload's communicators
    SEND,       //!< a point-to-point send to a peer (NCCL's ncclSend)
    RECV,       //!< the matching receive from a peer (ncclRecv)
};

/**
 * \ingroup ai-fabric
 * One operation of a rank's workload: it starts when every operation it depends on has
 * ended (and its stream is free).
 */
struct WorkloadOp
{
    WorkloadOpKind kind{WorkloadOpKind::COMPUTE}; //!< what it does
    std::string name;                             //!< its name (for the timeline)
    std::vector<uint32_t> deps;                   //!< earlier operations of the rank it waits for
    Time duration;                                //!< COMPUTE: its time
    CollectiveType collective{CollectiveType::ALL_REDUCE}; //!< COLLECTIVE: which
    uint32_t group{0};     //!< COLLECTIVE: its communicator (0: every rank)
    std::string algorithm; //!< COLLECTIVE: algorithm ("": the runner's)
    uint32_t peer{0};      //!< SEND, RECV: the other rank
    uint64_t bytes{0};     //!< COLLECTIVE, SEND, RECV: size (bytes)
    double flops{0};       //!< COMPUTE: the model FLOPs it does (0 if not known)
    /// COLLECTIVE: the mixture-of-experts layer whose tokens it moves (Workload::moe index +
    /// 1; 0: none). Its collective is ALL_TO_ALL, its group the layer's routing's ranks, and
    /// its bytes the rank's tokens' (informative: the routing decides what moves).
    uint32_t moe{0};
    bool combine{false}; //!< COLLECTIVE with moe: the combine (outputs back), not the dispatch
};

/**
 * \ingroup ai-fabric
 * \brief Every rank's operations, and the communicators its collectives run on.
 *
 * A rank runs its compute operations one at a time in the order it lists them (one stream,
 * as a CUDA stream runs its kernels), the collectives of each
 * communicator one at a time in the order it lists them (NCCL's stream order: every rank of a
 * communicator must list the same collectives in the same order), and its sends to a peer in
 * order, as its receives from one; everything else overlaps. An operation may depend only on
 * operations listed before it on its rank, and Check() runs the workload without time, so a
 * workload whose ranks would wait for each other forever is refused.
 */
struct Workload
{
    uint32_t nRanks{0};                            //!< ranks
    std::vector<std::string> groupNames{"all"};    //!< communicator names ([0]: every rank)
    std::vector<std::vector<uint32_t>> groups{{}}; //!< communicators' ranks ([0]: every rank)
    std::vector<std::vector<WorkloadOp>> ops;      //!< by rank, in order
    std::vector<MoeLayer> moe;                     //!< mixture-of-experts layers

    /**
     * \brief Check what the runner relies on: dependencies on earlier operations, groups
     *        whose ranks exist once each, collectives on communicators their rank belongs to
     *        and listed alike by every member, sends matched by receives of the same sizes in
     *        the same order.
     * \param error set to the first problem (one line) when it returns false
     * \return true if the workload can run
     */
    bool Check(std::string& error) const;

    /**
     * \param group a communicator
     * \return its ranks (every rank for group 0)
     */
    std::vector<uint32_t> GroupRanks(uint32_t group) const;

  private:
    /**
     * \brief Run the workload without time and check that every operation ends (no rank
     *        waits for a peer that waits for it).
     * \param error set to the first operation that never ends (one line)
     * \return true if every operation ends
     */
    bool CheckProgress(std::string& error) const;
};

} // namespace ns3

#endif /* WORKLOAD_H */
