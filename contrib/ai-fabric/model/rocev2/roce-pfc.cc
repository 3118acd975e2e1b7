/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-pfc.h"

#include "ns3/ethernet-header.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "pfc-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RocePfc);

TypeId
RocePfc::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RocePfc")
              .SetParent<FabricLinkFlowControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<RocePfc>()
              .AddTraceSource("Sent",
                              "The port sent a PFC frame: (priority, quanta; 0 = release).",
                              MakeTraceSourceAccessor(&RocePfc::m_sentTrace),
                              "ns3::RocePfc::PfcTracedCallback")
              .AddTraceSource("Received",
                              "The port received a PFC frame: (priority, quanta; 0 = release).",
                              MakeTraceSourceAccessor(&RocePfc::m_receivedTrace),
                              "ns3::RocePfc::PfcTracedCallback");
    return tid;
}

RocePfc::RocePfc() = default;

RocePfc::~RocePfc() = default;

void
RocePfc::DoDispose()
{
    m_paused = PriorityCallback();
    m_expired = PriorityCallback();
    FabricLinkFlowControl::DoDispose();
}

void
RocePfc::SetCallbacks(PriorityCallback paused, PriorityCallback expired)
{
    m_paused = paused;
    m_expired = expired;
}

Ptr<Packet>
RocePfc::MakeFrame(uint8_t priority, uint16_t quanta, Mac48Address source)
{
    NS_ASSERT(priority < N_PRIORITIES);
    Ptr<Packet> p = Create<Packet>();
    PfcHeader pfc;
    pfc.SetPause(priority, quanta);
    p->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(source);
    eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
    eth.SetLengthType(PfcHeader::ETHERTYPE_MAC_CONTROL);
    p->AddHeader(eth);
    ++(quanta > 0 ? m_sent : m_released)[priority];
    m_sentTrace(priority, quanta);
    return p;
}

bool
RocePfc::Receive(Ptr<const Packet> frame, uint64_t bitRate, uint32_t& paused)
{
    paused = 0;
    Ptr<Packet> q = frame->Copy();
    EthernetHeader eth(false);
    q->RemoveHeader(eth);
    PfcHeader pfc;
    q->RemoveHeader(pfc);
    if (pfc.GetOpcode() != PfcHeader::OPCODE_PFC)
    {
        return false;
    }
    const Time now = Simulator::Now();
    for (uint8_t prio = 0; prio < N_PRIORITIES; ++prio)
    {
        if (!pfc.IsEnabled(prio))
        {
            continue;
        }
        ++m_received[prio];
        const uint16_t quanta = pfc.GetQuanta(prio);
        m_receivedTrace(prio, quanta);
        if (quanta > 0 && !m_paused.IsNull())
        {
            m_paused(prio);
        }
        // quanta x 512 bit times at the port's rate, exact in picoseconds (128-bit product).
        const __int128 bitPs = static_cast<__int128>(quanta) * PfcHeader::QUANTUM_BITS
                               * static_cast<__int128>(1000000000000LL);
        const Time pause = PicoSeconds(static_cast<int64_t>(bitPs / bitRate));
        // The new pause replaces the one in progress (the time paused so far counts up to now),
        // or begins a new unbroken pause.
        m_pause[prio].HoldUntil(now, now + pause);
        if (quanta > 0)
        {
            Simulator::Schedule(pause, &RocePfc::Expired, this, prio);
            paused |= 1U << prio;
        }
    }
    return true;
}

void
RocePfc::Expired(uint8_t priority)
{
    if (!IsPaused(priority, Simulator::Now()) && !m_expired.IsNull())
    {
        m_expired(priority);
    }
}

void
RocePfc::ReleaseAll(const Time& now)
{
    for (FabricStallClock& pause : m_pause)
    {
        pause.Release(now);
    }
}

uint32_t
RocePfc::GetNClasses() const
{
    return N_PRIORITIES;
}

bool
RocePfc::IsCreditBased() const
{
    return false;
}

bool
RocePfc::IsHeld(uint8_t cls) const
{
    return cls < N_PRIORITIES && IsPaused(cls, Simulator::Now());
}

Time
RocePfc::GetHeldTime(uint8_t cls) const
{
    // A pause still running counts only up to now.
    return cls < N_PRIORITIES ? m_pause[cls].GetTotal(Simulator::Now()) : Time(0);
}

uint64_t
RocePfc::GetPausesSent(uint8_t cls) const
{
    return cls < N_PRIORITIES ? m_sent[cls] : 0;
}

uint64_t
RocePfc::GetPausesReceived(uint8_t cls) const
{
    return cls < N_PRIORITIES ? m_received[cls] : 0;
}

} // namespace ns3
