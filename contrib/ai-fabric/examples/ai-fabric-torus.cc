/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * A 2D or 3D torus (or mesh) of switches with GPUs attached, or of GPUs with their own
 * routers (TPU-pod style), on a RoCEv2 or InfiniBand fabric, runs an nccl-tests style sweep of
 * a collective. Dimension-order routing with dateline classes by default; without datelines
 * the rings of a torus can deadlock, and the stall detector then stops the run, names the
 * cycle of blocked queues and exits with status 3.
 *
 *   ./ns3 run ai-fabric-torus
 *   ./ns3 run "ai-fabric-torus --dims=4x4x4 --maxBytes=8M"
 *   ./ns3 run "ai-fabric-torus --datelines=false --placement=random --bufferBytes=256K"
 *   ./ns3 run "ai-fabric-torus --fabric=ib --routerInGpu=true --json=torus.json"
 *
 * The program is the scenario driver (CollectiveScenario) with the "torus" topology
 * (scenario/torus-topology.cc), where its flags are declared.
 */

#include "ns3/collective-scenario.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    return CollectiveScenario("ai-fabric-torus", "torus")
        .Main(argc, argv, "An nccl-tests style sweep of a collective on a 2D or 3D torus.");
}
