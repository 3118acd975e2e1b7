/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "flow-network.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
constexpr double INF = std::numeric_limits<double>::infinity();

} // namespace

bool
FlowNetwork::Differ(double a, double b)
{
    if (a == b)
    {
        return false;
    }
    if (std::isinf(a) || std::isinf(b))
    {
        return true;
    }
    return std::fabs(a - b) > 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowNetwork")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FlowNetwork>()
              .AddAttribute("EvaluationLimit",
                            "Link solutions one settlement may compute per link it started from "
                            "before the allocation is computed from scratch instead "
                            "(progressive filling over every link). Default 1024: on the "
                            "all-reduces of 1,024 to 4,096 GPUs the propagation settles within "
                            "it (64 sent 1 settlement in 1,400 to scratch, a third of the run "
                            "time; the allocations are the same).",
                            UintegerValue(1024),
                            MakeUintegerAccessor(&FlowNetwork::m_evaluationLimit),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("CongestionDemand",
                            "How far the flows a watched link (a switch's egress port) limits "
                            "would exceed its capacity without it, for it to count as "
                            "congested: the sum of their next limits (their other links, their "
                            "own cap, their sender's link) and of the other flows' rates, over "
                            "its capacity (GetCongestion()). There the packet level's queue "
                            "grows until PFC, ECN and congestion control hold the senders back, "
                            "which the flow level does not model. Default 4: measured, trees and "
                            "NVLSTree (up to 3) follow the packet level within 1%, an all-to-all "
                            "on a 4:1 fat-tree (8) is 12% faster than it.",
                            DoubleValue(4.0),
                            MakeDoubleAccessor(&FlowNetwork::m_congestionDemand),
                            MakeDoubleChecker<double>(1.0))
              .AddAttribute("SharedInputDemand",
                            "How far the flows a watched link limits would exceed its capacity "
                            "without it (as CongestionDemand) for it to count as a convergence "
                            "on shared inputs, when a link they arrive by also carries data "
                            "flows that do not cross it (GetCongestion()). There the packet "
                            "level's queue lets the converging flows run ahead into the buffer "
                            "(their input links free early for the others) or pauses the input "
                            "links with PFC (and the others stop with them). Default 2: two "
                            "senders at full rate into one port, a tree's parent; measured, "
                            "trees flagged so are 5% slower to 3% faster than the packet level "
                            "(the manual), and no ring, all-to-all, torus or failure point of "
                            "the flow level's matrix is flagged.",
                            DoubleValue(2.0),
                            MakeDoubleAccessor(&FlowNetwork::m_sharedInputDemand),
                            MakeDoubleChecker<double>(1.0))
              .AddTraceSource("Congestion",
                              "A watched link is congested as settled: (link, upstream links "
                              "of the flows it limits).",
                              MakeTraceSourceAccessor(&FlowNetwork::m_congestionTrace),
                              "ns3::FlowNetwork::CongestionTracedCallback")
              .AddTraceSource("SharedInput",
                              "A watched link limits converging flows (SharedInputDemand) whose "
                              "input links carry other flows, as settled: (link, data flows on "
                              "those links that do not cross it).",
                              MakeTraceSourceAccessor(&FlowNetwork::m_sharedInputTrace),
                              "ns3::FlowNetwork::SharedInputTracedCallback")
              .AddTraceSource("FlowStart",
                              "A flow started: (flow, path, bytes).",
                              MakeTraceSourceAccessor(&FlowNetwork::m_startTrace),
                              "ns3::FlowNetwork::FlowTracedCallback")
              .AddTraceSource("FlowFinish",
                              "A flow finished: (flow, path, bytes).",
                              MakeTraceSourceAccessor(&FlowNetwork::m_finishTrace),
                              "ns3::FlowNetwork::FlowTracedCallback");
    return tid;
}

FlowNetwork::FlowNetwork()
    : m_stepsPerSecond(static_cast<double>(Seconds(1).GetTimeStep()))
{
    NS_LOG_FUNCTION(this);
}

FlowNetwork::~FlowNetwork()
{
    NS_LOG_FUNCTION(this);
    if (FabricSimulatorImpl* sim = FabricSimulatorImpl::Get())
    {
        sim->CancelEndOfInstant(this); // not told once it is gone
    }
}

void
FlowNetwork::DoDispose()
{
    Simulator::Cancel(m_event);
    if (FabricSimulatorImpl* sim = FabricSimulatorImpl::Get())
    {
        sim->CancelEndOfInstant(this);
    }
    m_settlePending = false;
    m_finishing = UINT32_MAX;
    m_links.clear();
    m_uses.clear();
    m_pathUses.clear();
    m_flows.clear();
    m_history.clear();
    m_limits.clear();
    m_heapAt.clear();
    m_isTouched.clear();
    m_touched.clear();
    m_slots.clear();
    m_changed.clear();
    m_upstream.clear();
    m_freeFlows.clear();
    m_heap.clear();
    Object::DoDispose();
}

uint32_t
FlowNetwork::AddLink(DataRate rate)
{
    Link link;
    link.capacity = rate.GetBitRate() / 8.0;
    link.level = INF;
    m_links.push_back(std::move(link));
    return static_cast<uint32_t>(m_links.size() - 1);
}

uint32_t
FlowNetwork::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

void
FlowNetwork::SetLinkRate(uint32_t link, DataRate rate)
{
    NS_ABORT_MSG_IF(link >= m_links.size(), "FlowNetwork: no link " << link);
    m_links[link].capacity = rate.GetBitRate() / 8.0;
    Enqueue(link);
    RequestSettle();
}

DataRate
FlowNetwork::GetLinkRate(uint32_t link) const
{
    return DataRate(static_cast<uint64_t>(std::llround(m_links.at(link).capacity * 8.0)));
}

uint32_t
FlowNetwork::AddPath(const std::vector<Use>& uses)
{
    NS_ABORT_MSG_IF(uses.empty(), "FlowNetwork: an empty path");
    for (std::size_t i = 0; i < uses.size(); ++i)
    {
        NS_ABORT_MSG_IF(uses[i].link >= m_links.size() || !(uses[i].weight > 0),
                        "FlowNetwork: a path with no such link or a weight that is not positive");
        for (std::size_t j = 0; j < i; ++j)
        {
            NS_ABORT_MSG_IF(uses[j].link == uses[i].link,
                            "FlowNetwork: a path crosses link " << uses[i].link << " twice");
        }
    }
    if (uses.size() > m_stride)
    {
        // Room for the longer path in every flow's slots.
        const auto stride = static_cast<uint32_t>(uses.size());
        std::vector<uint32_t> slots(m_flows.size() * stride);
        for (std::size_t id = 0; id < m_flows.size(); ++id)
        {
            std::copy_n(m_slots.begin() + id * m_stride, m_stride, slots.begin() + id * stride);
        }
        m_slots.swap(slots);
        m_stride = stride;
    }
    // Every path's uses in one array, each path's together: a flow reaches its links from
    // its limits in one step, not through a vector of its own.
    const auto first = static_cast<uint32_t>(m_uses.size());
    const auto end = static_cast<uint32_t>(first + uses.size());
    for (const Use& u : uses)
    {
        m_uses.push_back(PathUse{u.link, end, u.weight});
    }
    m_pathUses.push_back(first);
    return static_cast<uint32_t>(m_pathUses.size() - 1);
}

std::vector<FlowNetwork::Use>
FlowNetwork::GetPath(uint32_t path) const
{
    std::vector<Use> uses;
    const uint32_t first = m_pathUses.at(path);
    for (uint32_t i = first; i < m_uses[first].end; ++i)
    {
        uses.push_back(Use{m_uses[i].link, m_uses[i].weight});
    }
    return uses;
}

uint32_t
FlowNetwork::Start(
    uint32_t path, uint64_t bytes, uint64_t packets, Owner* owner, uint64_t cookie, double maxRate)
{
    NS_ABORT_MSG_IF(path >= m_pathUses.size(), "FlowNetwork: no path " << path);
    if (m_finishing != UINT32_MAX)
    {
        const uint32_t last = m_finishing;
        if (m_flows[last].path == path && m_limits[last].maxRate == maxRate
            && m_flows[last].rate > 0)
        {
            return TakeOver(bytes, packets, owner, cookie);
        }
        ReleaseFinishing(); // its number is the next free one, as if it had left first
    }
    uint32_t id;
    if (!m_freeFlows.empty())
    {
        id = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    else
    {
        id = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
        m_history.emplace_back();
        m_limits.emplace_back();
        m_heapAt.push_back(NOT_IN_HEAP);
        m_isTouched.push_back(0);
        m_slots.resize(m_flows.size() * m_stride);
    }
    Flow& f = m_flows[id];
    f.path = path;
    f.bytes = bytes;
    f.packets = packets;
    f.remaining = static_cast<double>(bytes);
    f.rate = 0;
    m_limits[id].maxRate = maxRate;
    m_limits[id].uses = m_pathUses[path];
    f.updated = Simulator::Now().GetTimeStep();
    f.stopped = false;
    f.active = true;
    f.owner = owner;
    f.cookie = cookie;
    Attach(id);
    Touch(id);
    ++m_active;
    ++m_started;
    m_startTrace(id, path, bytes);
    RequestSettle();
    return id;
}

void
FlowNetwork::Attach(uint32_t id)
{
    Limits& limits = m_limits[id];
    const PathUse* uses = &m_uses[limits.uses];
    const uint32_t n = uses[0].end - limits.uses;
    uint32_t* slot = &m_slots[static_cast<std::size_t>(id) * m_stride];
    for (uint32_t u = 0; u < n; ++u)
    {
        Link& link = m_links[uses[u].link];
        slot[u] = static_cast<uint32_t>(link.members.size());
        link.members.push_back(Member{id, u, uses[u].weight});
        link.dataFlows += uses[u].weight == 1.0 ? 1 : 0;
        Enqueue(uses[u].link);
    }
    FindLow(limits);
}

void
FlowNetwork::Move(uint32_t flow, uint32_t path)
{
    NS_ABORT_MSG_IF(flow >= m_flows.size() || !m_flows[flow].active,
                    "FlowNetwork: no active flow " << flow);
    NS_ABORT_MSG_IF(path >= m_pathUses.size(), "FlowNetwork: no path " << path);
    Flow& f = m_flows[flow];
    if (f.path == path)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    f.remaining = RemainingAt(f, now);
    f.updated = now;
    // What it sent stays counted on the old links; the rest is its flow on the new ones.
    const double sent = static_cast<double>(f.bytes) - f.remaining;
    const auto sentPackets = static_cast<uint64_t>(std::llround(
        f.bytes > 0 ? static_cast<double>(f.packets) * sent / static_cast<double>(f.bytes) : 0));
    FlowHistory& h = m_history[flow];
    Leave(flow, sent + static_cast<double>(h.bytesBefore), sentPackets + h.packetsBefore);
    m_sent += sent;
    h.bytesBefore = 0;
    h.packetsBefore = 0;
    f.bytes = static_cast<uint64_t>(std::ceil(f.remaining));
    f.packets -= std::min(f.packets, sentPackets);
    f.path = path;
    m_limits[flow].uses = m_pathUses[path];
    Attach(flow);
    Touch(flow);
    RequestSettle();
}

uint32_t
FlowNetwork::GetFlowPath(uint32_t flow) const
{
    return m_flows.at(flow).path;
}

bool
FlowNetwork::GetStop(uint32_t flow, Time& since, double& rateBefore) const
{
    const Flow& f = m_flows.at(flow);
    if (!f.stopped || f.rate > 0)
    {
        return false;
    }
    since = TimeStep(m_history[flow].stoppedAt);
    rateBefore = m_history[flow].rateBefore;
    return true;
}

double
FlowNetwork::GetRate(uint32_t flow) const
{
    return m_flows.at(flow).rate;
}

int64_t
FlowNetwork::StepsToSend(double bytes, double rate) const
{
    // Rounded up to whole time steps, but not for the last bits of the rate: a rate that is
    // a link's share one way and the same share computed another way (a flow's rate kept from
    // an earlier settlement) would otherwise finish a step apart when the time is a whole
    // number of steps.
    const double steps = bytes / rate * m_stepsPerSecond;
    return static_cast<int64_t>(std::ceil(steps * (1 - 1e-12)));
}

double
FlowNetwork::RemainingAt(const Flow& f, int64_t now) const
{
    const double sent = f.rate * static_cast<double>(now - f.updated) / m_stepsPerSecond;
    return std::max(0.0, f.remaining - sent);
}

double
FlowNetwork::GetRemaining(uint32_t flow) const
{
    return RemainingAt(m_flows.at(flow), Simulator::Now().GetTimeStep());
}

uint32_t
FlowNetwork::GetNActive() const
{
    return m_active;
}

uint64_t
FlowNetwork::GetFlowsStarted() const
{
    return m_started;
}

void
FlowNetwork::GetWork(uint64_t& progress, uint64_t& outstanding) const
{
    const int64_t now = Simulator::Now().GetTimeStep();
    double sent = m_sent;
    for (const Flow& f : m_flows)
    {
        if (f.active)
        {
            sent += static_cast<double>(f.bytes) - RemainingAt(f, now);
        }
    }
    progress = static_cast<uint64_t>(sent);
    outstanding = m_active;
}

uint64_t
FlowNetwork::GetSettlements() const
{
    return m_settlements;
}

uint64_t
FlowNetwork::GetLinkEvaluations() const
{
    return m_evaluations;
}

uint64_t
FlowNetwork::GetFullSolutions() const
{
    return m_fullSolutions;
}

double
FlowNetwork::GetLinkBytes(uint32_t link) const
{
    const Link& l = m_links.at(link);
    double bytes = l.carried;
    const int64_t now = Simulator::Now().GetTimeStep();
    for (const Member& m : l.members)
    {
        // With the flows it took over (a finished flow not yet off its links: all of it).
        const Flow& f = m_flows[m.flow];
        const double sent = static_cast<double>(f.bytes) - (f.active ? RemainingAt(f, now) : 0);
        bytes += m.weight * (static_cast<double>(m_history[m.flow].bytesBefore) + sent);
    }
    return bytes;
}

uint64_t
FlowNetwork::GetLinkPackets(uint32_t link) const
{
    const Link& l = m_links.at(link);
    uint64_t packets = l.packets;
    for (const Member& m : l.members)
    {
        const Flow& f = m_flows[m.flow];
        packets += m_history[m.flow].packetsBefore + (f.active ? 0 : f.packets);
    }
    return packets;
}

void
FlowNetwork::Carry(uint32_t link, uint64_t bytes, uint64_t packets)
{
    Link& l = m_links.at(link);
    l.carried += static_cast<double>(bytes);
    l.packets += packets;
}

uint32_t
FlowNetwork::GetLinkFlows(uint32_t link) const
{
    return static_cast<uint32_t>(m_links.at(link).members.size());
}

double
FlowNetwork::GetLinkLoad(uint32_t link) const
{
    double load = 0;
    for (const Member& m : m_links.at(link).members)
    {
        load += m.weight * m_flows[m.flow].rate;
    }
    return load;
}

void
FlowNetwork::Enqueue(uint32_t link)
{
    Link& l = m_links[link];
    if (!l.queued)
    {
        l.queued = true;
        m_queue.push_back(link);
    }
}

void
FlowNetwork::Touch(uint32_t flow)
{
    if (!m_isTouched[flow])
    {
        m_isTouched[flow] = 1;
        m_touched.push_back(flow);
    }
}

void
FlowNetwork::FindLow(Limits& f)
{
    f.low = INF;
    f.second = INF;
    f.lowLink = UINT32_MAX;
    for (uint32_t i = f.uses, end = m_uses[f.uses].end; i < end; ++i)
    {
        const PathUse& u = m_uses[i];
        const double level = m_links[u.link].level;
        if (level < f.low)
        {
            f.second = f.low;
            f.low = level;
            f.lowLink = u.link;
        }
        else if (level < f.second)
        {
            f.second = level;
        }
    }
}

void
FlowNetwork::MoveLow(Limits& f, uint32_t link, double before, double after)
{
    if (f.lowLink == link)
    {
        if (after <= f.second)
        {
            f.low = after; // still the lowest
        }
        else
        {
            FindLow(f); // rose past the second: which link is lowest now is not known
        }
    }
    else if (after < f.low)
    {
        f.second = f.low;
        f.low = after;
        f.lowLink = link;
    }
    else if (after < f.second)
    {
        f.second = after;
    }
    else if (before <= f.second && after > before)
    {
        FindLow(f); // it may have been the second, and rose
    }
}

double
FlowNetwork::Solve(uint32_t link)
{
    ++m_evaluations;
    const Link& l = m_links[link];
    if (l.members.empty())
    {
        return INF;
    }
    m_bw.clear();
    double weights = 0;
    for (const Member& m : l.members)
    {
        // Its limit elsewhere: its own, and the lowest level of its other links.
        const Limits& f = m_limits[m.flow];
        const double limit = std::min(f.maxRate, f.lowLink == link ? f.second : f.low);
        m_bw.emplace_back(limit, m.weight);
        weights += m.weight;
    }
    if (l.capacity <= 0)
    {
        return 0;
    }
    // The level x with sum of weight x min(x, limit) = capacity: the flows limited below x
    // elsewhere take their limits, the others x each. Filling: x starts at the even share;
    // the flows limited below it take their limits, which raises the share of the others; until
    // none is below. A few passes settle the flows of a collective (their limits take few
    // values); past four, what is left is sorted, and a pass removes all that are below in
    // one go (the next finds none).
    double left = l.capacity;
    std::size_t n = m_bw.size();
    for (uint32_t pass = 0;; ++pass)
    {
        if (pass == 4)
        {
            std::sort(m_bw.begin(), m_bw.begin() + static_cast<std::ptrdiff_t>(n));
        }
        const double x = left / weights;
        std::size_t kept = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            const auto [limit, weight] = m_bw[i];
            if (limit * weights <= left)
            {
                left -= limit * weight;
                weights -= weight;
            }
            else
            {
                m_bw[kept++] = m_bw[i];
            }
        }
        if (kept == 0)
        {
            return INF; // the flows are all limited elsewhere, below its capacity
        }
        if (kept == n)
        {
            return x;
        }
        n = kept;
    }
}

void
FlowNetwork::RequestSettle()
{
    if (!m_settlePending)
    {
        m_settlePending = true;
        // Once the instant's other events have started their flows: one settlement for all,
        // and no event of its own.
        FabricSimulatorImpl* sim = FabricSimulatorImpl::Get();
        if (!sim || !sim->AtEndOfInstant(this))
        {
            Simulator::ScheduleNow(&FlowNetwork::Settle, this);
        }
    }
}

void
FlowNetwork::InstantEnded()
{
    if (m_settlePending)
    {
        Settle();
    }
}

void
FlowNetwork::Settle()
{
    m_settlePending = false;
    ++m_settlements;
    const uint64_t limit = static_cast<uint64_t>(m_evaluationLimit) * (m_queue.size() + 1);
    uint64_t evaluations = 0;
    // When most active flows are new (a collective's all-to-all posting every transfer at
    // once), solving from scratch costs less than propagating from each of their links.
    bool scratch = m_touched.size() > 64 && 2 * m_touched.size() > m_active;
    while (!scratch && !m_queue.empty())
    {
        const uint32_t link = m_queue.back();
        m_queue.pop_back();
        m_links[link].queued = false;
        if (++evaluations > limit)
        {
            scratch = true;
            break;
        }
        const double level = Solve(link);
        Link& l = m_links[link];
        if (l.watched && !l.changed)
        {
            // Looked at for congestion even if its level stands: what its flows would take
            // without it changes with their other links' levels.
            l.changed = true;
            m_changed.push_back(link);
        }
        if (!Differ(level, l.level))
        {
            continue;
        }
        // A level that fell lowers its flows' limits on their other links: a link limiting
        // none of its flows (infinite level) still limits none, and stays as it is. A level
        // that rose may make any of them a limit.
        const double before = l.level;
        const bool fell = level < before;
        l.level = level;
        for (const Member& m : l.members)
        {
            MoveLow(m_limits[m.flow], link, before, level);
            Touch(m.flow);
            const PathUse* uses = &m_uses[m_limits[m.flow].uses];
            const uint32_t n = uses[0].end - m_limits[m.flow].uses;
            for (uint32_t u = 0; u < n; ++u)
            {
                if (u != m.use && !(fell && std::isinf(m_links[uses[u].link].level)))
                {
                    Enqueue(uses[u].link);
                }
            }
        }
    }
    if (scratch)
    {
        for (uint32_t link : m_queue)
        {
            m_links[link].queued = false;
        }
        m_queue.clear();
        SolveFromScratch(); // touches every active flow
    }
    NoteCongestion(); // the watched links whose level changed, as settled
    // New rates and finish times.
    const int64_t now = Simulator::Now().GetTimeStep();
    for (uint32_t id : m_touched)
    {
        Flow& f = m_flows[id];
        m_isTouched[id] = 0;
        if (!f.active)
        {
            continue;
        }
        double rate = std::min(m_limits[id].maxRate, m_limits[id].low);
        if (std::isinf(rate))
        {
            // Only on links of infinite capacity: no link limits it (cannot happen with
            // finite capacities, kept for safety).
            rate = 0;
            for (uint32_t i = m_limits[id].uses; i < m_uses[m_limits[id].uses].end; ++i)
            {
                rate = std::max(rate, m_links[m_uses[i].link].capacity);
            }
        }
        if (rate <= 0 && !f.stopped)
        {
            f.stopped = true; // a link of its path is down (or it started on one)
            m_history[id].stoppedAt = now;
            m_history[id].rateBefore = f.rate;
        }
        else if (rate > 0)
        {
            f.stopped = false;
        }
        if (!Differ(rate, f.rate))
        {
            continue; // its finish time stands
        }
        f.remaining = RemainingAt(f, now);
        f.updated = now;
        f.rate = rate;
        if (f.remaining <= 0)
        {
            HeapSet(id, now);
        }
        else if (rate > 0)
        {
            HeapSet(id, now + StepsToSend(f.remaining, rate));
        }
        else
        {
            HeapRemove(id); // stalled (a link of no capacity)
        }
    }
    m_touched.clear();
    ArmEvent();
}

void
FlowNetwork::ArmEvent()
{
    if (m_heap.empty())
    {
        return;
    }
    const int64_t when = m_heap.front().time;
    if (m_event.IsRunning() && m_eventTime == when)
    {
        return;
    }
    Simulator::Cancel(m_event);
    m_eventTime = when;
    const int64_t now = Simulator::Now().GetTimeStep();
    m_event = Simulator::Schedule(
        TimeStep(std::max<int64_t>(0, when - now)), &FlowNetwork::FinishDue, this);
}

void
FlowNetwork::ReleaseFinishing()
{
    const uint32_t id = m_finishing;
    m_finishing = UINT32_MAX;
    Flow& f = m_flows[id];
    FlowHistory& h = m_history[id];
    Leave(id, static_cast<double>(f.bytes + h.bytesBefore), f.packets + h.packetsBefore);
    h.bytesBefore = 0;
    h.packetsBefore = 0;
    f.rate = 0;
    m_freeFlows.push_back(id);
}

uint32_t
FlowNetwork::TakeOver(uint64_t bytes, uint64_t packets, Owner* owner, uint64_t cookie)
{
    // The same path at the same limit: every link keeps its flows and its level, and this
    // flow its rate, so nothing is solved again (if another flow's start or finish at this
    // instant changes its rate, the settlement moves its finish time as any other's). What
    // the finished flow carried is counted on the links when this one leaves them.
    const uint32_t id = m_finishing;
    m_finishing = UINT32_MAX;
    Flow& f = m_flows[id];
    m_history[id].bytesBefore += f.bytes;
    m_history[id].packetsBefore += f.packets;
    const int64_t now = Simulator::Now().GetTimeStep();
    f.bytes = bytes;
    f.packets = packets;
    f.remaining = static_cast<double>(bytes);
    f.updated = now;
    f.active = true;
    f.owner = owner;
    f.cookie = cookie;
    ++m_active;
    ++m_started;
    m_startTrace(id, f.path, bytes);
    HeapSet(id, now + StepsToSend(f.remaining, f.rate)); // FinishDue() arms the event
    return id;
}

void
FlowNetwork::Leave(uint32_t id, double bytes, uint64_t packets)
{
    const PathUse* uses = &m_uses[m_limits[id].uses];
    const uint32_t n = uses[0].end - m_limits[id].uses;
    for (uint32_t u = 0; u < n; ++u)
    {
        Link& link = m_links[uses[u].link];
        link.carried += uses[u].weight * bytes;
        link.packets += packets;
        const uint32_t at = m_slots[static_cast<std::size_t>(id) * m_stride + u];
        const Member last = link.members.back();
        link.members[at] = last;
        m_slots[static_cast<std::size_t>(last.flow) * m_stride + last.use] = at;
        link.members.pop_back();
        link.dataFlows -= uses[u].weight == 1.0 ? 1 : 0;
        if (!std::isinf(link.level))
        {
            Enqueue(uses[u].link); // a link that limited none of its flows limits none now
        }
    }
}

void
FlowNetwork::FinishDue()
{
    m_eventTime = -1;
    const int64_t now = Simulator::Now().GetTimeStep();
    // The flows due now, in the heap's order (time, then number): deterministic.
    std::vector<Done>& done = m_done;
    done.clear();
    while (!m_heap.empty() && m_heap.front().time <= now)
    {
        const uint32_t id = m_heap.front().flow;
        Flow& f = m_flows[id];
        HeapRemove(id);
        f.active = false;
        --m_active;
        m_sent += static_cast<double>(f.bytes);
        m_finishTrace(id, f.path, f.bytes);
        done.push_back({f.owner, id, f.cookie});
    }
    // Owners start flows (never finish them) from here: done stays as it is. Each finished
    // flow stays on its links while its owner is told: the first flow the owner starts on
    // the same path at the same limit (a connection's next message) takes its place
    // (TakeOver()); any other start, or the end of the call, takes it off them first, so
    // that its number is the one reused, as if every finished flow had left at once.
    for (std::size_t i = 0; i < done.size(); ++i)
    {
        const Done d = done[i];
        m_finishing = d.flow;
        d.owner->FlowFinished(d.flow, d.cookie);
        if (m_finishing != UINT32_MAX)
        {
            ReleaseFinishing();
        }
    }
    if (!m_queue.empty() && !m_settlePending)
    {
        Settle(); // arms the event
        return;
    }
    ArmEvent();
}

} // namespace ns3
