/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);
NS_OBJECT_ENSURE_REGISTERED(RingAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

std::vector<uint64_t>
CollectiveAlgorithm::Split(uint64_t bytes, uint64_t n)
{
    NS_ABORT_MSG_IF(n == 0, "CollectiveAlgorithm: split into zero parts");
    std::vector<uint64_t> parts(n, bytes / n);
    for (uint64_t i = 0; i < bytes % n; ++i)
    {
        ++parts[i];
    }
    return parts;
}

uint64_t
CollectiveAlgorithm::Pieces(uint64_t bytes, uint64_t chunkBytes)
{
    return bytes <= chunkBytes ? 1 : (bytes + chunkBytes - 1) / chunkBytes;
}

namespace
{
/// The schedule of a collective that moves nothing (one rank, or zero bytes): NCCL returns at
/// once for a count of zero.
class EmptySchedule : public CollectiveSchedule
{
  public:
    using CollectiveSchedule::CollectiveSchedule;

    uint32_t GetNChannels() const override
    {
        return 0;
    }

    uint32_t GetNSteps() const override
    {
        return 0;
    }

    uint32_t GetNSendStreams(uint32_t /* rank */) const override
    {
        return 0;
    }

    uint64_t GetSendLength(uint32_t /* rank */, uint32_t /* stream */) const override
    {
        return 0;
    }

    void GetSend(uint32_t rank,
                 uint32_t stream,
                 uint64_t /* index */,
                 ScheduleMessage& /* message */) const override
    {
        NS_FATAL_ERROR("EmptySchedule: rank " << rank << " has no send stream " << stream);
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return 0;
    }

    uint64_t GetRecvLength(uint32_t /* rank */, uint32_t /* stream */) const override
    {
        return 0;
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        NS_FATAL_ERROR("EmptySchedule: rank " << rank << " has no receive stream " << stream);
    }

    Ptr<CollectivePlan> Materialize() const override
    {
        Ptr<CollectivePlan> plan
            = Create<CollectivePlan>(GetType(), GetNRanks(), GetBytes(), GetAlgorithm());
        if (HasProtocol())
        {
            plan->SetProtocol(GetProtocol());
        }
        plan->SetTreeLatency(UsesTreeLatency());
        plan->Finalize();
        return plan;
    }
};

/// Ring: one send and one receive stream per channel and rank; message i is (step i / pieces,
/// piece i % pieces).
class RingSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param type the collective
     * \param n ranks
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     * \param gpusPerServer NCCL's server-aware ring order (0: ranks in order)
     */
    RingSchedule(CollectiveType type,
                 uint32_t n,
                 uint64_t bytes,
                 uint32_t channels,
                 uint64_t chunkBytes,
                 uint32_t gpusPerServer)
        : CollectiveSchedule(type, n, bytes, "ring")
        , m_reduceSteps(type == CollectiveType::ALL_GATHER ? 0 : n - 1)
        , m_steps(m_reduceSteps + (type == CollectiveType::REDUCE_SCATTER ? 0 : n - 1))
        , m_channels(channels)
    {
        m_order.reserve(static_cast<std::size_t>(n) * channels);
        m_position.resize(static_cast<std::size_t>(n) * channels);
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(bytes, channels);
        for (uint32_t c = 0; c < channels; ++c)
        {
            const std::vector<uint32_t> order = RingAlgorithm::RingOrder(n, gpusPerServer, c);
            for (uint32_t p = 0; p < n; ++p)
            {
                m_order.push_back(order[p]);
                m_position[static_cast<std::size_t>(c) * n + order[p]] = p;
            }
            Channel ch;
            ch.bytes = shares[c];
            // Every part moves in the same number of pieces (the largest part's).
            ch.pieces
                = CollectiveAlgorithm::Pieces(shares[c] / n + (shares[c] % n ? 1 : 0), chunkBytes);
            m_channel.push_back(ch);
        }
    }

    uint32_t GetNChannels() const override
    {
        return m_channels;
    }

    uint32_t GetNSteps() const override
    {
        return m_steps;
    }

    uint32_t GetNSendStreams(uint32_t /* rank */) const override
    {
        return m_channels;
    }

    uint64_t GetSendLength(uint32_t /* rank */, uint32_t stream) const override
    {
        return m_steps * m_channel[stream].pieces;
    }

    void GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const override
    {
        const uint32_t n = GetNRanks();
        const Channel& ch = m_channel[stream];
        const auto step = static_cast<uint32_t>(index / ch.pieces);
        const uint64_t piece = index % ch.pieces;
        const uint32_t p = Position(stream, rank);
        const uint32_t part = (p + n - step % n) % n;
        const uint64_t partBytes = ch.bytes / n + (part < ch.bytes % n ? 1 : 0);
        CollectiveTransfer& t = m.transfer;
        t = CollectiveTransfer();
        t.src = rank;
        t.dst = Order(stream, (p + 1) % n);
        t.channel = stream;
        t.bytes = partBytes / ch.pieces + (piece < partBytes % ch.pieces ? 1 : 0);
        t.step = step;
        t.reduce = step < m_reduceSteps;
        m.recvStream = stream;
        m.recvIndex = index;
        m.tagCode = stream;
        m.skip = false;
        m.deps.clear();
        if (step > 0)
        {
            m.deps.push_back({stream, index - ch.pieces, index - ch.pieces});
        }
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return m_channels;
    }

    uint64_t GetRecvLength(uint32_t /* rank */, uint32_t stream) const override
    {
        return m_steps * m_channel[stream].pieces;
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        const uint32_t n = GetNRanks();
        return {Order(stream, (Position(stream, rank) + n - 1) % n), stream};
    }

    std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const override
    {
        std::vector<std::pair<uint32_t, uint32_t>> connections;
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            connections.emplace_back(Order(c, (Position(c, rank) + 1) % GetNRanks()), c);
        }
        return connections;
    }

    uint64_t GetMemoryBytes() const override
    {
        return CollectiveSchedule::GetMemoryBytes() + sizeof(*this) - sizeof(CollectiveSchedule)
               + m_order.capacity() * sizeof(uint32_t) + m_position.capacity() * sizeof(uint32_t)
               + m_channel.capacity() * sizeof(Channel);
    }

  private:
    /// A channel's share.
    struct Channel
    {
        uint64_t bytes{0};  //!< the channel's bytes
        uint64_t pieces{1}; //!< pieces every part moves in
    };

    /**
     * \param c channel
     * \param p ring position
     * \return the rank at that position
     */
    uint32_t Order(uint32_t c, uint32_t p) const
    {
        return m_order[static_cast<std::size_t>(c) * GetNRanks() + p];
    }

    /**
     * \param c channel
     * \param r rank
     * \return its ring position
     */
    uint32_t Position(uint32_t c, uint32_t r) const
    {
        return m_position[static_cast<std::size_t>(c) * GetNRanks() + r];
    }

    uint32_t m_reduceSteps;           //!< reduce-scatter steps (they come first)
    uint32_t m_steps;                 //!< all steps
    uint32_t m_channels;              //!< channels
    std::vector<uint32_t> m_order;    //!< by channel, position: rank
    std::vector<uint32_t> m_position; //!< by channel, rank: position
    std::vector<Channel> m_channel;   //!< by channel
};
} // namespace

Ptr<CollectiveSchedule>
CollectiveAlgorithm::Schedule(CollectiveType type,
                              uint32_t nRanks,
                              uint64_t bytes,
                              uint32_t channels,
                              uint64_t chunkBytes) const
{
    NS_ABORT_MSG_IF(!Supports(type, nRanks),
                    "CollectiveAlgorithm " << GetName() << " does not run "
                                           << CollectiveTypeName(type) << " on " << nRanks
                                           << " ranks");
    NS_ABORT_MSG_IF(channels == 0 || chunkBytes == 0,
                    "CollectiveAlgorithm: channels and chunk size must be positive");
    // A collective of zero bytes moves nothing: NCCL returns at once for a count of zero.
    if (nRanks <= 1 || bytes == 0)
    {
        return Create<EmptySchedule>(type, nRanks, bytes, GetName());
    }
    Ptr<CollectiveSchedule> schedule = DoSchedule(type, nRanks, bytes, channels, chunkBytes);
    schedule->SetTreeLatency(UsesTreeLatency());
    return schedule;
}

Ptr<CollectivePlan>
CollectiveAlgorithm::Build(CollectiveType type,
                           uint32_t nRanks,
                           uint64_t bytes,
                           uint32_t channels,
                           uint64_t chunkBytes) const
{
    return Schedule(type, nRanks, bytes, channels, chunkBytes)->Materialize();
}

Ptr<CollectiveSchedule>
CollectiveAlgorithm::DoSchedule(CollectiveType type,
                                uint32_t nRanks,
                                uint64_t bytes,
                                uint32_t channels,
                                uint64_t chunkBytes) const
{
    Ptr<CollectivePlan> plan = Create<CollectivePlan>(type, nRanks, bytes, GetName());
    const std::vector<uint64_t> shares = Split(bytes, channels);
    for (uint32_t c = 0; c < channels; ++c)
    {
        DoBuild(*plan, c, shares[c], chunkBytes);
    }
    plan->Finalize();
    return plan;
}

void
CollectiveAlgorithm::DoBuild(CollectivePlan& /* plan */,
                             uint32_t /* channel */,
                             uint64_t /* bytes */,
                             uint64_t /* chunkBytes */) const
{
    NS_FATAL_ERROR("CollectiveAlgorithm " << GetName() << ": neither DoSchedule nor DoBuild");
}

bool
CollectiveAlgorithm::SupportsProtocol(NcclProtocol /* protocol */) const
{
    return true;
}

bool
CollectiveAlgorithm::UsesTreeLatency() const
{
    return false;
}

bool
CollectiveAlgorithm::FitsSystem(const CollectiveSystem& /* system */) const
{
    return true;
}

void
CollectiveAlgorithm::Configure(uint32_t /* nRanks */, const CollectiveSystem& /* system */)
{
}

Ptr<CollectiveAlgorithm>
CollectiveAlgorithm::CreateByName(const std::string& name,
                                  CollectiveType type,
                                  uint32_t nRanks,
                                  std::string& error)
{
    bool known = false;
    for (const CollectiveAlgorithmRegistration::Entry& e : CollectiveAlgorithmRegistration::List())
    {
        known = known || name == e.name;
        if (name != e.name || type != e.type)
        {
            continue;
        }
        ObjectFactory factory;
        factory.SetTypeId(e.typeId);
        Ptr<CollectiveAlgorithm> algorithm = factory.Create<CollectiveAlgorithm>();
        if (!algorithm->Supports(type, nRanks))
        {
            error = "--algo=" + name + " does not run " + CollectiveTypeName(type) + " on "
                    + std::to_string(nRanks) + " ranks";
            return nullptr;
        }
        return algorithm;
    }
    error = known ? "--algo=" + name + " does not run " + CollectiveTypeName(type)
                  : "--algo=" + name + ": unknown algorithm";
    return nullptr;
}

// ---------------------------------------------------------------- registry

CollectiveAlgorithmRegistration::CollectiveAlgorithmRegistration(
    const std::string& name,
    const std::vector<CollectiveType>& types,
    TypeId (*typeId)(),
    bool autoCandidate,
    uint32_t order)
{
    std::vector<Entry>& registry = Registry();
    for (CollectiveType type : types)
    {
        for (const Entry& e : registry)
        {
            NS_ABORT_MSG_IF(e.name == name && e.type == type,
                            "CollectiveAlgorithmRegistration: '" << name
                                                                 << "' is registered twice for "
                                                                 << CollectiveTypeName(type));
        }
        // Keep the registry by order, in registration order within one order.
        auto it = std::upper_bound(registry.begin(),
                                   registry.end(),
                                   order,
                                   [](uint32_t o, const Entry& e) { return o < e.order; });
        registry.insert(it, Entry{name, type, typeId(), autoCandidate, order});
    }
}

std::vector<CollectiveAlgorithmRegistration::Entry>&
CollectiveAlgorithmRegistration::Registry()
{
    static std::vector<Entry> registry;
    return registry;
}

const std::vector<CollectiveAlgorithmRegistration::Entry>&
CollectiveAlgorithmRegistration::List()
{
    return Registry();
}

std::vector<std::string>
CollectiveAlgorithmRegistration::Names()
{
    std::vector<std::string> names;
    for (const Entry& e : Registry())
    {
        if (std::find(names.begin(), names.end(), e.name) == names.end())
        {
            names.push_back(e.name);
        }
    }
    return names;
}

// ---------------------------------------------------------------- ring

TypeId
RingAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RingAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<RingAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server: with more than one, each channel's ring follows "
                            "NCCL's server-aware order (RingOrder). 0 (the default): ranks in "
                            "order.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RingAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

std::vector<uint32_t>
RingAlgorithm::RingOrder(uint32_t n, uint32_t g, uint32_t channel)
{
    std::vector<uint32_t> order(n);
    if (g <= 1 || n % g != 0)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            order[r] = r;
        }
        return order;
    }
    const uint32_t c = channel % g;
    for (uint32_t server = 0; server < n / g; ++server)
    {
        for (uint32_t i = 0; i < g; ++i)
        {
            const uint32_t local = server % 2 == 0 ? (c + i) % g : (c + g - 1 - i) % g;
            order[server * g + i] = server * g + local;
        }
    }
    return order;
}

std::string
RingAlgorithm::GetName() const
{
    return "ring";
}

bool
RingAlgorithm::Supports(CollectiveType type, uint32_t /* nRanks */) const
{
    return type == CollectiveType::ALL_REDUCE || type == CollectiveType::ALL_GATHER
           || type == CollectiveType::REDUCE_SCATTER;
}

Time
RingAlgorithm::Predict(CollectiveType type,
                       uint32_t nRanks,
                       uint64_t bytes,
                       const CollectiveSystem& system) const
{
    const double n = nRanks;
    const double s = static_cast<double>(bytes);
    if (system.servers == 1 && type == CollectiveType::ALL_REDUCE)
    {
        // One server: the whole ring on NVLink.
        const double nvBeta = 8.0 / system.nvRate.GetBitRate() / system.nvRingEfficiency;
        return Seconds(2 * (n - 1) * system.nvAlpha.GetSeconds() + 2 * (n - 1) / n * s * nvBeta);
    }
    const double alpha = system.alpha.GetSeconds();
    if (type == CollectiveType::ALL_REDUCE)
    {
        return Seconds(2 * (n - 1) * alpha + 2 * (n - 1) / n * s * system.beta);
    }
    return Seconds((n - 1) * alpha + (n - 1) / n * s * system.beta); // all-gather, reduce-scatter
}

void
RingAlgorithm::Configure(uint32_t /* nRanks */, const CollectiveSystem& system)
{
    if (system.serverAwareRing && system.gpusPerServer > 1)
    {
        m_gpusPerServer = system.gpusPerServer;
    }
}

Ptr<CollectiveSchedule>
RingAlgorithm::DoSchedule(CollectiveType type,
                          uint32_t nRanks,
                          uint64_t bytes,
                          uint32_t channels,
                          uint64_t chunkBytes) const
{
    return Create<RingSchedule>(type, nRanks, bytes, channels, chunkBytes, m_gpusPerServer);
}

static CollectiveAlgorithmRegistration g_ring("ring",
                                              {CollectiveType::ALL_REDUCE,
                                               CollectiveType::ALL_GATHER,
                                               CollectiveType::REDUCE_SCATTER},
                                              &RingAlgorithm::GetTypeId,
                                              true,
                                              10);

} // namespace ns3
