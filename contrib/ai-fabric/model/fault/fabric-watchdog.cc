/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-watchdog.h"

#include "fabric-watchdog-scheduler.h"
#include "ns3/command-line.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricWatchdog");
NS_OBJECT_ENSURE_REGISTERED(FabricWatchdog);

TypeId
FabricWatchdog::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricWatchdog")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricWatchdog>()
              .AddAttribute("MaxEvents",
                            "Stop the run after this many events (0, the default: no limit). "
                            "A 256-GPU, 256 MiB ring all-reduce takes about 60 million.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricWatchdog::m_maxEvents),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("MaxWallTime",
                            "Stop the run after this much wall-clock time (s; 0, the default: "
                            "no limit).",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&FabricWatchdog::m_maxWallTime),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("MaxEventsAtOneTime",
                            "Stop the run when this many events in a row run at one simulated "
                            "instant: time has stopped advancing (0: no limit). Default 10 "
                            "million, some seconds of wall time and far more than any "
                            "instant of a healthy run holds (a 1,024-GPU fabric starts with "
                            "tens of thousands at time 0).",
                            UintegerValue(10000000),
                            MakeUintegerAccessor(&FabricWatchdog::m_maxEventsAtOneTime),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("MaxEventsAtOneTimePerNode",
                            "The frozen-time limit grows with the fabric: at least this many "
                            "events per node of the simulation (when the limit is set, and "
                            "counted when the watchdog is installed). Default 1000: a "
                            "synchronous collective runs some tens of events per GPU at one "
                            "instant (131,072 GPUs at the flow level ran more than 10 million "
                            "at 3.4 us into an all-reduce).",
                            UintegerValue(1000),
                            MakeUintegerAccessor(&FabricWatchdog::m_maxEventsPerNode),
                            MakeUintegerChecker<uint64_t>())
              .AddTraceSource("Fired",
                              "A limit fired: (the one-line report).",
                              MakeTraceSourceAccessor(&FabricWatchdog::m_firedTrace),
                              "ns3::FabricWatchdog::FiredTracedCallback");
    return tid;
}

FabricWatchdog::FabricWatchdog() = default;

FabricWatchdog::~FabricWatchdog() = default;

void
FabricWatchdog::AddCommandLine(CommandLine& cmd)
{
    cmd.AddValue("maxEvents", "ns3::FabricWatchdog::MaxEvents");
    cmd.AddValue("maxWallTime", "ns3::FabricWatchdog::MaxWallTime");
}

void
FabricWatchdog::Install()
{
    if (!m_started)
    {
        m_started = true;
        m_start = std::chrono::steady_clock::now();
    }
    StringValue type;
    GlobalValue::GetValueByName("SchedulerType", type);
    ObjectFactory inner(type.Get());
    m_schedulerType = inner.GetTypeId().GetName();
    ObjectFactory wrapper;
    wrapper.SetTypeId(FabricWatchdogScheduler::GetTypeId());
    wrapper.Set("Inner", PointerValue(inner.Create<Scheduler>()));
    wrapper.Set("Watchdog", PointerValue(this));
    Ptr<FabricSimulatorImpl> keyed
        = DynamicCast<FabricSimulatorImpl>(Simulator::GetImplementation());
    if (keyed && keyed->IsKeyed())
    {
        // ai-fabric's simulator with its own queue: the watchdog sees its events.
        Ptr<FabricWatchdogScheduler> watch = wrapper.Create<FabricWatchdogScheduler>();
        keyed->SetWatch(PeekPointer(watch), watch);
        return;
    }
    Simulator::SetScheduler(wrapper);
}

void
FabricWatchdog::UseDefaultScheduler()
{
    const char* environment = std::getenv("NS_GLOBAL_VALUE");
    if (environment && std::string(environment).find("SchedulerType=") != std::string::npos)
    {
        return; // the user's choice, as ns-3 reads it
    }
    GlobalValue::Bind("SchedulerType", StringValue(DEFAULT_SCHEDULER));
    if (!environment
        || std::string(environment).find("SimulatorImplementationType=") == std::string::npos)
    {
        // ai-fabric's simulator: the same order of events in one process and across MPI ranks.
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    }
}

const std::string&
FabricWatchdog::GetSchedulerType() const
{
    return m_schedulerType;
}

std::chrono::steady_clock::time_point
FabricWatchdog::GetDeadline() const
{
    return m_start + std::chrono::nanoseconds(m_maxWallTime.GetNanoSeconds());
}

namespace
{
/// \return the program's name for RunOrExit()'s report
std::string&
ProgramName()
{
    static std::string name = program_invocation_short_name;
    return name;
}
} // namespace

void
FabricWatchdog::SetProgramName(const std::string& name)
{
    ProgramName() = name;
}

void
FabricWatchdog::RunOrExit()
{
    Ptr<FabricWatchdog> watchdog = CreateObject<FabricWatchdog>();
    watchdog->Install();
    Simulator::Run();
    if (watchdog->HasFired())
    {
        std::cerr << ProgramName() << ": " << watchdog->GetReport() << std::endl;
        std::exit(3);
    }
}

FabricWatchdog::Limit
FabricWatchdog::GetLimit() const
{
    return m_limit;
}

bool
FabricWatchdog::HasFired() const
{
    return m_limit != Limit::NONE;
}

const std::string&
FabricWatchdog::GetReport() const
{
    return m_report;
}

uint64_t
FabricWatchdog::GetMaxEvents() const
{
    return m_maxEvents;
}

uint64_t
FabricWatchdog::GetMaxEventsAtOneTime() const
{
    if (m_maxEventsAtOneTime == 0)
    {
        return 0; // no limit
    }
    return std::max<uint64_t>(m_maxEventsAtOneTime, m_maxEventsPerNode * NodeList::GetNNodes());
}

Time
FabricWatchdog::GetMaxWallTime() const
{
    return m_maxWallTime;
}

void
FabricWatchdog::Fire(Limit limit, const std::string& report)
{
    if (m_limit != Limit::NONE)
    {
        return;
    }
    m_limit = limit;
    m_report = report;
    m_firedTrace(report);
}

} // namespace ns3
