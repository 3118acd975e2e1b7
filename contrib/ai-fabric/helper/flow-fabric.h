/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FLOW_FABRIC_H
#define FLOW_FABRIC_H

#include "ns3/data-rate.h"
#include "ns3/flow-router.h"
#include "ns3/node-container.h"

#include <vector>

namespace ns3
{

class FabricHelper;

/**
 * \ingroup ai-fabric
 * \brief The flow level's fabric without devices: the graph a topology helper cables, the
 *        routes the switches would hold, and the links of a FlowNetwork, for fabrics too large
 *        to build port by port (16,384 GPUs and more).
 *
 * A topology helper builds it as it builds a FabricHelper (FatTreeHelper::Install(FlowFabric&)):
 * the same nodes with the same ids and names (plain ns-3 Nodes: the GPUs carry the
 * collectives' applications; the switches are nodes only for their ids, which seed their
 * ECMP hash), the same cables in the same order, so every node's ports have the indices the
 * devices would have. ComputeRoutes() then finds, for every switch and every switch that hosts
 * attach to, the ports one hop closer (all shortest paths, as EcmpRoutingEngine), computed once
 * per attachment switch rather than per host and kept as one group index per (switch,
 * attachment switch): memory grows as switches x leaves, not as vertices x hosts.
 *
 * A connection between two NICs gets the QP numbers the packet engine would give (each NIC
 * counts its QPs in the order connections open), hence the same entropy, and each switch on
 * the way picks among its equal-cost ports as it would (FabricHelper::SelectEqualCostPort():
 * RoCEv2's ECMP hash with the switch's seed). The fabric helper is asked only for addresses
 * and that choice; it builds nothing. InfiniBand's tables (one port per LID, from the subnet
 * manager's engines) are not reproduced here: an InfiniBand fabric at the flow level is built
 * with its devices (FabricFlowRouter).
 *
 * Fixed costs are those FabricFlowRouter finds on a built sample of the same fabric
 * (Parameters, from Sample()): the fabric must be uniform (one link rate, one cable delay,
 * one switch latency and forwarding mode), which the fat-tree is. A route through k switches
 * pays the sender NIC's latency, k + 1 cables, k switches and the receiver NIC's latency, as
 * FabricFlowRouter would compute it port by port. A test checks both on the same trees: the
 * same links, weights and costs for every connection.
 */
class FlowFabric : public FlowRouter
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowFabric();
    ~FlowFabric() override;

    /// What every NIC, port, cable and switch share; and every GPU's NVLink.
    struct Parameters
    {
        FlowRoute nic;             //!< a NIC connection through one switch (path unset)
        Time cableDelay;           //!< every cable's delay
        Time txLatency;            //!< the sending NIC's latency (in nic.fixed)
        DataRate linkRate;         //!< every fabric port's rate
        DataRate pcieRate;         //!< each NIC's PCIe (0: not limited)
        uint32_t gpusPerDomain{0}; //!< GPUs per NVLink domain (0: no NVLink)
        DataRate nvOut;            //!< a GPU's NVLink egress (ports summed)
        DataRate nvIn;             //!< its ingress
        FlowRoute nvRoute;         //!< an NVLink packet's fixed costs (path unset)
        FlowRoute nvlsRoute;       //!< an NVLS packet's
        bool nvls{false};          //!< the NVSwitches reduce and multicast
    };

    /**
     * \brief Read the parameters off a built fabric of the same kind (a small sample).
     * \param fabric the sample, built and routed
     * \param gpus its GPUs by rank: two servers at least, rank 0 and rank gpusPerServer on one
     *        leaf (rail-optimized, or one GPU per server)
     * \param gpusPerServer GPUs per server (and NVLink domain, if they have NVLink)
     * \param parameters filled
     * \return an empty string, or why the sample cannot stand for the fabric (one line)
     */
    static std::string Sample(const FabricHelper& fabric,
                              NodeContainer gpus,
                              uint32_t gpusPerServer,
                              Parameters& parameters);

    /**
     * \param parameters the shared costs (before InstallHosts())
     * \param fabric the fabric helper whose addresses and equal-cost choice apply (not built;
     *        kept, not owned: it must outlive the run)
     */
    void Setup(const Parameters& parameters, const FabricHelper* fabric);

    // What a topology helper calls, as on a FabricHelper.

    /// \param hosts hosts (GPUs, in rank order), each with one NIC port
    void InstallHosts(NodeContainer hosts);
    /// \param switches switches
    void InstallSwitches(NodeContainer switches);
    /**
     * \brief Cable two nodes: each gets its next port.
     * \param a a node
     * \param b another
     */
    void Connect(Ptr<Node> a, Ptr<Node> b);
    /// Compute the routes (after the last Connect()).
    void ComputeRoutes();

    /**
     * \param ranks the GPUs by rank (the hosts, in the order installed)
     */
    void SetRanks(NodeContainer ranks);

    Ptr<FlowNetwork> GetNetwork() const override;
    bool IsNvLinkPeer(uint32_t a, uint32_t b) const override;
    int64_t GetNvLinkDomain(uint32_t rank) const override;
    bool GetNvls(uint32_t rank, uint32_t& out, uint32_t& in, FlowRoute& route) override;
    bool Resolve(uint32_t a,
                 uint32_t b,
                 uint32_t channel,
                 FlowRoute& ab,
                 FlowRoute& ba,
                 std::string& error) override;
    std::string GetLinkName(uint32_t link) const override;

    /// \return vertices (hosts and switches)
    uint32_t GetNVertices() const;
    /// \return cables
    uint64_t GetNCables() const;

  protected:
    void DoDispose() override;

  private:
    /// A link's owner that is a GPU's NVLink egress, not a port (m_linkOwner).
    static constexpr uint32_t NV_OUT = UINT32_MAX;
    /// A GPU's NVLink ingress.
    static constexpr uint32_t NV_IN = UINT32_MAX - 1;
    /// A NIC's PCIe.
    static constexpr uint32_t PCIE = UINT32_MAX - 2;
    /// No such thing (a link not added, a switch no host attaches to).
    static constexpr uint32_t NONE = UINT32_MAX;

    /// A port: where its cable goes, and its link once a route crosses it.
    struct Port
    {
        uint32_t peer{0};     //!< the vertex at the other end
        uint32_t peerPort{0}; //!< the port there
        uint32_t link{NONE};  //!< its FlowNetwork link (sending), added on first use
    };

    /// A host or a switch.
    struct Vertex
    {
        Ptr<Node> node;              //!< its node
        bool host{false};            //!< a host (does not forward)
        uint32_t index{0};           //!< host: endpoint index; switch: attachment index or
                                     //!< UINT32_MAX if no host attaches to it
        std::vector<Port> ports;     //!< by port index
        std::vector<uint32_t> group; //!< switch: group index by attachment index
        std::vector<std::vector<uint16_t>> groups; //!< switch: equal-cost ports, port order
    };

    /**
     * \param from a vertex
     * \param port one of its ports
     * \return the link it sends on (added on first use)
     */
    uint32_t LinkOf(uint32_t from, uint32_t port);

    /**
     * \brief The ports an RDMA data frame leaves by, sender's first.
     * \param src the sending host's vertex
     * \param dst the receiving host's vertex
     * \param entropy the QP's
     * \param hops filled: (vertex, port) per hop
     * \return false if a switch on the way has no route
     */
    bool Trace(uint32_t src,
               uint32_t dst,
               uint16_t entropy,
               std::vector<std::pair<uint32_t, uint32_t>>& hops) const;

    /**
     * \param forward switches on the data's path
     * \param back switches on the ACKs' path
     * \return the fixed costs of a NIC connection through them (path unset)
     */
    FlowRoute NicRoute(uint32_t forward, uint32_t back) const;

    /**
     * \param node a node
     * \param host true for a host
     * \return its new vertex
     */
    uint32_t AddVertex(Ptr<Node> node, bool host);

    /**
     * \param node a node
     * \return its vertex (aborts if it has none)
     */
    uint32_t VertexOf(Ptr<Node> node) const;

    Parameters m_parameters;               //!< shared costs
    const FabricHelper* m_fabric{nullptr}; //!< addresses and equal-cost choice
    Ptr<FlowNetwork> m_network;            //!< its links
    std::vector<Vertex> m_vertices;        //!< hosts and switches
    std::vector<uint32_t> m_vertexOfNode;  //!< by node id (UINT32_MAX: not here)
    std::vector<uint32_t> m_hosts;         //!< vertex by endpoint index
    std::vector<uint32_t> m_attachments;   //!< switch vertex by attachment index
    std::vector<uint32_t> m_rankHost;      //!< host vertex by rank
    std::vector<uint32_t> m_nextQpn;       //!< by endpoint: QPs opened
    std::vector<uint32_t> m_nvOut;         //!< by rank: NVLink egress link
    std::vector<uint32_t> m_nvIn;          //!< by rank: NVLink ingress link
    std::vector<uint32_t> m_pcie;          //!< by rank: PCIe link (UINT32_MAX: none)
    /// link -> (vertex, port), or (rank, NV_OUT, NV_IN or PCIE)
    std::vector<std::pair<uint32_t, uint32_t>> m_linkOwner;
    uint64_t m_cables{0}; //!< cables
};

} // namespace ns3

#endif /* FLOW_FABRIC_H */
