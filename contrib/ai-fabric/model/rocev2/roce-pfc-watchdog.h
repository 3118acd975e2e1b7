/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_PFC_WATCHDOG_H
#define ROCE_PFC_WATCHDOG_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

class RoceSwitchPort;

/**
 * \ingroup ai-fabric
 * \brief The PFC watchdog of a RoCEv2 switch port (SONiC's pfcwd): a priority paused without
 *        a break for Detection is in a PFC storm; its queue turns lossy (its frames dropped,
 *        reason PfcWatchdog) until no pause has arrived for Restoration.
 *
 * A part of RoceSwitchPort (its pointer attribute "PfcWatchdog"), off by default as in SONiC.
 * The port tells it of every pause it receives (OnPause()) and asks it whether a priority is
 * in a storm (IsInStorm(), on the per-frame path: inline); the watchdog asks the port how
 * long a priority has been paused and, at a storm, has it drop what the queue holds
 * (RoceSwitchPort::EnterPfcStorm()).
 */
class RocePfcWatchdog : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RocePfcWatchdog();
    ~RocePfcWatchdog() override;

    /// Priorities watched (IEEE 802.1p classes)
    static constexpr uint32_t N_PRIORITIES = 8;

    /**
     * \brief Watch a port (the port calls it when it takes the part).
     * \param port the port; aborts if the part serves another port or the port is running
     */
    void SetPort(RoceSwitchPort* port);

    /**
     * \brief A pause (nonzero quanta) arrived at a switch port for a priority.
     * \param priority the priority
     */
    void OnPause(uint8_t priority);

    /**
     * \param priority a priority
     * \return true while the watchdog holds its queue lossy (a storm)
     */
    bool IsInStorm(uint8_t priority) const
    {
        return m_storm[priority];
    }

    /// \return storms detected, every priority
    uint64_t GetStorms() const
    {
        return m_storms;
    }

    /**
     * TracedCallback signature for PFC storms.
     * \param priority the priority
     * \param storm true when the watchdog detects a storm, false when it ends
     */
    typedef void (*StormTracedCallback)(uint8_t priority, bool storm);

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Has the priority been paused, without a break, for the detection time?
     * \param priority the priority
     */
    void Check(uint8_t priority);

    /**
     * \brief Has the storm stopped (no pause for the restoration time)?
     * \param priority the priority
     */
    void Restore(uint8_t priority);

    const Object* m_owner{nullptr};               //!< the port it serves, for FabricAdoptPart()
    RoceSwitchPort* m_port{nullptr};              //!< the port watched (it owns this)
    bool m_enabled{false};                        //!< attribute Enabled
    Time m_detection;                             //!< paused this long: a storm
    Time m_restoration;                           //!< no pause this long: storm over
    std::array<Time, N_PRIORITIES> m_lastPause{}; //!< last pause received
    std::array<bool, N_PRIORITIES> m_storm{};     //!< held lossy
    std::array<EventId, N_PRIORITIES> m_event;    //!< next check
    uint64_t m_storms{0};                         //!< storms detected
    TracedCallback<uint8_t, bool> m_stormTrace;   //!< storm began (true) or ended
};

} // namespace ns3

#endif /* ROCE_PFC_WATCHDOG_H */
