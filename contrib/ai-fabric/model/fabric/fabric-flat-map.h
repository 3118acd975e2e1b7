/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_FLAT_MAP_H
#define FABRIC_FLAT_MAP_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A hash table of 64-bit keys in one array (open addressing, linear probing): a lookup
 *        reads one slot, and usually its neighbours in the same cache line.
 *
 * std::unordered_map keeps every entry in a node of its own, reached through a bucket array:
 * two cache misses per lookup when the table is cold, and an allocation per insertion. The
 * flow level's NVLS reductions are looked up several times each and live a few microseconds
 * of simulated time, by the million. Erasing shifts the entries after it back (no tombstones),
 * so a table that keeps its size stays as fast as when it was new. Nothing iterates it, so
 * the order of its slots never shows.
 *
 * \tparam V the values (default-constructible, copyable)
 */
template<class V>
class FabricFlatMap
{
  public:
    /// One entry.
    struct Slot
    {
        uint64_t key; //!< its key (EMPTY: none)
        V value;      //!< its value
    };

    /// The key of an empty slot (not a key the table may hold).
    static constexpr uint64_t EMPTY = UINT64_MAX;

    /**
     * \param key a key (not EMPTY)
     * \return its value, or nullptr if the table does not hold it
     */
    V* Find(uint64_t key)
    {
        if (m_slots.empty())
        {
            return nullptr;
        }
        for (std::size_t at = Home(key);; at = (at + 1) & m_mask)
        {
            Slot& s = m_slots[at];
            if (s.key == key)
            {
                return &s.value;
            }
            if (s.key == EMPTY)
            {
                return nullptr;
            }
        }
    }

    /**
     * \param key a key (not EMPTY)
     * \return its value, made (default) if the table did not hold it (which may move the
     *         other values: a pointer or reference to one is good until the next insertion)
     */
    V& operator[](uint64_t key)
    {
        if (V* found = Find(key))
        {
            return *found; // the other values stay where they are
        }
        if (2 * (m_count + 1) > m_slots.size())
        {
            Grow(); // at most half full: probes stay short
        }
        std::size_t at = Home(key);
        while (m_slots[at].key != EMPTY)
        {
            at = (at + 1) & m_mask;
        }
        m_slots[at].key = key;
        m_slots[at].value = V();
        ++m_count;
        return m_slots[at].value;
    }

    /**
     * \param key a key the table may hold
     * \return true if it held it (and no longer does)
     */
    bool Erase(uint64_t key)
    {
        if (m_slots.empty())
        {
            return false;
        }
        std::size_t hole = Home(key);
        while (m_slots[hole].key != key)
        {
            if (m_slots[hole].key == EMPTY)
            {
                return false;
            }
            hole = (hole + 1) & m_mask;
        }
        // Move back each later entry of the run that may live in the hole (its home is not
        // between the hole and it, cyclically), so that every entry stays reachable from its
        // home without tombstones.
        for (std::size_t at = (hole + 1) & m_mask; m_slots[at].key != EMPTY; at = (at + 1) & m_mask)
        {
            const std::size_t home = Home(m_slots[at].key);
            const std::size_t fromHome = (at - home) & m_mask;
            const std::size_t fromHole = (at - hole) & m_mask;
            if (fromHome >= fromHole)
            {
                m_slots[hole] = m_slots[at];
                hole = at;
            }
        }
        m_slots[hole].key = EMPTY;
        --m_count;
        return true;
    }

    /// \return the entries it holds
    std::size_t Size() const
    {
        return m_count;
    }

  private:
    /**
     * \param key a key
     * \return its first slot (Fibonacci hashing: the key's bits spread over the index)
     */
    std::size_t Home(uint64_t key) const
    {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift);
    }

    /// Twice the slots (16 at first), every entry put again.
    void Grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        const std::size_t size = old.empty() ? 16 : 2 * old.size();
        m_slots.assign(size, Slot{EMPTY, V()});
        m_mask = size - 1;
        m_shift = 64;
        for (std::size_t s = size; s > 1; s >>= 1)
        {
            --m_shift;
        }
        m_count = 0;
        for (const Slot& s : old)
        {
            if (s.key != EMPTY)
            {
                (*this)[s.key] = s.value;
            }
        }
    }

    std::vector<Slot> m_slots; //!< a power of two of them (or none)
    std::size_t m_mask{0};     //!< slots - 1
    unsigned m_shift{64};      //!< 64 - log2(slots)
    std::size_t m_count{0};    //!< entries held
};

} // namespace ns3

#endif /* FABRIC_FLAT_MAP_H */
