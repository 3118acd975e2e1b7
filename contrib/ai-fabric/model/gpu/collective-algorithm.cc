/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);
NS_OBJECT_ENSURE_REGISTERED(RingAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

std::vector<uint64_t>
CollectiveAlgorithm::Split(uint64_t bytes, uint64_t n)
{
    NS_ABORT_MSG_IF(n == 0, "CollectiveAlgorithm: split into zero parts");
    std::vector<uint64_t> parts(n, bytes / n);
    for (uint64_t i = 0; i < bytes % n; ++i)
    {
        ++parts[i];
    }
    return parts;
}

uint64_t
CollectiveAlgorithm::Pieces(uint64_t bytes, uint64_t chunkBytes)
{
    return bytes <= chunkBytes ? 1 : (bytes + chunkBytes - 1) / chunkBytes;
}

Ptr<CollectivePlan>
CollectiveAlgorithm::Build(CollectiveType type,
                           uint32_t nRanks,
                           uint64_t bytes,
                           uint32_t channels,
                           uint64_t chunkBytes) const
{
    NS_ABORT_MSG_IF(!Supports(type, nRanks),
                    "CollectiveAlgorithm " << GetName() << " does not run "
                                           << CollectiveTypeName(type) << " on " << nRanks
                                           << " ranks");
    NS_ABORT_MSG_IF(channels == 0 || chunkBytes == 0,
                    "CollectiveAlgorithm: channels and chunk size must be positive");
    Ptr<CollectivePlan> plan = Create<CollectivePlan>(type, nRanks, bytes, GetName());
    // A collective of zero bytes moves nothing: NCCL returns at once for a count of zero.
    if (nRanks > 1 && bytes > 0)
    {
        const std::vector<uint64_t> shares = Split(bytes, channels);
        for (uint32_t c = 0; c < channels; ++c)
        {
            DoBuild(*plan, c, shares[c], chunkBytes);
        }
    }
    plan->Finalize();
    return plan;
}

// ---------------------------------------------------------------- ring

TypeId
RingAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RingAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<RingAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server: with more than one, each channel's ring follows "
                            "NCCL's server-aware order (RingOrder). 0 (the default): ranks in "
                            "order.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RingAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

std::vector<uint32_t>
RingAlgorithm::RingOrder(uint32_t n, uint32_t g, uint32_t channel)
{
    std::vector<uint32_t> order(n);
    if (g <= 1 || n % g != 0)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            order[r] = r;
        }
        return order;
    }
    const uint32_t c = channel % g;
    for (uint32_t server = 0; server < n / g; ++server)
    {
        for (uint32_t i = 0; i < g; ++i)
        {
            const uint32_t local = server % 2 == 0 ? (c + i) % g : (c + g - 1 - i) % g;
            order[server * g + i] = server * g + local;
        }
    }
    return order;
}

std::string
RingAlgorithm::GetName() const
{
    return "ring";
}

bool
RingAlgorithm::Supports(CollectiveType type, uint32_t /* nRanks */) const
{
    return type == CollectiveType::ALL_REDUCE || type == CollectiveType::ALL_GATHER
           || type == CollectiveType::REDUCE_SCATTER;
}

void
RingAlgorithm::DoBuild(CollectivePlan& plan,
                       uint32_t channel,
                       uint64_t bytes,
                       uint64_t chunkBytes) const
{
    const uint32_t n = plan.GetNRanks();
    const CollectiveType type = plan.GetType();
    // All-reduce: reduce-scatter steps 0..n-2, all-gather steps n-1..2n-3.
    const uint32_t reduceSteps = type == CollectiveType::ALL_GATHER ? 0 : n - 1;
    const uint32_t gatherSteps = type == CollectiveType::REDUCE_SCATTER ? 0 : n - 1;
    const uint32_t steps = reduceSteps + gatherSteps;
    const std::vector<uint64_t> parts = Split(bytes, n);
    // Every part moves in the same number of pieces (the largest part's), split evenly.
    const uint64_t nPieces = Pieces(parts[0], chunkBytes);
    std::vector<std::vector<uint64_t>> pieces(n);
    for (uint32_t p = 0; p < n; ++p)
    {
        pieces[p] = Split(parts[p], nPieces);
    }
    const std::vector<uint32_t> order = RingOrder(n, m_gpusPerServer, channel);
    // previous[p][k]: the id of the transfer of piece k that arrived at position p last step.
    std::vector<std::vector<uint32_t>> previous(n, std::vector<uint32_t>(nPieces));
    std::vector<std::vector<uint32_t>> current(n, std::vector<uint32_t>(nPieces));
    for (uint32_t s = 0; s < steps; ++s)
    {
        const bool reduce = s < reduceSteps;
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t next = (r + 1) % n;
            const uint32_t part = (r + n - s % n) % n;
            for (uint64_t k = 0; k < nPieces; ++k)
            {
                std::vector<uint32_t> deps;
                if (s > 0)
                {
                    deps.push_back(previous[r][k]);
                }
                current[next][k] = plan.AddTransfer(
                    order[r], order[next], channel, pieces[part][k], s, reduce, deps);
            }
        }
        std::swap(previous, current);
    }
}

} // namespace ns3
