/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_FIXTURE_H
#define AI_FABRIC_TEST_FIXTURE_H

#include "ns3/names.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Base fixture of every ai-fabric test: a fixed RNG seed and run, and a destroyed simulator
 * and cleared object names after each test.
 */
class AiFabricTest : public testing::Test
{
  protected:
    void SetUp() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Names::Clear(); // names outlive the simulation; a second test would reuse them
    }
};

} // namespace ns3

#endif /* AI_FABRIC_TEST_FIXTURE_H */
