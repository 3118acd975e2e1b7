/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "moe-all-to-all.h"

#include "collective-algorithm.h"
#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MoeAllToAll");

const char*
MoeDispatcherName(MoeDispatcher d)
{
    return d == MoeDispatcher::FLAT ? "flat" : "deepep";
}

bool
ParseMoeDispatcher(const std::string& name, MoeDispatcher& d)
{
    if (name == "flat")
    {
        d = MoeDispatcher::FLAT;
        return true;
    }
    if (name == "deepep")
    {
        d = MoeDispatcher::HIERARCHICAL;
        return true;
    }
    return false;
}

Ptr<CollectivePlan>
MoeAllToAll::Build(const MoeRouting& routing,
                   MoeDispatcher dispatcher,
                   bool combine,
                   uint64_t bytesPerToken,
                   uint64_t chunkBytes,
                   uint32_t channels,
                   double copyRate)
{
    NS_LOG_FUNCTION(MoeDispatcherName(dispatcher) << combine << bytesPerToken << chunkBytes);
    NS_ABORT_MSG_IF(chunkBytes == 0 || channels == 0, "MoeAllToAll: no chunk or no channel");
    const uint32_t n = routing.GetNRanks();
    const uint64_t tokens = routing.GetConfig().tokens;
    std::string name
        = std::string(combine ? "combine-" : "dispatch-") + MoeDispatcherName(dispatcher);
    Ptr<CollectivePlan> plan
        = Create<CollectivePlan>(CollectiveType::ALL_TO_ALL, n, tokens * bytesPerToken, name);
    // The flat dispatcher is NCCL's all-to-all (PXN may relay it); DeepEP's kernels write
    // over their own NIC and relay on the receiving server (no PXN).
    plan->SetPeerToPeer(dispatcher == MoeDispatcher::FLAT);
    // Every rank's routes, then their pieces round by round (piece 0 of every route, then
    // piece 1, ...): a connection's pieces leave in the order they are listed, so every route
    // advances at once, as DeepEP's channels each take a slice of every destination's tokens.
    struct Route
    {
        uint32_t src{0};              //!< the tokens' rank
        uint32_t peer{0};             //!< the expert rank, or the relay
        bool relayed{false};          //!< through a relay (the network)
        std::vector<uint64_t> pieces; //!< straight, or to the relay
        std::vector<std::pair<uint32_t, std::vector<uint64_t>>> shares; //!< relay <-> experts
    };
    std::vector<Route> routes;
    uint64_t rounds = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        const uint32_t home = routing.GetNode(s);
        for (uint32_t m = 0; m < routing.GetNNodes(); ++m)
        {
            const std::vector<uint32_t>& there = routing.GetNodeRanks(m);
            if (dispatcher == MoeDispatcher::FLAT || m == home)
            {
                // Straight to (from) every rank with experts for s's tokens.
                for (uint32_t d : there)
                {
                    const uint64_t bytes = routing.GetTokens(s, d) * bytesPerToken;
                    if (d != s && bytes > 0)
                    {
                        Route r;
                        r.src = s;
                        r.peer = d;
                        r.pieces = CollectiveAlgorithm::Split(
                            bytes, CollectiveAlgorithm::Pieces(bytes, chunkBytes));
                        rounds = std::max<uint64_t>(rounds, r.pieces.size());
                        routes.push_back(std::move(r));
                    }
                }
                continue;
            }
            // Across the network once per node, through the relay of s's rail there.
            const uint64_t nodeBytes = routing.GetNodeTokens(s, m) * bytesPerToken;
            if (nodeBytes == 0)
            {
                continue;
            }
            Route r;
            r.src = s;
            r.peer = routing.GetRelay(s, m);
            r.relayed = true;
            r.pieces = CollectiveAlgorithm::Split(
                nodeBytes, CollectiveAlgorithm::Pieces(nodeBytes, chunkBytes));
            for (uint32_t d : there)
            {
                const uint64_t bytes = routing.GetTokens(s, d) * bytesPerToken;
                if (d != r.peer && bytes > 0)
                {
                    r.shares.emplace_back(d, CollectiveAlgorithm::Split(bytes, r.pieces.size()));
                }
            }
            rounds = std::max<uint64_t>(rounds, r.pieces.size());
            routes.push_back(std::move(r));
        }
    }
    std::vector<uint32_t> in;
    for (uint64_t i = 0; i < rounds; ++i)
    {
        const auto channel = static_cast<uint32_t>(i % channels);
        for (const Route& r : routes)
        {
            if (i >= r.pieces.size())
            {
                continue;
            }
            if (!r.relayed)
            {
                combine ? plan->AddTransfer(r.peer, r.src, channel, r.pieces[i], 0, true, {})
                        : plan->AddTransfer(r.src, r.peer, channel, r.pieces[i], 0, false, {});
                continue;
            }
            if (!combine)
            {
                const uint32_t wire
                    = plan->AddTransfer(r.src, r.peer, channel, r.pieces[i], 0, false, {});
                for (const auto& [d, share] : r.shares)
                {
                    if (share[i] > 0)
                    {
                        plan->AddTransfer(r.peer, d, channel, share[i], 1, false, {wire});
                    }
                }
                continue;
            }
            in.clear();
            for (const auto& [d, share] : r.shares)
            {
                if (share[i] > 0)
                {
                    in.push_back(plan->AddTransfer(d, r.peer, channel, share[i], 0, true, {}));
                }
            }
            plan->AddTransfer(r.peer, r.src, channel, r.pieces[i], 1, true, in);
        }
    }
    plan->Finalize();
    if (dispatcher == MoeDispatcher::HIERARCHICAL && copyRate > 0)
    {
        // What lands at a rank without crossing NVLink: its tokens for itself, and as a relay
        // the tokens for itself in the pieces that came over the network (a combine sends
        // the same outputs back the same way).
        std::vector<uint64_t> own(n, 0);
        for (uint32_t s = 0; s < n; ++s)
        {
            own[s] += routing.GetTokens(s, s) * bytesPerToken;
            for (uint32_t m = 0; m < routing.GetNNodes(); ++m)
            {
                if (m == routing.GetNode(s) || routing.GetNodeTokens(s, m) == 0)
                {
                    continue;
                }
                const uint32_t relay = routing.GetRelay(s, m);
                own[relay] += routing.GetTokens(s, relay) * bytesPerToken;
            }
        }
        plan->SetKernelCopy(copyRate, std::move(own));
    }
    return plan;
}

uint64_t
MoeAllToAll::NetworkTokens(const MoeRouting& routing, MoeDispatcher dispatcher, uint32_t src)
{
    const uint32_t home = routing.GetNode(src);
    uint64_t sum = 0;
    for (uint32_t m = 0; m < routing.GetNNodes(); ++m)
    {
        if (m == home)
        {
            continue;
        }
        if (dispatcher == MoeDispatcher::HIERARCHICAL)
        {
            sum += routing.GetNodeTokens(src, m);
            continue;
        }
        for (uint32_t d : routing.GetNodeRanks(m))
        {
            sum += routing.GetTokens(src, d);
        }
    }
    return sum;
}

} // namespace ns3
