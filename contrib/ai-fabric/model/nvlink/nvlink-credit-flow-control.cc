/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-credit-flow-control.h"

#include "ns3/fabric-tx-time.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "nvlink-header.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvLinkCreditFlowControl);

TypeId
NvLinkCreditFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvLinkCreditFlowControl")
              .SetParent<FabricLinkFlowControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvLinkCreditFlowControl>()
              .AddAttribute("BufferBytes",
                            "Receive buffer of the port, the credits it grants (bytes). "
                            "Default 1 MiB: NVLink's buffer sizes are not published; this "
                            "holds several transfer units, more than the credit round trip "
                            "needs at 450 GB/s.",
                            UintegerValue(1 << 20),
                            MakeUintegerAccessor(&NvLinkCreditFlowControl::m_bufferBytes),
                            MakeUintegerChecker<uint32_t>(NvLinkHeader::SIZE + 1))
              .AddAttribute("CreditUpdateBytes",
                            "Freed buffer bytes returned to the peer in one credit packet "
                            "(bytes; 1: a credit packet per packet freed). Default 262144, a "
                            "quarter of the default buffer: four 64 KiB transfer units per "
                            "credit packet, while the peer keeps at least three quarters of the "
                            "buffer in credit (more than the credit round trip needs). NVLink's "
                            "credit return is not published; link-level credit protocols "
                            "(InfiniBand, PCIe) return credits in batches.",
                            UintegerValue(1 << 18),
                            MakeUintegerAccessor(&NvLinkCreditFlowControl::m_creditUpdateBytes),
                            MakeUintegerChecker<uint32_t>(1));
    return tid;
}

NvLinkCreditFlowControl::NvLinkCreditFlowControl() = default;

NvLinkCreditFlowControl::~NvLinkCreditFlowControl() = default;

void
NvLinkCreditFlowControl::DoDispose()
{
    m_flush.Cancel();
    m_send = CreditCallback();
    FabricLinkFlowControl::DoDispose();
}

void
NvLinkCreditFlowControl::SetCreditCallback(CreditCallback send)
{
    m_send = send;
}

void
NvLinkCreditFlowControl::StallChanged(bool canSend)
{
    if (canSend)
    {
        m_stall.Release(Simulator::Now());
    }
    else
    {
        m_stall.Hold(Simulator::Now());
    }
}

void
NvLinkCreditFlowControl::ReceiveCredit(uint32_t bytes, bool absolute)
{
    m_credits = absolute ? bytes : m_credits + bytes;
}

bool
NvLinkCreditFlowControl::Occupy(uint32_t bytes)
{
    if (m_occupied + bytes > m_bufferBytes)
    {
        return false;
    }
    m_occupied += bytes;
    return true;
}

void
NvLinkCreditFlowControl::Release(uint32_t bytes, DataRate rate)
{
    m_occupied -= bytes;
    m_unreported += bytes;
    // At most a quarter of the buffer unreported: the peer always has credit for a packet.
    const uint64_t threshold = std::min<uint64_t>(m_creditUpdateBytes, m_bufferBytes / 4);
    if (m_unreported >= threshold)
    {
        m_send(static_cast<uint32_t>(m_unreported), false);
        m_unreported = 0;
    }
    else if (!m_flush.IsRunning())
    {
        // What stays unreported goes back at the latest after the line time of the threshold.
        m_flush = Simulator::Schedule(
            FabricBytesTxTime(rate, threshold), &NvLinkCreditFlowControl::Flush, this);
    }
}

void
NvLinkCreditFlowControl::Flush()
{
    if (m_unreported > 0)
    {
        m_send(static_cast<uint32_t>(m_unreported), false);
        m_unreported = 0;
    }
}

void
NvLinkCreditFlowControl::Start()
{
    m_send(m_bufferBytes, true); // the peer may fill the whole buffer
}

void
NvLinkCreditFlowControl::LinkChange(bool up)
{
    if (up)
    {
        // The link retrained: what is free now is the new limit (what was in flight is lost).
        m_send(static_cast<uint32_t>(m_bufferBytes - m_occupied), true);
        m_unreported = 0;
        m_flush.Cancel();
        return;
    }
    m_credits = 0; // what was in flight is lost with the link
}

uint32_t
NvLinkCreditFlowControl::GetNClasses() const
{
    return 1;
}

bool
NvLinkCreditFlowControl::IsCreditBased() const
{
    return true;
}

bool
NvLinkCreditFlowControl::IsHeld(uint8_t cls) const
{
    return cls == 0 && m_stall.IsHeldOpen();
}

Time
NvLinkCreditFlowControl::GetHeldTime(uint8_t cls) const
{
    return cls == 0 ? m_stall.GetTotal(Simulator::Now()) : Time(0);
}

} // namespace ns3
