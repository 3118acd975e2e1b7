/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "double-binary-tree-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DoubleBinaryTreeAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeAlgorithm);

TypeId
DoubleBinaryTreeAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::DoubleBinaryTreeAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<DoubleBinaryTreeAlgorithm>()
              .AddAttribute("GpusPerServer",
                            "GPUs per server: above 1, NCCL's tree on servers (a chain "
                            "inside each server, the double binary tree across servers). "
                            "0 (the default): the tree spans the ranks.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&DoubleBinaryTreeAlgorithm::m_gpusPerServer),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
DoubleBinaryTreeAlgorithm::GetName() const
{
    return "tree";
}

bool
DoubleBinaryTreeAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2;
}

uint32_t
DoubleBinaryTreeAlgorithm::BinaryTreeParent(uint32_t nRanks, uint32_t rank)
{
    if (rank == 0)
    {
        return NO_PARENT;
    }
    uint32_t bit = 1;
    while ((rank & bit) == 0)
    {
        bit <<= 1;
    }
    // xx01[0] -> xx10[0], xx11[0] -> xx10[0]; xx00[0] when xx10[0] is not a rank.
    const uint32_t up = (rank ^ bit) | (bit << 1);
    return up < nRanks ? up : rank ^ bit;
}

uint32_t
DoubleBinaryTreeAlgorithm::GetRoot(uint32_t nRanks, uint32_t tree)
{
    NS_ABORT_MSG_IF(nRanks < 2 || tree >= TREES, "DoubleBinaryTreeAlgorithm: no tree " << tree);
    if (tree == 0)
    {
        return 0;
    }
    return nRanks % 2 == 0 ? nRanks - 1 : 1;
}

std::vector<uint32_t>
DoubleBinaryTreeAlgorithm::GetParents(uint32_t nRanks, uint32_t tree)
{
    NS_ABORT_MSG_IF(nRanks < 2 || tree >= TREES, "DoubleBinaryTreeAlgorithm: no tree " << tree);
    std::vector<uint32_t> parents(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        if (tree == 0)
        {
            parents[r] = BinaryTreeParent(nRanks, r);
        }
        else if (nRanks % 2 == 0)
        {
            // Mirror: rank r plays rank n-1-r of tree 0.
            const uint32_t up = BinaryTreeParent(nRanks, nRanks - 1 - r);
            parents[r] = up == NO_PARENT ? NO_PARENT : nRanks - 1 - up;
        }
        else
        {
            // Shift: rank r plays rank r-1 of tree 0.
            const uint32_t up = BinaryTreeParent(nRanks, (r + nRanks - 1) % nRanks);
            parents[r] = up == NO_PARENT ? NO_PARENT : (up + 1) % nRanks;
        }
    }
    return parents;
}

std::vector<uint32_t>
DoubleBinaryTreeAlgorithm::GetServerParents(uint32_t n, uint32_t g, uint32_t tree, uint32_t channel)
{
    if (g <= 1 || n % g != 0)
    {
        return GetParents(n, tree);
    }
    const uint32_t servers = n / g;
    // One server: the chain alone (NCCL's tree inside a node), no tree across servers.
    const std::vector<uint32_t> serverParents
        = servers > 1 ? GetParents(servers, tree) : std::vector<uint32_t>(1, NO_PARENT);
    std::vector<uint32_t> parents(n, NO_PARENT);
    // rank of the GPU at chain position i of server s
    auto rank = [&](uint32_t s, uint32_t i) { return s * g + (channel + i) % g; };
    for (uint32_t s = 0; s < servers; ++s)
    {
        for (uint32_t i = 1; i < g; ++i)
        {
            parents[rank(s, i)] = rank(s, i - 1); // the chain, towards its head
        }
        if (serverParents[s] != NO_PARENT)
        {
            parents[rank(s, 0)] = rank(serverParents[s], 0); // heads: the tree across servers
        }
    }
    return parents;
}

namespace
{
/// Double binary tree: per channel and tree, a rank's streams are slot 0 (to / from its
/// parent) and slots 1 + i (to / from its child i).
class TreeSchedule : public CollectiveSchedule
{
  public:
    /// Streams per channel and tree: the parent and up to three children (a chain head
    /// has its chain successor and two tree children).
    static constexpr uint32_t SLOTS = 4;
    /// Trees.
    static constexpr uint32_t TREES = DoubleBinaryTreeAlgorithm::TREES;

    /**
     * \param n ranks
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     * \param gpusPerServer NCCL's tree on servers (0: across ranks)
     */
    TreeSchedule(
        uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes, uint32_t gpusPerServer)
        : CollectiveSchedule(CollectiveType::ALL_REDUCE, n, bytes, "tree")
        , m_channels(channels)
    {
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(bytes, channels);
        m_parent.reserve(static_cast<std::size_t>(n) * channels * TREES);
        m_slot.reserve(m_parent.capacity());
        m_firstChild.reserve(m_parent.capacity() + 1);
        m_children.reserve(m_parent.capacity());
        for (uint32_t c = 0; c < channels; ++c)
        {
            const std::vector<uint64_t> halves = CollectiveAlgorithm::Split(shares[c], TREES);
            for (uint32_t t = 0; t < TREES; ++t)
            {
                Tree tree;
                tree.bytes = halves[t];
                tree.pieces = CollectiveAlgorithm::Pieces(halves[t], chunkBytes);
                tree.base = static_cast<uint32_t>(m_parent.size());
                m_tree.push_back(tree);
                const std::vector<uint32_t> parents
                    = DoubleBinaryTreeAlgorithm::GetServerParents(n, gpusPerServer, t, c);
                // Children in rank order, as counted per parent.
                std::vector<uint32_t> count(n, 0);
                for (uint32_t r = 0; r < n; ++r)
                {
                    m_parent.push_back(parents[r]);
                    m_slot.push_back(0);
                    if (parents[r] != DoubleBinaryTreeAlgorithm::NO_PARENT)
                    {
                        m_slot.back() = count[parents[r]]++;
                        NS_ABORT_MSG_IF(count[parents[r]] >= SLOTS,
                                        "DoubleBinaryTreeAlgorithm: rank "
                                            << parents[r] << " has more than " << SLOTS - 1
                                            << " children");
                    }
                }
                uint32_t at = static_cast<uint32_t>(m_children.size());
                for (uint32_t r = 0; r < n; ++r)
                {
                    m_firstChild.push_back(at);
                    at += count[r];
                }
                m_children.resize(at, 0);
                for (uint32_t r = 0; r < n; ++r)
                {
                    if (parents[r] != DoubleBinaryTreeAlgorithm::NO_PARENT)
                    {
                        m_children[m_firstChild[tree.base + parents[r]] + m_slot[tree.base + r]]
                            = r;
                    }
                }
            }
        }
        m_firstChild.push_back(static_cast<uint32_t>(m_children.size()));
    }

    uint32_t GetNChannels() const override
    {
        return m_channels;
    }

    uint32_t GetNSteps() const override
    {
        return 2;
    }

    uint32_t GetNSendStreams(uint32_t /* rank */) const override
    {
        return m_channels * TREES * SLOTS;
    }

    uint64_t GetSendLength(uint32_t rank, uint32_t stream) const override
    {
        return HasPeer(rank, stream) ? m_tree[stream / SLOTS].pieces : 0;
    }

    void GetSend(uint32_t rank, uint32_t stream, uint64_t index, ScheduleMessage& m) const override
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        const Tree& tree = m_tree[ct];
        CollectiveTransfer& t = m.transfer;
        t = CollectiveTransfer();
        t.src = rank;
        t.channel = ct / TREES;
        t.bytes = tree.bytes / tree.pieces + (index < tree.bytes % tree.pieces ? 1 : 0);
        m.recvIndex = index;
        m.skip = false;
        m.deps.clear();
        const uint32_t children = Children(ct, rank);
        const uint32_t parent = m_parent[tree.base + rank];
        const bool root = parent == DoubleBinaryTreeAlgorithm::NO_PARENT;
        if (slot == 0)
        {
            // Up: once piece k arrived from every child (and was reduced).
            t.dst = parent;
            t.step = DoubleBinaryTreeAlgorithm::UP_STEP;
            t.reduce = true;
            m.recvStream = ct * SLOTS + 1 + m_slot[tree.base + rank];
            for (uint32_t i = 0; i < children; ++i)
            {
                m.deps.push_back({ct * SLOTS + 1 + i, index, index});
            }
        }
        else
        {
            // Down: the root once it reduced piece k of every child, the others once piece k
            // arrived from the parent.
            t.dst = m_children[m_firstChild[tree.base + rank] + slot - 1];
            t.step = DoubleBinaryTreeAlgorithm::DOWN_STEP;
            t.reduce = false;
            m.recvStream = ct * SLOTS;
            if (root)
            {
                for (uint32_t i = 0; i < children; ++i)
                {
                    m.deps.push_back({ct * SLOTS + 1 + i, index, index});
                }
            }
            else
            {
                m.deps.push_back({ct * SLOTS, index, index});
            }
        }
        m.tagCode = m.recvStream;
    }

    uint32_t GetNRecvStreams(uint32_t /* rank */) const override
    {
        return m_channels * TREES * SLOTS;
    }

    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override
    {
        return HasPeer(rank, stream) ? m_tree[stream / SLOTS].pieces : 0;
    }

    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        const Tree& tree = m_tree[ct];
        if (slot == 0)
        {
            // Down from the parent: its stream to this child.
            return {m_parent[tree.base + rank], ct * SLOTS + 1 + m_slot[tree.base + rank]};
        }
        return {m_children[m_firstChild[tree.base + rank] + slot - 1], ct * SLOTS};
    }

    uint32_t GetTagCodes() const override
    {
        return m_channels * TREES * SLOTS;
    }

    std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const override
    {
        std::vector<std::pair<uint32_t, uint32_t>> connections;
        for (uint32_t stream = 0; stream < GetNSendStreams(rank); ++stream)
        {
            if (HasPeer(rank, stream))
            {
                const uint32_t ct = stream / SLOTS;
                const uint32_t slot = stream % SLOTS;
                const Tree& tree = m_tree[ct];
                const uint32_t peer = slot == 0
                                          ? m_parent[tree.base + rank]
                                          : m_children[m_firstChild[tree.base + rank] + slot - 1];
                connections.emplace_back(peer, ct / TREES);
            }
        }
        return Unique(std::move(connections));
    }

    uint64_t GetMemoryBytes() const override
    {
        return CollectiveSchedule::GetMemoryBytes() + sizeof(*this) - sizeof(CollectiveSchedule)
               + (m_parent.capacity() + m_slot.capacity() + m_firstChild.capacity()
                  + m_children.capacity())
                     * sizeof(uint32_t)
               + m_tree.capacity() * sizeof(Tree);
    }

  private:
    /// One tree of one channel.
    struct Tree
    {
        uint64_t bytes{0};  //!< its half of the channel's share
        uint64_t pieces{1}; //!< pieces it moves in
        uint32_t base{0};   //!< its ranks' first entry in m_parent, m_slot, m_firstChild
    };

    /**
     * \param ct channel x TREES + tree
     * \param rank a rank
     * \return its children in that tree
     */
    uint32_t Children(uint32_t ct, uint32_t rank) const
    {
        const uint32_t i = m_tree[ct].base + rank;
        return m_firstChild[i + 1] - m_firstChild[i];
    }

    /**
     * \param rank a rank
     * \param stream one of its streams
     * \return true if the stream has a peer (a parent, or a child in that slot)
     */
    bool HasPeer(uint32_t rank, uint32_t stream) const
    {
        const uint32_t ct = stream / SLOTS;
        const uint32_t slot = stream % SLOTS;
        return slot == 0 ? m_parent[m_tree[ct].base + rank] != DoubleBinaryTreeAlgorithm::NO_PARENT
                         : slot <= Children(ct, rank);
    }

    uint32_t m_channels;                //!< channels
    std::vector<Tree> m_tree;           //!< by channel x TREES + tree
    std::vector<uint32_t> m_parent;     //!< by tree base + rank
    std::vector<uint32_t> m_slot;       //!< by tree base + rank: its place among its siblings
    std::vector<uint32_t> m_firstChild; //!< by tree base + rank, and one past the last
    std::vector<uint32_t> m_children;   //!< children, rank after rank, tree after tree
};
} // namespace

Ptr<CollectiveSchedule>
DoubleBinaryTreeAlgorithm::DoSchedule(CollectiveType /* type */,
                                      uint32_t nRanks,
                                      uint64_t bytes,
                                      uint32_t channels,
                                      uint64_t chunkBytes) const
{
    return Create<TreeSchedule>(nRanks, bytes, channels, chunkBytes, m_gpusPerServer);
}

Time
DoubleBinaryTreeAlgorithm::Predict(CollectiveType /* type */,
                                   uint32_t nRanks,
                                   uint64_t bytes,
                                   const CollectiveSystem& system) const
{
    const double s = static_cast<double>(bytes);
    const double alpha = system.alpha.GetSeconds();
    if (system.servers > 0)
    {
        // NCCL's tree on servers: a chain of g GPUs over NVLink in each server, the double
        // binary tree over the servers' heads; up and down.
        const double g = system.gpusPerServer;
        const double nvAlpha = system.nvAlpha.GetSeconds();
        if (system.servers == 1)
        {
            return Seconds(2 * (g - 1) * nvAlpha
                           + 2 * s * 8.0 / system.nvRate.GetBitRate() / system.nvRingEfficiency);
        }
        const double serverSteps = std::ceil(std::log2(static_cast<double>(system.servers)));
        return Seconds(2 * (serverSteps * alpha + (g - 1) * nvAlpha) + 2 * s * system.beta);
    }
    const double logSteps = std::ceil(std::log2(static_cast<double>(nRanks)));
    return Seconds(2 * logSteps * alpha + 2 * s * system.beta);
}

bool
DoubleBinaryTreeAlgorithm::UsesTreeLatency() const
{
    return true;
}

void
DoubleBinaryTreeAlgorithm::Configure(uint32_t /* nRanks */, const CollectiveSystem& system)
{
    if (system.serverAwareRing && system.gpusPerServer > 1)
    {
        m_gpusPerServer = system.gpusPerServer;
    }
}

static CollectiveAlgorithmRegistration g_tree(
    "tree", {CollectiveType::ALL_REDUCE}, &DoubleBinaryTreeAlgorithm::GetTypeId, true, 30);

} // namespace ns3
