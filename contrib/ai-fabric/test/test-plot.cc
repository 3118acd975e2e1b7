/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Figures (--plot=DIR, FabricPlot, ai-fabric-plot): each kind is written, rendered and
// non-empty; its data file holds exactly the run's numbers; a saved result gives the same
// files; bad targets are one line.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-programs.h"
#include "ns3/fabric-plot.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// A data file's blocks (separated by blank lines), each a list of rows of numbers.
using Blocks = std::vector<std::vector<std::vector<double>>>;

/**
 * \param path a data file FabricPlot wrote
 * \return its blocks ('#' lines skipped; one or more blank lines end a block)
 */
Blocks
ReadBlocks(const std::string& path)
{
    std::ifstream in(path);
    Blocks blocks;
    bool open = false;
    std::string line;
    while (std::getline(in, line))
    {
        if (!line.empty() && line[0] == '#')
        {
            continue;
        }
        if (line.empty())
        {
            open = false;
            continue;
        }
        if (!open)
        {
            blocks.emplace_back();
            open = true;
        }
        std::istringstream row(line);
        std::vector<double> values;
        double v;
        while (row >> v)
        {
            values.push_back(v);
        }
        blocks.back().push_back(values);
    }
    return blocks;
}

/**
 * \param dir a --plot directory
 * \param name a figure
 * \brief Its four files are there and not empty; the PNG is a PNG, the SVG an SVG.
 */
void
ExpectFigure(const std::string& dir, const std::string& name)
{
    for (const char* ext : {".png", ".svg", ".dat", ".plt"})
    {
        const std::string text = ReadFile(dir + "/" + name + ext);
        EXPECT_GT(text.size(), 40u) << dir << "/" << name << ext;
    }
    EXPECT_EQ(ReadFile(dir + "/" + name + ".png").substr(1, 3), "PNG") << name;
    EXPECT_NE(ReadFile(dir + "/" + name + ".svg").find("<svg"), std::string::npos) << name;
}

} // namespace

TEST(PlotTest, LinkKinds)
{
    EXPECT_EQ(FabricPlot::LinkKind("gpu3->leaf1"), "gpu->leaf");
    EXPECT_EQ(FabricPlot::LinkKind("leaf1->spine12"), "leaf->spine");
    EXPECT_EQ(FabricPlot::LinkKind("gpu0->server0-nvswitch3"), "gpu->nvswitch");
    EXPECT_EQ(FabricPlot::LinkKind("pod0-agg1->core7"), "agg->core");
    EXPECT_EQ(FabricPlot::LinkKind("torus0-1-0->torus1-1-0"), "torus X");
    EXPECT_EQ(FabricPlot::LinkKind("torus0-1-0->torus0-2-0"), "torus Y");
    EXPECT_EQ(FabricPlot::LinkKind("torus0-1-0->torus0-1-3"), "torus Z");
    EXPECT_EQ(FabricPlot::LinkKind("gpu4->torus0-1-0"), "gpu->torus");
    EXPECT_EQ(FabricPlot::LinkKind("no arrow"), "link");
}

// A sweep on which the tuner picks two algorithms: busbw and time with a block per algorithm
// holding exactly the JSON's rows, and the link map with every link's utilization in order.
TEST(PlotTest, SweepFiguresHoldTheRunsNumbers)
{
    const std::string dir = TempDir();
    const std::string plot = dir + "/figures";
    const CommandResult r = RunCommand(
        ProgramPath("ai-fabric-fattree") +
        " --server=none --servers=8 --radix=4 --minBytes=1M --maxBytes=64M --stepFactor=8"
        " --iters=1 --warmup=0 --quiet --json=" +
        dir + "/run.json --plot=" + plot);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/run.json"));
    for (const char* name : {"busbw", "time", "links"})
    {
        ExpectFigure(plot, name);
    }
    // The algorithms in order of first appearance, and their rows.
    std::vector<std::string> algos;
    std::vector<std::vector<nlohmann::json>> rows;
    for (const nlohmann::json& row : j["results"])
    {
        const std::string algo = row["algo"];
        const auto it = std::find(algos.begin(), algos.end(), algo);
        if (it == algos.end())
        {
            algos.push_back(algo);
            rows.emplace_back();
        }
        rows[std::find(algos.begin(), algos.end(), algo) - algos.begin()].push_back(row);
    }
    ASSERT_GE(algos.size(), 2u) << "the tuner should pick two algorithms over this sweep";
    for (const auto& [name, key] : std::vector<std::pair<std::string, std::string>>{
             {"busbw", "busbw_GBps"}, {"time", "time_us"}})
    {
        const Blocks blocks = ReadBlocks(plot + "/" + name + ".dat");
        ASSERT_EQ(blocks.size(), algos.size()) << name;
        for (std::size_t a = 0; a < algos.size(); ++a)
        {
            ASSERT_EQ(blocks[a].size(), rows[a].size()) << name << " " << algos[a];
            for (std::size_t i = 0; i < rows[a].size(); ++i)
            {
                EXPECT_EQ(blocks[a][i][0], rows[a][i]["bytes"].get<double>());
                EXPECT_EQ(blocks[a][i][1], rows[a][i][key].get<double>()) << name;
            }
        }
        EXPECT_NE(ReadFile(plot + "/" + name + ".plt").find("title \"" + algos[1] + "\""),
                  std::string::npos);
    }
    const Blocks links = ReadBlocks(plot + "/links.dat");
    std::vector<double> utilization;
    std::size_t cells = 0;
    for (const auto& block : links)
    {
        for (const auto& cell : block)
        {
            ASSERT_EQ(cell.size(), 3u);
            utilization.push_back(cell[2]);
            ++cells;
        }
    }
    ASSERT_EQ(cells, j["links"].size());
    // Rows are kinds in order of first appearance: sorting both sides compares the multisets.
    std::vector<double> expected;
    for (const nlohmann::json& l : j["links"])
    {
        expected.push_back(l["utilization"].get<double>());
    }
    std::sort(expected.begin(), expected.end());
    std::sort(utilization.begin(), utilization.end());
    EXPECT_EQ(utilization, expected);
}

// The congestion examples' time series: a queue per watched port, a rate and a throughput per
// flow, a pause state per flow, each exactly the JSON's series; and ai-fabric-plot of the saved
// JSON writes the same files, byte for byte.
TEST(PlotTest, SeriesFiguresAndTheSavedResult)
{
    const std::string dir = TempDir();
    const std::string plot = dir + "/figures";
    const CommandResult r
        = RunCommand(ProgramPath("ai-fabric-incast") + " --senders=4 --bytes=512K --json=" + dir
                     + "/run.json --plot=" + plot);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/run.json"));
    ASSERT_TRUE(j.contains("series"));
    const nlohmann::json& s = j["series"];
    for (const char* name : {"queues", "rates", "pause"})
    {
        ExpectFigure(plot, name);
    }
    const Blocks queues = ReadBlocks(plot + "/queues.dat");
    ASSERT_EQ(queues.size(), s["ports"].size());
    ASSERT_EQ(queues[0].size(), s["time_us"].size());
    for (std::size_t i = 0; i < queues[0].size(); ++i)
    {
        EXPECT_EQ(queues[0][i][0], s["time_us"][i].get<double>());
        EXPECT_EQ(queues[0][i][1], s["ports"][0]["queue_bytes"][i].get<double>());
    }
    const Blocks rates = ReadBlocks(plot + "/rates.dat");
    ASSERT_EQ(rates.size(), 2 * s["flows"].size()); // rate, then throughput, per flow
    for (std::size_t f = 0; f < s["flows"].size(); ++f)
    {
        for (std::size_t i = 0; i < rates[2 * f].size(); ++i)
        {
            EXPECT_EQ(rates[2 * f][i][1], s["flows"][f]["rate_gbps"][i].get<double>());
            EXPECT_EQ(rates[2 * f + 1][i][1], s["flows"][f]["throughput_gbps"][i].get<double>());
        }
    }
    const Blocks pause = ReadBlocks(plot + "/pause.dat");
    ASSERT_EQ(pause.size(), s["flows"].size());
    for (std::size_t f = 0; f < pause.size(); ++f)
    {
        for (std::size_t i = 0; i < pause[f].size(); ++i)
        {
            EXPECT_EQ(pause[f][i][1], f + 0.8 * s["flows"][f]["paused"][i].get<double>());
        }
    }

    const std::string again = dir + "/again";
    const CommandResult p = RunCommand(ProgramPath("ai-fabric-plot") + " --result=" + dir
                                       + "/run.json --plot=" + again);
    ASSERT_EQ(p.status, 0) << p.err;
    EXPECT_NE(p.out.find("queues.png"), std::string::npos) << p.out;
    for (const char* name : {"queues", "rates", "pause"})
    {
        for (const char* ext : {".png", ".svg", ".dat", ".plt"})
        {
            EXPECT_EQ(ReadFile(plot + "/" + name + ext), ReadFile(again + "/" + name + ext))
                << name << ext;
        }
    }
}

// A collective's time series (with --plot): the payload received, whose last sample is the
// all-reduce's exact bytes (a ring moves 2(n-1)/n of the buffer into each of n ranks), a
// failure, its detection and its reroute marked, the ports' queues; the table is the same
// with and without the sampling.
TEST(PlotTest, CollectiveProgressAcrossAFailure)
{
    const std::string dir = TempDir();
    const std::string args
        = " --server=none --servers=8 --radix=4 --algo=ring --minBytes=8M"
          " --maxBytes=8M --iters=1 --warmup=0 --quiet"
          " --failures=link:leaf0-spine0@200us";
    const CommandResult plain = RunCommand(ProgramPath("ai-fabric-fattree") + args);
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree") + args + " --json=" + dir
                                       + "/run.json --plot=" + dir + "/figures");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, plain.out) << "sampling must not move the simulation";
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/run.json"));
    const nlohmann::json& s = j["series"];
    ASSERT_GT(s["time_us"].size(), 10u);
    EXPECT_LE(s["time_us"].size(), 1024u);
    double last = 0;
    for (const nlohmann::json& v : s["progress_bytes"])
    {
        EXPECT_GE(v.get<double>(), last);
        last = v.get<double>();
    }
    const double n = 8;
    const double bytes = 8 << 20;
    EXPECT_EQ(last, 2 * (n - 1) / n * bytes * n);
    ExpectFigure(dir + "/figures", "progress");
    ExpectFigure(dir + "/figures", "queues");
    const std::string script = ReadFile(dir + "/figures/progress.plt");
    for (const char* mark : {"link leaf0-spine0 down", "detected", "rerouted"})
    {
        EXPECT_NE(script.find(mark), std::string::npos) << mark;
    }
    const Blocks progress = ReadBlocks(dir + "/figures/progress.dat");
    ASSERT_EQ(progress.size(), 1u);
    ASSERT_EQ(progress[0].size(), s["time_us"].size());
    EXPECT_EQ(progress[0].back()[1], last);
    ASSERT_FALSE(s["ports"].empty());
    const Blocks queues = ReadBlocks(dir + "/figures/queues.dat");
    EXPECT_EQ(queues[0][0][1], s["ports"][0]["queue_bytes"][0].get<double>());
}

// Congested all-to-alls on a 4:1 tree: RoCEv2 without DCQCN pauses with PFC, InfiniBand
// stalls for credits; each gives its figure, shares of an interval between 0 and 1.
TEST(PlotTest, PauseAndCreditStallSeries)
{
    const std::string dir = TempDir();
    const std::string args
        = " --server=none --servers=16 --radix=10 --oversubscription=4:1"
          " --collective=alltoall --maxBytes=16M --iters=1 --warmup=0 --quiet";
    for (const auto& [fabric, key, figure] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"roce --dcqcn=false --minBytes=16M", "paused", "paused"},
             {"ib --minBytes=4M --maxBytes=4M", "stalled", "stalled"}})
    {
        const std::string out = dir + "/" + figure;
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree") + args + " --fabric="
                                           + fabric + " --json=" + out + ".json --plot=" + out);
        ASSERT_EQ(r.status, 0) << r.err;
        ExpectFigure(out, figure);
        const nlohmann::json j = nlohmann::json::parse(ReadFile(out + ".json"));
        double peak = 0;
        for (const nlohmann::json& port : j["series"]["ports"])
        {
            for (const nlohmann::json& v : port[key])
            {
                EXPECT_GE(v.get<double>(), 0.0);
                EXPECT_LE(v.get<double>(), 1.0);
                peak = std::max(peak, v.get<double>());
            }
        }
        EXPECT_GT(peak, 0.0) << fabric;
    }
}

// The studies: failure-sweep's slowdown per failed link, flow-check's busbw error per point,
// each bar the JSON's number.
TEST(PlotTest, StudiesFigures)
{
    const std::string dir = TempDir();
    const CommandResult sweep = RunCommand(
        ProgramPath("failure-sweep") + " --servers=8 --radix=4 --bytes=1M --channels=1 --at=20us"
        " --quiet --json=" + dir + "/sweep.json --plot=" + dir + "/sweep");
    ASSERT_EQ(sweep.status, 0) << sweep.err;
    ExpectFigure(dir + "/sweep", "failures");
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/sweep.json"));
    const Blocks bars = ReadBlocks(dir + "/sweep/failures.dat");
    ASSERT_EQ(bars.size(), 1u);
    ASSERT_EQ(bars[0].size(), s["links"].size());
    for (std::size_t i = 0; i < bars[0].size(); ++i)
    {
        EXPECT_EQ(bars[0][i][1], s["links"][i]["slowdown"].get<double>());
    }
    EXPECT_FALSE(ListDir(dir + "/sweep").count("links.png")) << "its links are failed links";

    const CommandResult check
        = RunCommand(ProgramPath("flow-check") + " --set=quick --only=gpus8-nvls --json=" + dir
                     + "/check.json --plot=" + dir + "/check");
    ASSERT_EQ(check.status, 0) << check.err;
    ExpectFigure(dir + "/check", "flow-error");
    const nlohmann::json c = nlohmann::json::parse(ReadFile(dir + "/check.json"));
    const Blocks errors = ReadBlocks(dir + "/check/flow-error.dat");
    ASSERT_EQ(errors.size(), 1u);
    ASSERT_EQ(errors[0].size(), 1u);
    EXPECT_EQ(errors[0][0][1], 100 * c["points"][0]["busbw_error"].get<double>());

    // clos-deadlock: the cycle's ports end paused for the whole of every interval.
    const CommandResult clos
        = RunCommand(ProgramPath("clos-deadlock") + " --bottleneck=true --json=" + dir
                     + "/clos.json --plot=" + dir + "/clos");
    ASSERT_EQ(clos.status, 3) << clos.err; // the deadlock, found and named
    ExpectFigure(dir + "/clos", "paused");
    ExpectFigure(dir + "/clos", "queues");
    const nlohmann::json d = nlohmann::json::parse(ReadFile(dir + "/clos.json"));
    uint32_t frozen = 0;
    for (const nlohmann::json& port : d["series"]["ports"])
    {
        frozen += port["paused"].back().get<double>() == 1.0 ? 1 : 0;
    }
    EXPECT_GE(frozen, 4u) << "the cycle of 4 blocked queues";
    EXPECT_FALSE(d["series"].contains("progress_bytes")) << "no ranks, no progress";
}

// A torus's links by dimension.
TEST(PlotTest, TorusLinksByDimension)
{
    const std::string dir = TempDir();
    const CommandResult r = RunCommand(
        ProgramPath("ai-fabric-torus")
        + " --dims=2x2x2 --minBytes=1M --maxBytes=1M --iters=1 --warmup=0 --quiet --plot=" + dir
        + "/figures");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string script = ReadFile(dir + "/figures/links.plt");
    for (const char* kind : {"torus X", "torus Y", "torus Z", "gpu->torus"})
    {
        EXPECT_NE(script.find(kind), std::string::npos) << kind;
    }
}

// Bad targets and results: one line, exit status 2, before anything runs.
TEST(PlotTest, BadInputIsOneLine)
{
    const std::string dir = TempDir();
    std::ofstream(dir + "/file") << "x";
    std::ofstream(dir + "/empty.json") << "{\"scenario\": {}}";
    std::ofstream(dir + "/broken.json") << "{";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {ProgramPath("ai-fabric-fattree") + " --plot=" + dir + "/no/such/dir",
         "cannot create the directory"},
        {ProgramPath("ai-fabric-fattree") + " --plot=" + dir + "/file", "not a directory"},
        {ProgramPath("ai-fabric-incast") + " --plot=" + dir + "/file", "not a directory"},
        {ProgramPath("ai-fabric-plot"), "--result: expected"},
        {ProgramPath("ai-fabric-plot") + " --result=" + dir + "/none.json", "cannot read it"},
        {ProgramPath("ai-fabric-plot") + " --result=" + dir + "/broken.json", "not JSON"},
        {ProgramPath("ai-fabric-plot") + " --result=" + dir + "/empty.json",
         "holds nothing to draw"},
    };
    // A run refused after its --plot was checked leaves no directory behind.
    const CommandResult late = RunCommand(ProgramPath("ai-fabric-fattree") + " --plot=" + dir
                                          + "/late --failures=link:leaf0-spine99@1ms");
    EXPECT_EQ(late.status, 2) << late.err;
    EXPECT_FALSE(ListDir(dir).count("late"));
    for (const auto& [command, message] : cases)
    {
        const CommandResult r = RunCommand(command);
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_EQ(r.out, "") << command;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    }
}
