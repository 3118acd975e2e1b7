/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_PROCESS_POOL_H
#define FABRIC_PROCESS_POOL_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Runs a program's independent runs (a sweep's cases, a benchmark's points) in child
 *        processes, up to a number at once, and hands their outcomes back in the runs' order.
 *
 * Run() forks one child per run, in the runs' order, with at most GetJobs() alive at a time.
 * In the child, standard output and standard error are pipes to the parent; the child runs
 * the program's function for its run, whose return value is its exit status, and ends with
 * _exit() after flushing stdio and the iostreams (so no atexit handler and no destructor of
 * the parent's objects runs in it). The function may also exec another program. A child dies
 * with its parent (PR_SET_PDEATHSIG), so that killing the program (Ctrl-C, SIGTERM) leaves no
 * orphan; it holds no descriptor of its siblings' pipes, and an uncommitted output file of the
 * parent's is not its to remove (FabricOutputFile::DisownTemporaries).
 *
 * The parent reads every child's pipes as it writes, reaps it with wait4() (its resources
 * are its own) and calls the program's done function with the run's index and outcome in the
 * runs' order, whatever order the children ended in: with the same outcomes, the program
 * prints the same output with one job or many. When done returns false the pool stops: the
 * children still alive are killed (SIGKILL) and reaped, and no further run starts.
 */
class FabricProcessPool
{
  public:
    /// What one child did.
    struct Outcome
    {
        std::string out;        //!< what it wrote to standard output
        std::string err;        //!< what it wrote to standard error
        int status{0};          //!< its wait status (WIFEXITED, WEXITSTATUS, WIFSIGNALED, ...)
        double wallS{0};        //!< wall time from fork to exit (s)
        double cpuS{0};         //!< user and system CPU time (s)
        double peakRssMb{0};    //!< peak resident set (MB of 1,024 KiB)
        bool killed{false};     //!< killed at the time limit (SetTimeLimit)
        std::string startError; //!< why it could not be started (pipe or fork failed), or empty
    };

    /// Runs in the child: the run's index in, the child's exit status out.
    using Child = std::function<int(std::size_t)>;
    /// Runs in the parent, in the runs' order: false stops the pool.
    using Done = std::function<bool(std::size_t, const Outcome&)>;

    /// The most children a pool runs at once (each holds two pipes of the parent's).
    static constexpr uint32_t MAX_JOBS = 256;

    /**
     * \param jobs children alive at once, 1 to MAX_JOBS
     */
    explicit FabricProcessPool(uint32_t jobs);

    /// \return children alive at once
    uint32_t GetJobs() const;

    /**
     * \brief Kill a child (SIGKILL) that has run longer than this; its outcome says killed.
     * \param seconds wall time from fork (0: no limit, the default)
     */
    void SetTimeLimit(double seconds);

    /**
     * \brief Run the runs 0 .. n - 1, each in a child.
     * \param n how many
     * \param child what a child does for its run
     * \param done what the parent does with each outcome, in the runs' order
     * \return how many outcomes done was given
     */
    std::size_t Run(std::size_t n, const Child& child, const Done& done);

  private:
    uint32_t m_jobs;        //!< children alive at once
    double m_timeLimitS{0}; //!< kill after (s), 0: never
};

} // namespace ns3

#endif /* FABRIC_PROCESS_POOL_H */
