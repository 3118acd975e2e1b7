/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-buffer-manager.h"

#include "fabric-part.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricBufferManager);

TypeId
FabricBufferManager::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricBufferManager").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricBufferManager::FabricBufferManager() = default;

FabricBufferManager::~FabricBufferManager() = default;

void
FabricBufferManager::Adopt(const Object* owner)
{
    FabricAdoptPart(*this, m_owner, owner, "BufferManager");
}

} // namespace ns3
