/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVSWITCH_PORT_H
#define NVSWITCH_PORT_H

#include "ns3/nvlink-net-device.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An NVSwitch chip's port (its links to one GPU), the role NvSwitch adopts
 *        (AttachToSwitch()): received data packets go to the switch and stay in this port's
 *        buffer until they leave the switch (ReleaseBytes()); it sends the packets the switch
 *        queued here, in order.
 */
class NvSwitchPort : public NvLinkNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvSwitchPort();
    ~NvSwitchPort() override;

    /// Switch forwarding of a received data packet: (ingress port, packet, its header).
    typedef Callback<void, Ptr<NvSwitchPort>, Ptr<Packet>, const NvLinkHeader&> ForwardCallback;

    /// A forwarded packet left its output port: (ingress port index, bytes).
    typedef Callback<void, uint32_t, uint32_t> DepartureCallback;

    /**
     * \brief Serve a switch (the NVSwitch that adopts the port calls it).
     * \param forward the switch's forwarding
     * \param departure told when a forwarded packet leaves this port
     */
    void AttachToSwitch(ForwardCallback forward, DepartureCallback departure);

    /// Forget the switch (it is disposed): no callback holds it any longer (a packet that
    /// arrives after that aborts the run: the port serves no switch).
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

    /// \return bytes queued for output
    uint64_t GetQueuedBytes() const;

    /// \return the largest number of bytes ever queued for output
    uint64_t GetMaxQueuedBytes() const;

    uint64_t GetPeakQueuedBytes() const override;

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueForTransmit() override;
    bool HasPendingFrames() const override;
    void ReceiveData(Ptr<Packet> p, const NvLinkHeader& h, uint32_t size) override;

    /**
     * \brief EnqueueForwarded() at the end of the switch's latency (EnqueueAfter()).
     * \param p the packet
     * \param ingress the switch port it came in on
     * \param dataBytes its payload bytes
     */
    void DelayedEnqueue(Ptr<Packet> p, uint32_t ingress, uint32_t dataBytes);

  private:
    /// A forwarded packet waiting at this output.
    struct Queued
    {
        Ptr<Packet> packet; //!< the packet
        uint32_t ingress;   //!< its switch input port
        uint32_t dataBytes; //!< its payload bytes (its header's bytes field)
        Time ready{};       //!< it may not leave before (the switch's latency)
    };

    ForwardCallback m_forwardCb;     //!< the switch's forwarding
    DepartureCallback m_departureCb; //!< departures
    std::deque<Queued> m_queue;      //!< forwarded packets to send
    uint64_t m_queuedBytes{0};       //!< bytes in m_queue
    uint64_t m_maxQueuedBytes{0};    //!< high-water mark
    uint32_t m_delayedEnqueues{0};   //!< forwarded packets still in the pipeline
};

} // namespace ns3

#endif /* NVSWITCH_PORT_H */
