/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "workload-runner.h"

#include "collective-plan.h"
#include "communicator.h"
#include "gpu-transport.h"
#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadRunner");
NS_OBJECT_ENSURE_REGISTERED(WorkloadRunner);

TypeId
WorkloadRunner::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WorkloadRunner")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<WorkloadRunner>()
                            .AddTraceSource("OpDone",
                                            "An operation of a rank's workload ended.",
                                            MakeTraceSourceAccessor(&WorkloadRunner::m_opTrace),
                                            "ns3::WorkloadRunner::OpTracedCallback");
    return tid;
}

WorkloadRunner::WorkloadRunner()
{
    NS_LOG_FUNCTION(this);
}

WorkloadRunner::~WorkloadRunner()
{
    NS_LOG_FUNCTION(this);
}

void
WorkloadRunner::DoDispose()
{
    m_state.clear();
    m_schedules.clear();
    Object::DoDispose();
}

void
WorkloadRunner::SetWorkload(Workload workload)
{
    std::string error;
    NS_ABORT_MSG_IF(!workload.Check(error), "WorkloadRunner: " << error);
    m_workload = std::move(workload);
}

const Workload&
WorkloadRunner::GetWorkload() const
{
    return m_workload;
}

void
WorkloadRunner::AddGroups(CollectiveHelper& helper)
{
    m_helperGroup.assign(m_workload.groups.size(), 0);
    for (uint32_t g = 1; g < m_workload.groups.size(); ++g)
    {
        m_helperGroup[g] = helper.AddGroup(m_workload.groups[g]);
    }
    m_pairGroup.clear();
    for (uint32_t r = 0; r < m_workload.nRanks; ++r)
    {
        for (const WorkloadOp& op : m_workload.ops[r])
        {
            if (op.kind == WorkloadOpKind::SEND && !m_pairGroup.count({r, op.peer}))
            {
                m_pairGroup[{r, op.peer}] = helper.AddGroup({r, op.peer});
            }
        }
    }
}

void
WorkloadRunner::Prepare(CollectiveHelper& helper, ScheduleMaker make)
{
    NS_ABORT_MSG_IF(helper.GetNRanks() != m_workload.nRanks,
                    "WorkloadRunner: a workload of " << m_workload.nRanks << " ranks on "
                                                     << helper.GetNRanks() << " GPUs");
    const uint32_t n = m_workload.nRanks;
    // One schedule per distinct (communicator size, collective, bytes, algorithm); one plan
    // of one message per point-to-point size.
    std::map<std::tuple<uint32_t, CollectiveType, uint64_t, std::string, uint32_t, bool>,
             Ptr<CollectiveSchedule>>
        made;
    std::map<uint64_t, Ptr<CollectivePlan>> transfers;
    auto transfer = [&transfers](uint64_t bytes)
    {
        Ptr<CollectivePlan>& plan = transfers[bytes];
        if (!plan)
        {
            plan = CollectivePlan::PointToPoint(bytes, "p2p");
        }
        return plan;
    };
    std::set<std::pair<uint32_t, const CollectiveSchedule*>> connected;
    m_schedules.assign(n, {});
    m_state.assign(n, RankState());
    m_records.assign(n, {});
    m_nodes.assign(n, 0);
    m_left = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        const std::vector<WorkloadOp>& ops = m_workload.ops[r];
        RankState& st = m_state[r];
        m_schedules[r].assign(ops.size(), nullptr);
        m_records[r].assign(ops.size(), Record());
        st.waiting.assign(ops.size(), 0);
        st.dependents.assign(ops.size(), {});
        st.streamOf.assign(ops.size(), 0);
        m_nodes[r] = helper.GetTransport(r)->GetObject<Node>()->GetId();
        m_left += ops.size();
        std::map<uint32_t, uint32_t> streamOfGroup; // helper group -> stream
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            st.waiting[i] = static_cast<uint32_t>(op.deps.size());
            for (uint32_t d : op.deps)
            {
                st.dependents[d].push_back(i);
            }
            if (op.kind == WorkloadOpKind::COMPUTE)
            {
                st.compute.push_back(i);
                continue;
            }
            uint32_t group = 0;
            Ptr<CollectiveSchedule> schedule;
            if (op.kind == WorkloadOpKind::COLLECTIVE)
            {
                group = m_helperGroup[op.group];
                const std::vector<uint32_t> ranks = m_workload.GroupRanks(op.group);
                const auto size = static_cast<uint32_t>(ranks.size());
                // One schedule per communicator, collective, size and algorithm (a group's
                // schedule may differ from another's of its size: where its ranks are).
                Ptr<CollectiveSchedule>& s = made[std::make_tuple(
                    group, op.collective, op.bytes, op.algorithm, op.moe, op.combine)];
                if (!s)
                {
                    s = make(op, group, ranks);
                    NS_ABORT_MSG_IF(!s || s->GetNRanks() != size,
                                    "WorkloadRunner: no schedule for operation " << i << " of rank "
                                                                                 << r);
                }
                schedule = s;
            }
            else
            {
                const bool send = op.kind == WorkloadOpKind::SEND;
                group = m_pairGroup.at(send ? std::make_pair(r, op.peer)
                                            : std::make_pair(op.peer, r));
                schedule = transfer(op.bytes);
            }
            if (connected.insert({group, PeekPointer(schedule)}).second)
            {
                helper.Connect(*schedule, group);
            }
            m_schedules[r][i] = schedule;
            auto [it, added]
                = streamOfGroup.emplace(group, static_cast<uint32_t>(st.streams.size()));
            if (added)
            {
                Stream stream;
                const std::vector<uint32_t> ranks = helper.GetGroupRanks(group);
                const auto pos = std::find(ranks.begin(), ranks.end(), r) - ranks.begin();
                stream.comm = helper.GetGroupCommunicator(group, static_cast<uint32_t>(pos));
                st.streams.push_back(stream);
            }
            st.streamOf[i] = it->second;
            st.streams[it->second].ops.push_back(i);
        }
    }
}

void
WorkloadRunner::Start()
{
    NS_ABORT_MSG_IF(m_state.size() != m_workload.nRanks, "WorkloadRunner: Prepare() first");
    for (uint32_t r = 0; r < m_workload.nRanks; ++r)
    {
        Simulator::ScheduleWithContext(m_nodes[r], Time(0), &WorkloadRunner::StartRank, this, r);
    }
}

void
WorkloadRunner::StartRank(uint32_t rank)
{
    const RankState& st = m_state[rank];
    for (uint32_t i = 0; i < st.waiting.size(); ++i)
    {
        if (st.waiting[i] == 0)
        {
            MakeReady(rank, i);
        }
    }
}

void
WorkloadRunner::MakeReady(uint32_t rank, uint32_t op)
{
    RankState& st = m_state[rank];
    if (m_workload.ops[rank][op].kind == WorkloadOpKind::COMPUTE)
    {
        TryCompute(rank);
        return;
    }
    TryStream(rank, st.streamOf[op]);
}

void
WorkloadRunner::TryCompute(uint32_t rank)
{
    RankState& st = m_state[rank];
    if (st.computeBusy || st.nextCompute >= st.compute.size())
    {
        return;
    }
    const uint32_t op = st.compute[st.nextCompute];
    if (st.waiting[op] > 0)
    {
        return; // the stream's next kernel waits for its inputs
    }
    ++st.nextCompute;
    st.computeBusy = true;
    m_records[rank][op].start = Simulator::Now();
    Simulator::Schedule(
        m_workload.ops[rank][op].duration, &WorkloadRunner::ComputeDone, this, rank, op);
}

void
WorkloadRunner::ComputeDone(uint32_t rank, uint32_t op)
{
    m_state[rank].computeBusy = false;
    Ended(rank, op);
    TryCompute(rank);
}

void
WorkloadRunner::TryStream(uint32_t rank, uint32_t stream)
{
    RankState& st = m_state[rank];
    Stream& s = st.streams[stream];
    if (s.busy || s.next >= s.ops.size())
    {
        return;
    }
    const uint32_t op = s.ops[s.next];
    if (st.waiting[op] > 0)
    {
        return; // the stream's next operation waits for its dependencies
    }
    s.busy = true;
    ++s.next;
    m_records[rank][op].start = Simulator::Now();
    s.comm->Run(m_schedules[rank][op],
                MakeBoundCallback(&WorkloadRunner::StreamDone, this, rank, stream));
}

void
WorkloadRunner::StreamDone(WorkloadRunner* runner,
                           uint32_t rank,
                           uint32_t stream,
                           uint32_t /* commRank */)
{
    Stream& s = runner->m_state[rank].streams[stream];
    s.busy = false;
    runner->Ended(rank, s.ops[s.next - 1]);
    runner->TryStream(rank, stream);
}

void
WorkloadRunner::Ended(uint32_t rank, uint32_t op)
{
    Record& rec = m_records[rank][op];
    rec.end = Simulator::Now();
    m_end = std::max(m_end, rec.end);
    --m_left;
    m_opTrace(rank, op, rec.start, rec.end);
    RankState& st = m_state[rank];
    for (uint32_t d : st.dependents[op])
    {
        if (--st.waiting[d] == 0)
        {
            MakeReady(rank, d);
        }
    }
}

bool
WorkloadRunner::IsDone() const
{
    return !m_state.empty() && m_left == 0;
}

Time
WorkloadRunner::GetEndTime() const
{
    return m_end;
}

const std::vector<std::vector<WorkloadRunner::Record>>&
WorkloadRunner::GetRecords() const
{
    return m_records;
}

std::string
WorkloadRunner::KindName(const WorkloadOp& op)
{
    switch (op.kind)
    {
    case WorkloadOpKind::COMPUTE:
        return "compute";
    case WorkloadOpKind::COLLECTIVE:
        return op.moe == 0 ? CollectiveTypeName(op.collective)
                           : (op.combine ? "combine" : "dispatch");
    case WorkloadOpKind::SEND:
        return "send";
    case WorkloadOpKind::RECV:
        return "recv";
    }
    return "unknown";
}

std::string
WorkloadRunner::CommunicatorName(const Workload& workload, const WorkloadOp& op)
{
    switch (op.kind)
    {
    case WorkloadOpKind::COMPUTE:
        return "";
    case WorkloadOpKind::COLLECTIVE:
    {
        // "tp[3]" is "tp": a trailing index in brackets goes.
        const std::string& name = workload.groupNames.at(op.group);
        const std::size_t cut = name.rfind('[');
        return cut == 0 || cut == std::string::npos || name.back() != ']' ? name
                                                                          : name.substr(0, cut);
    }
    case WorkloadOpKind::SEND:
    case WorkloadOpKind::RECV:
        return "p2p";
    }
    return "";
}

WorkloadRunner::Breakdown
WorkloadRunner::Summarize(uint32_t rank) const
{
    const std::vector<WorkloadOp>& ops = m_workload.ops.at(rank);
    const std::vector<Record>& recs = m_records.at(rank);
    Breakdown b;
    // Boundaries: +1 a compute starts, -1 it ends; communication enters and leaves a set
    // ordered by start, whose last member (the one that started last) takes the exposed time.
    struct Edge
    {
        int64_t t;   //!< time step
        int kind;    //!< 0: an end, 1: a start (ends first at one instant)
        uint32_t op; //!< the operation
    };
    std::vector<Edge> edges;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (recs[i].end.IsStrictlyNegative() || recs[i].end == recs[i].start)
        {
            continue; // never ran (the run stopped), or took no time
        }
        b.end = std::max(b.end, recs[i].end);
        edges.push_back({recs[i].start.GetTimeStep(), 1, i});
        edges.push_back({recs[i].end.GetTimeStep(), 0, i});
    }
    std::sort(edges.begin(),
              edges.end(),
              [](const Edge& x, const Edge& y)
              { return std::tie(x.t, x.kind, x.op) < std::tie(y.t, y.kind, y.op); });
    uint32_t computing = 0;
    std::set<std::pair<int64_t, uint32_t>> comm; // (start, op) in flight
    int64_t last = 0;
    for (const Edge& e : edges)
    {
        const Time span = TimeStep(e.t - last);
        if (span.IsStrictlyPositive())
        {
            if (computing > 0)
            {
                b.compute += span;
            }
            else if (!comm.empty())
            {
                const WorkloadOp& op = ops[comm.rbegin()->second];
                b.exposed[KindName(op)] += span;
                b.exposedByCommunicator[CommunicatorName(m_workload, op)] += span;
            }
            else
            {
                b.idle += span;
            }
        }
        last = e.t;
        const bool compute = ops[e.op].kind == WorkloadOpKind::COMPUTE;
        if (compute)
        {
            e.kind == 1 ? ++computing : --computing;
        }
        else if (e.kind == 1)
        {
            comm.insert({e.t, e.op});
        }
        else
        {
            comm.erase({recs[e.op].start.GetTimeStep(), e.op});
        }
    }
    return b;
}

} // namespace ns3
