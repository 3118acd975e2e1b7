/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVSWITCH_H
#define NVSWITCH_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

class NvLinkNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief The forwarding object of one NVSwitch chip, aggregated to a Node whose devices are
 *        its NvLinkNetDevice ports, in order: a crossbar indexed by destination GPU.
 *
 * A data packet is looked up by its destination GPU (one array read) and queued at that
 * output port; it holds its bytes in the ingress port's buffer until it leaves the output, and
 * the ingress port then returns them to its GPU as credits: the switch never drops for lack of
 * buffer. Forwarding takes PortLatency; with CutThrough the packet's last bit leaves
 * PortLatency after it arrived, as IbSwitch does.
 */
class NvSwitch : public Object
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
    uint32_t AddPort(Ptr<NvLinkNetDevice> port);

    /// \return the number of ports
    uint32_t GetNPorts() const;

    /**
     * \param i a port number
     * \return the port
     */
    Ptr<NvLinkNetDevice> GetPort(uint32_t i) const;

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

    /// \return packets forwarded
    uint64_t GetForwardedPackets() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief A port received a data packet.
     * \param in the port
     * \param p the packet
     * \param dstGpu its destination GPU
     */
    void Forward(Ptr<NvLinkNetDevice> in, Ptr<Packet> p, uint16_t dstGpu);

    /**
     * \brief A forwarded packet left its output port.
     * \param ingress the port it came in on
     * \param bytes its size
     */
    void Departed(uint32_t ingress, uint32_t bytes);

    std::vector<Ptr<NvLinkNetDevice>> m_ports; //!< by port number
    std::vector<uint32_t> m_table;             //!< output port by destination GPU
    Time m_latency;                            //!< PortLatency
    bool m_cutThrough{true};                   //!< CutThrough
    uint64_t m_forwarded{0};                   //!< packets forwarded
};

} // namespace ns3

#endif /* NVSWITCH_H */
