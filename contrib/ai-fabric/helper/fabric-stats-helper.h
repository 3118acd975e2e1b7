/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_STATS_HELPER_H
#define FABRIC_STATS_HELPER_H

#include "ns3/fabric-net-device.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Fabric-wide counters, summed over every port and queue pair.
 */
struct FabricTotals
{
    uint64_t drops{0}; //!< frames dropped, every reason
    std::array<uint64_t, static_cast<std::size_t>(FabricDropReason::COUNT)> dropsByReason{};
    //!< frames dropped, by reason
    uint64_t pfcPauseFrames{0}; //!< PFC pauses (XOFF, refreshes included) sent by any port
    uint64_t ecnMarks{0};       //!< frames marked by switch ports: ECN CE (RoCEv2), FECN (IB)
    uint64_t cnps{0};           //!< CNPs sent by NICs (DCQCN; BECNs of IB congestion control)
    uint64_t retransmits{0};    //!< data packets sent again by the RC transport
    double creditStallUs{0};    //!< time IB ports had a packet waiting for credits, summed (us)
    uint64_t maxQueueBytes{0};  //!< largest output queue seen at any port
};

/**
 * \ingroup ai-fabric
 * One direction of a link.
 */
struct LinkStats
{
    std::string name;                  //!< "<sender>-><receiver>", by node names
    uint64_t txBytes{0};               //!< frame bytes sent
    uint64_t txWireBytes{0};           //!< bytes of line time used
    double utilization{0};             //!< line time used / time of the measurement
    std::vector<double> creditStallUs; //!< per data VL, time a packet waited for credits (IB)
};

/**
 * \ingroup ai-fabric
 * \brief Walks the simulation's nodes once, at the end, and sums what the ports and queue
 * pairs counted: one place for the statistics that the JSON and the tables print.
 *
 * Nodes are named by ns-3's Names where they have one (the topology helpers name them), and
 * "node<id>" otherwise.
 */
class FabricStatsHelper
{
  public:
    /// \return totals over every node
    static FabricTotals Totals();

    /**
     * \param duration the time the utilization is measured over
     * \return every link direction, in node and device order
     */
    static std::vector<LinkStats> Links(Time duration);

    /**
     * \brief The "fabric" object of the programs' JSON output (DESIGN.md section 5).
     * \param totals fabric counters
     * \return drops, pfc_pause_frames, ecn_marks, cnps, retransmits, credit_stall_us,
     *         max_queue_bytes
     */
    static nlohmann::ordered_json TotalsJson(const FabricTotals& totals);

    /// \return the process's peak resident set size (MB)
    static double PeakRssMb();

    /**
     * \param node a node
     * \return its ns-3 name, or "node<id>" (the names of LinkStats::name)
     */
    static std::string NodeName(Ptr<Node> node);
};

} // namespace ns3

#endif /* FABRIC_STATS_HELPER_H */
