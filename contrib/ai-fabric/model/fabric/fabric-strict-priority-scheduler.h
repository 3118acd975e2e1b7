/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_STRICT_PRIORITY_SCHEDULER_H
#define FABRIC_STRICT_PRIORITY_SCHEDULER_H

#include "ns3/fabric-egress-scheduler.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Strict priority: the highest class that may send goes first (IEEE 802.1Q's strict
 *        priority transmission selection, the default of RoCEv2 switch ports and NICs). A
 *        lower class sends only while every higher one is empty or held.
 */
class FabricStrictPriorityScheduler : public FabricEgressScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricStrictPriorityScheduler();
    ~FabricStrictPriorityScheduler() override;

    int32_t Select(FabricEgressClasses& port, uint32_t nClasses, uint32_t candidates) override;

    /// \return true for this class itself; a subclass, which may override Select() or
    ///         Served(), is asked through them
    bool IsPlainStrictPriority() const override;

    /**
     * \brief Strict priority itself, for Select() and for a port that runs it inline (its
     *        per-frame path, without virtual calls; see IsPlainStrictPriority()).
     * \param candidates bit mask of the classes that may have a frame
     * \param sendable asked for each candidate from the highest down: may it send now?
     * \return the first class that may, or -1
     */
    template<class Sendable>
    static int32_t SelectFrom(uint32_t candidates, Sendable&& sendable)
    {
        while (candidates != 0)
        {
            const auto cls = static_cast<uint8_t>(31 - __builtin_clz(candidates));
            if (sendable(cls))
            {
                return cls;
            }
            candidates &= ~(1U << cls);
        }
        return -1;
    }
};

} // namespace ns3

#endif /* FABRIC_STRICT_PRIORITY_SCHEDULER_H */
