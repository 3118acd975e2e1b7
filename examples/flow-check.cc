/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The flow level checked against the packet level: each point of a matrix of scenarios
 * (algorithms, 16 to 1,024 GPUs, non-blocking and 4:1 fat-trees, tori, a failed spine link)
 * runs in ai-fabric-fattree or ai-fabric-torus once with --mode=packet and once with
 * --mode=flow, and one row gives both busbw and times, the errors, both wall times and the
 * speed-up, and whether the flow level warned of congestion it does not model.
 *
 *   ./ns3 run flow-check                        # the matrix (about 40 minutes on one core)
 *   ./ns3 run "flow-check --set=quick"          # three small points, a few seconds
 *   ./ns3 run "flow-check --only=gpus16 --jobs=2 --json=check.json"
 *
 * A point passes when its busbw error is within its tolerance (2%, or 5% on oversubscribed
 * and failure points). A point where the flow level warned of congestion is reported but not
 * judged: the error there is what the flow level leaves out (the manual's "The flow level").
 * The exit status is 1 if a judged point fails or a run does not complete, 2 on bad input.
 * Each run is a child process (--jobs at once); the rows come in the matrix's order, and
 * but for the wall times and speed-ups, the output is the same with any --jobs.
 */

#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-plot.h"
#include "ns3/fabric-process-pool.h"
#include "ns3/scenario-options.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{
const std::string PROGRAM = "flow-check";

/// One point of the matrix.
struct Point
{
    std::string name;    //!< short name (--only matches a part of it)
    std::string program; //!< ai-fabric-fattree or ai-fabric-torus
    std::string args;    //!< its arguments, but --mode, --json and --quiet
    double tolerance;    //!< busbw error allowed (fraction)
};

/// The points of a set.
std::vector<Point>
PointsOf(const std::string& set)
{
    const std::string fat = "ai-fabric-fattree";
    const std::string torus = "ai-fabric-torus";
    // DGX H100 servers (8 GPUs, NVLink, NVLS), rail-optimized RoCEv2 fat-trees with PFC, ECN
    // and DCQCN: 2 servers on radix 8, 16 on radix 32, 128 on radix 64 (2 tiers); 4:1 needs a
    // radix that a leaf's 4 + 1 parts divide (20: 16 down, 4 up).
    const std::string one = " --minBytes=256M --maxBytes=256M --iters=1";
    const std::string mid = " --minBytes=64M --maxBytes=64M --iters=1";
    if (set == "quick")
    {
        return {
            {"gpus16-ring-oneperserver", fat, "--server=none --servers=16 --algo=ring" + mid, 0.02},
            {"gpus8-nvls", fat, "--servers=1 --algo=nvls" + one, 0.02},
            {"gpus8-ring-failed-spine-link",
             fat,
             "--server=none --servers=8 --radix=4 --algo=ring --minBytes=8M --maxBytes=8M "
             "--iters=1 --warmup=0 --failures=link:leaf0-spine0@200us",
             0.05},
        };
    }
    std::vector<Point> points;
    for (const std::string algo : {"ring", "tree", "hier", "nvlstree"})
    {
        points.push_back(
            {"gpus16-" + algo, fat, "--servers=2 --radix=8 --algo=" + algo + one, 0.02});
    }
    points.push_back({"gpus16-alltoall",
                      fat,
                      "--servers=2 --radix=8 --collective=alltoall --algo=direct" + mid,
                      0.02});
    for (const std::string algo : {"ring", "tree", "hier", "nvlstree"})
    {
        points.push_back(
            {"gpus128-" + algo, fat, "--servers=16 --radix=32 --algo=" + algo + one, 0.02});
    }
    points.push_back({"gpus128-alltoall",
                      fat,
                      "--servers=16 --radix=32 --collective=alltoall --algo=direct" + mid,
                      0.02});
    for (const std::string algo : {"ring", "nvlstree"})
    {
        points.push_back({"gpus128-4to1-" + algo,
                          fat,
                          "--servers=16 --radix=20 --oversubscription=4 --algo=" + algo + one,
                          0.05});
    }
    points.push_back({"gpus128-4to1-alltoall",
                      fat,
                      "--servers=16 --radix=20 --oversubscription=4 --collective=alltoall "
                      "--algo=direct"
                          + mid,
                      0.05});
    points.push_back({"gpus16-torus4x4", torus, "--dims=4x4" + one, 0.02});
    points.push_back({"gpus64-torus4x4x4", torus, "--dims=4x4x4" + mid, 0.02});
    points.push_back({"gpus16-ring-failed-spine-link",
                      fat,
                      "--server=none --servers=16 --algo=ring --minBytes=32M --maxBytes=32M "
                      "--iters=1 --warmup=0 --failures=link:leaf0-spine0@200us",
                      0.05});
    for (const std::string algo : {"ring", "tree", "nvlstree"})
    {
        points.push_back(
            {"gpus1024-" + algo, fat, "--servers=128 --radix=64 --algo=" + algo + mid, 0.02});
    }
    return points;
}

/// What one run of a point gave.
struct Run
{
    bool ok{false};          //!< it completed and its JSON was read
    std::string error;       //!< why not
    double busbw{0};         //!< GB/s
    double timeUs{0};        //!< the collective's time
    double wallS{0};         //!< the process's wall time
    double rssMb{0};         //!< its peak RSS
    uint32_t congested{0};   //!< flow level: switch ports congested (sim.flow_congestion)
    double demand{0};        //!< flow level: the highest demand
    uint32_t sharedInput{0}; //!< flow level: ports with converging flows on shared inputs
};

/**
 * \param text arguments separated by spaces
 * \return them
 */
std::vector<std::string>
Words(const std::string& text)
{
    std::istringstream in(text);
    std::vector<std::string> words;
    std::string w;
    while (in >> w)
    {
        words.push_back(w);
    }
    return words;
}

/// \return the folder of this program (its siblings are there)
std::string
ProgramDir()
{
    std::vector<char> buf(4096);
    const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0)
    {
        return ".";
    }
    const std::string self(buf.data(), static_cast<std::size_t>(n));
    return self.substr(0, self.rfind('/'));
}

/**
 * \param o a child's outcome
 * \param json the file it was to write
 * \return what the run gave
 */
Run
ReadRun(const FabricProcessPool::Outcome& o, const std::string& json)
{
    Run r;
    r.wallS = o.wallS;
    r.rssMb = o.peakRssMb;
    if (!o.startError.empty())
    {
        r.error = "could not start: " + o.startError;
        return r;
    }
    if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0)
    {
        std::string last = o.err;
        while (!last.empty() && last.back() == '\n')
        {
            last.pop_back();
        }
        last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
        r.error = (WIFEXITED(o.status) ? "exit status " + std::to_string(WEXITSTATUS(o.status))
                                       : "killed by signal " + std::to_string(WTERMSIG(o.status)))
                  + (last.empty() ? "" : ": " + last);
        return r;
    }
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("results") || j["results"].empty())
    {
        r.error = "no results in its JSON";
        return r;
    }
    const nlohmann::json& last = j["results"].back();
    r.busbw = last["busbw_GBps"].get<double>();
    r.timeUs = last["time_us"].get<double>();
    if (j["sim"].contains("flow_congestion"))
    {
        r.congested = j["sim"]["flow_congestion"]["links"].get<uint32_t>();
        r.demand = j["sim"]["flow_congestion"]["peak_demand"].get<double>();
        r.sharedInput = j["sim"]["flow_congestion"]["shared_input_links"].get<uint32_t>();
    }
    r.ok = true;
    return r;
}

/**
 * \param x a value
 * \param digits after the point
 * \return it as fixed-point text
 */
std::string
Fixed(double x, int digits)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << x;
    return os.str();
}

/**
 * \param fraction an error
 * \return it in percent with its sign
 */
std::string
Percent(double fraction)
{
    return (fraction >= 0 ? "+" : "") + Fixed(100 * fraction, 2) + "%";
}
} // namespace

int
main(int argc, char* argv[])
{
    ScenarioOptions options(PROGRAM);
    options.SetWatchdog(false); // it runs no simulation itself; each run has its program's
    options.Add(
        "set", "the points: matrix (the full cross-check) or quick (three small ones)", "matrix");
    options.Add("only", "run only the points whose name contains this text", "");
    options.Use("json");
    options.Use("plot");
    options.Use(
        "jobs", "1", "the two runs of every point; the rows are the same but for the wall times");
    options.Parse(argc,
                  argv,
                  "The flow level against the packet level: each point of a matrix of "
                  "scenarios runs in both modes; one row per point with both busbw, the "
                  "errors, the wall times and the speed-up.");
    const std::string set = options.Get("set");
    const std::string only = options.Get("only");
    const uint32_t jobs = options.Whole("jobs", 1, FabricProcessPool::MAX_JOBS);
    if (set != "matrix" && set != "quick")
    {
        FabricCli::Fail(PROGRAM, "--set=" + set + ": expected matrix or quick");
    }
    std::vector<Point> points;
    for (const Point& p : PointsOf(set))
    {
        if (p.name.find(only) != std::string::npos)
        {
            points.push_back(p);
        }
    }
    if (points.empty())
    {
        FabricCli::Fail(PROGRAM, "--only=" + only + ": no point of the " + set + " set matches");
    }
    FabricOutputFile jsonFile;
    const std::string plot = options.Get("plot");
    if (!plot.empty())
    {
        const std::string why = FabricPlot::Prepare(plot);
        if (!why.empty())
        {
            FabricCli::Fail(PROGRAM, "--plot=" + plot + ": " + why);
        }
    }
    if (!options.Get("json").empty())
    {
        jsonFile.OpenOrFail(PROGRAM, "json", options.Get("json"));
    }
    char tmpl[] = "/tmp/flow-check-XXXXXX";
    const char* tmp = mkdtemp(tmpl);
    if (tmp == nullptr)
    {
        FabricCli::Fail(PROGRAM, "cannot make a temporary folder in /tmp");
    }
    const std::string dir = ProgramDir();
    // Run 2i is point i at the packet level, 2i + 1 at the flow level.
    auto jsonOf = [&tmp](std::size_t run)
    { return std::string(tmp) + "/" + std::to_string(run) + ".json"; };

    std::cout << "# flow-check: the flow level against the packet level, " << points.size()
              << " point(s); busbw of the last size (GB/s), error = flow / packet - 1\n"
              << "# " << std::left << std::setw(30) << "point" << std::right << std::setw(10)
              << "packet" << std::setw(10) << "flow" << std::setw(10) << "busbw" << std::setw(13)
              << "packet" << std::setw(13) << "flow" << std::setw(9) << "time" << std::setw(9)
              << "packet" << std::setw(8) << "flow" << std::setw(9) << "speed"
              << "  verdict\n"
              << "# " << std::setw(30) << "" << std::setw(10) << "(GB/s)" << std::setw(10)
              << "(GB/s)" << std::setw(10) << "error" << std::setw(13) << "(us)" << std::setw(13)
              << "(us)" << std::setw(9) << "error" << std::setw(9) << "(s)" << std::setw(8) << "(s)"
              << std::setw(9) << "-up"
              << "\n";
    std::cout.flush();

    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    bool allPass = true;
    Run packet;
    FabricProcessPool pool(jobs);
    pool.Run(
        2 * points.size(),
        [&](std::size_t run)
        {
            const Point& p = points[run / 2];
            std::vector<std::string> args{dir + "/" + p.program};
            for (const std::string& w : Words(p.args))
            {
                args.push_back(w);
            }
            args.push_back(run % 2 == 0 ? "--mode=packet" : "--mode=flow");
            // The engines' error alone, with the protocol the matrix was measured with.
            args.push_back("--protocol=simple");
            args.push_back("--quiet");
            args.push_back("--json=" + jsonOf(run));
            std::vector<char*> argvChild;
            for (std::string& a : args)
            {
                argvChild.push_back(a.data());
            }
            argvChild.push_back(nullptr);
            execv(argvChild[0], argvChild.data());
            std::cerr << PROGRAM << ": cannot run " << args[0] << std::endl;
            return 127;
        },
        [&](std::size_t run, const FabricProcessPool::Outcome& o)
        {
            const Run r = ReadRun(o, jsonOf(run));
            std::remove(jsonOf(run).c_str());
            if (run % 2 == 0)
            {
                packet = r;
                return true;
            }
            const Point& p = points[run / 2];
            const Run& flow = r;
            nlohmann::ordered_json row = {{"point", p.name},
                                          {"program", p.program},
                                          {"args", p.args},
                                          {"tolerance", p.tolerance}};
            std::cout << "  " << std::left << std::setw(30) << p.name << std::right;
            if (!packet.ok || !flow.ok)
            {
                const std::string why
                    = !packet.ok ? "packet: " + packet.error : "flow: " + flow.error;
                std::cout << "  did not complete (" << why << ")\n";
                row["error"] = why;
                allPass = false;
            }
            else
            {
                const double busbwError = flow.busbw / packet.busbw - 1;
                const double timeError = flow.timeUs / packet.timeUs - 1;
                const bool warned = flow.congested > 0 || flow.sharedInput > 0;
                const bool pass = std::fabs(busbwError) <= p.tolerance;
                const std::string why = flow.congested > 0 ? "demand " + Fixed(flow.demand, 1) + "x"
                                                           : "shared inputs";
                const std::string verdict = warned ? "warned (" + why + "): not judged"
                                                   : (pass ? "pass" : "FAIL")
                                                         + std::string(" (within ")
                                                         + Fixed(100 * p.tolerance, 0) + "%)";
                allPass = allPass && (warned || pass);
                std::cout << std::setw(10) << Fixed(packet.busbw, 2) << std::setw(10)
                          << Fixed(flow.busbw, 2) << std::setw(10) << Percent(busbwError)
                          << std::setw(13) << Fixed(packet.timeUs, 2) << std::setw(13)
                          << Fixed(flow.timeUs, 2) << std::setw(9) << Percent(timeError)
                          << std::setw(9) << Fixed(packet.wallS, 1) << std::setw(8)
                          << Fixed(flow.wallS, 2) << std::setw(8)
                          << Fixed(packet.wallS / std::max(flow.wallS, 1e-3), 0) << "x"
                          << "  " << verdict << "\n";
                row["packet"] = {{"busbw_GBps", packet.busbw},
                                 {"time_us", packet.timeUs},
                                 {"wall_s", packet.wallS},
                                 {"peak_rss_mb", packet.rssMb}};
                row["flow"] = {{"busbw_GBps", flow.busbw},
                               {"time_us", flow.timeUs},
                               {"wall_s", flow.wallS},
                               {"peak_rss_mb", flow.rssMb},
                               {"congested_links", flow.congested},
                               {"peak_demand", flow.demand},
                               {"shared_input_links", flow.sharedInput}};
                row["busbw_error"] = busbwError;
                row["time_error"] = timeError;
                row["verdict"] = warned ? "warned" : (pass ? "pass" : "fail");
            }
            std::cout.flush();
            rows.push_back(row);
            return true;
        });
    rmdir(tmp);
    std::cout << "# "
              << (allPass ? "every judged point within its tolerance"
                          : "a judged point is outside its tolerance, or a run failed")
              << std::endl;
    const nlohmann::ordered_json j = {{"set", set}, {"only", only}, {"points", rows}};
    if (jsonFile.IsOpen() && !jsonFile.CommitJson(PROGRAM, j))
    {
        return 2;
    }
    const std::string why = plot.empty() ? "" : FabricPlot::Write(j, plot);
    if (!why.empty())
    {
        std::cerr << PROGRAM << ": --plot=" << plot << ": " << why << std::endl;
        return 2;
    }
    return allPass ? 0 : 1;
}
