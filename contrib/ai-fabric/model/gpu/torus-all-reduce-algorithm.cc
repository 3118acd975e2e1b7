/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "torus-all-reduce-algorithm.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/string.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TorusAllReduceAlgorithm);

TypeId
TorusAllReduceAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::TorusAllReduceAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<TorusAllReduceAlgorithm>()
              .AddAttribute("Dims",
                            "The rank grid, sizes joined by 'x' (\"4x4x4\"), X fastest; their "
                            "product is the number of ranks. Empty (the default): the "
                            "squarest 2D grid of the ranks.",
                            StringValue(""),
                            MakeStringAccessor(&TorusAllReduceAlgorithm::SetDims,
                                               &TorusAllReduceAlgorithm::GetDims),
                            MakeStringChecker())
              .AddAttribute("RotateDimensions",
                            "Channel c starts at dimension c mod k (k dimensions), so that "
                            "channels use every dimension's links at once. Default true.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&TorusAllReduceAlgorithm::m_rotate),
                            MakeBooleanChecker());
    return tid;
}

std::string
TorusAllReduceAlgorithm::GetName() const
{
    return "torus";
}

bool
TorusAllReduceAlgorithm::ParseDims(const std::string& text, std::vector<uint32_t>& dims)
{
    dims.clear();
    if (text.empty())
    {
        return true;
    }
    std::size_t start = 0;
    while (true)
    {
        const std::size_t x = text.find('x', start);
        const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
        if (part.empty() || part.size() > 6
            || part.find_first_not_of("0123456789") != std::string::npos)
        {
            return false;
        }
        const uint32_t v = static_cast<uint32_t>(std::stoul(part));
        if (v == 0)
        {
            return false;
        }
        dims.push_back(v);
        if (x == std::string::npos)
        {
            break;
        }
        start = x + 1;
    }
    return dims.size() <= 4;
}

void
TorusAllReduceAlgorithm::SetDims(std::string text)
{
    std::vector<uint32_t> dims;
    NS_ABORT_MSG_IF(!ParseDims(text, dims),
                    "TorusAllReduceAlgorithm: Dims=" << text << " is not 1 to 4 sizes like 4x4");
    m_dims = dims;
}

std::string
TorusAllReduceAlgorithm::GetDims() const
{
    std::string text;
    for (std::size_t i = 0; i < m_dims.size(); ++i)
    {
        text += (i == 0 ? "" : "x") + std::to_string(m_dims[i]);
    }
    return text;
}

std::vector<uint32_t>
TorusAllReduceAlgorithm::GetShape(uint32_t nRanks) const
{
    std::vector<uint32_t> dims = m_dims;
    if (dims.empty())
    {
        uint32_t a = 1;
        for (uint32_t f = 1; static_cast<uint64_t>(f) * f <= nRanks; ++f)
        {
            if (nRanks % f == 0)
            {
                a = f;
            }
        }
        dims = {nRanks / a, a};
    }
    std::vector<uint32_t> shape;
    for (uint32_t d : dims)
    {
        if (d > 1)
        {
            shape.push_back(d);
        }
    }
    return shape;
}

bool
TorusAllReduceAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    if (type != CollectiveType::ALL_REDUCE && type != CollectiveType::ALL_GATHER
        && type != CollectiveType::REDUCE_SCATTER)
    {
        return false;
    }
    uint64_t product = 1;
    for (uint32_t d : m_dims)
    {
        product *= d;
    }
    return nRanks >= 2 && (m_dims.empty() || product == nRanks);
}

namespace
{
/// The multi-dimensional all-reduce: per channel, one ring phase per dimension and direction,
/// each a send stream to the next rank along its dimension and a receive stream from the
/// previous one; message i of a phase is (step i / pieces, piece i % pieces).
class TorusSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param type the collective
     * \param n ranks
     * \param shape the grid (the first dimension fastest)
     * \param rotate rotate the dimension order per channel
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     */
    TorusSchedule(CollectiveType type,
                  uint32_t n,
                  std::vector<uint32_t> shape,
                  bool rotate,
                  uint64_t bytes,
                  uint32_t channels,
                  uint64_t chunkBytes)
        : CollectiveSchedule(type, n, bytes, "torus")
        , m_shape(std::move(shape))
        , m_channels(channels)
    {
        const auto k = static_cast<uint32_t>(m_shape.size());
        uint32_t stride = 1;
        for (uint32_t d = 0; d < k; ++d)
        {
            m_stride.push_back(stride);
            stride *= m_shape[d];
        }
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(bytes, channels);
        for (uint32_t c = 0; c < channels; ++c)
        {
            Channel ch;
            ch.bytes = shares[c];
            for (uint32_t j = 0; j < k; ++j)
            {
                ch.order.push_back(((rotate ? c : 0) + j) % k);
            }
            // Level j blocks hold size[j] atoms of the n.
            ch.size.assign(k + 1, n);
            for (uint32_t j = 0; j < k; ++j)
            {
                ch.size[j + 1] = ch.size[j] / m_shape[ch.order[j]];
            }
            m_channel.push_back(std::move(ch));
            std::vector<std::pair<uint32_t, bool>> phases;
            if (type != CollectiveType::ALL_GATHER)
            {
                for (uint32_t j = 0; j < k; ++j)
                {
                    phases.emplace_back(j, true);
                }
            }
            if (type != CollectiveType::REDUCE_SCATTER)
            {
                for (uint32_t j = k; j-- > 0;)
                {
                    phases.emplace_back(j, false);
                }
            }
            m_phases = static_cast<uint32_t>(phases.size());
            uint32_t step = 0;
            int32_t previous = -1;
            for (const auto& [j, reduce] : phases)
            {
                const Channel& chan = m_channel.back();
                Phase ph;
                ph.level = j;
                ph.dim = chan.order[j];
                ph.reduce = reduce;
                ph.step = step;
                ph.previous = previous;
                // Every part moves in as many pieces as the largest part (rank 0's blocks).
                const uint32_t sub = chan.size[j + 1];
                uint64_t largest = 0;
                for (uint32_t part = 0; part < m_shape[ph.dim]; ++part)
                {
                    const uint32_t start = Base(chan, 0, j) + part * sub;
                    largest = std::max(largest, Prefix(chan, start + sub) - Prefix(chan, start));
                }
                ph.pieces = CollectiveAlgorithm::Pieces(largest, chunkBytes);
                step += m_shape[ph.dim] - 1;
                if (m_shape[ph.dim] > 1)
                {
                    // A phase along a dimension of one rank moves nothing: the next waits for
                    // the one before it.
                    previous = static_cast<int32_t>(m_phase.size());
                }
                m_phase.push_back(ph);
            }
            m_steps = std::max(m_steps, step);
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
        return m_channels * m_phases;
    }

    uint64_t GetSendLength(uint32_t /* rank */, uint32_t stream) const override
    {
        const Phase& ph = m_phase[stream];
        return static_cast<uint64_t>(m_shape[ph.dim] - 1) * ph.pieces;
    }

    void GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const override
    {
        const uint32_t c = stream / m_phases;
        const Channel& ch = m_channel[c];
        const Phase& ph = m_phase[stream];
        const uint32_t size = m_shape[ph.dim];
        const auto t = static_cast<uint32_t>(index / ph.pieces);
        const uint64_t q = index % ph.pieces;
        const uint32_t p = Coord(rank, ph.dim);
        const uint32_t part = ph.reduce ? (p + size - t) % size : (p + 1 + size - t) % size;
        const uint32_t sub = ch.size[ph.level + 1];
        const uint32_t start = Base(ch, rank, ph.level) + part * sub;
        const uint64_t block = Prefix(ch, start + sub) - Prefix(ch, start);
        CollectiveTransfer& tr = m.transfer;
        tr = CollectiveTransfer();
        tr.src = rank;
        tr.dst = Along(rank, ph.dim, 1);
        tr.channel = c;
        tr.bytes = block / ph.pieces + (q < block % ph.pieces ? 1 : 0);
        tr.step = ph.step + t;
        tr.reduce = ph.reduce;
        m.recvStream = stream;
        m.recvIndex = index;
        m.tagCode = stream;
        m.skip = false;
        m.deps.clear();
        if (t > 0)
        {
            // Piece by piece, as the ring.
            m.deps.push_back({stream, index - ph.pieces, index - ph.pieces});
        }
        else if (ph.previous >= 0)
        {
            // At the phase's start: after all that arrived in the previous phase's last step.
            const auto prevStream = static_cast<uint32_t>(ph.previous);
            const uint64_t length = GetSendLength(rank, prevStream);
            const uint64_t pieces = m_phase[prevStream].pieces;
            m.deps.push_back({prevStream, length - pieces, length - 1});
        }
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return m_channels * m_phases;
    }

    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override
    {
        return GetSendLength(rank, stream);
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        return {Along(rank, m_phase[stream].dim, m_shape[m_phase[stream].dim] - 1), stream};
    }

    std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const override
    {
        std::vector<std::pair<uint32_t, uint32_t>> connections;
        for (uint32_t s = 0; s < m_phase.size(); ++s)
        {
            if (GetSendLength(rank, s) > 0)
            {
                connections.emplace_back(Along(rank, m_phase[s].dim, 1), s / m_phases);
            }
        }
        return Unique(std::move(connections));
    }

    uint64_t GetMemoryBytes() const override
    {
        uint64_t bytes
            = CollectiveSchedule::GetMemoryBytes() + sizeof(*this) - sizeof(CollectiveSchedule)
              + (m_shape.capacity() + m_stride.capacity()) * sizeof(uint32_t)
              + m_phase.capacity() * sizeof(Phase) + m_channel.capacity() * sizeof(Channel);
        for (const Channel& ch : m_channel)
        {
            bytes += (ch.order.capacity() + ch.size.capacity()) * sizeof(uint32_t);
        }
        return bytes;
    }

  private:
    /// A channel's share and dimension order.
    struct Channel
    {
        uint64_t bytes{0};           //!< the channel's bytes (n atoms)
        std::vector<uint32_t> order; //!< dimensions in the order of the reduce phases
        std::vector<uint32_t> size;  //!< atoms in a block of each level
    };

    /// One ring phase of a channel.
    struct Phase
    {
        uint32_t level{0};    //!< its place in the channel's order
        uint32_t dim{0};      //!< its dimension
        bool reduce{false};   //!< reduce-scatter (true) or all-gather
        uint32_t step{0};     //!< its first step
        uint64_t pieces{1};   //!< pieces every part moves in
        int32_t previous{-1}; //!< the stream of its channel before it that moves data
    };

    /**
     * \param r a rank
     * \param d a dimension
     * \return its coordinate
     */
    uint32_t Coord(uint32_t r, uint32_t d) const
    {
        return r / m_stride[d] % m_shape[d];
    }

    /**
     * \param r a rank
     * \param d a dimension
     * \param hops hops forward along it
     * \return the rank there (wrapping around)
     */
    uint32_t Along(uint32_t r, uint32_t d, uint32_t hops) const
    {
        const uint32_t c = Coord(r, d);
        return r - c * m_stride[d] + ((c + hops) % m_shape[d]) * m_stride[d];
    }

    /**
     * \param ch a channel
     * \param a an atom
     * \return bytes of atoms 0 .. a - 1
     */
    uint64_t Prefix(const Channel& ch, uint32_t a) const
    {
        const uint32_t n = GetNRanks();
        return a * (ch.bytes / n) + std::min<uint64_t>(a, ch.bytes % n);
    }

    /**
     * \param ch a channel
     * \param r a rank
     * \param level a level
     * \return the first atom of the block r holds at that level (after the ring
     *         reduce-scatter, position p holds part (p + 1) mod D)
     */
    uint32_t Base(const Channel& ch, uint32_t r, uint32_t level) const
    {
        uint32_t base = 0;
        for (uint32_t j = 0; j < level; ++j)
        {
            const uint32_t d = ch.order[j];
            base += ((Coord(r, d) + 1) % m_shape[d]) * ch.size[j + 1];
        }
        return base;
    }

    std::vector<uint32_t> m_shape;  //!< the grid
    std::vector<uint32_t> m_stride; //!< by dimension: rank stride
    uint32_t m_channels;            //!< channels
    uint32_t m_phases{0};           //!< phases per channel
    uint32_t m_steps{0};            //!< steps of a channel
    std::vector<Channel> m_channel; //!< by channel
    std::vector<Phase> m_phase;     //!< by channel x phases + phase
};
} // namespace

Ptr<CollectiveSchedule>
TorusAllReduceAlgorithm::DoSchedule(CollectiveType type,
                                    uint32_t nRanks,
                                    uint64_t bytes,
                                    uint32_t channels,
                                    uint64_t chunkBytes) const
{
    return Create<TorusSchedule>(
        type, nRanks, GetShape(nRanks), m_rotate, bytes, channels, chunkBytes);
}

Time
TorusAllReduceAlgorithm::Predict(CollectiveType type,
                                 uint32_t nRanks,
                                 uint64_t bytes,
                                 const CollectiveSystem& system) const
{
    // A ring phase of D - 1 steps per dimension of size D and direction; in all, the flat
    // ring's bytes: (n - 1) / n of the buffer per direction.
    double steps = 0;
    for (uint32_t d : GetShape(nRanks))
    {
        steps += d - 1;
    }
    const double n = nRanks;
    const double directions = type == CollectiveType::ALL_REDUCE ? 2 : 1;
    return Seconds(directions
                   * (steps * system.alpha.GetSeconds()
                      + (n - 1) / n * static_cast<double>(bytes) * system.beta));
}

void
TorusAllReduceAlgorithm::Configure(uint32_t /* nRanks */, const CollectiveSystem& system)
{
    if (!system.torusDims.empty())
    {
        SetDims(system.torusDims);
    }
}

static CollectiveAlgorithmRegistration g_torus("torus",
                                               {CollectiveType::ALL_REDUCE,
                                                CollectiveType::ALL_GATHER,
                                                CollectiveType::REDUCE_SCATTER},
                                               &TorusAllReduceAlgorithm::GetTypeId,
                                               false,
                                               100);

} // namespace ns3
