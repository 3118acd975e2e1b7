/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "hierarchical-algorithm.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HierarchicalAlgorithm);

TypeId
HierarchicalAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::HierarchicalAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<HierarchicalAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server (ranks are server-major); 0 (the default): all "
                            "ranks in one server.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&HierarchicalAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
HierarchicalAlgorithm::GetName() const
{
    return "hier";
}

bool
HierarchicalAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2
           && (m_gpusPerServer == 0 || nRanks % m_gpusPerServer == 0);
}

void
HierarchicalAlgorithm::DoBuild(CollectivePlan& plan,
                               uint32_t channel,
                               uint64_t bytes,
                               uint64_t chunkBytes) const
{
    const uint32_t g = m_gpusPerServer == 0 ? plan.GetNRanks() : m_gpusPerServer;
    const uint32_t servers = plan.GetNRanks() / g;
    // rank of the GPU at ring position p of server s (positions rotated by the channel)
    auto rank = [&](uint32_t s, uint32_t p) { return s * g + (channel + p) % g; };
    const std::vector<uint64_t> parts = Split(bytes, g);
    const uint64_t nPieces = Pieces(parts[0], chunkBytes);
    const uint32_t interSteps = servers > 1 ? 2 * (servers - 1) : 0;
    for (uint32_t j = 0; j < g; ++j)
    {
        // Part j is reduced along positions j, j+1, ..., j+g-1: its owner is at j + g - 1.
        const uint32_t owner = (j + g - 1) % g;
        const std::vector<uint64_t> pieces = Split(parts[j], nPieces);
        for (uint64_t k = 0; k < nPieces; ++k)
        {
            // ready[s]: the transfers that completed the piece at server s's owner (arrived
            // there); empty when the piece starts there complete (g = 1).
            std::vector<std::vector<uint32_t>> ready(servers);
            // Phase 1: reduce-scatter chains inside every server.
            for (uint32_t s = 0; s < servers; ++s)
            {
                std::vector<uint32_t> deps;
                for (uint32_t t = 0; t + 1 < g; ++t)
                {
                    const uint32_t id = plan.AddTransfer(rank(s, (j + t) % g),
                                                         rank(s, (j + t + 1) % g),
                                                         channel,
                                                         pieces[k],
                                                         t,
                                                         true,
                                                         deps);
                    deps = {id};
                }
                ready[s] = deps;
            }
            // Phase 2: ring all-reduce of the piece among the owners, one sub-part each.
            if (servers > 1)
            {
                const std::vector<uint64_t> sub = Split(pieces[k], servers);
                std::vector<std::vector<uint32_t>> done(servers);
                for (uint32_t m = 0; m < servers; ++m)
                {
                    // Sub-part m: reduced from server m around to server m - 1, then copied
                    // on around to server m - 2.
                    uint32_t previous = 0;
                    for (uint32_t t = 0; t < interSteps; ++t)
                    {
                        const uint32_t from = (m + t) % servers;
                        const uint32_t to = (m + t + 1) % servers;
                        const bool reducing = t + 1 < servers;
                        // A reducing hop sends the sender's own piece, complete once its
                        // server's reduce-scatter is (and what arrived, after the first hop);
                        // a copying hop forwards what arrived.
                        std::vector<uint32_t> deps;
                        if (t < servers)
                        {
                            // The sender's own piece (reduced hops), or the sum it just
                            // completed with it (the first copying hop), needs its server's
                            // reduce-scatter done.
                            deps = ready[from];
                        }
                        if (t > 0)
                        {
                            deps.push_back(previous);
                        }
                        previous = plan.AddTransfer(rank(from, owner),
                                                    rank(to, owner),
                                                    channel,
                                                    sub[m],
                                                    g - 1 + t,
                                                    reducing,
                                                    deps);
                        // Every arrival of the sub-part at `to`: the last one completes it.
                        done[to].push_back(previous);
                    }
                }
                for (uint32_t s = 0; s < servers; ++s)
                {
                    ready[s] = done[s];
                }
            }
            // Phase 3: all-gather chains inside every server, from the owner.
            for (uint32_t s = 0; s < servers; ++s)
            {
                std::vector<uint32_t> deps = ready[s];
                for (uint32_t t = 0; t + 1 < g; ++t)
                {
                    const uint32_t id = plan.AddTransfer(rank(s, (owner + t) % g),
                                                         rank(s, (owner + t + 1) % g),
                                                         channel,
                                                         pieces[k],
                                                         g - 1 + interSteps + t,
                                                         false,
                                                         deps);
                    deps = {id};
                }
            }
        }
    }
}

Time
HierarchicalAlgorithm::Predict(CollectiveType /* type */,
                               uint32_t nRanks,
                               uint64_t bytes,
                               const CollectiveSystem& system) const
{
    // Reduce-scatter and all-gather in each server (g - 1 steps each), a ring all-reduce of
    // 1 / g of the buffer across the N servers; the phases pipeline, so the slower of the two
    // links' shares bounds the time: 2 (g - 1) / g S inside a server, 2 (N - 1) / (N g) S
    // through each NIC. Without NVLink the in-server steps cross the NICs too.
    const double g = system.gpusPerServer > 0 ? system.gpusPerServer : nRanks;
    const double servers = nRanks / g;
    const double s = static_cast<double>(bytes);
    const bool nvlink = system.servers > 0;
    const double inAlpha = (nvlink ? system.nvAlpha : system.alpha).GetSeconds();
    const double inBeta
        = nvlink ? 8.0 / system.nvRate.GetBitRate() / system.nvRingEfficiency : system.beta;
    const double inside = 2 * (g - 1) / g * s * inBeta;
    const double across = 2 * (servers - 1) / (servers * g) * s * system.beta;
    return Seconds(2 * (g - 1) * inAlpha + 2 * (servers - 1) * system.alpha.GetSeconds()
                   + std::max(inside, across));
}

void
HierarchicalAlgorithm::Configure(uint32_t nRanks, const CollectiveSystem& system)
{
    m_gpusPerServer = system.gpusPerServer > 0 ? system.gpusPerServer : nRanks;
}

static CollectiveAlgorithmRegistration g_hier(
    "hier", {CollectiveType::ALL_REDUCE}, &HierarchicalAlgorithm::GetTypeId, false, 80);

} // namespace ns3
