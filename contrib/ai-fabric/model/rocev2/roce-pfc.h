/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_PFC_H
#define ROCE_PFC_H

#include "ns3/callback.h"
#include "ns3/fabric-link-flow-control.h"
#include "ns3/fabric-stall-clock.h"
#include "ns3/mac48-address.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class Packet;

/**
 * \ingroup ai-fabric
 * \brief Priority flow control (IEEE 802.1Qbb) at one RoCEv2 port: the pauses its peer sent
 *        (per priority, each a timed hold of quanta x 512 bit times at the port's rate, which
 *        a later frame extends or ends), and the PFC frames the port sends.
 *
 * A part of RoceNetDevice (its pointer attribute "FlowControl"). The port asks IsPaused() on
 * its per-frame path (inline), hands it every MAC control frame it receives (Receive()) and
 * has it build the frames it sends (MakeFrame()); the part tells the port when a priority is
 * newly paused (for the PFC watchdog) and when a pause has expired (to send again). It is the
 * port's FabricLinkFlowControl: pauses sent and received, and the time paused, per priority.
 */
class RocePfc : public FabricLinkFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RocePfc();
    ~RocePfc() override;

    /// Priorities (IEEE 802.1p classes)
    static constexpr uint32_t N_PRIORITIES = 8;

    /// A priority's event: (priority).
    typedef Callback<void, uint8_t> PriorityCallback;

    /**
     * \brief Wire the part to its port.
     * \param paused called for each priority a received frame pauses (nonzero quanta), as it
     *        is applied
     * \param expired called when a pause ran out with no newer one
     */
    void SetCallbacks(PriorityCallback paused, PriorityCallback expired);

    /**
     * \param priority a priority
     * \param now the current time
     * \return true while the peer has it paused
     */
    bool IsPaused(uint8_t priority, const Time& now) const
    {
        return m_pause[priority].IsHeld(now);
    }

    /**
     * \param priority a priority
     * \return when its current (or last) pause began
     */
    Time GetPauseStart(uint8_t priority) const
    {
        return m_pause[priority].GetStart();
    }

    /**
     * \brief Build a PFC frame for one priority and count it.
     * \param priority the priority to pause or release
     * \param quanta pause time in quanta of 512 bit times (0: release)
     * \param source the port's MAC address
     * \return the Ethernet frame (EtherType 0x8808, to 01:80:c2:00:00:01)
     */
    Ptr<Packet> MakeFrame(uint8_t priority, uint16_t quanta, Mac48Address source);

    /**
     * \brief Apply a received MAC control frame.
     * \param frame the Ethernet frame
     * \param bitRate the port's rate (a quantum is 512 bit times at it)
     * \param paused set to the priorities it paused (bit p: nonzero quanta for p)
     * \return false if it is not a PFC frame (another MAC control opcode)
     */
    bool Receive(Ptr<const Packet> frame, uint64_t bitRate, uint32_t& paused);

    /**
     * \brief End every pause now (the link went down or up).
     * \param now the current time
     */
    void ReleaseAll(const Time& now);

    /**
     * \param priority a priority
     * \return PFC releases (XON, zero quanta) sent for it
     */
    uint64_t GetReleasesSent(uint8_t priority) const
    {
        return m_released[priority];
    }

    // FabricLinkFlowControl
    uint32_t GetNClasses() const override;
    bool IsCreditBased() const override;
    bool IsHeld(uint8_t cls) const override;
    Time GetHeldTime(uint8_t cls) const override;
    uint64_t GetPausesSent(uint8_t cls) const override;
    uint64_t GetPausesReceived(uint8_t cls) const override;

    /**
     * TracedCallback signature for PFC frames.
     * \param priority the priority
     * \param quanta the pause time (0: release)
     */
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    /**
     * \param priority a priority whose pause may have expired
     */
    void Expired(uint8_t priority);

    std::array<FabricStallClock, N_PRIORITIES> m_pause; //!< the peer's pauses per priority
    std::array<uint64_t, N_PRIORITIES> m_sent{};        //!< pauses sent (nonzero quanta)
    std::array<uint64_t, N_PRIORITIES> m_released{};    //!< releases sent
    std::array<uint64_t, N_PRIORITIES> m_received{};    //!< PFC frames received
    PriorityCallback m_paused;                          //!< to the port: newly paused
    PriorityCallback m_expired;                         //!< to the port: a pause ran out
    TracedCallback<uint8_t, uint16_t> m_sentTrace;      //!< PFC frame sent
    TracedCallback<uint8_t, uint16_t> m_receivedTrace;  //!< PFC frame received
};

} // namespace ns3

#endif /* ROCE_PFC_H */
