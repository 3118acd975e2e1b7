/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-radix-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricRadixScheduler);

TypeId
FabricRadixScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRadixScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricRadixScheduler>();
    return tid;
}

FabricRadixScheduler::FabricRadixScheduler() = default;

FabricRadixScheduler::~FabricRadixScheduler() = default;

void
FabricRadixScheduler::Insert(const Event& ev)
{
    // ns-3 hands out ids in order, so events come in order unless a simulator does otherwise.
    m_heap.Insert(ev, "FabricRadixScheduler");
}

bool
FabricRadixScheduler::IsEmpty() const
{
    return m_heap.IsEmpty();
}

Scheduler::Event
FabricRadixScheduler::PeekNext() const
{
    NS_ABORT_MSG_IF(m_heap.IsEmpty(), "FabricRadixScheduler: PeekNext() with no events");
    return m_heap.Peek();
}

Scheduler::Event
FabricRadixScheduler::RemoveNext()
{
    NS_ABORT_MSG_IF(m_heap.IsEmpty(), "FabricRadixScheduler: RemoveNext() with no events");
    return m_heap.Pop();
}

void
FabricRadixScheduler::Remove(const Event& ev)
{
    NS_ABORT_MSG_IF(!m_heap.Remove(ev.key.m_ts,
                                   [&ev](const Event& e)
                                   { return e.key.m_uid == ev.key.m_uid && e.impl == ev.impl; }),
                    "FabricRadixScheduler: Remove() of an event it does not hold");
}

} // namespace ns3
