/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "pfc-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHeader");
NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_classEnable);
    for (uint16_t q : m_quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, SIZE - 2 - 2 - 16); // padding to the minimum frame
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadNtohU16();
    m_classEnable = i.ReadNtohU16();
    for (uint16_t& q : m_quanta)
    {
        q = i.ReadNtohU16();
    }
    return SIZE;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC opcode=0x" << std::hex << m_opcode << " cev=0x" << m_classEnable << std::dec;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << static_cast<uint32_t>(p) << "=" << m_quanta[p];
        }
    }
}

void
PfcHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    NS_ABORT_MSG_IF(priority >= 8, "PfcHeader: priority " << static_cast<uint32_t>(priority));
    m_classEnable |= static_cast<uint16_t>(1U << priority);
    m_quanta[priority] = quanta;
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    return priority < 8 && (m_classEnable & (1U << priority)) != 0;
}

uint16_t
PfcHeader::GetQuanta(uint8_t priority) const
{
    return priority < 8 ? m_quanta[priority] : 0;
}

uint16_t
PfcHeader::GetClassEnableVector() const
{
    return m_classEnable;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

uint32_t
PfcHeader::HeadroomBytes(uint64_t bitRate,
                         Time cableDelay,
                         uint32_t maxFrameBytes,
                         uint32_t responseQuanta)
{
    const double cableBytes = bitRate * cableDelay.GetSeconds() / 8;
    return 2 * maxFrameBytes + static_cast<uint32_t>(std::ceil(2 * cableBytes))
           + responseQuanta * (QUANTUM_BITS / 8);
}

} // namespace ns3
