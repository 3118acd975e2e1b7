/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-nic-port.h"

#include "ib-credit-flow-control.h"
#include "ib-headers.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbNicPort");
NS_OBJECT_ENSURE_REGISTERED(IbNicPort);

TypeId
IbNicPort::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbNicPort")
              .SetParent<IbNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbNicPort>()
              .AddAttribute("Sl",
                            "Service level of the transport's packets (0-15); its VL comes "
                            "from SlToVl. Default 0.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbNicPort::m_sl),
                            MakeUintegerChecker<uint8_t>(0, 15))
              .AddAttribute("PathBitsFromQp",
                            "With an LMC above 0 (SetLmc), each QP sends to the LID base + "
                            "(its flow entropy mod 2^LMC), so the QPs to one host spread over "
                            "its paths; false: always the base LID. Default true.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&IbNicPort::m_pathBitsFromQp),
                            MakeBooleanChecker());
    return tid;
}

IbNicPort::IbNicPort()
{
    NS_LOG_FUNCTION(this);
}

IbNicPort::~IbNicPort()
{
    NS_LOG_FUNCTION(this);
}

void
IbNicPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_transport)
    {
        m_transport->Dispose(); // the adapter owns its transport, and so its QPs
    }
    m_transport = nullptr;
    m_mgmtCb = ManagementCallback();
    IbNetDevice::DoDispose();
}

void
IbNicPort::SetTransport(Ptr<RdmaTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
    m_transport->SetCnpOpcode(IB_CNP);
    m_transport->AttachPort(GetDataRate(),
                            ENCAPSULATION_BYTES + TRAILER_BYTES,
                            MakeCallback(&IbNicPort::SendRdmaControl, this),
                            MakeCallback(&IbNicPort::DataReady, this));
}

Ptr<RdmaTransport>
IbNicPort::GetTransport() const
{
    return m_transport;
}

void
IbNicPort::SetLid(uint16_t lid)
{
    m_lid = lid;
    uint8_t mac[6]
        = {0x02, 0x1b, 0, 0, static_cast<uint8_t>(lid >> 8), static_cast<uint8_t>(lid & 0xFF)};
    m_address.CopyFrom(mac);
}

void
IbNicPort::SetLmc(uint32_t lmc)
{
    NS_ABORT_MSG_IF(lmc > 7, "IbNicPort: LMC " << lmc << " above 7");
    NS_ABORT_MSG_IF(m_lid & ((1u << lmc) - 1),
                    "IbNicPort: base LID " << m_lid << " is not a multiple of 2^" << lmc);
    m_lmc = lmc;
}

uint32_t
IbNicPort::GetLmc() const
{
    return m_lmc;
}

uint16_t
IbNicPort::GetLid() const
{
    return m_lid;
}

void
IbNicPort::Encapsulate(Ptr<Packet> p, const RdmaPacketMeta& meta) const
{
    LrhHeader lrh;
    lrh.SetVl(VlOfSl(m_sl));
    lrh.SetSl(m_sl);
    uint32_t dlid = meta.dstAddress;
    if (m_lmc > 0 && m_pathBitsFromQp)
    {
        dlid |= meta.entropy & ((1u << m_lmc) - 1); // the QP's path among the LMC's
    }
    lrh.SetDlid(static_cast<uint16_t>(dlid));
    lrh.SetSlid(static_cast<uint16_t>(meta.srcAddress));
    lrh.SetPktLen(static_cast<uint16_t>((p->GetSize() + LrhHeader::SIZE) / 4));
    p->AddHeader(lrh);
    p->AddTrailer(VcrcTrailer());
}

void
IbNicPort::SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    Encapsulate(p, meta);
    EnqueueData(p, VlOfSl(m_sl), NO_INGRESS, 0, Time(), false);
    TryTransmit();
}

void
IbNicPort::DataReady()
{
    TryTransmit();
}

void
IbNicPort::FillFromTransport(uint8_t vl)
{
    if (vl != VlOfSl(m_sl) || !m_transport)
    {
        return;
    }
    RdmaPacketMeta meta;
    Ptr<Packet> p = m_transport->DequeueData(meta);
    if (p)
    {
        Encapsulate(p, meta);
        EnqueueData(p, vl, NO_INGRESS, 0);
    }
}

uint32_t
IbNicPort::TransportLanes() const
{
    return m_transport ? 1U << VlOfSl(m_sl) : 0;
}

bool
IbNicPort::HasPendingFrames() const
{
    return (m_transport && m_transport->HasReadyData()) || IbNetDevice::HasPendingFrames();
}

void
IbNicPort::ReceiveData(Ptr<Packet> p, uint8_t vl, uint32_t blocks, const uint8_t* h)
{
    const uint16_t dlid = static_cast<uint16_t>((h[2] << 8) | h[3]);
    if (!m_transport || (dlid >> m_lmc) != (m_lid >> m_lmc))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        m_fc->Free(vl, blocks);
        return;
    }
    RdmaPacketMeta meta;
    meta.srcAddress = static_cast<uint16_t>((h[6] << 8) | h[7]);
    meta.dstAddress = m_lid;                                      // the base LID of the LMC's block
    meta.congestionMarked = (h[LrhHeader::SIZE + 4] & 0x80) != 0; // FECN
    // The sender's traces may still hold this packet: strip headers from a copy.
    Ptr<Packet> q = p->Copy();
    q->RemoveAtStart(ENCAPSULATION_BYTES);
    q->RemoveAtEnd(TRAILER_BYTES);
    if (!m_transport->Receive(q, meta))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
    m_fc->Free(vl, blocks); // the adapter moves the packet to the host at once
}

void
IbNicPort::SendManagement(Ptr<Packet> mad, uint16_t dlid)
{
    NS_ABORT_MSG_IF(mad->GetSize() != MAD_BYTES,
                    "IbNicPort: a MAD is " << MAD_BYTES << " bytes, not " << mad->GetSize());
    // DETH: Q_Key (0 for QP0), reserved byte, source QP 0; then the MAD.
    const uint8_t deth[8] = {};
    Ptr<Packet> p = Create<Packet>(deth, sizeof(deth));
    p->AddAtEnd(mad);
    BthHeader bth;
    bth.SetOpcode(UD_SEND_ONLY);
    bth.SetDestQp(0); // QP0: the subnet management agent
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());
    LrhHeader lrh;
    lrh.SetVl(MANAGEMENT_VL);
    lrh.SetSl(0);
    lrh.SetDlid(dlid);
    lrh.SetSlid(m_lid);
    lrh.SetPktLen(static_cast<uint16_t>((p->GetSize() + LrhHeader::SIZE) / 4));
    p->AddHeader(lrh);
    p->AddTrailer(VcrcTrailer());
    EnqueueManagement(p, NO_INGRESS);
    TryTransmit();
}

void
IbNicPort::ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh)
{
    const uint32_t size = p->GetSize();
    const uint16_t dlid = static_cast<uint16_t>((lrh[2] << 8) | lrh[3]);
    if ((dlid >> m_lmc) != (m_lid >> m_lmc) || size != MANAGEMENT_PACKET_BYTES)
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    Ptr<Packet> mad = p->CreateFragment(ENCAPSULATION_BYTES + BthHeader::SIZE + 8, MAD_BYTES);
    if (!m_mgmtCb.IsNull())
    {
        m_mgmtCb(mad, static_cast<uint16_t>((lrh[6] << 8) | lrh[7]));
    }
}

void
IbNicPort::SetManagementCallback(ManagementCallback cb)
{
    m_mgmtCb = cb;
}

} // namespace ns3
