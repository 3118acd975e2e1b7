/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FlowNetwork's finish heap: the active flows by finish time, an indexed 4-ary heap (a flow's
// entry moves when its rate changes). The sharing itself is in flow-network.cc.

#include "flow-network.h"

#include <algorithm>

namespace ns3
{

void
FlowNetwork::HeapPlace(uint32_t at, const HeapEntry& entry)
{
    m_heap[at] = entry;
    m_heapAt[entry.flow] = at;
}

void
FlowNetwork::HeapFix(uint32_t at)
{
    const HeapEntry entry = m_heap[at];
    // A 4-ary heap (half the depth of a binary one; the children share a cache line or two).
    // Up while earlier than the parent.
    while (at > 0)
    {
        const uint32_t parent = (at - 1) / 4;
        if (!(entry < m_heap[parent]))
        {
            break;
        }
        HeapPlace(at, m_heap[parent]);
        at = parent;
    }
    // Down while a child is earlier.
    const auto n = static_cast<uint32_t>(m_heap.size());
    while (true)
    {
        const uint32_t first = 4 * at + 1;
        if (first >= n)
        {
            break;
        }
        uint32_t child = first;
        const uint32_t end = std::min(n, first + 4);
        for (uint32_t c = first + 1; c < end; ++c)
        {
            if (m_heap[c] < m_heap[child])
            {
                child = c;
            }
        }
        if (!(m_heap[child] < entry))
        {
            break;
        }
        HeapPlace(at, m_heap[child]);
        at = child;
    }
    HeapPlace(at, entry);
}

void
FlowNetwork::HeapSet(uint32_t flow, int64_t time)
{
    uint32_t& at = m_heapAt[flow];
    if (at == NOT_IN_HEAP)
    {
        m_heap.push_back(HeapEntry{time, flow});
        at = static_cast<uint32_t>(m_heap.size() - 1);
    }
    else
    {
        m_heap[at].time = time;
    }
    HeapFix(at);
}

void
FlowNetwork::HeapRemove(uint32_t flow)
{
    const uint32_t at = m_heapAt[flow];
    if (at == NOT_IN_HEAP)
    {
        return;
    }
    const HeapEntry last = m_heap.back();
    m_heap.pop_back();
    m_heapAt[flow] = NOT_IN_HEAP;
    if (last.flow != flow)
    {
        HeapPlace(at, last);
        HeapFix(at);
    }
}

} // namespace ns3
