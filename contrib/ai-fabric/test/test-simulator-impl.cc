/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricSimulatorImpl: the events of one instant in the keys' order (time scheduled at, the
// scheduling context, its order), ns-3's expiry rules, and ns-3's order with another
// SchedulerType.

#include "ai-fabric-test-fixture.h"
#include "ns3/default-simulator-impl.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

class SimulatorImplTest : public AiFabricTest
{
  protected:
    void SetUp() override
    {
        AiFabricTest::SetUp();
        Simulator::Destroy();
        // The keyed queue is taken for ai-fabric's radix heap (the programs' SchedulerType).
        GlobalValue::GetValueByName("SchedulerType", m_scheduler);
        GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricRadixScheduler"));
        m_impl = CreateObject<FabricSimulatorImpl>();
        Simulator::SetImplementation(m_impl);
    }

    void TearDown() override
    {
        AiFabricTest::TearDown();
        GlobalValue::Bind("SchedulerType", m_scheduler);
    }

  public:
    /**
     * \param what appended to the record
     */
    void Record(std::string what)
    {
        m_record.push_back(what + "@" + std::to_string(Simulator::Now().GetNanoSeconds()) + "/"
                           + std::to_string(Simulator::GetContext()));
    }

    /**
     * \brief In some context: schedule a record on node 1, delay from now.
     * \param what its name
     * \param delay its delay
     */
    void SendToOne(std::string what, Time delay)
    {
        Simulator::ScheduleWithContext(1, delay, &SimulatorImplTest::Record, this, what);
    }

  protected:
    Ptr<FabricSimulatorImpl> m_impl;
    std::vector<std::string> m_record;
    StringValue m_scheduler; //!< SchedulerType before the test
};

// Two nodes schedule an event on node 1 at one instant for one later instant: the lower node
// first, whichever scheduled first (ns-3's simulators: the first scheduled first).
TEST_F(SimulatorImplTest, OneInstantRunsInTheOrderOfTheSchedulingNodes)
{
    NodeContainer nodes;
    nodes.Create(3);
    Simulator::ScheduleWithContext(
        2, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from2", NanoSeconds(10));
    Simulator::ScheduleWithContext(
        0, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from0", NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"from0@10/1", "from2@10/1"}));
}

// Scheduled at different times for one instant: the earlier scheduled first, whichever node.
TEST_F(SimulatorImplTest, EarlierScheduledRunsFirst)
{
    NodeContainer nodes;
    nodes.Create(3);
    Simulator::ScheduleWithContext(
        2, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from2", NanoSeconds(10));
    Simulator::ScheduleWithContext(
        0, NanoSeconds(5), &SimulatorImplTest::SendToOne, this, "from0", NanoSeconds(5));
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"from2@10/1", "from0@10/1"}));
    EXPECT_EQ(Simulator::Now(), NanoSeconds(10));
    EXPECT_EQ(Simulator::GetEventCount(), 4u + 3u); // 3 nodes' Initialize
}

// Another SchedulerType: ns-3's order (the first scheduled first).
TEST_F(SimulatorImplTest, AnotherSchedulerKeepsNs3Order)
{
    ObjectFactory map("ns3::MapScheduler");
    Simulator::SetScheduler(map);
    EXPECT_FALSE(m_impl->IsKeyed());
    NodeContainer nodes;
    nodes.Create(3);
    Simulator::ScheduleWithContext(
        2, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from2", NanoSeconds(10));
    Simulator::ScheduleWithContext(
        0, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from0", NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"from2@10/1", "from0@10/1"}));
    Simulator::Destroy();
    // ns-3's own simulator: the same.
    Simulator::SetImplementation(CreateObject<DefaultSimulatorImpl>());
    m_record.clear();
    NodeContainer more;
    more.Create(3);
    Simulator::ScheduleWithContext(
        5, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from5", NanoSeconds(10));
    Simulator::ScheduleWithContext(
        3, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from3", NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"from5@10/1", "from3@10/1"}));
}

/// An event that looks at its own id while it runs.
struct SelfWatcher
{
    EventId self;            //!< its id
    EventId other;           //!< a pending event's id
    bool selfExpired{false}; //!< IsExpired() of itself, while it ran
    bool otherExpired{true}; //!< IsExpired() of the other, then
    Time otherLeft;          //!< the other's delay left, then

    void Run()
    {
        selfExpired = self.IsExpired();
        otherExpired = other.IsExpired();
        otherLeft = Simulator::GetDelayLeft(other);
    }
};

void
Nothing()
{
}

// ns-3's rules: a running event is expired, so is one that ran or was cancelled; a pending one
// is not; a removed one does not run.
TEST_F(SimulatorImplTest, ExpiryFollowsNs3)
{
    SelfWatcher w;
    w.self = Simulator::Schedule(NanoSeconds(1), &SelfWatcher::Run, &w);
    w.other = Simulator::Schedule(NanoSeconds(3), &Nothing);
    EventId cancelled = Simulator::Schedule(NanoSeconds(2), &SimulatorImplTest::Record, this, "c");
    EventId removed = Simulator::Schedule(NanoSeconds(2), &SimulatorImplTest::Record, this, "r");
    EXPECT_FALSE(cancelled.IsExpired());
    cancelled.Cancel();
    EXPECT_TRUE(cancelled.IsExpired());
    Simulator::Remove(removed);
    EXPECT_TRUE(removed.IsExpired());
    Simulator::Run();
    EXPECT_TRUE(w.selfExpired);
    EXPECT_FALSE(w.otherExpired);
    EXPECT_EQ(w.otherLeft, NanoSeconds(2));
    EXPECT_TRUE(w.self.IsExpired());
    EXPECT_TRUE(w.other.IsExpired());
    EXPECT_TRUE(m_record.empty());
}

// Stop(delay) ends the run there; what is left runs on the next Run().
TEST_F(SimulatorImplTest, StopAfterADelay)
{
    Simulator::Schedule(NanoSeconds(5), &SimulatorImplTest::Record, this, "a");
    Simulator::Schedule(NanoSeconds(20), &SimulatorImplTest::Record, this, "b");
    Simulator::Stop(NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"a@5/4294967295"}));
    EXPECT_EQ(Simulator::Now(), NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m_record.size(), 2u);
    EXPECT_TRUE(Simulator::IsFinished());
}

/// Records when the instants it asked about end, and asks again as told.
struct InstantWatcher : public FabricInstantEnd
{
    SimulatorImplTest* test{nullptr}; //!< records
    uint32_t again{0};                //!< ask again this many times, at once, from the call

    void Ask()
    {
        test->Record("ask");
        FabricSimulatorImpl::Get()->AtEndOfInstant(this);
    }

    void InstantEnded() override
    {
        test->Record("end");
        if (again > 0)
        {
            --again;
            // An event at this instant, which runs before the instant ends again.
            Simulator::ScheduleNow(&InstantWatcher::Ask, this);
        }
    }
};

// AtEndOfInstant(): told once per instant however often it asked, after every event of that
// instant (those scheduled for it later too), before time moves on, and with no event of its
// own; an event it schedules at the same instant runs, then the instant ends again. A watcher
// that cancels is not told.
TEST_F(SimulatorImplTest, EndOfInstantComesAfterTheInstantsEvents)
{
    InstantWatcher w;
    w.test = this;
    w.again = 1;
    Simulator::Schedule(NanoSeconds(5), &InstantWatcher::Ask, &w);
    Simulator::Schedule(NanoSeconds(5), &InstantWatcher::Ask, &w);
    Simulator::Schedule(NanoSeconds(5), &SimulatorImplTest::Record, this, "a");
    Simulator::Schedule(NanoSeconds(7), &SimulatorImplTest::Record, this, "b");
    Simulator::Run();
    const std::string none = "/" + std::to_string(Simulator::NO_CONTEXT);
    EXPECT_EQ(m_record,
              (std::vector<std::string>{"ask@5" + none,
                                        "ask@5" + none,
                                        "a@5" + none,
                                        "end@5" + none,
                                        "ask@5" + none,
                                        "end@5" + none,
                                        "b@7" + none}));
    EXPECT_EQ(Simulator::GetEventCount(), 5u); // four, and the one the first end scheduled
    m_record.clear();
    Simulator::Schedule(NanoSeconds(1), &InstantWatcher::Ask, &w);
    Simulator::Schedule(NanoSeconds(1), &FabricSimulatorImpl::CancelEndOfInstant, m_impl, &w);
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"ask@8" + none}));
}

// A destroy event runs at Destroy(), unless removed.
TEST_F(SimulatorImplTest, DestroyEventsRunAtDestroy)
{
    Simulator::ScheduleDestroy(&SimulatorImplTest::Record, this, "d");
    EventId gone = Simulator::ScheduleDestroy(&SimulatorImplTest::Record, this, "gone");
    EXPECT_FALSE(gone.IsExpired());
    Simulator::Remove(gone);
    EXPECT_TRUE(gone.IsExpired());
    Simulator::Run();
    Simulator::Destroy();
    ASSERT_EQ(m_record.size(), 1u);
    EXPECT_EQ(m_record[0].substr(0, 2), "d@");
}

// Keys carried from elsewhere (another rank's frame) take their place among the instant's.
TEST_F(SimulatorImplTest, KeyedEventsTakeTheirPlace)
{
    NodeContainer nodes;
    nodes.Create(3);
    // What node 2 would have scheduled at 0 for 10: made now, scheduled after node 0's.
    FabricSimulatorImpl::Key key;
    key.ts = NanoSeconds(10).GetTimeStep();
    key.sched = 0;
    key.origin = 2;
    key.seq = 0;
    Simulator::ScheduleWithContext(
        0, NanoSeconds(0), &SimulatorImplTest::SendToOne, this, "from0", NanoSeconds(10));
    Simulator::Schedule(
        NanoSeconds(1),
        [this, key]()
        {
            m_impl->ScheduleKeyed(key, 1, MakeEvent(&SimulatorImplTest::Record, this, "from2"));
            FabricSimulatorImpl::Key early = key;
            early.origin = 0;
            early.seq = 0; // before node 0's event above (its order number is higher)
            m_impl->ScheduleKeyed(early, 1, MakeEvent(&SimulatorImplTest::Record, this, "early0"));
        });
    Simulator::Run();
    EXPECT_EQ(m_record, (std::vector<std::string>{"early0@10/1", "from0@10/1", "from2@10/1"}));
}

} // namespace
