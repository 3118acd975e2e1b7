/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-switch-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "pfc-header.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchMmu");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitchMmu);

namespace
{
/// Bytes in one pause quantum (512 bit times).
constexpr uint32_t QUANTUM_BYTES = PfcHeader::QUANTUM_BITS / 8;
} // namespace

TypeId
RoceSwitchMmu::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceSwitchMmu")
              .SetParent<FabricBufferManager>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceSwitchMmu>()
              .AddAttribute("BufferSize",
                            "The switch's packet buffer, shared by all ports (bytes). Default "
                            "42 MB: Tomahawk 2 and Spectrum-2 class switches.",
                            UintegerValue(42000000),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_bufferBytes),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("ReservedBytes",
                            "Buffer reserved for each (ingress port, priority) before it draws on "
                            "the shared pool (bytes). Default 9216: one jumbo frame.",
                            UintegerValue(9216),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_reservedBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Alpha",
                            "Dynamic threshold: a queue may hold up to alpha times the free "
                            "shared pool. Default 1 (SONiC's lossless profiles, dynamic_th 0).",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&RoceSwitchMmu::m_alpha),
                            MakeDoubleChecker<double>(0.0))
              .AddAttribute("Headroom",
                            "PFC headroom per (port, lossless priority) (bytes); 0 computes it "
                            "from the port's rate and cable: 2 x MaxFrameBytes + the cable's round "
                            "trip + PeerResponseQuanta, as SONiC's headroom calculation.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_headroomBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PeerResponseQuanta",
                            "Time the peer may take to stop after receiving a pause, in quanta "
                            "of 512 bit times. Default 905: the largest response delay IEEE "
                            "802.3 Annex 31B allows at 400 Gb/s (394 at 100 Gb/s).",
                            UintegerValue(905),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_responseQuanta),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MaxFrameBytes",
                            "Largest frame on the wire, for the headroom (bytes). Default 9038: "
                            "a 9000-byte IP MTU, the Ethernet header, preamble, gap and FCS.",
                            UintegerValue(9038),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_maxFrameBytes),
                            MakeUintegerChecker<uint32_t>(64))
              .AddAttribute("XonOffset",
                            "A paused queue is released once it falls this far below its "
                            "threshold (bytes). Default 8192: two 4 KB-MTU RoCE frames.",
                            UintegerValue(8192),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_xonOffset),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("PauseQuanta",
                            "Pause time carried by an XOFF, in quanta of 512 bit times; the "
                            "pause is refreshed at half of it while the queue stays above its "
                            "threshold. Default 65535, the largest (what switches send).",
                            UintegerValue(PfcHeader::MAX_QUANTA),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_pauseQuanta),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("LosslessPriorities",
                            "Bit p set: priority p is lossless (PFC). Default 0x08: priority 3, "
                            "RoCE's traffic class (DSCP 26).",
                            UintegerValue(0x08),
                            MakeUintegerAccessor(&RoceSwitchMmu::m_losslessMask),
                            MakeUintegerChecker<uint8_t>())
              .AddAttribute("PfcEnabled",
                            "Send PFC pauses for the lossless priorities; off, every priority "
                            "is lossy.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&RoceSwitchMmu::m_pfcEnabled),
                            MakeBooleanChecker())
              .AddTraceSource("Pause",
                              "An ingress queue was paused (XOFF) or released (XON).",
                              MakeTraceSourceAccessor(&RoceSwitchMmu::m_pauseTrace),
                              "ns3::RoceSwitchMmu::PauseTracedCallback");
    return tid;
}

RoceSwitchMmu::RoceSwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

RoceSwitchMmu::~RoceSwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

void
RoceSwitchMmu::DoDispose()
{
    for (Queue& q : m_queues)
    {
        q.refresh.Cancel();
    }
    m_due.clear();
    m_cancelled.clear();
    m_pause = PauseCallback();
    Object::DoDispose();
}

void
RoceSwitchMmu::SetPauseCallback(PauseCallback pause)
{
    m_pause = pause;
}

void
RoceSwitchMmu::AddPort()
{
    ++m_nPorts;
    m_queues.resize(static_cast<std::size_t>(m_nPorts) * N_PRIORITIES);
    m_headroom.push_back(0);
    m_portRate.push_back(0);
}

void
RoceSwitchMmu::SetPortLink(uint32_t port, uint64_t bitRate, Time cableDelay)
{
    NS_ASSERT(port < m_nPorts);
    m_portRate[port] = bitRate;
    m_poolValid = false; // the shared pool is what headroom leaves
    if (m_headroomBytes != 0)
    {
        m_headroom[port] = m_headroomBytes;
        return;
    }
    m_headroom[port]
        = PfcHeader::HeadroomBytes(bitRate, cableDelay, m_maxFrameBytes, m_responseQuanta);
}

RoceSwitchMmu::Queue&
RoceSwitchMmu::At(uint32_t port, uint8_t priority)
{
    return m_queues[static_cast<std::size_t>(port) * N_PRIORITIES + priority];
}

bool
RoceSwitchMmu::IsLossless(uint8_t priority) const
{
    return m_pfcEnabled && (m_losslessMask & (1U << priority)) != 0;
}

uint32_t
RoceSwitchMmu::GetHeadroom(uint32_t port) const
{
    return m_headroom.at(port);
}

uint64_t
RoceSwitchMmu::SharedPool() const
{
    // Cached: it depends only on the attributes and the ports' headroom, not on traffic.
    const uint64_t key = m_bufferBytes ^ (static_cast<uint64_t>(m_reservedBytes) << 20)
                         ^ (static_cast<uint64_t>(m_losslessMask) << 52)
                         ^ (static_cast<uint64_t>(m_pfcEnabled) << 61)
                         ^ (static_cast<uint64_t>(m_nPorts) << 40);
    if (m_poolValid && key == m_poolKey)
    {
        return m_sharedPool;
    }
    uint64_t reserved = static_cast<uint64_t>(m_nPorts) * N_PRIORITIES * m_reservedBytes;
    if (m_pfcEnabled)
    {
        const uint32_t lossless = __builtin_popcount(m_losslessMask);
        for (uint32_t h : m_headroom)
        {
            reserved += static_cast<uint64_t>(h) * lossless;
        }
    }
    m_sharedPool = m_bufferBytes > reserved ? m_bufferBytes - reserved : 0;
    m_poolKey = key;
    m_poolValid = true;
    return m_sharedPool;
}

uint64_t
RoceSwitchMmu::SharedPart(uint32_t bytes) const
{
    return bytes > m_reservedBytes ? bytes - m_reservedBytes : 0;
}

uint32_t
RoceSwitchMmu::GetThreshold(uint32_t /* port */, uint8_t /* priority */) const
{
    const_cast<RoceSwitchMmu*>(this)->CatchUp(); // accounting only: no PFC frame results
    return Threshold();
}

uint32_t
RoceSwitchMmu::Threshold() const
{
    const uint64_t pool = SharedPool();
    const uint64_t free = pool > m_sharedUsed ? pool - m_sharedUsed : 0;
    const double threshold = m_reservedBytes + m_alpha * static_cast<double>(free);
    return static_cast<uint32_t>(std::min<double>(threshold, UINT32_MAX));
}

uint32_t
RoceSwitchMmu::GetBytes(uint32_t port, uint8_t priority) const
{
    const_cast<RoceSwitchMmu*>(this)->CatchUp();
    return m_queues.at(static_cast<std::size_t>(port) * N_PRIORITIES + priority).bytes;
}

uint64_t
RoceSwitchMmu::GetSharedUsed() const
{
    const_cast<RoceSwitchMmu*>(this)->CatchUp();
    return m_sharedUsed;
}

uint64_t
RoceSwitchMmu::GetPausesSent() const
{
    return m_pausesSent;
}

uint16_t
RoceSwitchMmu::GetPauseQuanta() const
{
    return m_pauseQuanta;
}

bool
RoceSwitchMmu::Admit(uint32_t port, uint8_t priority, uint32_t bytes, FabricDropReason& reason)
{
    CatchUp();
    Queue& q = At(port, priority);
    const uint32_t threshold = Threshold();
    const uint32_t inPool = q.bytes - q.headroom; // reserved and shared part
    const bool fits = static_cast<uint64_t>(inPool) + bytes <= threshold;
    if (IsLossless(priority) && (!fits || q.headroom > 0))
    {
        // In flight after (or at) the pause: the queue's own headroom takes it.
        if (static_cast<uint64_t>(q.headroom) + bytes > m_headroom[port])
        {
            reason = FabricDropReason::HEADROOM_EXCEEDED;
            return false;
        }
        q.headroom += bytes;
        q.bytes += bytes;
        if (!q.paused)
        {
            SetPaused(port, priority, true);
        }
        return true;
    }
    if (!fits)
    {
        reason = FabricDropReason::QUEUE_FULL;
        return false;
    }
    m_sharedUsed += SharedPart(inPool + bytes) - SharedPart(inPool);
    q.bytes += bytes;
    if (IsLossless(priority) && !q.paused && q.bytes > threshold)
    {
        SetPaused(port, priority, true);
    }
    return true;
}

bool
RoceSwitchMmu::MayRelease(const Queue& q) const
{
    return q.headroom == 0 && static_cast<uint64_t>(q.bytes) + m_xonOffset <= Threshold();
}

void
RoceSwitchMmu::Release(uint32_t port, uint8_t priority, uint32_t bytes)
{
    Queue& q = At(port, priority);
    NS_ASSERT_MSG(q.bytes >= bytes, "RoceSwitchMmu: releasing more than was admitted");
    // Frames leave in order; free the headroom first (the later arrivals are charged to it,
    // but the pool's share is what the queue may keep).
    const uint32_t fromHeadroom = std::min(q.headroom, bytes);
    q.headroom -= fromHeadroom;
    const uint32_t inPool = q.bytes - fromHeadroom - q.headroom;
    const uint32_t fromPool = bytes - fromHeadroom;
    m_sharedUsed -= SharedPart(inPool) - SharedPart(inPool - fromPool);
    q.bytes -= bytes;
    if (q.paused && MayRelease(q))
    {
        SetPaused(port, priority, false);
    }
}

void
RoceSwitchMmu::ReleaseAt(Time at, uint32_t port, uint8_t priority, uint32_t bytes)
{
    const Time now = Simulator::Now();
    if (at <= now)
    {
        CatchUp();
        Release(port, priority, bytes);
        return;
    }
    if (At(port, priority).paused)
    {
        // Its release may resume the queue: an event, so the XON leaves at that time.
        Simulator::Schedule(at - now, &RoceSwitchMmu::ReleaseEvent, this, port, priority, bytes);
        return;
    }
    m_due.push_back(DueRelease{at, port, priority, bytes});
    std::push_heap(m_due.begin(), m_due.end());
}

void
RoceSwitchMmu::CatchUp()
{
    if (m_due.empty())
    {
        return;
    }
    const Time now = Simulator::Now();
    while (!m_due.empty() && m_due.front().at <= now)
    {
        std::pop_heap(m_due.begin(), m_due.end());
        const DueRelease d = m_due.back();
        m_due.pop_back();
        Release(d.port, d.priority, d.bytes); // its queue is not paused: no XON results
    }
}

void
RoceSwitchMmu::ReleaseEvent(uint32_t port, uint8_t priority, uint32_t bytes)
{
    if (!m_cancelled.empty())
    {
        const Time now = Simulator::Now();
        for (std::size_t i = 0; i < m_cancelled.size(); ++i)
        {
            const DueRelease& d = m_cancelled[i];
            if (d.at == now && d.port == port && d.priority == priority && d.bytes == bytes)
            {
                m_cancelled[i] = m_cancelled.back();
                m_cancelled.pop_back();
                return; // taken back before it left (CancelRelease())
            }
        }
    }
    CatchUp();
    Release(port, priority, bytes);
}

void
RoceSwitchMmu::CancelRelease(Time at, uint32_t port, uint8_t priority, uint32_t bytes)
{
    for (std::size_t i = 0; i < m_due.size(); ++i)
    {
        const DueRelease& d = m_due[i];
        if (d.at == at && d.port == port && d.priority == priority && d.bytes == bytes)
        {
            m_due[i] = m_due.back();
            m_due.pop_back();
            std::make_heap(m_due.begin(), m_due.end());
            return;
        }
    }
    // Not waiting to be caught up with: it is an event (its queue was paused). It is skipped
    // when it runs.
    m_cancelled.push_back(DueRelease{at, port, priority, bytes});
}

void
RoceSwitchMmu::ScheduleDue(uint32_t port, uint8_t priority)
{
    const Time now = Simulator::Now();
    bool moved = false;
    for (std::size_t i = 0; i < m_due.size();)
    {
        const DueRelease d = m_due[i];
        if (d.port == port && d.priority == priority)
        {
            Simulator::Schedule(
                d.at - now, &RoceSwitchMmu::ReleaseEvent, this, d.port, d.priority, d.bytes);
            m_due[i] = m_due.back();
            m_due.pop_back();
            moved = true;
            continue;
        }
        ++i;
    }
    if (moved)
    {
        std::make_heap(m_due.begin(), m_due.end());
    }
}

void
RoceSwitchMmu::SetPaused(uint32_t port, uint8_t priority, bool paused)
{
    Queue& q = At(port, priority);
    q.paused = paused;
    q.refresh.Cancel();
    m_pauseTrace(port, priority, paused);
    if (!paused)
    {
        m_pause(port, priority, 0);
        return;
    }
    ++m_pausesSent;
    ScheduleDue(port, priority); // the releases due later may resume it now
    m_pause(port, priority, m_pauseQuanta);
    // Refresh at half the pause time, so the peer never resumes while the queue is full.
    const uint64_t rate = m_portRate[port];
    NS_ABORT_MSG_IF(rate == 0, "RoceSwitchMmu: port " << port << " has no link rate");
    const Time pause = Seconds(static_cast<double>(m_pauseQuanta) * PfcHeader::QUANTUM_BITS / rate);
    q.refresh = Simulator::Schedule(pause / 2, &RoceSwitchMmu::Refresh, this, port, priority);
}

void
RoceSwitchMmu::Refresh(uint32_t port, uint8_t priority)
{
    CatchUp();
    if (MayRelease(At(port, priority)))
    {
        SetPaused(port, priority, false);
        return;
    }
    SetPaused(port, priority, true);
}

} // namespace ns3
