/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-strict-priority-scheduler.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricStrictPriorityScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricStrictPriorityScheduler);

TypeId
FabricStrictPriorityScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricStrictPriorityScheduler")
                            .SetParent<FabricEgressScheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricStrictPriorityScheduler>();
    return tid;
}

FabricStrictPriorityScheduler::FabricStrictPriorityScheduler() = default;

FabricStrictPriorityScheduler::~FabricStrictPriorityScheduler() = default;

int32_t
FabricStrictPriorityScheduler::Select(FabricEgressClasses& port,
                                      uint32_t nClasses,
                                      uint32_t candidates)
{
    if (nClasses < 32)
    {
        candidates &= (1U << nClasses) - 1;
    }
    return SelectFrom(candidates, [&port](uint8_t cls) { return port.IsSendable(cls); });
}

bool
FabricStrictPriorityScheduler::IsPlainStrictPriority() const
{
    return GetInstanceTypeId() == FabricStrictPriorityScheduler::GetTypeId();
}

} // namespace ns3
