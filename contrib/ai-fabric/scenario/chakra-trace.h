/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef CHAKRA_TRACE_H
#define CHAKRA_TRACE_H

#include "ns3/gpu-compute-model.h"
#include "ns3/workload.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief MLCommons Chakra execution traces (schema 1.0.x, ``et_def.proto``): one file per
 * rank, a length-delimited GlobalMetadata message and then length-delimited Node messages,
 * read from protobuf's wire format and turned into a Workload.
 *
 * A node becomes an operation of its rank: a GPU compute node (COMP_NODE) a compute operation
 * of its duration_micros, or, with a "num_ops" attribute, of those FLOPs on the GPU's roofline;
 * a memory node (MEM_LOAD_NODE, MEM_STORE_NODE) a compute operation moving its "tensor_size"
 * bytes; a collective node (COMM_COLL_NODE) with "comm_type" and "comm_size" a collective of
 * every rank (all-reduce, all-gather, reduce-scatter, broadcast, all-to-all; a barrier an
 * all-reduce of no bytes); a send or receive node (COMM_SEND_NODE, COMM_RECV_NODE) a transfer to
 * or from "comm_dst" or "comm_src" of "comm_size" bytes. CPU operations ("is_cpu_op" true) and
 * collective nodes without a size (the host's side of a call) become operations that take no
 * time but keep their place in the dependencies. Data and control dependencies both order a
 * node after an earlier one (a smaller id: ids are the recorder's order); a dependency on the
 * node itself, on a later one or on one the trace does not hold (real traces have all three:
 * the MLCommons trace has 383 self-dependencies and dependencies both ways between nodes) is
 * dropped. Nodes are listed in dependency order, by id where free.
 */
class ChakraTrace
{
  public:
    /// An attribute's value, as far as the reader uses it.
    struct Value
    {
        bool isString{false}; //!< a string (else a number)
        std::string text;     //!< the string
        uint64_t bits{0};     //!< an integer's 64 bits (a signed one in two's complement)
        double number{0};     //!< the value as a number
    };

    /// One node of a trace.
    struct Node
    {
        uint64_t id{0};                     //!< its id
        std::string name;                   //!< its name
        uint32_t type{0};                   //!< NodeType
        std::vector<uint64_t> deps;         //!< data and control dependencies (ids)
        uint64_t durationMicros{0};         //!< its duration
        std::map<std::string, Value> attrs; //!< its attributes
    };

    /// Chakra's NodeType values.
    enum NodeType : uint32_t
    {
        METADATA_NODE = 1,  //!< metadata
        MEM_LOAD_NODE = 2,  //!< memory load
        MEM_STORE_NODE = 3, //!< memory store
        COMP_NODE = 4,      //!< compute
        COMM_SEND_NODE = 5, //!< send
        COMM_RECV_NODE = 6, //!< receive
        COMM_COLL_NODE = 7, //!< collective
    };

    /**
     * \param path a trace file
     * \param metadata set to the GlobalMetadata's attributes
     * \param nodes set to its nodes, in file order
     * \param error set to one line when it returns false
     * \return false if the file cannot be read or is not a Chakra trace
     */
    static bool ReadFile(const std::string& path,
                         std::map<std::string, Value>& metadata,
                         std::vector<Node>& nodes,
                         std::string& error);

    /**
     * \param nodes a rank's nodes
     * \param rank the rank
     * \param nRanks the ranks of the workload
     * \param gpu costs nodes given in FLOPs or bytes
     * \param ops set to the rank's operations
     * \param error set to one line when it returns false
     * \param dropped set to the dependencies dropped (on the node itself, a later node, or one
     *        the trace does not hold)
     * \return false if a node cannot be run
     */
    static bool ToOps(const std::vector<Node>& nodes,
                      uint32_t rank,
                      uint32_t nRanks,
                      const GpuComputeModel& gpu,
                      std::vector<WorkloadOp>& ops,
                      std::string& error,
                      uint64_t& dropped);

    /**
     * \brief Read the traces PREFIX.0.et .. PREFIX.(n-1).et into a workload of n ranks.
     * \param prefix the files' prefix
     * \param nRanks the ranks
     * \param gpu costs nodes given in FLOPs or bytes
     * \param workload set to the workload (checked)
     * \param error set to one line when it returns false
     * \return false if a file cannot be read or the workload cannot run
     */
    static bool Read(const std::string& prefix,
                     uint32_t nRanks,
                     const GpuComputeModel& gpu,
                     Workload& workload,
                     std::string& error);
};

} // namespace ns3

#endif /* CHAKRA_TRACE_H */
