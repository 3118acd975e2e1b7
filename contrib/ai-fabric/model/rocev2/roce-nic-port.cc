/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-nic-port.h"

#include "ns3/ethernet-header.h"
#include "ns3/fabric-part.h"
#include "ns3/fabric-strict-priority-scheduler.h"
#include "ns3/frame-bytes-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "pfc-header.h"
#include "roce-host-interface.h"
#include "roce-pfc.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNicPort");
NS_OBJECT_ENSURE_REGISTERED(RoceNicPort);

TypeId
RoceNicPort::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceNicPort")
              .SetParent<RoceNetDevice>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceNicPort>()
              .AddAttribute("MaxQueueBytes",
                            "Byte limit of each output queue, drop-tail (bytes). Default "
                            "656250: a 42 MB buffer divided evenly over 64 ports. (A switch "
                            "port's queues are governed by its switch's buffer manager.)",
                            UintegerValue(656250),
                            MakeUintegerAccessor(&RoceNicPort::m_maxQueueBytes),
                            MakeUintegerChecker<uint32_t>(ETHERNET_MIN_FRAME_BYTES))
              .AddAttribute("RdmaDscp",
                            "IPv4 DSCP of RDMA data packets (priority = DSCP / 8). Default 26, "
                            "the RoCE traffic class that ConnectX NICs and SONiC use "
                            "(priority 3).",
                            UintegerValue(26),
                            MakeUintegerAccessor(&RoceNicPort::m_rdmaDscp),
                            MakeUintegerChecker<uint8_t>(0, 63))
              .AddAttribute("ControlDscp",
                            "IPv4 DSCP of ACK, NAK and CNP packets (priority = DSCP / 8). "
                            "Default 48, ConnectX's CNP DSCP (priority 6).",
                            UintegerValue(48),
                            MakeUintegerAccessor(&RoceNicPort::m_controlDscp),
                            MakeUintegerChecker<uint8_t>(0, 63))
              .AddAttribute("HostInterface",
                            "The host side of the port: the PCIe and memory path that takes "
                            "received frames and the receive buffer before it "
                            "(RoceHostInterface: its Rate, 0 by default: the host keeps up, "
                            "BufferBytes, Pfc, XonOffset and ResponseQuanta attributes).",
                            PointerValue(),
                            MakePointerAccessor(&RoceNicPort::SetHostInterface,
                                                &RoceNicPort::GetHostInterface),
                            MakePointerChecker<RoceHostInterface>());
    return tid;
}

RoceNicPort::RoceNicPort()
{
    NS_LOG_FUNCTION(this);
    SetHostInterface(CreateObject<RoceHostInterface>());
}

RoceNicPort::~RoceNicPort()
{
    NS_LOG_FUNCTION(this);
}

void
RoceNicPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_transport)
    {
        m_transport->Dispose(); // the NIC owns its transport, and so its QPs
    }
    m_transport = nullptr;
    m_transportFrame = nullptr;
    if (m_host)
    {
        m_host->Dispose(); // kept, so that its counters can still be read
    }
    RoceNetDevice::DoDispose();
}

void
RoceNicPort::SetIpv4Address(Ipv4Address address)
{
    m_ipv4 = address;
    m_address = MacFromIpv4(address);
}

Ipv4Address
RoceNicPort::GetIpv4Address() const
{
    return m_ipv4;
}

void
RoceNicPort::SetTransport(Ptr<RdmaTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
    m_transport->AttachPort(GetDataRate(),
                            ENCAPSULATION_BYTES + ETHERNET_OVERHEAD_BYTES,
                            MakeCallback(&RoceNicPort::SendRdmaControl, this),
                            MakeCallback(&RoceNicPort::DataReady, this));
}

Ptr<RdmaTransport>
RoceNicPort::GetTransport() const
{
    return m_transport;
}

uint32_t
RoceNicPort::GetMaxQueueBytes() const
{
    return m_maxQueueBytes;
}

void
RoceNicPort::DataReady()
{
    TryTransmit();
}

void
RoceNicPort::EncapsulateRdma(Ptr<Packet> p, const RdmaPacketMeta& meta, uint8_t dscp)
{
    // Ethernet II, IPv4 and UDP, byte for byte what ns-3's EthernetHeader, Ipv4Header and
    // UdpHeader write (TestRoceFrames compares them), in one step (FrameBytesHeader).
    const uint32_t udpLength = p->GetSize() + 8;
    const uint32_t ipLength = udpLength + 20;
    FrameBytesHeader h;
    uint8_t* b = h.Prepare(ENCAPSULATION_BYTES);
    // Ethernet: the destination MAC derives from its IPv4 address (MacFromIpv4)
    b[0] = 0x02;
    b[1] = 0x00;
    b[2] = static_cast<uint8_t>(meta.dstAddress >> 24);
    b[3] = static_cast<uint8_t>(meta.dstAddress >> 16);
    b[4] = static_cast<uint8_t>(meta.dstAddress >> 8);
    b[5] = static_cast<uint8_t>(meta.dstAddress);
    m_address.CopyTo(b + 6);
    b[12] = static_cast<uint8_t>(ETHERTYPE_IPV4 >> 8);
    b[13] = static_cast<uint8_t>(ETHERTYPE_IPV4);
    // IPv4: no options, identification 0, DF, TTL 64. Data is ECN-capable (ECT(0)) so that
    // switches can mark it; control packets are not.
    uint8_t* ip = b + 14;
    ip[0] = 0x45;
    ip[1] = static_cast<uint8_t>((dscp << 2) | (meta.control ? 0 : ECN_ECT0));
    ip[2] = static_cast<uint8_t>(ipLength >> 8);
    ip[3] = static_cast<uint8_t>(ipLength);
    ip[4] = 0;
    ip[5] = 0;
    ip[6] = 0x40;
    ip[7] = 0;
    ip[8] = 64;
    ip[9] = IP_PROTO_UDP;
    ip[10] = 0;
    ip[11] = 0;
    for (int k = 0; k < 4; ++k)
    {
        ip[12 + k] = static_cast<uint8_t>(meta.srcAddress >> (24 - 8 * k));
        ip[16 + k] = static_cast<uint8_t>(meta.dstAddress >> (24 - 8 * k));
    }
    const uint16_t checksum = FrameBytesHeader::InternetChecksum(ip, 20);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
    // UDP: RoCEv2's destination port, the entropy as source port, no checksum (the ICRC
    // covers the packet)
    uint8_t* udp = ip + 20;
    udp[0] = static_cast<uint8_t>(meta.entropy >> 8);
    udp[1] = static_cast<uint8_t>(meta.entropy);
    udp[2] = static_cast<uint8_t>(ROCEV2_UDP_PORT >> 8);
    udp[3] = static_cast<uint8_t>(ROCEV2_UDP_PORT);
    udp[4] = static_cast<uint8_t>(udpLength >> 8);
    udp[5] = static_cast<uint8_t>(udpLength);
    udp[6] = 0;
    udp[7] = 0;
    p->AddHeader(h);
}

void
RoceNicPort::SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    EncapsulateRdma(p, meta, m_controlDscp);
    if (EnqueueLimited(p, m_controlDscp >> 3))
    {
        TryTransmit();
    }
}

bool
RoceNicPort::EnqueueLimited(Ptr<Packet> p, uint8_t priority)
{
    RoceQueueCounters& c = m_queueCounters[priority];
    if (c.bytes + p->GetSize() > m_maxQueueBytes)
    {
        ++c.droppedPackets;
        CountDrop(p, FabricDropReason::QUEUE_FULL);
        return false;
    }
    Enqueue(p, priority, NO_INGRESS, priority);
    return true;
}

void
RoceNicPort::DoLinkChange(bool up)
{
    if (!up && m_transportFrame)
    {
        // A frame a scheduler took from the transport and has not sent is lost with the link.
        CountDrop(m_transportFrame, FabricDropReason::LINK_DOWN);
        m_transportFrame = nullptr;
    }
    RoceNetDevice::DoLinkChange(up);
}

bool
RoceNicPort::HasPendingFrames() const
{
    return RoceNetDevice::HasPendingFrames() || m_transportFrame
           || (m_transport && m_transport->HasReadyData());
}

inline bool
RoceNicPort::Sendable(uint8_t cls, Ptr<Packet>& fromTransport)
{
    if (m_pfc->IsPaused(cls, m_selectNow))
    {
        return false; // the peer paused this priority
    }
    if (QueuedSendable(cls))
    {
        return true;
    }
    if (cls == (m_rdmaDscp >> 3) && m_transport)
    {
        RdmaPacketMeta meta;
        fromTransport = m_transport->DequeueData(meta);
        if (fromTransport)
        {
            EncapsulateRdma(fromTransport, meta, m_rdmaDscp);
            return true;
        }
    }
    return false;
}

bool
RoceNicPort::IsSendable(uint8_t cls)
{
    if (m_transportFrame && cls == (m_rdmaDscp >> 3))
    {
        // A frame taken from the transport for an earlier question still waits to be sent.
        return !m_pfc->IsPaused(cls, m_selectNow);
    }
    return Sendable(cls, m_transportFrame);
}

Ptr<Packet>
RoceNicPort::DequeueForTransmit()
{
    if (!m_macControl.empty())
    {
        return TakeMacControl();
    }
    // The scheduler asks the priorities in its order: those with frames, and the RDMA
    // priority, whose frames the transport makes when asked. A NIC's own frames are ready
    // when queued.
    m_selectNow = Simulator::Now();
    m_readyLimit = m_selectNow;
    uint32_t candidates = m_nonEmpty;
    if (m_transport)
    {
        candidates |= 1U << (m_rdmaDscp >> 3);
    }
    int32_t chosen = -1;
    if (m_strictPriority)
    {
        // The default scheduler's selection, without its virtual calls (the per-frame path).
        Ptr<Packet> fromTransport;
        chosen = FabricStrictPriorityScheduler::SelectFrom(
            candidates,
            [this, &fromTransport](uint8_t cls) { return Sendable(cls, fromTransport); });
        if (fromTransport)
        {
            return fromTransport;
        }
    }
    else
    {
        chosen = m_scheduler->Select(*this, N_PRIORITIES, candidates);
    }
    if (chosen < 0)
    {
        return nullptr;
    }
    const auto prio = static_cast<uint8_t>(chosen);
    Ptr<Packet> p;
    if (m_transportFrame && prio == (m_rdmaDscp >> 3) && !QueuedSendable(prio))
    {
        p = m_transportFrame; // the transport's frame the scheduler asked for
        m_transportFrame = nullptr;
    }
    else
    {
        p = TakeHead(prio).packet;
    }
    if (!m_strictPriority)
    {
        m_scheduler->Served(prio, p->GetSize());
    }
    return p;
}

void
RoceNicPort::DoReceive(Ptr<Packet> p)
{
    // Read the fixed-format Ethernet/IPv4/UDP headers without deserializing objects.
    uint8_t h[ENCAPSULATION_BYTES];
    const uint32_t n = p->CopyData(h, ENCAPSULATION_BYTES);
    const uint16_t etherType = static_cast<uint16_t>((h[12] << 8) | h[13]);
    if (etherType == PfcHeader::ETHERTYPE_MAC_CONTROL)
    {
        ReceivePfc(p); // MAC control frames end at the port that receives them
        return;
    }
    if (m_transport && n == ENCAPSULATION_BYTES && etherType == ETHERTYPE_IPV4 && h[14] == 0x45
        && h[23] == IP_PROTO_UDP && ((h[36] << 8) | h[37]) == ROCEV2_UDP_PORT)
    {
        RdmaPacketMeta meta;
        meta.srcAddress
            = (uint32_t(h[26]) << 24) | (uint32_t(h[27]) << 16) | (uint32_t(h[28]) << 8) | h[29];
        meta.dstAddress
            = (uint32_t(h[30]) << 24) | (uint32_t(h[31]) << 16) | (uint32_t(h[32]) << 8) | h[33];
        meta.entropy = static_cast<uint16_t>((h[34] << 8) | h[35]);
        meta.congestionMarked = (h[15] & 0x3) == ECN_CE;
        if (meta.dstAddress != m_ipv4.Get())
        {
            CountDrop(p, FabricDropReason::NOT_FOR_US);
            return;
        }
        if (m_host->IsLimited())
        {
            m_host->Receive(p, meta); // the host takes it later, through its receive buffer
            return;
        }
        DeliverToTransport(p, meta);
        return;
    }
    if (m_rxCallback.IsNull())
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
        return;
    }
    Ptr<Packet> q = p->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    m_macRxTrace(q);
    m_rxCallback(this, q, eth.GetLengthType(), eth.GetSource());
}

void
RoceNicPort::DeliverToTransport(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    // The sender's traces may still hold this packet: strip headers from a copy.
    Ptr<Packet> q = p->Copy();
    q->RemoveAtStart(ENCAPSULATION_BYTES);
    if (!m_transport->Receive(q, meta))
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
}

void
RoceNicPort::SetHostInterface(Ptr<RoceHostInterface> host)
{
    host->SetPort(this); // adopts it (FabricAdoptPart)
    FabricReplacePart(m_host, host);
}

Ptr<RoceHostInterface>
RoceNicPort::GetHostInterface() const
{
    return m_host;
}

uint8_t
RoceNicPort::GetRdmaPriority() const
{
    return m_rdmaDscp >> 3;
}

uint32_t
RoceNicPort::GetRxBufferMaxBytes() const
{
    return m_host ? m_host->GetMaxBytes() : 0;
}

bool
RoceNicPort::SupportsSendFrom() const
{
    return true;
}

bool
RoceNicPort::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendFrom(packet, m_address, dest, protocolNumber);
}

bool
RoceNicPort::SendFrom(Ptr<Packet> packet,
                      const Address& source,
                      const Address& dest,
                      uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    m_macTxTrace(packet);
    uint8_t priority = 0;
    if (protocolNumber == ETHERTYPE_IPV4)
    {
        // Priority from the IPv4 DSCP, as for RDMA frames (byte 1 is the TOS).
        uint8_t ip[2];
        if (packet->CopyData(ip, 2) == 2)
        {
            priority = static_cast<uint8_t>(ip[1] >> 5);
        }
    }
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(source));
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    if (!EnqueueLimited(packet, priority))
    {
        return false;
    }
    TryTransmit();
    return true;
}

} // namespace ns3
