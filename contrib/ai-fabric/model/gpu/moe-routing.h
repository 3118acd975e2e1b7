/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef MOE_ROUTING_H
#define MOE_ROUTING_H

#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * The shape of a mixture-of-experts layer's routing over its expert-parallel ranks.
 */
struct MoeRoutingConfig
{
    uint32_t tokens{4096}; //!< tokens each rank routes (one micro-batch's, on one rank)
    uint32_t experts{256}; //!< routed experts; a multiple of the ranks (contiguous per rank)
    uint32_t topk{8};      //!< experts each token goes to (distinct)
    /// groups of consecutive experts (0: one per node, as DeepEP's tests group them)
    uint32_t expertGroups{0};
    /// groups a token may choose its experts from (0: every group, no limit)
    uint32_t topkGroups{0};
};

/**
 * \ingroup ai-fabric
 * \brief Which experts each token of each rank goes to, drawn at random as a router with
 * balanced scores sends them, and what that means for the traffic: the distinct tokens a rank
 * sends to each rank (a token with two experts on one rank goes there once) and to each node
 * (a token with experts on several GPUs of a node crosses the network to it once, as DeepEP's
 * node-level deduplication sends it).
 *
 * Expert e lives on rank e / (experts / ranks), as in Megatron-Core and DeepEP. Every expert
 * gets an independent uniform score; a group's score is its best expert's; a token goes to
 * the topk best experts of the topkGroups best groups. That is DeepEP's tests' draw
 * (tests/test_internode.py: |N(0,1)| + 1 scores, a group per node, groups by their amax,
 * top-k groups = min(nodes, 4)): only the scores' order matters, and any independent
 * continuous scores order alike. Without a group limit it is k distinct experts uniformly,
 * drawn so. Real routers are less balanced (DeepSeek-V3 itself ranks a group by its two best
 * scores and adds a learned bias), which is left out.
 *
 * Memory: two counts per (rank, rank) and (rank, node) pair, O(ranks^2).
 */
class MoeRouting : public SimpleRefCount<MoeRouting>
{
  public:
    /**
     * \brief Draw every rank's tokens' experts.
     * \param config the layer's routing
     * \param nodeOf node (server) of each rank; nodes are numbered 0 .. max
     * \param rng the random stream (its stream and the run decide the draw)
     * \param[out] error one line when the configuration cannot route
     * \return the routing, or nullptr with error set
     */
    static Ptr<MoeRouting> Draw(const MoeRoutingConfig& config,
                                const std::vector<uint32_t>& nodeOf,
                                Ptr<UniformRandomVariable> rng,
                                std::string& error);

    /**
     * \param gpus the GPUs of a group, in its rank order
     * \param gpusPerServer GPUs per server (0: one server)
     * \return each rank's node for Draw(): the servers the group touches, numbered 0, 1, ...
     *         in the order the group first meets them
     */
    static std::vector<uint32_t> NodesOf(const std::vector<uint32_t>& gpus, uint32_t gpusPerServer);

    /// \return the configuration drawn from
    const MoeRoutingConfig& GetConfig() const;
    /// \return ranks
    uint32_t GetNRanks() const;
    /// \return nodes
    uint32_t GetNNodes() const;
    /**
     * \param rank a rank
     * \return its node
     */
    uint32_t GetNode(uint32_t rank) const;
    /**
     * \param node a node
     * \return its ranks, in rank order
     */
    const std::vector<uint32_t>& GetNodeRanks(uint32_t node) const;
    /**
     * \param rank a rank
     * \return its position among its node's ranks (its rail)
     */
    uint32_t GetLocal(uint32_t rank) const;
    /**
     * \brief The rank of a node that relays a rank's tokens there: the one at the same local
     *        position (the same rail), or the node's first rank if it has fewer.
     * \param src the sending rank
     * \param node the node
     * \return the relaying rank
     */
    uint32_t GetRelay(uint32_t src, uint32_t node) const;

    /**
     * \param src a rank
     * \param dst a rank
     * \return the distinct tokens of src with at least one expert on dst
     */
    uint32_t GetTokens(uint32_t src, uint32_t dst) const;
    /**
     * \param src a rank
     * \param node a node
     * \return the distinct tokens of src with at least one expert on the node
     */
    uint32_t GetNodeTokens(uint32_t src, uint32_t node) const;
    /**
     * \param src a rank
     * \return its (token, node) pairs over every node, its own included (DeepEP's
     *         num_rdma_token_sent)
     */
    uint64_t GetNodeTokenPairs(uint32_t src) const;
    /**
     * \param dst a rank
     * \return the distinct tokens it receives, from every rank (itself included)
     */
    uint64_t GetReceivedTokens(uint32_t dst) const;
    /**
     * \param dst a rank
     * \return the (token, expert) pairs its experts compute, from every rank (a token with
     *         two experts on dst counts twice): over all ranks, tokens x ranks x topk
     */
    uint64_t GetAssignments(uint32_t dst) const;

  private:
    MoeRoutingConfig m_config;                      //!< what was drawn
    std::vector<uint32_t> m_nodeOf;                 //!< node of each rank
    std::vector<uint32_t> m_local;                  //!< position of each rank on its node
    std::vector<std::vector<uint32_t>> m_nodeRanks; //!< ranks of each node
    std::vector<uint32_t> m_tokens;                 //!< [src * ranks + dst]
    std::vector<uint32_t> m_nodeTokens;             //!< [src * nodes + node]
    std::vector<uint64_t> m_assignments;            //!< (token, expert) pairs by rank
};

} // namespace ns3

#endif /* MOE_ROUTING_H */
