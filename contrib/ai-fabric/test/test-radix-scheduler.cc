/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricRadixScheduler hands out events in ns-3's order (time, then id) whatever the mix of
// inserts, removals and peeks, as ns-3's MapScheduler does; and a whole collective run on it
// is the same, event for event, as on ns-3's schedulers.

#include "ai-fabric-test-fixture.h"
#include "ai-fabric-test-programs.h"
#include "ns3/event-impl.h"
#include "ns3/fabric-radix-scheduler.h"
#include "ns3/map-scheduler.h"
#include "ns3/object-factory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// An event implementation that does nothing: the schedulers only order pointers to it.
class NoOpEvent : public EventImpl
{
  protected:
    void Notify() override {}
};

// Random inserts (at the current time, soon, far later; times that collide), removals of
// pending events and peeks, against MapScheduler: the same events come out in the same order.
TEST(RadixSchedulerTest, SameOrderAsMapScheduler)
{
    for (uint32_t seed = 1; seed <= 20; ++seed)
    {
        Ptr<Scheduler> radix = CreateObject<FabricRadixScheduler>();
        Ptr<Scheduler> map = CreateObject<MapScheduler>();
        std::mt19937_64 rng(seed);
        std::vector<Ptr<EventImpl>> impls; // keeps the implementations alive
        std::vector<Scheduler::Event> pending;
        uint64_t now = 0;
        uint32_t uid = 0;
        uint64_t taken = 0;
        auto insert = [&](uint64_t ts)
        {
            impls.push_back(Create<NoOpEvent>());
            Scheduler::Event ev;
            ev.impl = PeekPointer(impls.back());
            ev.key.m_ts = ts;
            ev.key.m_uid = uid++;
            ev.key.m_context = 0;
            radix->Insert(ev);
            map->Insert(ev);
            pending.push_back(ev);
        };
        for (uint32_t step = 0; step < 20000; ++step)
        {
            const uint32_t what = rng() % 10;
            if (what < 5)
            {
                // Mostly near, sometimes now, sometimes far (timers), sometimes a colliding time.
                const uint32_t kind = rng() % 8;
                uint64_t ts = now;
                if (kind < 4)
                {
                    ts = now + rng() % 1000;
                }
                else if (kind == 4)
                {
                    ts = now + rng() % (uint64_t{1} << 40);
                }
                else if (kind == 5)
                {
                    ts = now + (rng() % 4) * 100;
                }
                insert(ts);
            }
            else if (what < 6 && !pending.empty())
            {
                const std::size_t i = rng() % pending.size();
                radix->Remove(pending[i]);
                map->Remove(pending[i]);
                pending[i] = pending.back();
                pending.pop_back();
            }
            else if (!map->IsEmpty())
            {
                ASSERT_FALSE(radix->IsEmpty());
                const Scheduler::Event peek = radix->PeekNext();
                ASSERT_EQ(peek.key.m_uid, map->PeekNext().key.m_uid);
                const Scheduler::Event a = radix->RemoveNext();
                const Scheduler::Event b = map->RemoveNext();
                ASSERT_EQ(a.key.m_uid, b.key.m_uid) << "seed " << seed << ", event " << taken;
                ASSERT_EQ(a.key.m_ts, b.key.m_ts);
                ASSERT_EQ(a.impl, b.impl);
                ASSERT_EQ(peek.key.m_uid, a.key.m_uid);
                now = a.key.m_ts;
                ++taken;
                for (std::size_t i = 0; i < pending.size(); ++i)
                {
                    if (pending[i].key.m_uid == a.key.m_uid)
                    {
                        pending[i] = pending.back();
                        pending.pop_back();
                        break;
                    }
                }
            }
        }
        while (!map->IsEmpty())
        {
            ASSERT_FALSE(radix->IsEmpty());
            ASSERT_EQ(radix->RemoveNext().key.m_uid, map->RemoveNext().key.m_uid);
        }
        EXPECT_TRUE(radix->IsEmpty());
        EXPECT_GT(taken, 5000u);
    }
}

// An event before the reference time breaks the order every ns-3 scheduler keeps: refused.
TEST(RadixSchedulerTest, EventInThePastIsRefused)
{
    Ptr<Scheduler> radix = CreateObject<FabricRadixScheduler>();
    Ptr<EventImpl> impl = Create<NoOpEvent>();
    Scheduler::Event ev{PeekPointer(impl), {100, 1, 0}};
    radix->Insert(ev);
    EXPECT_EQ(radix->RemoveNext().key.m_ts, 100u);
    Scheduler::Event early{PeekPointer(impl), {99, 2, 0}};
    EXPECT_DEATH(radix->Insert(early), "before the current time");
}

// A collective on the radix scheduler prints exactly what it prints on ns-3's map scheduler
// (both on ns-3's simulator: ai-fabric's own orders the events of an instant by their keys).
TEST(RadixSchedulerTest, FattreeRunIsTheSameOnEveryScheduler)
{
    const std::string args
        = " --server=dgx-h100 --servers=4 --tiers=2 --radix=8 --algo=ring "
          "--minBytes=64K --maxBytes=4M --iters=1 --warmup=0"
          " --SimulatorImplementationType=ns3::DefaultSimulatorImpl";
    const CommandResult map = RunCommand(ProgramPath("ai-fabric-fattree") + args
                                         + " --SchedulerType=ns3::MapScheduler");
    const CommandResult radix = RunCommand(ProgramPath("ai-fabric-fattree") + args
                                           + " --SchedulerType=ns3::FabricRadixScheduler");
    ASSERT_EQ(map.status, 0) << map.err;
    ASSERT_EQ(radix.status, 0) << radix.err;
    EXPECT_EQ(radix.out, map.out);
    // ai-fabric's simulator with ns-3's map scheduler keeps ns-3's order too.
    const CommandResult fabricMap = RunCommand(
        ProgramPath("ai-fabric-fattree") + " --server=dgx-h100 --servers=4 --tiers=2 --radix=8 "
        "--algo=ring --minBytes=64K --maxBytes=4M --iters=1 --warmup=0 "
        "--SchedulerType=ns3::MapScheduler");
    ASSERT_EQ(fabricMap.status, 0) << fabricMap.err;
    EXPECT_EQ(fabricMap.out, map.out);
}

} // namespace
