/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * PFC deadlock after failures in a Clos (Hu et al., HotNets 2016): two leaf-spine links fail,
 * traffic bounces up-down-up, and the routes hold a cyclic buffer dependency. The four flows
 * that close it complete on their own; with --bottleneck a fifth flow oversubscribes a link of
 * the cycle, the cycle deadlocks, and the stall detector names it (exit status 3). See
 * ClosDeadlockScenario.
 *
 *   ./ns3 run clos-deadlock
 *   ./ns3 run "clos-deadlock --bottleneck=true --json=deadlock.json"
 */

#include "ns3/clos-deadlock-scenario.h"
#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-plot.h"
#include "ns3/failure-report.h"
#include "ns3/scenario-options.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    const std::string program = "clos-deadlock";
    ScenarioOptions options(program);
    options.Add(
        "bottleneck", "add the flow gpu5 -> gpu3 that oversubscribes a link of the cycle", "false");
    options.Add("bufferBytes", "each switch's shared buffer (K/M suffixes)", "2M");
    options.Use("json");
    options.Use("plot");
    options.Parse(
        argc, argv, "PFC deadlock from bounce routes after two link failures in a leaf-spine.");
    const std::string bottleneck = options.Get("bottleneck");
    const std::string bufferBytes = options.Get("bufferBytes");
    const std::string json = options.Get("json");
    const std::string plot = options.Get("plot");
    bool withBottleneck = false;
    if (!FabricCli::ParseBool(bottleneck, withBottleneck))
    {
        FabricCli::Fail(program, "--bottleneck=" + bottleneck + ": expected true or false");
    }
    uint64_t buffer = 0;
    if (!FabricCli::ParseBytes(bufferBytes, buffer) || buffer < (64 << 10) || buffer > (1u << 30))
    {
        FabricCli::Fail(program, "--bufferBytes=" + bufferBytes + ": expected 64K to 1G");
    }
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(program, "json", json);
    }
    if (!plot.empty())
    {
        const std::string why = FabricPlot::Prepare(plot);
        if (!why.empty())
        {
            FabricCli::Fail(program, "--plot=" + plot + ": " + why);
        }
    }

    ClosDeadlockScenario scenario;
    scenario.SetBufferBytes(static_cast<uint32_t>(buffer));
    scenario.SetSeries(!plot.empty());
    const ClosDeadlockResult r = scenario.Run(withBottleneck);
    const bool deadlock = r.finding == FabricStallDetector::Finding::DEADLOCK;
    std::printf("# leaf-spine, 4 leaves x 2 spines, 8 GPUs; leaf0-spine0 and leaf1-spine1 down\n");
    std::printf("# cyclic buffer dependency in the routes: before the failures %s, after %s\n",
                r.cycleBefore ? "yes" : "no",
                r.cycleAfter ? "yes" : "no");
    std::printf("# flows: gpu0<->gpu2 (bouncing), gpu4<->gpu6, 4 QPs each%s\n",
                withBottleneck ? ", and the bottleneck gpu5->gpu3" : "");
    if (r.completed)
    {
        std::printf("completed at %.3f us; %lu PFC pauses, %lu drops\n",
                    FailureReport::Us(r.end),
                    static_cast<unsigned long>(r.pauses),
                    static_cast<unsigned long>(r.drops));
    }
    else
    {
        std::printf("# %s\n", r.report.c_str());
        std::cerr << program << ": " << r.report << std::endl;
    }
    if (!json.empty() || !plot.empty())
    {
        nlohmann::ordered_json j;
        j["scenario"] = {{"bottleneck", withBottleneck}, {"bufferBytes", buffer}};
        j["cycle_in_routes"] = {{"before", r.cycleBefore ? 1 : 0}, {"after", r.cycleAfter ? 1 : 0}};
        j["outcome"] = {{"completed", r.completed ? 1 : 0},
                        {"deadlock", deadlock ? 1 : 0},
                        {"time_us", FailureReport::Us(r.end)},
                        {"pfc_pause_frames", r.pauses},
                        {"drops", r.drops},
                        {"cycle", r.cycle},
                        {"report", r.report}};
        if (!r.series.is_null())
        {
            j["series"] = r.series; // the ports' queues and pauses, for --plot
        }
        if (!json.empty() && !jsonFile.CommitJson(program, j))
        {
            return 1;
        }
        const std::string why = plot.empty() ? "" : FabricPlot::Write(j, plot);
        if (!why.empty())
        {
            std::cerr << program << ": --plot=" << plot << ": " << why << std::endl;
            return 1;
        }
    }
    return r.completed ? 0 : FailureReport::EXIT_STALLED;
}
