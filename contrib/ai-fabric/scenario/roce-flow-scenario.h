/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_FLOW_SCENARIO_H
#define ROCE_FLOW_SCENARIO_H

#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/nstime.h"
#include "scenario-options.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One RDMA WRITE flow of a scenario: a QP pair from host src to host dst.
 */
struct RoceFlowSpec
{
    uint32_t src{0};   //!< sending host
    uint32_t dst{0};   //!< receiving host
    uint64_t bytes{0}; //!< bytes to write
    Time start;        //!< when the writes are posted
};

/**
 * \ingroup ai-fabric
 * A RoCEv2 fabric of hosts and switches carrying a set of flows: the congestion studies
 * (incast, DCQCN convergence, PFC head-of-line blocking) are configurations of it.
 */
struct RoceFlowScenarioConfig
{
    std::string fabric{"roce"};                        //!< "roce" or "ib"
    uint32_t switches{1};                              //!< switch count
    std::vector<std::pair<uint32_t, uint32_t>> trunks; //!< switch-to-switch links
    std::vector<uint32_t> hostSwitch;                  //!< the switch of each host
    std::vector<RoceFlowSpec> flows;                   //!< the flows
    std::vector<uint32_t> watchHosts; //!< watch the switch port that sends to each of these
    DataRate rate{"400Gbps"};         //!< every link's rate
    Time cable{NanoSeconds(10)};      //!< every cable's one-way delay
    /// Per host, its link's rate (empty, or 0 for a host: rate)
    std::vector<DataRate> hostRates;
    /// Per host, its cable's delay (empty, or negative for a host: cable)
    std::vector<Time> hostCables;
    /// Per switch-to-switch link, its rate (empty, or 0 for a link: rate)
    std::vector<DataRate> trunkRates;
    /// Per switch-to-switch link, its delay (empty, or negative for a link: cable)
    std::vector<Time> trunkCables;
    uint32_t mtu{4096};             //!< RDMA path MTU (bytes)
    uint64_t messageBytes{1 << 20}; //!< a flow posts writes of at most this size
    uint64_t bufferBytes{0};        //!< switch buffer (0: the MMU's default)
    bool pfc{true};                 //!< PFC on the lossless priority
    bool ecn{true};                 //!< ECN marking at switch egress
    bool dcqcn{false};              //!< DCQCN at the NICs (else no congestion control)
    std::string dcqcnPreset;        //!< "", "paper" or "connectx" (empty: attribute defaults)
    bool ibcc{false};               //!< IB congestion control (FECN/BECN/CCT; fabric "ib")
    uint32_t ibccThreshold{8};      //!< the switch markers' Threshold when ibcc is on (1-15)
    /// Another congestion control, by name or TypeId (RdmaCcRegistration), when neither
    /// dcqcn nor ibcc is on; empty: none
    std::string cc;
    uint32_t ecnKmin{0}; //!< Kmin of every port's marker (0: the attribute's default)
    uint32_t ecnKmax{0}; //!< the markers' Kmax (0: default)
    double ecnPmax{-1};  //!< the markers' Pmax (negative: default)
    Time sampleInterval; //!< time-series period (0: none)
    /// Run until every flow's last write completed at its requester (its last ACK back), not
    /// only until its bytes were delivered (the flow completion time HPCC's simulator reports)
    bool untilCompletion{false};
    Time stopTime; //!< stop the run here (0: when every flow is done)
};

/**
 * \ingroup ai-fabric
 * What one flow did.
 */
struct RoceFlowResult
{
    RoceFlowSpec spec;          //!< the flow
    uint64_t delivered{0};      //!< bytes delivered in order to the receiver
    Time finish;                //!< when the last byte was delivered (done only)
    bool done{false};           //!< every byte delivered
    Time completed;             //!< when its last write completed at the requester
    bool complete{false};       //!< every write completed at the requester
    uint64_t cnpsReceived{0};   //!< CNPs at the sender
    uint64_t pausesReceived{0}; //!< PFC frames the sender's NIC received (RoCEv2)
    double creditStallUs{0};    //!< time the sender waited for credits (InfiniBand)
};

/**
 * \ingroup ai-fabric
 * What a watched switch port (toward a host) did.
 */
struct RocePortResult
{
    uint32_t host{0};           //!< the host it sends to
    uint64_t dataWireBytes{0};  //!< line bytes of RDMA data frames sent
    Time firstData;             //!< first data frame started
    Time lastData;              //!< last data frame ended
    double utilization{0};      //!< data line time / (lastData - firstData)
    uint32_t maxQueueBytes{0};  //!< high-water mark of its RDMA queue
    uint64_t ecnMarks{0};       //!< frames it marked
    uint32_t ecnKmin{0};        //!< its ECN Kmin in force (bytes)
    uint32_t ecnKmax{0};        //!< its ECN Kmax in force (bytes)
    uint64_t pausesSent{0};     //!< PFC pauses it sent (to the host)
    uint64_t pausesReceived{0}; //!< PFC frames it received (from the host)
};

/**
 * \ingroup ai-fabric
 * One row of the time series.
 */
struct RoceSample
{
    Time time;                          //!< end of the interval
    std::vector<uint32_t> queueBytes;   //!< RDMA queue of each watched port
    std::vector<double> rateGbps;       //!< congestion-control rate of each flow's sender QP
    std::vector<double> throughputGbps; //!< each flow's delivered payload rate in the interval
    std::vector<uint8_t> paused;        //!< each flow's sender NIC paused (RDMA priority)
};

/**
 * \ingroup ai-fabric
 * The outcome of a run.
 */
struct RoceFlowScenarioResult
{
    FabricTotals totals;               //!< fabric counters
    uint64_t headroomDrops{0};         //!< lossless frames beyond the PFC headroom (a bug)
    uint64_t switchPausesSent{0};      //!< PFC pauses sent by switches
    std::vector<RoceFlowResult> flows; //!< per flow
    std::vector<RocePortResult> ports; //!< per watched port
    std::vector<RoceSample> samples;   //!< the time series
    Time simTime;                      //!< simulated time at the end
    uint64_t events{0};                //!< events executed
};

/**
 * \ingroup ai-fabric
 * \brief Builds and runs a RoceFlowScenarioConfig.
 */
class RoceFlowScenario
{
  public:
    /**
     * At most this many values in a run's time series (8 bytes each: 200 MB). A run of known
     * length (a stop time) that would record more is refused by Check(); a run of unknown
     * length (until its flows finish) merges pairs of samples and halves its sampling rate
     * each time it reaches the bound.
     */
    static constexpr uint64_t MAX_SAMPLE_VALUES = 25000000;

    /**
     * \param cfg a configuration
     * \return values recorded per sample: rate, throughput and pause state per flow, the queue
     *         of each watched port, the time
     */
    static uint64_t SampleValues(const RoceFlowScenarioConfig& cfg);

    /**
     * \brief Check a configuration.
     * \param cfg the configuration
     * \return empty if it can be run, else what is wrong, in one line
     */
    static std::string Check(const RoceFlowScenarioConfig& cfg);

    /**
     * \brief Run it (the simulator is destroyed afterwards).
     * \param cfg a configuration Check() accepts
     * \return the outcome
     */
    static RoceFlowScenarioResult Run(const RoceFlowScenarioConfig& cfg);

    /**
     * \brief Jain's fairness index of a set of rates: (sum x)^2 / (n sum x^2).
     * \param x the rates
     * \return the index, 1 for equal rates (and for an empty or all-zero set)
     */
    static double JainIndex(const std::vector<double>& x);

    /**
     * \brief The flows' average delivered rates over a window of the time series.
     * \param r a run's result
     * \param from window start
     * \param to window end
     * \return per flow, Gb/s
     */
    static std::vector<double> MeanThroughput(const RoceFlowScenarioResult& r, Time from, Time to);

    /**
     * \brief Write the time series as CSV: time_us, then queue_bytes_h<host> per watched port,
     *        then rate_gbps_f<i>, thr_gbps_f<i>, paused_f<i> per flow.
     * \param r a run's result
     * \param path the file
     * \return false if it cannot be written (through FabricOutputFile: a temporary beside it,
     *         renamed over it)
     */
    static bool WriteCsv(const RoceFlowScenarioResult& r, const std::string& path);

    /**
     * \brief The same time series, to a stream.
     * \param r a run's result
     * \param out the stream
     */
    static void WriteCsv(const RoceFlowScenarioResult& r, std::ostream& out);

    /**
     * \brief The JSON of a run: "fabric" (DESIGN.md section 5), "flows" (src, dst, bytes,
     *        delivered, start_us, finish_us, gbps, cnps, pauses_received), "ports" (the
     *        watched ports) and "sim" (sim_time_us, events).
     * \param r a run's result
     * \return the object
     */
    static nlohmann::ordered_json ToJson(const RoceFlowScenarioResult& r);

    /**
     * \brief Print the flows as a table, then the fabric counters, one per line.
     * \param r a run's result
     * \param os where
     */
    static void Print(const RoceFlowScenarioResult& r, std::ostream& os);
};

/**
 * \ingroup ai-fabric
 * \brief The command-line options the congestion examples share (ai-fabric-incast,
 *        ai-fabric-dcqcn, ai-fabric-pfc-hol), their checks and their output files.
 *
 * Each bad value ends the program with one line on stderr and exit status 2; the JSON file is
 * written to a temporary name and renamed at the end, so nothing is half-written.
 */
class RoceScenarioCli
{
  public:
    /**
     * \param program the program's name, for messages
     * \param defaults the example's defaults (rate, pfc, ecn, dcqcn, preset, ...)
     */
    RoceScenarioCli(std::string program, const RoceFlowScenarioConfig& defaults);

    /**
     * \brief Declare the shared options: the fabric and its settings, the congestion control,
     *        the link, and the output files.
     * \param options the program's flags
     */
    void Declare(ScenarioOptions& options) const;

    /**
     * \brief Check the parsed options and apply them to a configuration; fail on bad input.
     * \param options the parsed flags
     * \param cfg the configuration
     */
    void Apply(const ScenarioOptions& options, RoceFlowScenarioConfig& cfg);

    /**
     * \brief Write the outputs asked for: the JSON (the example's own keys, such as "scenario"
     *        and "summary", then those of RoceFlowScenario::ToJson) and the time-series CSV.
     * \param r the result
     * \param head the example's own keys
     * \return false (after a line on stderr) if a file could not be written
     */
    bool WriteOutputs(const RoceFlowScenarioResult& r, nlohmann::ordered_json head);

    /// \return true if --trace asks for a time series
    bool WantsTrace() const;

  private:
    std::string m_program;            //!< for messages
    RoceFlowScenarioConfig m_default; //!< the example's defaults
    std::string m_json;               //!< --json
    std::string m_trace;              //!< --trace
    std::string m_plot;               //!< --plot
    FabricOutputFile m_jsonFile;      //!< --json, open from Apply() on
    FabricOutputFile m_traceFile;     //!< PREFIX.csv of --trace, open from Apply() on
};

} // namespace ns3

#endif /* ROCE_FLOW_SCENARIO_H */
