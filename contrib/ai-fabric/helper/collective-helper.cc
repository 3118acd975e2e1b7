/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-helper.h"

#include "fabric-helper.h"
#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/flow-gpu-transport.h"
#include "ns3/node.h"
#include "ns3/nvlink-transport.h"
#include "ns3/packet-gpu-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

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
    SetChunkBytes(NCCL_SIMPLE, chunkBytes);
}

void
CollectiveHelper::SetChunkBytes(NcclProtocol protocol, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(chunkBytes == 0, "CollectiveHelper: the chunk size must be positive");
    m_chunkBytes[protocol] = chunkBytes;
}

void
CollectiveHelper::SetFlowRouter(Ptr<FlowRouter> router)
{
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: set the engine before Install()");
    m_flowRouter = router;
}

void
CollectiveHelper::SetNicNodes(NodeContainer nics)
{
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: set the NICs before Install()");
    m_nicNodes = nics;
}

void
CollectiveHelper::SetPxn(bool pxn)
{
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: set PXN before Install()");
    m_pxn = pxn;
}

bool
CollectiveHelper::GetPxn() const
{
    return m_pxn;
}

Ptr<FlowRouter>
CollectiveHelper::GetFlowRouter() const
{
    return m_flowRouter;
}

uint32_t
CollectiveHelper::GetChannels() const
{
    return m_channels;
}

uint64_t
CollectiveHelper::GetChunkBytes() const
{
    return m_chunkBytes[NCCL_SIMPLE];
}

uint64_t
CollectiveHelper::GetChunkBytes(NcclProtocol protocol) const
{
    return m_chunkBytes[protocol];
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
    NS_ABORT_MSG_IF(m_flowRouter && FabricSimulatorImpl::Get()
                        && FabricSimulatorImpl::Get()->GetNRanks() > 1,
                    "CollectiveHelper: the flow engine runs in one process");
    // Groups: each takes the lowest slot no group sharing a GPU with it took (every rank's
    // communicator is slot 0); the transports get channels for every slot.
    m_slots = 1;
    m_groupSlot.clear();
    std::vector<std::vector<bool>> taken; // by slot - 1, by rank
    for (const std::vector<uint32_t>& group : m_groups)
    {
        for (uint32_t r : group)
        {
            NS_ABORT_MSG_IF(r >= n, "CollectiveHelper: a group names rank " << r << " of " << n);
        }
        std::size_t slot = 0;
        while (
            slot < taken.size()
            && std::any_of(group.begin(), group.end(), [&](uint32_t r) { return taken[slot][r]; }))
        {
            ++slot;
        }
        if (slot == taken.size())
        {
            taken.emplace_back(n, false);
        }
        for (uint32_t r : group)
        {
            taken[slot][r] = true;
        }
        m_groupSlot.push_back(static_cast<uint32_t>(slot + 1));
        m_slots = std::max(m_slots, static_cast<uint32_t>(slot + 2));
    }
    uint32_t idBits = 0;
    while ((1U << idBits) < m_slots)
    {
        ++idBits;
    }
    NS_ABORT_MSG_IF(idBits > 8, "CollectiveHelper: more than 256 communicators on one GPU");
    const uint32_t transportChannels = m_channels * m_slots;
    auto shared = std::make_shared<FlowGpuTransport::Shared>();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        Ptr<Node> gpu = gpus.Get(rank);
        Ptr<GpuTransport> transport;
        if (m_flowRouter)
        {
            Ptr<FlowGpuTransport> flow = CreateObject<FlowGpuTransport>();
            flow->Setup(rank, n, transportChannels, gpu->GetId(), m_flowRouter, shared);
            shared->peers.push_back(PeekPointer(flow));
            transport = flow;
        }
        else
        {
            Ptr<PacketGpuTransport> packet = CreateObject<PacketGpuTransport>();
            NS_ABORT_MSG_IF(m_nicNodes.GetN() != 0 && m_nicNodes.GetN() != n,
                            "CollectiveHelper: " << m_nicNodes.GetN() << " NIC nodes for " << n
                                                 << " GPUs");
            Ptr<Node> nic = m_nicNodes.GetN() > 0 ? m_nicNodes.Get(rank) : gpu;
            packet->Setup(rank, n, transportChannels, fabric ? fabric->GetTransport(nic) : nullptr);
            if (Ptr<NvLinkTransport> nvlink = gpu->GetObject<NvLinkTransport>())
            {
                packet->SetNvLink(nvlink); // peers in its NVLink domain go over NVLink
            }
            transport = packet;
        }
        Ptr<Communicator> comm = m_communicatorFactory.Create<Communicator>();
        comm->Setup(rank, n, transport);
        gpu->AggregateObject(transport);
        gpu->AggregateObject(comm);
        m_transports.push_back(transport);
        m_communicators.push_back(comm);
    }
    // PXN: each rank's server, device index and NIC, for every communicator's relay.
    std::vector<PxnPlace> places(n);
    bool nvlink = false;
    if (m_pxn)
    {
        std::unordered_map<int64_t, uint32_t> devices; // by domain: GPUs seen
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            Ptr<Node> gpu = gpus.Get(rank);
            PxnPlace& p = places[rank];
            if (m_flowRouter)
            {
                p.domain = m_flowRouter->GetNvLinkDomain(rank);
            }
            else if (Ptr<NvLinkTransport> nv = gpu->GetObject<NvLinkTransport>())
            {
                p.domain = nv->GetDomain();
            }
            if (p.domain >= 0)
            {
                p.device = devices[p.domain]++;
                nvlink = true;
            }
            p.nic = m_nicNodes.GetN() > 0 ? m_nicNodes.Get(rank)->GetId() : gpu->GetId();
        }
    }
    if (nvlink)
    {
        Ptr<PxnRelay> all = Create<PxnRelay>(places);
        for (const Ptr<Communicator>& comm : m_communicators)
        {
            comm->SetPxn(all);
        }
    }
    if (!m_groups.empty())
    {
        // Every GPU hands arrivals to its communicators by the slot in the tag.
        const uint32_t shift = CollectiveSchedule::TAG_BITS - idBits;
        m_dispatch.assign(n, nullptr);
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            Ptr<Dispatch> d = Create<Dispatch>();
            d->bySlot.assign(m_slots, nullptr);
            d->bySlot[0] = m_communicators[rank];
            d->shift = shift;
            d->mask = (1U << idBits) - 1;
            m_communicators[rank]->SetGroup({}, 0, 0, idBits); // every rank, slot 0
            m_dispatch[rank] = d;
        }
        m_groupComms.assign(m_groups.size(), {});
        for (std::size_t g = 0; g < m_groups.size(); ++g)
        {
            const uint32_t slot = m_groupSlot[g];
            const std::vector<uint32_t>& ranks = m_groups[g];
            Ptr<PxnRelay> pxn;
            if (nvlink)
            {
                std::vector<PxnPlace> own;
                for (uint32_t r : ranks)
                {
                    own.push_back(places[r]);
                }
                pxn = Create<PxnRelay>(std::move(own));
            }
            for (uint32_t i = 0; i < ranks.size(); ++i)
            {
                Ptr<Communicator> comm = m_communicatorFactory.Create<Communicator>();
                comm->Setup(i, static_cast<uint32_t>(ranks.size()), m_transports[ranks[i]]);
                comm->SetGroup(ranks, slot * m_channels, slot, idBits);
                comm->SetPxn(pxn);
                m_dispatch[ranks[i]]->bySlot[slot] = comm;
                m_groupComms[g].push_back(comm);
            }
        }
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            m_transports[rank]->SetListener(PeekPointer(m_dispatch[rank]));
        }
    }
    // Which GPUs this process runs (all, in one process).
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    const uint32_t self = impl ? impl->GetRank() : 0;
    std::vector<bool> holds(impl ? impl->GetNRanks() : 1, false);
    m_local = 0;
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        const uint32_t owner = gpus.Get(rank)->GetSystemId();
        NS_ABORT_MSG_IF(owner >= holds.size(),
                        "CollectiveHelper: GPU " << rank << " is on MPI rank " << owner
                                                 << ", and the run has " << holds.size());
        holds[owner] = true;
        m_local += owner == self ? 1 : 0;
    }
    m_otherRanks.clear();
    m_processes = 0;
    for (uint32_t r = 0; r < holds.size(); ++r)
    {
        m_processes += holds[r] ? 1 : 0;
        if (holds[r] && r != self)
        {
            m_otherRanks.push_back(r);
        }
    }
    if (impl && impl->GetNRanks() > 1)
    {
        m_id = impl->Register(this);
        impl->BoundLookahead(m_gap);
    }
}

void
CollectiveHelper::SetIterationGap(Time gap)
{
    NS_ABORT_MSG_IF(!gap.IsStrictlyPositive(), "CollectiveHelper: the iteration gap is positive");
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: set the gap before Install()");
    m_gap = gap;
}

Time
CollectiveHelper::GetIterationGap() const
{
    return m_gap;
}

namespace
{
/// A process's GPUs are done: what the message to another rank carries.
struct DoneMessage
{
    uint32_t helper; //!< the CollectiveHelper's id
    uint32_t pad;    //!< zero
    int64_t end;     //!< when its last GPU finished (time steps)
};

/// Registered at load, so in the same order on every rank.
[[maybe_unused]] const uint32_t g_doneHandler = CollectiveHelper::DoneHandler();
} // namespace

uint32_t
CollectiveHelper::DoneHandler()
{
    static const uint32_t id = FabricSimulatorImpl::RegisterHandler(&CollectiveHelper::ReceiveDone);
    return id;
}

void
CollectiveHelper::ReceiveDone(const FabricSimulatorImpl::Key& key,
                              uint32_t context,
                              const uint8_t* data,
                              uint32_t size)
{
    DoneMessage m;
    NS_ABORT_MSG_IF(size != sizeof(m), "CollectiveHelper: a malformed message");
    std::memcpy(&m, data, sizeof(m));
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    auto* helper = static_cast<CollectiveHelper*>(impl->Lookup(m.helper));
    NS_ABORT_MSG_IF(!helper, "CollectiveHelper: a message for no helper");
    impl->ScheduleKeyed(
        key, context, MakeEvent(&CollectiveHelper::ProcessDone, helper, TimeStep(m.end)));
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

uint32_t
CollectiveHelper::AddGroup(std::vector<uint32_t> ranks)
{
    NS_ABORT_MSG_IF(!m_transports.empty(), "CollectiveHelper: add groups before Install()");
    NS_ABORT_MSG_IF(ranks.empty(), "CollectiveHelper: an empty group");
    std::vector<uint32_t> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    NS_ABORT_MSG_IF(std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end(),
                    "CollectiveHelper: a group names a rank twice");
    m_groups.push_back(std::move(ranks));
    return static_cast<uint32_t>(m_groups.size());
}

uint32_t
CollectiveHelper::GetNGroups() const
{
    return static_cast<uint32_t>(m_groups.size());
}

std::vector<uint32_t>
CollectiveHelper::GetGroupRanks(uint32_t group) const
{
    if (group == 0)
    {
        std::vector<uint32_t> all(GetNRanks());
        std::iota(all.begin(), all.end(), 0);
        return all;
    }
    NS_ABORT_MSG_IF(group > m_groups.size(), "CollectiveHelper: no group " << group);
    return m_groups[group - 1];
}

Ptr<Communicator>
CollectiveHelper::GetGroupCommunicator(uint32_t group, uint32_t groupRank) const
{
    if (group == 0)
    {
        return m_communicators.at(groupRank);
    }
    NS_ABORT_MSG_IF(group > m_groupComms.size(), "CollectiveHelper: no group " << group);
    return m_groupComms[group - 1].at(groupRank);
}

uint32_t
CollectiveHelper::GetSlots() const
{
    return m_slots;
}

void
CollectiveHelper::Connect(const CollectiveSchedule& schedule, uint32_t group)
{
    if (group == 0)
    {
        Connect(schedule);
        return;
    }
    NS_ABORT_MSG_IF(group > m_groupComms.size(), "CollectiveHelper: no group " << group);
    const std::vector<uint32_t>& ranks = m_groups[group - 1];
    NS_ABORT_MSG_IF(schedule.GetNRanks() != ranks.size() || schedule.GetNChannels() > m_channels,
                    "CollectiveHelper: the schedule does not fit group " << group);
    const uint32_t base = m_groupSlot[group - 1] * m_channels;
    const Ptr<const CollectiveSchedule> routed = Routed(schedule, m_groupComms[group - 1][0]);
    for (uint32_t r = 0; r < ranks.size(); ++r)
    {
        for (const auto& [peer, channel] : routed->GetConnections(r))
        {
            GpuTransport::Connect(
                m_transports[ranks[r]], m_transports[ranks[peer]], base + channel);
        }
    }
}

Ptr<const CollectiveSchedule>
CollectiveHelper::Routed(const CollectiveSchedule& schedule, const Ptr<Communicator>& comm)
{
    // Schedules are reference counted (Create<>()): the relay keeps the one it routed.
    Ptr<const CollectiveSchedule> s(&schedule);
    Ptr<PxnRelay> pxn = comm->GetPxn();
    return pxn ? pxn->Route(s) : s;
}

void
CollectiveHelper::Dispatch::TransportReceived(uint32_t tag, uint64_t bytes)
{
    const Ptr<Communicator>& comm = bySlot[(tag >> shift) & mask];
    NS_ABORT_MSG_IF(!comm, "CollectiveHelper: an arrival for a communicator its GPU has not");
    comm->Received(tag, bytes);
}

void
CollectiveHelper::Dispatch::TransportSent(uint32_t tag)
{
    bySlot[(tag >> shift) & mask]->SendCompleted(tag);
}

void
CollectiveHelper::Connect(const CollectiveSchedule& schedule)
{
    NS_ABORT_MSG_IF(schedule.GetNRanks() != GetNRanks() || schedule.GetNChannels() > m_channels,
                    "CollectiveHelper: the schedule does not fit these ranks and channels");
    const Ptr<const CollectiveSchedule> routed = Routed(schedule, m_communicators.at(0));
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        for (const auto& [peer, channel] : routed->GetConnections(r))
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
    NS_ABORT_MSG_IF(m_running != 0 || m_heard != 0,
                    "CollectiveHelper: a collective is already running");
    m_running = m_local;
    m_heard = 0;
    m_end = Time(0);
    m_start = Simulator::Now();
    m_done = done;
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank)
    {
        Ptr<Node> node = m_transports[rank]->GetObject<Node>();
        if (impl && !impl->IsLocal(node->GetId()))
        {
            continue; // another MPI rank's GPU
        }
        // In the GPU's own context: what it schedules is its own, on any split.
        Simulator::ScheduleWithContext(node->GetId(),
                                       Time(0),
                                       &Communicator::Run,
                                       m_communicators[rank],
                                       plan,
                                       MakeCallback(&CollectiveHelper::RankDone, this));
    }
    if (m_local == 0 && m_processes == 0)
    {
        Simulator::ScheduleWithContext(Simulator::NO_CONTEXT,
                                       m_gap,
                                       &CollectiveHelper::ProcessDone,
                                       this,
                                       Simulator::Now()); // no GPUs at all
    }
}

void
CollectiveHelper::RankDone(uint32_t /* rank */)
{
    NS_ASSERT(m_running > 0);
    if (--m_running > 0)
    {
        return;
    }
    // This process's GPUs are done: every process holding GPUs hears it the gap later.
    const Time now = Simulator::Now();
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    for (uint32_t rank : m_otherRanks)
    {
        const FabricSimulatorImpl::Key key = impl->MakeKey(m_gap);
        const DoneMessage m{m_id, 0, now.GetTimeStep()};
        impl->Send(rank,
                   key,
                   Simulator::NO_CONTEXT,
                   DoneHandler(),
                   reinterpret_cast<const uint8_t*>(&m),
                   sizeof(m));
    }
    Simulator::ScheduleWithContext(
        Simulator::NO_CONTEXT, m_gap, &CollectiveHelper::ProcessDone, this, now);
}

void
CollectiveHelper::ProcessDone(Time end)
{
    m_end = std::max(m_end, end);
    if (++m_heard < std::max<uint32_t>(m_processes, 1))
    {
        return;
    }
    m_heard = 0;
    if (!m_done.IsNull())
    {
        RunCallback done = m_done;
        m_done = RunCallback();
        done(m_start, m_end);
    }
}

} // namespace ns3
