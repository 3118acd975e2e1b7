/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FAILURE_REPORT_H
#define FAILURE_REPORT_H

#include "ns3/collective-sweep.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

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
    uint64_t events{0};                   //!< simulator events
    std::vector<FaultRecord> records;     //!< failures that struck
    std::string finding;                  //!< why the run could not complete (empty: it did)
    bool stalled{false};                  //!< the stall detector stopped it
    bool deadlock{false};                 //!< ... on a cycle of blocked queues
    std::vector<std::string> cycle;       //!< the cycle
    std::string protocol;                 //!< NCCL protocol
    uint32_t nvswitches{0};               //!< NVSwitch chips
    double nvlinkGBps{0};                 //!< NVLink bandwidth per GPU
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
