/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-plan.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

const char*
CollectiveTypeName(CollectiveType type)
{
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return "allreduce";
    case CollectiveType::ALL_GATHER:
        return "allgather";
    case CollectiveType::REDUCE_SCATTER:
        return "reducescatter";
    case CollectiveType::BROADCAST:
        return "broadcast";
    case CollectiveType::ALL_TO_ALL:
        return "alltoall";
    }
    return "unknown";
}

bool
ParseCollectiveType(const std::string& name, CollectiveType& type)
{
    for (CollectiveType t : {CollectiveType::ALL_REDUCE,
                             CollectiveType::ALL_GATHER,
                             CollectiveType::REDUCE_SCATTER,
                             CollectiveType::BROADCAST,
                             CollectiveType::ALL_TO_ALL})
    {
        if (name == CollectiveTypeName(t))
        {
            type = t;
            return true;
        }
    }
    return false;
}

double
BusBandwidthFactor(CollectiveType type, uint32_t nRanks)
{
    const double n = nRanks;
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return 2 * (n - 1) / n;
    case CollectiveType::ALL_GATHER:
    case CollectiveType::REDUCE_SCATTER:
    case CollectiveType::ALL_TO_ALL:
        return (n - 1) / n;
    case CollectiveType::BROADCAST:
        return 1;
    }
    return 1;
}

CollectivePlan::CollectivePlan(CollectiveType type,
                               uint32_t nRanks,
                               uint64_t bytes,
                               std::string algorithm)
    : m_type(type)
    , m_nRanks(nRanks)
    , m_bytes(bytes)
    , m_algorithm(std::move(algorithm))
{
    NS_ABORT_MSG_IF(nRanks == 0, "CollectivePlan: no ranks");
}

uint32_t
CollectivePlan::AddTransfer(uint32_t src,
                            uint32_t dst,
                            uint32_t channel,
                            uint64_t bytes,
                            uint32_t step,
                            bool reduce,
                            const std::vector<uint32_t>& deps)
{
    NS_ABORT_MSG_IF(m_finalized, "CollectivePlan: transfer added after Finalize()");
    NS_ABORT_MSG_IF(src >= m_nRanks || dst >= m_nRanks || src == dst,
                    "CollectivePlan: bad transfer " << src << " -> " << dst);
    return Add(src, dst, channel, bytes, step, reduce, deps);
}

uint32_t
CollectivePlan::AddNvlsReduce(uint32_t dst,
                              uint32_t channel,
                              uint64_t bytes,
                              uint32_t step,
                              const std::vector<std::vector<uint32_t>>& deps,
                              uint32_t firstRank,
                              uint32_t count)
{
    count = count == 0 ? m_nRanks - firstRank : count;
    NS_ABORT_MSG_IF(firstRank + count > m_nRanks || dst < firstRank || dst >= firstRank + count,
                    "CollectivePlan: bad NVLS reduction to " << dst);
    NS_ABORT_MSG_IF(!deps.empty() && deps.size() != count,
                    "CollectivePlan: NVLS reduction dependencies for some ranks only");
    const auto first = static_cast<uint32_t>(m_transfers.size());
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t id = Add(firstRank + i,
                                dst,
                                channel,
                                bytes,
                                step,
                                false,
                                deps.empty() ? std::vector<uint32_t>{} : deps[i]);
        m_transfers[id].kind = TransferKind::NVLS_REDUCE;
        m_transfers[id].group = first;
        m_transfers[id].groupSize = count;
        m_transfers[id].groupBase = firstRank;
    }
    return first;
}

uint32_t
CollectivePlan::AddNvlsMulticast(uint32_t src,
                                 uint32_t channel,
                                 uint64_t bytes,
                                 uint32_t step,
                                 const std::vector<uint32_t>& deps,
                                 uint32_t firstRank,
                                 uint32_t count)
{
    count = count == 0 ? m_nRanks - firstRank : count;
    NS_ABORT_MSG_IF(firstRank + count > m_nRanks || src < firstRank || src >= firstRank + count,
                    "CollectivePlan: bad NVLS multicast from " << src);
    const auto first = static_cast<uint32_t>(m_transfers.size());
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t id = Add(src, firstRank + i, channel, bytes, step, false, deps);
        m_transfers[id].kind = TransferKind::NVLS_MULTICAST;
        m_transfers[id].group = first;
        m_transfers[id].groupSize = count;
        m_transfers[id].groupBase = firstRank;
    }
    return first;
}

uint32_t
CollectivePlan::Add(uint32_t src,
                    uint32_t dst,
                    uint32_t channel,
                    uint64_t bytes,
                    uint32_t step,
                    bool reduce,
                    const std::vector<uint32_t>& deps)
{
    NS_ABORT_MSG_IF(m_finalized, "CollectivePlan: transfer added after Finalize()");
    NS_ABORT_MSG_IF(src >= m_nRanks || dst >= m_nRanks,
                    "CollectivePlan: bad transfer " << src << " -> " << dst);
    const auto id = static_cast<uint32_t>(m_transfers.size());
    CollectiveTransfer t;
    t.src = src;
    t.dst = dst;
    t.channel = channel;
    t.bytes = bytes;
    t.step = step;
    t.reduce = reduce;
    t.firstDep = static_cast<uint32_t>(m_deps.size());
    t.nDeps = static_cast<uint32_t>(deps.size());
    t.group = id;
    for (uint32_t d : deps)
    {
        NS_ABORT_MSG_IF(d >= id,
                        "CollectivePlan: transfer " << id << " depends on " << d
                                                    << ", not an earlier transfer");
        NS_ABORT_MSG_IF(m_transfers[d].dst != src,
                        "CollectivePlan: transfer "
                            << id << " from rank " << src << " depends on transfer " << d
                            << " that arrives at rank " << m_transfers[d].dst);
        m_deps.push_back(d);
    }
    m_transfers.push_back(t);
    m_nChannels = std::max(m_nChannels, channel + 1);
    m_nSteps = std::max(m_nSteps, step + 1);
    return id;
}

void
CollectivePlan::Finalize()
{
    NS_ABORT_MSG_IF(m_finalized, "CollectivePlan: finalized twice");
    m_finalized = true;
    m_dependents.assign(m_transfers.size(), {});
    m_sends.assign(m_nRanks, {});
    m_receives.assign(m_nRanks, {});
    m_sendIndex.assign(m_transfers.size(), 0);
    for (uint32_t id = 0; id < m_transfers.size(); ++id)
    {
        const CollectiveTransfer& t = m_transfers[id];
        for (uint32_t k = 0; k < t.nDeps; ++k)
        {
            m_dependents[m_deps[t.firstDep + k]].push_back(id);
        }
        m_sendIndex[id] = static_cast<uint32_t>(m_sends[t.src].size());
        m_sends[t.src].push_back(id);
        m_receives[t.dst].push_back(id);
    }
}

CollectiveType
CollectivePlan::GetType() const
{
    return m_type;
}

uint32_t
CollectivePlan::GetNRanks() const
{
    return m_nRanks;
}

uint64_t
CollectivePlan::GetBytes() const
{
    return m_bytes;
}

const std::string&
CollectivePlan::GetAlgorithm() const
{
    return m_algorithm;
}

uint32_t
CollectivePlan::GetNChannels() const
{
    return m_nChannels;
}

uint32_t
CollectivePlan::GetNSteps() const
{
    return m_nSteps;
}

uint32_t
CollectivePlan::GetNTransfers() const
{
    return static_cast<uint32_t>(m_transfers.size());
}

const CollectiveTransfer&
CollectivePlan::GetTransfer(uint32_t id) const
{
    return m_transfers[id];
}

std::vector<uint32_t>
CollectivePlan::GetDependencies(uint32_t id) const
{
    const CollectiveTransfer& t = m_transfers[id];
    return std::vector<uint32_t>(m_deps.begin() + t.firstDep,
                                 m_deps.begin() + t.firstDep + t.nDeps);
}

const std::vector<uint32_t>&
CollectivePlan::GetDependents(uint32_t id) const
{
    NS_ASSERT(m_finalized);
    return m_dependents[id];
}

const std::vector<uint32_t>&
CollectivePlan::GetSends(uint32_t rank) const
{
    NS_ASSERT(m_finalized);
    return m_sends[rank];
}

const std::vector<uint32_t>&
CollectivePlan::GetReceives(uint32_t rank) const
{
    NS_ASSERT(m_finalized);
    return m_receives[rank];
}

uint32_t
CollectivePlan::GetSendIndex(uint32_t id) const
{
    NS_ASSERT(m_finalized);
    return m_sendIndex[id];
}

uint64_t
CollectivePlan::GetBytesSent(uint32_t rank) const
{
    uint64_t total = 0;
    for (uint32_t id : GetSends(rank))
    {
        const CollectiveTransfer& t = m_transfers[id];
        if (t.kind != TransferKind::NVLS_MULTICAST || id == t.group) // one multicast per group
        {
            total += t.bytes;
        }
    }
    return total;
}

uint64_t
CollectivePlan::GetBytesReceived(uint32_t rank) const
{
    uint64_t total = 0;
    for (uint32_t id : GetReceives(rank))
    {
        const CollectiveTransfer& t = m_transfers[id];
        if (t.kind != TransferKind::NVLS_REDUCE || id == t.group) // one result per reduction
        {
            total += t.bytes;
        }
    }
    return total;
}

} // namespace ns3
