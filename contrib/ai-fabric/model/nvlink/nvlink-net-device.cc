/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-net-device.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-part.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "nvlink-credit-flow-control.h"
#include "nvlink-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkNetDevice");
NS_OBJECT_ENSURE_REGISTERED(NvLinkNetDevice);

namespace
{
/// Slot value of a credit packet that sets the credit (initialization) instead of adding to it
constexpr uint16_t CREDIT_INIT = 1;
} // namespace

TypeId
NvLinkNetDevice::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvLinkNetDevice")
              .SetParent<FabricNetDevice>()
              .SetGroupName("AiFabric")
              .AddAttribute("FlowControl",
                            "The port's credit-based link-level flow control "
                            "(NvLinkCreditFlowControl: its BufferBytes, the credits the port "
                            "grants, and CreditUpdateBytes attributes).",
                            PointerValue(),
                            MakePointerAccessor(&NvLinkNetDevice::SetFlowControl,
                                                &NvLinkNetDevice::GetFlowControl),
                            MakePointerChecker<NvLinkCreditFlowControl>());
    return tid;
}

NvLinkNetDevice::NvLinkNetDevice()
{
    NS_LOG_FUNCTION(this);
    SetFraming(0, 0); // the data rate is NVLink's data rate; flits are not modelled
    SetFlowControl(CreateObject<NvLinkCreditFlowControl>());
}

void
NvLinkNetDevice::SetFlowControl(Ptr<NvLinkCreditFlowControl> fc)
{
    fc->Adopt(this);
    FabricReplacePart(m_fc, fc);
    m_fc->SetCreditCallback(MakeCallback(&NvLinkNetDevice::SendCredit, this));
}

Ptr<NvLinkCreditFlowControl>
NvLinkNetDevice::GetFlowControl() const
{
    return m_fc;
}

Ptr<FabricLinkFlowControl>
NvLinkNetDevice::GetLinkFlowControl() const
{
    return m_fc;
}

NvLinkNetDevice::~NvLinkNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
NvLinkNetDevice::DoDispose()
{
    m_control.clear();
    if (m_fc)
    {
        m_fc->Dispose();
    }
    FabricNetDevice::DoDispose();
}

void
NvLinkNetDevice::DoInitialize()
{
    m_fc->Start(); // the peer may fill the whole buffer
    FabricNetDevice::DoInitialize();
}

void
NvLinkNetDevice::DoLinkChange(bool up)
{
    m_fc->LinkChange(up);
}

uint32_t
NvLinkNetDevice::GetBufferBytes() const
{
    return m_fc->GetBufferBytes();
}

uint64_t
NvLinkNetDevice::GetCredits() const
{
    return m_fc->GetCredits();
}

Time
NvLinkNetDevice::GetCreditStallTime() const
{
    return m_fc->GetHeldTime(0);
}

uint64_t
NvLinkNetDevice::GetDataBytesSent() const
{
    return m_dataBytesSent;
}

uint64_t
NvLinkNetDevice::GetDataFramesSent() const
{
    return m_dataFramesSent;
}

void
NvLinkNetDevice::SendCredit(uint32_t bytes, bool absolute)
{
    if (!GetFabricChannel())
    {
        return;
    }
    NvLinkHeader h;
    h.type = NvLinkHeader::CREDIT;
    h.bytes = bytes;
    h.slot = absolute ? CREDIT_INIT : 0;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    m_control.push_back(p);
    TryTransmit();
}

void
NvLinkNetDevice::ReleaseBytes(uint32_t bytes)
{
    m_fc->Release(bytes, GetDataRate());
}

Ptr<Packet>
NvLinkNetDevice::DequeueCredit()
{
    if (m_control.empty())
    {
        return nullptr;
    }
    Ptr<Packet> p = m_control.front();
    m_control.pop_front();
    return p;
}

void
NvLinkNetDevice::DoReceive(Ptr<Packet> p)
{
    NvLinkHeader h;
    p->PeekHeader(h);
    if (h.type == NvLinkHeader::CREDIT)
    {
        m_fc->ReceiveCredit(h.bytes, h.slot == CREDIT_INIT);
        TryTransmit();
        return;
    }
    const uint32_t size = p->GetSize();
    if (!m_fc->Occupy(size))
    {
        // The sender started a packet its credits did not cover: a bug, never normal.
        CountDrop(p, FabricDropReason::CREDIT_VIOLATION);
        return;
    }
    ReceiveData(p, h, size);
}

bool
NvLinkNetDevice::Send(Ptr<Packet> /* packet */, const Address& /* dest */, uint16_t /* protocol */)
{
    return false; // no IP over NVLink
}

bool
NvLinkNetDevice::SendFrom(Ptr<Packet> /* packet */,
                          const Address& /* source */,
                          const Address& /* dest */,
                          uint16_t /* protocol */)
{
    return false;
}

} // namespace ns3
