/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-congestion-marker.h"

#include "fabric-part.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricCongestionMarker);

TypeId
FabricCongestionMarker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricCongestionMarker")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddTraceSource("Mark",
                              "A departing frame was marked: (traffic class, "
                              "bytes it left in its queue).",
                              MakeTraceSourceAccessor(&FabricCongestionMarker::m_markTrace),
                              "ns3::FabricCongestionMarker::MarkTracedCallback");
    return tid;
}

FabricCongestionMarker::FabricCongestionMarker() = default;

FabricCongestionMarker::~FabricCongestionMarker() = default;

bool
FabricCongestionMarker::GetThresholds(uint64_t /* bitRate */, uint32_t& kmin, uint32_t& kmax) const
{
    kmin = 0;
    kmax = 0;
    return false;
}

void
FabricCongestionMarker::Adopt(const Object* owner)
{
    FabricAdoptPart(*this, m_owner, owner, "Marker");
}

int64_t
FabricCongestionMarker::AssignStreams(int64_t /* stream */)
{
    return 0;
}

} // namespace ns3
