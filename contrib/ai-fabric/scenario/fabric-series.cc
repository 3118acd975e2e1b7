/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-series.h"

#include "ns3/collective-helper.h"
#include "ns3/collective-schedule.h"
#include "ns3/communicator.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{

void
FabricSeriesSampler::Start(const CollectiveHelper& collectives, Callback<bool> done)
{
    for (uint32_t r = 0; r < collectives.GetNRanks(); ++r)
    {
        collectives.GetCommunicator(r)->TraceConnectWithoutContext(
            "Arrival", MakeCallback(&FabricSeriesSampler::Arrived, this));
    }
    m_ranks = true;
    Start(done);
}

void
FabricSeriesSampler::Start(Callback<bool> done)
{
    m_done = done;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (port && port->GetFabricChannel())
            {
                m_ports.push_back(port);
            }
        }
    }
    m_queue.assign(m_ports.size(), {});
    m_paused.assign(m_ports.size(), {});
    m_stalled.assign(m_ports.size(), {});
    m_interval = MicroSeconds(1);
    Simulator::Schedule(m_interval, &FabricSeriesSampler::Sample, this);
}

void
FabricSeriesSampler::Arrived(const CollectiveTransfer& transfer)
{
    m_received += transfer.bytes;
}

void
FabricSeriesSampler::Sample()
{
    m_time.push_back(Simulator::Now().GetSeconds() * 1e6);
    m_progress.push_back(static_cast<double>(m_received));
    for (std::size_t p = 0; p < m_ports.size(); ++p)
    {
        const Ptr<FabricNetDevice>& port = m_ports[p];
        uint64_t queued = 0;
        for (uint32_t c = 0; c < port->GetNTrafficClasses(); ++c)
        {
            queued += port->GetClassQueuedBytes(static_cast<uint8_t>(c));
        }
        double paused = 0;
        if (const Ptr<RoceNetDevice> roce = DynamicCast<RoceNetDevice>(port))
        {
            for (uint32_t c = 0; c < port->GetNTrafficClasses(); ++c)
            {
                paused += roce->GetPausedTime(static_cast<uint8_t>(c)).GetSeconds() * 1e6;
            }
        }
        double stalled = 0;
        for (uint32_t c = 0; c < port->GetCreditClasses(); ++c)
        {
            stalled += port->GetCreditStallTime(static_cast<uint8_t>(c)).GetSeconds() * 1e6;
        }
        m_queue[p].push_back(queued);
        m_paused[p].push_back(paused);
        m_stalled[p].push_back(stalled);
    }
    if (m_time.size() >= MAX_SAMPLES)
    {
        // Merge pairs: the later time and cumulative figures, the larger queue.
        const std::size_t half = m_time.size() / 2;
        for (std::size_t i = 0; i < half; ++i)
        {
            m_time[i] = m_time[2 * i + 1];
            m_progress[i] = m_progress[2 * i + 1];
            for (std::size_t p = 0; p < m_ports.size(); ++p)
            {
                m_queue[p][i] = std::max(m_queue[p][2 * i], m_queue[p][2 * i + 1]);
                m_paused[p][i] = m_paused[p][2 * i + 1];
                m_stalled[p][i] = m_stalled[p][2 * i + 1];
            }
        }
        m_time.resize(half);
        m_progress.resize(half);
        for (std::size_t p = 0; p < m_ports.size(); ++p)
        {
            m_queue[p].resize(half);
            m_paused[p].resize(half);
            m_stalled[p].resize(half);
        }
        m_interval = m_interval * 2;
    }
    if (!m_done())
    {
        Simulator::Schedule(m_interval, &FabricSeriesSampler::Sample, this);
    }
}

nlohmann::ordered_json
FabricSeriesSampler::ToJson() const
{
    if (m_time.empty())
    {
        return nullptr;
    }
    // The shares of each interval paused and stalled, from the cumulative times.
    auto shares = [this](const std::vector<double>& total)
    {
        std::vector<double> share(total.size(), 0.0);
        for (std::size_t i = 0; i < total.size(); ++i)
        {
            const double before = i == 0 ? 0.0 : total[i - 1];
            const double from = i == 0 ? 0.0 : m_time[i - 1];
            const double span = m_time[i] - from;
            share[i] = span > 0 ? std::clamp((total[i] - before) / span, 0.0, 1.0) : 0.0;
        }
        return share;
    };
    // The ports with the highest peaks of each measure (ties: in node order).
    std::vector<bool> keep(m_ports.size(), false);
    auto top = [&](auto peak)
    {
        std::vector<std::size_t> order(m_ports.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(),
                         order.end(),
                         [&](std::size_t a, std::size_t b) { return peak(a) > peak(b); });
        for (std::size_t i = 0; i < order.size() && i < TOP_PORTS; ++i)
        {
            if (peak(order[i]) > 0)
            {
                keep[order[i]] = true;
            }
        }
    };
    top([&](std::size_t p)
        { return static_cast<double>(*std::max_element(m_queue[p].begin(), m_queue[p].end())); });
    top([&](std::size_t p) { return m_paused[p].back(); });
    top([&](std::size_t p) { return m_stalled[p].back(); });
    nlohmann::ordered_json j;
    j["time_us"] = m_time;
    if (m_ranks)
    {
        j["progress_bytes"] = m_progress;
    }
    j["ports"] = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < m_ports.size(); ++p)
    {
        if (!keep[p])
        {
            continue;
        }
        const Ptr<FabricNetDevice>& port = m_ports[p];
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        nlohmann::ordered_json e;
        e["name"] = FabricStatsHelper::NodeName(port->GetNode()) + "->"
                    + FabricStatsHelper::NodeName(peer->GetNode());
        e["queue_bytes"] = m_queue[p];
        e["paused"] = shares(m_paused[p]);
        e["stalled"] = shares(m_stalled[p]);
        j["ports"].push_back(e);
    }
    return j;
}

double
NearestRank(const std::vector<double>& sorted, double q)
{
    const auto rank = static_cast<std::size_t>(std::ceil(q * sorted.size()));
    return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

} // namespace ns3
