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
    const std::vector<uint32_t> serverParents = GetParents(servers, tree);
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

void
DoubleBinaryTreeAlgorithm::DoBuild(CollectivePlan& plan,
                                   uint32_t channel,
                                   uint64_t bytes,
                                   uint64_t chunkBytes) const
{
    NS_LOG_FUNCTION(this << channel << bytes << chunkBytes);
    const uint32_t n = plan.GetNRanks();

    /// One tree of the pair, with the order in which its ranks are visited.
    struct Tree
    {
        std::vector<uint32_t> parents;               //!< by rank
        std::vector<std::vector<uint32_t>> children; //!< by rank, in rank order
        uint32_t root{0};                            //!< the root
        std::vector<uint32_t> topDown;               //!< ranks, parents before children
        std::vector<uint64_t> pieces;                //!< the tree's half, in pieces
    };

    const std::vector<uint64_t> halves = Split(bytes, TREES);
    std::vector<Tree> trees(TREES);
    uint64_t maxPieces = 0;
    for (uint32_t t = 0; t < TREES; ++t)
    {
        Tree& tree = trees[t];
        tree.parents = GetServerParents(n, m_gpusPerServer, t, channel);
        tree.root = static_cast<uint32_t>(
            std::find(tree.parents.begin(), tree.parents.end(), NO_PARENT) - tree.parents.begin());
        tree.children.assign(n, {});
        for (uint32_t r = 0; r < n; ++r)
        {
            if (tree.parents[r] != NO_PARENT)
            {
                tree.children[tree.parents[r]].push_back(r);
            }
        }
        tree.topDown.push_back(tree.root);
        for (std::size_t i = 0; i < tree.topDown.size(); ++i)
        {
            const std::vector<uint32_t>& below = tree.children[tree.topDown[i]];
            tree.topDown.insert(tree.topDown.end(), below.begin(), below.end());
        }
        NS_ASSERT_MSG(tree.topDown.size() == n, "DoubleBinaryTreeAlgorithm: a tree misses ranks");
        tree.pieces = Split(halves[t], Pieces(halves[t], chunkBytes));
        maxPieces = std::max<uint64_t>(maxPieces, tree.pieces.size());
    }

    // up[r]: the transfer of the current piece from r to its parent; down[r]: to r from its
    // parent.
    std::vector<uint32_t> up(n);
    std::vector<uint32_t> down(n);
    for (uint64_t k = 0; k < maxPieces; ++k)
    {
        for (const Tree& tree : trees)
        {
            if (k >= tree.pieces.size())
            {
                continue;
            }
            const uint64_t piece = tree.pieces[k];
            // Reduce: children before parents.
            for (auto it = tree.topDown.rbegin(); it != tree.topDown.rend(); ++it)
            {
                const uint32_t r = *it;
                if (r == tree.root)
                {
                    continue;
                }
                std::vector<uint32_t> deps;
                for (uint32_t c : tree.children[r])
                {
                    deps.push_back(up[c]);
                }
                up[r] = plan.AddTransfer(r, tree.parents[r], channel, piece, UP_STEP, true, deps);
            }
            // Broadcast: parents before children.
            for (uint32_t r : tree.topDown)
            {
                std::vector<uint32_t> deps;
                if (r == tree.root)
                {
                    for (uint32_t c : tree.children[r])
                    {
                        deps.push_back(up[c]);
                    }
                }
                else
                {
                    deps.push_back(down[r]);
                }
                for (uint32_t c : tree.children[r])
                {
                    down[c] = plan.AddTransfer(r, c, channel, piece, DOWN_STEP, false, deps);
                }
            }
        }
    }
}

} // namespace ns3
