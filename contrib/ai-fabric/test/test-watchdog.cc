/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricWatchdog: a run that would not end is stopped with a named finding — too many events,
// too much wall time, or simulated time that stops advancing — and the programs end such a
// run with exit status 3.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/global-value.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class WatchdogTest : public AiFabricTest
{
  protected:
    void TearDown() override
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
        AiFabricTest::TearDown();
    }
};

/// A model bug: an event that schedules itself again at the same instant, forever.
class ZeroDelayLoop
{
  public:
    /// One turn of the loop.
    void Turn()
    {
        ++m_turns;
        Simulator::ScheduleNow(&ZeroDelayLoop::Turn, this);
    }

    uint64_t m_turns{0}; //!< turns taken
};

/// A healthy model: one event every microsecond, n times.
class Ticker
{
  public:
    /// One tick.
    void Tick()
    {
        if (++m_ticks < m_n)
        {
            Simulator::Schedule(MicroSeconds(1), &Ticker::Tick, this);
        }
    }

    uint64_t m_ticks{0}; //!< ticks taken
    uint64_t m_n{0};     //!< ticks to take
};

TEST_F(WatchdogTest, TimeThatStopsAdvancingIsNamed)
{
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->SetAttribute("MaxEventsAtOneTime", UintegerValue(5000));
    ZeroDelayLoop loop;
    Simulator::Schedule(MicroSeconds(3), &ZeroDelayLoop::Turn, &loop);
    watchdog->Install();
    Simulator::Run(); // ends: the watchdog stops it
    EXPECT_EQ(watchdog->GetLimit(), FabricWatchdog::Limit::FROZEN_TIME);
    EXPECT_EQ(loop.m_turns, 5000u); // the event that reached the limit still ran
    EXPECT_EQ(Simulator::Now(), MicroSeconds(3));
    const std::string& report = watchdog->GetReport();
    EXPECT_EQ(report.rfind("watchdog: simulated time stopped advancing", 0), 0u) << report;
    EXPECT_NE(report.find("at 3.000000 us"), std::string::npos) << report;
    // Where the events came from: the loop's own class (a function of this file here).
    EXPECT_NE(report.find("100% "), std::string::npos) << report;
}

// The frozen-time limit grows with the fabric: 10 nodes at 1,000 events each allow 10,000
// events at one instant, past MaxEventsAtOneTime's 5,000.
TEST_F(WatchdogTest, FrozenTimeLimitGrowsWithTheNodes)
{
    NodeContainer nodes;
    nodes.Create(10);
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->SetAttribute("MaxEventsAtOneTime", UintegerValue(5000));
    watchdog->SetAttribute("MaxEventsAtOneTimePerNode", UintegerValue(1000));
    EXPECT_EQ(watchdog->GetMaxEventsAtOneTime(), 10000u);
    ZeroDelayLoop loop;
    Simulator::Schedule(MicroSeconds(3), &ZeroDelayLoop::Turn, &loop);
    watchdog->Install();
    Simulator::Run();
    EXPECT_EQ(watchdog->GetLimit(), FabricWatchdog::Limit::FROZEN_TIME);
    EXPECT_EQ(loop.m_turns, 10000u);
    watchdog->SetAttribute("MaxEventsAtOneTime", UintegerValue(0));
    EXPECT_EQ(watchdog->GetMaxEventsAtOneTime(), 0u); // 0 is still no limit
}

TEST_F(WatchdogTest, MaxEventsIsExact)
{
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->SetAttribute("MaxEvents", UintegerValue(777));
    Ticker ticker;
    ticker.m_n = 100000;
    Simulator::ScheduleNow(&Ticker::Tick, &ticker);
    watchdog->Install();
    Simulator::Run();
    EXPECT_EQ(watchdog->GetLimit(), FabricWatchdog::Limit::EVENTS);
    EXPECT_EQ(ticker.m_ticks, 777u);
    EXPECT_EQ(Simulator::Now(), MicroSeconds(776));
    EXPECT_NE(watchdog->GetReport().find("after 777 events"), std::string::npos);
}

TEST_F(WatchdogTest, AHealthyRunIsUntouchedOnAnyScheduler)
{
    for (const std::string type : {"ns3::MapScheduler",
                                   "ns3::HeapScheduler",
                                   "ns3::ListScheduler",
                                   "ns3::CalendarScheduler"})
    {
        GlobalValue::Bind("SchedulerType", StringValue(type));
        Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
        watchdog->SetAttribute("MaxEvents", UintegerValue(1001));
        Ticker ticker;
        ticker.m_n = 1000;
        Simulator::ScheduleNow(&Ticker::Tick, &ticker);
        watchdog->Install();
        Simulator::Run();
        EXPECT_FALSE(watchdog->HasFired()) << type;
        EXPECT_EQ(watchdog->GetReport(), "") << type;
        EXPECT_EQ(ticker.m_ticks, 1000u) << type;
        EXPECT_EQ(Simulator::Now(), MicroSeconds(999)) << type;
        Simulator::Destroy();
    }
}

TEST_F(WatchdogTest, WallTimeEndsARunThatCannotEnd)
{
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->SetAttribute("MaxWallTime", TimeValue(MilliSeconds(50)));
    watchdog->SetAttribute("MaxEventsAtOneTime", UintegerValue(0)); // only the wall clock
    ZeroDelayLoop loop;
    Simulator::ScheduleNow(&ZeroDelayLoop::Turn, &loop);
    watchdog->Install();
    Simulator::Run();
    EXPECT_EQ(watchdog->GetLimit(), FabricWatchdog::Limit::WALL_TIME);
    EXPECT_GT(loop.m_turns, 0u);
    EXPECT_EQ(watchdog->GetReport().rfind("watchdog: MaxWallTime (0.050 s", 0), 0u)
        << watchdog->GetReport();
}

// The programs: the limit, exit status 3, the report on stderr and in the JSON.
TEST_F(WatchdogTest, ProgramsEndWithExitStatusThree)
{
    const std::string dir = TempDir();
    for (const std::string program : {"ai-fabric-fattree", "ai-fabric-torus"})
    {
        const std::string json = dir + "/" + program + ".json";
        const CommandResult r
            = RunCommand(ProgramPath(program) + " --quiet --maxEvents=20000 --json=" + json);
        EXPECT_EQ(r.status, 3) << program << ": " << r.err;
        EXPECT_EQ(r.err.rfind(program + ": watchdog: MaxEvents (20000 events) reached", 0), 0u)
            << r.err;
        EXPECT_NE(r.out.find("# watchdog: MaxEvents"), std::string::npos) << r.out;
        const std::string text = ReadFile(json);
        EXPECT_NE(text.find("\"kind\": \"watchdog\""), std::string::npos) << text;
        EXPECT_NE(text.find("\"watchdog\": 1"), std::string::npos) << text;
    }
    for (const std::string bad : {"--maxEvents=-1",
                                  "--maxEvents=x",
                                  "--maxWallTime=5xs",
                                  "--maxWallTime=-1s",
                                  "--maxWallTime=5"})
    {
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree") + " " + bad);
        EXPECT_EQ(r.status, 2) << bad;
        EXPECT_EQ(r.out, "") << bad;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
    }
    // Zero is no limit, as --help says (ns-3's Time::IsNegative() is true of zero).
    for (const std::string none : {"--maxWallTime=0s", "--maxWallTime=0ms", "--maxEvents=0"})
    {
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree") + " --quiet " + none);
        EXPECT_EQ(r.status, 0) << none << ": " << r.err;
    }
}

} // namespace

namespace
{

// The other programs run under FabricWatchdog::RunOrExit(): a limit ends them with the report
// on standard error, exit status 3 and no output file left half-written.
TEST_F(WatchdogTest, EveryOtherProgramIsWatched)
{
    const std::string dir = TempDir();
    for (const std::string program : {"ai-fabric-perftest",
                                      "ai-fabric-incast",
                                      "ai-fabric-dcqcn",
                                      "ai-fabric-pfc-hol",
                                      "ai-fabric-pfc-pause",
                                      "ai-fabric-ib-credits",
                                      "failure-sweep",
                                      "clos-deadlock"})
    {
        if (!IsBuilt(program))
        {
            continue; // a study of the standalone project (IsBuilt)
        }
        const CommandResult r
            = RunCommand(ProgramPath(program) + " --ns3::FabricNetDevice::CompletionPerFrame=true"
                         + " --ns3::FabricWatchdog::MaxEvents=20 --json=" + dir + "/out.json");
        EXPECT_EQ(r.status, 3) << program << ": " << r.err;
        EXPECT_EQ(r.err.rfind(program + ": watchdog: MaxEvents (20 events) reached", 0), 0u)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        const CommandResult files = RunCommand("ls -A " + dir);
        EXPECT_EQ(files.out, "") << program << " left " << files.out;
    }
}

// The scheduler: ai-fabric's default inside the watchdog, unless --SchedulerType says
// otherwise.

TEST_F(WatchdogTest, ProgramsRunTheDefaultSchedulerAndSchedulerTypeChangesIt)
{
    std::vector<std::string> plain = {"program"};
    std::vector<char*> argv = {plain[0].data()};
    FabricCli::CheckKnownOptions("program", 1, argv.data(), {});
    StringValue type;
    GlobalValue::GetValueByName("SchedulerType", type);
    EXPECT_EQ(type.Get(), FabricWatchdog::DEFAULT_SCHEDULER);
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->Install();
    EXPECT_EQ(watchdog->GetSchedulerType(), FabricWatchdog::DEFAULT_SCHEDULER);
    Simulator::Destroy();

    std::vector<std::string> chosen = {"program", "--SchedulerType=ns3::CalendarScheduler"};
    std::vector<char*> argv2 = {chosen[0].data(), chosen[1].data()};
    FabricCli::CheckKnownOptions("program", 2, argv2.data(), {});
    GlobalValue::GetValueByName("SchedulerType", type);
    EXPECT_EQ(type.Get(), "ns3::CalendarScheduler");
    Ptr<FabricWatchdog> wrapped = CreateObject<FabricWatchdog>();
    wrapped->Install(); // the user's scheduler, inside the watchdog
    EXPECT_EQ(wrapped->GetSchedulerType(), "ns3::CalendarScheduler");
}

} // namespace
