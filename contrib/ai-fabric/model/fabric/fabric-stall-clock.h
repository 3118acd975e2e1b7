/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_STALL_CLOCK_H
#define FABRIC_STALL_CLOCK_H

#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How long a traffic class of a port has been held by link-level flow control: the
 *        bookkeeping every port shares, whether the hold is open-ended (a packet waits for
 *        credits, InfiniBand and NVLink: Hold() until Release()) or timed (a PFC pause of so
 *        many quanta, RoCEv2: HoldUntil(), which a later pause extends or ends).
 *
 * It keeps the start of the current (or last) hold, its end (Time::Max() while open-ended),
 * and the total of the holds before it, so that the time held so far is exact at any instant
 * without an event at a hold's end. A value type: one per class, updated inline on the
 * per-packet path (every argument by reference: a Time copied is a Time marked and cleared).
 */
class FabricStallClock
{
  public:
    /**
     * \param now the current time
     * \return true while held (a timed hold until its end)
     */
    bool IsHeld(const Time& now) const
    {
        return now < m_until;
    }

    /// \return true while an open-ended hold lasts (Hold() without Release())
    bool IsHeldOpen() const
    {
        // Compared as integers: no Time temporaries on the per-packet path.
        return m_until.GetTimeStep() == std::numeric_limits<int64_t>::max();
    }

    /**
     * \brief Hold from now until Release() (a packet waits for credits); nothing if already
     *        held.
     * \param now the current time
     * \return true if a new hold began
     */
    bool Hold(const Time& now)
    {
        const bool fresh = !IsHeld(now);
        if (fresh)
        {
            Begin(now);
        }
        m_until = Time::Max();
        return fresh;
    }

    /**
     * \brief Hold until a time (a PFC pause): a hold in progress is extended or shortened to
     *        it (ended now if it is now), and a new one begins if none is in progress and the
     *        time is later than now.
     * \param now the current time
     * \param until the end of the hold
     * \return true if a new hold began
     */
    bool HoldUntil(const Time& now, const Time& until)
    {
        const bool fresh = !IsHeld(now);
        if (fresh)
        {
            if (until <= now)
            {
                return false; // a pause of zero quanta with none in progress
            }
            Begin(now);
        }
        m_until = until;
        return fresh;
    }

    /**
     * \brief End the hold now (the credits came); nothing if not held.
     * \param now the current time
     * \return true if a hold ended
     */
    bool Release(const Time& now)
    {
        if (!IsHeld(now))
        {
            return false;
        }
        m_until = now;
        return true;
    }

    /// \return when the current (or last) hold began
    const Time& GetStart() const
    {
        return m_start;
    }

    /**
     * \param now the current time
     * \return the time held so far, the current hold up to now included
     */
    Time GetTotal(const Time& now) const
    {
        return m_closed + (std::min(now, m_until) - m_start);
    }

  private:
    /**
     * \brief Close the last hold and begin one now.
     * \param now the current time
     */
    void Begin(const Time& now)
    {
        m_closed += m_until - m_start;
        m_start = now;
    }

    Time m_start{0};  //!< start of the current or last hold
    Time m_until{0};  //!< its end (Time::Max() while open-ended)
    Time m_closed{0}; //!< the holds before it
};

} // namespace ns3

#endif /* FABRIC_STALL_CLOCK_H */
