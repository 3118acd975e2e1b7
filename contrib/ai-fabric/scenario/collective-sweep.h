/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_SWEEP_H
#define COLLECTIVE_SWEEP_H

#include "ns3/collective-algorithm.h"
#include "ns3/collective-plan.h"
#include "ns3/collective-tuner.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;

/**
 * \ingroup ai-fabric
 * What a sweep runs: nccl-tests' flags.
 */
struct CollectiveSweepConfig
{
    CollectiveType type{CollectiveType::ALL_REDUCE}; //!< the collective (-o)
    std::string algorithm{"ring"};                   //!< algorithm name, or "auto"
    std::string protocol{"auto"}; //!< "simple", "ll", "ll128", or "auto" (the tuner's candidates)
    uint64_t minBytes{32 << 20};  //!< first size (-b)
    uint64_t maxBytes{32 << 20};  //!< last size (-e)
    uint64_t stepFactor{2};       //!< size multiplier (-f)
    uint32_t iterations{5};       //!< timed iterations per size (-n)
    uint32_t warmup{1};           //!< untimed iterations first (-w)
    bool progress{true};          //!< progress line on stderr
    uint32_t gpusPerServer{0};    //!< GPUs per server (hierarchical algorithms; 0: one server)
    bool serverAwareRing{false};  //!< rings follow NCCL's server-aware order
    std::string torusDims;        //!< the rank grid of --algo=torus ("4x4x4"; empty: squarest)
};

/**
 * \ingroup ai-fabric
 * One row of the table: one size.
 */
struct CollectiveSweepRow
{
    uint64_t bytes{0};     //!< size (bytes, nccl-tests' convention)
    uint64_t count{0};     //!< elements of 4-byte floats
    std::string algorithm; //!< algorithm used
    std::string protocol;  //!< protocol used ("Simple", "LL", "LL128")
    double timeUs{0};      //!< mean time of the timed iterations (slowest rank)
    double algbwGBps{0};   //!< bytes / time (GB = 1e9 B)
    double busbwGBps{0};   //!< algbw x nccl-tests' factor
};

/**
 * \ingroup ai-fabric
 * \brief An nccl-tests style sweep: for each size from minBytes to maxBytes (times
 * stepFactor), warm-up iterations then timed iterations of a collective on every rank.
 *
 * Every iteration starts on all ranks at once when the previous one has finished on all
 * ranks, so each time is the slowest rank's; a size's time is the mean over its timed
 * iterations. algbw = size / time and busbw = algbw x BusBandwidthFactor(), as nccl-tests
 * computes them. Sizes are rounded down to what the collective can split evenly: a multiple
 * of 4 bytes (one float), and of 4 x ranks for all-gather, reduce-scatter and all-to-all.
 */
class CollectiveSweep
{
  public:
    /**
     * \param collectives the installed communicators
     * \param tuner picks the algorithm of each size when the configuration says "auto"
     * \param config the sweep (its algorithm must run its collective: see
     *        CollectiveTuner::Create())
     */
    CollectiveSweep(CollectiveHelper& collectives,
                    const CollectiveTuner& tuner,
                    const CollectiveSweepConfig& config);

    /**
     * \brief The sweep of nccl-tests' flags, checked: a bad value exits with status 2 and one
     *        line naming the flag (FabricCli::Fail).
     * \param program the program's name
     * \param type the collective
     * \param algorithm the algorithm's name, or "auto"
     * \param minBytes --minBytes (-b)
     * \param maxBytes --maxBytes (-e), not below minBytes
     * \param stepFactor --stepFactor (-f), 2 or more
     * \param iters --iters (-n), 1 or more
     * \param warmup --warmup (-w)
     * \param quiet no progress line
     * \return the configuration
     */
    static CollectiveSweepConfig FromFlags(const std::string& program,
                                           CollectiveType type,
                                           const std::string& algorithm,
                                           const std::string& minBytes,
                                           const std::string& maxBytes,
                                           const std::string& stepFactor,
                                           const std::string& iters,
                                           const std::string& warmup,
                                           bool quiet);

    /// \return the sizes the sweep runs, after rounding
    std::vector<uint64_t> GetSizes() const;

    /**
     * \brief Make every size's schedule, open the connections, and schedule the sweep at the
     *        current simulation time (call before Simulator::Run()).
     */
    void Schedule();

    /// \return the rows, once the simulation has run
    const std::vector<CollectiveSweepRow>& GetRows() const;

    /// \return true once every size is done
    bool IsDone() const;

    /// \return when the last iteration of the last size finished (the sweep's end; the
    ///         simulator's clock may run further on timers that expire without effect)
    Time GetEndTime() const;

    /**
     * \brief Print the rows as nccl-tests prints them, then the average bus bandwidth.
     * \param os the stream
     * \param rows the rows
     * \param type the collective
     */
    static void PrintTable(std::ostream& os,
                           const std::vector<CollectiveSweepRow>& rows,
                           CollectiveType type);

    /**
     * \param rows the rows
     * \return the mean busbw over the rows (nccl-tests' "Avg bus bandwidth")
     */
    static double AverageBusBandwidth(const std::vector<CollectiveSweepRow>& rows);

  private:
    /// Start the next iteration, or the next size, or finish.
    void Next();

    /**
     * \param start when the iteration started
     * \param end when the slowest rank finished
     */
    void IterationDone(Time start, Time end);

    /// Print the progress line.
    void Progress();

    /// Every PROGRESS_CHECK_US of simulated time: print the progress line if it is due.
    void ProgressTick();

    /// Simulated time between checks of the wall clock for the progress line (us)
    static constexpr int64_t PROGRESS_CHECK_US = 100;
    /// Wall time between progress lines within one size (s)
    static constexpr double PROGRESS_WALL_S = 10.0;

    CollectiveHelper& m_collectives;              //!< communicators
    const CollectiveTuner& m_tuner;               //!< chooses for "auto"
    CollectiveSweepConfig m_config;               //!< the sweep
    std::vector<Ptr<CollectiveSchedule>> m_plans; //!< one schedule per size
    std::vector<CollectiveSweepRow> m_rows;       //!< finished sizes
    std::size_t m_size{0};                        //!< current size index
    uint32_t m_iteration{0};                      //!< current iteration (warm-up first)
    Time m_timed;                                 //!< sum of timed iterations of the current size
    bool m_done{false};                           //!< every size done
    Time m_end;                                   //!< when the last iteration finished
    std::chrono::steady_clock::time_point m_wallStart;    //!< wall clock at Schedule()
    std::chrono::steady_clock::time_point m_lastProgress; //!< wall clock at the last line
    uint64_t m_tickEvents{0}; //!< events executed at the last progress tick
};

} // namespace ns3

#endif /* COLLECTIVE_SWEEP_H */
