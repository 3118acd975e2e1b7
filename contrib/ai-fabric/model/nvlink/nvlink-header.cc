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
    start.WriteHtonU64(messageBytes);
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
    messageBytes = start.ReadNtohU64();
    return SIZE;
}

void
NvLinkHeader::Print(std::ostream& os) const
{
    os << (type == CREDIT ? "NVLink credit " : "NVLink data ") << "gpu" << srcGpu << "->gpu"
       << dstGpu << " bytes=" << bytes;
    if (type == DATA)
    {
        os << " tag=" << tag << " slot=" << slot << " of " << messageBytes;
    }
}

} // namespace ns3
