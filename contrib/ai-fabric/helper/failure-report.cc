/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "failure-report.h"

#include <cstdio>

namespace ns3
{

double
FailureReport::Us(Time t)
{
    return t.IsNegative() ? -1.0 : static_cast<double>(t.GetPicoSeconds()) / 1e6;
}

void
FailureReport::Print(std::ostream& os,
                     const FailureRunOutput& base,
                     const FailureRunOutput& run,
                     bool withFailures)
{
    for (const FaultRecord& r : run.records)
    {
        os << "# failure: " << r.what << " at " << Us(r.at) << " us";
        if (!r.detected.IsNegative())
        {
            os << ", detected " << Us(r.detected) << " us";
        }
        if (!r.rerouted.IsNegative())
        {
            os << ", rerouted " << Us(r.rerouted) << " us";
        }
        os << "\n";
    }
    if (withFailures && run.finding.empty())
    {
        char line[160];
        std::snprintf(line,
                      sizeof(line),
                      "# sweep time: %.3f us without the failures, %.3f us with them (x%.2f)\n",
                      Us(base.simTime),
                      Us(run.simTime),
                      run.simTime.GetSeconds() / base.simTime.GetSeconds());
        os << line;
    }
    if (!run.finding.empty())
    {
        os << "# " << run.finding << "\n";
    }
}

void
FailureReport::AddJson(nlohmann::ordered_json& j,
                       const FailureRunOutput& base,
                       const FailureRunOutput& run,
                       bool withFailures)
{
    nlohmann::ordered_json failures = nlohmann::ordered_json::array();
    for (const FaultRecord& r : run.records)
    {
        failures.push_back({{"time_us", Us(r.at)},
                            {"what", r.what},
                            {"detected_us", Us(r.detected)},
                            {"rerouted_us", Us(r.rerouted)}});
    }
    j["failures"] = failures;
    // The run's outcome as numbers (0 or 1), for scripts and ./ns3 validate.
    const bool unreachable = !run.finding.empty() && !run.stalled;
    j["outcome"] = {{"completed", run.finding.empty() ? 1 : 0},
                    {"deadlock", run.deadlock ? 1 : 0},
                    {"stall", run.stalled && !run.deadlock ? 1 : 0},
                    {"unreachable", unreachable ? 1 : 0}};
    if (withFailures)
    {
        nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < base.rows.size(); ++i)
        {
            nlohmann::ordered_json row
                = {{"bytes", base.rows[i].bytes}, {"time_us_without", base.rows[i].timeUs}};
            if (i < run.rows.size())
            {
                row["time_us_with"] = run.rows[i].timeUs;
                row["slowdown"] = run.rows[i].timeUs / base.rows[i].timeUs;
            }
            sizes.push_back(row);
        }
        j["failure_impact"] = {{"sweep_time_us_without", Us(base.simTime)},
                               {"sweep_time_us_with", Us(run.simTime)},
                               {"completed", run.finding.empty()},
                               {"slowdown", run.simTime.GetSeconds() / base.simTime.GetSeconds()},
                               {"sizes", sizes}};
    }
    if (!run.finding.empty())
    {
        j["finding"] = {{"kind",
                         run.deadlock  ? "deadlock"
                         : run.stalled ? "stall"
                                       : "unreachable"},
                        {"report", run.finding},
                        {"cycle", run.cycle},
                        {"time_us", Us(run.simTime)}};
    }
}

} // namespace ns3
