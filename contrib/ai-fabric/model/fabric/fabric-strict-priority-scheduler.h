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
};

} // namespace ns3

#endif /* FABRIC_STRICT_PRIORITY_SCHEDULER_H */
