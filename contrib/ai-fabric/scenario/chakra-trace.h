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
 *
 * A collective's "pg_name" attribute names its process group, as Chakra's PyTorch converter
 * records it: "" or "0" is every rank (PyTorch's default group); another name is looked up in
 * the communicator groups given to Read() (ASTRA-sim's --comm-group-configuration file: a JSON
 * object of group name to ranks, ReadCommGroups()).
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

    /// Communicator groups by name, each with its workload group index and ranks.
    using Groups = std::map<std::string, std::pair<uint32_t, std::vector<uint32_t>>>;

    /**
     * \brief ToOps() with process groups: a collective whose pg_name is a group's name runs on
     *        that group's communicator (its workload group index).
     * \param nodes a rank's nodes
     * \param rank the rank
     * \param nRanks the ranks of the workload
     * \param gpu costs nodes given in FLOPs or bytes
     * \param groups the groups (an unknown pg_name, or a group without this rank, is an error)
     * \param ops set to the rank's operations
     * \param error set to one line when it returns false
     * \param dropped set to the dependencies dropped
     * \return false if a node cannot be run
     */
    static bool ToOps(const std::vector<Node>& nodes,
                      uint32_t rank,
                      uint32_t nRanks,
                      const GpuComputeModel& gpu,
                      const Groups& groups,
                      std::vector<WorkloadOp>& ops,
                      std::string& error,
                      uint64_t& dropped);

    /**
     * \brief Read a communicator group file: a JSON object whose keys name groups (the
     *        pg_name values) and whose values are their ranks, e.g. {"1": [0, 1], "2": [2, 3]}
     *        (ASTRA-sim's --comm-group-configuration).
     * \param path the file
     * \param nRanks the ranks of the workload
     * \param groups set to the groups, in name order, their indices from 1 (0: every rank)
     * \param error set to one line when it returns false
     * \return false if the file cannot be read, is not such an object, names group "" or
     *         "0" (every rank), a rank twice or one beyond nRanks, or a group of no rank
     */
    static bool ReadCommGroups(const std::string& path,
                               uint32_t nRanks,
                               Groups& groups,
                               std::string& error);

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

    /**
     * \brief Read() with process groups (ReadCommGroups()): the workload's communicators are
     *        every rank (0) and the groups, named "pg NAME".
     * \param prefix the files' prefix
     * \param nRanks the ranks
     * \param gpu costs nodes given in FLOPs or bytes
     * \param groups the groups
     * \param workload set to the workload (checked)
     * \param error set to one line when it returns false
     * \return false if a file cannot be read or the workload cannot run
     */
    static bool Read(const std::string& prefix,
                     uint32_t nRanks,
                     const GpuComputeModel& gpu,
                     const Groups& groups,
                     Workload& workload,
                     std::string& error);
};

} // namespace ns3

#endif /* CHAKRA_TRACE_H */
