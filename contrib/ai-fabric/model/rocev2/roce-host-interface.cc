/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-host-interface.h"

#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-part.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "pfc-header.h"
#include "roce-nic-port.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHostInterface);

TypeId
RoceHostInterface::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceHostInterface")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceHostInterface>()
              .AddAttribute("Rate",
                            "Rate at which the host takes received RoCEv2 frames (bit/s of "
                            "frame bytes): the PCIe and memory path behind the NIC. 0 (the "
                            "default): the host keeps up with any rate and no receive buffer "
                            "is modelled. Above 0, frames wait in a receive buffer of "
                            "BufferBytes drained at this rate.",
                            DataRateValue(DataRate(0)),
                            MakeDataRateAccessor(&RoceHostInterface::m_rate),
                            MakeDataRateChecker())
              .AddAttribute("BufferBytes",
                            "Receive buffer of the NIC when Rate is set (bytes). Default "
                            "262144: an assumption (NIC vendors do not publish their port "
                            "buffers); it holds the PFC headroom of a 400 Gb/s port.",
                            UintegerValue(262144),
                            MakeUintegerAccessor(&RoceHostInterface::m_bufferBytes),
                            MakeUintegerChecker<uint32_t>(RoceNetDevice::ETHERNET_MIN_FRAME_BYTES))
              .AddAttribute("Pfc",
                            "A NIC whose receive buffer fills pauses the RDMA priority of its "
                            "peer (XOFF once the buffer is within its headroom of full, "
                            "refreshed while it stays there, XON XonOffset lower); off, a "
                            "full buffer drops (QueueFull).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&RoceHostInterface::m_pfc),
                            MakeBooleanChecker())
              .AddAttribute("XonOffset",
                            "The NIC releases its pause once its buffer is this far below the "
                            "XOFF point (bytes). Default 8192, as the switch MMU's XonOffset.",
                            UintegerValue(8192),
                            MakeUintegerAccessor(&RoceHostInterface::m_xonOffset),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("ResponseQuanta",
                            "The peer's response time to the NIC's pause, for its headroom "
                            "(quanta of 512 bit times). Default 905: IEEE 802.3 Annex 31B's "
                            "largest at 400 Gb/s.",
                            UintegerValue(905),
                            MakeUintegerAccessor(&RoceHostInterface::m_responseQuanta),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

RoceHostInterface::RoceHostInterface() = default;

RoceHostInterface::~RoceHostInterface() = default;

void
RoceHostInterface::DoDispose()
{
    m_drain.Cancel();
    m_refresh.Cancel();
    m_buffer.clear();
    m_port = nullptr;
    Object::DoDispose();
}

void
RoceHostInterface::SetPort(RoceNicPort* port)
{
    FabricAdoptPart(*this, m_owner, port, "HostInterface");
    m_port = port;
}

void
RoceHostInterface::Receive(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    const uint32_t size = p->GetSize();
    if (m_bytes + size > m_bufferBytes)
    {
        m_port->CountDrop(p, FabricDropReason::QUEUE_FULL);
        return;
    }
    m_buffer.push_back({p, meta});
    m_bytes += size;
    m_maxBytes = std::max(m_maxBytes, m_bytes);
    if (m_pfc && !m_paused && m_bytes > XoffBytes())
    {
        m_paused = true;
        PauseRefresh();
    }
    if (m_buffer.size() == 1)
    {
        m_drain = Simulator::Schedule(
            FabricBytesTxTime(m_rate, size), &RoceHostInterface::Drained, this);
    }
}

uint32_t
RoceHostInterface::XoffBytes() const
{
    const uint64_t rate = m_port->GetDataRate().GetBitRate();
    if (rate != m_xoffRate || m_bufferBytes != m_xoffBuffer)
    {
        // The buffer less the PFC headroom of the port, as the switch MMU counts it.
        Ptr<FabricChannel> cable = m_port->GetFabricChannel();
        const uint32_t headroom = PfcHeader::HeadroomBytes(rate,
                                                           cable ? cable->GetDelay() : Time(0),
                                                           RoceNetDevice::MAX_FRAME_WIRE_BYTES,
                                                           m_responseQuanta);
        m_xoff = m_bufferBytes > headroom ? m_bufferBytes - headroom : 0;
        m_xoffRate = rate;
        m_xoffBuffer = m_bufferBytes;
    }
    return m_xoff;
}

void
RoceHostInterface::PauseRefresh()
{
    if (!m_paused)
    {
        return;
    }
    m_port->SendPfc(m_port->GetRdmaPriority(), PfcHeader::MAX_QUANTA);
    // Refresh at half the pause time while the buffer stays full.
    const Time pause = m_port->GetDataRate().CalculateBytesTxTime(
        static_cast<uint32_t>(uint64_t(PfcHeader::MAX_QUANTA) * PfcHeader::QUANTUM_BITS / 8));
    m_refresh = Simulator::Schedule(pause / 2, &RoceHostInterface::PauseRefresh, this);
}

void
RoceHostInterface::Drained()
{
    const RxFrame f = m_buffer.front();
    m_buffer.pop_front();
    m_bytes -= f.packet->GetSize();
    m_port->DeliverToTransport(f.packet, f.meta);
    const uint32_t xoff = XoffBytes();
    const uint32_t xon = xoff > m_xonOffset ? xoff - m_xonOffset : 0;
    if (m_paused && m_bytes <= xon)
    {
        m_paused = false;
        m_refresh.Cancel();
        m_port->SendPfc(m_port->GetRdmaPriority(), 0);
    }
    if (!m_buffer.empty())
    {
        m_drain = Simulator::Schedule(FabricBytesTxTime(m_rate, m_buffer.front().packet->GetSize()),
                                      &RoceHostInterface::Drained,
                                      this);
    }
}

} // namespace ns3
