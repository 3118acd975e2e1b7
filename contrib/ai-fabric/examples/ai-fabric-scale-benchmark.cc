/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The scale benchmark (issue 13): the ladder of 2, 8, 32 and 128 DGX H100 servers (16, 64, 256
 * and 1,024 GPUs) on a rail-optimized 2-tier fat-tree of radix 64 with RoCEv2's defaults (PFC,
 * ECN, DCQCN), one all-reduce per point with the ring and with the algorithm "auto" picks, at
 * packet level. Per point it prints GPUs, bytes, algorithm, busbw, wall time, events,
 * events per second, events per data packet-hop and peak RSS.
 *
 *   ./ns3 run "ai-fabric-scale-benchmark --quick"
 *   ./ns3 run "ai-fabric-scale-benchmark --servers=2,8,32 --bytes=256M --algos=ring"
 *   ./ns3 run "ai-fabric-scale-benchmark --SchedulerType=ns3::MapScheduler --json=map.json"
 *   ./ns3 run "ai-fabric-scale-benchmark --servers=32,128 --algos=ring --mode=packet,flow"
 *   ./ns3 run "ai-fabric-scale-benchmark --servers=2048 --tiers=3 --algos=auto --mode=flow"
 *
 * --mode=flow runs a point on the flow level, its fat-tree built without devices (FlowFabric):
 * a two-server sample built with every device gives the fixed costs first.
 *
 * Each point runs in a child process (the program runs itself again with an internal option),
 * so that its wall time and peak RSS are its own and a point that fails, runs out of memory
 * (--maxMemory) or of time (--maxWallTime) is reported in the table while the ladder goes on.
 * With --jobs=N up to N points run at once (FabricProcessPool) and the rows come in the
 * ladder's order, with the same figures as a serial run's except the measured ones (wall and
 * run time, events/s, CPU time, peak RSS): concurrent points share the cores and the memory
 * bandwidth, so a -j run's speed figures are not comparable with a serial run's, and the
 * table says so in a comment line.
 *
 * In the MPI build (./ns3 configure --mpi), --ranks=N runs each point on N MPI ranks (its
 * child is mpirun -np N, with --oversubscribe past the cores): the simulated figures are one
 * process's, events, packet-hops and CPU time are every rank's, and the peak RSS is the
 * largest rank's (memory per rank); the JSON gives each rank's.
 *
 * A data packet-hop is one transmission of one data packet (an RDMA data packet on RoCEv2, a
 * data or NVLS packet on NVLink; not an ACK, NAK, CNP, PFC or credit frame) over one link. It
 * is counted at the end of a point from the ports' counters (RoCEv2: the queue pairs' packets
 * sent, which leave the NIC, plus the packets switch ports queued in the RDMA priority) and,
 * for NVLink, from the ports' data frames sent (NvLinkNetDevice::GetDataFramesSent()).
 */

#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-process-pool.h"
#include "ns3/failure-report.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/scenario-options.h"
#include "ns3/string.h"
#include "scale-benchmark-point.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::scalebenchmark;

namespace
{
#if defined(__SANITIZE_ADDRESS__)
/// AddressSanitizer's shadow needs terabytes of address space: no --maxMemory under it.
constexpr bool ADDRESS_SANITIZER = true;
#else
/// Built without AddressSanitizer: --maxMemory applies.
constexpr bool ADDRESS_SANITIZER = false;
#endif
/// Exit status of a point that ran out of memory.
constexpr int EXIT_OUT_OF_MEMORY = 4;
/// Wall time a point may take beyond --maxWallTime before it is killed (s): the watchdog
/// stops the simulation at --maxWallTime, but not a point still building its fabric.
constexpr double KILL_GRACE_S = 60;

/// What the parent learned of one point.
struct PointResult
{
    PointSpec spec;        //!< what was asked
    nlohmann::json child;  //!< the child's JSON line (null if it printed none)
    double wallS{0};       //!< the child's wall time, fork to exit (s)
    double peakRssMb{0};   //!< the child's peak resident set (MB)
    double cpuS{0};        //!< the child's CPU time, user and system (s)
    bool completed{false}; //!< the point ran to the end
    std::string reason;    //!< why not (one line)
};

/**
 * \param text a program's output
 * \return its last non-empty line
 */
std::string
LastLine(const std::string& text)
{
    std::istringstream lines(text);
    std::string line;
    std::string last;
    while (std::getline(lines, line))
    {
        if (!line.empty())
        {
            last = line;
        }
    }
    return last;
}

/**
 * \return this program's binary, so that a child's process name is the program's, not "exe"
 */
std::string
SelfPath()
{
    char self[4096];
    const ssize_t selfLength = readlink("/proc/self/exe", self, sizeof(self) - 1);
    return selfLength > 0 ? std::string(self, static_cast<std::size_t>(selfLength))
                          : "/proc/self/exe";
}

/// The glibc tunable that backs malloc's heap with transparent huge pages.
const std::string HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb=1";

/**
 * \brief In a point's child, before it runs the program again: ask glibc's malloc to back
 *        the heap with transparent huge pages (madvise), added to GLIBC_TUNABLES unless the
 *        user set glibc.malloc.hugetlb there. At 8,192 GPUs and more the flow level reads its
 *        hundreds of megabytes at random: with 4 KiB pages most reads also miss the TLB.
 */
void
AskHugePages()
{
    const char* set = std::getenv("GLIBC_TUNABLES");
    std::string tunables = set ? set : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos)
    {
        return; // the user's choice
    }
    tunables += (tunables.empty() ? "" : ":") + HUGE_PAGES_TUNABLE;
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
}

/**
 * \return the kernel's transparent huge page mode ("always", "madvise" or "never"), or
 *         "unknown" where the kernel does not say
 */
std::string
KernelHugePages()
{
    std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    if (!std::getline(file, line))
    {
        return "unknown";
    }
    // The mode in use is the one in brackets: "always [madvise] never".
    const std::size_t open = line.find('[');
    const std::size_t close = line.find(']', open);
    if (open == std::string::npos || close == std::string::npos)
    {
        return "unknown";
    }
    return line.substr(open + 1, close - open - 1);
}

/**
 * \brief A point's child process (FabricProcessPool's child): limit its address space and
 *        run the program again on the point.
 * \param binary the program
 * \param spec the point
 * \return 127 if the program could not be run (otherwise it does not return)
 */
int
ExecPoint(const std::string& binary, const PointSpec& spec)
{
    std::vector<std::string> args{PROGRAM};
    if (spec.ranks > 1)
    {
        // mpirun runs the point's ranks (Open MPI refuses root unless told it is wanted).
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
        args = {"mpirun", "-np", std::to_string(spec.ranks)};
        if (spec.ranks > std::thread::hardware_concurrency())
        {
            args.emplace_back("--oversubscribe");
        }
        args.push_back(binary);
    }
    const std::vector<std::string> point = PointArguments(spec);
    args.insert(args.end(), point.begin(), point.end());
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    if (spec.hugePages)
    {
        AskHugePages();
    }
    if (spec.maxMemoryBytes > 0 && !ADDRESS_SANITIZER)
    {
        struct rlimit limit;
        getrlimit(RLIMIT_AS, &limit);
        const rlim_t want = static_cast<rlim_t>(spec.maxMemoryBytes);
        limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? want : std::min(want, limit.rlim_max);
        setrlimit(RLIMIT_AS, &limit);
    }
    if (spec.ranks > 1)
    {
        execvp("mpirun", argv.data());
    }
    else
    {
        execv(binary.c_str(), argv.data());
    }
    return 127;
}

/**
 * \brief What a point's child did, from its outcome.
 * \param spec the point
 * \param o its child's outcome
 * \return the point's result
 */
PointResult
ResultOf(const PointSpec& spec, const FabricProcessPool::Outcome& o)
{
    PointResult result;
    result.spec = spec;
    if (!o.startError.empty())
    {
        result.reason = "cannot start: " + o.startError;
        return result;
    }
    const int status = o.status;
    result.wallS = o.wallS;
    result.peakRssMb = o.peakRssMb;
    result.cpuS = o.cpuS;
    const std::string line = LastLine(o.out);
    if (!line.empty())
    {
        result.child = nlohmann::json::parse(line, nullptr, false);
        if (result.child.is_discarded() || !result.child.is_object())
        {
            result.child = nlohmann::json();
        }
    }
    std::string last = LastLine(o.err);
    if (last.rfind(PROGRAM + ": ", 0) == 0)
    {
        last = last.substr(PROGRAM.size() + 2);
    }
    char limitText[64];
    std::snprintf(limitText,
                  sizeof(limitText),
                  "%.0f MiB",
                  static_cast<double>(spec.maxMemoryBytes) / (1 << 20));
    if (o.killed)
    {
        result.reason = "killed: still building after --maxWallTime";
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && result.child.is_object()
             && result.child.value("completed", false))
    {
        result.completed = true;
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OUT_OF_MEMORY)
    {
        result.reason
            = std::string("out of memory: needs more than --maxMemory (") + limitText + ")";
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) == FailureReport::EXIT_STALLED)
    {
        const std::string finding
            = result.child.is_object() ? result.child.value("finding", std::string()) : last;
        if (finding.find("MaxWallTime") != std::string::npos && result.child.is_object())
        {
            char stopped[128];
            std::snprintf(stopped,
                          sizeof(stopped),
                          "stopped at --maxWallTime (%s s) after %.1f us simulated",
                          SecondsText(spec.maxWallTimeS).c_str(),
                          result.child.value("sim_time_us", 0.0));
            result.reason = stopped;
        }
        else
        {
            result.reason = "could not complete: " + finding;
        }
    }
    else if (WIFSIGNALED(status))
    {
        result.reason = std::string("crashed: ") + strsignal(WTERMSIG(status))
                        + (spec.maxMemoryBytes > 0 ? std::string(" (with --maxMemory of ")
                                                         + limitText + ", likely out of memory)"
                                                   : std::string())
                        + (last.empty() ? "" : ": " + last);
    }
    else
    {
        result.reason = "exit status " + std::to_string(WEXITSTATUS(status))
                        + (last.empty() ? "" : ": " + last);
    }
    return result;
}

/**
 * \param bytes a size
 * \return it as 256M, 1G, 64K or bytes
 */
std::string
SizeText(uint64_t bytes)
{
    const char* units = "KMG";
    for (int u = 2; u >= 0; --u)
    {
        const uint64_t unit = 1ULL << (10 * (u + 1));
        if (bytes >= unit && bytes % unit == 0)
        {
            return std::to_string(bytes / unit) + units[u];
        }
    }
    return std::to_string(bytes);
}

/**
 * \param r a point's result
 * \return its JSON object
 */
nlohmann::ordered_json
PointJson(const PointResult& r)
{
    nlohmann::ordered_json j;
    j["gpus"] = r.spec.servers * 8;
    j["servers"] = r.spec.servers;
    j["bytes"] = r.spec.bytes;
    j["algo"] = r.spec.algo;
    j["mode"] = r.spec.mode;
    j["completed"] = r.completed;
    j["reason"] = r.reason;
    j["wall_s"] = r.wallS;
    j["peak_rss_mb"] = r.peakRssMb;
    j["cpu_s"] = r.cpuS;
    j["ranks"] = r.spec.ranks;
    if (r.child.is_object())
    {
        const double runS = r.child.value("run_s", 0.0);
        const double events = r.child.value("events", 0.0);
        const double hops = r.child.value("data_packet_hops", 0.0);
        j["algo_used"] = r.child.value("algo_used", std::string());
        j["time_us"] = r.child.value("time_us", 0.0);
        j["sim_time_us"] = r.child.value("sim_time_us", 0.0);
        j["algbw_GBps"] = r.child.value("algbw_GBps", 0.0);
        j["busbw_GBps"] = r.child.value("busbw_GBps", 0.0);
        j["setup_s"] = r.child.value("setup_s", 0.0);
        j["run_s"] = runS;
        j["run_cpu_s"] = r.child.value("run_cpu_s", 0.0);
        j["huge_pages"] = r.child.value("huge_pages", false);
        j["events"] = r.child.value("events", uint64_t{0});
        j["events_per_s"] = runS > 0 ? events / runS : 0.0;
        const double runCpu = r.child.value("run_cpu_s", 0.0);
        j["events_per_cpu_s"] = runCpu > 0 ? events / runCpu : 0.0;
        j["data_packet_hops"] = r.child.value("data_packet_hops", uint64_t{0});
        j["rdma_nic_hops"] = r.child.value("rdma_nic_hops", uint64_t{0});
        j["rdma_switch_hops"] = r.child.value("rdma_switch_hops", uint64_t{0});
        j["nvlink_hops"] = r.child.value("nvlink_hops", uint64_t{0});
        if (r.spec.mode == "flow")
        {
            // No packets: what the flow level did instead.
            j["flows"] = r.child.value("flows", uint64_t{0});
            j["events_per_flow"] = events / std::max(1.0, r.child.value("flows", 0.0));
            for (const char* key : {"flow_settlements",
                                    "flow_link_evaluations",
                                    "flow_full_solutions",
                                    "flow_links",
                                    "switches"})
            {
                j[key] = r.child.value(key, uint64_t{0});
            }
        }
        else
        {
            j["events_per_hop"] = hops > 0 ? events / hops : 0.0;
        }
        j["retransmits"] = r.child.value("retransmits", uint64_t{0});
        j["scheduler"] = r.child.value("scheduler", std::string());
        if (r.child.contains("mpi"))
        {
            j["mpi"] = r.child["mpi"];
        }
    }
    return j;
}

/**
 * \param os the stream
 * \param j a point's JSON
 */
void
PrintRow(std::ostream& os, const nlohmann::ordered_json& j)
{
    char line[512];
    const std::string algo = j["algo"].get<std::string>() == "auto" && j.contains("algo_used")
                                 ? "auto:" + j["algo_used"].get<std::string>()
                                 : j["algo"].get<std::string>();
    if (!j.contains("events"))
    {
        std::snprintf(line,
                      sizeof(line),
                      "%6u %6s %-6s %-13s %9s %9.1f %9s %12s %11s %8s %9.0f  not run: %s",
                      j["gpus"].get<uint32_t>(),
                      SizeText(j["bytes"].get<uint64_t>()).c_str(),
                      j["mode"].get<std::string>().c_str(),
                      algo.c_str(),
                      "-",
                      j["wall_s"].get<double>(),
                      "-",
                      "-",
                      "-",
                      "-",
                      j["peak_rss_mb"].get<double>(),
                      j["reason"].get<std::string>().c_str());
        os << line << "\n";
        return;
    }
    char busbw[32] = "-";
    if (j["completed"].get<bool>())
    {
        std::snprintf(busbw, sizeof(busbw), "%.2f", j["busbw_GBps"].get<double>());
    }
    char perHop[32] = "-"; // the flow level has no packet-hops
    if (j.contains("events_per_hop"))
    {
        std::snprintf(perHop, sizeof(perHop), "%.2f", j["events_per_hop"].get<double>());
    }
    std::snprintf(line,
                  sizeof(line),
                  "%6u %6s %-6s %-13s %9s %9.1f %9.1f %12llu %11.0f %8s %9.0f  %s",
                  j["gpus"].get<uint32_t>(),
                  SizeText(j["bytes"].get<uint64_t>()).c_str(),
                  j["mode"].get<std::string>().c_str(),
                  algo.c_str(),
                  busbw,
                  j["wall_s"].get<double>(),
                  j["run_s"].get<double>(),
                  static_cast<unsigned long long>(j["events"].get<uint64_t>()),
                  j["events_per_s"].get<double>(),
                  perHop,
                  j["peak_rss_mb"].get<double>(),
                  j["completed"].get<bool>()
                      ? "ok"
                      : ("incomplete: " + j["reason"].get<std::string>()).c_str());
    os << line << "\n";
}

/**
 * \param options the parsed flags
 * \return --servers as a list of 2 to 16,384 servers per point
 */
std::vector<uint32_t>
ParseLadder(const ScenarioOptions& options)
{
    const std::string& servers = options.Get("servers");
    std::vector<uint32_t> ladder;
    std::istringstream list(servers);
    std::string item;
    while (std::getline(list, item, ','))
    {
        ladder.push_back(FabricCli::Whole(PROGRAM, "servers", item, 1, 16384));
    }
    if (ladder.empty() || servers.back() == ',')
    {
        options.Fail("--servers=" + servers + ": expected a list such as 2,8,32");
    }
    for (uint32_t s : ladder)
    {
        if (s < 2)
        {
            options.Fail("--servers=" + servers
                         + ": a point needs at least 2 servers (a fabric between them)");
        }
    }
    return ladder;
}

/**
 * \param options the parsed flags
 * \return --algos as a list
 */
std::vector<std::string>
ParseAlgos(const ScenarioOptions& options)
{
    const std::string& algos = options.Get("algos");
    std::vector<std::string> algoList;
    std::istringstream list(algos);
    std::string item;
    while (std::getline(list, item, ','))
    {
        if (item != "ring" && item != "auto")
        {
            options.Fail("--algos=" + algos + ": expected ring and/or auto");
        }
        algoList.push_back(item);
    }
    if (algoList.empty() || algos.back() == ',')
    {
        options.Fail("--algos=" + algos + ": expected ring and/or auto");
    }
    return algoList;
}

/**
 * \param options the parsed flags
 * \return --mode as a list
 */
std::vector<std::string>
ParseModes(const ScenarioOptions& options)
{
    const std::string& modes = options.Get("mode");
    std::vector<std::string> modeList;
    std::istringstream list(modes);
    std::string item;
    while (std::getline(list, item, ','))
    {
        if ((item != "packet" && item != "flow")
            || std::find(modeList.begin(), modeList.end(), item) != modeList.end())
        {
            options.Fail("--mode=" + modes + ": expected packet and/or flow");
        }
        modeList.push_back(item);
    }
    if (modeList.empty() || modes.back() == ',')
    {
        options.Fail("--mode=" + modes + ": expected packet and/or flow");
    }
    return modeList;
}

/**
 * \param options the parsed flags
 * \param wallLimit set to --maxWallTime
 * \param memoryLimit set to --maxMemory (0: none; always none under AddressSanitizer)
 */
void
ParseLimits(const ScenarioOptions& options, Time& wallLimit, uint64_t& memoryLimit)
{
    const std::string& maxWallTime = options.Get("maxWallTime");
    if (!FabricCli::ParseTime(maxWallTime, wallLimit))
    {
        options.Fail("--maxWallTime=" + maxWallTime + ": expected a time such as 1200s");
    }
    const std::string& maxMemory = options.Get("maxMemory");
    memoryLimit = 0;
    if (maxMemory != "0")
    {
        memoryLimit = options.Bytes("maxMemory");
        if (memoryLimit < (64ULL << 20))
        {
            options.Fail("--maxMemory=" + maxMemory + ": expected at least 64M");
        }
    }
    if (ADDRESS_SANITIZER)
    {
        memoryLimit = 0;
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    if (argc > 1 && argv[1] == POINT_OPTION)
    {
        return PointMain(argc, argv);
    }
    ScenarioOptions options(PROGRAM);
    options.SetWatchdog(false); // each point has its own limits
    options.AddFlag("quick",
                    "a smoke test under a minute: 16 and 64 GPUs, 16 MiB (unless --servers or "
                    "--bytes are given)",
                    false);
    options.Use("servers",
                "2,8,32,128",
                "the ladder: DGX H100 servers per point, comma-separated (8 GPUs each)");
    options.Add("bytes", "all-reduce size of every point, K/M/G suffixes", "1G");
    options.Add("algos", "algorithms, comma-separated: ring and/or auto", "ring,auto");
    options.Add(
        "mode",
        "the engine: packet or flow, or both comma-separated (the flow level, its fabric built "
        "without devices: FlowFabric); with both, each point runs in each, flow after "
        "packet",
        "packet");
    options.Add("tiers", "fat-tree tiers: 2 (leaf-spine) or 3 (k-ary fat-tree)", "2");
    options.Add("radix", "ports per switch (even)", std::to_string(RADIX));
    options.Use("json");
    options.Add("maxWallTime",
                "wall-clock limit of each point (e.g. 1200s; 0: none); a point that reaches "
                "it is stopped and reported",
                "1200s");
    options.Add("maxMemory",
                "address-space limit of each point's process, K/M/G suffixes (0: none); a "
                "point that needs more is reported",
                "8G");
    options.AddFlag("hugePages",
                    "back each point's heap with transparent huge pages (glibc.malloc.hugetlb=1 "
                    "in GLIBC_TUNABLES, unless set there; used where the kernel's THP mode is "
                    "madvise or always): at 8,192 GPUs the flow level ran 4% to 24% faster",
                    true);
    options.Add("ranks",
                "MPI ranks of each point (the MPI build: ./ns3 configure --mpi); each point "
                "runs under mpirun -np N",
                "1");
    options.Use("jobs",
                "1",
                "points; their wall times and events/s then share the cores and are not "
                "comparable with a serial run's");
    options.Parse(argc,
                  argv,
                  "The scale benchmark: one all-reduce per ladder point (DGX H100 servers on a "
                  "rail-optimized 2-tier fat-tree of radix 64, RoCEv2 with PFC, ECN and DCQCN), "
                  "each point in its own process; prints busbw, wall time, events, events per "
                  "second, events per data packet-hop and peak RSS per point.");
    const bool quick = options.GetFlag("quick");
    if (quick)
    {
        options.SetDefault("servers", "2,8");
        options.SetDefault("bytes", "16M");
    }
    const std::string& json = options.Get("json");
    const std::vector<uint32_t> ladder = ParseLadder(options);
    const uint64_t size = options.Bytes("bytes");
    if (size % 4 != 0)
    {
        options.Fail("--bytes=" + options.Get("bytes") + ": expected a multiple of 4 (floats)");
    }
    const std::vector<std::string> algoList = ParseAlgos(options);
    const std::vector<std::string> modeList = ParseModes(options);
    const uint32_t tiers = options.Whole("tiers", 2, 3);
    const uint32_t radix = options.Whole("radix", 2, 65534);

    Time wallLimit;
    uint64_t memoryLimit = 0;
    ParseLimits(options, wallLimit, memoryLimit);
    const uint32_t jobs = options.Whole("jobs", 1, FabricProcessPool::MAX_JOBS);
    const uint32_t ranks = options.Whole("ranks", 1, 256);
    const bool hugePages = options.GetFlag("hugePages");
    const std::string kernelHugePages = KernelHugePages();
    if (std::find(modeList.begin(), modeList.end(), "flow") != modeList.end() && ranks > 1)
    {
        options.Fail("--ranks=" + options.Get("ranks")
                     + ": the flow level runs in one process; give --mode=packet");
    }
#ifndef NS3_MPI
    if (ranks > 1)
    {
        options.Fail("--ranks=" + options.Get("ranks")
                     + ": needs the MPI build (./ns3 configure --mpi)");
    }
#endif
    StringValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    // The programs' simulator (FabricSimulatorImpl, unless chosen otherwise), in every point.
    StringValue simulator;
    GlobalValue::GetValueByName("SimulatorImplementationType", simulator);
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(PROGRAM, "json", json);
    }

    std::cout << "# ai-fabric scale benchmark: DGX H100 servers (8 GPUs, NVLink), rail-optimized "
              << tiers << "-tier fat-tree of radix " << radix
              << ", RoCEv2 (PFC, ECN, DCQCN), one all-reduce per point\n"
              << "# scheduler " << scheduler.Get() << " (inside the watchdog), limits per point: "
              << (wallLimit.IsStrictlyPositive() ? options.Get("maxWallTime") : std::string("none"))
              << " wall, " << (memoryLimit > 0 ? SizeText(memoryLimit) : std::string("no"))
              << " address space\n"
              << "# heap: "
              << (hugePages ? "transparent huge pages asked for (" + HUGE_PAGES_TUNABLE + ")"
                            : std::string("4 KiB pages (--hugePages=false)"))
              << "; the kernel's THP mode: " << kernelHugePages << "\n";
    if (ranks > 1)
    {
        std::cout << "# each point on " << ranks
                  << " MPI ranks: events and CPU time are every rank's, rss the largest rank's\n";
    }
    if (jobs > 1)
    {
        std::cout << "# " << jobs
                  << " points at once (--jobs): wall times and events/s share the cores, not "
                     "comparable with a serial run's\n";
    }
    std::cout
        << "#  gpus  bytes mode   algo              busbw      wall       run       events    "
           "events/s   ev/hop    rss  status\n"
        << "#                                       (GB/s)       (s)       (s)              "
           "                         (MB)\n";
    std::cout.flush();
    std::vector<PointSpec> specs;
    for (uint32_t s : ladder)
    {
        for (const std::string& algo : algoList)
        {
            for (const std::string& mode : modeList)
            {
                PointSpec spec;
                spec.servers = s;
                spec.bytes = size;
                spec.algo = algo;
                spec.scheduler = scheduler.Get();
                spec.simulator = simulator.Get();
                spec.maxWallTimeS = wallLimit.GetSeconds();
                spec.maxMemoryBytes = memoryLimit;
                spec.ranks = ranks;
                spec.mode = mode;
                spec.tiers = tiers;
                spec.radix = radix;
                spec.hugePages = hugePages;
                specs.push_back(spec);
            }
        }
    }
    // Each point in a child process of its own, up to --jobs at once, reported in the
    // ladder's order.
    const std::string binary = SelfPath();
    FabricProcessPool pool(jobs);
    if (wallLimit.IsStrictlyPositive())
    {
        pool.SetTimeLimit(wallLimit.GetSeconds() + KILL_GRACE_S);
    }
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    uint32_t incomplete = 0;
    pool.Run(
        specs.size(),
        [&binary, &specs](std::size_t i) { return ExecPoint(binary, specs[i]); },
        [&](std::size_t i, const FabricProcessPool::Outcome& o)
        {
            const PointResult r = ResultOf(specs[i], o);
            const nlohmann::ordered_json j = PointJson(r);
            PrintRow(std::cout, j);
            std::cout.flush();
            incomplete += r.completed ? 0 : 1;
            points.push_back(j);
            return true;
        });
    if (!json.empty())
    {
        nlohmann::ordered_json j;
        j["benchmark"] = "scale";
        j["server"] = SERVER;
        j["gpus_per_server"] = 8;
        j["topology"] = {{"tiers", tiers}, {"radix", radix}, {"rail", true}};
        j["modes"] = modeList; // --mode, as a list
        j["fabric"] = {{"fabric", "roce"}, {"pfc", true}, {"ecn", true}, {"dcqcn", true}};
        j["scheduler"] = scheduler.Get();
        j["quick"] = quick;
        j["max_wall_time_s"] = wallLimit.GetSeconds();
        j["max_memory_bytes"] = memoryLimit;
        j["jobs"] = jobs;
        j["ranks"] = ranks;
        j["huge_pages"] = {{"asked", hugePages}, {"kernel", kernelHugePages}};
        j["points"] = points;
        if (!jsonFile.CommitJson(PROGRAM, j))
        {
            return 1;
        }
    }
    if (incomplete > 0)
    {
        std::cerr << PROGRAM << ": " << incomplete << " of " << points.size()
                  << " points did not complete (see the table)" << std::endl;
        return FailureReport::EXIT_STALLED;
    }
    return 0;
}
