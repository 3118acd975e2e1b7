/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-headers.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbHeaders");
NS_OBJECT_ENSURE_REGISTERED(LrhHeader);
NS_OBJECT_ENSURE_REGISTERED(VcrcTrailer);
NS_OBJECT_ENSURE_REGISTERED(IbFlowControlHeader);

TypeId
LrhHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LrhHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LrhHeader>();
    return tid;
}

TypeId
LrhHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
LrhHeader::GetSerializedSize() const
{
    return SIZE;
}

void
LrhHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(static_cast<uint8_t>((m_vl << 4) | 0x0)); // LVer 0
    i.WriteU8(static_cast<uint8_t>((m_sl << 4) | (m_lnh & 0x3)));
    i.WriteHtonU16(m_dlid);
    i.WriteHtonU16(m_pktLen & 0x07FF);
    i.WriteHtonU16(m_slid);
}

uint32_t
LrhHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_vl = i.ReadU8() >> 4;
    const uint8_t b = i.ReadU8();
    m_sl = b >> 4;
    m_lnh = b & 0x3;
    m_dlid = i.ReadNtohU16();
    m_pktLen = i.ReadNtohU16() & 0x07FF;
    m_slid = i.ReadNtohU16();
    return SIZE;
}

void
LrhHeader::Print(std::ostream& os) const
{
    os << "VL=" << static_cast<uint32_t>(m_vl) << " SL=" << static_cast<uint32_t>(m_sl)
       << " DLID=" << m_dlid << " SLID=" << m_slid << " PktLen=" << m_pktLen;
}

void
LrhHeader::SetVl(uint8_t vl)
{
    m_vl = vl & 0xF;
}

uint8_t
LrhHeader::GetVl() const
{
    return m_vl;
}

void
LrhHeader::SetSl(uint8_t sl)
{
    m_sl = sl & 0xF;
}

uint8_t
LrhHeader::GetSl() const
{
    return m_sl;
}

void
LrhHeader::SetLnh(uint8_t lnh)
{
    m_lnh = lnh & 0x3;
}

uint8_t
LrhHeader::GetLnh() const
{
    return m_lnh;
}

void
LrhHeader::SetDlid(uint16_t lid)
{
    m_dlid = lid;
}

uint16_t
LrhHeader::GetDlid() const
{
    return m_dlid;
}

void
LrhHeader::SetSlid(uint16_t lid)
{
    m_slid = lid;
}

uint16_t
LrhHeader::GetSlid() const
{
    return m_slid;
}

void
LrhHeader::SetPktLen(uint16_t words)
{
    m_pktLen = words & 0x07FF;
}

uint16_t
LrhHeader::GetPktLen() const
{
    return m_pktLen;
}

TypeId
VcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::VcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<VcrcTrailer>();
    return tid;
}

TypeId
VcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
VcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
VcrcTrailer::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.Prev(SIZE);
    i.WriteU16(0);
}

uint32_t
VcrcTrailer::Deserialize(Buffer::Iterator /* end */)
{
    return SIZE;
}

void
VcrcTrailer::Print(std::ostream& os) const
{
    os << "VCRC";
}

TypeId
IbFlowControlHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbFlowControlHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbFlowControlHeader>();
    return tid;
}

TypeId
IbFlowControlHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IbFlowControlHeader::GetSerializedSize() const
{
    return SIZE;
}

void
IbFlowControlHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(static_cast<uint16_t>((m_op << 12) | (m_fctbs & 0x0FFF)));
    i.WriteHtonU16(static_cast<uint16_t>((m_vl << 12) | (m_fccl & 0x0FFF)));
    i.WriteHtonU16(0); // LPCRC: not computed
}

uint32_t
IbFlowControlHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    const uint16_t a = i.ReadNtohU16();
    const uint16_t b = i.ReadNtohU16();
    i.ReadNtohU16();
    m_op = a >> 12;
    m_fctbs = a & 0x0FFF;
    m_vl = b >> 12;
    m_fccl = b & 0x0FFF;
    return SIZE;
}

void
IbFlowControlHeader::Print(std::ostream& os) const
{
    os << "FC op=" << static_cast<uint32_t>(m_op) << " VL=" << static_cast<uint32_t>(m_vl)
       << " FCTBS=" << m_fctbs << " FCCL=" << m_fccl;
}

void
IbFlowControlHeader::SetOp(uint8_t op)
{
    m_op = op & 0xF;
}

uint8_t
IbFlowControlHeader::GetOp() const
{
    return m_op;
}

void
IbFlowControlHeader::SetVl(uint8_t vl)
{
    m_vl = vl & 0xF;
}

uint8_t
IbFlowControlHeader::GetVl() const
{
    return m_vl;
}

void
IbFlowControlHeader::SetFctbs(uint32_t fctbs)
{
    m_fctbs = static_cast<uint16_t>(fctbs % MODULO);
}

uint16_t
IbFlowControlHeader::GetFctbs() const
{
    return m_fctbs;
}

void
IbFlowControlHeader::SetFccl(uint32_t fccl)
{
    m_fccl = static_cast<uint16_t>(fccl % MODULO);
}

uint16_t
IbFlowControlHeader::GetFccl() const
{
    return m_fccl;
}

} // namespace ns3
