/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_FABRIC_HELPER_H
#define ROCE_FABRIC_HELPER_H

#include "fabric-helper.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/roce-nic-port.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Builds a RoCEv2 fabric (see FabricHelper): RoceNicPort NICs and RoceSwitchPort switch
 * ports, Ethernet switches (RoceSwitch with its shared-buffer MMU) and their ECMP tables.
 *
 * Hosts get consecutive IPv4 addresses from the base address (10.0.0.1, 10.0.0.2, ...), in
 * the order they are installed. Call ComputeRoutes() once the fabric is complete (and again
 * after a link changes state).
 */
class RoceFabricHelper : public FabricHelper
{
  public:
    RoceFabricHelper();
    ~RoceFabricHelper() override;

    /**
     * \brief Set an attribute of the buffer (ns3::RoceSwitchMmu) of every switch installed
     *        from now on.
     * \param name attribute name
     * \param value its value
     */
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param base hosts get base + 1, base + 2, ... (set before InstallHosts)
     */
    void SetBaseAddress(Ipv4Address base);

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
    void ComputeRoutes() override;

    /**
     * \param host a host
     * \return its NIC
     */
    Ptr<RoceNicPort> GetNic(Ptr<Node> host) const;

    /**
     * \param host a host
     * \return its IPv4 address
     */
    Ipv4Address GetAddress(Ptr<Node> host) const;

    /// \return "roce"
    const char* GetFabricName() const override;

    // The fabric plug-in (FabricHelper)
    uint32_t GetRdmaOverheadBytes() const override;
    void SetRecoveryDelays(Ptr<FaultInjector> injector) const override;
    void SetHostRate(Ptr<Node> host, DataRate rate) override;
    std::string EnableDatelineClass(const NodeContainer& switches, Ptr<Node> host) override;
    std::string SetSwitchBuffer(uint64_t bytes) override;
    std::string GetRoutingName() const override;
    uint8_t GetRdmaClass(Ptr<Node> host) const override;
    bool ReadRdmaOpcode(Ptr<const Packet> frame, uint8_t& opcode) const override;
    std::string DescribeLinkControl(const std::string& congestionControl) const override;
    const char* GetDisplayName() const override;
    const char* GetLinkLayerName() const override;
    std::vector<Option> GetOptions() const override;
    std::string SetOption(const std::string& name, const std::string& value) override;

    uint32_t SelectEqualCostPort(uint32_t switchNode,
                                 uint32_t src,
                                 uint32_t dst,
                                 uint16_t entropy,
                                 uint32_t n) const override;

  protected:
    uint32_t SelectRdmaEgress(Ptr<Node> sw,
                              Ptr<Node> host,
                              uint32_t dst,
                              uint16_t entropy) const override;
    uint32_t HostAddress(uint32_t endpoint) const override;
    Ptr<FabricNetDevice> CreateHostPort(Ptr<Node> node,
                                        uint32_t address,
                                        Ptr<RdmaTransport> transport) override;
    void CreateSwitch(Ptr<Node> node) override;
    Ptr<FabricNetDevice> CreateSwitchPort(Ptr<Node> node) override;
    const char* Name() const override;

  private:
    bool m_pfc{true}; //!< the pfc option
    bool m_ecn{true}; //!< the ecn option
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_mmuAttributes; //!< for MMUs
    Ipv4Address m_base{"10.0.0.0"};                                           //!< address base
    mutable uint32_t m_hashSeed{0};     //!< the switches' HashSeed (SelectEqualCostPort())
    mutable bool m_hashSeedRead{false}; //!< m_hashSeed was read from the factory
};

} // namespace ns3

#endif /* ROCE_FABRIC_HELPER_H */
