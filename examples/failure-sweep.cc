/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * A failure study: one collective on a two-tier fat-tree, run once healthy and then once per
 * leaf-spine link with that link failing during the collective. Each row gives the link,
 * when the failure was detected and rerouted, the collective's time with it, the slowdown
 * against the healthy run, the packets lost and resent, or the finding that ended the run.
 *
 *   ./ns3 run failure-sweep
 *   ./ns3 run "failure-sweep --fabric=ib --bytes=16M --json=sweep.json"
 *   ./ns3 run "failure-sweep --jobs=2"
 *
 * With --jobs=N the failing runs, which are independent, run in up to N child processes at
 * once (FabricProcessPool), forked after the healthy run: each child runs one link's failure
 * and hands its outcome back through a pipe as one line of JSON, and the parent prints the
 * rows in the links' order. A run's outcome does not depend on the process that ran it
 * (every run builds its fabric anew and assigns its random streams from 1), so the output
 * is the same as with --jobs=1, which runs them one after another in this process.
 */

#include "ns3/collective-helper.h"
#include "ns3/collective-tuner.h"
#include "ns3/command-line.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-plot.h"
#include "ns3/fabric-process-pool.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/failure-report.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/names.h"
#include "ns3/rdma-transport.h"
#include "ns3/scenario-options.h"
#include "ns3/simulator.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sys/wait.h>

using namespace ns3;

namespace
{
const std::string PROGRAM = "failure-sweep";

/// One run's outcome
struct SweepRun
{
    bool completed{false};   //!< the collective finished
    Time time;               //!< its time
    FaultRecord record;      //!< the failure's record (if any)
    std::string finding;     //!< why it did not finish
    uint64_t lost{0};        //!< packets lost on or for the failed link
    uint64_t retransmits{0}; //!< packets resent
};

/// Most transfers a plan may hold: a communicator's tag has 24 bits for the transfer
constexpr uint64_t MAX_PLAN_TRANSFERS = 1ULL << 24;

/// end of the collective (negative: not yet)
Time g_end(-1);

/**
 * \param s start
 * \param e end
 */
void
Done(Time /* s */, Time e)
{
    g_end = e;
}

/// \return whether the collective finished
bool
IsDone()
{
    return !g_end.IsNegative();
}

/// The study's parsed command line and what it builds from it
struct Study
{
    std::string fabricName; //!< --fabric
    std::string servers;    //!< --servers
    std::string collective; //!< --collective
    std::string algo;       //!< --algo
    std::string bytesText;  //!< --bytes
    std::string channels;   //!< --channels
    std::string at;         //!< --at
    std::string json;       //!< --json
    std::string plot;       //!< --plot
    bool quiet{false};      //!< --quiet
    uint32_t jobs{1};       //!< --jobs: failing runs at once (1: in this process)
    uint64_t nServers{0};   //!< servers (one GPU each)
    uint64_t nRadix{0};     //!< switch radix
    uint64_t nChannels{0};  //!< channels
    uint64_t bytes{0};      //!< collective size
    Time failAt{-1};        //!< when each link fails (negative: a quarter in)
    CollectiveType type{CollectiveType::ALL_REDUCE}; //!< the collective
    Ptr<CollectiveAlgorithm> algorithm;              //!< its algorithm
    FatTreeHelper tree;                              //!< the fat-tree, not installed
    FabricOutputFile jsonFile;                       //!< --json, open before the runs
};

/**
 * \brief Parse and check the command line (exits with status 2 on bad input).
 * \param argc argument count
 * \param argv arguments
 * \param st the study to fill
 */
void
Configure(int argc, char* argv[], Study& st)
{
    ScenarioOptions options(PROGRAM);
    options.Use("fabric");
    options.Use("servers",
                "16",
                "one-GPU servers, 2 to 4096; pairwise and direct: a plan within 2^24 transfers, "
                "about 2800 servers with 1 channel, 1400 with the default 4");
    options.Use("radix");
    options.Use("collective");
    options.Use("algo", "ring", "ring, tree, hd, chain, pairwise or direct here");
    options.Add("bytes", "the collective's size (K/M/G suffixes)", "32M");
    options.Use("channels", "4");
    options.Add("at", "when each link fails (default: a quarter into the healthy run)", "");
    options.Use("json");
    options.Use("plot");
    options.Use("quiet");
    options.Use("jobs", "1", "the failing runs; 1 runs them one after another in this process");
    options.Parse(
        argc,
        argv,
        "A collective on a two-tier fat-tree, healthy and with each leaf-spine link "
        "failing in turn. --servers is 2 to 4096; ring, tree, hd and chain run as per-rank "
        "schedules, pairwise and direct as plans of every transfer, which must fit 2^24 "
        "transfers: 2 (servers - 1) channels (servers + bytes / (channels x 512 KiB)) at "
        "most, so a larger plan (e.g. pairwise on 4096 servers) is refused.");
    st.fabricName = options.Get("fabric");
    st.servers = options.Get("servers");
    const std::string radix = options.Get("radix");
    st.collective = options.Get("collective");
    st.algo = options.Get("algo");
    st.bytesText = options.Get("bytes");
    st.channels = options.Get("channels");
    st.at = options.Get("at");
    st.json = options.Get("json");
    st.quiet = options.GetFlag("quiet");
    st.jobs = options.Whole("jobs", 1, FabricProcessPool::MAX_JOBS);

    FabricCli::CheckFabric(PROGRAM, st.fabricName);
    if (!FabricCli::ParseUnsigned(st.servers, st.nServers) || st.nServers < 2 || st.nServers > 4096)
    {
        FabricCli::Fail(PROGRAM, "--servers=" + st.servers + ": expected 2 to 4096");
    }
    if (!FabricCli::ParseUnsigned(radix, st.nRadix) || st.nRadix < 2 || st.nRadix > 512)
    {
        FabricCli::Fail(PROGRAM, "--radix=" + radix + ": expected 2 to 512");
    }
    if (!FabricCli::ParseUnsigned(st.channels, st.nChannels) || st.nChannels < 1
        || st.nChannels > 64)
    {
        FabricCli::Fail(PROGRAM, "--channels=" + st.channels + ": expected 1 to 64");
    }
    if (!FabricCli::ParseBytes(st.bytesText, st.bytes) || st.bytes == 0)
    {
        FabricCli::Fail(PROGRAM,
                        "--bytes=" + st.bytesText + ": expected a positive size (e.g. 32M)");
    }
    if (!st.at.empty() && !FabricCli::ParseTime(st.at, st.failAt))
    {
        FabricCli::Fail(PROGRAM, "--at=" + st.at + ": expected a time such as 200us");
    }
    if (!ParseCollectiveType(st.collective, st.type))
    {
        FabricCli::Fail(PROGRAM,
                        "--collective=" + st.collective +
                            ": choose allreduce, allgather, reducescatter, broadcast or "
                            "alltoall");
    }
    if (st.algo != "ring" && st.algo != "tree" && st.algo != "hd" && st.algo != "chain"
        && st.algo != "pairwise" && st.algo != "direct")
    {
        FabricCli::Fail(
            PROGRAM, "--algo=" + st.algo + ": expected ring, tree, hd, chain, pairwise or direct");
    }
    if (st.algo == "pairwise" || st.algo == "direct")
    {
        // Ring, tree, hd and chain run as per-rank schedules; the all-to-alls list every
        // transfer in a plan, whose transfers a communicator names in 24 bits of the immediate
        // data (at most 2^24 transfers). Refuse a plan that cannot fit before building it: at
        // thousands of servers the plan alone takes gigabytes. An upper bound of every plan
        // here: 2 (n-1) c (n + ceil(bytes / (c chunk))).
        const uint64_t chunk = CollectiveHelper().GetChunkBytes();
        const uint64_t pieces = (st.bytes + st.nChannels * chunk - 1) / (st.nChannels * chunk);
        const double bound = 2.0 * static_cast<double>(st.nServers - 1) * st.nChannels
                             * (static_cast<double>(st.nServers) + static_cast<double>(pieces));
        if (bound > static_cast<double>(MAX_PLAN_TRANSFERS))
        {
            char message[240];
            std::snprintf(message,
                          sizeof(message),
                          "--algo=%s on --servers=%s with --channels=%s and "
                          "--bytes=%s: the plan may hold "
                          "up to %.0f transfers, more than the 2^24 a communicator can name "
                          "(use fewer servers, channels or bytes)",
                          st.algo.c_str(),
                          st.servers.c_str(),
                          st.channels.c_str(),
                          st.bytesText.c_str(),
                          bound);
            FabricCli::Fail(PROGRAM, message);
        }
    }
    std::string error;
    st.algorithm = CollectiveAlgorithm::CreateByName(
        st.algo, st.type, static_cast<uint32_t>(st.nServers), error);
    if (!st.algorithm)
    {
        FabricCli::Fail(PROGRAM, error);
    }
    st.tree.SetServers(static_cast<uint32_t>(st.nServers));
    st.tree.SetRadix(static_cast<uint32_t>(st.nRadix));
    st.tree.SetTiers(2);
    const std::string topologyError = st.tree.Check();
    if (!topologyError.empty())
    {
        FabricCli::Fail(PROGRAM, topologyError);
    }
    // Checked and created before anything runs; renamed over the target at the end.
    st.plot = options.Get("plot");
    if (!st.plot.empty())
    {
        const std::string why = FabricPlot::Prepare(st.plot);
        if (!why.empty())
        {
            FabricCli::Fail(PROGRAM, "--plot=" + st.plot + ": " + why);
        }
    }
    if (!st.json.empty())
    {
        st.jsonFile.OpenOrFail(PROGRAM, "json", st.json);
    }
}

/**
 * \brief One run: healthy (empty link) or with the link failing at failAt.
 * \param st the study
 * \param link the link that fails, or empty
 * \param links set to every leaf-spine link on the first run
 * \return the run's outcome
 */
SweepRun
Simulate(const Study& st, const std::string& link, std::vector<std::string>& links)
{
    std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(st.fabricName);
    FatTreeHelper t = st.tree;
    t.Install(*fabric);
    fabric->AssignStreams(1);
    if (links.empty())
    {
        for (uint32_t l = 0; l < t.GetNLeaves(); ++l)
        {
            for (uint32_t s = 0; s < t.GetNSpines(); ++s)
            {
                links.push_back("leaf" + std::to_string(l) + "-spine" + std::to_string(s));
            }
        }
    }
    CollectiveHelper collectives;
    collectives.SetChannels(static_cast<uint32_t>(st.nChannels));
    collectives.Install(t.GetGpus(), *fabric);
    Ptr<CollectivePlan> plan = st.algorithm->Build(st.type,
                                                   static_cast<uint32_t>(st.nServers),
                                                   st.bytes,
                                                   static_cast<uint32_t>(st.nChannels),
                                                   collectives.GetChunkBytes());
    collectives.Connect(*plan);
    g_end = Time(-1);
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&Done));
    Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
    fabric->SetRecoveryDelays(injector);
    injector->Install(fabric->GetTopology(),
                      MakeCallback(&FabricHelper::ComputeRoutes, fabric.get()));
    TimeValue detection;
    TimeValue reroute;
    injector->GetAttribute("DetectionDelay", detection);
    injector->GetAttribute("RerouteDelay", reroute);
    if (!link.empty())
    {
        std::vector<FaultEvent> events(1);
        events[0].kind = FaultEvent::Kind::LINK_DOWN;
        events[0].target = link;
        events[0].at = st.failAt;
        std::string why;
        NS_ABORT_MSG_IF(!injector->Schedule(events, why), why);
    }
    Ptr<FabricStallDetector> detector = CreateObject<FabricStallDetector>();
    detector->SetAttribute("RecoveryAllowance", TimeValue(detection.Get() + reroute.Get()));
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t g = 0; g < t.GetNGpus(); ++g)
    {
        transports.push_back(fabric->GetTransport(t.GetGpuByRank(g)));
    }
    detector->Install(*fabric->GetTopology(), transports);
    detector->SetDoneCallback(MakeCallback(&IsDone));
    detector->Start();
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named
    SweepRun r;
    r.completed = IsDone();
    r.time = g_end;
    if (!injector->GetRecords().empty())
    {
        r.record = injector->GetRecords()[0];
    }
    r.finding = !injector->GetFinding().empty() ? injector->GetFinding() : detector->GetReport();
    for (const Ptr<FabricChannel>& c : fabric->GetChannels())
    {
        for (std::size_t i = 0; i < c->GetNDevices(); ++i)
        {
            r.lost += StaticCast<FabricNetDevice>(c->GetDevice(i))
                          ->GetCounters()
                          .drops[static_cast<std::size_t>(FabricDropReason::LINK_DOWN)];
        }
    }
    r.retransmits = FabricStatsHelper::Totals().retransmits;
    Simulator::Destroy();
    Names::Clear();
    return r;
}

/**
 * \param r a failing run's outcome
 * \return it as JSON, times in picoseconds (exact), for a child to hand to the parent
 */
nlohmann::json
ToJson(const SweepRun& r)
{
    return {{"completed", r.completed},
            {"time_ps", r.time.GetPicoSeconds()},
            {"at_ps", r.record.at.GetPicoSeconds()},
            {"what", r.record.what},
            {"detected_ps", r.record.detected.GetPicoSeconds()},
            {"rerouted_ps", r.record.rerouted.GetPicoSeconds()},
            {"finding", r.finding},
            {"lost", r.lost},
            {"retransmits", r.retransmits}};
}

/**
 * \param text what a child wrote: ToJson() on one line
 * \param r set to the outcome
 * \return false if the text is not such a line
 */
bool
FromJson(const std::string& text, SweepRun& r)
{
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
    {
        return false;
    }
    try
    {
        r.completed = j.at("completed").get<bool>();
        r.time = PicoSeconds(j.at("time_ps").get<int64_t>());
        r.record.at = PicoSeconds(j.at("at_ps").get<int64_t>());
        r.record.what = j.at("what").get<std::string>();
        r.record.detected = PicoSeconds(j.at("detected_ps").get<int64_t>());
        r.record.rerouted = PicoSeconds(j.at("rerouted_ps").get<int64_t>());
        r.finding = j.at("finding").get<std::string>();
        r.lost = j.at("lost").get<uint64_t>();
        r.retransmits = j.at("retransmits").get<uint64_t>();
    }
    catch (const nlohmann::json::exception&)
    {
        return false;
    }
    return true;
}

/**
 * \brief Print a failing run's row and add it to the JSON's rows.
 * \param link the link that failed
 * \param r the run's outcome
 * \param healthy the healthy run's
 * \param rows the JSON's rows
 * \return whether the run completed
 */
bool
Report(const std::string& link,
       const SweepRun& r,
       const SweepRun& healthy,
       nlohmann::ordered_json& rows)
{
    nlohmann::ordered_json row = {{"link", link},
                                  {"failed_us", FailureReport::Us(r.record.at)},
                                  {"detected_us", FailureReport::Us(r.record.detected)},
                                  {"rerouted_us", FailureReport::Us(r.record.rerouted)},
                                  {"completed", r.completed},
                                  {"lost_packets", r.lost},
                                  {"retransmits", r.retransmits}};
    if (r.completed)
    {
        const double slowdown = r.time.GetSeconds() / healthy.time.GetSeconds();
        std::printf("  %-16s %12.3f %12.3f %14.3f %9.2f %9lu %9lu\n",
                    link.c_str(),
                    FailureReport::Us(r.record.detected),
                    FailureReport::Us(r.record.rerouted),
                    FailureReport::Us(r.time),
                    slowdown,
                    static_cast<unsigned long>(r.lost),
                    static_cast<unsigned long>(r.retransmits));
        row["time_us"] = FailureReport::Us(r.time);
        row["slowdown"] = slowdown;
    }
    else
    {
        std::printf("  %-16s %s\n", link.c_str(), r.finding.c_str());
        row["finding"] = r.finding;
    }
    rows.push_back(row);
    return r.completed;
}

/**
 * \brief The failing runs one after another in this process (--jobs=1).
 * \param st the study
 * \param links the links, in order
 * \param healthy the healthy run
 * \param rows the JSON's rows
 * \return whether every run completed
 */
bool
RunHere(const Study& st,
        std::vector<std::string>& links,
        const SweepRun& healthy,
        nlohmann::ordered_json& rows)
{
    bool allCompleted = true;
    for (const std::string& link : links)
    {
        if (!st.quiet)
        {
            std::fprintf(stderr, "# failing %s\n", link.c_str());
        }
        allCompleted = Report(link, Simulate(st, link, links), healthy, rows) && allCompleted;
    }
    return allCompleted;
}

/**
 * \brief The failing runs in up to --jobs child processes, reported in the links' order as
 *        RunHere() reports them. A child that ends without an outcome (the watchdog's exit,
 *        a crash) ends the program as that run would have ended a serial one, after the rows
 *        before it: its standard error, then its exit status.
 * \param st the study
 * \param links the links, in order
 * \param healthy the healthy run
 * \param rows the JSON's rows
 * \return whether every run completed
 */
bool
RunInChildren(Study& st,
              const std::vector<std::string>& links,
              const SweepRun& healthy,
              nlohmann::ordered_json& rows)
{
    bool allCompleted = true;
    FabricProcessPool::Outcome failed;
    std::string failedLink;
    FabricProcessPool pool(st.jobs);
    pool.Run(
        links.size(),
        [&st, &links](std::size_t i)
        {
            std::vector<std::string> all = links;
            std::cout << ToJson(Simulate(st, links[i], all)).dump() << std::endl;
            return 0;
        },
        [&](std::size_t i, const FabricProcessPool::Outcome& o)
        {
            if (!st.quiet)
            {
                std::fprintf(stderr, "# failing %s\n", links[i].c_str());
            }
            std::fputs(o.err.c_str(), stderr);
            SweepRun r;
            if (o.startError.empty() && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0
                && FromJson(o.out, r))
            {
                allCompleted = Report(links[i], r, healthy, rows) && allCompleted;
                return true;
            }
            failed = o;
            failedLink = links[i];
            return false;
        });
    if (failedLink.empty())
    {
        return allCompleted;
    }
    std::fflush(stdout);
    st.jsonFile.Discard();
    const std::string run = PROGRAM + ": the run failing " + failedLink;
    if (!failed.startError.empty())
    {
        std::cerr << run << " could not start: " << failed.startError << std::endl;
        std::exit(1);
    }
    if (WIFSIGNALED(failed.status))
    {
        std::cerr << run << " was killed by signal " << WTERMSIG(failed.status) << " ("
                  << strsignal(WTERMSIG(failed.status)) << ")" << std::endl;
        std::exit(128 + WTERMSIG(failed.status));
    }
    if (WIFEXITED(failed.status) && WEXITSTATUS(failed.status) != 0)
    {
        std::exit(WEXITSTATUS(failed.status)); // it said why on its standard error
    }
    std::cerr << run << " gave no outcome" << std::endl;
    std::exit(1);
}

} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    Study st;
    Configure(argc, argv, st);
    std::vector<std::string> links;
    const SweepRun healthy = Simulate(st, "", links);
    if (!healthy.completed)
    {
        st.jsonFile.Discard();
        std::cerr << PROGRAM << ": the healthy run did not complete: " << healthy.finding
                  << std::endl;
        return FailureReport::EXIT_STALLED;
    }
    if (st.failAt.IsNegative())
    {
        st.failAt = healthy.time / 4;
    }
    else if (st.failAt >= healthy.time)
    {
        st.jsonFile.Discard();
        char message[160];
        std::snprintf(message,
                      sizeof(message),
                      "--at=%s is after the end of the collective (%.3f us healthy)",
                      st.at.c_str(),
                      FailureReport::Us(healthy.time));
        FabricCli::Fail(PROGRAM, message);
    }
    std::printf(
        "# %s of %s on %s, %u GPUs, radix %u, %u leaves x %u spines, %s; each "
        "leaf-spine link fails at %.3f us\n",
        st.collective.c_str(),
        st.bytesText.c_str(),
        st.fabricName.c_str(),
        st.tree.GetNGpus(),
        st.tree.GetRadix(),
        st.tree.GetNLeaves(),
        st.tree.GetNSpines(),
        st.algo.c_str(),
        FailureReport::Us(st.failAt));
    std::printf("# healthy: %.3f us\n", FailureReport::Us(healthy.time));
    std::printf("# %-16s %12s %12s %14s %9s %9s %9s\n",
                "link",
                "detected_us",
                "rerouted_us",
                "time_us",
                "slowdown",
                "lost",
                "resent");
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    const bool allCompleted
        = st.jobs > 1 ? RunInChildren(st, links, healthy, rows) : RunHere(st, links, healthy, rows);
    if (!st.json.empty() || !st.plot.empty())
    {
        nlohmann::ordered_json j;
        j["scenario"] = {{"fabric", st.fabricName},
                         {"servers", st.nServers},
                         {"radix", st.nRadix},
                         {"leaves", st.tree.GetNLeaves()},
                         {"spines", st.tree.GetNSpines()},
                         {"collective", st.collective},
                         {"algo", st.algo},
                         {"bytes", st.bytes},
                         {"channels", st.nChannels},
                         {"fail_at_us", FailureReport::Us(st.failAt)}};
        j["healthy_time_us"] = FailureReport::Us(healthy.time);
        j["links"] = rows;
        if (!st.json.empty() && !st.jsonFile.CommitJson(PROGRAM, j))
        {
            return 1;
        }
        const std::string why = st.plot.empty() ? "" : FabricPlot::Write(j, st.plot);
        if (!why.empty())
        {
            std::cerr << PROGRAM << ": --plot=" << st.plot << ": " << why << std::endl;
            return 1;
        }
    }
    return allCompleted ? 0 : FailureReport::EXIT_STALLED;
}
