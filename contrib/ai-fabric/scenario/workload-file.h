/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef WORKLOAD_FILE_H
#define WORKLOAD_FILE_H

#include "ns3/workload-runner.h"
#include "ns3/workload.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief ai-fabric's JSON workload format, and what a run of one reports.
 *
 * A file is one object (the manual's "Workload files" has the whole format):
 *
 *     {"ranks": 8,
 *      "gpu": "h100",
 *      "communicators": {"tp": [[0, 1, 2, 3], [4, 5, 6, 7]], "dp": [[0, 4], [1, 5]]},
 *      "default": [operations],
 *      "rank_ops": {"3": [operations]}}
 *
 * "default" are the operations of every rank not in "rank_ops". An operation is an object
 * with a "name" (unique on its rank), "deps" (names of operations listed before it) and one
 * of: "compute_us"; "flops" with "bytes" and "dtype" (costed by GpuComputeModel for "gpu");
 * "collective" (allreduce, allgather, reducescatter, broadcast, alltoall) with "bytes" and
 * "comm" (a communicator kind: the group of that kind holding the rank; "all" for every rank)
 * and optionally "algo"; "send" or "recv" (the peer's rank) with "bytes".
 */
class WorkloadFile
{
  public:
    /**
     * \param path the file
     * \param workload set to its workload
     * \param error set to one line when it returns false
     * \return false if the file cannot be read, is not the format, or its workload cannot run
     */
    static bool Read(const std::string& path, Workload& workload, std::string& error);

    /**
     * \param j a parsed document
     * \param workload set to its workload
     * \param error set to one line when it returns false
     * \return false if it is not the format or its workload cannot run
     */
    static bool Parse(const nlohmann::json& j, Workload& workload, std::string& error);

    /**
     * \brief Print a run: the step's time, the slowest rank's breakdown, a row per kind of
     *        operation (count, mean time per rank, mean exposed per rank), and the same per
     *        communicator (WorkloadRunner::CommunicatorName(): a training step's tp, dp, ep,
     *        edp, p2p).
     * \param os the stream
     * \param runner the run
     */
    static void Print(std::ostream& os, const WorkloadRunner& runner);

    /**
     * \param runner the run
     * \return its results: step time, every rank's breakdown, every kind's and every
     *         communicator's totals
     */
    static nlohmann::ordered_json ToJson(const WorkloadRunner& runner);

    /**
     * \brief The run as a Chrome/Perfetto trace: a process per rank, a thread per stream
     *        (compute, each communicator, each peer), an event per operation.
     * \param os the stream
     * \param runner the run
     */
    static void WriteTimeline(std::ostream& os, const WorkloadRunner& runner);
};

} // namespace ns3

#endif /* WORKLOAD_FILE_H */
