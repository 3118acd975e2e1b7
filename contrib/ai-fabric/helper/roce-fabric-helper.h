/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_FABRIC_HELPER_H
#define ROCE_FABRIC_HELPER_H

#include "ns3/fabric-channel.h"
#include "ns3/fabric-topology.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-net-device.h"
#include "ns3/trace-helper.h"

#include <string>
#include <vector>

namespace ns3
{

class RoceSwitch;

/**
 * \ingroup ai-fabric
 * \brief Builds a RoCEv2 fabric: NICs with their RC transport on hosts, Ethernet switches,
 * the cables between them, the fabric graph beside them, and the switches' ECMP tables.
 *
 * Hosts get consecutive IPv4 addresses from the base address (10.0.0.1, 10.0.0.2, ...), in
 * the order they are installed. Every Connect() adds one cable and, on a switch, one port.
 * Call ComputeRoutes() once the fabric is complete (and again after a link changes state).
 */
class RoceFabricHelper : public PcapHelperForDevice
{
  public:
    RoceFabricHelper();
    ~RoceFabricHelper() override;

    /**
     * \param name attribute of ns3::RoceNetDevice (NIC and switch ports)
     * \param value its value
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
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
     * \param name attribute of ns3::RdmaQueuePair
     * \param value its value
     */
    void SetQueuePairAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::RoceSwitch
     * \param value its value
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the buffer (ns3::RoceSwitchMmu) of every switch installed
     *        from now on.
     * \param name attribute name
     * \param value its value
     */
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the congestion control of every QP of the hosts installed
     *        from now on (choose the algorithm with SetTransportAttribute("CongestionControl")).
     * \param name attribute name (e.g. of ns3::RdmaCcDcqcn)
     * \param value its value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param base hosts get base+1, base+2, ... (default 10.0.0.0)
     */
    void SetBaseAddress(Ipv4Address base);

    /**
     * \brief Give each host a NIC port with an RC transport.
     * \param hosts the hosts
     * \return the NIC ports
     */
    NetDeviceContainer InstallHosts(NodeContainer hosts);

    /**
     * \brief Make each node an Ethernet switch (ports are added by Connect()).
     * \param switches the switch nodes
     */
    void InstallSwitches(NodeContainer switches);

    /**
     * \brief Connect two nodes with a cable: a host's NIC port or a new switch port at each end.
     * \param a one node
     * \param b the other
     * \return the two port devices (a's, then b's)
     */
    NetDeviceContainer Connect(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Make each host's NIC an interface of ns-3's IPv4 stack, with the NIC's address,
     *        so that sockets (TCP, UDP) send through the fabric beside RDMA, in the priority
     *        of their DSCP (0, lossy, by default). Install the stack first
     *        (InternetStackHelper); the route to the fabric is the interface's own network.
     * \param hosts hosts installed by InstallHosts()
     * \param mask the network mask of the fabric's addresses
     * \return the interfaces
     */
    Ipv4InterfaceContainer AssignIpv4(NodeContainer hosts, Ipv4Mask mask = Ipv4Mask("255.0.0.0"));

    /// Fill every switch's forwarding table from the fabric graph (ECMP shortest paths).
    void ComputeRoutes();

    /**
     * \param host a host installed by this helper
     * \return its NIC port
     */
    Ptr<RoceNetDevice> GetNic(Ptr<Node> host) const;

    /**
     * \param host a host installed by this helper
     * \return its transport
     */
    Ptr<RdmaTransport> GetTransport(Ptr<Node> host) const;

    /**
     * \param host a host installed by this helper
     * \return its IPv4 address
     */
    Ipv4Address GetAddress(Ptr<Node> host) const;

    /// \return the fabric graph
    Ptr<FabricTopology> GetTopology() const;

    /// \return every cable created, in creation order
    const std::vector<Ptr<FabricChannel>>& GetChannels() const;

    /**
     * \brief Assign fixed random streams to the transports (initial PSNs).
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    /**
     * \param node a node
     * \return the port at that node for a new link, and its vertex
     */
    std::pair<Ptr<RoceNetDevice>, uint32_t> PortFor(Ptr<Node> node);

    ObjectFactory m_deviceFactory;    //!< ports
    ObjectFactory m_channelFactory;   //!< cables
    ObjectFactory m_transportFactory; //!< transports
    ObjectFactory m_switchFactory;    //!< switch forwarding objects
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_qpAttributes;  //!< for QPs
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes;  //!< for their CC
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_mmuAttributes; //!< for MMUs
    Ipv4Address m_base{"10.0.0.0"};                                           //!< address base
    Ptr<FabricTopology> m_topology;                                           //!< the graph
    std::vector<Ptr<RoceNetDevice>> m_nicOfNode;                              //!< NIC by node id
    std::vector<uint32_t> m_vertexOfHost;         //!< endpoint vertex by node id
    std::vector<Ptr<FabricChannel>> m_channels;   //!< cables
    std::vector<Ptr<RdmaTransport>> m_transports; //!< transports, in install order
};

} // namespace ns3

#endif /* ROCE_FABRIC_HELPER_H */
