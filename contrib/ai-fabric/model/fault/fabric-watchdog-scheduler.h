/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_WATCHDOG_SCHEDULER_H
#define FABRIC_WATCHDOG_SCHEDULER_H

#include "fabric-watchdog.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/scheduler.h"

#include <array>
#include <chrono>
#include <limits>
#include <typeinfo>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A scheduler around another (Inner, any ns-3 scheduler) that counts the events taken
 * from it and tells its FabricWatchdog when a limit is reached, then stops the simulation.
 *
 * It keeps the class of the method (from the event's type) and the context (node) of the
 * last RECENT events, for the report. The wall clock is read once every WALL_CHECK_EVENTS
 * events.
 */
class FabricWatchdogScheduler
    : public Scheduler
    , public FabricEventWatch
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricWatchdogScheduler();
    ~FabricWatchdogScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /**
     * \brief Count an event taken, check the limits and remember it for the report (what
     *        RemoveNext() does with the inner scheduler's event; FabricSimulatorImpl calls it
     *        for the events of its own queue).
     * \param impl the event
     * \param ts its time (time steps)
     * \param context its context
     */
    void Note(EventImpl* impl, uint64_t ts, uint32_t context) override;

    /// Events remembered for the report (a power of two).
    static constexpr uint32_t RECENT = 4096;
    /// Events between two readings of the wall clock.
    static constexpr uint64_t WALL_CHECK_EVENTS = 4096;

  protected:
    void DoDispose() override;

  private:
    /**
     * \param watchdog the watchdog whose limits apply (read now; the wall clock starts now)
     */
    void SetWatchdog(Ptr<FabricWatchdog> watchdog);

    /// \return the watchdog
    Ptr<FabricWatchdog> GetWatchdog() const;

    /**
     * \param limit the limit that fired
     * \param what its description ("MaxEvents 1000", ...)
     * \param now the simulated time of the event that reached it (in time steps)
     */
    void Fire(FabricWatchdog::Limit limit, const std::string& what, uint64_t now);

    /**
     * \brief An event reached m_nextCheck or m_sameTimeLimit: fire a limit if one is
     *        reached, else set the next check.
     * \param now the simulated time of the event (in time steps)
     */
    void Check(uint64_t now);

    /// Set m_nextCheck and m_sameTimeLimit from the limits (never, once one fired).
    void SetNextCheck();

    /// \return where the recent events came from, most frequent first
    std::string Sources() const;

    /// One recent event.
    struct Recent
    {
        const std::type_info* type{nullptr}; //!< the event's implementation type
        uint32_t context{0};                 //!< its context (node id)
    };

    Ptr<Scheduler> m_inner;                                     //!< the wrapped scheduler
    Ptr<FabricWatchdog> m_watchdog;                             //!< the limits and the report
    uint64_t m_maxEvents{0};                                    //!< from the watchdog (0: none)
    uint64_t m_maxSameTime{0};                                  //!< from the watchdog (0: none)
    std::chrono::steady_clock::time_point m_deadline;           //!< wall-clock limit
    bool m_wallLimit{false};                                    //!< a wall-clock limit is set
    uint64_t m_events{0};                                       //!< events taken
    uint64_t m_lastTs{0};                                       //!< time stamp of the last event
    uint64_t m_sameTime{0};                                     //!< events in a row at m_lastTs
    uint64_t m_nextCheck{std::numeric_limits<uint64_t>::max()}; //!< events at next check
    uint64_t m_sameTimeLimit{std::numeric_limits<uint64_t>::max()}; //!< m_sameTime to check
    bool m_fired{false};                                            //!< a limit fired
    std::array<Recent, RECENT> m_recent{};                          //!< the last events, a ring
};

} // namespace ns3

#endif /* FABRIC_WATCHDOG_SCHEDULER_H */
