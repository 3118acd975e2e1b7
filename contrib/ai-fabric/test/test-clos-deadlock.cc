/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// PFC deadlock in a Clos after failures (Hu et al., HotNets 2016): with leaf0-spine0 and
// leaf1-spine1 down, the rerouted shortest paths bounce up-down-up (leaf0 -> spine1 -> leaf2
// -> spine0 -> leaf1), and the routes hold a cyclic buffer dependency that up-down routing
// never has. A CBD alone is not enough: the flows that close it, each host sending at half
// the line rate, complete. Add one flow that oversubscribes a link of the cycle and every
// buffer of the cycle fills: the detector names the four paused queues.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/clos-deadlock-scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ns3;

namespace
{

class ClosDeadlockTest : public AiFabricTest
{
};

} // namespace

// Up-down routes have no cyclic buffer dependency; the bounce routes after the failures do.
// The four flows that close it, at half the line rate each, complete: no deadlock, nothing
// dropped (a CBD alone is not enough).
TEST_F(ClosDeadlockTest, CyclicDependencyAloneDoesNotDeadlock)
{
    const ClosDeadlockResult r = ClosDeadlockScenario().Run(false);
    EXPECT_FALSE(r.cycleBefore);
    EXPECT_TRUE(r.cycleAfter);
    EXPECT_TRUE(r.completed) << r.report;
    EXPECT_EQ(r.finding, FabricStallDetector::Finding::NONE);
    EXPECT_EQ(r.drops, 0u);
}

// The same and one more flow at the full line rate over leaf2 -> spine0, a link of the cycle,
// into spine0 -> leaf1, which the bounced traffic also takes: that link is oversubscribed, the
// queue behind it backs up into the cycle, and the cycle's buffers fill and pause each other; the
// detector stops the run and names the four queues of the cycle, and still nothing was dropped.
TEST_F(ClosDeadlockTest, BottleneckFlowDeadlocksTheCycle)
{
    const ClosDeadlockResult r = ClosDeadlockScenario().Run(true);
    EXPECT_TRUE(r.cycleAfter);
    EXPECT_FALSE(r.completed);
    ASSERT_EQ(r.finding, FabricStallDetector::Finding::DEADLOCK) << r.report;
    ASSERT_EQ(r.cycle.size(), 4u) << r.report;
    std::set<std::string> hops;
    for (const std::string& q : r.cycle)
    {
        // "spine1 port 2 (to leaf2) prio 3" -> "spine1>leaf2"
        const std::string from = q.substr(0, q.find(' '));
        const std::string to = q.substr(q.find("(to ") + 4, q.find(')') - q.find("(to ") - 4);
        hops.insert(from + ">" + to);
        EXPECT_NE(q.find("prio 3"), std::string::npos) << q;
    }
    EXPECT_EQ(
        hops,
        (std::set<std::string>{"spine1>leaf2", "leaf2>spine0", "spine0>leaf3", "leaf3>spine1"}))
        << r.report;
    EXPECT_EQ(r.drops, 0u);
}

// The study as a program: exit status 0 without the bottleneck, 3 with it and one line on
// standard error naming the cycle; bad input gets status 2.
TEST_F(ClosDeadlockTest, ProgramReportsTheOutcome)
{
    AI_FABRIC_REQUIRE_PROGRAM("clos-deadlock");
    const CommandResult ok = RunCommand(ProgramPath("clos-deadlock"));
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_NE(ok.out.find("before the failures no, after yes"), std::string::npos) << ok.out;
    const CommandResult dead = RunCommand(ProgramPath("clos-deadlock") + " --bottleneck=true");
    EXPECT_EQ(dead.status, 3);
    EXPECT_EQ(dead.err.rfind("clos-deadlock: deadlock: a cycle of 4 blocked queues: ", 0), 0u)
        << dead.err;
    EXPECT_EQ(std::count(dead.err.begin(), dead.err.end(), '\n'), 1);
    for (const std::string args : {"--bottleneck=maybe", "--bufferBytes=1", "--bogus=1"})
    {
        const CommandResult bad = RunCommand(ProgramPath("clos-deadlock") + " " + args);
        EXPECT_EQ(bad.status, 2) << args;
        EXPECT_EQ(bad.out, "") << args;
    }
}
