/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-link-flow-control.h"

#include "fabric-part.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricLinkFlowControl);

TypeId
FabricLinkFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricLinkFlowControl").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricLinkFlowControl::FabricLinkFlowControl() = default;

FabricLinkFlowControl::~FabricLinkFlowControl() = default;

void
FabricLinkFlowControl::Adopt(const Object* owner)
{
    FabricAdoptPart(*this, m_owner, owner, "FlowControl");
}

uint64_t
FabricLinkFlowControl::GetPausesSent(uint8_t /* cls */) const
{
    return 0;
}

uint64_t
FabricLinkFlowControl::GetPausesReceived(uint8_t /* cls */) const
{
    return 0;
}

} // namespace ns3
