/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-event-counter.h"

#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <iostream>

namespace ns3
{

namespace
{
/// The counter alive now, printed at exit if the program ends before it is destroyed.
FabricEventCounter* g_liveCounter = nullptr;

/// Print the live counter's table (programs may exit without Simulator::Destroy).
void
PrintLiveCounter()
{
    if (g_liveCounter)
    {
        g_liveCounter->PrintOnce();
    }
}
} // namespace

NS_LOG_COMPONENT_DEFINE("FabricEventCounter");
NS_OBJECT_ENSURE_REGISTERED(FabricEventTally);
NS_OBJECT_ENSURE_REGISTERED(FabricEventCounter);

TypeId
FabricEventTally::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricEventTally")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricEventTally>();
    return tid;
}

const std::vector<FabricEventTally::Kind>&
FabricEventTally::GetKinds() const
{
    return m_kinds;
}

uint64_t
FabricEventTally::GetExecuted() const
{
    uint64_t n = 0;
    for (const Kind& k : m_kinds)
    {
        n += k.executed;
    }
    return n;
}

uint64_t
FabricEventTally::GetCancelled() const
{
    uint64_t n = 0;
    for (const Kind& k : m_kinds)
    {
        n += k.cancelled;
    }
    return n;
}

uint64_t
FabricEventTally::GetExecuted(const std::string& method) const
{
    uint64_t n = 0;
    for (const Kind& k : m_kinds)
    {
        if (KindName(k.type).find(method) != std::string::npos)
        {
            n += k.executed;
        }
    }
    return n;
}

std::string
FabricEventTally::KindName(const std::type_info* type)
{
    if (!type)
    {
        return "?";
    }
    int status = 0;
    char* demangled = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : type->name();
    std::free(demangled);
    // A member function's event: "ns3::MakeEvent<void (ns3::Class::*)(args), ...>...".
    const std::size_t member = name.find("::*)(");
    if (member != std::string::npos)
    {
        const std::size_t open = name.rfind('(', member);
        const std::size_t close = name.find(')', member + 5);
        if (open != std::string::npos && close != std::string::npos)
        {
            return name.substr(open + 1, member - open - 1)
                   + name.substr(member + 4, close - member - 3);
        }
    }
    return name;
}

void
FabricEventTally::Print(std::ostream& os, double per) const
{
    std::vector<const Kind*> sorted;
    for (const Kind& k : m_kinds)
    {
        sorted.push_back(&k);
    }
    std::sort(sorted.begin(),
              sorted.end(),
              [](const Kind* a, const Kind* b) { return a->executed > b->executed; });
    char line[64];
    os << "# events by kind (executed, cancelled" << (per > 0 ? ", executed per unit" : "")
       << ", kind)\n";
    for (const Kind* k : sorted)
    {
        if (per > 0)
        {
            std::snprintf(line,
                          sizeof(line),
                          "%12llu %10llu %8.3f  ",
                          static_cast<unsigned long long>(k->executed),
                          static_cast<unsigned long long>(k->cancelled),
                          k->executed / per);
        }
        else
        {
            std::snprintf(line,
                          sizeof(line),
                          "%12llu %10llu  ",
                          static_cast<unsigned long long>(k->executed),
                          static_cast<unsigned long long>(k->cancelled));
        }
        os << line << KindName(k->type) << "\n";
    }
    if (per > 0)
    {
        std::snprintf(line,
                      sizeof(line),
                      "%12llu %10llu %8.3f  ",
                      static_cast<unsigned long long>(GetExecuted()),
                      static_cast<unsigned long long>(GetCancelled()),
                      GetExecuted() / per);
    }
    else
    {
        std::snprintf(line,
                      sizeof(line),
                      "%12llu %10llu  ",
                      static_cast<unsigned long long>(GetExecuted()),
                      static_cast<unsigned long long>(GetCancelled()));
    }
    os << line << "total\n";
}

void
FabricEventTally::Reset()
{
    m_kinds.clear();
    m_last = 0;
}

void
FabricEventTally::CountSlow(const std::type_info* type, bool cancelled)
{
    for (std::size_t i = 0; i < m_kinds.size(); ++i)
    {
        if (m_kinds[i].type == type || *m_kinds[i].type == *type)
        {
            m_last = i;
            ++(cancelled ? m_kinds[i].cancelled : m_kinds[i].executed);
            return;
        }
    }
    m_kinds.push_back({type, cancelled ? 0U : 1U, cancelled ? 1U : 0U});
    m_last = m_kinds.size() - 1;
}

TypeId
FabricEventCounter::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricEventCounter")
              .SetParent<Scheduler>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricEventCounter>()
              .AddAttribute("InnerType",
                            "TypeId of the scheduler that orders the events (any ns-3 "
                            "scheduler). Default ns3::MapScheduler, ns-3's default.",
                            StringValue("ns3::MapScheduler"),
                            MakeStringAccessor(&FabricEventCounter::m_innerType),
                            MakeStringChecker())
              .AddAttribute("Tally",
                            "Where the counts go (a new one if not set).",
                            PointerValue(),
                            MakePointerAccessor(&FabricEventCounter::m_tally),
                            MakePointerChecker<FabricEventTally>())
              .AddAttribute("Print",
                            "Print the counts by kind to stderr when the counter is destroyed.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&FabricEventCounter::m_print),
                            MakeBooleanChecker());
    return tid;
}

FabricEventCounter::FabricEventCounter()
{
    static bool registered = false;
    if (!registered)
    {
        registered = true;
        std::atexit(&PrintLiveCounter);
    }
    g_liveCounter = this;
}

FabricEventCounter::~FabricEventCounter()
{
    PrintOnce();
    if (g_liveCounter == this)
    {
        g_liveCounter = nullptr;
    }
}

void
FabricEventCounter::PrintOnce()
{
    if (m_print && !m_printed && m_tally && !m_tally->GetKinds().empty())
    {
        m_printed = true;
        m_tally->Print(std::cerr);
    }
}

Scheduler&
FabricEventCounter::Inner() const
{
    if (!m_inner)
    {
        ObjectFactory factory(m_innerType);
        m_inner = factory.Create<Scheduler>();
    }
    return *m_inner;
}

Ptr<FabricEventTally>
FabricEventCounter::GetTally() const
{
    return m_tally;
}

void
FabricEventCounter::Insert(const Event& ev)
{
    Inner().Insert(ev);
}

bool
FabricEventCounter::IsEmpty() const
{
    return Inner().IsEmpty();
}

Scheduler::Event
FabricEventCounter::PeekNext() const
{
    return Inner().PeekNext();
}

void
FabricEventCounter::Remove(const Event& ev)
{
    Inner().Remove(ev);
}

Scheduler::Event
FabricEventCounter::RemoveNext()
{
    Event ev = Inner().RemoveNext();
    if (!m_tally)
    {
        m_tally = CreateObject<FabricEventTally>();
    }
    m_tally->Count(&typeid(*ev.impl), ev.impl->IsCancelled());
    return ev;
}

} // namespace ns3
