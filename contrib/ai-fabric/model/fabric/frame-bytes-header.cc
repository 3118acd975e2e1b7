/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "frame-bytes-header.h"

#include "ns3/abort.h"

#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FrameBytesHeader);

TypeId
FrameBytesHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FrameBytesHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FrameBytesHeader>();
    return tid;
}

TypeId
FrameBytesHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint8_t*
FrameBytesHeader::Prepare(uint32_t n)
{
    SetSize(n);
    return m_bytes.data();
}

void
FrameBytesHeader::SetSize(uint32_t n)
{
    NS_ABORT_MSG_IF(n > MAX_BYTES, "FrameBytesHeader: " << n << " bytes, at most " << MAX_BYTES);
    m_size = n;
}

const uint8_t*
FrameBytesHeader::GetBytes() const
{
    return m_bytes.data();
}

uint8_t*
FrameBytesHeader::GetBytes()
{
    return m_bytes.data();
}

uint32_t
FrameBytesHeader::GetSerializedSize() const
{
    return m_size;
}

void
FrameBytesHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes.data(), m_size);
}

uint32_t
FrameBytesHeader::Deserialize(Buffer::Iterator start)
{
    start.Read(m_bytes.data(), m_size);
    return m_size;
}

void
FrameBytesHeader::Print(std::ostream& os) const
{
    const auto flags = os.flags();
    os << std::hex << std::setfill('0');
    for (uint32_t i = 0; i < m_size; ++i)
    {
        os << std::setw(2) << static_cast<uint32_t>(m_bytes[i]);
    }
    os.flags(flags);
}

uint16_t
FrameBytesHeader::InternetChecksum(const uint8_t* bytes, uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2)
    {
        sum += (static_cast<uint32_t>(bytes[i]) << 8) | bytes[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum & 0xFFFF);
}

} // namespace ns3
