/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvls-tree-algorithm.h"

#include "double-binary-tree-algorithm.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsTreeAlgorithm);

TypeId
NvlsTreeAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvlsTreeAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvlsTreeAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server, each server one NVLink domain (ranks are "
                            "server-major); 0 (the default): all ranks in one server.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&NvlsTreeAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PiecesInFlight",
                            "Pieces of a tree in flight: a GPU contributes to piece k once the "
                            "multicast of piece k - PiecesInFlight has reached it. Default 8.",
                            UintegerValue(8),
                            MakeUintegerAccessor(&NvlsTreeAlgorithm::m_window),
                            MakeUintegerChecker<uint32_t>(1));
    return tid;
}

std::string
NvlsTreeAlgorithm::GetName() const
{
    return "nvlstree";
}

bool
NvlsTreeAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2
           && (m_gpusPerServer == 0 || nRanks % m_gpusPerServer == 0);
}

void
NvlsTreeAlgorithm::DoBuild(CollectivePlan& plan,
                           uint32_t channel,
                           uint64_t bytes,
                           uint64_t chunkBytes) const
{
    const uint32_t n = plan.GetNRanks();
    const uint32_t g = m_gpusPerServer == 0 ? n : m_gpusPerServer;
    const uint32_t servers = n / g;
    const std::vector<uint64_t> halves = Split(bytes, DoubleBinaryTreeAlgorithm::TREES);
    for (uint32_t t = 0; t < DoubleBinaryTreeAlgorithm::TREES; ++t)
    {
        const std::vector<uint32_t> parents = DoubleBinaryTreeAlgorithm::GetParents(servers, t);
        std::vector<std::vector<uint32_t>> children(servers);
        uint32_t root = 0;
        for (uint32_t s = 0; s < servers; ++s)
        {
            if (parents[s] == DoubleBinaryTreeAlgorithm::NO_PARENT)
            {
                root = s;
            }
            else
            {
                children[parents[s]].push_back(s);
            }
        }
        std::vector<uint32_t> topDown{root};
        for (std::size_t i = 0; i < topDown.size(); ++i)
        {
            topDown.insert(topDown.end(), children[topDown[i]].begin(), children[topDown[i]].end());
        }
        const uint32_t h = (channel + t) % g; // the heads' local GPU: one rail
        auto head = [&](uint32_t s) { return s * g + h; };
        const std::vector<uint64_t> pieces = Split(halves[t], Pieces(halves[t], chunkBytes));
        std::vector<std::vector<uint32_t>> multicast(servers, std::vector<uint32_t>(pieces.size()));
        std::vector<uint32_t> reduced(servers); // the head's own contribution, arriving at it
        std::vector<uint32_t> up(servers);
        std::vector<uint32_t> down(servers);
        for (uint64_t k = 0; k < pieces.size(); ++k)
        {
            if (pieces[k] == 0)
            {
                continue;
            }
            // In every server: an NVLS reduction to the head.
            for (uint32_t s = 0; s < servers; ++s)
            {
                std::vector<std::vector<uint32_t>> deps;
                if (k >= m_window && pieces[k - m_window] > 0)
                {
                    deps.resize(g);
                    for (uint32_t i = 0; i < g; ++i)
                    {
                        deps[i] = {multicast[s][k - m_window] + i}; // reached GPU i
                    }
                }
                reduced[s] = plan.AddNvlsReduce(head(s), channel, pieces[k], 0, deps, s * g, g)
                             + h; // the transfer from the head to itself: dst is the head
            }
            // Across servers: reduce up the tree, children before parents ...
            for (auto it = topDown.rbegin(); it != topDown.rend(); ++it)
            {
                const uint32_t s = *it;
                if (s == root)
                {
                    continue;
                }
                std::vector<uint32_t> deps{reduced[s]};
                for (uint32_t c : children[s])
                {
                    deps.push_back(up[c]);
                }
                up[s] = plan.AddTransfer(
                    head(s), head(parents[s]), channel, pieces[k], 1, true, deps);
            }
            // ... and broadcast down it; then each head multicasts in its server.
            for (uint32_t s : topDown)
            {
                std::vector<uint32_t> deps;
                if (s == root)
                {
                    deps.push_back(reduced[s]);
                    for (uint32_t c : children[s])
                    {
                        deps.push_back(up[c]);
                    }
                }
                else
                {
                    deps.push_back(down[s]);
                }
                for (uint32_t c : children[s])
                {
                    down[c]
                        = plan.AddTransfer(head(s), head(c), channel, pieces[k], 2, false, deps);
                }
                multicast[s][k]
                    = plan.AddNvlsMulticast(head(s), channel, pieces[k], 3, deps, s * g, g);
            }
        }
    }
}

} // namespace ns3
