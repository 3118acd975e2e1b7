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

CollectivePlan::CollectivePlan(CollectiveType type,
                               uint32_t nRanks,
                               uint64_t bytes,
                               std::string algorithm)
    : CollectiveSchedule(type, nRanks, bytes, std::move(algorithm))
{
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
    NS_ABORT_MSG_IF(src >= GetNRanks() || dst >= GetNRanks() || src == dst,
                    "CollectivePlan: bad transfer " << src << " -> " << dst);
    return Add(src, dst, channel, bytes, step, reduce, deps);
}

Ptr<CollectivePlan>
CollectivePlan::PointToPoint(uint64_t bytes, std::string name)
{
    constexpr uint64_t PIECE = 1ULL << 30;
    Ptr<CollectivePlan> plan
        = Create<CollectivePlan>(CollectiveType::BROADCAST, 2, bytes, std::move(name));
    plan->SetPeerToPeer(true); // ncclSend/ncclRecv
    uint64_t left = bytes;
    do
    {
        const uint64_t piece = std::min(left, PIECE);
        plan->AddTransfer(0, 1, 0, piece, 0, false, {});
        left -= piece;
    } while (left > 0);
    plan->Finalize();
    return plan;
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
    count = count == 0 ? GetNRanks() - firstRank : count;
    NS_ABORT_MSG_IF(firstRank + count > GetNRanks() || dst < firstRank || dst >= firstRank + count,
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
    count = count == 0 ? GetNRanks() - firstRank : count;
    NS_ABORT_MSG_IF(firstRank + count > GetNRanks() || src < firstRank || src >= firstRank + count,
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
    NS_ABORT_MSG_IF(src >= GetNRanks() || dst >= GetNRanks(),
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
    m_sends.assign(GetNRanks(), {});
    m_receives.assign(GetNRanks(), {});
    m_sendIndex.assign(m_transfers.size(), 0);
    m_recvIndex.assign(m_transfers.size(), 0);
    for (uint32_t id = 0; id < m_transfers.size(); ++id)
    {
        const CollectiveTransfer& t = m_transfers[id];
        for (uint32_t k = 0; k < t.nDeps; ++k)
        {
            m_dependents[m_deps[t.firstDep + k]].push_back(id);
        }
        m_sendIndex[id] = static_cast<uint32_t>(m_sends[t.src].size());
        m_sends[t.src].push_back(id);
        m_recvIndex[id] = static_cast<uint32_t>(m_receives[t.dst].size());
        m_receives[t.dst].push_back(id);
    }
}

void
CollectivePlan::SetSource(Ptr<const CollectiveSchedule> source)
{
    m_source = source;
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

// ------------------------------------------------ the plan as a schedule: a stream per transfer

uint32_t
CollectivePlan::GetNSendStreams(uint32_t rank) const
{
    return m_source ? m_source->GetNSendStreams(rank)
                    : static_cast<uint32_t>(GetSends(rank).size());
}

uint64_t
CollectivePlan::GetSendLength(uint32_t rank, uint32_t stream) const
{
    return m_source ? m_source->GetSendLength(rank, stream) : 1;
}

void
CollectivePlan::GetSend(uint32_t rank,
                        uint32_t stream,
                        uint64_t index,
                        ScheduleMessage& message) const
{
    if (m_source)
    {
        m_source->GetSend(rank, stream, index, message);
        return;
    }
    const uint32_t id = GetSends(rank)[stream];
    const CollectiveTransfer& t = m_transfers[id];
    message.transfer = t;
    message.recvStream = m_recvIndex[id];
    message.recvIndex = 0;
    message.tagCode = t.group; // a multicast: every receiver locates its own transfer
    // One multicast per group: the group's first transfer sends it.
    message.skip = t.kind == TransferKind::NVLS_MULTICAST && id != t.group;
    message.deps.clear();
    for (uint32_t k = 0; k < t.nDeps; ++k)
    {
        message.deps.push_back({m_recvIndex[m_deps[t.firstDep + k]], 0, 0});
    }
}

uint32_t
CollectivePlan::GetNRecvStreams(uint32_t rank) const
{
    return m_source ? m_source->GetNRecvStreams(rank)
                    : static_cast<uint32_t>(GetReceives(rank).size());
}

uint64_t
CollectivePlan::GetRecvLength(uint32_t rank, uint32_t stream) const
{
    return m_source ? m_source->GetRecvLength(rank, stream) : 1;
}

std::pair<uint32_t, uint32_t>
CollectivePlan::GetRecvSource(uint32_t rank, uint32_t stream) const
{
    if (m_source)
    {
        return m_source->GetRecvSource(rank, stream);
    }
    const uint32_t id = GetReceives(rank)[stream];
    return {m_transfers[id].src, m_sendIndex[id]};
}

void
CollectivePlan::GetRecv(uint32_t rank,
                        uint32_t stream,
                        uint64_t index,
                        CollectiveTransfer& transfer) const
{
    if (m_source)
    {
        m_source->GetRecv(rank, stream, index, transfer);
        return;
    }
    transfer = m_transfers[GetReceives(rank)[stream]];
}

std::pair<uint32_t, uint32_t>
CollectivePlan::LocateRecv(uint32_t rank, uint32_t code) const
{
    if (m_source)
    {
        return m_source->LocateRecv(rank, code);
    }
    NS_ABORT_MSG_IF(code >= m_transfers.size(),
                    "CollectivePlan: rank " << rank << " received an unexpected transfer " << code);
    const CollectiveTransfer& group = m_transfers[code];
    switch (group.kind)
    {
    case TransferKind::NVLS_MULTICAST:
        // This rank's transfer of the group.
        NS_ABORT_MSG_IF(rank < group.groupBase || rank >= group.groupBase + group.groupSize,
                        "CollectivePlan: rank " << rank << " outside multicast " << code);
        return {m_recvIndex[code + rank - group.groupBase], 1};
    case TransferKind::NVLS_REDUCE:
        // The switch delivered the reduction once, for every rank's contribution: the
        // group's transfers are consecutive, and so are their places in the receive list.
        return {m_recvIndex[code], group.groupSize};
    case TransferKind::POINT_TO_POINT:
        break;
    }
    NS_ABORT_MSG_IF(group.dst != rank,
                    "CollectivePlan: rank " << rank << " received transfer " << code
                                            << ", planned for rank " << group.dst);
    return {m_recvIndex[code], 1};
}

uint32_t
CollectivePlan::GetTagIndexBits(uint32_t reservedBits) const
{
    if (m_source)
    {
        return m_source->GetTagIndexBits(reservedBits);
    }
    NS_ABORT_MSG_IF(m_transfers.size() > (1ULL << (TAG_BITS - reservedBits)),
                    "CollectivePlan: a plan of " << m_transfers.size() << " transfers; at most 2^"
                                                 << TAG_BITS - reservedBits << " fit in a tag");
    return 0; // the tag names the transfer
}

uint32_t
CollectivePlan::GetTagCodes() const
{
    return m_source ? m_source->GetTagCodes() : static_cast<uint32_t>(m_transfers.size());
}

std::vector<std::pair<uint32_t, uint32_t>>
CollectivePlan::GetConnections(uint32_t rank) const
{
    if (m_source)
    {
        return m_source->GetConnections(rank);
    }
    std::vector<std::pair<uint32_t, uint32_t>> connections;
    // NVLS transfers too: they tell the GPU transports their NVLink peers.
    for (uint32_t id : GetSends(rank))
    {
        connections.emplace_back(m_transfers[id].dst, m_transfers[id].channel);
    }
    return Unique(std::move(connections));
}

uint64_t
CollectivePlan::GetMemoryBytes() const
{
    uint64_t bytes = sizeof(*this) + m_transfers.capacity() * sizeof(CollectiveTransfer)
                     + m_deps.capacity() * sizeof(uint32_t)
                     + (m_sendIndex.capacity() + m_recvIndex.capacity()) * sizeof(uint32_t);
    for (const auto* lists : {&m_dependents, &m_sends, &m_receives})
    {
        bytes += lists->capacity() * sizeof(std::vector<uint32_t>);
        for (const auto& list : *lists)
        {
            bytes += list.capacity() * sizeof(uint32_t);
        }
    }
    return bytes + (m_source ? m_source->GetMemoryBytes() : 0);
}

Ptr<CollectivePlan>
CollectivePlan::Materialize() const
{
    return Ptr<CollectivePlan>(const_cast<CollectivePlan*>(this));
}

} // namespace ns3
