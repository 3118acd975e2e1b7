/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "halving-doubling-algorithm.h"

#include "ns3/log.h"

#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAlgorithm);

TypeId
HalvingDoublingAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingAlgorithm>();
    return tid;
}

std::string
HalvingDoublingAlgorithm::GetName() const
{
    return "hd";
}

bool
HalvingDoublingAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2;
}

void
HalvingDoublingAlgorithm::DoBuild(CollectivePlan& plan,
                                  uint32_t channel,
                                  uint64_t bytes,
                                  uint64_t chunkBytes) const
{
    NS_LOG_FUNCTION(this << channel << bytes << chunkBytes);
    const uint32_t n = plan.GetNRanks();
    uint32_t p = 1;
    while (2 * p <= n)
    {
        p *= 2;
    }
    const uint32_t extra = n - p;
    // The rank that plays renumbered rank j.
    auto rankOf = [extra](uint32_t j) { return j < extra ? 2 * j : j + extra; };

    // prefix[b]: bytes of blocks 0..b-1.
    const std::vector<uint64_t> blocks = Split(bytes, p);
    std::vector<uint64_t> prefix(p + 1, 0);
    std::partial_sum(blocks.begin(), blocks.end(), prefix.begin() + 1);
    // Bytes of the aligned run of d blocks that holds block j.
    auto run = [&prefix](uint32_t j, uint32_t d)
    {
        const uint32_t first = j & ~(d - 1);
        return prefix[first + d] - prefix[first];
    };

    // received[q]: the transfers that arrived at rank q in the previous step; arriving[q]:
    // in the current one.
    std::vector<std::vector<uint32_t>> received(n);
    std::vector<std::vector<uint32_t>> arriving(n);
    uint32_t step = 0;
    auto send = [&](uint32_t src, uint32_t dst, uint64_t size, bool reduce)
    {
        for (uint64_t piece : Split(size, Pieces(size, chunkBytes)))
        {
            arriving[dst].push_back(
                plan.AddTransfer(src, dst, channel, piece, step, reduce, received[src]));
        }
    };
    auto endStep = [&]()
    {
        std::swap(received, arriving);
        for (auto& ids : arriving)
        {
            ids.clear();
        }
        ++step;
    };

    if (extra > 0)
    {
        for (uint32_t i = 0; i < extra; ++i)
        {
            send(2 * i + 1, 2 * i, bytes, true);
        }
        endStep();
    }
    // Reduce-scatter by recursive halving: distance p/2 first.
    for (uint32_t d = p / 2; d >= 1; d /= 2)
    {
        for (uint32_t j = 0; j < p; ++j)
        {
            send(rankOf(j), rankOf(j ^ d), run(j ^ d, d), true);
        }
        endStep();
    }
    // All-gather by recursive doubling: distance 1 first.
    for (uint32_t d = 1; d < p; d *= 2)
    {
        for (uint32_t j = 0; j < p; ++j)
        {
            send(rankOf(j), rankOf(j ^ d), run(j, d), false);
        }
        endStep();
    }
    if (extra > 0)
    {
        for (uint32_t i = 0; i < extra; ++i)
        {
            send(2 * i, 2 * i + 1, bytes, false);
        }
        endStep();
    }
}

} // namespace ns3
