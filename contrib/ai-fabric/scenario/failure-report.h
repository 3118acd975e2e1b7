/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FAILURE_REPORT_H
#define FAILURE_REPORT_H

#include "ns3/callback.h"
#include "ns3/collective-sweep.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/fault-injector.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class FabricHelper;
class NodeContainer;

/**
 * \ingroup ai-fabric
 * The stall detector and the fault injector of one run.
 */
struct FailureWatch
{
    Ptr<FabricStallDetector> detector; //!< finds deadlocks and stalls
    Ptr<FaultInjector> injector;       //!< plays the failures
    Ptr<FabricWatchdog> watchdog;      //!< ends a run that would not end
};

/**
 * \ingroup ai-fabric
 * What one run of a program's sweep produced, for the failure report.
 */
struct FailureRunOutput
{
    std::vector<CollectiveSweepRow> rows; //!< the table
    FabricTotals totals;                  //!< fabric counters
    std::vector<LinkStats> links;         //!< per link
    Time simTime;                         //!< end of the sweep (or when the run stopped)
    uint64_t events{0};                   //!< simulator events (every MPI rank's)
    uint32_t ranks{1};                    //!< MPI ranks of the run
    Time lookahead;                       //!< across ranks: the lookahead
    uint64_t windows{0};                  //!< across ranks: synchronisation windows
    uint64_t messages{0};                 //!< across ranks: messages between them (all ranks')
    uint64_t flows{0};                    //!< flow level: flows started (0 on the packet level)
    uint64_t flowSettlements{0};          //!< flow level: times the allocation was settled
    uint64_t flowEvaluations{0};          //!< flow level: link levels computed
    uint64_t flowFullSolutions{0};        //!< flow level: allocations computed from scratch
    uint32_t congestedLinks{0};           //!< flow level: switch ports that were congested
    uint32_t congestionFanIn{0};          //!< flow level: the most ports converging on one
    double congestionDemand{0};           //!< flow level: the highest demand over a port's rate
    std::string congestionLink;           //!< flow level: that port's link name
    Time congestionTime;                  //!< flow level: when it first saw that many
    uint32_t sharedInputLinks{0};         //!< flow level: ports of converging shared inputs
    std::string sharedInputLink;          //!< flow level: the first of them
    Time sharedInputTime;                 //!< flow level: when it was first seen
    std::vector<FaultRecord> records;     //!< failures that struck
    std::string finding;                  //!< why the run could not complete (empty: it did)
    bool stalled{false};                  //!< the stall detector stopped it
    bool deadlock{false};                 //!< ... on a cycle of blocked queues
    bool watchdog{false};                 //!< the watchdog stopped it (a limit fired)
    std::vector<std::string> cycle;       //!< the cycle
    std::string protocol;                 //!< NCCL protocol
    std::string timeOf{"sweep"};          //!< what simTime is the time of ("sweep", "step")
    /// What the topology learned in the run, for its "scenario" keys (NVSwitch chips, say)
    nlohmann::ordered_json facts;
    /// The topology's own results, written after the JSON's "scenario"
    nlohmann::ordered_json extra;
    /// The time series (FabricSeriesSampler, with --plot), written last as "series"
    nlohmann::ordered_json series;
};

/**
 * \ingroup ai-fabric
 * \brief How ai-fabric's programs report failures: the lines after the table and the JSON's
 * "failures", "failure_impact" and "finding".
 */
class FailureReport
{
  public:
    /// Exit status of a run that could not complete (deadlock, stall, unreachable destination)
    static constexpr int EXIT_STALLED = 3;

    /**
     * \param t a time (negative: never)
     * \return it in microseconds, exactly from picoseconds, or -1
     */
    static double Us(Time t);

    /**
     * \brief Arm a run whose fabric has no devices (the flow level's FlowFabric): the
     *        watchdog, and a stall detector with no queue pair or port to watch (Collect()
     *        reads both).
     * \param done true once the workload has finished
     * \param watch filled
     */
    static void ArmWithoutFabric(Callback<bool> done, FailureWatch& watch);

    /**
     * \brief Watch a run: a stall detector on the GPUs' transports and a fault injector with
     *        the fabric's detection and reroute delays; with inject, the failures are scheduled
     *        and the detector allows for their recovery. The detector is started.
     * \param fabric the fabric (its routes are recomputed after each failure)
     * \param gpus the nodes with a NIC (the GPUs, or those that hold a NIC their peers share)
     * \param done returns true once the workload finished
     * \param events the failures (checked even when not injected)
     * \param inject schedule them
     * \param firstStream the first random stream free after the fabric's (bit errors)
     * \param watch set to the detector and the injector
     * \param error one line when an event names what does not exist
     * \return false if an event names what does not exist
     */
    static bool Arm(FabricHelper& fabric,
                    const NodeContainer& gpus,
                    Callback<bool> done,
                    const std::vector<FaultEvent>& events,
                    bool inject,
                    int64_t firstStream,
                    FailureWatch& watch,
                    std::string& error);

    /**
     * \brief Copy the watch's findings and records into a run's output.
     * \param watch the watch
     * \param out the output
     */
    static void Collect(const FailureWatch& watch, FailureRunOutput& out);

    /**
     * \brief Without failures, run once; with them, run without first (the baseline, silent),
     *        refuse failures at or after its end (fail() is called with one line), then run
     *        with them.
     * \param simulate runs the sweep: (inject the failures, print the table)
     * \param events the failures
     * \param fail reports bad input and does not return
     * \param base set to the baseline (empty without failures)
     * \return the run that counts
     */
    static FailureRunOutput RunWithBaseline(
        const std::function<FailureRunOutput(bool, bool)>& simulate,
        const std::vector<FaultEvent>& events,
        const std::function<void(const std::string&)>& fail,
        FailureRunOutput& base);

    /**
     * \brief What a sweep program prints after its table: Print() on standard output, the
     *        finding as one line "<program>: <finding>" on standard error, and unless quiet the
     *        "# done" line (simulated time, wall time, events per second) on standard error.
     * \param program the program's name
     * \param base the run without failures
     * \param run the run
     * \param withFailures failures were given
     * \param quiet no "# done" line
     * \param wallSeconds the process's wall time
     */
    static void Finish(const std::string& program,
                       const FailureRunOutput& base,
                       const FailureRunOutput& run,
                       bool withFailures,
                       bool quiet,
                       double wallSeconds);

    /**
     * \brief Add what a sweep program's JSON has after its "scenario": "results", "fabric",
     *        "links", the failure keys of AddJson(), and "sim".
     * \param j the JSON object
     * \param collective the collective's name
     * \param base the run without failures
     * \param run the run
     * \param withFailures failures were given
     * \param wallSeconds the process's wall time
     */
    static void AddRunJson(nlohmann::ordered_json& j,
                           const std::string& collective,
                           const FailureRunOutput& base,
                           const FailureRunOutput& run,
                           bool withFailures,
                           double wallSeconds);

    /**
     * \brief Print "# failure: ..." per record, the sweep's time without and with the
     *        failures, and "# <finding>".
     * \param os the stream
     * \param base the run without failures
     * \param run the run
     * \param withFailures failures were given
     */
    static void Print(std::ostream& os,
                      const FailureRunOutput& base,
                      const FailureRunOutput& run,
                      bool withFailures);

    /**
     * \brief Add "failures" (time_us, what, detected_us, rerouted_us; -1: never), "outcome"
     *        (completed, deadlock, stall, unreachable: each 0 or 1), with
     *        failures "failure_impact" (the sweep's and each size's time without and with them,
     *        and the slowdowns), and after a finding "finding" (kind, report, cycle, time_us).
     * \param j the JSON object
     * \param base the run without failures
     * \param run the run
     * \param withFailures failures were given
     */
    static void AddJson(nlohmann::ordered_json& j,
                        const FailureRunOutput& base,
                        const FailureRunOutput& run,
                        bool withFailures);
};

} // namespace ns3

#endif /* FAILURE_REPORT_H */
