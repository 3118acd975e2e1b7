/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "gpu-application.h"

#include "communicator.h"
#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuApplication");
NS_OBJECT_ENSURE_REGISTERED(GpuApplication);

TypeId
GpuApplication::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::GpuApplication")
              .SetParent<Application>()
              .SetGroupName("AiFabric")
              .AddConstructor<GpuApplication>()
              .AddAttribute("Iterations",
                            "Times the workload runs (iterations of training).",
                            UintegerValue(1),
                            MakeUintegerAccessor(&GpuApplication::m_iterations),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("ComputeScale",
                            "Multiplies every compute time of this GPU (1: nominal; 1.2: a "
                            "straggler 20% slower).",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&GpuApplication::m_computeScale),
                            MakeDoubleChecker<double>(0.0))
              .AddTraceSource("StepDone",
                              "A step of the workload ended: (iteration, step, start, end).",
                              MakeTraceSourceAccessor(&GpuApplication::m_stepTrace),
                              "ns3::GpuApplication::StepTracedCallback");
    return tid;
}

GpuApplication::GpuApplication()
{
    NS_LOG_FUNCTION(this);
}

GpuApplication::~GpuApplication()
{
    NS_LOG_FUNCTION(this);
}

void
GpuApplication::DoDispose()
{
    m_computeEvent.Cancel();
    m_communicator = nullptr;
    m_workload.clear();
    Application::DoDispose();
}

void
GpuApplication::Setup(Ptr<Communicator> communicator, std::vector<GpuWorkloadStep> workload)
{
    NS_ABORT_MSG_IF(workload.empty(), "GpuApplication: an empty workload");
    m_communicator = communicator;
    m_workload = std::move(workload);
}

void
GpuApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_communicator, "GpuApplication: Setup() was not called");
    m_running = true;
    m_iteration = 0;
    m_step = 0;
    RunStep();
}

void
GpuApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    // A collective in progress cannot be abandoned (its peers would wait forever); the
    // workload stops at the next step boundary.
    m_running = false;
    m_computeEvent.Cancel();
}

void
GpuApplication::RunStep()
{
    if (!m_running)
    {
        return;
    }
    m_stepStart = Simulator::Now();
    const Time compute = m_workload[m_step].compute * m_computeScale;
    if (compute.IsZero())
    {
        ComputeDone();
    }
    else
    {
        m_computeEvent = Simulator::Schedule(compute, &GpuApplication::ComputeDone, this);
    }
}

void
GpuApplication::ComputeDone()
{
    const Ptr<const CollectiveSchedule>& plan = m_workload[m_step].collective;
    if (!plan)
    {
        StepDone();
        return;
    }
    m_communicator->Run(plan, MakeCallback(&GpuApplication::CollectiveDone, this));
}

void
GpuApplication::CollectiveDone(uint32_t /* rank */)
{
    StepDone();
}

void
GpuApplication::StepDone()
{
    ++m_stepsDone;
    m_stepTrace(m_iteration, m_step, m_stepStart, Simulator::Now());
    if (++m_step == m_workload.size())
    {
        m_step = 0;
        if (++m_iteration == m_iterations)
        {
            m_finish = Simulator::Now();
            m_running = false;
            return;
        }
    }
    RunStep();
}

uint32_t
GpuApplication::GetStepsDone() const
{
    return m_stepsDone;
}

Time
GpuApplication::GetFinishTime() const
{
    return m_finish;
}

} // namespace ns3
