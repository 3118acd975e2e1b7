/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvls-tree-algorithm.h"

#include "double-binary-tree-algorithm.h"
#include "ns3/abort.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsTreeAlgorithm);

TypeId
NvlsTreeAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvlsTreeAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvlsTreeAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server, each server one NVLink domain (ranks are "
                            "server-major); 0 (the default): all ranks in one server.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&NvlsTreeAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PiecesInFlight",
                            "Pieces of a tree in flight: a GPU contributes to piece k once the "
                            "multicast of piece k - PiecesInFlight has reached it. Default 8.",
                            UintegerValue(8),
                            MakeUintegerAccessor(&NvlsTreeAlgorithm::m_window),
                            MakeUintegerChecker<uint32_t>(1));
    return tid;
}

std::string
NvlsTreeAlgorithm::GetName() const
{
    return "nvlstree";
}

bool
NvlsTreeAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2
           && (m_gpusPerServer == 0 || nRanks % m_gpusPerServer == 0);
}

namespace
{
/// NVLSTree. Per channel and tree, a GPU's send streams are: 0 its contributions to its
/// server's reduction; and at a head 1 up to the parent head, 2 and 3 down to the child
/// heads, 4 the multicasts. Its receive streams: 0 the multicasts; and at a head 1 the
/// reductions, 2 from the parent head, 3 and 4 from the child heads.
class NvlsTreeSchedule : public CollectiveSchedule
{
  public:
    /// Streams per channel and tree.
    static constexpr uint32_t SLOTS = 5;
    /// Trees.
    static constexpr uint32_t TREES = DoubleBinaryTreeAlgorithm::TREES;
    /// Send and receive slots.
    enum Slot : uint32_t
    {
        CONTRIBUTE = 0,  //!< send: to the reduction
        UP = 1,          //!< send: to the parent head
        DOWN = 2,        //!< send: to child head 0 (3: child head 1)
        MULTICAST = 4,   //!< send: the multicast
        MULTICASTS = 0,  //!< receive: the multicasts
        REDUCED = 1,     //!< receive: the reductions
        FROM_PARENT = 2, //!< receive: from the parent head
        FROM_CHILD = 3,  //!< receive: from child head 0 (4: child head 1)
    };

    /**
     * \param n ranks
     * \param g GPUs per server
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     * \param window PiecesInFlight
     */
    NvlsTreeSchedule(uint32_t n,
                     uint32_t g,
                     uint64_t bytes,
                     uint32_t channels,
                     uint64_t chunkBytes,
                     uint32_t window)
        : CollectiveSchedule(CollectiveType::ALL_REDUCE, n, bytes, "nvlstree")
        , m_g(g)
        , m_servers(n / g)
        , m_channels(channels)
        , m_window(window)
    {
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(bytes, channels);
        for (uint32_t c = 0; c < channels; ++c)
        {
            const std::vector<uint64_t> halves = CollectiveAlgorithm::Split(shares[c], TREES);
            for (uint32_t t = 0; t < TREES; ++t)
            {
                Tree tree;
                tree.bytes = halves[t];
                // Pieces of zero bytes (only when the half is empty) move nothing.
                tree.pieces
                    = halves[t] == 0 ? 0 : CollectiveAlgorithm::Pieces(halves[t], chunkBytes);
                tree.head = (c + t) % g;
                m_tree.push_back(tree);
            }
        }
        for (uint32_t t = 0; t < TREES; ++t)
        {
            m_parent[t] = DoubleBinaryTreeAlgorithm::GetParents(m_servers, t);
            m_children[t].assign(static_cast<std::size_t>(m_servers) * 2, NONE);
            m_slot[t].assign(m_servers, 0);
            for (uint32_t s = 0; s < m_servers; ++s)
            {
                const uint32_t p = m_parent[t][s];
                if (p != DoubleBinaryTreeAlgorithm::NO_PARENT)
                {
                    const uint32_t i = m_children[t][2 * p] == NONE ? 0 : 1;
                    NS_ABORT_MSG_IF(m_children[t][2 * p + i] != NONE,
                                    "NvlsTreeAlgorithm: server " << p
                                                                 << " has more than 2 children");
                    m_children[t][2 * p + i] = s;
                    m_slot[t][s] = i;
                }
            }
        }
    }

    uint32_t GetNChannels() const override
    {
        return m_channels;
    }

    uint32_t GetNSteps() const override
    {
        return 4;
    }

    uint32_t GetNSendStreams(uint32_t /* rank */) const override
    {
        return m_channels * TREES * SLOTS;
    }

    uint64_t GetSendLength(uint32_t rank, uint32_t stream) const override
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        const uint32_t s = rank / m_g;
        const bool head = rank == Head(ct, s);
        bool has = false;
        switch (slot)
        {
        case CONTRIBUTE:
            has = true;
            break;
        case UP:
            has = head && Parent(ct, s) != DoubleBinaryTreeAlgorithm::NO_PARENT;
            break;
        case DOWN:
        case DOWN + 1:
            has = head && Child(ct, s, slot - DOWN) != NONE;
            break;
        case MULTICAST:
            has = head;
            break;
        }
        return has ? m_tree[ct].pieces : 0;
    }

    void GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const override
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        const uint32_t s = rank / m_g;
        const uint32_t base = ct * SLOTS;
        const Tree& tree = m_tree[ct];
        CollectiveTransfer& t = m.transfer;
        t = CollectiveTransfer();
        t.src = rank;
        t.channel = ct / TREES;
        t.bytes = tree.bytes / tree.pieces + (index < tree.bytes % tree.pieces ? 1 : 0);
        m.recvIndex = index;
        m.skip = false;
        m.deps.clear();
        const uint32_t parent = Parent(ct, s);
        switch (slot)
        {
        case CONTRIBUTE:
            // Once the multicast of piece k - PiecesInFlight reached this GPU.
            t.kind = TransferKind::NVLS_REDUCE;
            t.dst = Head(ct, s);
            t.groupSize = m_g;
            t.groupBase = s * m_g;
            t.step = 0;
            m.recvStream = base + REDUCED;
            if (index >= m_window)
            {
                m.deps.push_back({base + MULTICASTS, index - m_window, index - m_window});
            }
            break;
        case UP:
            t.dst = Head(ct, parent);
            t.step = 1;
            t.reduce = true;
            m.recvStream = base + FROM_CHILD + m_slot[ct % TREES][s];
            m.deps.push_back({base + REDUCED, index, index});
            AddChildren(ct, s, index, m);
            break;
        case MULTICAST:
            t.kind = TransferKind::NVLS_MULTICAST;
            t.dst = s * m_g;
            t.groupSize = m_g;
            t.groupBase = s * m_g;
            t.step = 3;
            m.recvStream = base + MULTICASTS;
            DownDeps(ct, s, index, m);
            break;
        default:
            t.dst = Head(ct, Child(ct, s, slot - DOWN));
            t.step = 2;
            m.recvStream = base + FROM_PARENT;
            DownDeps(ct, s, index, m);
            break;
        }
        m.tagCode = m.recvStream;
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return m_channels * TREES * SLOTS;
    }

    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override
    {
        const auto [src, sendStream] = Source(rank, stream);
        return src == NONE ? 0 : GetSendLength(src, sendStream);
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        const auto source = Source(rank, stream);
        NS_ABORT_MSG_IF(source.first == NONE,
                        "NvlsTreeAlgorithm: rank " << rank << " has no receive stream " << stream);
        return source;
    }

    uint32_t GetTagCodes() const override
    {
        return m_channels * TREES * SLOTS;
    }

    std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const override
    {
        std::vector<std::pair<uint32_t, uint32_t>> connections;
        const uint32_t s = rank / m_g;
        for (uint32_t ct = 0; ct < m_tree.size(); ++ct)
        {
            if (m_tree[ct].pieces == 0)
            {
                continue;
            }
            const uint32_t c = ct / TREES;
            // The NVLS group: every GPU with its head, the head with every GPU (itself too,
            // as its multicast reaches it); and the heads along the tree.
            if (rank != Head(ct, s))
            {
                connections.emplace_back(Head(ct, s), c);
            }
            else
            {
                for (uint32_t i = 0; i < m_g; ++i)
                {
                    connections.emplace_back(s * m_g + i, c);
                }
                if (Parent(ct, s) != DoubleBinaryTreeAlgorithm::NO_PARENT)
                {
                    connections.emplace_back(Head(ct, Parent(ct, s)), c);
                }
                for (uint32_t i = 0; i < 2; ++i)
                {
                    if (Child(ct, s, i) != NONE)
                    {
                        connections.emplace_back(Head(ct, Child(ct, s, i)), c);
                    }
                }
            }
        }
        return Unique(std::move(connections));
    }

    uint64_t GetMemoryBytes() const override
    {
        uint64_t bytes = CollectiveSchedule::GetMemoryBytes() + sizeof(*this)
                         - sizeof(CollectiveSchedule) + m_tree.capacity() * sizeof(Tree);
        for (uint32_t t = 0; t < TREES; ++t)
        {
            bytes += (m_parent[t].capacity() + m_children[t].capacity() + m_slot[t].capacity())
                     * sizeof(uint32_t);
        }
        return bytes;
    }

  private:
    /// No rank, server or child.
    static constexpr uint32_t NONE = UINT32_MAX;

    /// One tree of one channel.
    struct Tree
    {
        uint64_t bytes{0};  //!< its half of the channel's share
        uint64_t pieces{0}; //!< pieces it moves in
        uint32_t head{0};   //!< the heads' local GPU
    };

    /**
     * \param ct channel x TREES + tree
     * \param s a server
     * \return its head's rank
     */
    uint32_t Head(uint32_t ct, uint32_t s) const
    {
        return s * m_g + m_tree[ct].head;
    }

    /**
     * \param ct channel x TREES + tree
     * \param s a server
     * \return its parent server (NO_PARENT for the root)
     */
    uint32_t Parent(uint32_t ct, uint32_t s) const
    {
        return m_parent[ct % TREES][s];
    }

    /**
     * \param ct channel x TREES + tree
     * \param s a server
     * \param i 0 or 1
     * \return its child server i (NONE if it has none)
     */
    uint32_t Child(uint32_t ct, uint32_t s, uint32_t i) const
    {
        return m_children[ct % TREES][2 * static_cast<std::size_t>(s) + i];
    }

    /**
     * \brief Add the arrivals of piece k from the child heads.
     * \param ct channel x TREES + tree
     * \param s the server
     * \param k the piece
     * \param m the message
     */
    void AddChildren(uint32_t ct, uint32_t s, uint64_t k, ScheduleMessage& m) const
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            if (Child(ct, s, i) != NONE)
            {
                m.deps.push_back({ct * SLOTS + FROM_CHILD + i, k, k});
            }
        }
    }

    /**
     * \brief What a head's broadcast of piece k waits for: the root, the reduction and the
     *        child heads; the others, the piece from the parent.
     * \param ct channel x TREES + tree
     * \param s the server
     * \param k the piece
     * \param m the message
     */
    void DownDeps(uint32_t ct, uint32_t s, uint64_t k, ScheduleMessage& m) const
    {
        if (Parent(ct, s) == DoubleBinaryTreeAlgorithm::NO_PARENT)
        {
            m.deps.push_back({ct * SLOTS + REDUCED, k, k});
            AddChildren(ct, s, k, m);
        }
        else
        {
            m.deps.push_back({ct * SLOTS + FROM_PARENT, k, k});
        }
    }

    /**
     * \param rank a rank
     * \param stream one of its receive streams
     * \return the sending rank and its send stream (NONE if the stream has no source)
     */
    std::pair<uint32_t, uint32_t> Source(uint32_t rank, uint32_t stream) const
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        const uint32_t base = ct * SLOTS;
        const uint32_t s = rank / m_g;
        const bool head = rank == Head(ct, s);
        switch (slot)
        {
        case MULTICASTS:
            return {Head(ct, s), base + MULTICAST};
        case REDUCED:
            // The reduction is delivered once: the head's own contribution names it.
            return head ? std::make_pair(rank, base + CONTRIBUTE) : std::make_pair(NONE, NONE);
        case FROM_PARENT:
            if (head && Parent(ct, s) != DoubleBinaryTreeAlgorithm::NO_PARENT)
            {
                return {Head(ct, Parent(ct, s)), base + DOWN + m_slot[ct % TREES][s]};
            }
            return {NONE, NONE};
        default:
            if (head && Child(ct, s, slot - FROM_CHILD) != NONE)
            {
                return {Head(ct, Child(ct, s, slot - FROM_CHILD)), base + UP};
            }
            return {NONE, NONE};
        }
    }

    uint32_t m_g;                            //!< GPUs per server
    uint32_t m_servers;                      //!< servers
    uint32_t m_channels;                     //!< channels
    uint32_t m_window;                       //!< PiecesInFlight
    std::vector<Tree> m_tree;                //!< by channel x TREES + tree
    std::vector<uint32_t> m_parent[TREES];   //!< by tree, server
    std::vector<uint32_t> m_children[TREES]; //!< by tree, 2 x server + i
    std::vector<uint32_t> m_slot[TREES];     //!< by tree, server: place among siblings
};
} // namespace

Ptr<CollectiveSchedule>
NvlsTreeAlgorithm::DoSchedule(CollectiveType /* type */,
                              uint32_t nRanks,
                              uint64_t bytes,
                              uint32_t channels,
                              uint64_t chunkBytes) const
{
    const uint32_t g = m_gpusPerServer == 0 ? nRanks : m_gpusPerServer;
    return Create<NvlsTreeSchedule>(nRanks, g, bytes, channels, chunkBytes, m_window);
}

Time
NvlsTreeAlgorithm::Predict(CollectiveType /* type */,
                           uint32_t /* nRanks */,
                           uint64_t bytes,
                           const CollectiveSystem& system) const
{
    // NVLS reduction and multicast in each server (two NVLink steps), the double binary tree
    // across servers between heads; NVLink carries S (g + 1) / g per GPU, each NIC about
    // 2 S / g.
    const double g = system.gpusPerServer;
    const double s = static_cast<double>(bytes);
    const double serverSteps = std::ceil(std::log2(static_cast<double>(system.servers)));
    const double nvTerm
        = (g + 1) / g * s * 8.0 / system.nvRate.GetBitRate() / system.nvlsEfficiency;
    const double netTerm = 2 * s / g * system.beta;
    return Seconds(2 * (serverSteps * system.alpha.GetSeconds() + 2 * system.nvAlpha.GetSeconds())
                   + std::max(nvTerm, netTerm));
}

bool
NvlsTreeAlgorithm::SupportsProtocol(NcclProtocol protocol) const
{
    return protocol == NCCL_SIMPLE;
}

bool
NvlsTreeAlgorithm::FitsSystem(const CollectiveSystem& system) const
{
    return system.nvls && system.servers > 1; // NVLS servers, a tree between them
}

void
NvlsTreeAlgorithm::Configure(uint32_t nRanks, const CollectiveSystem& system)
{
    m_gpusPerServer = system.gpusPerServer > 0 ? system.gpusPerServer : nRanks;
}

static CollectiveAlgorithmRegistration g_nvlsTree(
    "nvlstree", {CollectiveType::ALL_REDUCE}, &NvlsTreeAlgorithm::GetTypeId, true, 90);

} // namespace ns3
