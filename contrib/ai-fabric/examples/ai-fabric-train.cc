/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The front door for workloads: every rank's compute, collectives on its communicators
 * (tensor-, data-, pipeline- or expert-parallel groups) and point-to-point transfers, read
 * from a JSON workload file, run on a fat-tree of GPU servers; prints the step's time, the
 * slowest rank's breakdown (compute, communication not hidden by compute, by kind, and idle
 * time) and a row per kind of operation, and writes the run as a Chrome/Perfetto trace.
 *
 *   ./ns3 run "ai-fabric-train --workload=examples/workloads/dp-overlap.json --servers=2"
 *   ./ns3 run "ai-fabric-train --workload=W.json --servers=4 --timeline=step.json"
 *
 * The program is the scenario driver (CollectiveScenario) with the "fat-tree" topology and
 * workloads enabled: every topology, fabric and engine flag of ai-fabric-fattree applies.
 */

#include "ns3/collective-scenario.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    return CollectiveScenario("ai-fabric-train", "fat-tree")
        .EnableWorkloads()
        .Main(argc,
              argv,
              "A workload of compute, collectives and transfers per rank (a JSON workload file) "
              "on a fat-tree of GPU servers.");
}
