/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "pairwise-all-to-all-algorithm.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PairwiseAllToAllAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(PairwiseAllToAllAlgorithm);

TypeId
PairwiseAllToAllAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PairwiseAllToAllAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PairwiseAllToAllAlgorithm>();
    return tid;
}

std::string
PairwiseAllToAllAlgorithm::GetName() const
{
    return "pairwise";
}

bool
PairwiseAllToAllAlgorithm::Supports(CollectiveType type, uint32_t /* nRanks */) const
{
    return type == CollectiveType::ALL_TO_ALL;
}

void
PairwiseAllToAllAlgorithm::DoBuild(CollectivePlan& plan,
                                   uint32_t channel,
                                   uint64_t bytes,
                                   uint64_t chunkBytes) const
{
    NS_LOG_FUNCTION(this << channel << bytes << chunkBytes);
    const uint32_t n = plan.GetNRanks();
    plan.SetPeerToPeer(true); // ncclSend/ncclRecv: PXN may relay them
    const std::vector<uint64_t> parts = Split(bytes, n);
    // received[r]: the transfers that arrived at rank r in the previous step; arriving[r]: in
    // the current one.
    std::vector<std::vector<uint32_t>> received(n);
    std::vector<std::vector<uint32_t>> arriving(n);
    for (uint32_t s = 1; s < n; ++s)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t peer = (r + s) % n;
            for (uint64_t piece : Split(parts[peer], Pieces(parts[peer], chunkBytes)))
            {
                arriving[peer].push_back(
                    plan.AddTransfer(r, peer, channel, piece, s - 1, false, received[r]));
            }
        }
        std::swap(received, arriving);
        for (auto& ids : arriving)
        {
            ids.clear();
        }
    }
}

Time
PairwiseAllToAllAlgorithm::Predict(CollectiveType /* type */,
                                   uint32_t nRanks,
                                   uint64_t bytes,
                                   const CollectiveSystem& system) const
{
    // n - 1 exchanges one after the other, each 1 / n of the buffer.
    const double n = nRanks;
    return Seconds((n - 1) * system.alpha.GetSeconds()
                   + (n - 1) / n * static_cast<double>(bytes) * system.beta);
}

static CollectiveAlgorithmRegistration g_pairwise(
    "pairwise", {CollectiveType::ALL_TO_ALL}, &PairwiseAllToAllAlgorithm::GetTypeId, false, 50);

} // namespace ns3
