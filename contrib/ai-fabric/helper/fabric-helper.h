/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_HELPER_H
#define FABRIC_HELPER_H

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-port-parts.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-topology.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/trace-helper.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What every fabric helper does, whatever the fabric: hosts with one port and an RC
 * transport each, switches, the cables between them, and the fabric graph beside them.
 *
 * Hosts get consecutive fabric addresses in the order they are installed (IPv4 addresses on
 * RoCEv2, LIDs on InfiniBand). Every Connect() adds one cable and, on a switch, one port.
 * Call ComputeRoutes() once the fabric is complete. Each fabric's helper (RoceFabricHelper,
 * IbFabricHelper) creates its own ports and switches and computes its own tables; topology
 * helpers, collectives and programs take a FabricHelper and work on either.
 */
class FaultInjector;

class FabricHelper : public PcapHelperForDevice
{
  public:
    FabricHelper();
    ~FabricHelper() override;

    /**
     * \brief Set an attribute of the fabric's ports: of the NIC ports, the switch ports, or
     *        both, whichever type has it (aborts if neither has).
     * \param name attribute of the fabric's port types
     * \param value its value
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Give every port a part of the given type instead of its own (a port's parts are
     *        its pointer attributes: "Marker", ...). Aborts if the fabric's port type has no
     *        such part.
     * \param part the port's pointer attribute
     * \param type the TypeId name of the part to create for each port
     */
    void SetPortPart(const std::string& part, const std::string& type);
    /**
     * \brief Set an attribute of a part of every port that has the part (the part created by
     *        SetPortPart(), or the port's own). Aborts if the fabric's port type has no such
     *        part; ns-3 aborts when a port is created if the part has no such attribute.
     * \param part the port's pointer attribute ("Marker", ...)
     * \param name an attribute of the part
     * \param value its value
     */
    void SetPortPartAttribute(const std::string& part,
                              const std::string& name,
                              const AttributeValue& value);
    /**
     * \param name attribute of ns3::FabricChannel
     * \param value its value
     */
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::RdmaTransport
     * \param value its value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::RdmaQueuePair, for the QPs of every transport
     * \param value its value
     */
    void SetQueuePairAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the congestion control of every QP of the hosts installed
     *        from now on (choose the algorithm with SetTransportAttribute("CongestionControl")).
     * \param name attribute name (e.g. of ns3::RdmaCcDcqcn)
     * \param value its value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Choose the QPs' congestion control (`--cc=NAME`): a name registered with
     *        RdmaCcRegistration (none, dcqcn, ibcc, ...) or the TypeId name of any subclass of
     *        ns3::RdmaCongestionControl. Sets the transports' CongestionControl, and what the
     *        fabric needs beside it (InfiniBand's switch marking for ibcc).
     * \param name the algorithm
     * \return "" on success, else why not (an unknown name, or one made for another fabric)
     */
    std::string SetCongestionControl(const std::string& name);

    /// \return the fabric's short name, as the programs' --fabric and RdmaCcRegistration use
    ///         it ("roce", "ib")
    virtual const char* GetFabricName() const = 0;

    /**
     * \name What programs, topologies, statistics and failures ask of a fabric
     * Each fabric's helper (its plug-in) answers; no code outside it tests which fabric runs.
     * \{
     */
    /**
     * \return bytes of line time an RDMA data packet takes beyond its payload: every header
     *         and trailer, and the link's per-frame overhead (a message's first packet also
     *         carries a RETH, not counted)
     */
    virtual uint32_t GetRdmaOverheadBytes() const = 0;

    /**
     * \param mtu the RDMA path MTU
     * \return payload bytes per byte of line time for full packets: mtu / (mtu + overhead)
     */
    double GetRdmaWireEfficiency(uint32_t mtu) const;

    /**
     * \param sw a switch this helper installed
     * \return the time a frame spends in it beyond serialization (its FabricSwitch's
     *         PortLatency)
     */
    virtual Time GetSwitchLatency(Ptr<Node> sw) const;

    /**
     * \brief Set how fast this fabric notices a failure and reroutes around it: the
     *        injector's DetectionDelay and RerouteDelay.
     * \param injector the fault injector
     */
    virtual void SetRecoveryDelays(Ptr<FaultInjector> injector) const = 0;

    /**
     * \brief The link between a host's memory (a GPU's, over PCIe) and its NIC runs at this
     *        rate: the NIC's receive side drains no faster, where the fabric models it.
     * \param host a host this helper installed
     * \param rate the rate
     */
    virtual void SetHostRate(Ptr<Node> host, DataRate rate) = 0;

    /**
     * \brief Give the switches a second lossless class for datelines (torus deadlock
     *        avoidance): InfiniBand's second data VL, RoCEv2's second lossless priority.
     * \param switches the switches whose routes cross datelines
     * \param host a host this helper installed (its NIC's settings)
     * \return "" or why the fabric's setting leaves datelines without effect
     */
    virtual std::string EnableDatelineClass(const NodeContainer& switches, Ptr<Node> host) = 0;

    /**
     * \brief Size the switches' buffering (before installing them): a RoCEv2 switch's shared
     *        buffer, an InfiniBand port's buffer per VL.
     * \param bytes the size
     * \return "" or why the fabric cannot take it
     */
    virtual std::string SetSwitchBuffer(uint64_t bytes) = 0;

    /// \return how the fabric routes, for reports ("ecmp"; InfiniBand: its routing engine)
    virtual std::string GetRoutingName() const = 0;

    /**
     * \param host a host this helper installed
     * \return the traffic class its RDMA data travels in: a PFC priority (RoCEv2), a data VL
     *         (InfiniBand)
     */
    virtual uint8_t GetRdmaClass(Ptr<Node> host) const = 0;

    /**
     * \brief Read the BTH opcode of a frame of this fabric, as a port sends it.
     * \param frame the frame
     * \param opcode set to its BTH opcode
     * \return false if the frame carries no BTH (link-level flow control: PFC, credits)
     */
    virtual bool ReadRdmaOpcode(Ptr<const Packet> frame, uint8_t& opcode) const = 0;

    /**
     * \param sw a switch this helper installed
     * \return the pause frames its buffer manager asked for (PFC); 0 for a switch without a
     *         buffer manager (where credits rule)
     */
    virtual uint64_t GetSwitchPausesSent(Ptr<Node> sw) const;

    /**
     * \brief One line on the fabric's link-level control for a report's header.
     * \param congestionControl how the report names the congestion control in use
     * \return "PFC on, ECN on, <congestionControl>" (RoCEv2), "InfiniBand (credit-based flow
     *         control)"
     */
    virtual std::string DescribeLinkControl(const std::string& congestionControl) const = 0;

    /// \return the fabric's name in reports ("RoCEv2", "InfiniBand")
    virtual const char* GetDisplayName() const = 0;

    /// \return its link layer as perftest names it ("Ethernet", "IB")
    virtual const char* GetLinkLayerName() const = 0;

    /// One setting a fabric takes from the command line (--NAME=VALUE).
    struct Option
    {
        std::string name;         //!< the flag, without dashes
        std::string help;         //!< one line for --help
        std::string defaultValue; //!< its value when not given
        bool flag{false};         //!< a boolean: true or false
    };

    /// \return the settings this fabric takes (none in the base class)
    virtual std::vector<Option> GetOptions() const;

    /**
     * \param name an option's name
     * \return true if GetOptions() has it
     */
    bool HasOption(const std::string& name) const;

    /**
     * \brief Apply one of GetOptions() (before installing anything).
     * \param name its name
     * \param value its value
     * \return "" or why the value is refused (one line, without the option's name)
     */
    virtual std::string SetOption(const std::string& name, const std::string& value);

    /**
     * \brief Apply the options this fabric has among the given ones and leave the others
     *        (another fabric's settings, which do not apply here). The values must be valid.
     * \param options names and values
     */
    void ApplyOptions(const std::vector<std::pair<std::string, std::string>>& options);
    /** \} */

    /**
     * \brief Create the helper of a fabric by its short name (--fabric).
     * \param name a name registered with FabricHelperRegistration ("roce", "ib")
     * \return the helper, or nullptr for an unknown name
     */
    static std::unique_ptr<FabricHelper> CreateByName(const std::string& name);
    /**
     * \param name attribute of the fabric's switch forwarding object
     * \param value its value
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Give each node a port and an RC transport.
     * \param hosts the hosts
     * \return their ports
     */
    NetDeviceContainer InstallHosts(NodeContainer hosts);

    /**
     * \brief Make each node a switch (ports are added by Connect()).
     * \param switches nodes without devices
     */
    void InstallSwitches(NodeContainer switches);

    /**
     * \brief Cable two nodes (host or switch).
     * \param a one end
     * \param b the other end
     * \return the two ports, a's first
     */
    NetDeviceContainer Connect(Ptr<Node> a, Ptr<Node> b);

    /// Fill every switch's forwarding table from the fabric graph.
    virtual void ComputeRoutes() = 0;

    /**
     * \brief Route with this engine instead of the fabric's own (ECMP on RoCEv2, the subnet
     *        manager's engine on InfiniBand), e.g. dimension-order routing on a torus.
     * \param engine the engine (nullptr: the fabric's own again)
     */
    void UseRoutingEngine(Ptr<FabricRoutingEngine> engine);

    /// \return the engine set by UseRoutingEngine(), or nullptr
    Ptr<FabricRoutingEngine> GetCustomRoutingEngine() const;

    /**
     * \brief Check the routes of the last ComputeRoutes() against the links that are up.
     * \return empty, or the first switch that is connected to an endpoint but has no route to
     *         it ("torus0-0 has no route to gpu1"), as dimension-order routing leaves behind a
     *         failed link
     */
    std::string FindMissingRoute() const;

    /**
     * \param host a host installed by InstallHosts()
     * \return its port
     */
    Ptr<FabricNetDevice> GetHostPort(Ptr<Node> host) const;

    /**
     * \param host a host
     * \return its RC transport
     */
    Ptr<RdmaTransport> GetTransport(Ptr<Node> host) const;

    /**
     * \param host a host
     * \return its fabric address (IPv4 address as an integer, or LID)
     */
    uint32_t GetHostAddress(Ptr<Node> host) const;

    /// \return the fabric graph
    Ptr<FabricTopology> GetTopology() const;

    /**
     * \brief The ports an RDMA data frame leaves by on its way from a host to another, as the
     *        switches forward it now (the flow level's paths are the packet level's).
     * \param host the sending host
     * \param dst the receiving host's fabric address (its base address)
     * \param entropy the sending QP's flow entropy (RdmaTransport::EntropyOf)
     * \return the sending host's port first, then each switch's egress port; empty if the frame
     *         would be dropped on the way (no route, a link down, a loop, another host)
     */
    std::vector<Ptr<FabricNetDevice>> TraceRdmaPath(Ptr<Node> host,
                                                    uint32_t dst,
                                                    uint16_t entropy) const;

    /// \return every cable created, in creation order
    const std::vector<Ptr<FabricChannel>>& GetChannels() const;

    /**
     * \brief For routes traced without devices (FlowFabric): which of a switch's equal-cost
     *        ports (in port order) an RDMA data frame leaves by, as the switch would pick it.
     * \param switchNode the switch's node id
     * \param src the sender's fabric address
     * \param dst the receiver's fabric address
     * \param entropy the sending QP's flow entropy
     * \param n the equal-cost ports (at least 2)
     * \return an index below n, or n if this fabric's switches do not pick by a hash of the
     *         frame (the base class; InfiniBand's tables hold one port per LID)
     */
    virtual uint32_t SelectEqualCostPort(
        uint32_t switchNode, uint32_t src, uint32_t dst, uint16_t entropy, uint32_t n) const;

    /**
     * \param endpoint a host's index in installation order (0 for the first)
     * \return the fabric address it gets (installed or not)
     */
    uint32_t GetHostAddressOf(uint32_t endpoint) const;

    /**
     * \brief Use fixed random streams: initial PSNs, then every cabled port's marker
     *        (RoCEv2's ECN).
     * \param stream first stream index
     * \return the number of streams used
     */
    virtual int64_t AssignStreams(int64_t stream);

  protected:
    /**
     * \brief The port a switch forwards an RDMA data frame by (TraceRdmaPath()).
     * \param sw the switch
     * \param host the sending host
     * \param dst the receiving host's base address
     * \param entropy the sending QP's flow entropy
     * \return the port's index, or the switch's port count if it has no route (the base
     *         class: every switch, as a fabric that does not tell)
     */
    virtual uint32_t SelectRdmaEgress(Ptr<Node> sw,
                                      Ptr<Node> host,
                                      uint32_t dst,
                                      uint16_t entropy) const;

    /**
     * \param endpoint the index of the next host (0 for the first)
     * \return its fabric address
     */
    virtual uint32_t HostAddress(uint32_t endpoint) const = 0;

    /**
     * \brief Create a host's port, add it to the node and give it the transport.
     * \param node the host
     * \param address its fabric address
     * \param transport its transport (address already set)
     * \return the port
     */
    virtual Ptr<FabricNetDevice> CreateHostPort(Ptr<Node> node,
                                                uint32_t address,
                                                Ptr<RdmaTransport> transport)
        = 0;

    /**
     * \brief Aggregate the fabric's switch forwarding object to a node.
     * \param node the switch node
     */
    virtual void CreateSwitch(Ptr<Node> node) = 0;

    /**
     * \brief Add a port to a switch node.
     * \param node a node
     * \return the new port, or nullptr if the node is not one of this fabric's switches
     */
    virtual Ptr<FabricNetDevice> CreateSwitchPort(Ptr<Node> node) = 0;

    /// \return the helper's name, for messages
    virtual const char* Name() const = 0;

    /**
     * \brief What the fabric sets beside the transports' CongestionControl for an algorithm
     *        (called by SetCongestionControl()). Nothing in the base class.
     * \param cc the algorithm
     */
    virtual void PrepareCongestionControl(const RdmaCcRegistration::Entry& cc);

    /**
     * \brief The types of the fabric's NIC ports and switch ports (the same type where one
     *        class serves both roles); SetDeviceAttribute() sets an attribute on each that has
     *        it.
     * \param nicPort the NIC ports' type
     * \param switchPort the switch ports' type
     */
    void SetPortTypes(TypeId nicPort, TypeId switchPort);

    ObjectFactory m_nicPortFactory;               //!< NIC ports
    ObjectFactory m_switchPortFactory;            //!< switch ports
    ObjectFactory m_channelFactory;               //!< cables
    ObjectFactory m_switchFactory;                //!< switch forwarding objects
    Ptr<FabricTopology> m_topology;               //!< the graph
    std::vector<Ptr<RdmaTransport>> m_transports; //!< transports, in install order
    Ptr<FabricRoutingEngine> m_customEngine;      //!< UseRoutingEngine()
    std::optional<FabricRouteTable> m_lastRoutes; //!< the last ComputeRoutes()' table

  private:
    /**
     * \param node a host or a switch
     * \return the port to cable (a switch's new port, or the host's port) and its vertex
     */
    std::pair<Ptr<FabricNetDevice>, uint32_t> PortFor(Ptr<Node> node);

    FabricPortParts m_parts; //!< SetPortPart(), SetPortPartAttribute()

    ObjectFactory m_transportFactory;                                        //!< transports
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_qpAttributes; //!< for QPs
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes; //!< for their CC
    std::vector<Ptr<FabricNetDevice>> m_portOfNode;    //!< host port by node id
    std::vector<Ptr<RdmaTransport>> m_transportOfNode; //!< host transport by node id
    std::vector<uint32_t> m_addressOfNode;             //!< host address by node id
    std::vector<uint32_t> m_vertexOfHost;              //!< endpoint vertex by node id
    std::vector<Ptr<FabricChannel>> m_channels;        //!< cables
};

/**
 * \ingroup ai-fabric
 * \brief The fabrics by short name, for FabricHelper::CreateByName() and `--fabric=NAME`.
 *
 * A fabric registers its helper once, with a namespace-scope object in the helper's .cc file:
 *
 * \code
 *   static FabricHelperRegistration g_x("name", [] { return std::make_unique<MyHelper>(); });
 * \endcode
 */
class FabricHelperRegistration
{
  public:
    /// Makes a fabric's helper.
    using Factory = std::function<std::unique_ptr<FabricHelper>()>;

    /**
     * \brief Register a fabric (at static initialization).
     * \param name its short name
     * \param factory makes its helper
     */
    FabricHelperRegistration(const std::string& name, Factory factory);

    /**
     * \param name a short name
     * \return its factory, or nullptr if no fabric has the name
     */
    static const Factory* Find(const std::string& name);

    /// \return the registered names, in name order
    static std::vector<std::string> Names();

  private:
    /// \return the registry, by name
    static std::vector<std::pair<std::string, Factory>>& Registry();
};

} // namespace ns3

#endif /* FABRIC_HELPER_H */
