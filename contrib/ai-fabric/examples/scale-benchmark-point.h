/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef SCALE_BENCHMARK_POINT_H
#define SCALE_BENCHMARK_POINT_H

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup ai-fabric
 * One point of ai-fabric-scale-benchmark, in the child process the program runs for it: the
 * fat-tree of DGX H100 servers built (with every device at packet level; without devices,
 * FlowFabric, at the flow level), one all-reduce run, its result printed as one JSON line.
 * The parent (ai-fabric-scale-benchmark.cc) passes a point as PointArguments() and reads the
 * line.
 */

namespace ns3
{
namespace scalebenchmark
{

/// The program's name.
inline const std::string PROGRAM = "ai-fabric-scale-benchmark";
/// The first argument that makes the program run one point (internal: the parent passes it).
inline const std::string POINT_OPTION = "--internal-point";
/// The server of the ladder.
inline const std::string SERVER = "dgx-h100";
/// Ports per switch (default).
constexpr uint32_t RADIX = 64;
/// Exit status of a point that ran out of memory.
constexpr int EXIT_OUT_OF_MEMORY = 4;
/// What one point is asked to run.
struct PointSpec
{
    uint32_t servers{2};        //!< DGX H100 servers
    uint64_t bytes{0};          //!< all-reduce size
    std::string algo{"ring"};   //!< ring or auto
    std::string scheduler;      //!< ns-3 SchedulerType (inside the watchdog)
    std::string simulator;      //!< ns-3 SimulatorImplementationType
    double maxWallTimeS{0};     //!< the point's wall-time limit (0: none)
    uint64_t maxMemoryBytes{0}; //!< the point's address-space limit (0: none)
    uint32_t ranks{1};          //!< MPI ranks (1: one process)
    std::string mode{"packet"}; //!< the engine: packet or flow
    uint32_t tiers{2};          //!< fat-tree tiers
    uint32_t radix{RADIX};      //!< ports per switch
    bool hugePages{true};       //!< the child's heap on transparent huge pages (--hugePages)
};

/**
 * \param seconds a time (s)
 * \return it as text, exactly enough to read back
 */
std::string SecondsText(double seconds);

/**
 * \param spec a point
 * \return the internal options that make the program run it (POINT_OPTION first)
 */
std::vector<std::string> PointArguments(const PointSpec& spec);

/**
 * \brief The child's side: parse PointArguments() and run the point.
 * \param argc argument count
 * \param argv the program's name, then PointArguments()
 * \return the exit status: 0; 2 if the tree cannot be built; FailureReport::EXIT_STALLED if
 *         the point could not complete; EXIT_OUT_OF_MEMORY
 */
int PointMain(int argc, char* argv[]);

} // namespace scalebenchmark
} // namespace ns3

#endif /* SCALE_BENCHMARK_POINT_H */
