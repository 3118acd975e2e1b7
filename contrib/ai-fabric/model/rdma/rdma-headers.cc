/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-headers.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHeaders");
NS_OBJECT_ENSURE_REGISTERED(BthHeader);
NS_OBJECT_ENSURE_REGISTERED(RethHeader);
NS_OBJECT_ENSURE_REGISTERED(AethHeader);
NS_OBJECT_ENSURE_REGISTERED(ImmDtHeader);
NS_OBJECT_ENSURE_REGISTERED(IcrcTrailer);

// ---------------------------------------------------------------- BTH

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return SIZE;
}

void
BthHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_opcode);
    // SE | M | PadCnt(2) | TVer(4) = 0
    i.WriteU8((m_solicited ? 0x80 : 0) | (m_migReq ? 0x40 : 0) | ((m_padCount & 0x3) << 4));
    i.WriteHtonU16(m_pkey);
    i.WriteU8((m_fecn ? 0x80 : 0) | (m_becn ? 0x40 : 0));
    i.WriteU8((m_destQp >> 16) & 0xFF);
    i.WriteHtonU16(m_destQp & 0xFFFF);
    i.WriteU8(m_ackReq ? 0x80 : 0);
    i.WriteU8((m_psn >> 16) & 0xFF);
    i.WriteHtonU16(m_psn & 0xFFFF);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadU8();
    uint8_t b = i.ReadU8();
    m_solicited = (b & 0x80) != 0;
    m_migReq = (b & 0x40) != 0;
    m_padCount = (b >> 4) & 0x3;
    m_pkey = i.ReadNtohU16();
    b = i.ReadU8();
    m_fecn = (b & 0x80) != 0;
    m_becn = (b & 0x40) != 0;
    m_destQp = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_destQp |= i.ReadNtohU16();
    m_ackReq = (i.ReadU8() & 0x80) != 0;
    m_psn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_psn |= i.ReadNtohU16();
    return SIZE;
}

void
BthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << static_cast<uint32_t>(m_opcode) << std::dec
       << " dqp=" << m_destQp << " psn=" << m_psn << " pad=" << static_cast<uint32_t>(m_padCount)
       << (m_ackReq ? " A" : "") << (m_fecn ? " FECN" : "") << (m_becn ? " BECN" : "");
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_solicited = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_solicited;
}

void
BthHeader::SetPadCount(uint8_t padCount)
{
    m_padCount = padCount & 0x3;
}

uint8_t
BthHeader::GetPadCount() const
{
    return m_padCount;
}

void
BthHeader::SetPartitionKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
BthHeader::GetPartitionKey() const
{
    return m_pkey;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_fecn = fecn;
}

bool
BthHeader::GetFecn() const
{
    return m_fecn;
}

void
BthHeader::SetBecn(bool becn)
{
    m_becn = becn;
}

bool
BthHeader::GetBecn() const
{
    return m_becn;
}

void
BthHeader::SetDestQp(uint32_t qpn)
{
    m_destQp = qpn & 0xFFFFFF;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetAckRequest(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & RDMA_PSN_MASK;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

// ---------------------------------------------------------------- RETH

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RethHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU64(m_va);
    i.WriteHtonU32(m_rkey);
    i.WriteHtonU32(m_length);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_va = i.ReadNtohU64();
    m_rkey = i.ReadNtohU32();
    m_length = i.ReadNtohU32();
    return SIZE;
}

void
RethHeader::Print(std::ostream& os) const
{
    os << "RETH va=0x" << std::hex << m_va << " rkey=0x" << m_rkey << std::dec
       << " len=" << m_length;
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_va = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_va;
}

void
RethHeader::SetRemoteKey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RethHeader::GetRemoteKey() const
{
    return m_rkey;
}

void
RethHeader::SetDmaLength(uint32_t length)
{
    m_length = length;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_length;
}

// ---------------------------------------------------------------- AETH

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
AethHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_syndrome);
    i.WriteU8((m_msn >> 16) & 0xFF);
    i.WriteHtonU16(m_msn & 0xFFFF);
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_syndrome = i.ReadU8();
    m_msn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_msn |= i.ReadNtohU16();
    return SIZE;
}

void
AethHeader::Print(std::ostream& os) const
{
    os << "AETH " << (IsNak() ? "NAK" : "ACK") << " syndrome=0x" << std::hex
       << static_cast<uint32_t>(m_syndrome) << std::dec << " msn=" << m_msn;
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

bool
AethHeader::IsNak() const
{
    return (m_syndrome & 0xE0) == 0x60;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & 0xFFFFFF;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

// ---------------------------------------------------------------- ImmDt

TypeId
ImmDtHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ImmDtHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ImmDtHeader>();
    return tid;
}

TypeId
ImmDtHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
ImmDtHeader::GetSerializedSize() const
{
    return SIZE;
}

void
ImmDtHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_data);
}

uint32_t
ImmDtHeader::Deserialize(Buffer::Iterator start)
{
    m_data = start.ReadNtohU32();
    return SIZE;
}

void
ImmDtHeader::Print(std::ostream& os) const
{
    os << "ImmDt 0x" << std::hex << m_data << std::dec;
}

void
ImmDtHeader::SetData(uint32_t data)
{
    m_data = data;
}

uint32_t
ImmDtHeader::GetData() const
{
    return m_data;
}

// ---------------------------------------------------------------- ICRC

TypeId
IcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IcrcTrailer>();
    return tid;
}

TypeId
IcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
IcrcTrailer::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.Prev(SIZE);
    i.WriteU32(0);
}

uint32_t
IcrcTrailer::Deserialize(Buffer::Iterator /* end */)
{
    return SIZE;
}

void
IcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC";
}

} // namespace ns3
