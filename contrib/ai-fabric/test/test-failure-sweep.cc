/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// failure-sweep as a program: one row per leaf-spine link, each failure detected and
// rerouted at the fabric's delays, every collective completed and slower than the healthy
// one; the JSON's rows; bad input.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace ns3;

namespace
{

class FailureSweepExampleTest : public AiFabricTest
{
};

/**
 * \param args arguments
 * \return how it ended
 */
CommandResult
Sweep(const std::string& args)
{
    return RunCommand(ProgramPath("failure-sweep") + " " + args);
}

} // namespace

// 8 GPUs on a radix-4 leaf-spine: 4 leaves x 2 spines, 8 rows; each failure at 100 us is
// detected 30 ms later and rerouted 5 ms after that (RoCEv2), and every run completes slower.
TEST_F(FailureSweepExampleTest, OneRowPerLinkEachSlower)
{
    AI_FABRIC_REQUIRE_PROGRAM("failure-sweep");
    const std::string json = TempDir() + "/sweep.json";
    const CommandResult r
        = Sweep("--servers=8 --radix=4 --bytes=4M --channels=1 --at=100us --quiet --json=" + json);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("4 leaves x 2 spines"), std::string::npos) << r.out;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    ASSERT_EQ(j["links"].size(), 8u);
    EXPECT_EQ(j["links"][0]["link"], "leaf0-spine0");
    EXPECT_EQ(j["links"][7]["link"], "leaf3-spine1");
    for (const auto& row : j["links"])
    {
        EXPECT_TRUE(row["completed"].get<bool>()) << row.dump();
        EXPECT_EQ(row["failed_us"], 100.0);
        EXPECT_EQ(row["detected_us"], 30100.0);
        EXPECT_EQ(row["rerouted_us"], 35100.0);
        EXPECT_GT(row["slowdown"].get<double>(), 1.0);
        EXPECT_GT(row["time_us"].get<double>(), j["healthy_time_us"].get<double>());
    }
}

TEST_F(FailureSweepExampleTest, BadInputIsRefused)
{
    AI_FABRIC_REQUIRE_PROGRAM("failure-sweep");
    for (const std::string args : {"--fabric=x",
                                   "--servers=1",
                                   "--radix=0",
                                   "--bytes=0",
                                   "--at=soon",
                                   "--servers=8 --radix=4 --bytes=1M --at=1s",
                                   "--collective=bogus",
                                   "--algo=nvls",
                                   "--servers=100 --radix=4",
                                   "--json=/nonexistent/dir/x.json"})
    {
        const CommandResult o = Sweep(args);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
        EXPECT_EQ(o.err.rfind("failure-sweep: ", 0), 0u) << o.err;
    }
}

// Inside the documented --servers range but too large a plan for a communicator's 24-bit
// transfer tag: refused in one line before the plan is built (it took 18 GB and 2.5 minutes,
// then aborted). Ring, tree, hd and chain run as per-rank schedules, without the limit: the
// all-to-alls, which still list every transfer, are refused.
TEST_F(FailureSweepExampleTest, PlanBeyondTheTagIsRefused)
{
    AI_FABRIC_REQUIRE_PROGRAM("failure-sweep");
    for (const std::string args :
         {"--servers=4096 --radix=512 --algo=pairwise --collective=alltoall",
          "--servers=2048 --radix=512 --channels=4 --algo=pairwise --collective=alltoall",
          "--servers=1024 --radix=512 --channels=64 --algo=direct --collective=alltoall"})
    {
        const CommandResult o = Sweep(args);
        EXPECT_EQ(o.status, 2) << args << ": " << o.err;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
        EXPECT_NE(o.err.find("2^24"), std::string::npos) << o.err;
    }
}
