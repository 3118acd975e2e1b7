/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_RADIX_SCHEDULER_H
#define FABRIC_RADIX_SCHEDULER_H

#include "ns3/scheduler.h"

#include <array>
#include <cstdint>
#include <vector>

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
    /// Buckets: 0 for the reference time, i for a highest differing bit i - 1 (time < 2^63).
    static constexpr uint32_t BUCKETS = 64;

    /**
     * \param ts a time stamp, not before the reference
     * \return its bucket
     */
    uint32_t BucketOf(uint64_t ts) const
    {
        const uint64_t x = ts ^ m_last;
        return x == 0 ? 0 : 64 - static_cast<uint32_t>(__builtin_clzll(x));
    }

    /// The current time's events are used up: take the next time from the lowest bucket.
    void Refill();

    std::array<std::vector<Event>, BUCKETS> m_buckets; //!< the buckets
    uint64_t m_nonEmpty{0};                            //!< bit i: bucket i holds events
    uint64_t m_last{0};                                //!< the reference time
    std::size_t m_head{0};                             //!< next event of bucket 0
    std::size_t m_size{0};                             //!< events held
};

} // namespace ns3

#endif // FABRIC_RADIX_SCHEDULER_H
