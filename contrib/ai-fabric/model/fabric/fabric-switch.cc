/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-switch.h"

#include "fabric-buffer-manager.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSwitch").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricSwitch::FabricSwitch() = default;

FabricSwitch::~FabricSwitch() = default;

Ptr<FabricBufferManager>
FabricSwitch::GetBufferManager() const
{
    return nullptr;
}

bool
FabricSwitch::IsCutThrough() const
{
    return false;
}

} // namespace ns3
