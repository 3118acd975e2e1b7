/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_WATCHDOG_H
#define FABRIC_WATCHDOG_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace ns3
{

class CommandLine;

/**
 * \ingroup ai-fabric
 * \brief Ends a run that would not end: too many events, too much wall time, or simulated
 * time that stops advancing.
 *
 * The stall detector (FabricStallDetector) watches the fabric: no delivered bytes while bytes
 * are outstanding. It needs simulated time to advance, since its checks are events in the
 * future. The watchdog watches the simulator itself, so nothing can fool it: Install() puts a
 * FabricWatchdogScheduler around the scheduler the run would use (ns-3's SchedulerType), which
 * counts every event as it is taken from the queue and stops the simulation when
 *
 * - MaxEvents events have run (0: no limit),
 * - MaxWallTime of wall-clock time has passed since Install() (0: no limit), or
 * - MaxEventsAtOneTime events in a row ran at one simulated instant (time does not advance;
 *   at least MaxEventsAtOneTimePerNode per node of the simulation).
 *
 * The report names the limit, the simulated time, and where the last events came from: the
 * classes whose methods they call and the nodes they ran on. Programs end such a run with
 * exit status 3 and print the report (FailureReport). The cost is one counter, one
 * comparison and one ring-buffer store per event.
 */
class FabricWatchdog : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricWatchdog();
    ~FabricWatchdog() override;

    /// The limit that fired.
    enum class Limit : uint8_t
    {
        NONE,        //!< none
        EVENTS,      //!< MaxEvents
        WALL_TIME,   //!< MaxWallTime
        FROZEN_TIME, //!< MaxEventsAtOneTime
    };

    /**
     * \brief Add --maxEvents and --maxWallTime to a program's command line (they set this
     * class's attributes; FabricCli::CheckKnownOptions checks their values first).
     * \param cmd the program's command line
     */
    static void AddCommandLine(CommandLine& cmd);

    /**
     * \brief Watch the coming Simulator::Run(): wraps the simulator's scheduler (call after
     * the scenario is built, before Simulator::Run(); again after each Simulator::Destroy()).
     */
    void Install();

    /// The scheduler ai-fabric's programs run inside the watchdog unless --SchedulerType (or
    /// NS_GLOBAL_VALUE) names another: ai-fabric's radix heap (FabricRadixScheduler), faster
    /// on the scale benchmark's ladder than the fastest of ns-3's (the manual's "Schedulers").
    static constexpr const char* DEFAULT_SCHEDULER = "ns3::FabricRadixScheduler";

    /**
     * \brief Make DEFAULT_SCHEDULER ns-3's SchedulerType, unless the environment
     * (NS_GLOBAL_VALUE) sets one. Programs call it (through FabricCli::CheckKnownOptions)
     * before their command line is read, so that --SchedulerType still changes it.
     */
    static void UseDefaultScheduler();

    /// \return the TypeId name of the scheduler the last Install() wrapped (empty before)
    const std::string& GetSchedulerType() const;

    /**
     * \brief Simulator::Run() under a watchdog with the attributes' defaults (set them with
     * --ns3::FabricWatchdog::...). For programs without a finding report of their own: a limit
     * that fires ends the program with its report on standard error, as "PROGRAM: watchdog:
     * ...", and exit status 3 (output temporaries are removed at exit).
     */
    static void RunOrExit();

    /**
     * \brief The program's name in RunOrExit()'s report (by default the name it was started
     *        by, which inside an ns-3 tree has ns-3's prefix and suffix).
     * \param name the name the program's other messages use
     */
    static void SetProgramName(const std::string& name);

    /// \return the limit that fired (NONE while none did)
    Limit GetLimit() const;

    /// \return true once a limit fired
    bool HasFired() const;

    /// \return the report: one line, "watchdog: ..." (empty while no limit fired)
    const std::string& GetReport() const;

    /// \return MaxEvents
    uint64_t GetMaxEvents() const;
    /// \return MaxEventsAtOneTime, at least MaxEventsAtOneTimePerNode x the nodes (0: none)
    uint64_t GetMaxEventsAtOneTime() const;
    /// \return MaxWallTime
    Time GetMaxWallTime() const;
    /// \return when MaxWallTime runs out: MaxWallTime after the first Install()
    std::chrono::steady_clock::time_point GetDeadline() const;

    /**
     * \brief Called by the scheduler when a limit fires (once).
     * \param limit the limit
     * \param report the one-line report
     */
    void Fire(Limit limit, const std::string& report);

    /**
     * TracedCallback signature for a limit that fired.
     * \param report the one-line report
     */
    typedef void (*FiredTracedCallback)(const std::string& report);

  private:
    uint64_t m_maxEvents{0};                         //!< MaxEvents
    uint64_t m_maxEventsAtOneTime{0};                //!< MaxEventsAtOneTime
    uint64_t m_maxEventsPerNode{0};                  //!< MaxEventsAtOneTimePerNode
    Time m_maxWallTime;                              //!< MaxWallTime
    Limit m_limit{Limit::NONE};                      //!< what fired
    bool m_started{false};                           //!< Install() was called
    std::chrono::steady_clock::time_point m_start;   //!< the first Install()
    std::string m_report;                            //!< one line
    std::string m_schedulerType;                     //!< the wrapped scheduler's TypeId
    TracedCallback<const std::string&> m_firedTrace; //!< a limit fired
};

} // namespace ns3

#endif /* FABRIC_WATCHDOG_H */
