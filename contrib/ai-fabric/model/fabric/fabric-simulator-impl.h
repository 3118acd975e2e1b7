/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_SIMULATOR_IMPL_H
#define FABRIC_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/fabric-radix-heap.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <cstdint>
#include <list>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What sees every event FabricSimulatorImpl takes from its queue (a watchdog).
 */
class FabricEventWatch
{
  public:
    virtual ~FabricEventWatch() = default;

    /**
     * \brief An event is about to run.
     * \param impl the event
     * \param ts its time (time steps)
     * \param context its context
     */
    virtual void Note(EventImpl* impl, uint64_t ts, uint32_t context) = 0;
};

/**
 * \ingroup ai-fabric
 * \brief Told when the events of an instant are done (FabricSimulatorImpl::AtEndOfInstant()).
 */
class FabricInstantEnd
{
  public:
    virtual ~FabricInstantEnd() = default;

    /// The current instant's events are done; time has not moved on yet.
    virtual void InstantEnded() = 0;
};

/**
 * \ingroup ai-fabric
 * \brief ai-fabric's simulator: events in an order that does not depend on how the nodes are
 *        split across processes, run in one process or across MPI ranks.
 *
 * ns-3's simulators run the events of one instant in the order they were scheduled. That order
 * is the order of the whole process, so it changes when the nodes are split across MPI ranks:
 * a frame from another rank is scheduled when its message is read, not when it was sent. This
 * simulator orders the events of one instant by a key made where they were scheduled:
 *
 *   (time, time it was scheduled at, context that scheduled it, order within that context)
 *
 * For events scheduled at different times this is ns-3's order. For events scheduled at one
 * instant by different contexts (nodes) it is the nodes' order, the same on any split. A frame
 * sent to another rank carries its key, so it runs where it would have run in one process.
 * Events of one node then run in the same order on any number of ranks.
 *
 * With more than one MPI rank (ns-3's MpiInterface enabled) it synchronises the ranks by
 * granted time windows: every rank runs its events before the window's end (the smallest
 * next event time of all ranks plus the lookahead: the shortest delay of a message between
 * ranks), then the ranks exchange their messages and agree on the next window. A message must
 * be sent at least the lookahead before the time it is for. A rank runs only the events of its
 * own nodes (an event whose context is another rank's node is dropped where it is scheduled).
 *
 * The event queue is a radix heap on the time (as FabricRadixScheduler), with the current
 * instant's events sorted by the key: the simulator takes it when the SchedulerType is
 * ai-fabric's FabricRadixScheduler (the programs' default). Any other SchedulerType (ns-3's
 * MapScheduler, FabricEventCounter, ...) is used as ns-3's simulator uses it, in ns-3's order
 * (by the order of scheduling), in one process only. Simulator::Remove() cancels: the event
 * stays queued until its time, and does not run.
 */
class FabricSimulatorImpl : public SimulatorImpl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricSimulatorImpl();
    ~FabricSimulatorImpl() override;

    /// The order of an event among those of its instant.
    struct Key
    {
        uint64_t ts{0};     //!< when it runs (time steps)
        uint64_t sched{0};  //!< when it was scheduled (time steps)
        uint32_t origin{0}; //!< the context that scheduled it
        uint64_t seq{0};    //!< the scheduling process's count of events (orders one origin's)
    };

    /**
     * A message handler: called in the receiving rank with the message's key, context and
     * payload (valid during the call only).
     */
    typedef void (*Handler)(const Key& key, uint32_t context, const uint8_t* data, uint32_t size);

    /// \return the running simulator if it is a FabricSimulatorImpl, else nullptr
    static FabricSimulatorImpl* Get();

    /**
     * \param handler a message handler
     * \return its id, for Send() (register in the same order on every rank)
     */
    static uint32_t RegisterHandler(Handler handler);

    /**
     * \brief The key an event scheduled now with this delay gets (it takes an order number).
     * \param delay the delay
     * \return the key
     */
    Key MakeKey(Time delay);

    /**
     * \brief Schedule an event with a key made elsewhere (MakeKey() on the sending rank).
     * \param key the key (its time not before now)
     * \param context the context the event runs in
     * \param event the event
     */
    void ScheduleKeyed(const Key& key, uint32_t context, EventImpl* event);

    /**
     * \brief Send a message to another rank: its handler runs there as an event of this key
     *        would (the handler is called when the message is read; it schedules what the
     *        message asks with ScheduleKeyed()).
     * \param rank the receiving rank
     * \param key the key (its time at least the lookahead after now)
     * \param context the context the receiver's event runs in
     * \param handler the handler's id
     * \param data the payload
     * \param size its size
     */
    void Send(uint32_t rank,
              const Key& key,
              uint32_t context,
              uint32_t handler,
              const uint8_t* data,
              uint32_t size);

    /**
     * \brief Be told once when the events of the current instant are done, before time moves
     *        on or the run ends: work that the instant's events ask for, done once for all
     *        of them (the flow level settles its rates there), without an event. What it does
     *        may schedule events, at this instant too; those run after it, and it may ask again.
     * \param who told (once however often it asks in one instant; CancelEndOfInstant() before
     *        it is destroyed)
     * \return false where this cannot be done (more than one MPI rank): schedule an event now
     *         instead
     */
    bool AtEndOfInstant(FabricInstantEnd* who);

    /// \param who no longer told (if it asked)
    void CancelEndOfInstant(FabricInstantEnd* who);

    /**
     * \brief Run what follows, in the current event, in another context: what it schedules
     *        carries that context and is ordered as that context's events are (Key::origin),
     *        as if it ran in an event of that context. For one event doing the work of several
     *        nodes' events due together, each in its own node's context.
     * \param context the context from now on
     * \return the context before (to put back)
     */
    uint32_t SwapContext(uint32_t context);

    /**
     * \brief Messages between ranks are never sent less than this ahead of their time (the
     *        lookahead is the smallest bound given; call before Run()).
     * \param lookahead the bound
     */
    void BoundLookahead(Time lookahead);

    /**
     * \brief Add up, element by element, every rank's values (after Run(); in one process,
     *        nothing changes). Counters of a node are nonzero on its own rank only, so the sum
     *        is the one-process value, exactly, doubles included.
     * \param values this rank's values; every rank's sum on return
     */
    void SumAcrossRanks(std::vector<uint64_t>& values) const;

    /// \copydoc SumAcrossRanks(std::vector<uint64_t>&) const
    void SumAcrossRanks(std::vector<double>& values) const;

    /**
     * \brief Every rank's bytes, concatenated in rank order (after Run(); in one process, the
     *        bytes given).
     * \param mine this rank's
     * \return all ranks'
     */
    std::vector<uint8_t> GatherAcrossRanks(const std::vector<uint8_t>& mine) const;

    /**
     * \return the key of the event running now: events sorted by their keys are in the order
     *         one process runs them, on any split (a record made during an event, kept with its
     *         key, can be replayed in that order after a run across ranks)
     */
    const Key& GetCurrentKey() const
    {
        return m_currentKey;
    }

    /// \return the lookahead of the last Run() (0 in one process)
    Time GetLookahead() const;

    /**
     * \brief Number an object that messages name (in the order of registration, the same on
     *        every rank when every rank builds the same fabric).
     * \param object the object
     * \return its id
     */
    uint32_t Register(void* object)
    {
        m_objects.push_back(object);
        return static_cast<uint32_t>(m_objects.size() - 1);
    }

    /**
     * \param id an id from Register()
     * \return the object, or nullptr if it is gone
     */
    void* Lookup(uint32_t id) const
    {
        return id < m_objects.size() ? m_objects[id] : nullptr;
    }

    /**
     * \brief An object is gone.
     * \param id its id
     * \param object the object
     */
    void Unregister(uint32_t id, void* object)
    {
        if (id < m_objects.size() && m_objects[id] == object)
        {
            m_objects[id] = nullptr;
        }
    }

    /// \return this process's rank (0 in one process)
    uint32_t GetRank() const
    {
        return m_rank;
    }

    /// \return the number of ranks (1 in one process)
    uint32_t GetNRanks() const
    {
        return m_nRanks;
    }

    /**
     * \param node a node id
     * \return true if the node is this rank's
     */
    bool IsLocal(uint32_t node);

    /// \return true if the queue is the simulator's own, in the keys' order
    bool IsKeyed() const
    {
        return !m_scheduler;
    }

    /// \return synchronisation windows of the last Run() (0 in one process)
    uint64_t GetWindows() const;

    /// \return messages this rank sent to others in the last Run()
    uint64_t GetMessages() const
    {
        return m_messages;
    }

    /**
     * \brief Let a watchdog see every event taken from the keyed queue (FabricWatchdog::Install()
     *        does; with another SchedulerType it wraps the scheduler instead).
     * \param watch what sees them (nullptr: nothing)
     * \param owner the object that holds it alive meanwhile
     */
    void SetWatch(FabricEventWatch* watch, Ptr<Object> owner);

    // SimulatorImpl
    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

  protected:
    void DoDispose() override;

  private:
    /// A queued event.
    struct Ev
    {
        Key key;          //!< its order
        uint32_t context; //!< the context it runs in
        EventImpl* impl;  //!< the event (one reference held)
    };

    /**
     * \param a an event
     * \param b an event at the same time
     * \return true if a runs before b
     */
    static bool Before(const Ev& a, const Ev& b)
    {
        if (a.key.sched != b.key.sched)
        {
            return a.key.sched < b.key.sched;
        }
        if (a.key.origin != b.key.origin)
        {
            return a.key.origin < b.key.origin;
        }
        return a.key.seq < b.key.seq;
    }

    /// The keys' order, for the queue.
    struct Traits
    {
        /**
         * \param e an event
         * \return its time
         */
        static uint64_t Time(const Ev& e)
        {
            return e.key.ts;
        }

        /**
         * \param a an event
         * \param b an event of the same time
         * \return true if a runs first
         */
        static bool Before(const Ev& a, const Ev& b)
        {
            return FabricSimulatorImpl::Before(a, b);
        }
    };

    /**
     * \brief Queue an event.
     * \param ev the event
     */
    void Insert(const Ev& ev);

    /// \return the time of the next event (the queue is not empty)
    uint64_t NextTs() const;

    /// \return true if no event is queued
    bool IsQueueEmpty() const
    {
        return m_scheduler ? m_scheduler->IsEmpty() : m_queue.IsEmpty();
    }

    /// Run the next event.
    void ProcessOne();

    /// Tell those that asked (AtEndOfInstant()) that the instant's events are done.
    void EndInstant();

    /// \return true if an event of the current time is queued
    bool HasEventNow() const;

    /**
     * \param delay a delay
     * \param context the event's context
     * \param event the event
     * \return the queued event's key
     */
    Key Enqueue(const Time& delay, uint32_t context, EventImpl* event);

    /// Stop() for Stop(delay)
    void StopNow();

    /// Run across ranks (MPI).
    void RunDistributed();

    /**
     * \brief Hand each message of a batch to its handler.
     * \param data the messages
     * \param size their bytes
     */
    void Dispatch(const uint8_t* data, std::size_t size);

    /// \return the handlers
    static std::vector<Handler>& Handlers();

    Ptr<Scheduler> m_scheduler; //!< a SchedulerType other than the keyed queue, if one is set
    uint32_t m_uid{EventId::UID::VALID};         //!< the next event's id in m_scheduler
    FabricRadixHeap<Ev, Traits> m_queue;         //!< the keyed queue
    std::list<EventId> m_destroyEvents;          //!< ScheduleDestroy()'s
    uint64_t m_currentTs{0};                     //!< now
    uint32_t m_currentContext;                   //!< the running event's context
    uint64_t m_seq{0};                           //!< events scheduled (order numbers)
    uint64_t m_eventCount{0};                    //!< events run
    EventImpl* m_running{nullptr};               //!< the event running now
    Key m_currentKey;                            //!< its key
    bool m_stop{false};                          //!< Stop() was called
    FabricEventWatch* m_watch{nullptr};          //!< sees every event taken, if set
    Ptr<Object> m_watchOwner;                    //!< holds m_watch alive
    uint32_t m_rank{0};                          //!< this process's rank
    uint32_t m_nRanks{1};                        //!< ranks
    std::vector<uint8_t> m_remoteNode;           //!< by node id: 1 if another rank's
    uint64_t m_lookaheadBound;                   //!< BoundLookahead() (time steps)
    uint64_t m_lookahead{0};                     //!< the last Run()'s lookahead
    uint64_t m_windows{0};                       //!< windows of the last Run()
    uint64_t m_messages{0};                      //!< messages sent in the last Run()
    std::vector<std::vector<uint8_t>> m_outbox;  //!< by rank: the window's messages
    uint64_t m_sentNext;                         //!< earliest time of the window's messages
    std::vector<void*> m_objects;                //!< Register()'s
    std::vector<FabricInstantEnd*> m_instantEnd; //!< AtEndOfInstant()'s, in the order asked
    std::vector<FabricInstantEnd*> m_ending;     //!< EndInstant()'s scratch
};

} // namespace ns3

#endif /* FABRIC_SIMULATOR_IMPL_H */
