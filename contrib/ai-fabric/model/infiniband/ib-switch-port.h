/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_SWITCH_PORT_H
#define IB_SWITCH_PORT_H

#include "ns3/ib-net-device.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An InfiniBand switch's port, the role IbSwitch adopts (AttachToSwitch()).
 *
 * Received packets go to the switch; their blocks stay held in this port's VL buffer until
 * they leave the switch (ReleaseBlocks()), and VL15 packets in its VL15 buffer
 * (Vl15BufferBytes: a management packet that does not fit is dropped, as IBTA allows). The
 * switch queues packets for output here after its latency (EnqueueAfter()) and hears when
 * each leaves. Packets leaving carry the congestion marker's FECN (attribute Marker).
 */
class IbSwitchPort : public IbNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbSwitchPort();
    ~IbSwitchPort() override;

    /// Forwarding callback of a switch: (ingress port, packet, its VL).
    typedef Callback<void, Ptr<IbSwitchPort>, Ptr<Packet>, uint8_t> ForwardCallback;
    /// A forwarded packet left this port: (its ingress port, VL, bytes).
    typedef Callback<void, uint16_t, uint8_t, uint32_t> DepartureCallback;

    /**
     * \brief Serve a switch (the switch that adopts the port calls it).
     * \param forward the switch's forwarding function
     * \param departure called when a forwarded packet leaves this port
     */
    void AttachToSwitch(ForwardCallback forward, DepartureCallback departure);

    /**
     * \brief Take a packet a switch forwards, to be sendable after the switch's latency:
     * as EnqueueForwarded() \p delay later, without an event of its own. The packet joins
     * its VL's queue now, marked not to leave before \p delay from now (chosen earlier, it
     * starts then). With CompletionPerFrame, for VL15, or while the link is down, it is an
     * event \p delay later, as before.
     * \param delay the switch's latency for this packet
     * \param p the packet
     * \param vl the output VL
     * \param ingress the switch ingress port
     * \param inVl the VL whose buffer it holds at the ingress
     */
    void EnqueueAfter(Time delay, Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);

    /**
     * \brief Queue a packet for output on a VL (switch egress).
     * \param p the packet
     * \param vl its VL
     * \param ingress the switch port it came in on (reported at its departure)
     * \param inVl the VL it came in on (whose blocks it holds there)
     */
    void EnqueueForwarded(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);

    /**
     * \brief A packet received on this port left its switch: free its blocks (and report
     *        them upstream when due).
     * \param vl its VL
     * \param bytes its size
     */
    void ReleaseBlocks(uint8_t vl, uint32_t bytes);

  protected:
    void DoDispose() override;
    void ReceiveData(Ptr<Packet> p, uint8_t vl, uint32_t blocks, const uint8_t* h) override;
    void ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh) override;
    void Departed(uint16_t ingress, uint8_t vl, uint32_t bytes) override;

    /**
     * \brief EnqueueForwarded() at the end of the switch's latency (EnqueueAfter()).
     * \param p the packet
     * \param vl the output VL
     * \param ingress the switch ingress port
     * \param inVl the VL whose buffer it holds at the ingress
     */
    void DelayedEnqueue(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);

  private:
    ForwardCallback m_forwardCb;     //!< the switch's forwarding
    DepartureCallback m_departureCb; //!< to the switch: a forwarded packet left
    uint32_t m_delayedEnqueues{0};   //!< forwarded packets still in the pipeline
    uint32_t m_vl15BufferBytes{0};   //!< Vl15BufferBytes: receive buffer of VL15
    uint32_t m_vl15Occupied{0};      //!< VL15 receive buffer in use
};

} // namespace ns3

#endif /* IB_SWITCH_PORT_H */
