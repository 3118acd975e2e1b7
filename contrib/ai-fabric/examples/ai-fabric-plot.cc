/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The figures of a saved result: what --plot=DIR draws at the end of a run, drawn from the
 * run's --json output (FabricPlot). `./ns3 plot RESULT.json [DIR]` runs it.
 *
 *   ./ns3 run "ai-fabric-fattree --algo=ring --json=ring.json"
 *   ./ns3 run "ai-fabric-plot --result=ring.json --plot=ring-plots"
 *   ./ns3 plot ring.json            # the same, into ring-plots/
 */

#include "ns3/fabric-cli.h"
#include "ns3/fabric-plot.h"
#include "ns3/scenario-options.h"

#include <fstream>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-plot";
    ScenarioOptions options(program);
    options.SetWatchdog(false);
    options.Add("result", "a program's --json output to draw", "");
    options.Use("plot", "", "default: RESULT without .json, with -plots");
    options.Parse(
        argc, argv, "The figures of a saved --json result, as the program's --plot draws them.");
    const std::string result = options.Get("result");
    if (result.empty())
    {
        options.Fail("--result: expected a program's --json output (--result=FILE)");
    }
    std::ifstream in(result);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf()))
    {
        options.Fail("--result=" + result + ": cannot read it");
    }
    nlohmann::ordered_json j;
    try
    {
        j = nlohmann::ordered_json::parse(text.str());
    }
    catch (const nlohmann::json::exception& e)
    {
        std::string why = e.what();
        for (char& c : why)
        {
            c = c == '\n' ? ' ' : c;
        }
        options.Fail("--result=" + result + ": not JSON (" + why + ")");
    }
    std::string dir = options.Get("plot");
    if (dir.empty())
    {
        const std::string suffix = ".json";
        dir = result.size() > suffix.size()
                      && result.compare(result.size() - suffix.size(), suffix.size(), suffix) == 0
                  ? result.substr(0, result.size() - suffix.size())
                  : result;
        dir += "-plots";
    }
    const std::string why = FabricPlot::Prepare(dir);
    if (!why.empty())
    {
        options.Fail("--plot=" + dir + ": " + why);
    }
    std::vector<FabricPlot::Figure> figures;
    const std::string error = FabricPlot::Write(j, dir, &figures);
    if (!error.empty())
    {
        std::cerr << program << ": --plot=" << dir << ": " << error << std::endl;
        return 1;
    }
    if (figures.empty())
    {
        options.Fail("--result=" + result
                     + ": holds nothing to draw (no results, links or series of a program)");
    }
    for (const FabricPlot::Figure& f : figures)
    {
        std::cout << dir << "/" << f.name << ".png, .svg, .dat, .plt: " << f.what << "\n";
    }
    return 0;
}
