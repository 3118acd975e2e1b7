/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FAULT_SCHEDULE_H
#define FAULT_SCHEDULE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One scheduled failure (or repair), as written on the command line or in a JSON file.
 */
struct FaultEvent
{
    /// What happens
    enum class Kind : uint8_t
    {
        LINK_DOWN,   //!< a cable fails (both directions)
        LINK_UP,     //!< it is repaired
        SWITCH_DOWN, //!< a switch fails: every cable of it
        SWITCH_UP,   //!< it is back
        NIC_DOWN,    //!< a GPU's NIC fails: its cable to the fabric
        NIC_UP,      //!< it is back
        FLAP,        //!< a cable goes down and up Count times, every Period
        BER,         //!< a cable starts corrupting bits at Rate (both directions)
        BER_CLEAR,   //!< it stops
    };

    Kind kind{Kind::LINK_DOWN}; //!< what
    std::string target;         //!< "a-b" (a cable between nodes a and b) or a node's name
    Time at;                    //!< when
    Time period;                //!< FLAP: time between state changes
    uint32_t count{0};          //!< FLAP: state changes (down, up, down, ...)
    double rate{0};             //!< BER: bit error rate
};

/**
 * \param kind a kind
 * \return its name in reports ("link down", "switch up", ...)
 */
const char* FaultKindName(FaultEvent::Kind kind);

/**
 * \ingroup ai-fabric
 * \brief Reads failure schedules.
 *
 * Text form (--failures), events separated by ';':
 *
 * - `link:A-B@T`: the cable between nodes A and B fails at time T (e.g. `link:leaf0-spine1@2ms`)
 * - `switch:S@T`: switch S fails (all its cables)
 * - `nic:G@T`: GPU G's NIC fails (its cable to the fabric)
 * - `flap:A-B@T,period=P,count=N`: the cable fails at T, comes back at T + P, fails at
 *   T + 2P, ... N state changes (count defaults to 2: down and up)
 * - `ber:A-B@T,rate=R`: from T the cable corrupts bits with probability R (both directions)
 * - `up@T`: the target of the event before comes back at T (a link, switch or NIC repaired,
 *   or a cable's bit errors cleared)
 *
 * Times take a unit: s, ms, us or ns ("2ms", "0.5us"). Node names are the topology
 * helpers' (leaf0, spine1, pod0-agg1, core2, torus1-2, gpu7). JSON form: a file holding an array
 * of objects {"what": "link"|"switch"|"nic"|"flap"|"ber", "target": "...", "at": "2ms",
 * "up": "5ms" (optional), "period": "1ms", "count": 4, "rate": 1e-7}.
 */
class FaultSchedule
{
  public:
    /**
     * \param text the text form
     * \param events the events, in the order written
     * \param error one line when the text is malformed
     * \return false if it is malformed
     */
    static bool Parse(const std::string& text, std::vector<FaultEvent>& events, std::string& error);

    /**
     * \param path a JSON file
     * \param events the events
     * \param error one line when the file cannot be read or is malformed
     * \return false if it cannot be read or is malformed
     */
    static bool ParseJsonFile(const std::string& path,
                              std::vector<FaultEvent>& events,
                              std::string& error);

    /**
     * \brief The text form or, if it ends in ".json", the file it names.
     * \param spec the --failures value
     * \param events the events
     * \param error one line on failure
     * \return false on failure
     */
    static bool Read(const std::string& spec, std::vector<FaultEvent>& events, std::string& error);

    /**
     * \brief Parse a time: a non-negative decimal number and a unit, s, ms, us or ns
     *        ("2ms", "0.5us"), at most 10^6 s.
     * \param text the text
     * \param time the result
     * \return false if the text is not such a time
     */
    static bool ParseTime(const std::string& text, Time& time);

    /**
     * \param events events
     * \return the latest time at which one of them changes something
     */
    static Time LastChange(const std::vector<FaultEvent>& events);
};

} // namespace ns3

#endif /* FAULT_SCHEDULE_H */
