/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * An nccl-tests style sweep of a collective on any registered topology (--topology): the
 * fat-tree of ai-fabric-fattree, the torus of ai-fabric-torus, or a topology a user added
 * (scenario/NAME-topology.cc, see the manual's "Extending ai-fabric"), each with its own
 * flags. Its output is that of the topology's own program.
 *
 *   ./ns3 run "ai-fabric-sweep --topology=torus --dims=4x4x2"
 *   ./ns3 run "ai-fabric-sweep --topology=fat-tree --servers=4 --help"
 */

#include "ns3/collective-scenario.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    return CollectiveScenario("ai-fabric-sweep", "")
        .Main(argc, argv, "An nccl-tests style sweep of a collective on any registered topology.");
}
