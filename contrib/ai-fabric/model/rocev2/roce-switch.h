/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "ns3/fabric-buffer-manager.h"
#include "ns3/fabric-switch.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-switch-port.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class Packet;
class RoceSwitchMmu;

/**
 * \ingroup ai-fabric
 * \brief The forwarding object of an Ethernet switch carrying RoCEv2 (aggregated to a Node).
 *
 * Forwards by IPv4 destination through a table precomputed by a routing engine: the
 * destination's index (address minus the table's first address) selects an ECMP group of
 * output ports, and a hash of the 5-tuple (with a per-switch seed) picks one of them. RoCEv2
 * puts per-QP entropy in the UDP source port, so QPs spread over paths while each QP's packets
 * stay in order. A frame is queued at its output port PortLatency after its last bit arrived
 * (store and forward), in the output queue of its priority (IPv4 DSCP / 8). Its MMU admits
 * every frame to the shared buffer, accounts it to its ingress port and priority until it
 * leaves, and pauses the ingress link of a lossless priority with PFC (RoceSwitchMmu).
 */
class RoceSwitch : public FabricSwitch
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitch();
    ~RoceSwitch() override;

    /**
     * \brief Add a port; its NetDevice interface index must equal the port number returned.
     * \param port the port device (already added to the switch's node)
     * \return the port number
     */
    uint32_t AddPort(Ptr<RoceSwitchPort> port);

    /// \return the number of ports
    uint32_t GetNPorts() const override;

    /**
     * \param i a port number
     * \return the port
     */
    Ptr<RoceSwitchPort> GetPort(uint32_t i) const;

    /**
     * \brief Replace the forwarding table.
     * \param firstAddress the address of destination index 0
     * \param groups for each destination index, its ECMP group (output port numbers); an empty
     *        group means no route
     * \param classes for each destination index, the dateline class of the next hop (empty:
     *        none). A frame of the data or the dateline priority leaves re-marked with
     *        DataDscp (class 0) or DatelineDscp (class 1).
     */
    void SetRoutes(Ipv4Address firstAddress,
                   const std::vector<std::vector<uint32_t>>& groups,
                   const std::vector<uint8_t>& classes = {});

    /// \return frames re-marked to another dateline class
    uint64_t GetRemarkedPackets() const;

    /**
     * \param destination an IPv4 address
     * \return the ECMP group toward it (empty if none)
     */
    std::vector<uint32_t> GetRoute(Ipv4Address destination) const;

    /**
     * \brief The output port this switch chooses for a flow.
     * \param src source address
     * \param dst destination address
     * \param protocol IPv4 protocol
     * \param srcPort transport source port
     * \param dstPort transport destination port
     * \return the port number, or GetNPorts() if there is no route
     */
    uint32_t SelectPort(
        uint32_t src, uint32_t dst, uint8_t protocol, uint16_t srcPort, uint16_t dstPort) const;

    Ptr<FabricNetDevice> GetFabricPort(uint32_t i) const override;
    Ptr<FabricBufferManager> GetBufferManager() const override;

    /**
     * \brief Replace the shared buffer's manager (attribute BufferManager), before the switch
     *        has ports.
     * \param manager the manager
     */
    void SetBufferManager(Ptr<FabricBufferManager> manager);

    /// \return the switch's memory management unit (shared buffer and PFC), or nullptr if its
    ///         buffer manager is of another type
    Ptr<RoceSwitchMmu> GetMmu() const;

    /// \return the hash seed in use
    uint32_t GetHashSeed() const;

    /**
     * \param nodeId a switch's node id
     * \param attribute its HashSeed attribute (0: from the node id)
     * \return the seed it hashes with
     */
    static uint32_t SeedOf(uint32_t nodeId, uint32_t attribute);

    /**
     * \brief The ECMP hash of a frame's 5-tuple (SelectPort() takes it modulo the group).
     * \param seed the switch's seed
     * \param src source address
     * \param dst destination address
     * \param protocol IPv4 protocol
     * \param srcPort transport source port
     * \param dstPort transport destination port
     * \return the hash
     */
    static uint32_t Hash(uint32_t seed,
                         uint32_t src,
                         uint32_t dst,
                         uint8_t protocol,
                         uint16_t srcPort,
                         uint16_t dstPort);

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /// \return the number of destinations in the table
    uint32_t NDestinations() const;

    /**
     * \brief A frame arrived at a port.
     * \param inPort the ingress port
     * \param p the frame
     */
    void Forward(Ptr<RoceSwitchPort> inPort, Ptr<Packet> p);

    /**
     * \brief A forwarded frame leaves its egress port.
     * \param ingress its ingress port
     * \param priority its priority
     * \param bytes its size
     * \param at when its first bit leaves (the MMU frees it then)
     */
    void Departed(uint16_t ingress, uint8_t priority, uint32_t bytes, Time at);

    /**
     * \brief A frame chosen ahead at its egress port was taken back by a PFC pause.
     * \param ingress its ingress port
     * \param priority its priority
     * \param bytes its size
     * \param at when it was to leave
     */
    void Withdrawn(uint16_t ingress, uint8_t priority, uint32_t bytes, Time at);

    /**
     * \brief Re-mark a frame's DSCP (dateline class change).
     * \param p the frame
     * \param dscp the new DSCP
     * \return the re-marked copy
     */
    Ptr<Packet> Remark(Ptr<const Packet> p, uint8_t dscp);

    /**
     * \brief The MMU sends a PFC frame out of a port.
     * \param port the port
     * \param priority the priority
     * \param quanta the pause time (0: release)
     */
    void SendPause(uint32_t port, uint8_t priority, uint16_t quanta);

    std::vector<Ptr<RoceSwitchPort>> m_ports; //!< ports by number
    uint32_t m_firstAddress{0};               //!< address of destination index 0
    std::vector<uint32_t> m_groupStart;       //!< per destination: start in m_groupPorts (+1 end)
    std::vector<uint16_t> m_groupPorts;       //!< all groups, concatenated
    uint32_t m_seedAttribute{0};              //!< HashSeed attribute (0: derive from node id)
    uint32_t m_seed{0};                       //!< seed in use
    std::vector<uint8_t> m_classes;           //!< dateline class per destination (or empty)
    uint8_t m_dataDscp{26};                   //!< DSCP of class 0
    uint8_t m_datelineDscp{34};               //!< DSCP of class 1
    uint64_t m_remarked{0};                   //!< frames re-marked
    Ptr<FabricBufferManager> m_mmu;           //!< shared buffer and PFC (BufferManager)
};

} // namespace ns3

#endif /* ROCE_SWITCH_H */
