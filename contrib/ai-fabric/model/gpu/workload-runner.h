/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef WORKLOAD_RUNNER_H
#define WORKLOAD_RUNNER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "workload.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;
class Communicator;

/**
 * \ingroup ai-fabric
 * \brief Runs a Workload on the GPUs of a CollectiveHelper: every rank's compute, collectives
 * and point-to-point transfers, each as soon as what it depends on has ended and its stream is
 * free.
 *
 * A rank has one compute stream (its compute operations in the order it lists them, as a
 * CUDA stream runs its kernels: one that waits holds back those after it), one
 * stream per communicator it is in (its collectives in the order it lists them) and one per
 * peer it sends to or receives from (its transfers in order). Each of the workload's
 * communicators is a group of the helper (CollectiveHelper::AddGroup()), and so is each
 * direction between two ranks that exchange point-to-point transfers: a transfer is a plan of
 * one message on that pair. Call AddGroups() before the helper's Install(), Prepare() after it,
 * then Start().
 */
class WorkloadRunner : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    WorkloadRunner();
    ~WorkloadRunner() override;

    /// Makes a collective's schedule: (the operation (its collective, bytes, algorithm or "",
    /// mixture-of-experts layer), the helper's group (0: every rank), its ranks).
    using ScheduleMaker = std::function<Ptr<CollectiveSchedule>(
        const WorkloadOp&, uint32_t, const std::vector<uint32_t>&)>;

    /**
     * \param workload the workload (Workload::Check() must pass)
     */
    void SetWorkload(Workload workload);

    /// \return the workload
    const Workload& GetWorkload() const;

    /**
     * \brief Add the workload's communicators and point-to-point pairs to the helper, before
     *        its Install().
     * \param helper the helper
     */
    void AddGroups(CollectiveHelper& helper);

    /**
     * \brief Make every collective's schedule (one per distinct communicator size, collective,
     *        size and algorithm) and open its connections, after the helper's Install().
     * \param helper the helper
     * \param make makes a collective's schedule
     */
    void Prepare(CollectiveHelper& helper, ScheduleMaker make);

    /// Start every rank now, each in its GPU's context.
    void Start();

    /// \return true when every operation of every rank has ended
    bool IsDone() const;

    /// \return when the last operation that ended ended (of every operation, once done)
    Time GetEndTime() const;

    /// When an operation ran.
    struct Record
    {
        Time start{-1}; //!< its start (-1: not yet)
        Time end{-1};   //!< its end (-1: not yet)
    };

    /// \return every operation's record, by rank
    const std::vector<std::vector<Record>>& GetRecords() const;

    /// A rank's time, split: compute, communication while no compute ran (by kind), idle.
    struct Breakdown
    {
        Time end;                            //!< when its last operation ended
        Time compute;                        //!< its compute
        std::map<std::string, Time> exposed; //!< communication not hidden by compute, by kind
        /// The same exposed time by communicator (CommunicatorName()): which parallelism's
        /// traffic it was (a training step's tp, dp, ep, edp; p2p for sends and receives).
        std::map<std::string, Time> exposedByCommunicator;
        Time idle; //!< neither (waiting on its peers)
    };

    /**
     * \brief Split a rank's time. Where several transfers are in flight while no compute runs,
     *        the time goes to the one that started last (a receive posted early does not take
     *        the time of the all-reduces that run while it waits).
     * \param rank a rank
     * \return its breakdown
     */
    Breakdown Summarize(uint32_t rank) const;

    /**
     * \param op an operation
     * \return its kind's name: "compute", the collective's name, "send" or "recv"
     */
    static std::string KindName(const WorkloadOp& op);

    /**
     * \param workload a workload
     * \param op one of its operations
     * \return the communicator it runs on, as a kind: a collective's group name without a
     *         trailing index in brackets (a training step's "tp[3]" is "tp", a workload file's
     *         "dp" stays "dp"), "p2p" for a send or a receive, "" for compute
     */
    static std::string CommunicatorName(const Workload& workload, const WorkloadOp& op);

    /**
     * TracedCallback signature for an operation that ended.
     * \param rank the rank
     * \param op the operation's index
     * \param start its start
     * \param end its end
     */
    typedef void (*OpTracedCallback)(uint32_t rank, uint32_t op, Time start, Time end);

  protected:
    void DoDispose() override;

  private:
    /// One stream of a rank: a communicator's operations, in order.
    struct Stream
    {
        Ptr<Communicator> comm;    //!< its communicator
        std::vector<uint32_t> ops; //!< its operations, in order
        std::size_t next{0};       //!< the next one to run
        bool busy{false};          //!< one runs
    };

    /// A rank's progress.
    struct RankState
    {
        std::vector<uint32_t> waiting;                 //!< dependencies left, by operation
        std::vector<std::vector<uint32_t>> dependents; //!< by operation
        std::vector<uint32_t> streamOf;                //!< by operation (compute: unused)
        std::vector<uint32_t> compute;                 //!< its compute operations, in order
        std::size_t nextCompute{0};                    //!< the next one to run
        bool computeBusy{false};                       //!< a compute operation runs
        std::vector<Stream> streams;                   //!< its communicators' streams
    };

    /**
     * \param rank a rank
     */
    void StartRank(uint32_t rank);

    /**
     * \param rank a rank
     * \param op an operation whose dependencies have all ended
     */
    void MakeReady(uint32_t rank, uint32_t op);

    /// \param rank start its next compute operation if it can
    void TryCompute(uint32_t rank);

    /**
     * \param rank a rank
     * \param stream start its stream's next operation if it can
     */
    void TryStream(uint32_t rank, uint32_t stream);

    /**
     * \param rank a rank
     * \param op its compute operation that ended
     */
    void ComputeDone(uint32_t rank, uint32_t op);

    /**
     * \param runner the runner
     * \param rank a rank
     * \param stream its stream whose operation ended
     * \param commRank the communicator's rank (unused)
     */
    static void StreamDone(WorkloadRunner* runner,
                           uint32_t rank,
                           uint32_t stream,
                           uint32_t commRank);

    /**
     * \param rank a rank
     * \param op its operation that ended
     */
    void Ended(uint32_t rank, uint32_t op);

    Workload m_workload;                                           //!< the workload
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_pairGroup; //!< (src, dst) -> group
    std::vector<uint32_t> m_helperGroup; //!< workload group -> helper group
    std::vector<std::vector<Ptr<const CollectiveSchedule>>> m_schedules; //!< by rank, by op
    std::vector<RankState> m_state;                                      //!< by rank
    std::vector<std::vector<Record>> m_records;                          //!< by rank, by op
    std::vector<uint32_t> m_nodes;                                       //!< GPU node ids, by rank
    uint64_t m_left{0};                                                  //!< operations not ended
    Time m_end;                                                          //!< last end
    TracedCallback<uint32_t, uint32_t, Time, Time> m_opTrace;            //!< operation ended
};

} // namespace ns3

#endif /* WORKLOAD_RUNNER_H */
