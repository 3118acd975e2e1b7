/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/fabric-radix-scheduler.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <limits>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);

namespace
{
/// The latest representable time (time steps).
constexpr uint64_t NEVER = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

/// What a window's batch to another rank starts with.
struct WindowHeader
{
    uint64_t next; //!< the sender's next event time, or of a message it sent (time steps)
    uint32_t stop; //!< 1 if the sender stopped
    uint32_t pad;  //!< zero
};

/// What precedes a message's payload.
struct MessageHeader
{
    uint64_t ts;      //!< Key::ts
    uint64_t sched;   //!< Key::sched
    uint64_t seq;     //!< Key::seq
    uint32_t origin;  //!< Key::origin
    uint32_t context; //!< the receiving event's context
    uint32_t handler; //!< the handler's id
    uint32_t size;    //!< payload bytes
};

#ifdef NS3_MPI
/// The MPI tag of ai-fabric's messages.
constexpr int MESSAGE_TAG = 0xAF;
#endif

/// The running FabricSimulatorImpl (set while one exists).
FabricSimulatorImpl* g_current = nullptr;
} // namespace

TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricSimulatorImpl>();
    return tid;
}

FabricSimulatorImpl::FabricSimulatorImpl()
    : m_currentContext(Simulator::NO_CONTEXT)
    , m_lookaheadBound(NEVER)
    , m_sentNext(NEVER)
{
    NS_LOG_FUNCTION(this);
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        m_rank = MpiInterface::GetSystemId();
        m_nRanks = MpiInterface::GetSize();
    }
#endif
    g_current = this;
}

FabricSimulatorImpl::~FabricSimulatorImpl()
{
    NS_LOG_FUNCTION(this);
    if (g_current == this)
    {
        g_current = nullptr;
    }
}

FabricSimulatorImpl*
FabricSimulatorImpl::Get()
{
    return g_current;
}

std::vector<FabricSimulatorImpl::Handler>&
FabricSimulatorImpl::Handlers()
{
    static std::vector<Handler> handlers;
    return handlers;
}

uint32_t
FabricSimulatorImpl::RegisterHandler(Handler handler)
{
    Handlers().push_back(handler);
    return static_cast<uint32_t>(Handlers().size() - 1);
}

void
FabricSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    while (m_scheduler && !m_scheduler->IsEmpty())
    {
        m_scheduler->RemoveNext().impl->Unref();
    }
    m_scheduler = nullptr;
    m_queue.Clear([](const Ev& ev) { ev.impl->Unref(); });
    m_destroyEvents.clear();
    m_watch = nullptr;
    m_watchOwner = nullptr;
    m_outbox.clear();
    if (g_current == this)
    {
        g_current = nullptr;
    }
    SimulatorImpl::DoDispose();
}

void
FabricSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
    if (g_current == this)
    {
        g_current = nullptr; // Simulator::Destroy(): no longer the simulator, if still alive
    }
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return IsQueueEmpty() || m_stop;
}

void
FabricSimulatorImpl::Stop()
{
    m_stop = true;
}

void
FabricSimulatorImpl::StopNow()
{
    m_stop = true;
}

void
FabricSimulatorImpl::Stop(const Time& delay)
{
    Schedule(delay, MakeEvent(&FabricSimulatorImpl::StopNow, this));
}

bool
FabricSimulatorImpl::IsLocal(uint32_t node)
{
    if (m_nRanks == 1 || node == Simulator::NO_CONTEXT)
    {
        return true;
    }
    if (node >= m_remoteNode.size())
    {
        const uint32_t n = NodeList::GetNNodes();
        for (uint32_t i = static_cast<uint32_t>(m_remoteNode.size()); i < n; ++i)
        {
            m_remoteNode.push_back(NodeList::GetNode(i)->GetSystemId() != m_rank ? 1 : 0);
        }
        if (node >= m_remoteNode.size())
        {
            return true; // not a node's context
        }
    }
    return m_remoteNode[node] == 0;
}

void
FabricSimulatorImpl::Insert(const Ev& ev)
{
    if (m_scheduler)
    {
        Scheduler::Event e;
        e.impl = ev.impl;
        e.key.m_ts = ev.key.ts;
        e.key.m_uid = m_uid++;
        e.key.m_context = ev.context;
        m_scheduler->Insert(e);
        return;
    }
    m_queue.Insert(ev, "FabricSimulatorImpl");
}

uint64_t
FabricSimulatorImpl::NextTs() const
{
    return m_scheduler ? m_scheduler->PeekNext().key.m_ts : m_queue.Peek().key.ts;
}

void
FabricSimulatorImpl::ProcessOne()
{
    if (m_scheduler)
    {
        const Scheduler::Event e = m_scheduler->RemoveNext();
        m_currentTs = e.key.m_ts;
        m_currentContext = e.key.m_context;
        ++m_eventCount;
        m_running = e.impl;
        e.impl->Invoke();
        m_running = nullptr;
        e.impl->Cancel();
        e.impl->Unref();
        return;
    }
    const Ev ev = m_queue.Pop();
    m_currentTs = ev.key.ts;
    m_currentContext = ev.context;
    m_currentKey = ev.key;
    ++m_eventCount;
    if (m_watch)
    {
        m_watch->Note(ev.impl, ev.key.ts, ev.context);
    }
    m_running = ev.impl; // expired while it runs, as in ns-3's simulators
    ev.impl->Invoke();
    m_running = nullptr;
    ev.impl->Cancel(); // run: expired from now on (IsExpired())
    ev.impl->Unref();
}

FabricSimulatorImpl::Key
FabricSimulatorImpl::MakeKey(Time delay)
{
    NS_ASSERT_MSG(!delay.IsStrictlyNegative(), "FabricSimulatorImpl: a negative delay");
    Key key;
    key.ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    key.sched = m_currentTs;
    key.origin = m_currentContext;
    key.seq = m_seq++;
    return key;
}

FabricSimulatorImpl::Key
FabricSimulatorImpl::Enqueue(const Time& delay, uint32_t context, EventImpl* event)
{
    const Key key = MakeKey(delay);
    if (m_nRanks > 1 && !IsLocal(context))
    {
        event->Unref(); // another rank's node: it runs there
        return key;
    }
    Insert(Ev{key, context, event});
    return key;
}

void
FabricSimulatorImpl::ScheduleKeyed(const Key& key, uint32_t context, EventImpl* event)
{
    NS_ABORT_MSG_IF(key.ts < m_currentTs, "FabricSimulatorImpl: a keyed event in the past");
    if (m_nRanks > 1 && !IsLocal(context))
    {
        event->Unref();
        return;
    }
    Insert(Ev{key, context, event});
}

namespace
{
/**
 * \param key an event's key
 * \return the id an EventId of it carries (never one of EventId's reserved ids)
 */
uint32_t
UidOf(const FabricSimulatorImpl::Key& key)
{
    constexpr uint32_t FIRST = EventId::UID::VALID;
    return FIRST + static_cast<uint32_t>(key.seq % (std::numeric_limits<uint32_t>::max() - FIRST));
}
} // namespace

EventId
FabricSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const Key key = Enqueue(delay, m_currentContext, event);
    return EventId(event, key.ts, m_currentContext, UidOf(key));
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    Enqueue(delay, context, event);
}

EventId
FabricSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
FabricSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    EventId id(
        Ptr<EventImpl>(event, false), m_currentTs, Simulator::NO_CONTEXT, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    return id;
}

void
FabricSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                return;
            }
        }
        return;
    }
    Cancel(id); // stays queued, and does not run
}

void
FabricSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricSimulatorImpl::IsExpired(const EventId& id) const
{
    EventImpl* impl = id.PeekEventImpl(); // IsCancelled() is not const
    if (!impl || impl == m_running || impl->IsCancelled())
    {
        return true; // none, running, cancelled, or run (ProcessOne() cancels what ran)
    }
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        return std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id)
               == m_destroyEvents.end();
    }
    return false;
}

void
FabricSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;
    if (m_nRanks > 1)
    {
        RunDistributed();
        return;
    }
    while (!m_stop)
    {
        // While nobody asked, one comparison per event.
        if (!m_instantEnd.empty() && !HasEventNow())
        {
            EndInstant();
            continue;
        }
        if (IsQueueEmpty())
        {
            break;
        }
        ProcessOne();
    }
}

bool
FabricSimulatorImpl::HasEventNow() const
{
    if (m_scheduler)
    {
        return !m_scheduler->IsEmpty() && m_scheduler->PeekNext().key.m_ts == m_currentTs;
    }
    // The radix heap's first bucket holds the events of its reference time, the time of the
    // last event taken: now (a look at the next time would scan a bucket).
    return m_queue.HasAtReference();
}

bool
FabricSimulatorImpl::AtEndOfInstant(FabricInstantEnd* who)
{
    if (m_nRanks > 1)
    {
        return false;
    }
    if (std::find(m_instantEnd.begin(), m_instantEnd.end(), who) == m_instantEnd.end())
    {
        m_instantEnd.push_back(who);
    }
    return true;
}

void
FabricSimulatorImpl::CancelEndOfInstant(FabricInstantEnd* who)
{
    m_instantEnd.erase(std::remove(m_instantEnd.begin(), m_instantEnd.end(), who),
                       m_instantEnd.end());
    std::replace(m_ending.begin(), m_ending.end(), who, static_cast<FabricInstantEnd*>(nullptr));
}

void
FabricSimulatorImpl::EndInstant()
{
    // Outside any event: what they schedule has no node's context.
    const uint32_t context = m_currentContext;
    m_currentContext = Simulator::NO_CONTEXT;
    m_ending.swap(m_instantEnd);
    for (std::size_t i = 0; i < m_ending.size(); ++i)
    {
        if (FabricInstantEnd* who = m_ending[i])
        {
            who->InstantEnded(); // may ask again (m_instantEnd) or cancel (m_ending)
        }
    }
    m_ending.clear();
    m_currentContext = context;
}

Time
FabricSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    if (IsExpired(id))
    {
        return TimeStep(0);
    }
    return TimeStep(id.GetTs() - m_currentTs);
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(static_cast<int64_t>(NEVER));
}

void
FabricSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    if (!m_scheduler && m_queue.IsEmpty() && m_eventCount == 0
        && schedulerFactory.GetTypeId() == FabricRadixScheduler::GetTypeId())
    {
        return; // the keyed queue, a radix heap
    }
    NS_ABORT_MSG_IF(m_nRanks > 1,
                    "FabricSimulatorImpl: SchedulerType " << schedulerFactory.GetTypeId().GetName()
                                                          << " runs in one process only (MPI "
                                                             "runs take ai-fabric's own queue)");
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    // Move what is queued, in its order.
    std::vector<Ev> queued;
    while (!IsQueueEmpty())
    {
        if (m_scheduler)
        {
            const Scheduler::Event e = m_scheduler->RemoveNext();
            queued.push_back(Ev{Key{e.key.m_ts, 0, 0, 0}, e.key.m_context, e.impl});
        }
        else
        {
            queued.push_back(m_queue.Pop());
        }
    }
    m_scheduler = scheduler;
    for (const Ev& ev : queued)
    {
        Insert(ev);
    }
}

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return m_rank;
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint32_t
FabricSimulatorImpl::SwapContext(uint32_t context)
{
    std::swap(context, m_currentContext);
    return context;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

void
FabricSimulatorImpl::SetWatch(FabricEventWatch* watch, Ptr<Object> owner)
{
    m_watch = watch;
    m_watchOwner = owner;
}

void
FabricSimulatorImpl::BoundLookahead(Time lookahead)
{
    NS_ABORT_MSG_IF(!lookahead.IsStrictlyPositive(),
                    "FabricSimulatorImpl: a lookahead must be positive (a cable between ranks "
                    "needs a delay)");
    m_lookaheadBound = std::min<uint64_t>(m_lookaheadBound, lookahead.GetTimeStep());
}

Time
FabricSimulatorImpl::GetLookahead() const
{
    return TimeStep(static_cast<int64_t>(m_lookahead));
}

void
FabricSimulatorImpl::SumAcrossRanks(std::vector<uint64_t>& values) const
{
#ifdef NS3_MPI
    if (m_nRanks > 1 && !values.empty())
    {
        MPI_Allreduce(MPI_IN_PLACE,
                      values.data(),
                      static_cast<int>(values.size()),
                      MPI_UINT64_T,
                      MPI_SUM,
                      MpiInterface::GetCommunicator());
    }
#else
    (void) values;
#endif
}

void
FabricSimulatorImpl::SumAcrossRanks(std::vector<double>& values) const
{
#ifdef NS3_MPI
    if (m_nRanks > 1 && !values.empty())
    {
        MPI_Allreduce(MPI_IN_PLACE,
                      values.data(),
                      static_cast<int>(values.size()),
                      MPI_DOUBLE,
                      MPI_SUM,
                      MpiInterface::GetCommunicator());
    }
#else
    (void) values;
#endif
}

std::vector<uint8_t>
FabricSimulatorImpl::GatherAcrossRanks(const std::vector<uint8_t>& mine) const
{
#ifdef NS3_MPI
    if (m_nRanks > 1)
    {
        MPI_Comm comm = MpiInterface::GetCommunicator();
        const int n = static_cast<int>(mine.size());
        std::vector<int> sizes(m_nRanks);
        MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
        std::vector<int> offsets(m_nRanks, 0);
        for (uint32_t r = 1; r < m_nRanks; ++r)
        {
            offsets[r] = offsets[r - 1] + sizes[r - 1];
        }
        std::vector<uint8_t> all(static_cast<std::size_t>(offsets.back() + sizes.back()));
        MPI_Allgatherv(
            mine.data(), n, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, comm);
        return all;
    }
#endif
    return mine;
}

uint64_t
FabricSimulatorImpl::GetWindows() const
{
    return m_windows;
}

void
FabricSimulatorImpl::Send(uint32_t rank,
                          const Key& key,
                          uint32_t context,
                          uint32_t handler,
                          const uint8_t* data,
                          uint32_t size)
{
    NS_ABORT_MSG_IF(rank >= m_nRanks || rank == m_rank, "FabricSimulatorImpl: no rank " << rank);
    NS_ABORT_MSG_IF(key.ts < m_currentTs + m_lookahead,
                    "FabricSimulatorImpl: a message less than the lookahead ahead");
    // Kept for the end of the window: one MPI message per rank and window.
    if (m_outbox.size() != m_nRanks)
    {
        m_outbox.assign(m_nRanks, std::vector<uint8_t>(sizeof(WindowHeader)));
    }
    std::vector<uint8_t>& out = m_outbox[rank];
    const MessageHeader h{key.ts, key.sched, key.seq, key.origin, context, handler, size};
    const std::size_t at = out.size();
    out.resize(at + sizeof(h) + size);
    std::memcpy(out.data() + at, &h, sizeof(h));
    if (size > 0)
    {
        std::memcpy(out.data() + at + sizeof(h), data, size);
    }
    m_sentNext = std::min(m_sentNext, key.ts);
    ++m_messages;
}

void
FabricSimulatorImpl::Dispatch(const uint8_t* data, std::size_t size)
{
    std::size_t at = 0;
    while (at < size)
    {
        MessageHeader h;
        NS_ABORT_MSG_IF(size - at < sizeof(h), "FabricSimulatorImpl: a short message");
        std::memcpy(&h, data + at, sizeof(h));
        at += sizeof(h);
        NS_ABORT_MSG_IF(h.handler >= Handlers().size() || size - at < h.size,
                        "FabricSimulatorImpl: a malformed message (handler "
                            << h.handler << " of " << Handlers().size() << ", " << h.size
                            << " bytes of " << size - at << ")");
        Key key;
        key.ts = h.ts;
        key.sched = h.sched;
        key.seq = h.seq;
        key.origin = h.origin;
        Handlers()[h.handler](key, h.context, data + at, h.size);
        at += h.size;
    }
}

void
FabricSimulatorImpl::RunDistributed()
{
#ifdef NS3_MPI
    MPI_Comm comm = MpiInterface::GetCommunicator();
    uint64_t bound = m_lookaheadBound;
    uint64_t lookahead = NEVER;
    MPI_Allreduce(&bound, &lookahead, 1, MPI_UINT64_T, MPI_MIN, comm);
    m_lookahead = lookahead;
    m_windows = 0;
    m_messages = 0;
    if (m_outbox.size() != m_nRanks)
    {
        m_outbox.assign(m_nRanks, std::vector<uint8_t>(sizeof(WindowHeader)));
    }
    std::vector<MPI_Request> requests;
    std::vector<uint8_t> inbox;
    while (true)
    {
        // The window's end: every rank sends every other one its messages, its next event's
        // time (the earliest of its queue and of what it sent) and whether it stopped, and
        // reads theirs. The next window runs to the earliest of all plus the lookahead.
        const uint64_t mine = std::min(IsQueueEmpty() || m_stop ? NEVER : NextTs(), m_sentNext);
        const WindowHeader header{mine, m_stop ? 1U : 0U, 0};
        requests.clear();
        for (uint32_t r = 0; r < m_nRanks; ++r)
        {
            if (r == m_rank)
            {
                continue;
            }
            std::memcpy(m_outbox[r].data(), &header, sizeof(header));
            requests.emplace_back();
            MPI_Isend(m_outbox[r].data(),
                      static_cast<int>(m_outbox[r].size()),
                      MPI_BYTE,
                      static_cast<int>(r),
                      MESSAGE_TAG,
                      comm,
                      &requests.back());
        }
        uint64_t next = mine;
        bool stop = m_stop;
        for (uint32_t r = 0; r < m_nRanks; ++r)
        {
            if (r == m_rank)
            {
                continue;
            }
            MPI_Status status;
            MPI_Probe(static_cast<int>(r), MESSAGE_TAG, comm, &status);
            int count = 0;
            MPI_Get_count(&status, MPI_BYTE, &count);
            inbox.resize(static_cast<std::size_t>(count));
            MPI_Recv(inbox.data(),
                     count,
                     MPI_BYTE,
                     static_cast<int>(r),
                     MESSAGE_TAG,
                     comm,
                     MPI_STATUS_IGNORE);
            WindowHeader theirs;
            NS_ABORT_MSG_IF(inbox.size() < sizeof(theirs), "FabricSimulatorImpl: a short window");
            std::memcpy(&theirs, inbox.data(), sizeof(theirs));
            next = std::min(next, theirs.next);
            stop = stop || theirs.stop != 0;
            Dispatch(inbox.data() + sizeof(theirs), inbox.size() - sizeof(theirs));
        }
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
        for (auto& out : m_outbox)
        {
            out.resize(sizeof(WindowHeader)); // keeps its capacity
        }
        m_sentNext = NEVER;
        ++m_windows;
        if (stop)
        {
            m_stop = true; // one rank stopped: every rank does
            break;
        }
        if (next == NEVER)
        {
            break; // no events and no messages anywhere
        }
        const uint64_t end = next > NEVER - m_lookahead ? NEVER : next + m_lookahead;
        while (!IsQueueEmpty() && !m_stop && NextTs() < end)
        {
            ProcessOne();
        }
    }
#endif
}

} // namespace ns3
