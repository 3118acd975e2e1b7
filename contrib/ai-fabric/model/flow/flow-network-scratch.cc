/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FlowNetwork's allocation from scratch: progressive filling over every link, the fallback of
// the incremental propagation (flow-network.cc) and what it arrives at.

#include "flow-network.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{
constexpr double INF = std::numeric_limits<double>::infinity();
} // namespace

void
FlowNetwork::SolveFromScratch()
{
    ++m_fullSolutions;
    // Progressive filling: raise every unfrozen flow's rate together; the link that fills
    // first freezes its flows at that level.
    const std::size_t nLinks = m_links.size();
    std::vector<double> left(nLinks);
    std::vector<double> weights(nLinks, 0);
    // Its flows not yet frozen: once none is left, rounding may leave weight and capacity
    // that are not zero (a link that limited none of them would come out at level 0).
    std::vector<uint32_t> unfrozen(nLinks, 0);
    std::vector<uint8_t> frozen(m_flows.size(), 0);
    for (std::size_t i = 0; i < nLinks; ++i)
    {
        Link& l = m_links[i];
        l.level = INF;
        left[i] = l.capacity;
        for (const Member& m : l.members)
        {
            weights[i] += m.weight;
        }
        unfrozen[i] = static_cast<uint32_t>(l.members.size());
    }
    typedef std::pair<double, uint32_t> Entry; // (fill level, link)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (uint32_t i = 0; i < nLinks; ++i)
    {
        if (weights[i] > 0)
        {
            heap.emplace(std::max(0.0, left[i]) / weights[i], i);
        }
    }
    // A flow's own limit is an entry past the links.
    for (uint32_t id = 0; id < m_flows.size(); ++id)
    {
        if (m_flows[id].active && !std::isinf(m_limits[id].maxRate))
        {
            heap.emplace(m_limits[id].maxRate, static_cast<uint32_t>(nLinks + id));
        }
    }
    auto freeze = [&](uint32_t id, double level, uint32_t except)
    {
        frozen[id] = 1;
        for (uint32_t i = m_limits[id].uses, end = m_uses[i].end; i < end; ++i)
        {
            const PathUse& u = m_uses[i];
            left[u.link] -= level * u.weight;
            weights[u.link] -= u.weight;
            if (--unfrozen[u.link] == 0)
            {
                weights[u.link] = 0; // limits none: its level stays infinite
            }
            else if (u.link != except)
            {
                heap.emplace(std::max(0.0, left[u.link]) / weights[u.link], u.link);
            }
        }
    };
    while (!heap.empty())
    {
        const auto [level, link] = heap.top();
        heap.pop();
        if (link >= nLinks)
        {
            const uint32_t id = static_cast<uint32_t>(link - nLinks);
            if (!frozen[id])
            {
                freeze(id, level, UINT32_MAX); // at its own limit
            }
            continue;
        }
        if (unfrozen[link] == 0 || Differ(level, std::max(0.0, left[link]) / weights[link]))
        {
            continue; // stale
        }
        m_links[link].level = level;
        for (const Member& m : m_links[link].members)
        {
            if (frozen[m.flow])
            {
                continue;
            }
            freeze(m.flow, level, link);
        }
        weights[link] = 0;
    }
    for (uint32_t id = 0; id < m_flows.size(); ++id)
    {
        if (m_flows[id].active)
        {
            FindLow(m_limits[id]);
            Touch(id);
        }
    }
    for (uint32_t i = 0; i < nLinks; ++i)
    {
        Link& l = m_links[i];
        if (l.watched && !l.changed && !l.members.empty())
        {
            l.changed = true; // looked at for congestion, as every level may have changed
            m_changed.push_back(i);
        }
    }
}

} // namespace ns3
