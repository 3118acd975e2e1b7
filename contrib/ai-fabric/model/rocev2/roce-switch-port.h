/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_SWITCH_PORT_H
#define ROCE_SWITCH_PORT_H

#include "ns3/roce-net-device.h"

namespace ns3
{

class RocePfcWatchdog;

/**
 * \ingroup ai-fabric
 * \brief A RoCEv2 switch port: the role of an Ethernet switch's port (RoceSwitch adopts it,
 *        AttachToSwitch()).
 *
 * Every frame it receives but PFC goes to the switch; the switch queues frames for output
 * here with EnqueueAfter() (after its pipeline latency) and hears when each leaves (its
 * departure callback: the buffer manager frees the bytes the frame held at its ingress). A
 * switch port chooses a forwarded frame ahead of its pipeline latency; a PFC pause that
 * arrives before the frame's first bit leaves takes it back (withdrawal). Frames leaving
 * carry the congestion marker's ECN marks (attribute Marker, RED at dequeue); a PFC watchdog
 * (attribute PfcWatchdog, off by default) turns a storming priority lossy.
 */
class RoceSwitchPort
    : public RoceNetDevice
    , private FabricEgressClasses
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitchPort();
    ~RoceSwitchPort() override;

    /// Forwarding callback of a switch: (ingress port, frame).
    typedef Callback<void, Ptr<RoceSwitchPort>, Ptr<Packet>> ForwardCallback;
    /// A forwarded frame leaves this port: (its ingress port, priority, bytes, when its first
    /// bit leaves: now, or later for a frame chosen ahead).
    typedef Callback<void, uint16_t, uint8_t, uint32_t, Time> DepartureCallback;

    /**
     * \brief Serve a switch (the switch that adopts the port calls it).
     * \param forward the switch's forwarding function
     * \param departure called when a forwarded frame leaves (the switch's buffer frees it)
     * \param withdrawal called when a forwarded frame chosen ahead is withdrawn because a PFC
     *        pause arrived before its first bit left: the departure announced for that time
     *        does not happen (the frame stays in the buffer); same arguments
     */
    void AttachToSwitch(ForwardCallback forward,
                        DepartureCallback departure,
                        DepartureCallback withdrawal);

    /**
     * \brief Take a frame a switch forwards, to be sendable after the switch's pipeline
     * latency: as EnqueueForwarded() \p delay later, without an event of its own. The frame
     * joins its queue now, marked not to leave before \p delay from now; if the port is idle
     * it is chosen now and put on the wire to start then. A PFC pause that arrives before its
     * first bit leaves takes it back (FabricNetDevice::WithdrawUnstarted()). With
     * CompletionPerFrame, during a PFC storm, or while the link is down, it is an event
     * \p delay later, as before.
     * \param delay the switch's pipeline latency
     * \param p the frame
     * \param priority the priority it leaves in
     * \param ingress the switch ingress port it came in on
     * \param inPriority the priority it holds buffer under at the ingress
     */
    void EnqueueAfter(
        Time delay, Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority);

    /**
     * \brief Queue a frame for output now (switch egress).
     * \param p the frame
     * \param priority its priority (0..7)
     * \param ingress the switch port it came in on (reported at its departure)
     * \param ingressPriority the priority it arrived with, if the switch re-marked it
     *        (0xFF: the same as priority); its departure frees that ingress priority's buffer
     * \return false if the frame was dropped (link down, or a storm)
     */
    bool EnqueueForwarded(Ptr<Packet> p,
                          uint8_t priority,
                          uint16_t ingress,
                          uint8_t ingressPriority = 0xFF);

    /**
     * \brief Give the port a PFC watchdog (attribute PfcWatchdog); it watches this port.
     * \param watchdog the watchdog
     */
    void SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog);

    /// \return the port's PFC watchdog
    Ptr<RocePfcWatchdog> GetPfcWatchdog() const;

    /// \return PFC storms the watchdog detected at this port, every priority
    uint64_t GetPfcStorms() const;

    /**
     * \param priority a priority
     * \return true while the watchdog holds that priority's queue lossy (a storm)
     */
    bool IsInPfcStorm(uint8_t priority) const;

    /**
     * \brief The watchdog found a PFC storm on a priority: drop what its queue holds, freeing
     *        the frames' buffer at the switch.
     * \param priority the priority
     */
    void EnterPfcStorm(uint8_t priority);

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueForTransmit() override;
    void DoReceive(Ptr<Packet> p) override;
    void DoWithdraw(Ptr<Packet> p, uint32_t cookie, Time ready, Time start) override;
    void QueuedFrameDropped(const QueuedFrame& f, uint32_t size) override;
    void PauseArrived(uint8_t priority) override;
    void PausesReceived(uint32_t paused) override;

    /**
     * \brief EnqueueForwarded() at the end of the switch's pipeline latency (EnqueueAfter()).
     * \param p the frame
     * \param priority the priority it leaves in
     * \param ingress the switch ingress port
     * \param inPriority the priority it holds buffer under at the ingress
     */
    void DelayedEnqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority);

  private:
    /**
     * \brief The scheduler asks: may a priority send now (FabricEgressClasses)? Not while the
     *        peer pauses it; yes if its queue's head is ready by the selection's ready limit.
     * \param cls the priority
     * \return true if it may
     */
    bool IsSendable(uint8_t cls) override;

    /**
     * \brief IsSendable(), inline on the per-frame path.
     * \param cls the priority
     * \return true if it may
     */
    bool Sendable(uint8_t cls) const;

    /**
     * \brief Compute the ready limit of a selection: heads ready by now compete; with none
     *        ready (a frame still in the switch's pipeline), those ready first.
     * \param now the current time
     */
    void SetReadyLimit(const Time& now);

    /**
     * \brief Queue a forwarded frame, or drop it if its priority is in a storm.
     * \param p the frame
     * \param priority its priority
     * \param ingress its ingress port
     * \param inPriority the priority it holds buffer under there
     * \return true if queued
     */
    bool EnqueueFrame(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority);

    /**
     * \brief Drop a forwarded frame that a storm turned lossy, releasing its buffer.
     * \param f the frame
     * \param priority its priority
     * \param ingress the switch port it came in on
     * \param inPriority the priority it came in with
     */
    void DropInStorm(const Ptr<Packet>& f, uint8_t priority, uint16_t ingress, uint8_t inPriority);

    ForwardCallback m_forwardCb;        //!< the switch's forwarding
    DepartureCallback m_departureCb;    //!< to the switch's buffer manager
    DepartureCallback m_withdrawalCb;   //!< to the switch's buffer manager (withdrawn)
    uint32_t m_delayedEnqueues{0};      //!< forwarded frames still in the pipeline as events
    Ptr<RocePfcWatchdog> m_pfcWatchdog; //!< turns a storming queue lossy
};

} // namespace ns3

#endif /* ROCE_SWITCH_PORT_H */
