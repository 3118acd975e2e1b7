/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_FLOW_ROUTER_H
#define FABRIC_FLOW_ROUTER_H

#include "ns3/flow-router.h"
#include "ns3/node-container.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricHelper;
class FabricNetDevice;
class FaultInjector;
class RdmaTransport;

/**
 * \ingroup ai-fabric
 * \brief The flow level's routes on a fabric built by a FabricHelper (and the GPUs' NVLink):
 *        every port a link, every connection the path its QP's frames would take.
 *
 * Each port that a route crosses becomes a FlowNetwork link of the port's data rate, in the
 * direction it sends. A connection between two NICs gets the QP numbers the packet engine
 * would give its two QPs (each NIC counts its QPs in the order the connections open), hence
 * the same flow entropy, and FabricHelper::TraceRdmaPath() walks the switches' tables with
 * it: the same ECMP hash, LFT entry or dimension-order hop. The data crosses that path; its
 * ACKs (one per packet, RdmaQueuePair's AckInterval of 1) cross the peer QP's path the other
 * way, taking ACK bytes per data packet's bytes there. A NIC with a PCIe rate has its PCIe
 * link as one more link. A GPU's NVLink ports are one link each way, their rates summed (the
 * transport sprays packets over them); the NVSwitch between is non-blocking.
 *
 * The fixed costs come from the same objects: the NIC's TxLatency and RxLatency, each
 * cable's delay, each switch's PortLatency and cut-through, the ports' rates.
 *
 * Failures (Follow()): when the FaultInjector fails or repairs cables, each link's capacity
 * becomes the rate of its ports whose cables are up (a flow on a failed cable stops: the
 * packet level loses what it sends there until the reroute, and resends it); when the
 * injector's reroute has put new tables in the switches, every connection is traced again and
 * the flows of the ones whose path changed go on with their remaining bytes on the new path.
 */
class FabricFlowRouter : public FlowRouter
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricFlowRouter();
    ~FabricFlowRouter() override;

    /**
     * \param fabric the fabric (built and routed; kept, not owned: it must outlive the run),
     *        or nullptr for GPUs on NVLink alone
     * \param ranks the GPUs, by rank
     * \param nics the node of each rank's NIC, by rank (empty: every GPU's own; GPUs that share
     *        a NIC share its port and PCIe link)
     */
    void Setup(const FabricHelper* fabric,
               NodeContainer ranks,
               NodeContainer nics = NodeContainer());

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
    bool Retrace(FlowRoute& route) override;

    /**
     * \brief Follow an injector's failures: the links' capacities on its Fault trace, the
     *        routes on its Reroute trace.
     * \param injector the fabric's fault injector
     */
    void Follow(Ptr<FaultInjector> injector);

    /// \brief Set each link's capacity from its ports whose cables are up.
    void UpdateLinks();

    /// \return the longest retransmission timeout of the connections' QPs (0: none)
    Time GetRetransmissionTimeout() const;

    /**
     * \param node a node
     * \return its ns-3 name, or "node<id>" if it has none (GetLinkName())
     */
    static std::string NodeName(Ptr<Node> node);

    /**
     * \brief A GPU's NVLink as the flow level sees it (FlowFabric copies it to every GPU).
     * \param rank a rank
     * \param out its NVLink ports' rates summed, sending
     * \param in the switch ports' toward it, summed
     * \param unicast the fixed costs of a packet to a peer (its path unset)
     * \param nvls those of an NVLS packet
     * \return false if the rank has no NVLink (then nvls is false too)
     */
    bool GetNvLink(uint32_t rank,
                   DataRate& out,
                   DataRate& in,
                   FlowRoute& unicast,
                   FlowRoute& nvls,
                   bool& hasNvls) const;

    /**
     * \brief Count the bytes and packets each link carried on its ports (FabricNetDevice
     *        counters), as the packet level counts what it sends: call once, at the end.
     */
    void AccountPorts() const;

  protected:
    void DoDispose() override;

  private:
    /// A GPU.
    struct Gpu
    {
        Ptr<Node> node;             //!< its node
        Ptr<Node> nicNode;          //!< its NIC's node (its own, or a peer's it shares)
        Ptr<RdmaTransport> nic;     //!< its NIC's transport (none: NVLink only)
        uint32_t address{0};        //!< its NIC's fabric address
        int64_t domain{-1};         //!< its NVLink domain (-1: none)
        uint32_t nvOut{UINT32_MAX}; //!< NVLink egress link
        uint32_t nvIn{UINT32_MAX};  //!< NVLink ingress link
        bool nvls{false};           //!< its switches reduce and multicast
        FlowRoute nvRoute;          //!< NVLink's fixed costs (unicast)
        FlowRoute nvlsRoute;        //!< NVLS packets' fixed costs
        uint32_t pcie{UINT32_MAX};  //!< the NIC's PCIe link (none if not limited)
        DataRate outRate;           //!< NVLink egress rate (ports summed)
        DataRate inRate;            //!< NVLink ingress rate
    };

    /**
     * \param port a port
     * \return its link (added on first use)
     */
    uint32_t LinkOf(Ptr<FabricNetDevice> port);

    /**
     * \param ports a path's ports, the sender's first
     * \param first filled: the first link's serialization (s/byte)
     * \param fixed filled: the cables' delays
     * \param hops filled: the switches
     */
    void Describe(const std::vector<Ptr<FabricNetDevice>>& ports,
                  double& first,
                  Time& fixed,
                  std::vector<FlowHop>& hops) const;

    /// \param g a GPU with NVLink: its links and routes
    void SetupNvLink(Gpu& g);

    /// A connection between two NICs, as resolved.
    struct Connection
    {
        uint32_t a{0};         //!< the first rank
        uint32_t b{0};         //!< the second
        uint32_t mtu{0};       //!< payload bytes per packet
        Time timeout;          //!< the QPs' retransmission timeout
        uint32_t entropyAb{0}; //!< its QP's flow entropy, a to b
        uint32_t entropyBa{0}; //!< b to a
    };

    /**
     * \brief Trace a connection's direction over the current tables.
     * \param c the connection
     * \param forward a to b (else b to a)
     * \param route filled (its path added to the network unless it is route's already)
     * \return false if there is no route now
     */
    bool Trace(const Connection& c, bool forward, FlowRoute& route);

    /// \param what the injector's record: links' capacities from their cables
    void OnFault(const std::string& what);
    /// \param what the injector's record: retrace the routes
    void OnReroute(const std::string& what);

    const FabricHelper* m_fabric{nullptr};                             //!< the fabric
    Ptr<FlowNetwork> m_network;                                        //!< its links
    std::vector<Gpu> m_gpus;                                           //!< by rank
    std::unordered_map<const FabricNetDevice*, uint32_t> m_linkOfPort; //!< port -> link
    std::vector<std::vector<Ptr<FabricNetDevice>>> m_portsOfLink;      //!< link -> its ports
    std::vector<Connection> m_connections;                 //!< resolved (FlowRoute::connection)
    std::unordered_map<uint32_t, std::string> m_linkNames; //!< the links of no single port
};

} // namespace ns3

#endif /* FABRIC_FLOW_ROUTER_H */
