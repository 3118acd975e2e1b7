/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-pfc-watchdog.h"

#include "ns3/boolean.h"
#include "ns3/fabric-part.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "roce-switch-port.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RocePfcWatchdog");
NS_OBJECT_ENSURE_REGISTERED(RocePfcWatchdog);

TypeId
RocePfcWatchdog::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RocePfcWatchdog")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RocePfcWatchdog>()
              .AddAttribute("Enabled",
                            "Watch the port's priorities (off by default, as in SONiC). Only "
                            "switch ports watch.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&RocePfcWatchdog::m_enabled),
                            MakeBooleanChecker())
              .AddAttribute("Detection",
                            "Unbroken pause that makes a PFC storm (s). Default 200 ms: SONiC's "
                            "pfcwd detection time.",
                            TimeValue(MilliSeconds(200)),
                            MakeTimeAccessor(&RocePfcWatchdog::m_detection),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("Restoration",
                            "Time without a pause that ends a PFC storm (s). Default 200 ms: "
                            "SONiC's pfcwd restoration time.",
                            TimeValue(MilliSeconds(200)),
                            MakeTimeAccessor(&RocePfcWatchdog::m_restoration),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddTraceSource("Storm",
                              "The watchdog detected a storm at its port (priority, true) or "
                              "saw it end (priority, false).",
                              MakeTraceSourceAccessor(&RocePfcWatchdog::m_stormTrace),
                              "ns3::RocePfcWatchdog::StormTracedCallback");
    return tid;
}

RocePfcWatchdog::RocePfcWatchdog() = default;

RocePfcWatchdog::~RocePfcWatchdog() = default;

void
RocePfcWatchdog::DoDispose()
{
    for (auto& e : m_event)
    {
        e.Cancel();
    }
    m_port = nullptr;
    Object::DoDispose();
}

void
RocePfcWatchdog::SetPort(RoceSwitchPort* port)
{
    FabricAdoptPart(*this, m_owner, port, "PfcWatchdog");
    m_port = port;
}

void
RocePfcWatchdog::OnPause(uint8_t priority)
{
    m_lastPause[priority] = Simulator::Now();
    if (m_enabled && m_port && !m_storm[priority] && !m_event[priority].IsRunning())
    {
        m_event[priority]
            = Simulator::Schedule(m_detection, &RocePfcWatchdog::Check, this, priority);
    }
}

void
RocePfcWatchdog::Check(uint8_t priority)
{
    const Time now = Simulator::Now();
    if (!m_port->IsPaused(priority))
    {
        return; // the pause broke: the next one starts a new watch
    }
    const Time start = m_port->GetPauseStart(priority);
    if (now - start < m_detection)
    {
        // Paused again after a break: watch the new pause from its start.
        m_event[priority] = Simulator::Schedule(
            start + m_detection - now, &RocePfcWatchdog::Check, this, priority);
        return;
    }
    NS_LOG_WARN("PFC storm on priority " << static_cast<uint32_t>(priority) << " at port "
                                         << m_port->GetIfIndex() << " of node "
                                         << m_port->GetNode()->GetId());
    m_storm[priority] = true;
    ++m_storms;
    m_stormTrace(priority, true);
    // The queue turns lossy: what it holds is dropped now, what comes is dropped on arrival.
    m_port->EnterPfcStorm(priority);
    m_event[priority]
        = Simulator::Schedule(m_restoration, &RocePfcWatchdog::Restore, this, priority);
}

void
RocePfcWatchdog::Restore(uint8_t priority)
{
    const Time quiet = Simulator::Now() - m_lastPause[priority];
    if (quiet < m_restoration)
    {
        m_event[priority]
            = Simulator::Schedule(m_restoration - quiet, &RocePfcWatchdog::Restore, this, priority);
        return;
    }
    m_storm[priority] = false;
    m_stormTrace(priority, false);
}

} // namespace ns3
