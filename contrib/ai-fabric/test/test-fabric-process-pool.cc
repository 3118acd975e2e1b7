/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricProcessPool: outcomes come in the runs' order whatever order the children end in;
// no more children live at once than the jobs; each child's output, exit status and signal
// are its own; stopping kills and reaps the children still alive; the time limit kills; an
// exception in a child ends that child only; the parent's buffered output is not repeated by
// its children, nor its output files removed by them.

#include "ai-fabric-test-command.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-process-pool.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// \return CLOCK_MONOTONIC in nanoseconds (the same clock in every process)
long long
MonotonicNs()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

/**
 * \param ms how long to sleep (ms)
 */
void
SleepMs(int ms)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

} // namespace

// Run i sleeps longer the earlier it is, so the children end in the reverse order; the
// outcomes still come 0, 1, 2, ... with each child's own output and status. The children's
// start and end times show at most 2 alive at once, and 2 at once at some time.
TEST(FabricProcessPoolTest, OutcomesComeInOrderWithAtMostJobsAlive)
{
    constexpr std::size_t RUNS = 6;
    FabricProcessPool pool(2);
    EXPECT_EQ(pool.GetJobs(), 2u);
    std::vector<std::size_t> order;
    std::vector<std::pair<long long, long long>> spans;
    const std::size_t delivered = pool.Run(
        RUNS,
        [](std::size_t i)
        {
            const long long start = MonotonicNs();
            SleepMs(static_cast<int>(40 * (RUNS - i)));
            std::cout << "run " << i << " " << start << " " << MonotonicNs() << "\n";
            std::cerr << "err " << i << "\n";
            return static_cast<int>(i);
        },
        [&](std::size_t i, const FabricProcessPool::Outcome& o)
        {
            order.push_back(i);
            EXPECT_EQ(o.startError, "");
            EXPECT_TRUE(WIFEXITED(o.status));
            EXPECT_EQ(WEXITSTATUS(o.status), static_cast<int>(i));
            EXPECT_EQ(o.err, "err " + std::to_string(i) + "\n");
            EXPECT_FALSE(o.killed);
            EXPECT_GT(o.wallS, 0);
            EXPECT_GT(o.peakRssMb, 0);
            std::istringstream words(o.out);
            std::string run;
            std::size_t index = RUNS;
            long long start = 0;
            long long end = 0;
            words >> run >> index >> start >> end;
            EXPECT_EQ(run, "run") << o.out;
            EXPECT_EQ(index, i) << o.out;
            spans.emplace_back(start, end);
            return true;
        });
    EXPECT_EQ(delivered, RUNS);
    EXPECT_EQ(order, std::vector<std::size_t>({0, 1, 2, 3, 4, 5}));
    ASSERT_EQ(spans.size(), RUNS);
    std::size_t mostAlive = 0;
    for (const auto& [start, end] : spans)
    {
        std::size_t alive = 0; // the children alive when this one started
        for (const auto& [otherStart, otherEnd] : spans)
        {
            alive += otherStart <= start && start < otherEnd ? 1 : 0;
        }
        mostAlive = std::max(mostAlive, alive);
    }
    EXPECT_EQ(mostAlive, 2u);
}

// Run 0 fails; done stops there: run 1, alive and sleeping, is killed and reaped, and run 2,
// which waited for a free slot, never starts.
TEST(FabricProcessPoolTest, StoppingKillsAndReapsTheChildrenAlive)
{
    const std::string dir = TempDir();
    FabricProcessPool pool(2);
    std::vector<std::size_t> order;
    const std::size_t delivered = pool.Run(
        3,
        [&dir](std::size_t i)
        {
            std::ofstream(dir + "/" + std::to_string(i)) << getpid() << "\n";
            SleepMs(i == 0 ? 500 : 600000); // run 1 sleeps until killed
            return i == 0 ? 3 : 0;
        },
        [&](std::size_t i, const FabricProcessPool::Outcome& o)
        {
            order.push_back(i);
            return WEXITSTATUS(o.status) == 0;
        });
    EXPECT_EQ(delivered, 1u);
    EXPECT_EQ(order, std::vector<std::size_t>({0}));
    const std::string pid = ReadFile(dir + "/1");
    ASSERT_FALSE(pid.empty());
    errno = 0;
    EXPECT_EQ(kill(std::stoi(pid), 0), -1) << "run 1 is alive or not reaped";
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(ReadFile(dir + "/2"), "") << "run 2 started";
    RunCommand("rm -rf " + dir);
}

// A child past the time limit is killed and says so; a child whose run throws ends by
// terminate() (SIGABRT, with the exception's message), and the pool goes on.
TEST(FabricProcessPoolTest, TimeLimitsAndExceptionsEndTheirChildOnly)
{
    FabricProcessPool pool(2);
    pool.SetTimeLimit(0.2);
    std::vector<FabricProcessPool::Outcome> outcomes;
    pool.Run(
        3,
        [](std::size_t i)
        {
            if (i == 0)
            {
                SleepMs(600000); // past the limit
            }
            if (i == 1)
            {
                throw std::runtime_error("run 1 threw");
            }
            return 0;
        },
        [&](std::size_t, const FabricProcessPool::Outcome& o)
        {
            outcomes.push_back(o);
            return true;
        });
    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_TRUE(outcomes[0].killed);
    EXPECT_TRUE(WIFSIGNALED(outcomes[0].status));
    EXPECT_EQ(WTERMSIG(outcomes[0].status), SIGKILL);
    EXPECT_FALSE(outcomes[1].killed);
    EXPECT_TRUE(WIFSIGNALED(outcomes[1].status));
    EXPECT_EQ(WTERMSIG(outcomes[1].status), SIGABRT);
    EXPECT_NE(outcomes[1].err.find("run 1 threw"), std::string::npos) << outcomes[1].err;
    EXPECT_TRUE(WIFEXITED(outcomes[2].status));
    EXPECT_EQ(WEXITSTATUS(outcomes[2].status), 0);
}

// What the parent buffered before the fork stays the parent's (it is flushed first, not
// written again by every child); an output file the parent holds open is still there for
// it to commit after a child ended through std::exit, which runs the exit handlers that
// remove a program's uncommitted files.
TEST(FabricProcessPoolTest, ChildrenLeaveTheParentsOutputAlone)
{
    const std::string dir = TempDir();
    FabricOutputFile file;
    std::string error;
    ASSERT_TRUE(file.Open(dir + "/result.json", error)) << error;
    std::printf("# FabricProcessPoolTest: a line the parent buffered\n");
    std::cout << "# FabricProcessPoolTest: and one in std::cout\n";
    FabricProcessPool pool(1);
    std::string out;
    pool.Run(
        1,
        [](std::size_t)
        {
            std::printf("child\n");
            std::exit(3);
            return 0;
        },
        [&](std::size_t, const FabricProcessPool::Outcome& o)
        {
            out = o.out;
            EXPECT_EQ(WEXITSTATUS(o.status), 3);
            return true;
        });
    EXPECT_EQ(out, "child\n");
    file.Stream() << "{}\n";
    ASSERT_TRUE(file.Commit(error)) << error;
    EXPECT_EQ(ReadFile(dir + "/result.json"), "{}\n");
    RunCommand("rm -rf " + dir);
}
