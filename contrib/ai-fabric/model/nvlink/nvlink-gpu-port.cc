/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-gpu-port.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "nvlink-credit-flow-control.h"
#include "nvlink-transport.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkGpuPort");
NS_OBJECT_ENSURE_REGISTERED(NvLinkGpuPort);

TypeId
NvLinkGpuPort::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvLinkGpuPort")
                            .SetParent<NvLinkNetDevice>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvLinkGpuPort>();
    return tid;
}

NvLinkGpuPort::NvLinkGpuPort()
{
    NS_LOG_FUNCTION(this);
}

NvLinkGpuPort::~NvLinkGpuPort()
{
    NS_LOG_FUNCTION(this);
}

void
NvLinkGpuPort::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_transport = nullptr;
    NvLinkNetDevice::DoDispose();
}

void
NvLinkGpuPort::SetTransport(Ptr<NvLinkTransport> transport, uint32_t index)
{
    m_transport = transport;
    m_portIndex = index;
}

Ptr<NvLinkTransport>
NvLinkGpuPort::GetTransport() const
{
    return m_transport;
}

void
NvLinkGpuPort::DataReady()
{
    TryTransmit();
}

bool
NvLinkGpuPort::HasPendingFrames() const
{
    // The transport hears of every frame's end (Sent()): always an event here.
    return m_transport || !m_control.empty();
}

Ptr<Packet>
NvLinkGpuPort::DequeueForTransmit()
{
    if (Ptr<Packet> p = DequeueCredit())
    {
        m_txData = false;
        return p;
    }
    if (!IsLinkUp())
    {
        return nullptr; // no credit is spent on a dead link
    }
    NvLinkCreditFlowControl& fc = *m_fc;
    if (!m_transport)
    {
        fc.NoteStall(true);
        return nullptr; // no GPU behind the port yet
    }
    bool creditBlocked = false;
    Ptr<Packet> p = m_transport->Dequeue(m_portIndex, fc.GetCredits(), creditBlocked, m_txHeader);
    fc.NoteStall(!creditBlocked);
    if (p)
    {
        fc.Spend(p->GetSize());
        m_txData = true; // its end tells the transport (DoTransmitComplete)
        ++m_dataFramesSent;
    }
    return p;
}

void
NvLinkGpuPort::DoTransmitComplete(Ptr<const Packet> /* p */)
{
    // A GPU port sends one frame at a time and hears of each frame's end (HasPendingFrames):
    // the header it kept when the transport made the frame is this frame's. Credit frames
    // come from the control queue and leave m_txData false.
    if (!m_txData)
    {
        return;
    }
    m_txData = false;
    m_dataBytesSent += m_txHeader.bytes; // a switch port counted it when it chose the frame
    m_transport->Sent(m_txHeader);
}

void
NvLinkGpuPort::ReceiveData(Ptr<Packet> p, const NvLinkHeader& h, uint32_t size)
{
    if (m_transport)
    {
        m_transport->Receive(h);
    }
    else
    {
        CountDrop(p, FabricDropReason::NOT_FOR_US);
    }
    ReleaseBytes(size); // the GPU takes it into memory at once
}

} // namespace ns3
