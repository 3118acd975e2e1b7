/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// flow-check as a program: the quick subset of the cross-check matrix runs each point in both
// modes and reports both busbw, the errors and the verdicts; its JSON holds the rows; the
// output but for the wall times is the same with --jobs; bad input is refused.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ai-fabric-test-programs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

class FlowCheckTest : public AiFabricTest
{
};

/**
 * \param text the program's table
 * \return its rows without the wall-time and speed-up columns
 */
std::string
WithoutWallTimes(const std::string& text)
{
    std::string out;
    std::size_t at = 0;
    while (at < text.size())
    {
        std::size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end;
        std::string line = text.substr(at, end - at);
        if (line.rfind("  ", 0) == 0 && line.size() > 123)
        {
            // Columns 97 to 122: the two wall times and the speed-up.
            line = line.substr(0, 97) + line.substr(123);
        }
        out += line + "\n";
        at = end + 1;
    }
    return out;
}

// The quick set: a ring on 16 one-GPU servers, NVLS on one DGX H100 and a ring with a failed
// spine link. Each row's busbw error is the two JSON figures' ratio, within the point's
// tolerance, and the verdict says so; --jobs=2 prints the same rows.
TEST_F(FlowCheckTest, QuickSetRunsBothModesAndJudges)
{
    AI_FABRIC_REQUIRE_PROGRAM("flow-check");
    const std::string dir = TempDir();
    const std::string json = dir + "/check.json";
    const CommandResult r = RunCommand(ProgramPath("flow-check") + " --set=quick --json=" + json);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    ASSERT_EQ(j["points"].size(), 3u);
    for (const auto& p : j["points"])
    {
        const double packet = p["packet"]["busbw_GBps"];
        const double flow = p["flow"]["busbw_GBps"];
        EXPECT_GT(packet, 0);
        EXPECT_DOUBLE_EQ(p["busbw_error"].get<double>(), flow / packet - 1) << p;
        EXPECT_LE(std::fabs(p["busbw_error"].get<double>()), p["tolerance"].get<double>()) << p;
        EXPECT_EQ(p["verdict"], "pass") << p;
        EXPECT_NE(r.out.find(p["point"].get<std::string>()), std::string::npos);
        // The flow level is the faster (the failed link's 67 ms wait is simulated, not run).
        EXPECT_LT(p["flow"]["wall_s"].get<double>(), p["packet"]["wall_s"].get<double>()) << p;
    }
    // The failed link costs the packet level's retransmission timeout in both modes.
    EXPECT_GT(j["points"][2]["flow"]["time_us"].get<double>(), 67000.0);
    EXPECT_NE(r.out.find("# every judged point within its tolerance"), std::string::npos);
    const CommandResult two = RunCommand(ProgramPath("flow-check") + " --set=quick --jobs=2");
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(WithoutWallTimes(two.out), WithoutWallTimes(r.out));
    std::remove(json.c_str());
    rmdir(dir.c_str());
}

TEST_F(FlowCheckTest, BadInputIsRefused)
{
    AI_FABRIC_REQUIRE_PROGRAM("flow-check");
    ExpectRefused("flow-check", "--set=huge", "", "--set=huge");
    ExpectRefused("flow-check", "--set=quick --only=nothing-like-this", "", "no point");
    ExpectRefused("flow-check", "--jobs=0");
}

} // namespace
