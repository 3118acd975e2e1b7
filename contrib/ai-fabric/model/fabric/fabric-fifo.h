/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_FIFO_H
#define FABRIC_FIFO_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A first-in first-out queue that costs nothing while empty: a vector and the index of
 *        its head.
 *
 * std::deque allocates about 600 bytes as it is built, empty or not; a fabric of 131,072 GPUs
 * keeps a few queues per GPU and per connection, most of them empty all the time. This one
 * holds a vector: no allocation until the first push, and the space of the elements taken
 * off is reused once the queue empties (or moved down once more than half of it is taken).
 *
 * \tparam T the elements (copyable or movable)
 */
template<class T>
class FabricFifo
{
  public:
    /// \return true if it holds nothing
    bool empty() const
    {
        return m_head == m_items.size();
    }

    /// \return the oldest element (not empty)
    T& front()
    {
        return m_items[m_head];
    }

    /// \return the oldest element (not empty)
    const T& front() const
    {
        return m_items[m_head];
    }

    /// \param item add it at the back
    void push_back(const T& item)
    {
        m_items.push_back(item);
    }

    /// \param item add it at the back
    void push_back(T&& item)
    {
        m_items.push_back(std::move(item));
    }

    /// Take the oldest element off (not empty).
    void pop_front()
    {
        ++m_head;
        if (m_head == m_items.size())
        {
            m_items.clear(); // keeps its capacity
            m_head = 0;
        }
        else if (m_head >= 64 && 2 * m_head >= m_items.size())
        {
            m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }

    /// Take everything off, and give its memory back.
    void clear()
    {
        std::vector<T>().swap(m_items);
        m_head = 0;
    }

  private:
    std::vector<T> m_items; //!< the elements from m_head on, oldest first
    std::size_t m_head{0};  //!< index of the oldest
};

} // namespace ns3

#endif /* FABRIC_FIFO_H */
