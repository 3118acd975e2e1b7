/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-helper.h"

#include "fabric-helper.h"
#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/nvlink-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

CollectiveHelper::CollectiveHelper()
{
    m_communicatorFactory.SetTypeId(Communicator::GetTypeId());
}

void
CollectiveHelper::SetCommunicatorAttribute(const std::string& name, const AttributeValue& value)
{
    m_communicatorFactory.Set(name, value);
}

void
CollectiveHelper::SetChannels(uint32_t channels)
{
    NS_ABORT_MSG_IF(channels == 0 || !m_transports.empty(),
                    "CollectiveHelper: set a positive channel count before Install()");
    m_channels = channels;
}

void
CollectiveHelper::SetChunkBytes(uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(chunkBytes == 0, "CollectiveHelper: the chunk size must be positive");
    m_chunkBytes = chunkBytes;
}

uint32_t
CollectiveHelper::GetChannels() const
{
    return m_channels;
}

uint64_t
CollectiveHelper::GetChunkBytes() const
{
    return m_chunkBytes;
}

void
CollectiveHelper::Install(NodeContainer gpus, const FabricHelper& fabric)
{
    Install(gpus, &fabric);
}

void
CollectiveHelper::Install(NodeContainer gpus)
{
    Install(gpus, nullptr);
}

void
CollectiveHelper::Install(NodeContainer gpus, const FabricHelper* fabric)
{
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: installed twice");
    const uint32_t n = gpus.GetN();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        Ptr<Node> gpu = gpus.Get(rank);
        Ptr<GpuTransport> transport = CreateObject<GpuTransport>();
        transport->Setup(rank, n, m_channels, fabric ? fabric->GetTransport(gpu) : nullptr);
        if (Ptr<NvLinkTransport> nvlink = gpu->GetObject<NvLinkTransport>())
        {
            transport->SetNvLink(nvlink); // peers in its NVLink domain go over NVLink
        }
        Ptr<Communicator> comm = m_communicatorFactory.Create<Communicator>();
        comm->Setup(rank, n, transport);
        gpu->AggregateObject(transport);
        gpu->AggregateObject(comm);
        m_transports.push_back(transport);
        m_communicators.push_back(comm);
    }
}

uint32_t
CollectiveHelper::GetNRanks() const
{
    return static_cast<uint32_t>(m_transports.size());
}

Ptr<Communicator>
CollectiveHelper::GetCommunicator(uint32_t rank) const
{
    return m_communicators.at(rank);
}

Ptr<GpuTransport>
CollectiveHelper::GetTransport(uint32_t rank) const
{
    return m_transports.at(rank);
}

void
CollectiveHelper::Connect(const CollectiveSchedule& schedule)
{
    NS_ABORT_MSG_IF(schedule.GetNRanks() != GetNRanks() || schedule.GetNChannels() > m_channels,
                    "CollectiveHelper: the schedule does not fit these ranks and channels");
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        for (const auto& [peer, channel] : schedule.GetConnections(r))
        {
            GpuTransport::Connect(m_transports[r], m_transports[peer], channel);
        }
    }
}

ApplicationContainer
CollectiveHelper::InstallApplications(const std::vector<GpuWorkloadStep>& workload,
                                      uint32_t iterations)
{
    for (const GpuWorkloadStep& step : workload)
    {
        if (step.collective)
        {
            Connect(*step.collective);
        }
    }
    ApplicationContainer apps;
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank)
    {
        Ptr<GpuApplication> app = CreateObject<GpuApplication>();
        app->SetAttribute("Iterations", UintegerValue(iterations));
        app->Setup(m_communicators[rank], workload);
        m_transports[rank]->GetObject<Node>()->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

void
CollectiveHelper::Run(Ptr<const CollectiveSchedule> plan, RunCallback done)
{
    NS_ABORT_MSG_IF(m_running != 0, "CollectiveHelper: a collective is already running");
    m_running = GetNRanks();
    m_start = Simulator::Now();
    m_done = done;
    for (const auto& comm : m_communicators)
    {
        comm->Run(plan, MakeCallback(&CollectiveHelper::RankDone, this));
    }
}

void
CollectiveHelper::RankDone(uint32_t /* rank */)
{
    NS_ASSERT(m_running > 0);
    if (--m_running == 0 && !m_done.IsNull())
    {
        RunCallback done = m_done;
        m_done = RunCallback();
        done(m_start, Simulator::Now());
    }
}

} // namespace ns3
