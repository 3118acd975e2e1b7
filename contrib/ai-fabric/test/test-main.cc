/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ns3/nstime.h"

#include <gtest/gtest.h>

int
main(int argc, char** argv)
{
    // As ai-fabric's programs: picosecond resolution, so serialization is exact at 400 Gb/s.
    ns3::Time::SetResolution(ns3::Time::PS);
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
