/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_PLOT_H
#define FABRIC_PLOT_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Figures of a program's result (--plot=DIR, and ai-fabric-plot / ./ns3 plot from a
 *        saved --json result): each figure the result's JSON holds the numbers for, as
 *        NAME.dat (the numbers, in gnuplot's blocks, at full precision), NAME.plt (the script,
 *        written by ns-3's Gnuplot helper) and NAME.png and NAME.svg (rendered by gnuplot).
 *
 * The figures are drawn from the JSON document alone, so a run's --plot and ai-fabric-plot of
 * its saved --json give the same files. Which figures a document gives:
 *
 * - "results" (the nccl-tests style sweeps): busbw and time against size, log axes, one line
 *   per algorithm that ran (busbw, time);
 * - "links": every link's utilization, one row per kind of link (a fat-tree's tiers, a torus's
 *   dimensions, NVLink), one column per link (links);
 * - "series" (the congestion examples' time series): each watched port's queue (queues), each
 *   flow's congestion-control rate and delivered throughput (rates), and each flow's sender
 *   paused or not (pause).
 */
class FabricPlot
{
  public:
    /// A figure written.
    struct Figure
    {
        std::string name; //!< its files' stem, e.g. "busbw"
        std::string what; //!< one line saying what it shows
    };

    /**
     * \brief Check a --plot target before anything runs: the directory, or its parent if it
     *        does not exist yet (Write() makes it), must be writable, and gnuplot must be on
     *        the PATH. Nothing is created: a run refused later leaves nothing behind.
     * \param dir the directory
     * \return empty, or why not (one line)
     */
    static std::string Prepare(const std::string& dir);

    /**
     * \brief Write every figure the result holds the numbers for.
     * \param result a program's JSON output
     * \param dir a directory Prepare() accepted (made if it does not exist)
     * \param figures filled: the figures written, in order (may be null)
     * \return empty, or why a file could not be written or rendered (one line)
     */
    static std::string Write(const nlohmann::ordered_json& result,
                             const std::string& dir,
                             std::vector<Figure>* figures = nullptr);

    /**
     * \brief The kind of a link, from its name "<sender>-><receiver>" (node names): the kinds
     *        of its ends ("gpu->leaf", "leaf->spine", "gpu->nvswitch"), or for a link between
     *        two torus switches "torus<a>-<b>-..." the dimension in which they differ ("torus
     *        X", "torus Y", ...).
     * \param link a link's name
     * \return its kind
     */
    static std::string LinkKind(const std::string& link);
};

} // namespace ns3

#endif /* FABRIC_PLOT_H */
