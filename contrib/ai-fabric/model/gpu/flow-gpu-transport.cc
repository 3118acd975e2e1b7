/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "flow-gpu-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowGpuTransport");
NS_OBJECT_ENSURE_REGISTERED(FlowGpuTransport);

TypeId
FlowGpuTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowGpuTransport")
                            .SetParent<GpuTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FlowGpuTransport>();
    return tid;
}

FlowGpuTransport::FlowGpuTransport()
{
    NS_LOG_FUNCTION(this);
}

FlowGpuTransport::~FlowGpuTransport()
{
    NS_LOG_FUNCTION(this);
}

void
FlowGpuTransport::DoDispose()
{
    m_router = nullptr;
    m_network = nullptr;
    m_shared = nullptr;
    m_routes.clear();
    m_connections.clear();
    m_nvRoutes.clear();
    GpuTransport::DoDispose();
}

void
FlowGpuTransport::Setup(uint32_t rank,
                        uint32_t nRanks,
                        uint32_t nChannels,
                        uint32_t node,
                        Ptr<FlowRouter> router,
                        std::shared_ptr<Shared> shared)
{
    SetIdentity(rank, nRanks, nChannels);
    m_node = node;
    m_router = router;
    m_network = router->GetNetwork();
    m_shared = shared;
    m_hasNvls = router->GetNvls(rank, m_nvlsOut, m_nvlsIn, m_nvlsRoute);
    m_ingressFree = Time(0);
    m_lastRoute.assign(nChannels, {UINT32_MAX, 0});
    router->AddListener(this);
}

uint64_t
FlowGpuTransport::Key(uint32_t peer, uint32_t channel) const
{
    return static_cast<uint64_t>(peer) * GetNChannels() + channel;
}

bool
FlowGpuTransport::IsNvLinkPeer(uint32_t peer) const
{
    return m_router->IsNvLinkPeer(GetRank(), peer);
}

bool
FlowGpuTransport::IsConnected(uint32_t peer, uint32_t channel) const
{
    if (peer == GetRank())
    {
        return m_hasNvls;
    }
    // Over NVLink a channel's queue is made when first used.
    return m_connections.count(Key(peer, channel)) > 0 || m_nvRoutes.count(peer) > 0;
}

void
FlowGpuTransport::DoConnect(Ptr<GpuTransport> other, uint32_t channel)
{
    Ptr<FlowGpuTransport> peer = DynamicCast<FlowGpuTransport>(other);
    if (peer == this)
    {
        NS_ABORT_MSG_IF(!m_hasNvls, "GpuTransport: rank " << GetRank() << " to itself");
        return;
    }
    AddQueue(PeekPointer(peer), channel);
}

uint32_t
FlowGpuTransport::AddQueue(FlowGpuTransport* peer, uint32_t channel)
{
    const uint32_t other = peer->GetRank();
    auto known = m_connections.find(Key(other, channel));
    if (known != m_connections.end())
    {
        return known->second;
    }
    const bool nvlink = IsNvLinkPeer(other);
    auto shared = m_nvRoutes.find(other);
    if (!nvlink || shared == m_nvRoutes.end())
    {
        // A new route both ways (over NVLink the peer's, channel 0's, for every channel).
        FlowRoute ab;
        FlowRoute ba;
        std::string error;
        NS_ABORT_MSG_IF(!m_router->Resolve(GetRank(), other, nvlink ? 0 : channel, ab, ba, error),
                        "GpuTransport: " << error);
        const auto mine = static_cast<uint32_t>(m_routes.size());
        m_routes.push_back(std::move(ab));
        m_costs.emplace_back();
        KeepRoute(mine);
        m_routeQueues.emplace_back();
        const auto theirs = static_cast<uint32_t>(peer->m_routes.size());
        peer->m_routes.push_back(std::move(ba));
        peer->m_costs.emplace_back();
        peer->KeepRoute(theirs);
        peer->m_routeQueues.emplace_back();
        if (nvlink)
        {
            shared = m_nvRoutes.emplace(other, mine).first;
            peer->m_nvRoutes.emplace(GetRank(), theirs);
        }
        else
        {
            auto queue = [](FlowGpuTransport* t, uint32_t route, uint64_t key)
            {
                t->m_connections[key] = static_cast<uint32_t>(t->m_queueRoute.size());
                t->m_routeQueues[route].push_back(static_cast<uint32_t>(t->m_queueRoute.size()));
                t->m_queueRoute.push_back(route);
                t->m_waiting.emplace_back();
            };
            queue(this, mine, Key(other, channel));
            queue(peer, theirs, peer->Key(GetRank(), channel));
            return m_connections[Key(other, channel)];
        }
    }
    // An NVLink queue of this channel on the peer's route, both ways.
    auto queue = [channel](FlowGpuTransport* t, uint32_t to)
    {
        const uint64_t key = t->Key(to, channel);
        if (t->m_connections.count(key) == 0)
        {
            const uint32_t route = t->m_nvRoutes.at(to);
            t->m_connections[key] = static_cast<uint32_t>(t->m_queueRoute.size());
            t->m_routeQueues[route].push_back(static_cast<uint32_t>(t->m_queueRoute.size()));
            t->m_queueRoute.push_back(route);
            t->m_waiting.emplace_back();
        }
        return t->m_connections[key];
    };
    queue(peer, GetRank());
    return queue(this, other);
}

uint32_t
FlowGpuTransport::NewTransfer(
    Kind kind, uint32_t route, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    uint32_t slot;
    if (!m_freeTransfers.empty())
    {
        slot = m_freeTransfers.back();
        m_freeTransfers.pop_back();
    }
    else
    {
        slot = static_cast<uint32_t>(m_transfers.size());
        m_transfers.emplace_back();
    }
    Transfer& t = m_transfers[slot];
    t.kind = kind;
    t.route = route;
    t.peer = peer;
    t.bytes = bytes;
    t.tag = tag;
    t.flow = UINT32_MAX;
    return slot;
}

void
FlowGpuTransport::Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag)
{
    const uint32_t queue = QueueOf(peer, channel);
    const uint32_t route = m_queueRoute[queue];
    CountSent(bytes, m_costs[route].nvlink);
    const uint32_t slot = NewTransfer(Kind::UNICAST, route, peer, bytes, tag);
    if (!m_waiting[queue].empty() || !Fits(slot))
    {
        m_waiting[queue].push_back(slot); // behind the messages on the wire
        ++m_costs[route].waiting;
        return;
    }
    StartUnicast(slot);
}

uint32_t
FlowGpuTransport::QueueOf(uint32_t peer, uint32_t channel)
{
    // A channel sends to few peers, mostly the one of its last message (a ring's next rank):
    // one entry per channel saves most lookups in the connections' table.
    NS_ABORT_MSG_IF(channel >= m_lastRoute.size(),
                    "GpuTransport: rank " << GetRank() << " has no channel " << channel);
    std::pair<uint32_t, uint32_t>& last = m_lastRoute[channel];
    if (last.first == peer)
    {
        return last.second;
    }
    auto it = m_connections.find(Key(peer, channel));
    if (it == m_connections.end())
    {
        NS_ABORT_MSG_IF(m_nvRoutes.count(peer) == 0,
                        "GpuTransport: rank " << GetRank() << " has no connection to rank " << peer
                                              << " on channel " << channel);
        last = {peer, AddQueue(m_shared->peers[peer], channel)}; // another NVLink channel
        return last.second;
    }
    last = {peer, it->second};
    return it->second;
}

void
FlowGpuTransport::KeepRoute(uint32_t route)
{
    const FlowRoute& r = m_routes[route];
    NS_ABORT_MSG_IF(r.lanes > UINT16_MAX, "GpuTransport: a route of " << r.lanes << " lanes");
    Costs& c = m_costs[route];
    c.routeLanes = static_cast<uint16_t>(r.lanes);
    c.path = r.path;
    c.nvlink = r.nvlink;
}

const FlowGpuTransport::Costs&
FlowGpuTransport::CostsOf(uint32_t route, uint64_t bytes)
{
    Costs& c = m_costs[route];
    if (c.bytes != bytes)
    {
        const FlowRoute& r = m_routes[route];
        const uint64_t packets = r.Packets(bytes);
        NS_ABORT_MSG_IF(packets > UINT32_MAX,
                        "GpuTransport: a message of " << bytes << " bytes is " << packets
                                                      << " packets, more than the flow level's "
                                                      << UINT32_MAX);
        c.bytes = bytes;
        c.wire = r.WireBytes(bytes);
        c.packets = static_cast<uint32_t>(packets);
        c.lanes = static_cast<uint16_t>(std::min<uint64_t>(packets, c.routeLanes));
        c.maxRate = r.MaxRate(bytes);
        c.arrival = r.ArrivalDelay(bytes) + r.rxLatency;
        c.completion = r.CompletionDelay(bytes);
    }
    return c;
}

bool
FlowGpuTransport::Fits(uint32_t slot)
{
    const Transfer& t = m_transfers[slot];
    const Costs& c = CostsOf(t.route, t.bytes);
    return c.busy == 0 || c.busy + c.lanes <= c.routeLanes;
}

void
FlowGpuTransport::StartUnicast(uint32_t slot)
{
    Transfer& t = m_transfers[slot];
    Costs& c = m_costs[t.route];
    CostsOf(t.route, t.bytes);
    c.busy += c.lanes;
    ++m_flows;
    t.flow = m_network->Start(c.path, c.wire, c.packets, this, slot, c.maxRate);
}

void
FlowGpuTransport::SendNvls(bool multicast,
                           uint32_t peer,
                           uint64_t bytes,
                           uint32_t tag,
                           uint32_t groupSize,
                           uint32_t groupBase)
{
    const uint32_t rank = GetRank();
    NS_ABORT_MSG_IF(!m_hasNvls || rank < groupBase || rank - groupBase >= groupSize
                        || (!multicast && (peer < groupBase || peer - groupBase >= groupSize)),
                    "GpuTransport: NVLS needs the group's ranks on one NVLink domain with NVLS "
                    "(rank "
                        << rank << ")");
    CountSent(bytes, true);
    if (multicast)
    {
        m_nvlsWaiting[0].push_back(NewTransfer(Kind::MULTICAST, groupBase, groupSize, bytes, tag));
    }
    else
    {
        Shared::Reduction& r = m_shared->reductions[(static_cast<uint64_t>(peer) << 32) | tag];
        r.size = groupSize;
        ++r.open;
        m_nvlsWaiting[1].push_back(NewTransfer(Kind::CONTRIBUTION, 0, peer, bytes, tag));
    }
    PumpNvls();
}

uint32_t
FlowGpuTransport::NvlsLanes(uint64_t bytes)
{
    return NvlsCostsOf(bytes).lanes;
}

const FlowGpuTransport::NvlsCosts&
FlowGpuTransport::NvlsCostsOf(uint64_t bytes)
{
    NvlsCosts& c = m_nvlsCosts;
    if (c.bytes != bytes)
    {
        c.bytes = bytes;
        c.wire = m_nvlsRoute.WireBytes(bytes);
        c.packets = m_nvlsRoute.Packets(bytes);
        c.maxRate = m_nvlsRoute.MaxRate(bytes);
        c.arrival = m_nvlsRoute.ArrivalDelay(bytes);
        c.completion = m_nvlsRoute.CompletionDelay(bytes);
        c.lanes = static_cast<uint32_t>(std::min<uint64_t>(c.packets, m_nvlsRoute.lanes));
    }
    return c;
}

void
FlowGpuTransport::PumpNvls()
{
    // As the packet level's ports serve them: every multicast before any contribution, each
    // kind in order; a message starts when ports are free for its packets.
    while (m_nvlsBusy < m_nvlsRoute.lanes)
    {
        FabricFifo<uint32_t>& waiting
            = m_nvlsWaiting[0].empty() ? m_nvlsWaiting[1] : m_nvlsWaiting[0];
        if (waiting.empty())
        {
            return;
        }
        const uint32_t slot = waiting.front();
        waiting.pop_front();
        m_nvlsBusy += NvlsLanes(m_transfers[slot].bytes);
        StartNvls(slot);
    }
}

void
FlowGpuTransport::StartNvls(uint32_t slot)
{
    const Transfer t = m_transfers[slot];
    const NvlsCosts& c = NvlsCostsOf(t.bytes);
    const uint64_t wire = c.wire;
    const uint64_t packets = c.packets;
    const double maxRate = c.maxRate;
    ++m_flows;
    m_transfers[slot].flow = m_network->Start(OutPath(), wire, packets, this, slot, maxRate);
    if (t.kind == Kind::MULTICAST)
    {
        // Its copies reach the members' ports as its packets reach the switch.
        if (m_multicastStart.size() <= slot)
        {
            m_multicastStart.resize(m_transfers.size());
        }
        m_multicastStart[slot] = Simulator::Now();
        return;
    }
    // A contribution. Once every member's has started, the result's packets leave the switch
    // for the destination as the contributions' come in (the switch reduces as they arrive).
    Shared::Reduction& r = m_shared->reductions[(static_cast<uint64_t>(t.peer) << 32) | t.tag];
    if (++r.started == r.size)
    {
        r.lastStart = Simulator::Now();
    }
}

Time
FlowGpuTransport::ThroughIngress(Time start, const NvlsCosts& c)
{
    const double rate = static_cast<double>(m_network->GetLinkRate(m_nvlsIn).GetBitRate()) / 8;
    NS_ASSERT_MSG(rate > 0, "FlowGpuTransport: an NVLS ingress without a rate");
    // A fluid FIFO: the message's bytes leave after what came before them (m_ingressFree) and
    // no sooner than they came (from start on; the last one now).
    const Time now = Simulator::Now();
    const Time sent = Max(m_ingressFree, start) + Seconds(static_cast<double>(c.wire) / rate);
    m_ingressFree = Max(sent, now);
    m_network->Carry(m_nvlsIn, c.wire, c.packets);
    return m_ingressFree;
}

uint32_t
FlowGpuTransport::OutPath()
{
    if (m_outPath == UINT32_MAX)
    {
        m_outPath = m_network->AddPath({{m_nvlsOut, 1.0}});
    }
    return m_outPath;
}

void
FlowGpuTransport::FlowFinished(uint32_t /* flow */, uint64_t cookie)
{
    const auto slot = static_cast<uint32_t>(cookie);
    if (m_transfers[slot].kind == Kind::MULTICAST)
    {
        MulticastFinished(slot);
        return;
    }
    const Transfer t = m_transfers[slot];
    m_transfers[slot].flow = UINT32_MAX;
    m_freeTransfers.push_back(slot);
    Shared& shared = *m_shared;
    switch (t.kind)
    {
    case Kind::UNICAST:
    {
        Costs& c = m_costs[t.route];
        CostsOf(t.route, t.bytes);
        FlowGpuTransport* dst = shared.peers[t.peer];
        Simulator::ScheduleWithContext(
            dst->m_node, c.arrival, &FlowGpuTransport::Deliver, dst, t.tag, t.bytes);
        const Time completion = c.completion;
        c.busy -= c.lanes;
        // The next messages follow the last packet out: each queue's in order, the route's
        // queues (an NVLink peer's channels) in turn, as many as the ports take.
        const std::vector<uint32_t>& queues = m_routeQueues[t.route];
        uint32_t& turn = c.nextQueue;
        uint32_t& left = c.waiting;
        for (uint32_t tried = 0; left > 0 && tried < queues.size(); ++tried)
        {
            const uint32_t q = queues[turn];
            turn = turn + 1 == queues.size() ? 0 : turn + 1;
            FabricFifo<uint32_t>& waiting = m_waiting[q];
            if (waiting.empty())
            {
                continue;
            }
            if (!Fits(waiting.front()))
            {
                // The ports free for the first that does not fit: its turn comes back first.
                turn = turn == 0 ? static_cast<uint32_t>(queues.size() - 1) : turn - 1;
                break;
            }
            const uint32_t next = waiting.front();
            waiting.pop_front();
            --left;
            StartUnicast(next);
            tried = UINT32_MAX; // scan again from the next queue: ports may be left
            if (c.busy >= c.routeLanes)
            {
                break;
            }
        }
        CompleteAfter(completion, t.tag);
        return;
    }
    case Kind::MULTICAST:
        break; // handled above (MulticastFinished)
    case Kind::CONTRIBUTION:
    {
        m_nvlsBusy -= NvlsLanes(t.bytes);
        PumpNvls();
        CompleteAfter(NvlsCostsOf(t.bytes).completion, t.tag);
        const uint64_t key = (static_cast<uint64_t>(t.peer) << 32) | t.tag;
        Shared::Reduction* r = shared.reductions.Find(key);
        NS_ASSERT(r != nullptr);
        if (--r->open > 0 || r->started < r->size)
        {
            return;
        }
        // Every contribution is in: the result's last packet is on the destination's port,
        // and arrives once the port has sent it.
        const Time lastStart = r->lastStart;
        shared.reductions.Erase(key);
        FlowGpuTransport* dst = shared.peers[t.peer];
        const NvlsCosts& c = dst->NvlsCostsOf(t.bytes);
        const Time sent = dst->ThroughIngress(lastStart, c);
        Simulator::ScheduleWithContext(dst->m_node,
                                       sent - Simulator::Now() + c.arrival,
                                       &FlowGpuTransport::Deliver,
                                       dst,
                                       t.tag,
                                       t.bytes);
        return;
    }
    }
}

void
FlowGpuTransport::MulticastFinished(uint32_t slot)
{
    const Transfer t = m_transfers[slot];
    m_transfers[slot].flow = UINT32_MAX;
    m_freeTransfers.push_back(slot);
    m_nvlsBusy -= NvlsLanes(t.bytes);
    // Sent: its last copies are on every member's port. It arrives everywhere once the
    // slowest port has sent it (each member's port in its own order).
    const uint32_t groupBase = t.route;
    const uint32_t groupSize = t.peer;
    const NvlsCosts& c = NvlsCostsOf(t.bytes);
    const Time start = m_multicastStart[slot];
    Time sent = Simulator::Now();
    for (uint32_t g = 0; g < groupSize; ++g)
    {
        sent = Max(sent, m_shared->peers[groupBase + g]->ThroughIngress(start, c));
    }
    // One event for the group, each member's arrival in its own node's context: the
    // members' events, due together (after a delay: nothing scheduled in the meantime
    // runs between them) and scheduled one after the other, ran one after the other.
    // Without FabricSimulatorImpl (no context to switch) or without a delay, an event each.
    const Time arrival = sent - Simulator::Now() + c.arrival;
    if (FabricSimulatorImpl::Get() && arrival.IsStrictlyPositive())
    {
        FlowGpuTransport* first = m_shared->peers[groupBase];
        Simulator::ScheduleWithContext(first->m_node,
                                       arrival,
                                       &FlowGpuTransport::DeliverGroup,
                                       first,
                                       groupBase,
                                       groupSize,
                                       t.tag,
                                       t.bytes);
    }
    else
    {
        for (uint32_t g = 0; g < groupSize; ++g)
        {
            FlowGpuTransport* dst = m_shared->peers[groupBase + g];
            Simulator::ScheduleWithContext(
                dst->m_node, arrival, &FlowGpuTransport::Deliver, dst, t.tag, t.bytes);
        }
    }
    PumpNvls();
    CompleteAfter(NvlsCostsOf(t.bytes).completion, t.tag);
}

void
FlowGpuTransport::RoutesChanged()
{
    std::vector<bool> moved(m_routes.size(), false);
    bool any = false;
    for (uint32_t route = 0; route < m_routes.size(); ++route)
    {
        if (m_router->Retrace(m_routes[route]))
        {
            moved[route] = true;
            // The new path's delays, the same messages.
            Costs& c = m_costs[route];
            c.bytes = UINT64_MAX;
            KeepRoute(route);
            any = true;
        }
    }
    if (!any)
    {
        return;
    }
    // A flow that still moves takes the new path at once. One stopped on a failed link lost
    // what it sent since: its QP resends from its last acknowledged packet, at once if it was
    // still sending when the new tables came (the receiver's NAK of the first packet that
    // arrives out of sequence), else when its retransmission timer fires (its last ACK came
    // when the link failed; the timer restarts each timeout).
    const Time now = Simulator::Now();
    for (uint32_t slot = 0; slot < m_transfers.size(); ++slot)
    {
        const Transfer& t = m_transfers[slot];
        if (t.kind != Kind::UNICAST || t.flow == UINT32_MAX || !moved[t.route])
        {
            continue;
        }
        Time since;
        double rateBefore = 0;
        const Time rto = m_routes[t.route].retransmitTimeout;
        if (!m_network->GetStop(t.flow, since, rateBefore) || !rto.IsStrictlyPositive())
        {
            m_network->Move(t.flow, m_routes[t.route].path);
            continue;
        }
        const double left = m_network->GetRemaining(t.flow);
        if (rateBefore > 0 && since + Seconds(left / rateBefore) > now)
        {
            m_network->Move(t.flow, m_routes[t.route].path);
            continue;
        }
        const int64_t timeouts = (now - since).GetTimeStep() / rto.GetTimeStep() + 1;
        Simulator::Schedule(
            since + rto * timeouts - now, &FlowGpuTransport::Resume, this, slot, t.flow);
    }
}

void
FlowGpuTransport::Resume(uint32_t slot, uint32_t flow)
{
    const Transfer& t = m_transfers[slot];
    if (t.flow == flow && t.kind == Kind::UNICAST)
    {
        m_network->Move(flow, m_routes[t.route].path);
    }
}

void
FlowGpuTransport::Deliver(uint32_t tag, uint64_t bytes)
{
    NotifyReceived(tag, bytes);
}

void
FlowGpuTransport::DeliverGroup(uint32_t groupBase, uint32_t groupSize, uint32_t tag, uint64_t bytes)
{
    FabricSimulatorImpl* sim = FabricSimulatorImpl::Get();
    for (uint32_t g = 0; g < groupSize; ++g)
    {
        FlowGpuTransport* dst = m_shared->peers[groupBase + g];
        const uint32_t was = sim->SwapContext(dst->m_node);
        dst->NotifyReceived(tag, bytes);
        sim->SwapContext(was);
    }
}

void
FlowGpuTransport::Complete(uint32_t tag)
{
    NotifySent(tag);
}

void
FlowGpuTransport::CompleteAfter(Time delay, uint32_t tag)
{
    if (delay.IsZero())
    {
        NotifySent(tag); // done when its bytes left (NVLink): now, without an event
        return;
    }
    Simulator::Schedule(delay, &FlowGpuTransport::Complete, this, tag);
}

uint64_t
FlowGpuTransport::GetFlowsStarted() const
{
    return m_flows;
}

} // namespace ns3
