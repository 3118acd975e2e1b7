/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * The front door: a fat-tree of GPU servers (DGX H100 by default, NVLink inside) on a RoCEv2 or
 * InfiniBand fabric runs an nccl-tests style sweep
 * of a collective and prints the table NCCL users read every day.
 *
 *   ./ns3 run ai-fabric-fattree
 *   ./ns3 run "ai-fabric-fattree --servers=4 --radix=16 --collective=allgather --algo=ring"
 *   ./ns3 run "ai-fabric-fattree --server=dgx-h100 --servers=1 --algo=nvls --maxBytes=1G"
 *   ./ns3 run "ai-fabric-fattree --server=none --servers=32 --radix=16"
 *   ./ns3 run "ai-fabric-fattree --radix=10 --oversubscription=4:1 --json=run.json"
 *
 * The program is the scenario driver (CollectiveScenario) with the "fat-tree" topology
 * (scenario/fat-tree-topology.cc), where its flags are declared.
 */

#include "ns3/collective-scenario.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    return CollectiveScenario("ai-fabric-fattree", "fat-tree")
        .Main(
            argc, argv, "An nccl-tests style sweep of a collective on a fat-tree of GPU servers.");
}
