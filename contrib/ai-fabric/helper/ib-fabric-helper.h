/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_FABRIC_HELPER_H
#define IB_FABRIC_HELPER_H

#include "fabric-helper.h"
#include "ns3/ib-nic-port.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Builds an InfiniBand fabric (see FabricHelper): IbNicPort adapter ports and IbSwitchPort
 * switch ports, IB switches (IbSwitch) and, as the subnet manager, LIDs and linear forwarding
 * tables.
 *
 * Hosts get consecutive LIDs from 1 in the order they are installed (the subnet manager's LID
 * assignment); with an LMC (SetLmc) each host gets a block of 2^LMC LIDs. ComputeRoutes() runs the
 * subnet manager's routing engine (min-hop, OpenSM's "minhop" by default; SetRoutingEngine()
 * chooses "ftree" or "updn") over the fabric graph and installs every switch's LFT. Pcaps hold the
 * data packets as ERF records (pcap link type 197, ERF type 21: InfiniBand), which Wireshark
 * decodes; the Wireshark of Debian 12 does not decode pcap link type 247 (INFINIBAND).
 * Flow-control packets are not captured.
 */
class IbFabricHelper : public FabricHelper
{
  public:
    IbFabricHelper();
    ~IbFabricHelper() override;

    /// Largest unicast LID
    static constexpr uint32_t MAX_UNICAST_LID = 0xBFFF;

    /**
     * \brief Choose the subnet manager's routing engine, by OpenSM's name: "minhop" (the
     *        default), "ftree" (fat-tree, d-mod-k) or "updn" (up-down, free of credit loops
     *        on any topology).
     * \param name the engine
     * \return false (and no change) for an unknown name
     */
    bool SetRoutingEngine(const std::string& name);

    /// \return the routing engine's name
    std::string GetRoutingEngine() const;

    /**
     * \brief LID mask control (PortInfo LMC): every host gets 2^lmc consecutive LIDs, its base
     *        LID a multiple of 2^lmc, and the routing engine routes each LID on its own path
     *        (different up-links where there are several). Adapters spread their QPs over the
     *        LIDs (IbNicPort's PathBitsFromQp). Call before installing hosts.
     * \param lmc 0 (the default: one LID per host) to 7
     * \return false (and no change) above 7 or after hosts were installed
     */
    bool SetLmc(uint32_t lmc);

    /// \return the LMC
    uint32_t GetLmc() const;

    /// The subnet manager's sweep: the routing engine's routes into every switch's LFT.
    void ComputeRoutes() override;

    /**
     * \param host a host
     * \return its adapter port
     */
    Ptr<IbNicPort> GetNic(Ptr<Node> host) const;

    /**
     * \param host a host
     * \return its LID
     */
    uint16_t GetLid(Ptr<Node> host) const;

    /// \return "ib"
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
    /**
     * \brief IB congestion control (ibcc) also needs the switches to mark: the ports' markers'
     *        Threshold 8, the Omni-Path fabric manager's default, unless a later
     *        SetPortPartAttribute("Marker", "Threshold", ...) sets another.
     * \param cc the algorithm
     */
    void PrepareCongestionControl(const RdmaCcRegistration::Entry& cc) override;

  private:
    std::string m_engine{"minhop"}; //!< routing engine
    uint32_t m_lmc{0};              //!< LID mask control
    bool m_hostsInstalled{false};   //!< LIDs were handed out

    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
};

} // namespace ns3

#endif /* IB_FABRIC_HELPER_H */
