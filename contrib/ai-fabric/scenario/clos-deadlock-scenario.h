/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef CLOS_DEADLOCK_SCENARIO_H
#define CLOS_DEADLOCK_SCENARIO_H

#include "ns3/data-rate.h"
#include "ns3/fabric-stall-detector.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What the bounce-back scenario found.
 */
struct ClosDeadlockResult
{
    bool cycleBefore{false}; //!< CBD before the failures
    bool cycleAfter{false};  //!< CBD after the reroute
    bool completed{false};   //!< every write completed
    Time end;                //!< when (or when stopped)
    FabricStallDetector::Finding finding{FabricStallDetector::Finding::NONE}; //!< detector's
    std::vector<std::string> cycle;                                           //!< its cycle
    std::string report;                                                       //!< its report
    uint64_t drops{0};  //!< drops, every reason
    uint64_t pauses{0}; //!< PFC pause frames
    /// The ports' time series (FabricSeriesSampler), with SetSeries(true); else null
    nlohmann::ordered_json series;
};

/**
 * \ingroup ai-fabric
 * \brief PFC deadlock after failures in a Clos (Hu et al., HotNets 2016), on RoCEv2.
 *
 * 8 GPUs on a radix-4 leaf-spine (4 leaves with 2 GPUs each, 2 spines), PFC on, no DCQCN,
 * switches with a small shared buffer. leaf0-spine0 and leaf1-spine1 fail at time 0 and are
 * rerouted at once (ECMP over the links that are up): traffic between leaf0 and leaf1 now
 * bounces up-down-up through leaf2 or leaf3, and the routes hold a cyclic buffer dependency
 * (spine1 -> leaf2 -> spine0 -> leaf3 -> spine1) that up-down routes never have. At 1 ms four
 * flows start that close the cycle: gpu0 -> gpu2 and gpu2 -> gpu0 (the bouncing ones) and
 * gpu4 -> gpu6, gpu6 -> gpu4, each of FlowQps QPs of FlowBytes, their hosts sending at
 * HostRate (half the line rate by default: no link carries more than its rate). With the
 * bottleneck flow, gpu5 -> gpu3 (BottleneckBytes at the full line rate) also crosses
 * leaf2 -> spine0 into spine0 -> leaf1, which the bounced traffic takes too: that link is
 * oversubscribed, its queue backs up into the cycle, and the cycle can deadlock.
 */
class ClosDeadlockScenario
{
  public:
    /// \param bytes the switches' shared buffer (default 2 MB)
    void SetBufferBytes(uint32_t bytes);
    /// \param rate the rate the four cycle flows' hosts send at (default 200 Gb/s)
    void SetHostRate(DataRate rate);
    /// \param bytes each cycle QP's write (default 4 MiB)
    void SetFlowBytes(uint64_t bytes);
    /// \param bytes the bottleneck flow's write (default 16 MiB)
    void SetBottleneckBytes(uint64_t bytes);
    /// \param on sample the ports' queues and pauses over the run (ClosDeadlockResult::series)
    void SetSeries(bool on);

    /**
     * \param bottleneck add the bottleneck flow
     * \return what happened (the simulation is destroyed afterwards)
     */
    ClosDeadlockResult Run(bool bottleneck);

  private:
    uint32_t m_bufferBytes{2 << 20};      //!< switch buffer
    DataRate m_hostRate{"200Gbps"};       //!< cycle hosts' rate
    uint64_t m_flowBytes{4 << 20};        //!< per cycle QP
    uint64_t m_bottleneckBytes{16 << 20}; //!< bottleneck flow
    bool m_series{false};                 //!< sample the ports
};

} // namespace ns3

#endif /* CLOS_DEADLOCK_SCENARIO_H */
