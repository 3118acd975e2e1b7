/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * An nccl-tests style sweep of a collective on a fabric imported from a file: GraphML or
 * Graphviz DOT (node attribute kind = gpu or switch; edge attributes rate and delay), or the
 * topology text of the HPCC and SimAI ns-3 simulators. Its output is ai-fabric-fattree's, with
 * the graph's summary first.
 *
 *   ./ns3 run "ai-fabric-custom --graph=leaf-spine.graphml --algo=ring"
 *   ./ns3 run "ai-fabric-custom --graph=topology.txt --fabric=ib --routing=updn"
 *
 * With --flows=FILE (HPCC's flow file) it runs those flows instead, each an RDMA write from
 * its start time, and prints each one's FCT in HPCC's fct.txt format:
 *
 *   ./ns3 run "ai-fabric-custom --graph=topology.txt --flows=flow.txt --fct=fct.txt"
 */

#include "ns3/collective-scenario.h"
#include "ns3/flow-file-scenario.h"
#include "ns3/scenario-options.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-custom";
    for (const std::string& arg : ScenarioOptions::ExpandScenario(program, argc, argv))
    {
        if (arg.rfind("--flows=", 0) == 0 || arg == "--flows")
        {
            return FlowFileScenario::Main(program, argc, argv);
        }
    }
    return CollectiveScenario(program, "graph")
        .Main(argc,
              argv,
              "An nccl-tests style sweep of a collective on a fabric imported from a file.");
}
