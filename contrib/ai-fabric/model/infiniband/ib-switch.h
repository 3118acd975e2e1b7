/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_SWITCH_H
#define IB_SWITCH_H

#include "ib-switch-port.h"
#include "ns3/fabric-switch.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The forwarding object of an InfiniBand switch, aggregated to a Node whose devices
 * are its IbSwitchPort ports, in order.
 *
 * A data packet is looked up by its DLID in the linear forwarding table (one array read) and
 * queued at the output port on the VL it arrived on (every port has the same SL-to-VL table,
 * so a packet keeps its VL). Its blocks stay held in the ingress port's VL buffer until it
 * leaves the output port, and are then reported upstream as credits: a switch never drops for
 * lack of buffer. Forwarding takes PortLatency; with CutThrough, the output starts as if it
 * had begun PortLatency after the packet's first bit, so the packet's last bit leaves
 * PortLatency after it arrived (never earlier than its own arrival: a packet shorter than
 * PortLatency at the link rate leaves with the store-and-forward delay of the remainder).
 */
class IbSwitch : public FabricSwitch
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbSwitch();
    ~IbSwitch() override;

    /// LFT entry of a LID without a route
    static constexpr uint16_t NO_PORT = 0xFFFF;

    /**
     * \brief Add a port (its interface index must equal the number of ports so far).
     * \param port the port
     * \return its port number
     */
    uint32_t AddPort(Ptr<IbSwitchPort> port);

    /// \return the number of ports
    uint32_t GetNPorts() const override;

    /**
     * \param i a port number
     * \return the port
     */
    Ptr<IbSwitchPort> GetPort(uint32_t i) const;

    /**
     * \brief Install the linear forwarding table.
     * \param lft output port by DLID (NO_PORT: no route)
     * \param datelineClasses dateline class of the next hop by DLID (empty: none). Class 1
     *        moves a packet to the VL after its SL's: (SL-to-VL entry + 1) mod DataVls, the
     *        virtual-lane pair a torus routing engine reserves per SL (as OpenSM's torus-2QoS).
     */
    void SetLft(std::vector<uint16_t> lft, std::vector<uint8_t> datelineClasses = {});

    /// \return the linear forwarding table
    const std::vector<uint16_t>& GetLft() const;

    Ptr<FabricNetDevice> GetFabricPort(uint32_t i) const override;

  protected:
    void DoDispose() override;

    bool IsCutThrough() const override;

  private:
    /**
     * \brief A port received a data packet.
     * \param in the ingress port
     * \param p the packet
     * \param vl its VL
     */
    void Forward(Ptr<IbSwitchPort> in, Ptr<Packet> p, uint8_t vl);

    /**
     * \brief A forwarded packet left its output port: its ingress port frees its blocks.
     * \param ingress the ingress port number
     * \param vl its VL
     * \param bytes its size
     */
    void Departed(uint16_t ingress, uint8_t vl, uint32_t bytes);

    std::vector<Ptr<IbSwitchPort>> m_ports; //!< ports by number
    std::vector<uint16_t> m_lft;            //!< output port by DLID
    std::vector<uint8_t> m_classes;         //!< dateline class by DLID (or empty)
    bool m_cutThrough{true};                //!< cut-through forwarding
};

} // namespace ns3

#endif /* IB_SWITCH_H */
