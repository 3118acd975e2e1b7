/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVSWITCH_H
#define NVSWITCH_H

#include "ns3/fabric-switch.h"
#include "ns3/nstime.h"
#include "ns3/nvswitch-port.h"
#include "ns3/object.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class NvLinkHeader;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief The forwarding object of one NVSwitch chip, aggregated to a Node whose devices are
 *        its NvSwitchPort ports, in order: a crossbar indexed by destination GPU.
 *
 * A data packet is looked up by its destination GPU (one array read) and queued at that
 * output port; it holds its bytes in the ingress port's buffer until it leaves the output, and
 * the ingress port then returns them to its GPU as credits: the switch never drops for lack of
 * buffer. Forwarding takes PortLatency; with CutThrough the packet's last bit leaves
 * PortLatency after it arrived, as IbSwitch does.
 *
 * NVLS (NVSwitch gen3 and later): an NVLS_REDUCE packet is one GPU's contribution to packet
 * i of a reduction; the chip adds the contributions of a packet as they arrive and, once all
 * the group's GPUs have contributed, sends the result (one packet of the same size) to the
 * reduction's destination GPU. An NVLS_MULTICAST packet is copied to every GPU of the group.
 * The reduction and multicast engines take their inputs out of the ingress buffer at once
 * (their own buffers are not bounded) and add no time beyond PortLatency.
 */
class NvSwitch : public FabricSwitch
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvSwitch();
    ~NvSwitch() override;

    /// Table entry of a GPU this chip does not reach
    static constexpr uint32_t NO_PORT = 0xFFFFFFFF;

    /**
     * \brief Add a port (its interface index must equal the number of ports so far).
     * \param port the port
     * \return its port number
     */
    uint32_t AddPort(Ptr<NvSwitchPort> port);

    /// \return the number of ports
    uint32_t GetNPorts() const override;

    /**
     * \param i a port number
     * \return the port
     */
    Ptr<NvSwitchPort> GetPort(uint32_t i) const;

    /**
     * \brief Route a GPU of the NVLink domain to a port.
     * \param gpu the GPU's index in the domain
     * \param port the port that leads to it
     */
    void SetRoute(uint16_t gpu, uint32_t port);

    /**
     * \param gpu a GPU's index in the domain
     * \return its port, or NO_PORT
     */
    uint32_t GetRoute(uint16_t gpu) const;

    Ptr<FabricNetDevice> GetFabricPort(uint32_t i) const override;

    /// \return NVLS reductions completed (result packets sent)
    uint64_t GetNvlsReductions() const;

    /// \return NVLS multicast copies sent
    uint64_t GetNvlsCopies() const;

    /// \return NVLS reductions waiting for contributions
    std::size_t GetPendingReductions() const;

  protected:
    void DoDispose() override;

    bool IsCutThrough() const override;

  private:
    /**
     * \brief A port received a data packet.
     * \param in the port
     * \param p the packet
     * \param dstGpu its destination GPU
     */
    void Forward(Ptr<NvSwitchPort> in, Ptr<Packet> p, const NvLinkHeader& h);

    /**
     * \param out the output port
     * \param p the packet
     * \param ingress its input port, or NvLinkNetDevice::NO_INGRESS
     * \param serialization its serialization on the input link (for cut-through)
     * \param dataBytes its payload bytes (its header's bytes field)
     */
    void Schedule(
        uint32_t out, Ptr<Packet> p, uint32_t ingress, Time serialization, uint32_t dataBytes);

    /**
     * \param h a packet's header
     * \param type the type of the copy
     * \param dstGpu the copy's destination
     * \param payloadBytes bytes after the header
     * \return a packet the switch makes (an NVLS result or copy)
     */
    static Ptr<Packet> Derived(const NvLinkHeader& h,
                               uint8_t type,
                               uint16_t dstGpu,
                               uint32_t payloadBytes);

    /**
     * \brief A forwarded packet left its output port.
     * \param ingress the port it came in on
     * \param bytes its size
     */
    void Departed(uint32_t ingress, uint32_t bytes);

    std::vector<Ptr<NvSwitchPort>> m_ports;              //!< by port number
    std::vector<uint32_t> m_table;                       //!< output port by destination GPU
    bool m_nvls{true};                                   //!< Nvls
    bool m_cutThrough{true};                             //!< CutThrough
    std::unordered_map<uint64_t, uint16_t> m_reductions; //!< (tag, packet) -> contributions
    uint64_t m_nvlsReductions{0};                        //!< results sent
    uint64_t m_nvlsCopies{0};                            //!< multicast copies sent
};

} // namespace ns3

#endif /* NVSWITCH_H */
