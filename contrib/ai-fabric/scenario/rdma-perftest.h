/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_PERFTEST_H
#define RDMA_PERFTEST_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What an ai-fabric-perftest run does (the flags of the example).
 */
struct RdmaPerftestConfig
{
    std::string fabric{"roce"};   //!< fabric: roce
    std::string test{"write_bw"}; //!< write_bw or write_lat
    uint64_t size{0};             //!< message bytes (0: perftest's default for the test)
    uint64_t iterations{0};       //!< messages per QP (0: perftest's default)
    uint32_t qps{1};              //!< queue pairs (write_bw)
    uint32_t txDepth{128};        //!< outstanding writes per QP (perftest -t)
    DataRate rate{"400Gb/s"};     //!< link rate
    uint32_t mtu{4096};           //!< payload MTU
    uint32_t switches{1};         //!< switches between the hosts (0: back to back)
    double lossRate{0.0};         //!< random loss probability per frame and link
    std::string pcapPrefix;       //!< pcap file prefix (empty: none)

    /**
     * \brief Check the values and fill the defaults that depend on the test.
     * \return an error message, or an empty string if the configuration is valid
     */
    std::string Validate();
};

/**
 * \ingroup ai-fabric
 * Latency statistics (microseconds).
 */
struct RdmaLatencyStats
{
    double min{0};     //!< smallest sample
    double typical{0}; //!< median, as perftest's t_typical
    double avg{0};     //!< mean
    double max{0};     //!< largest sample
    double stdev{0};   //!< population standard deviation
    double p99{0};     //!< 99th percentile (nearest rank)
    double p999{0};    //!< 99.9th percentile (nearest rank)
};

/**
 * \ingroup ai-fabric
 * What an ai-fabric-perftest run measured.
 */
struct RdmaPerftestResult
{
    double bwPeakGbps{0};       //!< best average over any run of consecutive messages
    double bwAvgGbps{0};        //!< all bytes / (last completion - first post)
    double msgRateMpps{0};      //!< messages per microsecond
    RdmaLatencyStats lat;       //!< write_lat: one-way latency (RTT / 2); write_bw: post to
                                //!< completion of each message
    uint64_t packets{0};        //!< data packets sent, retransmissions included
    uint64_t retransmits{0};    //!< data packets sent again
    uint64_t timeouts{0};       //!< retransmission timer expiries
    uint64_t naks{0};           //!< NAKs received
    uint64_t deliveredBytes{0}; //!< bytes delivered in order at the responders
    uint64_t expectedBytes{0};  //!< bytes the test posted
    uint64_t drops{0};          //!< frames dropped anywhere (by any reason)
    uint64_t events{0};         //!< simulator events executed
    Time simTime;               //!< simulated time at the end
    std::string error;          //!< a transport error that ended the test (empty if none)
};

/**
 * \ingroup ai-fabric
 * \brief perftest's ib_write_bw and ib_write_lat, run on a simulated fabric.
 *
 * Two hosts connected back to back or through a chain of switches. write_bw: each QP posts
 * its writes keeping TX-depth of them outstanding, as ib_write_bw does. write_lat: the two
 * hosts write to each other in turn (ping-pong) and each round trip gives one sample of
 * RTT / 2, as ib_write_lat does.
 */
class RdmaPerftest
{
  public:
    /**
     * \param config a validated configuration
     */
    explicit RdmaPerftest(const RdmaPerftestConfig& config);

    /**
     * \brief Build the fabric, run the test and destroy the simulation.
     * \return the measurements
     */
    RdmaPerftestResult Run();

    /**
     * \brief Print the report as perftest prints it.
     * \param os the stream
     * \param result the measurements
     */
    void PrintReport(std::ostream& os, const RdmaPerftestResult& result) const;

    /**
     * \param result the measurements
     * \return the JSON document of ../shared/DESIGN.md section 5 (pretty-printed)
     */
    std::string ToJson(const RdmaPerftestResult& result) const;

  private:
    RdmaPerftestConfig m_config; //!< what to run
};

} // namespace ns3

#endif /* RDMA_PERFTEST_H */
