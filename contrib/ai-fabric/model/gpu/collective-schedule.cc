/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-schedule.h"

#include "collective-plan.h"
#include "ns3/abort.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

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

const char*
NcclProtocolName(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NCCL_SIMPLE:
        return "Simple";
    case NCCL_LL:
        return "LL";
    case NCCL_LL128:
        return "LL128";
    }
    return "unknown";
}

bool
ParseNcclProtocol(const std::string& name, NcclProtocol& protocol)
{
    std::string lower = name;
    std::transform(lower.begin(),
                   lower.end(),
                   lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (NcclProtocol p : {NCCL_SIMPLE, NCCL_LL, NCCL_LL128})
    {
        std::string known = NcclProtocolName(p);
        std::transform(known.begin(),
                       known.end(),
                       known.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (lower == known)
        {
            protocol = p;
            return true;
        }
    }
    return false;
}

CollectiveSchedule::CollectiveSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       std::string algorithm)
    : m_type(type)
    , m_nRanks(nRanks)
    , m_bytes(bytes)
    , m_algorithm(std::move(algorithm))
{
    NS_ABORT_MSG_IF(nRanks == 0, "CollectiveSchedule: no ranks");
}

CollectiveSchedule::~CollectiveSchedule() = default;

CollectiveType
CollectiveSchedule::GetType() const
{
    return m_type;
}

uint32_t
CollectiveSchedule::GetNRanks() const
{
    return m_nRanks;
}

uint64_t
CollectiveSchedule::GetBytes() const
{
    return m_bytes;
}

const std::string&
CollectiveSchedule::GetAlgorithm() const
{
    return m_algorithm;
}

void
CollectiveSchedule::SetProtocol(NcclProtocol protocol)
{
    m_protocol = protocol;
    m_hasProtocol = true;
}

bool
CollectiveSchedule::HasProtocol() const
{
    return m_hasProtocol;
}

NcclProtocol
CollectiveSchedule::GetProtocol() const
{
    return m_protocol;
}

void
CollectiveSchedule::SetTreeLatency(bool tree)
{
    m_treeLatency = tree;
}

bool
CollectiveSchedule::UsesTreeLatency() const
{
    return m_treeLatency;
}

void
CollectiveSchedule::SetPeerToPeer(bool p2p)
{
    m_peerToPeer = p2p;
}

bool
CollectiveSchedule::IsPeerToPeer() const
{
    return m_peerToPeer;
}

void
CollectiveSchedule::SetKernelCopy(double bytesPerSecond, std::vector<uint64_t> ownBytes)
{
    NS_ABORT_MSG_IF(bytesPerSecond < 0 || (!ownBytes.empty() && ownBytes.size() != m_nRanks),
                    "CollectiveSchedule: a negative copy rate, or own bytes not one per rank");
    m_copyRate = bytesPerSecond;
    m_ownBytes = std::move(ownBytes);
}

double
CollectiveSchedule::GetKernelCopyRate() const
{
    return m_copyRate;
}

uint64_t
CollectiveSchedule::GetKernelOwnBytes(uint32_t rank) const
{
    return rank < m_ownBytes.size() ? m_ownBytes[rank] : 0;
}

void
CollectiveSchedule::GetRecv(uint32_t rank,
                            uint32_t stream,
                            uint64_t index,
                            CollectiveTransfer& transfer) const
{
    const auto [src, sendStream] = GetRecvSource(rank, stream);
    GetSend(src, sendStream, index, m_recvScratch);
    transfer = m_recvScratch.transfer;
}

std::pair<uint32_t, uint32_t>
CollectiveSchedule::LocateRecv(uint32_t /* rank */, uint32_t code) const
{
    return {code, 1};
}

uint32_t
CollectiveSchedule::GetTagCodes() const
{
    uint32_t codes = 0;
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        codes = std::max(codes, GetNRecvStreams(r));
    }
    return codes;
}

uint32_t
CollectiveSchedule::GetTagIndexBits(uint32_t reservedBits) const
{
    if (m_tagCodeBits > TAG_BITS)
    {
        // Every rank asks at every run: the default counts every rank, so count once.
        uint32_t codeBits = 0;
        while ((1ULL << codeBits) < GetTagCodes())
        {
            ++codeBits;
        }
        m_tagCodeBits = codeBits;
    }
    NS_ABORT_MSG_IF(m_tagCodeBits + reservedBits + 8 > TAG_BITS,
                    "CollectiveSchedule: " << GetTagCodes() << " receive streams on a rank do not "
                                           << "fit a tag" << (reservedBits > 0 ? " beside " : "")
                                           << (reservedBits > 0 ? std::to_string(reservedBits) : "")
                                           << (reservedBits > 0 ? " bits of communicator id" : ""));
    return TAG_BITS - reservedBits - m_tagCodeBits;
}

uint32_t
CollectiveSchedule::MakeTag(const ScheduleMessage& message) const
{
    return MakeTag(message, GetTagIndexBits());
}

uint32_t
CollectiveSchedule::MakeTag(const ScheduleMessage& message, uint32_t indexBits) const
{
    const uint64_t mask = (1ULL << indexBits) - 1;
    return (message.tagCode << indexBits) | static_cast<uint32_t>(message.recvIndex & mask);
}

std::vector<std::pair<uint32_t, uint32_t>>
CollectiveSchedule::GetConnections(uint32_t rank) const
{
    std::vector<std::pair<uint32_t, uint32_t>> connections;
    ScheduleMessage m;
    for (uint32_t s = 0; s < GetNSendStreams(rank); ++s)
    {
        for (uint64_t i = 0; i < GetSendLength(rank, s); ++i)
        {
            GetSend(rank, s, i, m);
            const CollectiveTransfer& t = m.transfer;
            if (m.skip)
            {
                continue;
            }
            if (t.kind != TransferKind::NVLS_MULTICAST)
            {
                connections.emplace_back(t.dst, t.channel);
                continue;
            }
            for (uint32_t i = 0; i < t.groupSize; ++i)
            {
                connections.emplace_back(t.groupBase + i, t.channel);
            }
        }
    }
    return Unique(std::move(connections));
}

std::vector<std::pair<uint32_t, uint32_t>>
CollectiveSchedule::Unique(std::vector<std::pair<uint32_t, uint32_t>> connections)
{
    std::sort(connections.begin(), connections.end());
    connections.erase(std::unique(connections.begin(), connections.end()), connections.end());
    return connections;
}

uint64_t
CollectiveSchedule::GetBytesSent(uint32_t rank) const
{
    uint64_t total = 0;
    ScheduleMessage m;
    for (uint32_t s = 0; s < GetNSendStreams(rank); ++s)
    {
        for (uint64_t i = 0; i < GetSendLength(rank, s); ++i)
        {
            GetSend(rank, s, i, m);
            total += m.skip ? 0 : m.transfer.bytes;
        }
    }
    return total;
}

uint64_t
CollectiveSchedule::GetBytesReceived(uint32_t rank) const
{
    uint64_t total = 0;
    CollectiveTransfer t;
    for (uint32_t s = 0; s < GetNRecvStreams(rank); ++s)
    {
        for (uint64_t i = 0; i < GetRecvLength(rank, s); ++i)
        {
            GetRecv(rank, s, i, t);
            total += t.bytes;
        }
    }
    return total;
}

uint64_t
CollectiveSchedule::GetMemoryBytes() const
{
    return sizeof(*this) + m_algorithm.capacity();
}

Ptr<CollectivePlan>
CollectiveSchedule::Materialize() const
{
    const uint32_t n = GetNRanks();
    Ptr<CollectivePlan> plan = Create<CollectivePlan>(GetType(), n, GetBytes(), GetAlgorithm());
    if (HasProtocol())
    {
        plan->SetProtocol(GetProtocol());
    }
    plan->SetTreeLatency(UsesTreeLatency());
    plan->SetPeerToPeer(IsPeerToPeer());
    plan->SetKernelCopy(m_copyRate, m_ownBytes);
    // ids[r][j][i]: the plan's transfer that message i of rank r's receive stream j is.
    constexpr uint32_t NONE = UINT32_MAX;
    std::vector<std::vector<std::vector<uint32_t>>> ids(n);
    std::vector<std::vector<uint64_t>> cursor(n);
    std::vector<std::vector<bool>> waiting(n); // head handed to an incomplete NVLS reduction
    uint64_t remaining = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        ids[r].resize(GetNRecvStreams(r));
        for (uint32_t j = 0; j < ids[r].size(); ++j)
        {
            ids[r][j].assign(GetRecvLength(r, j), NONE);
        }
        cursor[r].assign(GetNSendStreams(r), 0);
        waiting[r].assign(GetNSendStreams(r), false);
        for (uint32_t s = 0; s < cursor[r].size(); ++s)
        {
            remaining += GetSendLength(r, s);
        }
    }
    /// A contribution to an NVLS reduction, waiting for the others.
    struct Contribution
    {
        uint32_t rank;               //!< contributor
        uint32_t stream;             //!< its send stream
        std::vector<uint32_t> deps;  //!< its dependencies, as plan ids
        CollectiveTransfer transfer; //!< the message
    };
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::vector<Contribution>> reductions;
    ScheduleMessage m;
    std::vector<uint32_t> deps;
    // Emit every message once all it depends on is emitted: ids follow dependencies.
    bool progress = true;
    while (remaining > 0 && progress)
    {
        progress = false;
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t s = 0; s < cursor[r].size(); ++s)
            {
                while (!waiting[r][s] && cursor[r][s] < GetSendLength(r, s))
                {
                    GetSend(r, s, cursor[r][s], m);
                    deps.clear();
                    bool ready = true;
                    for (const ScheduleDependency& d : m.deps)
                    {
                        for (uint64_t i = d.first; ready && i <= d.last; ++i)
                        {
                            const uint32_t id = ids[r].at(d.stream).at(i);
                            ready = id != NONE;
                            deps.push_back(id);
                        }
                    }
                    if (!ready)
                    {
                        break;
                    }
                    const CollectiveTransfer& t = m.transfer;
                    if (m.skip)
                    {
                        // Nothing of its own.
                    }
                    else if (t.kind == TransferKind::POINT_TO_POINT)
                    {
                        ids[t.dst].at(m.recvStream).at(m.recvIndex) = plan->AddTransfer(
                            r, t.dst, t.channel, t.bytes, t.step, t.reduce, deps);
                    }
                    else if (t.kind == TransferKind::NVLS_MULTICAST)
                    {
                        const uint32_t first = plan->AddNvlsMulticast(
                            r, t.channel, t.bytes, t.step, deps, t.groupBase, t.groupSize);
                        for (uint32_t i = 0; i < t.groupSize; ++i)
                        {
                            ids[t.groupBase + i].at(m.recvStream).at(m.recvIndex) = first + i;
                        }
                    }
                    else
                    {
                        auto& group = reductions[{t.dst, m.recvStream, m.recvIndex}];
                        group.push_back({r, s, deps, t});
                        if (group.size() < t.groupSize)
                        {
                            waiting[r][s] = true; // until every contributor is ready
                            progress = true;
                            break;
                        }
                        std::sort(group.begin(),
                                  group.end(),
                                  [](const auto& a, const auto& b) { return a.rank < b.rank; });
                        std::vector<std::vector<uint32_t>> groupDeps;
                        bool any = false;
                        for (const Contribution& c : group)
                        {
                            groupDeps.push_back(c.deps);
                            any = any || !c.deps.empty();
                        }
                        const uint32_t first = plan->AddNvlsReduce(
                            t.dst,
                            t.channel,
                            t.bytes,
                            t.step,
                            any ? groupDeps : std::vector<std::vector<uint32_t>>{},
                            t.groupBase,
                            t.groupSize);
                        ids[t.dst].at(m.recvStream).at(m.recvIndex) = first + t.dst - t.groupBase;
                        for (const Contribution& c : group)
                        {
                            if (c.rank != r || c.stream != s)
                            {
                                waiting[c.rank][c.stream] = false;
                                ++cursor[c.rank][c.stream];
                                --remaining;
                            }
                        }
                        reductions.erase({t.dst, m.recvStream, m.recvIndex});
                    }
                    ++cursor[r][s];
                    --remaining;
                    progress = true;
                }
            }
        }
    }
    NS_ABORT_MSG_IF(remaining > 0,
                    "CollectiveSchedule: " << GetAlgorithm() << " has " << remaining
                                           << " messages that wait for each other");
    plan->SetSource(this);
    plan->Finalize();
    return plan;
}

} // namespace ns3
