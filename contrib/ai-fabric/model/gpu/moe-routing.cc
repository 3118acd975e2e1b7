/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "moe-routing.h"

#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MoeRouting");

namespace
{

/// Draw k distinct integers of [0, n) into out (k <= n): by rejection when k is small
/// against n, else by a partial Fisher-Yates shuffle of scratch.
void
DrawDistinct(UniformRandomVariable& rng,
             uint32_t n,
             uint32_t k,
             std::vector<uint32_t>& out,
             std::vector<uint32_t>& scratch)
{
    out.clear();
    if (4ULL * k <= n)
    {
        while (out.size() < k)
        {
            const uint32_t x = rng.GetInteger(0, n - 1);
            if (std::find(out.begin(), out.end(), x) == out.end())
            {
                out.push_back(x);
            }
        }
        return;
    }
    scratch.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        scratch[i] = i;
    }
    for (uint32_t i = 0; i < k; ++i)
    {
        std::swap(scratch[i], scratch[rng.GetInteger(i, n - 1)]);
        out.push_back(scratch[i]);
    }
}

} // namespace

Ptr<MoeRouting>
MoeRouting::Draw(const MoeRoutingConfig& config,
                 const std::vector<uint32_t>& nodeOf,
                 Ptr<UniformRandomVariable> rng,
                 std::string& error)
{
    NS_LOG_FUNCTION(config.tokens << config.experts << config.topk << nodeOf.size());
    const auto ranks = static_cast<uint32_t>(nodeOf.size());
    if (ranks == 0)
    {
        error = "no ranks to route to";
        return nullptr;
    }
    const uint32_t nodes = *std::max_element(nodeOf.begin(), nodeOf.end()) + 1;
    Ptr<MoeRouting> r = Create<MoeRouting>();
    r->m_nodeOf = nodeOf;
    r->m_nodeRanks.assign(nodes, {});
    r->m_local.assign(ranks, 0);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        r->m_local[i] = static_cast<uint32_t>(r->m_nodeRanks[nodeOf[i]].size());
        r->m_nodeRanks[nodeOf[i]].push_back(i);
    }
    for (uint32_t n = 0; n < nodes; ++n)
    {
        if (r->m_nodeRanks[n].empty())
        {
            error = "node " + std::to_string(n) + " has no rank";
            return nullptr;
        }
    }
    MoeRoutingConfig c = config;
    c.expertGroups = c.expertGroups > 0 ? c.expertGroups : nodes;
    c.topkGroups = c.topkGroups > 0 ? c.topkGroups : c.expertGroups;
    if (c.experts == 0 || c.experts % ranks != 0)
    {
        error = std::to_string(c.experts) + " experts do not spread evenly over "
                + std::to_string(ranks) + " ranks";
        return nullptr;
    }
    if (c.experts % c.expertGroups != 0)
    {
        error = std::to_string(c.experts) + " experts do not split into "
                + std::to_string(c.expertGroups) + " groups";
        return nullptr;
    }
    if (c.topkGroups > c.expertGroups)
    {
        error = "top-" + std::to_string(c.topkGroups) + " groups of only "
                + std::to_string(c.expertGroups);
        return nullptr;
    }
    const uint32_t perGroup = c.experts / c.expertGroups;
    const uint32_t pool = c.topkGroups * perGroup;
    if (c.topk == 0 || c.topk > pool)
    {
        error = "top-" + std::to_string(c.topk) + " experts of the " + std::to_string(pool)
                + " a token may choose from";
        return nullptr;
    }
    r->m_config = c;
    r->m_tokens.assign(static_cast<uint64_t>(ranks) * ranks, 0);
    r->m_nodeTokens.assign(static_cast<uint64_t>(ranks) * nodes, 0);
    r->m_assignments.assign(ranks, 0);
    const uint32_t perRank = c.experts / ranks;
    std::vector<uint32_t> groups;
    std::vector<uint32_t> picks;
    std::vector<uint32_t> scratch;
    std::vector<uint32_t> hitRanks;
    std::vector<uint32_t> hitNodes;
    std::vector<double> scores(c.experts);
    std::vector<double> best(c.expertGroups);
    std::vector<uint32_t> experts;
    const bool limited = c.topkGroups < c.expertGroups;
    for (uint32_t src = 0; src < ranks; ++src)
    {
        for (uint32_t t = 0; t < c.tokens; ++t)
        {
            picks.clear();
            if (limited)
            {
                // Group-limited: every expert a score; the groups with the best top score;
                // the best experts among theirs.
                for (uint32_t e = 0; e < c.experts; ++e)
                {
                    scores[e] = rng->GetValue();
                }
                for (uint32_t g = 0; g < c.expertGroups; ++g)
                {
                    best[g] = *std::max_element(scores.begin() + g * perGroup,
                                                scores.begin() + (g + 1) * perGroup);
                }
                groups.resize(c.expertGroups);
                for (uint32_t g = 0; g < c.expertGroups; ++g)
                {
                    groups[g] = g;
                }
                std::partial_sort(groups.begin(),
                                  groups.begin() + c.topkGroups,
                                  groups.end(),
                                  [&best](uint32_t a, uint32_t b) { return best[a] > best[b]; });
                experts.clear();
                for (uint32_t i = 0; i < c.topkGroups; ++i)
                {
                    for (uint32_t e = groups[i] * perGroup; e < (groups[i] + 1) * perGroup; ++e)
                    {
                        experts.push_back(e);
                    }
                }
                std::partial_sort(experts.begin(),
                                  experts.begin() + c.topk,
                                  experts.end(),
                                  [&scores](uint32_t a, uint32_t b)
                                  { return scores[a] > scores[b]; });
                picks.assign(experts.begin(), experts.begin() + c.topk);
            }
            else
            {
                // No limit: k distinct experts uniformly, as the top k of independent scores.
                DrawDistinct(*rng, c.experts, c.topk, picks, scratch);
            }
            hitRanks.clear();
            hitNodes.clear();
            for (uint32_t expert : picks)
            {
                const uint32_t dst = expert / perRank;
                ++r->m_assignments[dst];
                if (std::find(hitRanks.begin(), hitRanks.end(), dst) == hitRanks.end())
                {
                    hitRanks.push_back(dst);
                    ++r->m_tokens[static_cast<uint64_t>(src) * ranks + dst];
                }
                const uint32_t node = nodeOf[dst];
                if (std::find(hitNodes.begin(), hitNodes.end(), node) == hitNodes.end())
                {
                    hitNodes.push_back(node);
                    ++r->m_nodeTokens[static_cast<uint64_t>(src) * nodes + node];
                }
            }
        }
    }
    return r;
}

std::vector<uint32_t>
MoeRouting::NodesOf(const std::vector<uint32_t>& gpus, uint32_t gpusPerServer)
{
    std::vector<uint32_t> nodeOf;
    std::map<uint32_t, uint32_t> nodes; // server -> node of the routing
    for (uint32_t g : gpus)
    {
        const uint32_t server = gpusPerServer > 0 ? g / gpusPerServer : 0;
        nodeOf.push_back(nodes.emplace(server, static_cast<uint32_t>(nodes.size())).first->second);
    }
    return nodeOf;
}

const MoeRoutingConfig&
MoeRouting::GetConfig() const
{
    return m_config;
}

uint32_t
MoeRouting::GetNRanks() const
{
    return static_cast<uint32_t>(m_nodeOf.size());
}

uint32_t
MoeRouting::GetNNodes() const
{
    return static_cast<uint32_t>(m_nodeRanks.size());
}

uint32_t
MoeRouting::GetNode(uint32_t rank) const
{
    return m_nodeOf.at(rank);
}

const std::vector<uint32_t>&
MoeRouting::GetNodeRanks(uint32_t node) const
{
    return m_nodeRanks.at(node);
}

uint32_t
MoeRouting::GetLocal(uint32_t rank) const
{
    return m_local.at(rank);
}

uint32_t
MoeRouting::GetRelay(uint32_t src, uint32_t node) const
{
    const std::vector<uint32_t>& there = m_nodeRanks.at(node);
    const uint32_t local = m_local.at(src);
    return local < there.size() ? there[local] : there.front();
}

uint32_t
MoeRouting::GetTokens(uint32_t src, uint32_t dst) const
{
    return m_tokens.at(static_cast<uint64_t>(src) * GetNRanks() + dst);
}

uint32_t
MoeRouting::GetNodeTokens(uint32_t src, uint32_t node) const
{
    return m_nodeTokens.at(static_cast<uint64_t>(src) * GetNNodes() + node);
}

uint64_t
MoeRouting::GetNodeTokenPairs(uint32_t src) const
{
    uint64_t sum = 0;
    for (uint32_t n = 0; n < GetNNodes(); ++n)
    {
        sum += GetNodeTokens(src, n);
    }
    return sum;
}

uint64_t
MoeRouting::GetAssignments(uint32_t dst) const
{
    return m_assignments.at(dst);
}

uint64_t
MoeRouting::GetReceivedTokens(uint32_t dst) const
{
    uint64_t sum = 0;
    for (uint32_t s = 0; s < GetNRanks(); ++s)
    {
        sum += GetTokens(s, dst);
    }
    return sum;
}

} // namespace ns3
