/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-stats-helper.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

#include <algorithm>
#include <sys/resource.h>

namespace ns3
{

namespace
{
/**
 * \param node a node
 * \return its name
 */
std::string
NodeName(Ptr<Node> node)
{
    const std::string name = Names::FindName(node);
    return name.empty() ? "node" + std::to_string(node->GetId()) : name;
}
} // namespace

FabricTotals
FabricStatsHelper::Totals()
{
    FabricTotals totals;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (!port)
            {
                continue;
            }
            totals.drops += port->GetCounters().TotalDrops();
            for (std::size_t r = 0; r < totals.dropsByReason.size(); ++r)
            {
                totals.dropsByReason[r] += port->GetCounters().drops[r];
            }
            totals.ecnMarks += port->GetCongestionMarks();
            totals.pfcPauseFrames += port->GetPauseFramesSent();
            totals.maxQueueBytes = std::max(totals.maxQueueBytes, port->GetPeakQueuedBytes());
            for (uint32_t c = 0; c < port->GetCreditClasses(); ++c)
            {
                totals.creditStallUs
                    += port->GetCreditStallTime(static_cast<uint8_t>(c)).GetSeconds() * 1e6;
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
                totals.retransmits += qp->GetRetransmissions();
                totals.cnps += qp->GetCnpsSent();
            }
        }
    }
    return totals;
}

std::vector<LinkStats>
FabricStatsHelper::Links(Time duration)
{
    std::vector<LinkStats> links;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (!port || !port->GetFabricChannel())
            {
                continue;
            }
            Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
            LinkStats link;
            link.name = NodeName(node) + "->" + NodeName(peer->GetNode());
            link.txBytes = port->GetCounters().txBytes;
            link.txWireBytes = port->GetCounters().txWireBytes;
            const double capacity = port->GetDataRate().GetBitRate() * duration.GetSeconds();
            link.utilization = capacity > 0 ? link.txWireBytes * 8.0 / capacity : 0;
            for (uint32_t c = 0; c < port->GetCreditClasses(); ++c)
            {
                link.creditStallUs.push_back(
                    port->GetCreditStallTime(static_cast<uint8_t>(c)).GetSeconds() * 1e6);
            }
            links.push_back(link);
        }
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
