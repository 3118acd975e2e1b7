/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FLOW_FILE_SCENARIO_H
#define FLOW_FILE_SCENARIO_H

#include "fabric-graph.h"
#include "roce-flow-scenario.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The flows of an HPCC-style flow file on an imported fabric (ai-fabric-custom
 *        --graph=FILE --flows=FILE): each flow an RDMA write from its start time, its flow
 *        completion time reported in HPCC's fct.txt format.
 */
class FlowFileScenario
{
  public:
    /// A flow of the file.
    struct Flow
    {
        uint32_t src{0};   //!< source node (the graph's node index)
        uint32_t dst{0};   //!< destination node
        uint32_t pg{3};    //!< priority group (kept for the output)
        uint32_t dport{0}; //!< destination port (kept for the output)
        uint64_t bytes{0}; //!< size
        Time start;        //!< start time
    };

    /**
     * \brief Read HPCC's flow file: a first line with the count N, then N lines
     *        "src dst pg dport size start_time" (start in seconds), node ids the graph's.
     * \param path the file
     * \param graph the fabric (the ids must be its GPUs)
     * \param flows filled
     * \return empty, or why not (one line)
     */
    static std::string ReadFlows(const std::string& path,
                                 const FabricGraph& graph,
                                 std::vector<Flow>& flows);

    /**
     * \brief The configuration of the run: the graph's GPUs as hosts (in order), its switches,
     *        host links and switch-to-switch links with their rates and delays (those the file
     *        gives none: cfg.rate and cfg.cable), and the flows.
     * \param graph the fabric (checked)
     * \param flows the flows
     * \param cfg filled (its link-control settings left as they are)
     */
    static void Configure(const FabricGraph& graph,
                          const std::vector<Flow>& flows,
                          RoceFlowScenarioConfig& cfg);

    /**
     * \brief The IPv4 address HPCC's simulator gives node i (0x0b000001 + 256 x i, carried
     *        into the third octet), as its fct.txt prints it.
     * \param node a node index
     * \return the address
     */
    static uint32_t HpccAddress(uint32_t node);

    /**
     * \brief Each flow's line of HPCC's fct.txt: "sip dip sport dport size start_ns fct_ns
     *        standalone_fct_ns" (addresses in hex), sport 10000 up per source as HPCC counts.
     * \param graph the fabric
     * \param flows the flows, as read
     * \param r the run
     * \param cfg its configuration
     * \param wireEfficiency payload bytes per wire byte of a full packet (the fabric's)
     * \param os where to write
     * \return false if a flow did not finish (its line has fct 0)
     */
    static bool WriteFct(const FabricGraph& graph,
                         const std::vector<Flow>& flows,
                         const RoceFlowScenarioResult& r,
                         const RoceFlowScenarioConfig& cfg,
                         double wireEfficiency,
                         std::ostream& os);

    /**
     * \brief ai-fabric-custom with --flows: parse, run, print; the program's exit status.
     * \param program the program's name
     * \param argc arguments
     * \param argv arguments
     * \return exit status
     */
    static int Main(const std::string& program, int argc, char* argv[]);
};

} // namespace ns3

#endif /* FLOW_FILE_SCENARIO_H */
