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
    NS_ABORT_MSG_IF(ev.key.m_ts < m_last,
                    "FabricRadixScheduler: an event before the current time ("
                        << ev.key.m_ts << " < " << m_last << ")");
    const uint32_t b = BucketOf(ev.key.m_ts);
    std::vector<Event>& bucket = m_buckets[b];
    if (b == 0 && !bucket.empty() && ev.key.m_uid < bucket.back().key.m_uid)
    {
        // Not in id order (ns-3 hands out ids in order, so never from its simulators): keep
        // the current time's events sorted.
        const auto at = std::upper_bound(bucket.begin() + static_cast<std::ptrdiff_t>(m_head),
                                         bucket.end(),
                                         ev,
                                         [](const Event& a, const Event& c)
                                         { return a.key.m_uid < c.key.m_uid; });
        bucket.insert(at, ev);
    }
    else
    {
        bucket.push_back(ev);
    }
    m_nonEmpty |= uint64_t{1} << b;
    ++m_size;
}

bool
FabricRadixScheduler::IsEmpty() const
{
    return m_size == 0;
}

Scheduler::Event
FabricRadixScheduler::PeekNext() const
{
    NS_ABORT_MSG_IF(m_size == 0, "FabricRadixScheduler: PeekNext() with no events");
    if (!m_buckets[0].empty())
    {
        return m_buckets[0][m_head];
    }
    const auto& bucket = m_buckets[__builtin_ctzll(m_nonEmpty & ~uint64_t{1})];
    return *std::min_element(
        bucket.begin(), bucket.end(), [](const Event& a, const Event& c) { return a.key < c.key; });
}

void
FabricRadixScheduler::Refill()
{
    std::vector<Event>& zero = m_buckets[0];
    const uint32_t from = __builtin_ctzll(m_nonEmpty);
    std::vector<Event>& bucket = m_buckets[from];
    uint64_t smallest = bucket.front().key.m_ts;
    for (const Event& e : bucket)
    {
        smallest = std::min(smallest, e.key.m_ts);
    }
    m_last = smallest;
    // Every event of this bucket goes to a lower one (it shares the bits above from - 1 with
    // the new reference); the buckets between 0 and from are empty.
    for (const Event& e : bucket)
    {
        const uint32_t b = BucketOf(e.key.m_ts);
        m_buckets[b].push_back(e);
        m_nonEmpty |= uint64_t{1} << b;
    }
    bucket.clear();
    m_nonEmpty &= ~(uint64_t{1} << from);
    if (zero.size() > 1)
    {
        std::sort(zero.begin(),
                  zero.end(),
                  [](const Event& a, const Event& c) { return a.key.m_uid < c.key.m_uid; });
    }
}

Scheduler::Event
FabricRadixScheduler::RemoveNext()
{
    NS_ABORT_MSG_IF(m_size == 0, "FabricRadixScheduler: RemoveNext() with no events");
    std::vector<Event>& zero = m_buckets[0];
    if (zero.empty())
    {
        Refill();
    }
    const Event ev = zero[m_head++];
    if (m_head == zero.size())
    {
        zero.clear(); // keeps its capacity
        m_head = 0;
        m_nonEmpty &= ~uint64_t{1};
    }
    --m_size;
    return ev;
}

void
FabricRadixScheduler::Remove(const Event& ev)
{
    const uint32_t b = BucketOf(ev.key.m_ts);
    std::vector<Event>& bucket = m_buckets[b];
    const auto begin = bucket.begin() + static_cast<std::ptrdiff_t>(b == 0 ? m_head : 0);
    const auto it = std::find_if(
        begin, bucket.end(), [&ev](const Event& e) { return e.key.m_uid == ev.key.m_uid; });
    NS_ABORT_MSG_IF(it == bucket.end() || it->impl != ev.impl,
                    "FabricRadixScheduler: Remove() of an event it does not hold");
    if (b == 0)
    {
        bucket.erase(it); // keeps the current time's order
        if (m_head == bucket.size())
        {
            bucket.clear();
            m_head = 0;
            m_nonEmpty &= ~uint64_t{1};
        }
    }
    else
    {
        *it = bucket.back(); // order within a bucket does not matter
        bucket.pop_back();
        if (bucket.empty())
        {
            m_nonEmpty &= ~(uint64_t{1} << b);
        }
    }
    --m_size;
}

} // namespace ns3
