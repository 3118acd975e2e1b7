/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ai-fabric-test-command.h"
#include "ns3/nstime.h"

#include <gtest/gtest.h>

namespace
{

/// When the process's tests end: remove the temporary directories they made (TempDir()).
class TempDirCleanup : public testing::Environment
{
  public:
    void TearDown() override
    {
        ns3::RemoveTempDirs();
    }
};

} // namespace

int
main(int argc, char** argv)
{
    // As ai-fabric's programs: picosecond resolution, so serialization is exact at 400 Gb/s.
    ns3::Time::SetResolution(ns3::Time::PS);
    testing::InitGoogleTest(&argc, argv);
    testing::AddGlobalTestEnvironment(new TempDirCleanup); // gtest owns it
    return RUN_ALL_TESTS();
}
