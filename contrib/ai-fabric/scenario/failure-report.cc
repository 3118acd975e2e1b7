/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "failure-report.h"

#include "fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/node-container.h"

#include <cstdio>
#include <cstring>
#include <iostream>

namespace ns3
{

double
FailureReport::Us(Time t)
{
    return t.IsStrictlyNegative() ? -1.0 : static_cast<double>(t.GetPicoSeconds()) / 1e6;
}

bool
FailureReport::Arm(FabricHelper& fabric,
                   const NodeContainer& gpus,
                   Callback<bool> done,
                   const std::vector<FaultEvent>& events,
                   bool inject,
                   int64_t firstStream,
                   FailureWatch& watch,
                   std::string& error)
{
    watch.detector = CreateObject<FabricStallDetector>();
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t g = 0; g < gpus.GetN(); ++g)
    {
        transports.push_back(fabric.GetTransport(gpus.Get(g)));
    }
    watch.detector->Install(*fabric.GetTopology(), transports);
    watch.detector->SetDoneCallback(done);
    watch.injector = CreateObject<FaultInjector>();
    fabric.SetRecoveryDelays(watch.injector);
    watch.injector->Install(fabric.GetTopology(),
                            MakeCallback(&FabricHelper::ComputeRoutes, &fabric),
                            MakeCallback(&FabricHelper::FindMissingRoute, &fabric));
    if (!watch.injector->Check(events, error))
    {
        return false;
    }
    if (inject)
    {
        watch.injector->Schedule(events, error);
        watch.injector->AssignStreams(firstStream);
        TimeValue detection;
        TimeValue reroute;
        watch.injector->GetAttribute("DetectionDelay", detection);
        watch.injector->GetAttribute("RerouteDelay", reroute);
        watch.detector->SetAttribute("RecoveryAllowance",
                                     TimeValue(detection.Get() + reroute.Get()));
    }
    watch.detector->Start(); // across MPI ranks, on every rank: the ranks decide together
    watch.watchdog = CreateObject<FabricWatchdog>();
    watch.watchdog->Install();
    return true;
}

void
FailureReport::ArmWithoutFabric(Callback<bool> done, FailureWatch& watch)
{
    static const FabricTopology none;
    watch.detector = CreateObject<FabricStallDetector>();
    watch.detector->Install(none, {});
    watch.detector->SetDoneCallback(done);
    watch.injector = CreateObject<FaultInjector>();
    watch.detector->Start();
    watch.watchdog = CreateObject<FabricWatchdog>();
    watch.watchdog->Install();
}

void
FailureReport::Collect(const FailureWatch& watch, FailureRunOutput& out)
{
    out.stalled = watch.detector->GetFinding() != FabricStallDetector::Finding::NONE;
    out.deadlock = watch.detector->GetFinding() == FabricStallDetector::Finding::DEADLOCK;
    out.finding = !watch.injector->GetFinding().empty() ? watch.injector->GetFinding()
                                                        : watch.detector->GetReport();
    std::string watchdog = watch.watchdog->HasFired() ? watch.watchdog->GetReport() : "";
    if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Get(); impl && impl->GetNRanks() > 1)
    {
        // Each rank's watchdog counts its own events and wall time, and its stop stops every
        // rank: the first rank whose watchdog fired speaks for the run, on every rank.
        std::vector<uint8_t> mine(sizeof(uint32_t) + watchdog.size());
        const auto length = static_cast<uint32_t>(watchdog.size());
        std::memcpy(mine.data(), &length, sizeof(length));
        std::memcpy(mine.data() + sizeof(length), watchdog.data(), watchdog.size());
        const std::vector<uint8_t> all = impl->GatherAcrossRanks(mine);
        watchdog.clear();
        std::size_t at = 0;
        for (uint32_t r = 0; r < impl->GetNRanks() && watchdog.empty(); ++r)
        {
            uint32_t n = 0;
            std::memcpy(&n, all.data() + at, sizeof(n));
            at += sizeof(n);
            if (n > 0)
            {
                watchdog.assign(reinterpret_cast<const char*>(all.data() + at), n);
                watchdog += " (on MPI rank " + std::to_string(r) + ")";
            }
            at += n;
        }
    }
    if (!watchdog.empty())
    {
        out.watchdog = true;
        out.finding = watchdog;
    }
    out.cycle = watch.detector->GetCycle();
    out.records = watch.injector->GetRecords();
}

FailureRunOutput
FailureReport::RunWithBaseline(const std::function<FailureRunOutput(bool, bool)>& simulate,
                               const std::vector<FaultEvent>& events,
                               const std::function<void(const std::string&)>& fail,
                               FailureRunOutput& base)
{
    if (events.empty())
    {
        return simulate(false, true);
    }
    base = simulate(false, false);
    if (!base.finding.empty())
    {
        return base; // the run without failures could not complete (a watchdog limit)
    }
    const Time last = FaultSchedule::LastChange(events);
    if (last >= base.simTime)
    {
        char message[200];
        std::snprintf(message,
                      sizeof(message),
                      "--failures: a failure at %.3f us is after the end of the run (the sweep "
                      "ends at %.3f us without failures)",
                      Us(last),
                      Us(base.simTime));
        fail(message);
    }
    return simulate(true, true);
}

void
FailureReport::Finish(const std::string& program,
                      const FailureRunOutput& base,
                      const FailureRunOutput& run,
                      bool withFailures,
                      bool quiet,
                      double wallSeconds)
{
    Print(std::cout, base, run, withFailures);
    if (!FabricCli::IsMainRank())
    {
        return; // rank 0 speaks for the run
    }
    if (!run.finding.empty())
    {
        std::cerr << program << ": " << run.finding << std::endl;
    }
    if (!quiet)
    {
        std::fprintf(stderr,
                     "# done: sim %.3f ms, wall %.1f s, %.2f M events/s",
                     run.simTime.GetSeconds() * 1e3,
                     wallSeconds,
                     static_cast<double>(run.events) / wallSeconds / 1e6);
        if (run.ranks > 1)
        {
            std::fprintf(stderr,
                         " on %u MPI ranks (lookahead %.1f ns, %llu windows, %llu messages)",
                         run.ranks,
                         static_cast<double>(run.lookahead.GetPicoSeconds()) / 1e3,
                         static_cast<unsigned long long>(run.windows),
                         static_cast<unsigned long long>(run.messages));
        }
        std::fprintf(stderr, "\n");
    }
}

void
FailureReport::AddRunJson(nlohmann::ordered_json& j,
                          const std::string& collective,
                          const FailureRunOutput& base,
                          const FailureRunOutput& run,
                          bool withFailures,
                          double wallSeconds)
{
    j["results"] = nlohmann::ordered_json::array();
    for (const CollectiveSweepRow& r : run.rows)
    {
        j["results"].push_back({{"collective", collective},
                                {"algo", r.algorithm},
                                {"protocol", r.protocol},
                                {"bytes", r.bytes},
                                {"time_us", r.timeUs},
                                {"algbw_GBps", r.algbwGBps},
                                {"busbw_GBps", r.busbwGBps}});
    }
    j["fabric"] = FabricStatsHelper::TotalsJson(run.totals);
    j["links"] = nlohmann::ordered_json::array();
    for (const LinkStats& l : run.links)
    {
        nlohmann::ordered_json link
            = {{"name", l.name}, {"tx_bytes", l.txBytes}, {"utilization", l.utilization}};
        if (!l.creditStallUs.empty())
        {
            link["credit_stall_us"] = l.creditStallUs; // per data VL (InfiniBand)
        }
        j["links"].push_back(link);
    }
    AddJson(j, base, run, withFailures);
    j["sim"] = {{"wall_s", wallSeconds},
                {"events", run.events},
                {"sim_time_us", run.simTime.GetSeconds() * 1e6},
                {"peak_rss_mb", FabricStatsHelper::PeakRssMb()}};
    if (run.flows > 0)
    {
        // The flow level's: flows, and what keeping their max-min allocation cost.
        j["sim"]["flows"] = run.flows;
        j["sim"]["flow_settlements"] = run.flowSettlements;
        j["sim"]["flow_link_evaluations"] = run.flowEvaluations;
        j["sim"]["flow_full_solutions"] = run.flowFullSolutions;
        // Congestion the flow level does not model (FlowNetwork::GetCongestion()).
        nlohmann::ordered_json congestion = {{"links", run.congestedLinks},
                                             {"peak_demand", run.congestionDemand},
                                             {"peak_fan_in", run.congestionFanIn}};
        if (run.congestedLinks > 0)
        {
            congestion["peak_link"] = run.congestionLink;
            congestion["peak_time_us"] = Us(run.congestionTime);
        }
        congestion["shared_input_links"] = run.sharedInputLinks;
        if (run.sharedInputLinks > 0)
        {
            congestion["shared_input_link"] = run.sharedInputLink;
            congestion["shared_input_time_us"] = Us(run.sharedInputTime);
        }
        j["sim"]["flow_congestion"] = congestion;
    }
    if (run.ranks > 1)
    {
        j["sim"]["mpi"]
            = {{"ranks", run.ranks},
               {"lookahead_ns", static_cast<double>(run.lookahead.GetPicoSeconds()) / 1e3},
               {"windows", run.windows},
               {"messages", run.messages}};
    }
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
        if (!r.detected.IsStrictlyNegative())
        {
            os << ", detected " << Us(r.detected) << " us";
        }
        if (!r.rerouted.IsStrictlyNegative())
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
                      "# %s time: %.3f us without the failures, %.3f us with them (x%.2f)\n",
                      run.timeOf.c_str(),
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
    const bool unreachable = !run.finding.empty() && !run.stalled && !run.watchdog;
    j["outcome"] = {{"completed", run.finding.empty() ? 1 : 0},
                    {"deadlock", run.deadlock ? 1 : 0},
                    {"stall", run.stalled && !run.deadlock ? 1 : 0},
                    {"unreachable", unreachable ? 1 : 0},
                    {"watchdog", run.watchdog ? 1 : 0}};
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
                         run.deadlock   ? "deadlock"
                         : run.stalled  ? "stall"
                         : run.watchdog ? "watchdog"
                                        : "unreachable"},
                        {"report", run.finding},
                        {"cycle", run.cycle},
                        {"time_us", Us(run.simTime)}};
    }
}

} // namespace ns3
