/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "chain-broadcast-algorithm.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChainBroadcastAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(ChainBroadcastAlgorithm);

TypeId
ChainBroadcastAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ChainBroadcastAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ChainBroadcastAlgorithm>();
    return tid;
}

std::string
ChainBroadcastAlgorithm::GetName() const
{
    return "chain";
}

bool
ChainBroadcastAlgorithm::Supports(CollectiveType type, uint32_t /* nRanks */) const
{
    return type == CollectiveType::BROADCAST;
}

void
ChainBroadcastAlgorithm::DoBuild(CollectivePlan& plan,
                                 uint32_t channel,
                                 uint64_t bytes,
                                 uint64_t chunkBytes) const
{
    NS_LOG_FUNCTION(this << channel << bytes << chunkBytes);
    const uint32_t n = plan.GetNRanks();
    for (uint64_t piece : Split(bytes, Pieces(bytes, chunkBytes)))
    {
        std::vector<uint32_t> deps; // the piece's arrival at the sender
        for (uint32_t hop = 0; hop + 1 < n; ++hop)
        {
            deps = {plan.AddTransfer(hop, hop + 1, channel, piece, hop, false, deps)};
        }
    }
}

} // namespace ns3
