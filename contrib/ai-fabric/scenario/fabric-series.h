/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_SERIES_H
#define FABRIC_SERIES_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace ns3
{

class CollectiveHelper;
struct CollectiveTransfer;
class FabricNetDevice;

/**
 * \param sorted samples in increasing order (not empty)
 * \param q a quantile in (0, 1]
 * \return the nearest-rank quantile: the sample of rank ceil(q n), at least the first
 */
double NearestRank(const std::vector<double>& sorted, double q);

/**
 * \ingroup ai-fabric
 * \brief The time series of a collective run, for its figures (--plot): every port's output
 *        queue, the share of each interval it was paused by PFC and stalled for credits, and
 *        the payload bytes the ranks have received.
 *
 * Samples every Interval, starting at 1 us; when MAX_SAMPLES are kept, pairs are merged (the
 * larger queue, the later cumulative times and bytes) and the interval doubles, so a run of
 * any length keeps between MAX_SAMPLES / 2 and MAX_SAMPLES. Sampling reads the ports and adds
 * one event per interval; it stops when the run is done. The JSON keeps the ports that saw a
 * queue, a pause or a stall: the TOP_PORTS with the highest peak of each.
 */
class FabricSeriesSampler
{
  public:
    /// Samples kept at most.
    static constexpr uint32_t MAX_SAMPLES = 1024;
    /// Ports kept in the JSON per measure (queue, pause, stall).
    static constexpr uint32_t TOP_PORTS = 8;

    /**
     * \brief Watch every fabric port of every node and the ranks' arrivals; sample until done.
     * \param collectives the ranks' communicators
     * \param done true when the run is over (sampling stops)
     */
    void Start(const CollectiveHelper& collectives, Callback<bool> done);

    /**
     * \brief Watch every fabric port of every node (no ranks: no progress series); sample
     *        until done.
     * \param done true when the run is over (sampling stops)
     */
    void Start(Callback<bool> done);

    /**
     * \return the series: time_us, progress_bytes (payload received by all ranks so far, when
     *         the ranks are watched) and
     *         ports (name, queue_bytes, paused and stalled: the share of each interval);
     *         null if nothing was sampled
     */
    nlohmann::ordered_json ToJson() const;

  private:
    /// Take a sample, and schedule the next unless the run is done.
    void Sample();
    /// \param transfer a message that arrived at a rank
    void Arrived(const CollectiveTransfer& transfer);

    std::vector<Ptr<FabricNetDevice>> m_ports;  //!< the watched ports
    Callback<bool> m_done;                      //!< the run is over
    Time m_interval;                            //!< the sampling period now
    uint64_t m_received{0};                     //!< payload bytes received so far
    bool m_ranks{false};                        //!< the ranks\' arrivals are watched
    std::vector<double> m_time;                 //!< per sample, us
    std::vector<double> m_progress;             //!< per sample, bytes received so far
    std::vector<std::vector<uint64_t>> m_queue; //!< per port, per sample: bytes queued
    std::vector<std::vector<double>> m_paused;  //!< per port, per sample: paused so far (us)
    std::vector<std::vector<double>> m_stalled; //!< per port, per sample: stalled so far (us)
};

} // namespace ns3

#endif /* FABRIC_SERIES_H */
