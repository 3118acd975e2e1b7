/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "direct-all-to-all-algorithm.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DirectAllToAllAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(DirectAllToAllAlgorithm);

TypeId
DirectAllToAllAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectAllToAllAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DirectAllToAllAlgorithm>();
    return tid;
}

std::string
DirectAllToAllAlgorithm::GetName() const
{
    return "direct";
}

bool
DirectAllToAllAlgorithm::Supports(CollectiveType type, uint32_t /* nRanks */) const
{
    return type == CollectiveType::ALL_TO_ALL;
}

void
DirectAllToAllAlgorithm::DoBuild(CollectivePlan& plan,
                                 uint32_t channel,
                                 uint64_t bytes,
                                 uint64_t chunkBytes) const
{
    const uint32_t n = plan.GetNRanks();
    const std::vector<uint64_t> parts = Split(bytes, n);
    plan.SetPeerToPeer(true); // ncclSend/ncclRecv: PXN may relay them
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t s = 0; s + 1 < n; ++s)
        {
            const uint32_t peer = (r + s + 1) % n;
            const std::vector<uint64_t> pieces
                = Split(parts[peer], Pieces(parts[peer], chunkBytes));
            for (uint64_t piece : pieces)
            {
                plan.AddTransfer(r, peer, channel, piece, s, false, {});
            }
        }
    }
}

Time
DirectAllToAllAlgorithm::Predict(CollectiveType /* type */,
                                 uint32_t nRanks,
                                 uint64_t bytes,
                                 const CollectiveSystem& system) const
{
    // Every message at once: one latency, (n - 1) / n of the buffer through each NIC.
    const double n = nRanks;
    return Seconds(system.alpha.GetSeconds()
                   + (n - 1) / n * static_cast<double>(bytes) * system.beta);
}

static CollectiveAlgorithmRegistration g_direct(
    "direct", {CollectiveType::ALL_TO_ALL}, &DirectAllToAllAlgorithm::GetTypeId, true, 60);

} // namespace ns3
