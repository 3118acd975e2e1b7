/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvls-algorithm.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsAlgorithm);

TypeId
NvlsAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvlsAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvlsAlgorithm>()
                            .AddAttribute("PiecesInFlight",
                                          "Pieces of one slice in flight: a rank contributes "
                                          "to piece k once the multicast of piece k - "
                                          "PiecesInFlight has reached it. Default 8.",
                                          UintegerValue(8),
                                          MakeUintegerAccessor(&NvlsAlgorithm::m_window),
                                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

std::string
NvlsAlgorithm::GetName() const
{
    return "nvls";
}

bool
NvlsAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2;
}

void
NvlsAlgorithm::DoBuild(CollectivePlan& plan,
                       uint32_t channel,
                       uint64_t bytes,
                       uint64_t chunkBytes) const
{
    const uint32_t n = plan.GetNRanks();
    const std::vector<uint64_t> slices = Split(bytes, n);
    const uint64_t nPieces = Pieces(slices[0], chunkBytes);
    std::vector<std::vector<uint64_t>> pieces(n);
    for (uint32_t o = 0; o < n; ++o)
    {
        pieces[o] = Split(slices[o], nPieces);
    }
    // multicast[o][k]: the first transfer of the multicast group of piece k of o's slice.
    std::vector<std::vector<uint32_t>> multicast(n, std::vector<uint32_t>(nPieces));
    for (uint64_t k = 0; k < nPieces; ++k)
    {
        for (uint32_t o = 0; o < n; ++o)
        {
            if (pieces[o][k] == 0)
            {
                continue;
            }
            std::vector<std::vector<uint32_t>> deps;
            if (k >= m_window && pieces[o][k - m_window] > 0)
            {
                deps.resize(n);
                for (uint32_t r = 0; r < n; ++r)
                {
                    deps[r] = {multicast[o][k - m_window] + r}; // it reached rank r
                }
            }
            const uint32_t reduce = plan.AddNvlsReduce(o, channel, pieces[o][k], 0, deps);
            // o multicasts the sum once it has it (the transfer from o to o of the group).
            multicast[o][k] = plan.AddNvlsMulticast(o, channel, pieces[o][k], 1, {reduce + o});
        }
    }
}

Time
NvlsAlgorithm::Predict(CollectiveType /* type */,
                       uint32_t nRanks,
                       uint64_t bytes,
                       const CollectiveSystem& system) const
{
    // Two steps (reduce, multicast); S (n + 1) / n each way on every GPU's NVLinks.
    const double n = nRanks;
    return Seconds(2 * system.nvAlpha.GetSeconds()
                   + (n + 1) / n * static_cast<double>(bytes) * 8.0 / system.nvRate.GetBitRate()
                         / system.nvlsEfficiency);
}

bool
NvlsAlgorithm::SupportsProtocol(NcclProtocol protocol) const
{
    return protocol == NCCL_SIMPLE;
}

bool
NvlsAlgorithm::FitsSystem(const CollectiveSystem& system) const
{
    return system.nvls && system.servers == 1; // one NVLink domain whose switches reduce
}

static CollectiveAlgorithmRegistration g_nvls(
    "nvls", {CollectiveType::ALL_REDUCE}, &NvlsAlgorithm::GetTypeId, true, 70);

} // namespace ns3
