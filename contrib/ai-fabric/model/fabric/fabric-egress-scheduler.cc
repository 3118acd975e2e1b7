/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-egress-scheduler.h"

#include "fabric-part.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricEgressScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricEgressScheduler);

TypeId
FabricEgressScheduler::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricEgressScheduler").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricEgressScheduler::FabricEgressScheduler() = default;

FabricEgressScheduler::~FabricEgressScheduler() = default;

void
FabricEgressScheduler::Served(uint8_t /* cls */, uint32_t /* bytes */)
{
}

bool
FabricEgressScheduler::IsPlainStrictPriority() const
{
    return false;
}

void
FabricEgressScheduler::Adopt(const Object* owner)
{
    FabricAdoptPart(*this, m_owner, owner, "Scheduler");
}

} // namespace ns3
