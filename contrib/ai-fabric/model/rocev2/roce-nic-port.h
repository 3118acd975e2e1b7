/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_NIC_PORT_H
#define ROCE_NIC_PORT_H

#include "ns3/rdma-transport.h"
#include "ns3/roce-net-device.h"

namespace ns3
{

class RoceHostInterface;

/**
 * \ingroup ai-fabric
 * \brief A RoCEv2 NIC port: the role of a host's port.
 *
 * It carries an RdmaTransport (SetTransport()): data packets are pulled from its QP scheduler
 * in the RDMA priority (DSCP RdmaDscp) when the egress scheduler serves that priority, ACKs,
 * NAKs and CNPs are queued in the control priority (DSCP ControlDscp). Its queues are
 * drop-tail at MaxQueueBytes. Received RoCEv2 frames addressed to it go to the transport,
 * through its host interface (attribute HostInterface: the PCIe path and receive buffer,
 * with its own PFC pause generator); other frames go to the upper layer (ns-3's internet
 * stack may send through Send()). Its MAC address derives from its IPv4 address (02:00
 * followed by the four address bytes), so no ARP is needed.
 */
class RoceNicPort
    : public RoceNetDevice
    , public RdmaNicPort
    , private FabricEgressClasses
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNicPort();
    ~RoceNicPort() override;

    /**
     * \brief Give the port its transport (the NIC's RC transport, which it owns).
     * \param transport the transport
     */
    void SetTransport(Ptr<RdmaTransport> transport);

    /// \return the transport, or nullptr before SetTransport()
    Ptr<RdmaTransport> GetTransport() const override;

    /**
     * \brief Set the IPv4 address of the port (and the MAC address derived from it).
     * \param address the address
     */
    void SetIpv4Address(Ipv4Address address);

    /// \return the IPv4 address
    Ipv4Address GetIpv4Address() const;

    /// \return the byte limit of each output queue (MaxQueueBytes)
    uint32_t GetMaxQueueBytes() const;

    /// \return the priority of RDMA data (RdmaDscp / 8)
    uint8_t GetRdmaPriority() const;

    /**
     * \brief Give the port its host side (attribute HostInterface); it serves this port.
     * \param host the host interface
     */
    void SetHostInterface(Ptr<RoceHostInterface> host);

    /// \return the port's host interface
    Ptr<RoceHostInterface> GetHostInterface() const;

    /// \return the receive buffer's high-water mark (a host interface with a Rate), bytes
    uint32_t GetRxBufferMaxBytes() const;

    /**
     * \brief Hand a received RoCEv2 frame to the transport (at once, or when the host
     *        interface's buffer lets it go).
     * \param p the frame
     * \param meta its addressing
     */
    void DeliverToTransport(Ptr<Packet> p, const RdmaPacketMeta& meta);

    // NetDevice: IP from the host's stack
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueForTransmit() override;
    bool HasPendingFrames() const override;
    void DoReceive(Ptr<Packet> p) override;
    void DoLinkChange(bool up) override;

  private:
    /**
     * \brief The scheduler asks: may a priority send now (FabricEgressClasses)? Not while the
     *        peer pauses it; yes if its queue's head is there, or, at the RDMA priority, if
     *        the transport gives a frame (kept as the one to send).
     * \param cls the priority
     * \return true if it may
     */
    bool IsSendable(uint8_t cls) override;

    /**
     * \brief IsSendable(), inline on the per-frame path.
     * \param cls the priority
     * \param fromTransport set to the transport's frame if that is what may go
     * \return true if it may
     */
    bool Sendable(uint8_t cls, Ptr<Packet>& fromTransport);

    /**
     * \brief Queue a frame the port originates, or drop it at MaxQueueBytes (QueueFull).
     * \param p the frame
     * \param priority its priority
     * \return true if queued
     */
    bool EnqueueLimited(Ptr<Packet> p, uint8_t priority);

    /**
     * \brief Add UDP, IPv4 and Ethernet headers to a transport packet.
     * \param p the packet, starting at the BTH
     * \param meta its addressing
     * \param dscp the IPv4 DSCP
     */
    void EncapsulateRdma(Ptr<Packet> p, const RdmaPacketMeta& meta, uint8_t dscp);

    /**
     * \brief Transport callback: queue an ACK, NAK or CNP.
     * \param p the packet, starting at the BTH
     * \param meta its addressing
     */
    void SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta);

    /// Transport callback: a QP has data again.
    void DataReady();

    Ptr<RdmaTransport> m_transport; //!< the NIC's transport
    Ipv4Address m_ipv4;             //!< the port's address
    uint32_t m_maxQueueBytes{0};    //!< byte limit per output queue
    uint8_t m_rdmaDscp{26};         //!< DSCP of RDMA data
    uint8_t m_controlDscp{48};      //!< DSCP of ACK, NAK, CNP
    Ptr<RoceHostInterface> m_host;  //!< the host side
    Ptr<Packet> m_transportFrame;   //!< the transport's frame a scheduler chose
};

} // namespace ns3

#endif /* ROCE_NIC_PORT_H */
