/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_PART_H
#define FABRIC_PART_H

#include "ns3/abort.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Give a part (a port's marker, flow control, watchdog, host interface; a switch's
 *        buffer manager) to its owner, checking the rules every part follows: a part serves
 *        one owner (a part object given to every port through an object factory's
 *        PointerValue would be shared: each port needs its own, as FabricHelper::SetPortPart
 *        creates), and an owner replaces its part only before the simulation starts (an
 *        initialized owner's part has state and events in flight).
 * \param part the part
 * \param partOwner the part's record of its owner (nullptr: none yet)
 * \param owner the new owner
 * \param what the part's name, for messages ("Marker", ...)
 */
inline void
FabricAdoptPart(const Object& part, const Object*& partOwner, const Object* owner, const char* what)
{
    NS_ABORT_MSG_IF(owner->IsInitialized(),
                    owner->GetInstanceTypeId().GetName()
                        << ": its " << what << " is replaced after the simulation started");
    NS_ABORT_MSG_IF(partOwner != nullptr && partOwner != owner,
                    part.GetInstanceTypeId().GetName()
                        << ": one " << what << " given to two owners; each needs its own");
    partOwner = owner;
}

/**
 * \ingroup ai-fabric
 * \brief Put an adopted part in its owner's slot: the part it replaces is disposed (it stops
 *        acting on the owner), the new one takes its place.
 * \param slot the owner's member holding the part
 * \param part the new part (already adopted: FabricAdoptPart())
 */
template<class T, class U>
void
FabricReplacePart(Ptr<T>& slot, const Ptr<U>& part)
{
    if (slot)
    {
        slot->Dispose();
    }
    slot = part;
}

} // namespace ns3

#endif /* FABRIC_PART_H */
