/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-stats-helper.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

#include <algorithm>
#include <sys/resource.h>

namespace ns3
{

std::string
FabricStatsHelper::NodeName(Ptr<Node> node)
{
    const std::string name = Names::FindName(node);
    return name.empty() ? "node" + std::to_string(node->GetId()) : name;
}

namespace
{
/// Every fabric port, in node and device order.
std::vector<Ptr<FabricNetDevice>>
Ports()
{
    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d)))
            {
                ports.push_back(port);
            }
        }
    }
    return ports;
}

/**
 * \brief Every rank's values, added up (across MPI ranks; in one process, nothing changes).
 * \param values this rank's
 */
template<typename T>
void
SumAcrossRanks(std::vector<T>& values)
{
    if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Get())
    {
        impl->SumAcrossRanks(values);
    }
}

/// Counters of a port, in Totals().
constexpr std::size_t REASONS = static_cast<std::size_t>(FabricDropReason::COUNT);
constexpr std::size_t PORT_COUNTERS = REASONS + 6;
} // namespace

FabricTotals
FabricStatsHelper::Totals()
{
    // Each port's counters first (across MPI ranks, each rank has its own ports'; their sums
    // are the ports' values), then the totals in port order, as in one process.
    const std::vector<Ptr<FabricNetDevice>> ports = Ports();
    std::vector<uint64_t> counters(ports.size() * PORT_COUNTERS, 0);
    std::vector<double> stalls;
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        const Ptr<FabricNetDevice>& port = ports[i];
        uint64_t* c = &counters[i * PORT_COUNTERS];
        c[0] = port->GetCounters().TotalDrops();
        for (std::size_t r = 0; r < REASONS; ++r)
        {
            c[1 + r] = port->GetCounters().drops[r];
        }
        c[REASONS + 1] = port->GetCongestionMarks();
        c[REASONS + 2] = port->GetPauseFramesSent();
        c[REASONS + 3] = port->GetPeakQueuedBytes();
        for (uint32_t k = 0; k < port->GetCreditClasses(); ++k)
        {
            stalls.push_back(port->GetCreditStallTime(static_cast<uint8_t>(k)).GetSeconds() * 1e6);
        }
        const auto* nic = dynamic_cast<const RdmaNicPort*>(PeekPointer(port));
        Ptr<RdmaTransport> transport = nic ? nic->GetTransport() : nullptr;
        if (!transport)
        {
            continue;
        }
        for (uint32_t q = 0; q < transport->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = transport->GetQueuePair(RdmaTransport::FIRST_QPN + q);
            c[REASONS + 4] += qp->GetRetransmissions();
            c[REASONS + 5] += qp->GetCnpsSent();
        }
    }
    SumAcrossRanks(counters);
    SumAcrossRanks(stalls);
    FabricTotals totals;
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        const uint64_t* c = &counters[i * PORT_COUNTERS];
        totals.drops += c[0];
        for (std::size_t r = 0; r < REASONS; ++r)
        {
            totals.dropsByReason[r] += c[1 + r];
        }
        totals.ecnMarks += c[REASONS + 1];
        totals.pfcPauseFrames += c[REASONS + 2];
        totals.maxQueueBytes = std::max(totals.maxQueueBytes, c[REASONS + 3]);
        totals.retransmits += c[REASONS + 4];
        totals.cnps += c[REASONS + 5];
    }
    for (double s : stalls)
    {
        totals.creditStallUs += s;
    }
    return totals;
}

std::vector<LinkStats>
FabricStatsHelper::Links(Time duration)
{
    std::vector<Ptr<FabricNetDevice>> ports = Ports();
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [](const Ptr<FabricNetDevice>& p)
                               { return !p->GetFabricChannel(); }),
                ports.end());
    std::vector<uint64_t> bytes(2 * ports.size(), 0);
    std::vector<double> stalls;
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        bytes[2 * i] = ports[i]->GetCounters().txBytes;
        bytes[2 * i + 1] = ports[i]->GetCounters().txWireBytes;
        for (uint32_t c = 0; c < ports[i]->GetCreditClasses(); ++c)
        {
            stalls.push_back(ports[i]->GetCreditStallTime(static_cast<uint8_t>(c)).GetSeconds()
                             * 1e6);
        }
    }
    SumAcrossRanks(bytes);
    SumAcrossRanks(stalls);
    std::vector<LinkStats> links;
    std::size_t stall = 0;
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        const Ptr<FabricNetDevice>& port = ports[i];
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        LinkStats link;
        link.name = NodeName(port->GetNode()) + "->" + NodeName(peer->GetNode());
        link.txBytes = bytes[2 * i];
        link.txWireBytes = bytes[2 * i + 1];
        const double capacity = port->GetDataRate().GetBitRate() * duration.GetSeconds();
        link.utilization = capacity > 0 ? link.txWireBytes * 8.0 / capacity : 0;
        for (uint32_t c = 0; c < port->GetCreditClasses(); ++c)
        {
            link.creditStallUs.push_back(stalls[stall++]);
        }
        links.push_back(link);
    }
    return links;
}

nlohmann::ordered_json
FabricStatsHelper::TotalsJson(const FabricTotals& totals)
{
    nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
    for (std::size_t r = 0; r < totals.dropsByReason.size(); ++r)
    {
        reasons[FabricDropReasonName(static_cast<FabricDropReason>(r))] = totals.dropsByReason[r];
    }
    return {{"drops", totals.drops},
            {"drops_by_reason", reasons},
            {"pfc_pause_frames", totals.pfcPauseFrames},
            {"ecn_marks", totals.ecnMarks},
            {"cnps", totals.cnps},
            {"retransmits", totals.retransmits},
            {"credit_stall_us", totals.creditStallUs},
            {"max_queue_bytes", totals.maxQueueBytes}};
}

double
FabricStatsHelper::PeakRssMb()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0; // Linux reports kilobytes
}

} // namespace ns3
