/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_RADIX_HEAP_H
#define FABRIC_RADIX_HEAP_H

#include "ns3/abort.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A radix heap of events whose time only moves forward (FabricRadixScheduler's and
 *        FabricSimulatorImpl's queue).
 *
 * Events go into 64 buckets by the highest bit in which their time differs from the
 * reference, the last smallest time taken (bucket 0: equal to it). Inserting is a
 * count-leading-zeros and an append; taking the next event, once the current time's events
 * are used up, finds the lowest non-empty bucket (a bit scan), makes its smallest time the
 * reference and moves that bucket's events into lower buckets. The current time's bucket is
 * kept sorted by \p Before, the order of the events of one time.
 *
 * \tparam T an event
 * \tparam Traits `static uint64_t Time(const T&)`, an event's time, and
 *         `static bool Before(const T&, const T&)`, the order of events of one time
 */
template<typename T, typename Traits>
class FabricRadixHeap
{
  public:
    /**
     * \param ev an event, not before the reference time
     * \param who the owner's name, for the error
     */
    void Insert(const T& ev, const char* who)
    {
        const uint64_t ts = Traits::Time(ev);
        NS_ABORT_MSG_IF(ts < m_last,
                        who << ": an event before the current time (" << ts << " < " << m_last
                            << ")");
        const uint32_t b = BucketOf(ts);
        std::vector<T>& bucket = m_buckets[b];
        if (b == 0 && bucket.size() > m_head && Traits::Before(ev, bucket.back()))
        {
            // Out of order for this time: keep the current time's events sorted.
            bucket.insert(std::upper_bound(bucket.begin() + static_cast<std::ptrdiff_t>(m_head),
                                           bucket.end(),
                                           ev,
                                           &Traits::Before),
                          ev);
        }
        else
        {
            bucket.push_back(ev);
        }
        m_nonEmpty |= uint64_t{1} << b;
        ++m_size;
    }

    /// \return true if it holds no event
    bool IsEmpty() const
    {
        return m_size == 0;
    }

    /// \return true if it holds an event of the reference time (the last taken's), at once
    bool HasAtReference() const
    {
        return m_buckets[0].size() > m_head;
    }

    /// \return the next event, changing nothing (it holds one)
    const T& Peek() const
    {
        if (m_buckets[0].size() > m_head)
        {
            return m_buckets[0][m_head];
        }
        const auto& bucket = m_buckets[__builtin_ctzll(m_nonEmpty & ~uint64_t{1})];
        return *std::min_element(bucket.begin(),
                                 bucket.end(),
                                 [](const T& a, const T& c)
                                 {
                                     return Traits::Time(a) != Traits::Time(c)
                                                ? Traits::Time(a) < Traits::Time(c)
                                                : Traits::Before(a, c);
                                 });
    }

    /// \return the next event, taken out (it holds one)
    T Pop()
    {
        std::vector<T>& zero = m_buckets[0];
        if (zero.empty())
        {
            Refill();
        }
        const T ev = zero[m_head++];
        if (m_head == zero.size())
        {
            zero.clear(); // keeps its capacity
            m_head = 0;
            m_nonEmpty &= ~uint64_t{1};
        }
        --m_size;
        return ev;
    }

    /**
     * \brief Take out the first event of a time that matches.
     * \param ts its time
     * \param match `bool match(const T&)`
     * \return false if none matches
     */
    template<typename Match>
    bool Remove(uint64_t ts, Match match)
    {
        const uint32_t b = BucketOf(ts);
        std::vector<T>& bucket = m_buckets[b];
        const auto begin = bucket.begin() + static_cast<std::ptrdiff_t>(b == 0 ? m_head : 0);
        const auto it = std::find_if(begin, bucket.end(), match);
        if (it == bucket.end())
        {
            return false;
        }
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
        return true;
    }

    /**
     * \brief Empty it, handing each event to \p f first.
     * \param f `void f(const T&)`
     */
    template<typename F>
    void Clear(F f)
    {
        for (std::size_t b = 0; b < BUCKETS; ++b)
        {
            for (std::size_t i = (b == 0 ? m_head : 0); i < m_buckets[b].size(); ++i)
            {
                f(m_buckets[b][i]);
            }
            m_buckets[b].clear();
        }
        m_head = 0;
        m_size = 0;
        m_nonEmpty = 0;
    }

  private:
    /// Buckets: 0 for the reference time, i for a highest differing bit i - 1 (time < 2^63).
    static constexpr uint32_t BUCKETS = 64;

    /**
     * \param ts a time, not before the reference
     * \return its bucket
     */
    uint32_t BucketOf(uint64_t ts) const
    {
        const uint64_t x = ts ^ m_last;
        return x == 0 ? 0 : 64 - static_cast<uint32_t>(__builtin_clzll(x));
    }

    /// The current time's events are used up: the next time's into bucket 0, sorted.
    void Refill()
    {
        std::vector<T>& zero = m_buckets[0];
        const uint32_t from = __builtin_ctzll(m_nonEmpty);
        std::vector<T>& bucket = m_buckets[from];
        uint64_t smallest = Traits::Time(bucket.front());
        for (const T& e : bucket)
        {
            smallest = std::min(smallest, Traits::Time(e));
        }
        m_last = smallest;
        // Every event of this bucket goes to a lower one (it shares the bits above from - 1
        // with the new reference); the buckets between 0 and from are empty.
        for (const T& e : bucket)
        {
            const uint32_t b = BucketOf(Traits::Time(e));
            m_buckets[b].push_back(e);
            m_nonEmpty |= uint64_t{1} << b;
        }
        bucket.clear();
        m_nonEmpty &= ~(uint64_t{1} << from);
        if (zero.size() > 1 && !std::is_sorted(zero.begin(), zero.end(), &Traits::Before))
        {
            std::sort(zero.begin(), zero.end(), &Traits::Before);
        }
    }

    std::array<std::vector<T>, BUCKETS> m_buckets; //!< the buckets
    uint64_t m_nonEmpty{0};                        //!< bit i: bucket i holds events
    uint64_t m_last{0};                            //!< the reference time
    std::size_t m_head{0};                         //!< next event of bucket 0
    std::size_t m_size{0};                         //!< events held
};

} // namespace ns3

#endif // FABRIC_RADIX_HEAP_H
