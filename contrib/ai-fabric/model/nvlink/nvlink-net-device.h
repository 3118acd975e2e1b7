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
 * of data and need no credits. A GPU port pulls its data packets from the GPU's
 * NvLinkTransport when it can send one; a switch port sends the packets its NvSwitch queued,
 * in order.
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

    /**
     * \brief Make this a GPU's port, carrying the GPU's NVLink transport.
     * \param transport the transport
     * \param index the port's index among the GPU's ports
     */
    void SetTransport(Ptr<NvLinkTransport> transport, uint32_t index);

    /// Ingress of a packet the switch made (an NVLS result or copy): no buffer to free
    static constexpr uint32_t NO_INGRESS = 0xFFFFFFFF;

    /// \return the GPU's transport (nullptr on a switch port)
    Ptr<NvLinkTransport> GetTransport() const;

    /// Switch forwarding of a received data packet: (ingress port, packet, its header).
    typedef Callback<void, Ptr<NvLinkNetDevice>, Ptr<Packet>, const NvLinkHeader&> ForwardCallback;

    /// A forwarded packet left its output port: (ingress port index, bytes).
    typedef Callback<void, uint32_t, uint32_t> DepartureCallback;

    /**
     * \brief Make this a switch port (its role; the NVSwitch that adopts it calls this).
     * \param forward the switch's forwarding
     * \param departure told when a forwarded packet leaves this port
     */
    void AttachToSwitch(ForwardCallback forward, DepartureCallback departure);

    /// Stop being a switch's port (the switch is disposed): a host's port again.
    void DetachFromSwitch();

    /**
     * \brief Queue a forwarded packet for output (switch egress).
     * \param p the packet
     * \param ingress the switch port it came in on
     * \param dataBytes its payload bytes (its NvLinkHeader's bytes: counted when it leaves)
     */
    void EnqueueForwarded(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes);

    /**
     * \brief As EnqueueForwarded() \p delay later (the switch's latency), without an event
     * of its own: the packet joins the queue now, marked not to leave before \p delay from
     * now (chosen earlier, it starts then). With CompletionPerFrame or while the link is
     * down, it is an event \p delay later, as before.
     * \param delay the switch's latency for this packet
     * \param p the packet
     * \param ingress the switch port it came in on
     * \param dataBytes its payload bytes (its NvLinkHeader's bytes: counted when it leaves)
     */
    void EnqueueAfter(Time delay, Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes);

    /**
     * \brief Free buffer bytes held by a packet that left the switch (its credits go back).
     * \param bytes the packet's size
     */
    void ReleaseBytes(uint32_t bytes);

    /// The GPU's transport has data: start sending if idle.
    void DataReady();

    /// \return the receive buffer (bytes)
    uint32_t GetBufferBytes() const;

    /// \return bytes the peer can still take (credits)
    uint64_t GetCredits() const;

    /// \return bytes queued for output (switch ports)
    uint64_t GetQueuedBytes() const;

    /// \return the largest number of bytes ever queued for output
    uint64_t GetMaxQueuedBytes() const;

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
    uint64_t GetPeakQueuedBytes() const override;

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
    Ptr<Packet> DequeueForTransmit() override;
    void DoReceive(Ptr<Packet> p) override;
    void DoTransmitComplete(Ptr<const Packet> p) override;
    bool HasPendingFrames() const override;
    void DoLinkChange(bool up) override;

  private:
    /**
     * \param bytes credit to give the peer
     * \param absolute true: the peer's credit becomes bytes (initialization); false: it grows
     *        by bytes
     */
    void SendCredit(uint32_t bytes, bool absolute);

    /**
     * \brief EnqueueForwarded() at the end of the switch's latency (EnqueueAfter()).
     * \param p the packet
     * \param ingress the switch port it came in on
     * \param dataBytes its payload bytes
     */
    void DelayedEnqueue(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes);

    /// A forwarded packet waiting at this output.
    struct Queued
    {
        Ptr<Packet> packet; //!< the packet
        uint32_t ingress;   //!< its switch input port
        uint32_t dataBytes; //!< its payload bytes (its header's bytes field)
        Time ready{};       //!< it may not leave before (the switch's latency)
    };

    Ptr<NvLinkCreditFlowControl> m_fc; //!< credits granted and owed (FlowControl)
    Ptr<NvLinkTransport> m_transport;  //!< GPU port: the transport
    uint32_t m_portIndex{0};           //!< GPU port: its index among the GPU's ports
    ForwardCallback m_forwardCb;       //!< switch port: forwarding
    DepartureCallback m_departureCb;   //!< switch port: departures
    std::deque<Ptr<Packet>> m_control; //!< credit packets to send
    std::deque<Queued> m_queue;        //!< forwarded packets to send
    uint64_t m_queuedBytes{0};         //!< bytes in m_queue
    uint64_t m_maxQueuedBytes{0};      //!< high-water mark
    uint64_t m_dataBytesSent{0};       //!< payload bytes sent
    uint64_t m_dataFramesSent{0};      //!< data frames sent
    NvLinkHeader m_txHeader;           //!< GPU port: the header of the frame on the wire
    bool m_txData{false};              //!< GPU port: the frame on the wire is data
    uint32_t m_delayedEnqueues{0};     //!< forwarded packets still in the pipeline
};

} // namespace ns3

#endif /* NVLINK_NET_DEVICE_H */
