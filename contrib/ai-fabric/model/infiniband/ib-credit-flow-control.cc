/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-credit-flow-control.h"

#include "ib-headers.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbCreditFlowControl");
NS_OBJECT_ENSURE_REGISTERED(IbCreditFlowControl);

namespace
{
/// A 4 KB-MTU data packet on the wire: LRH, BTH, RETH, payload, ICRC, VCRC (bytes).
constexpr double MTU_PACKET_BYTES = 8 + 12 + 16 + 4096 + 4 + 2;
} // namespace

TypeId
IbCreditFlowControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbCreditFlowControl")
              .SetParent<FabricLinkFlowControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbCreditFlowControl>()
              .AddAttribute(
                  "VlBufferBytes",
                  "Receive buffer of each data VL, the credits the port grants "
                  "(bytes, a multiple of 64). Default 131072: 2048 blocks, the most a "
                  "12-bit FCCL can grant beyond what was sent (IBTA vol. 1, 7.9.4).",
                  UintegerValue(MAX_OUTSTANDING_BLOCKS * BLOCK_BYTES),
                  MakeUintegerAccessor(&IbCreditFlowControl::SetBufferBytes,
                                       &IbCreditFlowControl::GetBufferBytes),
                  MakeUintegerChecker<uint32_t>(BLOCK_BYTES, MAX_OUTSTANDING_BLOCKS * BLOCK_BYTES))
              .AddAttribute("CreditUpdateBlocks",
                            "A flow-control update is sent once this many blocks of a VL were "
                            "freed since the last (blocks). 0 (the default) chooses on need: 64 "
                            "(one update per 4 KB-MTU packet) when the VL buffer is less than "
                            "four credit round trips of the link (then the sender may wait for "
                            "every update), otherwise an eighth of the VL buffer (256 blocks at "
                            "the default 128 KiB: one update per four 4 KB packets). The IBTA "
                            "requires an update at least every 65,536 symbol times "
                            "(FlowControlPeriod) and leaves the rest to the port; adapters "
                            "coalesce updates, their threshold is not published.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbCreditFlowControl::m_creditUpdateBlocks),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("FlowControlPeriod",
                            "Longest time freed credits stay unreported (s). 0 (the default) "
                            "derives it from the rate: 65,536 byte times of one of the link's "
                            "four lanes (IBTA: an update at least every 65,536 symbol times), "
                            "5.24 us at 400 Gb/s.",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&IbCreditFlowControl::m_fcPeriod),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("Sent",
                              "A flow-control packet was queued: (VL, FCCL modulo 4096).",
                              MakeTraceSourceAccessor(&IbCreditFlowControl::m_sentTrace),
                              "ns3::IbCreditFlowControl::FlowControlTracedCallback")
              .AddTraceSource("Received",
                              "A flow-control packet arrived: (VL, FCCL modulo 4096).",
                              MakeTraceSourceAccessor(&IbCreditFlowControl::m_receivedTrace),
                              "ns3::IbCreditFlowControl::FlowControlTracedCallback");
    return tid;
}

IbCreditFlowControl::IbCreditFlowControl() = default;

IbCreditFlowControl::~IbCreditFlowControl() = default;

void
IbCreditFlowControl::DoDispose()
{
    m_creditProbe.Cancel();
    for (Vl& v : m_vls)
    {
        v.fcTimer.Cancel();
    }
    m_send = SendCallback();
    if (m_port)
    {
        // Still readable after its port is gone: the VLs and the period it had.
        m_dataVls = m_port->GetNTrafficClasses();
        m_fcPeriod = GetFlowControlPeriod();
    }
    m_port = nullptr;
    FabricLinkFlowControl::DoDispose();
}

void
IbCreditFlowControl::SetPort(const FabricNetDevice* port, SendCallback send)
{
    Adopt(port);
    m_port = port;
    m_send = send;
}

void
IbCreditFlowControl::SetBufferBytes(uint32_t bytes)
{
    m_bufferBytes = bytes;
    m_bufferBlocks = bytes / BLOCK_BYTES;
    m_autoUpdateBlocks = 0; // chosen again on need
}

void
IbCreditFlowControl::Start(uint32_t dataVls)
{
    NS_ASSERT(m_port != nullptr && dataVls >= 1 && dataVls <= MAX_DATA_VLS);
    m_dataVls = dataVls;
    m_victimWindow = m_port->GetDataRate().CalculateBytesTxTime(m_bufferBytes);
    InitializeCredits();
}

void
IbCreditFlowControl::LinkChange(bool up)
{
    if (up)
    {
        InitializeCredits(); // the link retrains: both ends exchange their limits again
        return;
    }
    const Time now = Simulator::Now();
    for (uint32_t vl = 0; vl < m_dataVls; ++vl)
    {
        m_vls[vl].stall.Release(now); // what waited is discarded with the link
    }
}

void
IbCreditFlowControl::InitializeCredits()
{
    if (!m_port->GetFabricChannel())
    {
        return;
    }
    for (uint8_t vl = 0; vl < m_dataVls; ++vl)
    {
        SendFlowControl(vl, IbFlowControlHeader::OP_INIT);
    }
}

uint64_t
IbCreditFlowControl::GetAvailableCredits(uint8_t vl) const
{
    const Vl& v = m_vls.at(vl);
    return v.peerLimit > v.sentBlocks ? v.peerLimit - v.sentBlocks : 0;
}

uint64_t
IbCreditFlowControl::GetPacketsSent() const
{
    return m_sent;
}

Time
IbCreditFlowControl::GetFlowControlPeriod() const
{
    if (!m_fcPeriod.IsZero() || !m_port)
    {
        return m_fcPeriod;
    }
    // 65,536 byte times of one of four lanes.
    return m_port->GetDataRate().CalculateBytesTxTime(65536 * 4);
}

void
IbCreditFlowControl::SendFlowControl(uint8_t vl, uint8_t op)
{
    if (!m_port->IsLinkUp())
    {
        return; // nobody to tell; the link's retraining sends the limits again
    }
    Vl& v = m_vls[vl];
    const uint64_t limit = v.receivedBlocks + (m_bufferBlocks - v.occupiedBlocks);
    IbFlowControlHeader fc;
    fc.SetOp(op);
    fc.SetVl(vl);
    fc.SetFctbs(static_cast<uint32_t>(v.sentBlocks % IbFlowControlHeader::MODULO));
    fc.SetFccl(static_cast<uint32_t>(limit % IbFlowControlHeader::MODULO));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(fc);
    v.unreported = 0;
    // The same limit goes out once more a period later unless a newer one does: one lost
    // update cannot stall the VL, and an idle link falls silent (no endless timer).
    v.repeat = true;
    v.lastFc = Simulator::Now();
    if (!v.fcTimer.IsRunning())
    {
        v.fcTimer = Simulator::Schedule(
            GetFlowControlPeriod(), &IbCreditFlowControl::FlowControlTimer, this, vl);
    }
    ++m_sent;
    m_sentTrace(vl, fc.GetFccl());
    m_send(p);
}

uint32_t
IbCreditFlowControl::GetCreditUpdateThreshold() const
{
    if (m_creditUpdateBlocks != 0)
    {
        return m_creditUpdateBlocks;
    }
    if (m_autoUpdateBlocks == 0)
    {
        // Bytes the link holds over a credit round trip (both ways on the cable, a 4 KB-MTU
        // packet being sent at each end): the sender may wait for an update only if the VL
        // buffer is not several times that.
        Ptr<FabricChannel> cable = m_port->GetFabricChannel();
        const double rate = static_cast<double>(m_port->GetDataRate().GetBitRate()) / 8;
        const double roundTrip
            = rate * 2 * (cable ? cable->GetDelay().GetSeconds() : 0) + 2 * MTU_PACKET_BYTES;
        const bool ample = m_bufferBytes >= 4 * roundTrip;
        m_autoUpdateBlocks
            = ample ? std::max<uint32_t>(m_bufferBlocks / 8, 1)
                    : std::min<uint32_t>(64, std::max<uint32_t>(1, m_bufferBlocks / 2));
    }
    return m_autoUpdateBlocks;
}

void
IbCreditFlowControl::Free(uint8_t vl, uint32_t blocks)
{
    Vl& v = m_vls[vl];
    v.occupiedBlocks -= blocks;
    v.unreported += blocks;
    if (v.unreported >= GetCreditUpdateThreshold())
    {
        SendFlowControl(vl, IbFlowControlHeader::OP_NORMAL);
    }
    else if (!v.fcTimer.IsRunning())
    {
        v.fcTimer = Simulator::Schedule(
            GetFlowControlPeriod(), &IbCreditFlowControl::FlowControlTimer, this, vl);
    }
}

void
IbCreditFlowControl::FlowControlTimer(uint8_t vl)
{
    Vl& v = m_vls[vl];
    if (v.unreported > 0)
    {
        SendFlowControl(vl, IbFlowControlHeader::OP_NORMAL);
        return;
    }
    if (!v.repeat)
    {
        return;
    }
    const Time due = v.lastFc + GetFlowControlPeriod();
    if (Simulator::Now() < due)
    {
        v.fcTimer = Simulator::Schedule(
            due - Simulator::Now(), &IbCreditFlowControl::FlowControlTimer, this, vl);
        return;
    }
    SendFlowControl(vl, IbFlowControlHeader::OP_NORMAL);
    v.repeat = false; // repeated once: the timer stops here
    v.fcTimer.Cancel();
}

void
IbCreditFlowControl::BeginWait(uint8_t vl)
{
    m_vls[vl].stall.Hold(Simulator::Now());
    m_vls[vl].probes = 0;
    if (!m_creditProbe.IsRunning())
    {
        m_creditProbe
            = Simulator::Schedule(GetFlowControlPeriod(), &IbCreditFlowControl::CreditProbe, this);
    }
}

void
IbCreditFlowControl::EndWait(uint8_t vl)
{
    Vl& v = m_vls[vl];
    const Time now = Simulator::Now();
    v.stall.Release(now);
    v.lastStallEnd = now;
    v.everStalled = true;
}

void
IbCreditFlowControl::CreditProbe()
{
    // IBTA 7.9.4 has every port send FC packets periodically on every VL, so that a
    // corrupted one costs nothing for long. Only a VL that waits for credits needs it here:
    // its FCTBS tells the peer which blocks were lost on the link (their credits return), and
    // the peer answers with its FCCL in case an update was lost.
    const Time period = GetFlowControlPeriod();
    const Time now = Simulator::Now();
    bool waiting = false;
    for (uint8_t vl = 0; vl < m_dataVls; ++vl)
    {
        Vl& v = m_vls[vl];
        if (!v.stall.IsHeldOpen() || v.probes >= MAX_CREDIT_PROBES)
        {
            continue;
        }
        if (now - v.stall.GetStart() >= period && now - v.lastFc >= period)
        {
            ++v.probes;
            SendFlowControl(vl, IbFlowControlHeader::OP_NORMAL);
        }
        waiting = waiting || (v.stall.IsHeldOpen() && v.probes < MAX_CREDIT_PROBES);
    }
    if (waiting && m_port->IsLinkUp())
    {
        m_creditProbe = Simulator::Schedule(period, &IbCreditFlowControl::CreditProbe, this);
    }
}

bool
IbCreditFlowControl::Receive(Ptr<const Packet> p)
{
    // The fields at fixed offsets, without copying the packet (one arrives per data packet).
    uint8_t b[IbFlowControlHeader::SIZE];
    p->CopyData(b, sizeof(b));
    const uint8_t op = b[0] >> 4;
    const auto fctbs = static_cast<uint32_t>(((b[0] & 0x0F) << 8) | b[1]);
    const uint8_t vl = b[2] >> 4;
    const auto fccl = static_cast<uint32_t>(((b[2] & 0x0F) << 8) | b[3]);
    if (vl >= m_dataVls)
    {
        return false;
    }
    Vl& v = m_vls[vl];
    const uint32_t modulo = IbFlowControlHeader::MODULO;
    // The peer's credit limit only grows: unwrap its 12 bits against what we knew.
    if (!v.limitKnown || op == IbFlowControlHeader::OP_INIT)
    {
        const uint64_t base = v.sentBlocks;
        v.peerLimit = base + (fccl + modulo - base % modulo) % modulo;
        v.limitKnown = true;
    }
    else
    {
        // A limit grows by at most the 2048 blocks a 12-bit FCCL can grant.
        const uint32_t step = (fccl + modulo - v.peerLimit % modulo) % modulo;
        if (step <= MAX_OUTSTANDING_BLOCKS)
        {
            v.peerLimit += step;
        }
        if (step > 0)
        {
            v.probes = 0; // the peer's updates arrive: probe afresh if it waits again
        }
    }
    // The peer's FCTBS counts every block it sent on this VL before this packet, all of which
    // arrived first: what we have not counted was lost on the link, and its credit returns
    // (reported to the peer like freed blocks).
    const uint32_t lost = (fctbs + modulo - v.receivedBlocks % modulo) % modulo;
    if (lost > 0 && lost <= MAX_OUTSTANDING_BLOCKS)
    {
        v.receivedBlocks += lost;
        v.occupiedBlocks += lost; // counted in, then freed at once: nothing holds them
        Free(vl, lost);
    }
    else if (lost == 0 && op == IbFlowControlHeader::OP_NORMAL && v.receivedBlocks == v.peerFctbs
             && v.unreported == 0 && v.occupiedBlocks < m_bufferBlocks
             && Simulator::Now() - v.lastFc >= GetFlowControlPeriod()
             && (v.answeredFctbs != v.receivedBlocks || v.answers < MAX_PROBE_ANSWERS))
    {
        // The peer sent nothing on this VL since its last FC packet, we have room, and our
        // last update is a period old: the peer may wait for credits because that update was
        // corrupted. Answer with the limit (a bounded number of times per FCTBS, so two idle
        // ports cannot keep answering each other).
        if (v.answeredFctbs != v.receivedBlocks)
        {
            v.answeredFctbs = v.receivedBlocks;
            v.answers = 0;
        }
        ++v.answers;
        SendFlowControl(vl, IbFlowControlHeader::OP_NORMAL);
    }
    v.peerFctbs = v.receivedBlocks;
    m_receivedTrace(vl, static_cast<uint16_t>(fccl));
    return true;
}

uint32_t
IbCreditFlowControl::GetNClasses() const
{
    return m_port ? m_port->GetNTrafficClasses() : m_dataVls;
}

bool
IbCreditFlowControl::IsCreditBased() const
{
    return true;
}

bool
IbCreditFlowControl::IsHeld(uint8_t cls) const
{
    return IsStalled(cls);
}

Time
IbCreditFlowControl::GetHeldTime(uint8_t cls) const
{
    return cls < MAX_DATA_VLS ? m_vls[cls].stall.GetTotal(Simulator::Now()) : Time(0);
}

} // namespace ns3
