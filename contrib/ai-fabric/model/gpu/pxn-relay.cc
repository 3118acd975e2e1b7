/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "pxn-relay.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PxnRelay");

namespace
{

/// \return the key of a device index in a domain
uint64_t
DeviceKey(int64_t domain, uint32_t device)
{
    return (static_cast<uint64_t>(domain) << 24) ^ device;
}

} // namespace

PxnRelay::PxnRelay(std::vector<PxnPlace> places)
    : m_places(std::move(places))
{
    for (uint32_t r = 0; r < m_places.size(); ++r)
    {
        const PxnPlace& p = m_places[r];
        if (p.domain < 0)
        {
            continue;
        }
        NS_ABORT_MSG_IF(!m_byDevice.emplace(DeviceKey(p.domain, p.device), r).second,
                        "PxnRelay: two ranks are device " << p.device << " of domain " << p.domain);
        auto [it, first] = m_firstOfNic.emplace(p.nic, r);
        if (!first && m_places[it->second].device > p.device)
        {
            it->second = r;
        }
    }
}

uint32_t
PxnRelay::GetProxy(uint32_t src, uint32_t dst) const
{
    const PxnPlace& s = m_places.at(src);
    const PxnPlace& d = m_places.at(dst);
    if (s.domain < 0 || d.domain < 0 || s.domain == d.domain)
    {
        return src; // no NVLink on one side, or the same server
    }
    // This server's GPU with the destination's device index, if the communicator has it.
    auto local = m_byDevice.find(DeviceKey(s.domain, d.device));
    if (local == m_byDevice.end())
    {
        return src;
    }
    // Its NIC, forwarded to by the first GPU that NIC serves (src itself if it is that GPU).
    const uint64_t nic = m_places[local->second].nic;
    const uint32_t proxy = m_firstOfNic.at(nic);
    return m_places[proxy].domain == s.domain ? proxy : src;
}

Ptr<CollectivePlan>
PxnRelay::Rewrite(const CollectivePlan& plan) const
{
    NS_ABORT_MSG_IF(plan.GetNRanks() != m_places.size(),
                    "PxnRelay: a plan of " << plan.GetNRanks() << " ranks for " << m_places.size());
    const uint32_t n = plan.GetNTransfers();
    bool relayed = false;
    for (uint32_t id = 0; id < n; ++id)
    {
        const CollectiveTransfer& t = plan.GetTransfer(id);
        if (t.kind != TransferKind::POINT_TO_POINT)
        {
            return nullptr; // NVLS transfers are not NCCL's point-to-point
        }
        relayed = relayed || GetProxy(t.src, t.dst) != t.src;
    }
    if (!relayed)
    {
        return nullptr;
    }
    Ptr<CollectivePlan> out = Create<CollectivePlan>(
        plan.GetType(), plan.GetNRanks(), plan.GetBytes(), plan.GetAlgorithm() + "+pxn");
    out->SetPeerToPeer(true);
    std::vector<uint32_t> delivered(n); // by old id: the new transfer that reaches its dst
    std::vector<uint32_t> deps;
    for (uint32_t id = 0; id < n; ++id)
    {
        const CollectiveTransfer& t = plan.GetTransfer(id);
        deps.clear();
        for (uint32_t d : plan.GetDependencies(id))
        {
            deps.push_back(delivered[d]);
        }
        const uint32_t proxy = GetProxy(t.src, t.dst);
        if (proxy == t.src)
        {
            delivered[id]
                = out->AddTransfer(t.src, t.dst, t.channel, t.bytes, t.step, t.reduce, deps);
            continue;
        }
        const uint32_t hop
            = out->AddTransfer(t.src, proxy, t.channel, t.bytes, t.step, false, deps);
        delivered[id] = out->AddTransfer(proxy, t.dst, t.channel, t.bytes, t.step, t.reduce, {hop});
    }
    out->Finalize();
    return out;
}

Ptr<const CollectiveSchedule>
PxnRelay::Route(Ptr<const CollectiveSchedule> schedule)
{
    if (!schedule->IsPeerToPeer() || schedule->GetNRanks() != m_places.size())
    {
        return schedule;
    }
    auto it = m_routed.find(PeekPointer(schedule));
    if (it == m_routed.end())
    {
        Ptr<CollectivePlan> routed;
        if (auto plan = DynamicCast<const CollectivePlan>(schedule))
        {
            routed = Rewrite(*plan);
        }
        it = m_routed.emplace(PeekPointer(schedule), std::make_pair(schedule, routed)).first;
    }
    const Ptr<CollectivePlan>& routed = it->second.second;
    if (!routed)
    {
        return schedule;
    }
    // The protocol is the caller's to set on the schedule it runs; the rewrite follows it.
    if (schedule->HasProtocol())
    {
        routed->SetProtocol(schedule->GetProtocol());
    }
    routed->SetTreeLatency(schedule->UsesTreeLatency());
    return routed;
}

} // namespace ns3
