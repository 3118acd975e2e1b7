/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "chain-broadcast-algorithm.h"

#include "ns3/abort.h"
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

namespace
{
/// The chain: rank i sends every piece of each channel to rank i + 1 (step i).
class ChainSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param n ranks
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     */
    ChainSchedule(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
        : CollectiveSchedule(CollectiveType::BROADCAST, n, bytes, "chain")
        , m_share(CollectiveAlgorithm::Split(bytes, channels))
        , m_chunk(chunkBytes)
    {
    }

    uint32_t GetNChannels() const override
    {
        return static_cast<uint32_t>(m_share.size());
    }

    uint32_t GetNSteps() const override
    {
        return GetNRanks() - 1;
    }

    uint32_t GetNSendStreams(uint32_t /* rank */) const override
    {
        return GetNChannels();
    }

    uint64_t GetSendLength(uint32_t rank, uint32_t stream) const override
    {
        return rank + 1 < GetNRanks() ? Pieces(stream) : 0;
    }

    void GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const override
    {
        const uint64_t pieces = Pieces(stream);
        const uint64_t share = m_share[stream];
        CollectiveTransfer& t = m.transfer;
        t = CollectiveTransfer();
        t.src = rank;
        t.dst = rank + 1;
        t.channel = stream;
        t.bytes = share / pieces + (index < share % pieces ? 1 : 0);
        t.step = rank;
        m.recvStream = stream;
        m.recvIndex = index;
        m.tagCode = stream;
        m.skip = false;
        m.deps.clear();
        if (rank > 0)
        {
            m.deps.push_back({stream, index, index}); // the piece arrived here
        }
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return GetNChannels();
    }

    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override
    {
        return rank > 0 ? Pieces(stream) : 0;
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        NS_ABORT_MSG_IF(rank == 0, "ChainBroadcastAlgorithm: nothing arrives at the root");
        return {rank - 1, stream};
    }

    uint64_t GetMemoryBytes() const override
    {
        return CollectiveSchedule::GetMemoryBytes() + sizeof(*this) - sizeof(CollectiveSchedule)
               + m_share.capacity() * sizeof(uint64_t);
    }

  private:
    /**
     * \param channel a channel
     * \return pieces its share moves in
     */
    uint64_t Pieces(uint32_t channel) const
    {
        return CollectiveAlgorithm::Pieces(m_share[channel], m_chunk);
    }

    std::vector<uint64_t> m_share; //!< by channel: its bytes
    uint64_t m_chunk;              //!< the pipelining unit
};
} // namespace

Ptr<CollectiveSchedule>
ChainBroadcastAlgorithm::DoSchedule(CollectiveType /* type */,
                                    uint32_t nRanks,
                                    uint64_t bytes,
                                    uint32_t channels,
                                    uint64_t chunkBytes) const
{
    return Create<ChainSchedule>(nRanks, bytes, channels, chunkBytes);
}

Time
ChainBroadcastAlgorithm::Predict(CollectiveType /* type */,
                                 uint32_t nRanks,
                                 uint64_t bytes,
                                 const CollectiveSystem& system) const
{
    // A pipelined chain: n - 1 hops, the whole buffer through every link once.
    const double n = nRanks;
    return Seconds((n - 1) * system.alpha.GetSeconds() + static_cast<double>(bytes) * system.beta);
}

// NCCL's ring broadcast is this chain; "chain" names it on its own.
static CollectiveAlgorithmRegistration g_ringBroadcast(
    "ring", {CollectiveType::BROADCAST}, &ChainBroadcastAlgorithm::GetTypeId, true, 10);
static CollectiveAlgorithmRegistration g_chain(
    "chain", {CollectiveType::BROADCAST}, &ChainBroadcastAlgorithm::GetTypeId, false, 20);

} // namespace ns3
