/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FlowNetwork's congestion watch: the switch ports where flows converge beyond what max-min
// sharing models (the congestion warning). The sharing itself is in flow-network.cc.

#include "flow-network.h"
#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

void
FlowNetwork::WatchLink(uint32_t link)
{
    NS_ABORT_MSG_IF(link >= m_links.size(), "FlowNetwork: no link " << link);
    m_links[link].watched = true;
}

const FlowNetwork::Congestion&
FlowNetwork::GetCongestion() const
{
    return m_congestion;
}

uint32_t
FlowNetwork::FanIn(uint32_t link, double& demand)
{
    const Link& l = m_links[link];
    demand = 0;
    if (std::isinf(l.level) || l.level <= 0)
    {
        return 0; // limits none of its flows, or carries nothing
    }
    m_upstream.clear();
    double offered = 0;
    for (const Member& m : l.members)
    {
        const Limits& f = m_limits[m.flow];
        const double rate = std::min(f.maxRate, f.low);
        if (m.use == 0 || m.weight != 1.0 || Differ(rate, l.level))
        {
            offered += m.weight * rate; // its first link, its ACKs, or limited elsewhere
            continue;
        }
        // Limited here: it would go as fast as its next limit, or its share of its sender's
        // link.
        const PathUse* uses = &m_uses[f.uses];
        const Link& first = m_links[uses[0].link];
        const double other = std::min({f.maxRate,
                                       f.lowLink == link ? f.second : f.low,
                                       first.capacity / std::max<uint32_t>(1, first.dataFlows)});
        offered += other;
        m_upstream.push_back(uses[m.use - 1].link);
    }
    demand = offered / l.capacity;
    std::sort(m_upstream.begin(), m_upstream.end());
    return static_cast<uint32_t>(std::unique(m_upstream.begin(), m_upstream.end())
                                 - m_upstream.begin());
}

uint32_t
FlowNetwork::Blocked(uint32_t link)
{
    // The link before this one of every data flow crossing it: how many of each upstream
    // link's data flows come on here.
    m_feeding.clear();
    for (const Member& m : m_links[link].members)
    {
        if (m.use > 0 && m.weight == 1.0)
        {
            m_feeding.push_back(m_uses[m_limits[m.flow].uses + m.use - 1].link);
        }
    }
    std::sort(m_feeding.begin(), m_feeding.end());
    uint32_t blocked = 0;
    for (uint32_t up : m_upstream)
    {
        const auto [first, last] = std::equal_range(m_feeding.begin(), m_feeding.end(), up);
        blocked += m_links[up].dataFlows - static_cast<uint32_t>(last - first);
    }
    return blocked;
}

void
FlowNetwork::NoteSharedInput(uint32_t link, double demand)
{
    if (demand < m_sharedInputDemand)
    {
        return;
    }
    if (m_sharedInputSeen.size() <= link)
    {
        m_sharedInputSeen.resize(m_links.size(), false);
    }
    const bool seen = m_sharedInputSeen[link];
    if (seen && m_sharedInputTrace.IsEmpty())
    {
        return; // counted: looked at again only for the trace's sinks
    }
    const uint32_t others = Blocked(link);
    if (others == 0)
    {
        return;
    }
    if (!seen)
    {
        m_sharedInputSeen[link] = true;
        if (m_congestion.sharedInput++ == 0)
        {
            m_congestion.sharedInputLink = link;
            m_congestion.sharedInputTime = Simulator::Now();
        }
    }
    m_sharedInputTrace(link, others);
}

void
FlowNetwork::NoteCongestion()
{
    for (uint32_t link : m_changed)
    {
        m_links[link].changed = false;
        double demand = 0;
        const uint32_t fanIn = FanIn(link, demand);
        if (fanIn < 2)
        {
            continue;
        }
        NoteSharedInput(link, demand);
        if (demand < m_congestionDemand)
        {
            continue;
        }
        m_congestion.peakDemand = std::max(m_congestion.peakDemand, demand);
        Link& l = m_links[link];
        if (!l.congested)
        {
            l.congested = true;
            ++m_congestion.links;
        }
        if (fanIn > m_congestion.peakFanIn)
        {
            m_congestion.peakFanIn = fanIn;
            m_congestion.peakLink = link;
            m_congestion.peakTime = Simulator::Now();
        }
        m_congestionTrace(link, fanIn);
    }
    m_changed.clear();
}

} // namespace ns3
