/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_RADIX_SCHEDULER_H
#define FABRIC_RADIX_SCHEDULER_H

#include "ns3/fabric-radix-heap.h"
#include "ns3/scheduler.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An ns-3 scheduler for a simulation whose time only moves forward: a radix heap.
 *
 * ns-3 never schedules an event before the current time, so the smallest pending time only
 * grows. A radix heap keeps events in 64 buckets by the highest bit in which their time
 * differs from the last smallest time taken (bucket 0: equal to it). Inserting is a
 * count-leading-zeros and an append; taking the next event, once the events at the current
 * time are used up, finds the lowest non-empty bucket (a bit scan), takes its smallest time
 * as the new reference and redistributes that bucket's events into lower buckets. Each event
 * moves at most once per bit of its distance from the present, and every bucket is a
 * contiguous vector walked in order: no pointer chasing, few cache misses, where a binary heap
 * touches about log2(n) scattered places per event.
 *
 * Events at one time leave in the order of their ids (the order they were scheduled), as in
 * every ns-3 scheduler, so a run is the same event for event on this scheduler as on ns-3's:
 * the bucket of the current time is kept sorted by id (appends come in id order; the events
 * a redistribution brings into it are sorted once).
 *
 * Remove() (Simulator::Remove, not Cancel) searches the one bucket the event can be in.
 * PeekNext() takes nothing and changes nothing: with the current time's events used up it
 * scans the lowest non-empty bucket.
 */
class FabricRadixScheduler : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricRadixScheduler();
    ~FabricRadixScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// The order of ns-3's events: time, then id.
    struct Traits
    {
        /**
         * \param e an event
         * \return its time
         */
        static uint64_t Time(const Event& e)
        {
            return e.key.m_ts;
        }

        /**
         * \param a an event
         * \param b an event of the same time
         * \return true if a was scheduled first
         */
        static bool Before(const Event& a, const Event& b)
        {
            return a.key.m_uid < b.key.m_uid;
        }
    };

    FabricRadixHeap<Event, Traits> m_heap; //!< the events
};

} // namespace ns3

#endif // FABRIC_RADIX_SCHEDULER_H
