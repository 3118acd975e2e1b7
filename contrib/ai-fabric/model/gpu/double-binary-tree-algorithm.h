/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef DOUBLE_BINARY_TREE_ALGORITHM_H
#define DOUBLE_BINARY_TREE_ALGORITHM_H

#include "collective-algorithm.h"

#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief All-reduce over a double binary tree, as NCCL's tree algorithm across nodes.
 *
 * Two binary trees span the ranks (Sanders, Speck and Traeff, "Two-tree algorithms for full
 * bandwidth broadcast, reduction and scan", Parallel Computing 35(12), 2009; NCCL 2.4's
 * double binary tree). Tree 0 is NCCL's ncclGetBtree() shape rooted at rank 0: with bit the
 * lowest set bit of rank r, the parent of r is (r ^ bit) | (bit << 1), or r ^ bit if that is
 * not a rank; its children are r - bit/2 and r + bit/2, the latter halved towards r until it
 * is a rank; the root's one child is the highest power of two below n. Tree 1 is tree 0
 * mirrored (rank n-1-r) when n is even and shifted by one rank ((r-1) mod n) when n is odd
 * (ncclGetDtree()), so that most ranks that are interior in one tree are leaves in the other
 * and every link carries about the same load.
 *
 * Each tree carries half of a channel's data (NCCL runs the two trees on separate channels;
 * here both trees share each channel's connections and thread block), moved in pieces of at
 * most the chunk size. Reduce phase (step 0, reduce at the receiver): a rank sends piece k to
 * its parent once piece k has arrived from all its children and been reduced (a leaf sends at
 * once). Broadcast phase (step 1, no reduction): the root sends piece k to its children once
 * it has reduced piece k of all its children, and every other rank forwards piece k to its
 * children once it arrived from its parent. Pieces pipeline through both phases.
 *
 * With GpusPerServer set (NCCL's tree on servers), the trees are GetServerParents': a chain
 * through each server's GPUs over NVLink, and the double binary tree among the servers'
 * chain heads, one rail per channel.
 *
 * Bytes per channel share S and tree half H = S/2: a rank that is not a tree's root sends H
 * up and receives H down in that tree; a rank with c children in a tree receives c x H up and
 * sends c x H down. Both trees have depth ceil(log2 n), so a piece crosses 2 ceil(log2 n)
 * hops: up to the root and back.
 *
 * Its schedule gives each rank, per channel and tree, a send stream to its parent and one to
 * each child, and a receive stream from each; it holds every tree's parents and children:
 * O(ranks x channels).
 */
class DoubleBinaryTreeAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Parent of a tree's root.
    static constexpr uint32_t NO_PARENT = std::numeric_limits<uint32_t>::max();
    /// Trees of the double binary tree.
    static constexpr uint32_t TREES = 2;
    /// Step of the transfers towards the roots (reduced at the receiver).
    static constexpr uint32_t UP_STEP = 0;
    /// Step of the transfers away from the roots (the result, not reduced).
    static constexpr uint32_t DOWN_STEP = 1;

    std::string GetName() const override;
    bool Supports(CollectiveType type, uint32_t nRanks) const override;
    Time Predict(CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes,
                 const CollectiveSystem& system) const override;
    void Configure(uint32_t nRanks, const CollectiveSystem& system) override;
    bool UsesTreeLatency() const override;

    /**
     * \brief The shape of one of the two trees.
     * \param nRanks ranks (at least 2)
     * \param tree 0 (NCCL's btree, rooted at rank 0) or 1 (mirrored or shifted)
     * \return the parent of every rank, NO_PARENT for the root
     */
    static std::vector<uint32_t> GetParents(uint32_t nRanks, uint32_t tree);

    /**
     * \param nRanks ranks (at least 2)
     * \param tree 0 or 1
     * \return the tree's root (0 for tree 0; n-1 (n even) or 1 (n odd) for tree 1)
     */
    static uint32_t GetRoot(uint32_t nRanks, uint32_t tree);

  protected:
    Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t channels,
                                       uint64_t chunkBytes) const override;

  private:
    /**
     * \brief NCCL's binary tree rooted at rank 0 (tree 0).
     * \param nRanks ranks
     * \param rank a rank
     * \return its parent, NO_PARENT for rank 0
     */
    static uint32_t BinaryTreeParent(uint32_t nRanks, uint32_t rank);

  public:
    /**
     * \brief The parents of one tree on servers of g GPUs (NCCL's tree across nodes): inside
     *        a server the GPUs form a chain (local order rotated by the channel, so the
     *        chain's head is local GPU channel mod g, the same rail in every server); the
     *        heads form the double binary tree over the servers. With g of 0 or 1, or n not a
     *        multiple of g: GetParents(n, tree).
     * \param n ranks (server-major)
     * \param g GPUs per server
     * \param tree 0 or 1
     * \param channel the channel
     * \return the parent of every rank (NO_PARENT for the root)
     */
    static std::vector<uint32_t> GetServerParents(uint32_t n,
                                                  uint32_t g,
                                                  uint32_t tree,
                                                  uint32_t channel);

  private:
    uint32_t m_gpusPerServer{0}; //!< GpusPerServer (0: rank-level tree)
};

} // namespace ns3

#endif /* DOUBLE_BINARY_TREE_ALGORITHM_H */
