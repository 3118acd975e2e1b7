/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-watchdog-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <limits>
#include <map>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricWatchdogScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricWatchdogScheduler);

namespace
{
/**
 * \param type an event implementation's type
 * \return the class whose method the event calls ("ns3::Communicator"), or a short name
 */
std::string
EventSource(const std::type_info* type)
{
    if (!type)
    {
        return "?";
    }
    int status = 0;
    char* demangled = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : type->name();
    std::free(demangled);
    // A member function's event: "...MakeEvent<void (ns3::Class::*)(...), ...>...".
    const std::size_t member = name.find("::*)");
    if (member != std::string::npos)
    {
        const std::size_t open = name.rfind('(', member);
        if (open != std::string::npos)
        {
            return name.substr(open + 1, member - open - 1);
        }
    }
    if (name.find("(*)(") != std::string::npos)
    {
        return "a function";
    }
    return name.size() > 60 ? name.substr(0, 57) + "..." : name;
}

/**
 * \param context an event's context
 * \return the node's name, "node N", or "no node"
 */
std::string
ContextName(uint32_t context)
{
    if (context >= NodeList::GetNNodes())
    {
        return "no node";
    }
    const std::string name = Names::FindName(NodeList::GetNode(context));
    return name.empty() ? "node " + std::to_string(context) : name;
}
} // namespace

TypeId
FabricWatchdogScheduler::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricWatchdogScheduler")
              .SetParent<Scheduler>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricWatchdogScheduler>()
              .AddAttribute("Inner",
                            "The scheduler that orders the events (any ns-3 scheduler).",
                            PointerValue(),
                            MakePointerAccessor(&FabricWatchdogScheduler::m_inner),
                            MakePointerChecker<Scheduler>())
              .AddAttribute("Watchdog",
                            "The watchdog whose limits apply and that receives the report.",
                            PointerValue(),
                            MakePointerAccessor(&FabricWatchdogScheduler::SetWatchdog,
                                                &FabricWatchdogScheduler::GetWatchdog),
                            MakePointerChecker<FabricWatchdog>());
    return tid;
}

static_assert((FabricWatchdogScheduler::RECENT & (FabricWatchdogScheduler::RECENT - 1)) == 0,
              "RECENT is a power of two");

FabricWatchdogScheduler::FabricWatchdogScheduler() = default;

FabricWatchdogScheduler::~FabricWatchdogScheduler() = default;

void
FabricWatchdogScheduler::DoDispose()
{
    m_inner = nullptr;
    m_watchdog = nullptr;
    Scheduler::DoDispose();
}

void
FabricWatchdogScheduler::SetWatchdog(Ptr<FabricWatchdog> watchdog)
{
    m_watchdog = watchdog;
    if (!watchdog)
    {
        return;
    }
    m_maxEvents = watchdog->GetMaxEvents();
    m_maxSameTime = watchdog->GetMaxEventsAtOneTime();
    const Time wall = watchdog->GetMaxWallTime();
    m_wallLimit = wall.IsStrictlyPositive();
    m_deadline = watchdog->GetDeadline();
    SetNextCheck();
}

Ptr<FabricWatchdog>
FabricWatchdogScheduler::GetWatchdog() const
{
    return m_watchdog;
}

// The forwarding methods are never inlined: GCC would otherwise guess, at each call of the
// inner scheduler, that it is another watchdog scheduler and inline that guess into itself
// eight levels deep, some 40 instructions and six spilled registers per event.
[[gnu::noinline]] void
FabricWatchdogScheduler::Insert(const Event& ev)
{
    m_inner->Insert(ev);
}

[[gnu::noinline]] bool
FabricWatchdogScheduler::IsEmpty() const
{
    return m_inner->IsEmpty();
}

[[gnu::noinline]] Scheduler::Event
FabricWatchdogScheduler::PeekNext() const
{
    return m_inner->PeekNext();
}

[[gnu::noinline]] void
FabricWatchdogScheduler::Remove(const Event& ev)
{
    m_inner->Remove(ev);
}

[[gnu::noinline]] Scheduler::Event
FabricWatchdogScheduler::RemoveNext()
{
    Event ev = m_inner->RemoveNext();
    Note(ev.impl, ev.key.m_ts, ev.key.m_context);
    return ev;
}

void
FabricWatchdogScheduler::Note(EventImpl* impl, uint64_t ts, uint32_t context)
{
    Recent& r = m_recent[m_events & (RECENT - 1)];
    r.type = &typeid(*impl);
    r.context = context;
    ++m_events;
    if (ts != m_lastTs)
    {
        m_lastTs = ts;
        m_sameTime = 0;
    }
    ++m_sameTime;
    // One comparison per limit and event; the rest waits for the event that reaches one.
    if (m_events >= m_nextCheck || m_sameTime >= m_sameTimeLimit)
    {
        Check(ts);
    }
}

void
FabricWatchdogScheduler::Check(uint64_t now)
{
    if (m_events == m_maxEvents)
    {
        Fire(FabricWatchdog::Limit::EVENTS,
             "MaxEvents (" + std::to_string(m_maxEvents) + " events) reached",
             now);
        return;
    }
    if (m_sameTime == m_maxSameTime)
    {
        Fire(FabricWatchdog::Limit::FROZEN_TIME,
             "simulated time stopped advancing (" + std::to_string(m_maxSameTime)
                 + " events in a row at one instant, MaxEventsAtOneTime)",
             now);
        return;
    }
    if (m_wallLimit && m_events % WALL_CHECK_EVENTS == 0
        && std::chrono::steady_clock::now() >= m_deadline)
    {
        char what[96];
        std::snprintf(what,
                      sizeof(what),
                      "MaxWallTime (%.3f s of wall-clock time) reached",
                      m_watchdog->GetMaxWallTime().GetSeconds());
        Fire(FabricWatchdog::Limit::WALL_TIME, what, now);
        return;
    }
    SetNextCheck();
}

void
FabricWatchdogScheduler::SetNextCheck()
{
    constexpr uint64_t NEVER = std::numeric_limits<uint64_t>::max();
    if (m_fired)
    {
        m_nextCheck = NEVER;
        m_sameTimeLimit = NEVER;
        return;
    }
    m_nextCheck = m_maxEvents > m_events ? m_maxEvents : NEVER;
    if (m_wallLimit)
    {
        m_nextCheck = std::min(m_nextCheck, (m_events / WALL_CHECK_EVENTS + 1) * WALL_CHECK_EVENTS);
    }
    // Past the limit (a run of equal times that reached it): the next event at another time
    // starts a new run.
    m_sameTimeLimit = m_maxSameTime > 0 ? m_maxSameTime : NEVER;
}

std::string
FabricWatchdogScheduler::Sources() const
{
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(m_events, RECENT));
    std::map<std::pair<std::string, std::string>, uint32_t> count;
    for (uint32_t i = 0; i < n; ++i)
    {
        const Recent& r = m_recent[i];
        ++count[{EventSource(r.type), ContextName(r.context)}];
    }
    std::vector<std::pair<uint32_t, std::pair<std::string, std::string>>> sorted;
    for (const auto& [source, c] : count)
    {
        sorted.emplace_back(c, source);
    }
    std::sort(sorted.begin(),
              sorted.end(),
              [](const auto& a, const auto& b)
              { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::string s = "the last " + std::to_string(n) + " events: ";
    for (std::size_t i = 0; i < sorted.size() && i < 3; ++i)
    {
        char share[32];
        std::snprintf(share, sizeof(share), "%.0f%% ", 100.0 * sorted[i].first / n);
        s += (i == 0 ? "" : ", ") + std::string(share) + sorted[i].second.first + " on "
             + sorted[i].second.second;
    }
    if (sorted.size() > 3)
    {
        s += ", ...";
    }
    return s;
}

void
FabricWatchdogScheduler::Fire(FabricWatchdog::Limit limit, const std::string& what, uint64_t now)
{
    m_fired = true;
    SetNextCheck();
    char at[64];
    std::snprintf(at,
                  sizeof(at),
                  " at %.6f us simulated, after %llu events; ",
                  Time(static_cast<int64_t>(now)).GetSeconds() * 1e6,
                  static_cast<unsigned long long>(m_events));
    const std::string report = "watchdog: " + what + at + Sources();
    NS_LOG_WARN(report);
    if (m_watchdog)
    {
        m_watchdog->Fire(limit, report);
    }
    Simulator::Stop(); // the event taken now still runs; none after it
}

} // namespace ns3
