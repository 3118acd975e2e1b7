/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "parallel-layout.h"

#include <algorithm>

namespace ns3
{

bool
ParallelLayout::Make(uint32_t world,
                     uint32_t tp,
                     uint32_t pp,
                     uint32_t cp,
                     uint32_t ep,
                     ParallelLayout& layout,
                     std::string& error)
{
    if (world == 0 || tp == 0 || pp == 0 || cp == 0 || ep == 0)
    {
        error = "every parallel size must be at least 1";
        return false;
    }
    const uint64_t model = static_cast<uint64_t>(tp) * pp * cp;
    if (world % model != 0)
    {
        error = "tp x pp x cp = " + std::to_string(model) + " does not divide the "
                + std::to_string(world) + " GPUs";
        return false;
    }
    const auto dp = static_cast<uint32_t>(world / model);
    if ((static_cast<uint64_t>(cp) * dp) % ep != 0)
    {
        error = "ep = " + std::to_string(ep)
                + " does not divide cp x dp = " + std::to_string(static_cast<uint64_t>(cp) * dp);
        return false;
    }
    layout.m_world = world;
    layout.m_tp = tp;
    layout.m_pp = pp;
    layout.m_cp = cp;
    layout.m_dp = dp;
    layout.m_ep = ep;
    return true;
}

uint32_t
ParallelLayout::GetWorldSize() const
{
    return m_world;
}

uint32_t
ParallelLayout::GetTp() const
{
    return m_tp;
}

uint32_t
ParallelLayout::GetPp() const
{
    return m_pp;
}

uint32_t
ParallelLayout::GetCp() const
{
    return m_cp;
}

uint32_t
ParallelLayout::GetDp() const
{
    return m_dp;
}

uint32_t
ParallelLayout::GetEp() const
{
    return m_ep;
}

ParallelLayout::Coordinates
ParallelLayout::Locate(uint32_t rank) const
{
    Coordinates c;
    c.tp = rank % m_tp;
    c.cp = (rank / m_tp) % m_cp;
    c.dp = (rank / (m_tp * m_cp)) % m_dp;
    c.pp = rank / (m_tp * m_cp * m_dp);
    const uint32_t flat = c.cp + m_cp * c.dp; // the stage's CP x DP ranks, CP fastest
    c.ep = flat % m_ep;
    c.edp = flat / m_ep;
    return c;
}

uint32_t
ParallelLayout::RankOf(const Coordinates& c) const
{
    return c.tp + m_tp * (c.cp + m_cp * (c.dp + m_dp * c.pp));
}

template<typename F>
std::vector<uint32_t>
ParallelLayout::Group(uint32_t rank, F vary, uint32_t size) const
{
    std::vector<uint32_t> ranks;
    ranks.reserve(size);
    for (uint32_t i = 0; i < size; ++i)
    {
        Coordinates c = Locate(rank);
        vary(c, i);
        ranks.push_back(RankOf(c));
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

std::vector<uint32_t>
ParallelLayout::TensorGroup(uint32_t rank) const
{
    return Group(
        rank, [](Coordinates& c, uint32_t i) { c.tp = i; }, m_tp);
}

std::vector<uint32_t>
ParallelLayout::ContextGroup(uint32_t rank) const
{
    return Group(
        rank, [](Coordinates& c, uint32_t i) { c.cp = i; }, m_cp);
}

std::vector<uint32_t>
ParallelLayout::DataGroup(uint32_t rank) const
{
    return Group(
        rank, [](Coordinates& c, uint32_t i) { c.dp = i; }, m_dp);
}

std::vector<uint32_t>
ParallelLayout::DataContextGroup(uint32_t rank) const
{
    const uint32_t cp = m_cp;
    return Group(
        rank,
        [cp](Coordinates& c, uint32_t i)
        {
            c.cp = i % cp;
            c.dp = i / cp;
        },
        m_cp * m_dp);
}

std::vector<uint32_t>
ParallelLayout::PipelineGroup(uint32_t rank) const
{
    return Group(
        rank, [](Coordinates& c, uint32_t i) { c.pp = i; }, m_pp);
}

std::vector<uint32_t>
ParallelLayout::ExpertGroup(uint32_t rank) const
{
    const uint32_t cp = m_cp;
    const uint32_t ep = m_ep;
    return Group(
        rank,
        [cp, ep](Coordinates& c, uint32_t i)
        {
            const uint32_t flat = c.edp * ep + i;
            c.cp = flat % cp;
            c.dp = flat / cp;
        },
        m_ep);
}

std::vector<uint32_t>
ParallelLayout::ExpertDataGroup(uint32_t rank) const
{
    const uint32_t cp = m_cp;
    const uint32_t ep = m_ep;
    return Group(
        rank,
        [cp, ep](Coordinates& c, uint32_t i)
        {
            const uint32_t flat = i * ep + c.ep;
            c.cp = flat % cp;
            c.dp = flat / cp;
        },
        m_cp * m_dp / m_ep);
}

bool
ParallelLayout::TensorGroupsInsideServers(uint32_t gpusPerServer) const
{
    return gpusPerServer > 0 && gpusPerServer % m_tp == 0;
}

} // namespace ns3
