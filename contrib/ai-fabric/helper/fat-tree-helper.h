/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FAT_TREE_HELPER_H
#define FAT_TREE_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class FabricHelper;
class FlowFabric;

/**
 * \ingroup ai-fabric
 * \brief Builds a fat-tree of GPUs on a FabricHelper (RoCEv2 or InfiniBand): a 2-tier leaf-spine or
 * a 3-tier k-ary fat-tree, with an oversubscription ratio at the leaf and an optional
 * rail-optimized attachment, and names its parts in fat-tree terms.
 *
 * A GPU is an ns-3 Node with one NIC (FabricHelper::InstallHosts); a server holds
 * GetGpusPerServer() of them. GPUs are numbered by rank, server-major:
 * rank = server * gpusPerServer + local.
 *
 * Every switch has k ports (the radix). A leaf splits its k ports into `down` host ports and
 * `up` uplinks with down:up equal to the oversubscription ratio (reduced to lowest terms a:b,
 * (a + b) must divide k; 1:1 needs an even k).
 *
 * - **2 tiers (leaf-spine).** There are `up` spines; every leaf has one link to every spine,
 *   so a spine's k ports hold at most k leaves.
 * - **3 tiers (k-ary fat-tree, Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data
 *   Center Network Architecture", SIGCOMM 2008).** k must be even. A pod has k/2 leaves (edge
 *   switches) and `up` aggregation switches (k/2 at 1:1), each leaf linked to every
 *   aggregation switch of its pod. Aggregation switches stay 1:1: k/2 ports down to the leaves
 *   and k/2 up to the core. There are up * k/2 core switches ((k/2)^2 at 1:1); aggregation
 *   switch j of every pod links to cores j*(k/2) .. j*(k/2) + k/2 - 1, so a core has one link
 *   per pod and the core holds at most k pods. At 1:1 this is Al-Fares' tree: k^3/4 GPUs.
 *
 * Placement (of NICs: one per GPU, or SetNicsPerServer()'s, NIC h = server x NICs per server +
 * its index; with a NIC per GPU, NIC h is GPU h's):
 * - Without rail optimization, NICs fill leaves in order: NIC h is on leaf h / down. The
 *   last leaf may be partly filled.
 * - Rail-optimized: servers form groups of `down` servers (one leaf's worth), and a group has
 *   one leaf per NIC of a server (its rails): NIC i of every server of group g attaches to
 *   leaf g * nicsPerServer + i. The last group may hold fewer servers. In 3 tiers a group's
 *   rails stay in one pod, so a pod holds floor((k/2) / nicsPerServer) groups.
 *
 * Only the pods needed are built (3 tiers): ceil(leaves / leaves per pod), the last one
 * possibly with fewer leaves; every pod has all its aggregation switches and all cores are
 * built. In 2 tiers all `up` spines are built.
 *
 * Install() creates the nodes (the GPUs first, in rank order; NIC h gets the fabric's
 * (h + 1)-th host address), installs the NICs and switches, cables them and computes the
 * routes. Nodes are given ns-3 names (Names::Add): "gpu<rank>", "leaf<i>", "spine<j>",
 * "pod<p>-agg<i>", "core<c>". A name already in use is left alone (ns-3 keeps names across
 * Simulator::Destroy until Names::Clear()), so a second fat-tree in one process still builds.
 *
 * Counts, placement, the bisection bandwidth and the summary follow from the parameters alone
 * and are available before Install() once Check() is empty; the node accessors need Install().
 */
class FatTreeHelper
{
  public:
    FatTreeHelper();

    // The setters must be called before Install().

    /**
     * \param tiers 2 (leaf-spine) or 3 (k-ary fat-tree); default 2
     */
    void SetTiers(uint32_t tiers);

    /**
     * \param servers number of servers; default 1
     */
    void SetServers(uint32_t servers);

    /**
     * \param gpusPerServer GPUs (each with its own NIC) per server; default 1
     */
    void SetGpusPerServer(uint32_t gpusPerServer);

    /**
     * \brief NICs per server, shared by the server's GPUs: NIC j serves GPUs j x g .. j x g +
     *        g - 1, g = gpusPerServer / nicsPerServer, as NCCL pairs GPUs with the NIC under
     *        their PCIe switch (ncclTopoGetLocalNet); the NIC sits on the node of the first of
     *        them. It must divide the GPUs per server.
     * \param nicsPerServer NICs per server; default 0: one per GPU
     */
    void SetNicsPerServer(uint32_t nicsPerServer);

    /**
     * \param radix ports per switch (k); default 64, the port count of a 51.2 Tb/s switch ASIC
     *        (Broadcom Tomahawk 5, NVIDIA Spectrum-4) at 800 Gb/s
     */
    void SetRadix(uint32_t radix);

    /**
     * \brief Oversubscription at the leaf: host ports to uplinks, down:up (default 1:1,
     *        non-blocking).
     * \param down the host-port side of the ratio
     * \param up the uplink side of the ratio
     */
    void SetOversubscription(uint32_t down, uint32_t up);

    /**
     * \param rail true for the rail-optimized attachment (NIC i of every server of a
     *        group on the group's leaf i); default false
     */
    void SetRailOptimized(bool rail);

    /**
     * \brief The line rate of every link.
     *
     * When set, Install() applies it to the fabric's ports (the fabric helper's "DataRate"
     * device attribute). When not set, Install() reads the rate back from the ports it created
     * (the fabric's DataRate attribute, 400 Gb/s by default); before Install() the bisection
     * bandwidth then uses 400 Gb/s, the FabricNetDevice default.
     * \param rate the line rate (bit/s)
     */
    void SetLinkRate(DataRate rate);

    /**
     * \brief Split the nodes over MPI ranks (ns-3's system ids): servers in contiguous blocks,
     *        a server's GPUs (and NVSwitches, ServerHelper) together; a leaf with the servers
     *        it serves (a rail group's leaves spread over the group's servers' ranks); spines,
     *        and cores, round robin; a pod's aggregation switches with its leaves. With more
     *        ranks than servers, one server per rank and the leaves round robin over all.
     *        Check() fails if a rank would hold no node.
     * \param ranks the number of ranks (default 1: every node on rank 0)
     */
    void SetRanks(uint32_t ranks);

    /**
     * \return one line: how many servers, GPUs and switches each rank holds (after Install())
     */
    std::string GetSplit() const;

    /**
     * \brief Check that the parameters describe a fat-tree that can be built.
     * \return an empty string if it can be built, else one line naming the first violated
     *         constraint with its numbers
     */
    std::string Check() const;

    /**
     * \brief Build the fat-tree on a fabric helper that has nothing installed yet: GPU nodes
     *        with their NICs (first, in rank order), switch nodes, the cables, the routes
     *        (FabricHelper::ComputeRoutes()). Aborts if Check() is not empty.
     * \param fabric the fabric helper (its device, channel, transport and switch attributes
     *        apply)
     */
    void Install(FabricHelper& fabric);

    /**
     * \brief Build the same fat-tree for the flow level alone: the same nodes (GPUs first, in
     *        rank order, then the switches, with the same names and node ids), the same
     *        cables in the same order, and the routes (FlowFabric::ComputeRoutes()), without
     *        devices. Aborts if Check() is not empty.
     * \param flow the flow-level fabric (its parameters set)
     */
    void Install(FlowFabric& flow);

    /// \return number of tiers of switches (2 or 3)
    uint32_t GetTiers() const;
    /// \return the radix k (ports per switch)
    uint32_t GetRadix() const;
    /// \return number of servers
    uint32_t GetNServers() const;
    /// \return GPUs per server
    uint32_t GetGpusPerServer() const;
    /// \return NICs per server (the GPUs per server unless SetNicsPerServer() said otherwise)
    uint32_t GetNicsPerServer() const;
    /// \return true if rail-optimized
    bool IsRailOptimized() const;
    /// \return number of GPUs (servers x GPUs per server)
    uint32_t GetNGpus() const;

    /// \return host ports per leaf (`down`); needs an empty Check()
    uint32_t GetNLeafDownLinks() const;
    /// \return uplinks per leaf (`up`); needs an empty Check()
    uint32_t GetNLeafUpLinks() const;
    /// \return number of leaves (edge switches); needs an empty Check()
    uint32_t GetNLeaves() const;
    /// \return number of spines (2 tiers; 0 in 3 tiers); needs an empty Check()
    uint32_t GetNSpines() const;
    /// \return number of pods (3 tiers; 0 in 2 tiers); needs an empty Check()
    uint32_t GetNPods() const;
    /// \return leaf slots per pod (3 tiers: k/2, or the rails of the groups a pod holds; 0 in
    ///         2 tiers); needs an empty Check()
    uint32_t GetNLeavesPerPod() const;
    /// \return aggregation switches per pod (3 tiers; 0 in 2 tiers); needs an empty Check()
    uint32_t GetNAggregationsPerPod() const;
    /// \return number of aggregation switches in all pods; needs an empty Check()
    uint32_t GetNAggregations() const;
    /// \return number of core switches (3 tiers; 0 in 2 tiers); needs an empty Check()
    uint32_t GetNCores() const;
    /// \return number of switches of every tier; needs an empty Check()
    uint32_t GetNSwitches() const;
    /// \return number of links (cables), GPU links included; needs an empty Check()
    uint64_t GetNLinks() const;

    /**
     * \param rank a GPU rank
     * \return the index of the leaf the GPU's NIC is attached to; needs an empty Check()
     */
    uint32_t GetLeafOfGpu(uint32_t rank) const;

    /**
     * \param leaf a leaf index
     * \return the pod of that leaf (3 tiers; 0 in 2 tiers); needs an empty Check()
     */
    uint32_t GetPodOfLeaf(uint32_t leaf) const;

    /// \return the link rate used for the bisection bandwidth (see SetLinkRate())
    DataRate GetLinkRate() const;

    /**
     * \brief The bisection bandwidth of the tree as built (needs an empty Check()).
     *
     * The cut: the GPUs taken in leaf order (leaf 0's GPUs first, in port order) are split
     * into half A, the first floor(N/2), and half B, the rest; with whole leaves (and pods)
     * on each side whenever the counts allow. The figure is the largest rate at which half A
     * can send to half B, one direction, every link carrying R = GetLinkRate() each way; by
     * max-flow/min-cut it is the smallest capacity of a set of links whose removal separates
     * A from B. For this tree it is
     *
     *   R * ( sum_l m_l + min( sum_l min(a_l - m_l, up), sum_l min(b_l - m_l, up) ) )
     *
     * where a_l and b_l are leaf l's GPUs in A and in B and m_l = min(a_l, b_l) is what A sends
     * to B inside leaf l. Only the leaves' uplinks can be narrower than the GPU links: spines
     * reach every leaf, aggregation switches are 1:1, and a pod's up * k/2 core links carry
     * all its leaves' uplinks. With full leaves split whole it is R * (N/2) * min(1, up/down):
     * N/2 x R when non-blocking, a quarter of that at 4:1.
     * \return the bisection bandwidth
     */
    DataRate GetBisectionBandwidth() const;

    /**
     * \brief One line: topology, GPUs, servers, switches per tier, links, bisection bandwidth.
     *
     * e.g. "fat-tree 2-tier, radix 8, 1:1: 16 GPUs (16 servers x 1), switches: 4 leaves,
     * 4 spines; 32 links; bisection 3.20 Tb/s". If Check() is not empty, the line says why
     * the tree cannot be built.
     * \return the summary
     */
    std::string Summary() const;

    /**
     * \param server a server index
     * \param local a GPU index within the server
     * \return that GPU's node (after Install())
     */
    Ptr<Node> GetGpu(uint32_t server, uint32_t local) const;

    /**
     * \param rank a GPU rank (server * gpusPerServer + local)
     * \return that GPU's node (after Install())
     */
    Ptr<Node> GetGpuByRank(uint32_t rank) const;

    /// \return every GPU node, in rank order (after Install())
    NodeContainer GetGpus() const;

    /**
     * \param rank a GPU rank
     * \return the node that holds the GPU's NIC (the GPU's own with a NIC per GPU; after
     *         Install())
     */
    Ptr<Node> GetNicNode(uint32_t rank) const;

    /// \return the GPU of each rank's NIC node, in rank order (GetNicNode(); after Install())
    NodeContainer GetNicNodes() const;

    /// \return the nodes that hold a NIC, server by server (the fabric's hosts; after Install())
    NodeContainer GetNics() const;

    /**
     * \param i a leaf index (3 tiers: pod-major, pod p holds leaves
     *        p * GetNLeavesPerPod() onward)
     * \return that leaf's node (after Install())
     */
    Ptr<Node> GetLeaf(uint32_t i) const;

    /**
     * \param j a spine index (2 tiers)
     * \return that spine's node (after Install())
     */
    Ptr<Node> GetSpine(uint32_t j) const;

    /**
     * \param pod a pod index (3 tiers)
     * \param i an aggregation switch index within the pod
     * \return that switch's node (after Install())
     */
    Ptr<Node> GetAggregation(uint32_t pod, uint32_t i) const;

    /**
     * \param i a core switch index (3 tiers)
     * \return that switch's node (after Install())
     */
    Ptr<Node> GetCore(uint32_t i) const;

  private:
    /// The sizes that follow from the parameters
    struct Layout
    {
        uint32_t gpus{0};         //!< GPUs
        uint32_t hosts{0};        //!< NICs (the fabric's hosts)
        uint32_t down{0};         //!< host ports per leaf
        uint32_t up{0};           //!< uplinks per leaf
        uint32_t leaves{0};       //!< leaves
        uint32_t leavesPerPod{0}; //!< leaf slots per pod (2 tiers: all leaves)
        uint32_t pods{0};         //!< pods (2 tiers: 0)
        uint32_t spines{0};       //!< spines (3 tiers: 0)
        uint32_t aggsPerPod{0};   //!< aggregation switches per pod (2 tiers: 0)
        uint32_t cores{0};        //!< core switches (2 tiers: 0)
        uint64_t links{0};        //!< cables
    };

    /**
     * \brief Derive the sizes from the parameters.
     * \param layout the sizes, filled when the parameters are valid
     * \return an empty string, or the violated constraint (one line)
     */
    std::string Plan(Layout& layout) const;

    /// \return the sizes; aborts if the parameters are not valid
    Layout GetLayout() const;

    /**
     * \param layout the sizes
     * \param leaf a leaf index
     * \return the number of NICs attached to that leaf
     */
    uint32_t HostsOnLeaf(const Layout& layout, uint32_t leaf) const;

    /**
     * \param layout the sizes
     * \param host a NIC (server-major: server x NICs per server + its index)
     * \return its leaf
     */
    uint32_t LeafOfHost(const Layout& layout, uint32_t host) const;

    /// \return NICs per server (GPUs per server when not set)
    uint32_t HostsPerServer() const;

    /**
     * \brief Create the nodes, install them on the fabric and cable them (both Install()s).
     * \param fabric a FabricHelper or a FlowFabric
     */
    template<class Builder>
    void Wire(Builder& fabric);

    /// Abort unless Install() has run
    void RequireInstalled() const;

    /// Abort if Install() has run (the parameters are fixed once the tree is built)
    void RequireNotInstalled() const;

    /**
     * \param s a server
     * \return its rank
     */
    uint32_t RankOfServer(uint32_t s) const;

    /**
     * \param layout the sizes
     * \param i a leaf
     * \return its rank
     */
    uint32_t RankOfLeaf(const Layout& layout, uint32_t i) const;

    uint32_t m_ranks{1};            //!< MPI ranks the nodes are split over
    uint32_t m_tiers{2};            //!< 2 or 3
    uint32_t m_servers{1};          //!< servers
    uint32_t m_gpusPerServer{1};    //!< GPUs per server
    uint32_t m_nicsPerServer{0};    //!< NICs per server (0: one per GPU)
    uint32_t m_radix{64};           //!< ports per switch
    uint32_t m_ratioDown{1};        //!< oversubscription, host side
    uint32_t m_ratioUp{1};          //!< oversubscription, uplink side
    bool m_rail{false};             //!< rail-optimized attachment
    DataRate m_linkRate{"400Gb/s"}; //!< line rate for the bisection bandwidth
    bool m_linkRateSet{false};      //!< SetLinkRate() was called
    bool m_installed{false};        //!< Install() has run
    NodeContainer m_gpus;           //!< GPUs, in rank order
    NodeContainer m_nics;           //!< the GPUs that hold a NIC, server by server
    NodeContainer m_leaves;         //!< leaves
    NodeContainer m_spines;         //!< spines (2 tiers)
    NodeContainer m_aggregations;   //!< aggregation switches, pod-major (3 tiers)
    NodeContainer m_cores;          //!< core switches (3 tiers)
};

} // namespace ns3

#endif /* FAT_TREE_HELPER_H */
