/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "step-schedule.h"

#include "collective-algorithm.h"
#include "ns3/abort.h"

namespace ns3
{

StepSchedule::StepSchedule(CollectiveType type,
                           uint32_t nRanks,
                           uint64_t bytes,
                           std::string algorithm,
                           uint32_t channels,
                           uint64_t chunkBytes,
                           uint32_t steps,
                           Wait wait)
    : CollectiveSchedule(type, nRanks, bytes, std::move(algorithm))
    , m_steps(steps)
    , m_wait(wait)
    , m_chunk(chunkBytes)
    , m_share(CollectiveAlgorithm::Split(bytes, channels))
{
}

uint64_t
StepSchedule::Part(uint64_t bytes, uint64_t n, uint64_t i)
{
    return bytes / n + (i < bytes % n ? 1 : 0);
}

uint32_t
StepSchedule::GetNChannels() const
{
    return static_cast<uint32_t>(m_share.size());
}

uint32_t
StepSchedule::GetNSteps() const
{
    return m_steps;
}

uint32_t
StepSchedule::GetNSendStreams(uint32_t /* rank */) const
{
    return GetNChannels() * m_steps;
}

uint64_t
StepSchedule::Pieces(uint32_t stream, uint32_t rank) const
{
    const uint64_t bytes = Bytes(m_share[stream / m_steps], rank, stream % m_steps);
    return CollectiveAlgorithm::Pieces(bytes, m_chunk);
}

uint64_t
StepSchedule::GetSendLength(uint32_t rank, uint32_t stream) const
{
    return Peer(rank, stream % m_steps) == NONE ? 0 : Pieces(stream, rank);
}

void
StepSchedule::GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const
{
    const uint32_t channel = stream / m_steps;
    const uint32_t step = stream % m_steps;
    const uint64_t bytes = Bytes(m_share[channel], rank, step);
    const uint64_t pieces = CollectiveAlgorithm::Pieces(bytes, m_chunk);
    CollectiveTransfer& t = m.transfer;
    t = CollectiveTransfer();
    t.src = rank;
    t.dst = Peer(rank, step);
    t.channel = channel;
    t.bytes = Part(bytes, pieces, index);
    t.step = step;
    t.reduce = Reduce(step);
    m.recvStream = stream;
    m.recvIndex = index;
    m.tagCode = stream;
    m.skip = false;
    m.deps.clear();
    if (step == 0 || m_wait == Wait::NOTHING)
    {
        return;
    }
    const uint64_t arrived = GetRecvLength(rank, stream - 1);
    if (arrived == 0)
    {
        return; // nothing arrived at this rank in the previous step
    }
    if (m_wait == Wait::PREVIOUS_STEP)
    {
        m.deps.push_back({stream - 1, 0, arrived - 1});
    }
    else
    {
        NS_ABORT_MSG_IF(index >= arrived,
                        "StepSchedule: piece " << index << " of step " << step
                                               << " never arrived at rank " << rank);
        m.deps.push_back({stream - 1, index, index});
    }
}

uint32_t
StepSchedule::GetNRecvStreams(uint32_t /* rank */) const
{
    return GetNChannels() * m_steps;
}

uint64_t
StepSchedule::GetRecvLength(uint32_t rank, uint32_t stream) const
{
    const uint32_t sender = Sender(rank, stream % m_steps);
    return sender == NONE ? 0 : Pieces(stream, sender);
}

std::pair<uint32_t, uint32_t>
StepSchedule::GetRecvSource(uint32_t rank, uint32_t stream) const
{
    const uint32_t sender = Sender(rank, stream % m_steps);
    NS_ABORT_MSG_IF(sender == NONE,
                    "StepSchedule: nobody sends to rank " << rank << " on stream " << stream);
    return {sender, stream};
}

uint32_t
StepSchedule::GetTagCodes() const
{
    return GetNChannels() * m_steps;
}

uint64_t
StepSchedule::GetMemoryBytes() const
{
    return CollectiveSchedule::GetMemoryBytes() + sizeof(*this) - sizeof(CollectiveSchedule)
           + m_share.capacity() * sizeof(uint64_t);
}

} // namespace ns3
