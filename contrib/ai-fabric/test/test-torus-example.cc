/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// ai-fabric-torus as a program: the table and the per-dimension lines with their exact bytes,
// byte-identical output, a 3D torus, a deadlock found and named (exit status 3) without
// datelines and none with them, and refusals of bad input.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace ns3;

namespace
{

/**
 * \param args arguments of ai-fabric-torus
 * \return how it ended
 */
CommandResult
Torus(const std::string& args)
{
    return RunCommand(ProgramPath("ai-fabric-torus") + " " + args);
}

class TorusExampleTest : public AiFabricTest
{
};

/**
 * \param out a run's standard output
 * \return the result rows (lines that start with spaces and a digit)
 */
std::vector<std::string>
Rows(const std::string& out)
{
    std::vector<std::string> rows;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line))
    {
        const std::size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && first > 0 && std::isdigit(line[first]))
        {
            rows.push_back(line);
        }
    }
    return rows;
}

} // namespace

// A 4x4 torus, the multi-dimensional all-reduce on one channel: X first then Y. Each rank
// sends 2 (4 - 1) / 4 of the buffer along X and the same share of its quarter along Y, to the
// byte; the same flags give the same output.
TEST_F(TorusExampleTest, PrintsTheTablePerDimensionAndIsDeterministic)
{
    const std::string json = TempDir() + "/run.json";
    const std::string args
        = "--minBytes=1M --maxBytes=4M --stepFactor=4 --iters=1 --warmup=0 --quiet";
    const CommandResult a = Torus(args + " --json=" + json);
    const CommandResult b = Torus(args);
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(a.err, "");
    EXPECT_NE(a.out.find("torus 4x4: 16 GPUs (1 per switch), 16 switches, 32 switch links, "
                         "dimension-order routing with datelines"),
              std::string::npos)
        << a.out;
    EXPECT_EQ(Rows(a.out).size(), 2u) << a.out;
    EXPECT_NE(a.out.find("# per dimension (largest size):"), std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    ASSERT_EQ(j["dimensions"].size(), 2u);
    EXPECT_EQ(j["dimensions"][0]["bytes_per_rank"].get<double>(), 2.0 * 3 / 4 * (4 << 20));
    EXPECT_EQ(j["dimensions"][1]["bytes_per_rank"].get<double>(), 2.0 * 3 / 4 * (1 << 20));
    for (const auto& d : j["dimensions"])
    {
        EXPECT_GT(d["busbw_GBps"].get<double>(), 0.0);
        EXPECT_LT(d["busbw_GBps"].get<double>(), 50.0); // one 400 Gb/s NIC per GPU
    }
    EXPECT_EQ(j["results"][1]["algo"], "torus");
    EXPECT_EQ(j["fabric"]["drops"], 0);
    EXPECT_EQ(j["scenario"]["datelines"], true);
    EXPECT_FALSE(j.contains("finding"));
}

// A 4x4x4 torus (64 GPUs): the all-reduce completes and each dimension's share is reported:
// the full buffer's 2 (D - 1) / D along X, a quarter's along Y, a sixteenth's along Z.
TEST_F(TorusExampleTest, ThreeDimensionalTorusReportsEachDimension)
{
    const std::string json = TempDir() + "/run.json";
    const CommandResult r = Torus(
        "--dims=4x4x4 --minBytes=4M --maxBytes=4M --iters=1 "
        "--warmup=0 --quiet --json="
        + json);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("#   Z (4 switches):"), std::string::npos) << r.out;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    ASSERT_EQ(j["dimensions"].size(), 3u);
    double share = 2.0 * 3 / 4 * (4 << 20);
    for (const auto& d : j["dimensions"])
    {
        EXPECT_EQ(d["bytes_per_rank"].get<double>(), share);
        EXPECT_GT(d["busbw_GBps"].get<double>(), 0.0);
        share /= 4;
    }
    EXPECT_EQ(j["scenario"]["gpus"], 64);
    EXPECT_EQ(j["fabric"]["drops"], 0);
}

// The tornado run without datelines deadlocks: exit status 3, one line on stderr naming the
// cycle, the table so far, and the JSON's stall section. With datelines it completes.
TEST_F(TorusExampleTest, DeadlockIsFoundAndNamed)
{
    const std::string json = TempDir() + "/run.json";
    const std::string args
        = "--algo=ring --placement=stride --channels=4 --dcqcn=false "
          "--bufferBytes=2M --minBytes=16M --maxBytes=16M --iters=1 "
          "--warmup=0 --quiet";
    const CommandResult r = Torus(args + " --datelines=false --json=" + json);
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("ai-fabric-torus: deadlock: a cycle of 4 blocked queues: torus", 0), 0u)
        << r.err;
    EXPECT_NE(r.out.find("# deadlock: "), std::string::npos);
    EXPECT_TRUE(Rows(r.out).empty());
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    EXPECT_EQ(j["finding"]["kind"], "deadlock");
    EXPECT_EQ(j["finding"]["cycle"].size(), 4u);
    EXPECT_EQ(j["fabric"]["drops"], 0);

    const CommandResult ok = Torus(args + " --datelines=true");
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(Rows(ok.out).size(), 1u) << ok.out;
}

TEST_F(TorusExampleTest, BadInputIsRefused)
{
    for (const std::string args : {"--dims=4",
                                   "--dims=4x4x4x4",
                                   "--dims=4x1",
                                   "--dims=4xx4",
                                   "--dims=axb",
                                   "--fabric=ethernet",
                                   "--wrap=maybe",
                                   "--routing=bogus",
                                   "--datelines=2",
                                   "--placement=snake",
                                   "--routerInGpu=true --gpusPerSwitch=2",
                                   "--gpusPerSwitch=0",
                                   "--collective=bogus",
                                   "--algo=bogus",
                                   "--algo=torus --collective=alltoall",
                                   "--minBytes=8M --maxBytes=1M",
                                   "--linkRate=fast",
                                   "--stallTime=soon",
                                   "--stallTime=0ms",
                                   "--fabric=ib --bufferBytes=1000",
                                   "--bufferBytes=0",
                                   "--bogus=1",
                                   "--json=/nonexistent/dir/x.json"})
    {
        const CommandResult o = Torus(args);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
        EXPECT_EQ(o.err.rfind("ai-fabric-torus: ", 0), 0u) << o.err;
    }
}

// A failed torus link: with shortest-path routing the fabric reroutes around it and the
// all-reduce completes, slower; with dimension-order routing there is no detour, and the run
// ends at the reroute with the switch that has no route (exit status 3).
TEST_F(TorusExampleTest, FailedLinkReroutesOnlyWithShortestPaths)
{
    const std::string args
        = "--minBytes=4M --maxBytes=4M --iters=1 --warmup=0 --quiet "
          "--failures=link:torus0-0-torus1-0@100us";
    const CommandResult shortest = Torus(args + " --routing=shortest");
    EXPECT_EQ(shortest.status, 0) << shortest.err;
    EXPECT_NE(shortest.out.find("# failure: link torus0-0-torus1-0 down at 100 us, detected "
                                "30100 us, rerouted 35100 us"),
              std::string::npos)
        << shortest.out;
    EXPECT_EQ(Rows(shortest.out).size(), 1u);
    const CommandResult dor = Torus(args + " --routing=dor");
    EXPECT_EQ(dor.status, 3);
    EXPECT_EQ(dor.err,
              "ai-fabric-torus: unreachable: torus1-0 has no route to gpu0 (the routing engine "
              "has no path around the failure) after link torus0-0-torus1-0 down\n");
}

// Accepted then aborted before: a stall time below the detector's 1 ns resolution, and NVLS
// (in-switch reduction needs NVSwitch servers; a torus has none). Both are refused in one
// line now.
TEST_F(TorusExampleTest, StallTimeBelowResolutionAndNvlsAreRefused)
{
    for (const std::string args :
         {"--stallTime=0.5ns", "--stallTime=999ps", "--algo=nvls", "--algo=nvlstree"})
    {
        const CommandResult o = Torus(args);
        EXPECT_EQ(o.status, 2) << args << ": " << o.err;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
        EXPECT_EQ(o.err.rfind("ai-fabric-torus: ", 0), 0u) << o.err;
    }
    const CommandResult ok = Torus(
        "--stallTime=1ns --maxBytes=64K --minBytes=64K --iters=1 "
        "--warmup=0 --quiet");
    EXPECT_NE(ok.status, 2) << ok.err;
    EXPECT_NE(ok.status, -1) << ok.err;
}

// No leak: each communicator's "Send" trace was bound to a Ptr to that communicator (a
// reference cycle that kept the communicators and their GPU nodes alive; LeakSanitizer
// failed every run). Checked under valgrind's memcheck where it is installed.
TEST_F(TorusExampleTest, RunIsLeakFree)
{
    const std::string args
        = " --dims=2x2 --minBytes=16K --maxBytes=16K --iters=1 --warmup=0 --quiet";
#if defined(__SANITIZE_ADDRESS__)
    // The program is built with AddressSanitizer: LeakSanitizer checks it at exit (valgrind
    // cannot run it).
    const CommandResult leak = RunCommand(ProgramPath("ai-fabric-torus") + args);
    EXPECT_EQ(leak.status, 0) << leak.err.substr(0, 3000);
    EXPECT_EQ(leak.err.find("LeakSanitizer"), std::string::npos) << "a leak";
    return;
#endif
    if (std::system("valgrind --version >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "valgrind is not installed";
    }
    const CommandResult o = RunCommand(
        "valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 "
        + ProgramPath("ai-fabric-torus") + args);
    EXPECT_EQ(o.status, 0) << o.err.substr(o.err.size() > 3000 ? o.err.size() - 3000 : 0);
    EXPECT_EQ(o.err.find("are definitely lost"), std::string::npos) << "a leak";
}
