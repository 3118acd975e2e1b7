/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLINK_NET_DEVICE_H
#define NVLINK_NET_DEVICE_H

#include "ns3/fabric-net-device.h"
#include "ns3/nvlink-header.h"

#include <deque>

namespace ns3
{

class NvLinkHeader;
class NvLinkTransport;
class NvLinkCreditFlowControl;

/**
 * \ingroup ai-fabric
 * \brief An NVLink port: a GPU's links to one NVSwitch chip, or a chip's links to one GPU,
 *        taken together as one port of their summed rate, with credit-based link-level flow
 *        control.
 *
 * The receiver has a buffer (the FlowControl part's BufferBytes) and the sender never sends a
 * packet its credits do
 * not cover: NVLink is lossless by construction. A receiver returns credits in a credit packet
 * as soon as a packet leaves its buffer (at once at a GPU, when it leaves the switch at a
 * switch port); each port advertises its whole buffer when it starts. Credit packets go ahead
 * of data and need no credits.
 *
 * The class is abstract: a port is created as one of its roles, a GPU's port (NvLinkGpuPort,
 * which pulls its data packets from the GPU's NvLinkTransport when it can send one) or an
 * NVSwitch chip's (NvSwitchPort, which sends the packets its NvSwitch queued, in order).
 */
class NvLinkNetDevice : public FabricNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvLinkNetDevice();
    ~NvLinkNetDevice() override;

    /// Ingress of a packet the switch made (an NVLS result or copy): no buffer to free
    static constexpr uint32_t NO_INGRESS = 0xFFFFFFFF;

    /**
     * \brief Free buffer bytes held by a packet that left (its credits go back).
     * \param bytes the packet's size
     */
    void ReleaseBytes(uint32_t bytes);

    /// \return the receive buffer (bytes)
    uint32_t GetBufferBytes() const;

    /// \return bytes the peer can still take (credits)
    uint64_t GetCredits() const;

    /// \return time a data packet waited for credits, summed
    Time GetCreditStallTime() const;
    using FabricNetDevice::GetCreditStallTime; // by class, through the flow control

    /**
     * \brief Give the port its credit-based flow control (attribute FlowControl).
     * \param fc the part
     */
    void SetFlowControl(Ptr<NvLinkCreditFlowControl> fc);

    /// \return the port's credit-based flow control
    Ptr<NvLinkCreditFlowControl> GetFlowControl() const;

    // FabricNetDevice: one credit class, through the flow control
    Ptr<FabricLinkFlowControl> GetLinkFlowControl() const override;

    /// \return data payload bytes this port sent (the GPU's messages, or forwarded)
    uint64_t GetDataBytesSent() const;

    /**
     * \return data frames this port sent (data, NVLS contributions and copies, zero-byte data
     *         packets included; credit frames not), counted when chosen to leave
     */
    uint64_t GetDataFramesSent() const;

    // NetDevice: NVLink ports carry the GPU's NVLink transport only (no IP).
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;

  protected:
    void DoDispose() override;
    void DoInitialize() override;
    void DoReceive(Ptr<Packet> p) override;
    void DoLinkChange(bool up) override;

    /**
     * \brief A data packet arrived and its bytes are charged to the buffer: the role takes it
     *        (a switch port forwards it, a GPU's port hands it to the transport).
     * \param p the packet
     * \param h its header
     * \param size its bytes
     */
    virtual void ReceiveData(Ptr<Packet> p, const NvLinkHeader& h, uint32_t size) = 0;

    /**
     * \brief The first step of choosing the next frame: a credit packet goes ahead of data.
     * \return the credit packet, or nullptr
     */
    Ptr<Packet> DequeueCredit();

    Ptr<NvLinkCreditFlowControl> m_fc; //!< credits granted and owed (FlowControl)
    std::deque<Ptr<Packet>> m_control; //!< credit packets to send
    uint64_t m_dataBytesSent{0};       //!< payload bytes sent
    uint64_t m_dataFramesSent{0};      //!< data frames sent

  private:
    /**
     * \param bytes credit to give the peer
     * \param absolute true: the peer's credit becomes bytes (initialization); false: it grows
     *        by bytes
     */
    void SendCredit(uint32_t bytes, bool absolute);
};

} // namespace ns3

#endif /* NVLINK_NET_DEVICE_H */
