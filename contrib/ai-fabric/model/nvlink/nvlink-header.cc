/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvLinkHeader);

TypeId
NvLinkHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvLinkHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvLinkHeader>();
    return tid;
}

TypeId
NvLinkHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
NvLinkHeader::GetSerializedSize() const
{
    return SIZE;
}

void
NvLinkHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(type);
    start.WriteU8(0);
    start.WriteHtonU16(srcGpu);
    start.WriteHtonU16(dstGpu);
    start.WriteHtonU16(slot);
    start.WriteHtonU32(bytes);
    start.WriteHtonU32(tag);
    start.WriteHtonU32(static_cast<uint32_t>(messageBytes >> 32)); // big-endian, in two halves:
    start.WriteHtonU32(static_cast<uint32_t>(messageBytes));       // ns-3 inlines 32-bit writes
    start.WriteHtonU32(index);
    start.WriteHtonU16(groupSize);
    start.WriteU16(0);
}

uint32_t
NvLinkHeader::Deserialize(Buffer::Iterator start)
{
    type = static_cast<Type>(start.ReadU8());
    start.ReadU8();
    srcGpu = start.ReadNtohU16();
    dstGpu = start.ReadNtohU16();
    slot = start.ReadNtohU16();
    bytes = start.ReadNtohU32();
    tag = start.ReadNtohU32();
    messageBytes = static_cast<uint64_t>(start.ReadNtohU32()) << 32;
    messageBytes |= start.ReadNtohU32();
    index = start.ReadNtohU32();
    groupSize = start.ReadNtohU16();
    start.ReadU16();
    return SIZE;
}

void
NvLinkHeader::Print(std::ostream& os) const
{
    static const char* names[] = {"data", "credit", "NVLS reduce", "NVLS multicast"};
    os << "NVLink " << (type <= NVLS_MULTICAST ? names[type] : "?") << " gpu" << srcGpu << "->gpu"
       << dstGpu << " bytes=" << bytes;
    if (type != CREDIT)
    {
        os << " tag=" << tag << " slot=" << slot << " packet " << index << " of " << messageBytes
           << " bytes";
    }
}

} // namespace ns3
