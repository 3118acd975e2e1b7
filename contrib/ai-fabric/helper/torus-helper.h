/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TORUS_HELPER_H
#define TORUS_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"

#include <string>
#include <vector>

namespace ns3
{

class FabricHelper;

/**
 * \ingroup ai-fabric
 * \brief Builds a 2D or 3D torus (or mesh) of switches with GPUs attached, on a FabricHelper
 *        (RoCEv2 or InfiniBand).
 *
 * One switch sits at every coordinate (x, y) or (x, y, z); it links to its neighbour one step
 * up each dimension, and with wrap-around (a torus, the default) the last switch of a
 * dimension links back to the first. A dimension of size 2 has one link between its two
 * switches, wrap-around or not. GetGpusPerSwitch() GPUs hang off every switch. Ranks are
 * coordinate-major: the switch at linear index i = x + X (y + Y z) holds ranks
 * i x gpusPerSwitch .. (i + 1) x gpusPerSwitch - 1. Switches are named "torus<x>-<y>[-<z>]"
 * and GPUs "gpu<rank>" (a name already in use is left alone). Install() creates the nodes,
 * cables them and computes the routes: dimension-order routing (the default,
 * DimensionOrderRoutingEngine) with dateline classes (the default on a torus), or the
 * fabric's own engine (ECMP shortest paths on RoCEv2, the subnet manager's engine on
 * InfiniBand). With datelines on RoCEv2, Install() makes the dateline priority lossless on
 * every switch.
 *
 * With SetRouterInGpu(true) (one GPU per switch), each switch is the GPU's own router, as in
 * a TPU pod's chips: the GPU-to-router link is on the chip, as fast as all of the router's
 * ports together (two per dimension, one in a dimension of size 2; a mesh's edge routers leave
 * one idle) and with no cable delay.
 */
class TorusHelper
{
  public:
    TorusHelper();

    /// \param dims the size of each dimension (2 or 3 dimensions, each at least 2)
    void SetDimensions(std::vector<uint32_t> dims);

    /// \param wrap true (the default): a torus; false: a mesh
    void SetWrap(bool wrap);

    /// \param gpus GPUs per switch (default 1)
    void SetGpusPerSwitch(uint32_t gpus);

    /**
     * \brief Split the nodes over MPI ranks (ns-3's system ids): the switches in contiguous
     *        blocks of their linear index (slabs of the torus), each GPU with its switch.
     *        Check() fails if there are more ranks than switches.
     * \param ranks the number of ranks (default 1)
     */
    void SetRanks(uint32_t ranks);

    /// \return one line: the switches and GPUs each rank holds (after Install())
    std::string GetSplit() const;

    /**
     * \param dimension a dimension
     * \param rate the line rate of its links (default: the fabric's DataRate)
     */
    void SetDimensionRate(uint32_t dimension, DataRate rate);

    /// \param dor true (the default): dimension-order routing; false: the fabric's own engine
    void SetDimensionOrderRouting(bool dor);

    /// \param datelines true (the default): dateline classes on a torus's rings
    void SetDatelines(bool datelines);

    /// \param inGpu true: each switch is its GPU's on-chip router (needs one GPU per switch)
    void SetRouterInGpu(bool inGpu);

    /// \return true if dimension-order routing is used
    bool IsDimensionOrderRouting() const;

    /// \return true if the rings get dateline classes (dimension order on a torus)
    bool HasDatelines() const;

    /// \return true if each switch is its GPU's router
    bool IsRouterInGpu() const;

    /// \return an empty string, or what makes the torus impossible (one line)
    std::string Check() const;

    /**
     * \brief Build the torus (aborts if Check() is not empty).
     * \param fabric the fabric helper
     */
    void Install(FabricHelper& fabric);

    /// \return the dimensions
    const std::vector<uint32_t>& GetDimensions() const;

    /// \return switches
    uint32_t GetNSwitches() const;

    /// \return GPUs
    uint32_t GetNGpus() const;

    /// \return GPUs per switch
    uint32_t GetGpusPerSwitch() const;

    /// \return switch-to-switch links
    uint32_t GetNSwitchLinks() const;

    /**
     * \param coords a coordinate per dimension
     * \return the switch there
     */
    Ptr<Node> GetSwitch(const std::vector<uint32_t>& coords) const;

    /**
     * \param index a switch's linear index
     * \return its coordinates
     */
    std::vector<uint32_t> GetCoordinates(uint32_t index) const;

    /**
     * \param coords a coordinate per dimension
     * \return the switch's linear index
     */
    uint32_t GetIndex(const std::vector<uint32_t>& coords) const;

    /**
     * \param coords a switch's coordinates
     * \param local a GPU of that switch
     * \return the GPU
     */
    Ptr<Node> GetGpu(const std::vector<uint32_t>& coords, uint32_t local = 0) const;

    /// \return every GPU, in rank order
    NodeContainer GetGpus() const;

    /**
     * \brief The GPUs in the rank order of a placement, for a communicator.
     *
     * - "linear": coordinate order (GetGpus()); a ring's neighbours are one hop apart.
     * - "stride": along X every other switch first (x = 0, 2, 4, ... on every line), then the
     *   rest. A ring's neighbours sit two hops apart and every X link carries two flows that
     *   go on to the next link: the tornado pattern that loads a ring's cyclic dependency
     *   (Dally and Towles, Principles and Practices of Interconnection Networks, 3.2).
     * - "random": a permutation drawn from the seed, as a scheduler unaware of the torus
     *   places ranks.
     *
     * \param placement linear, stride or random
     * \param seed the random placement's seed
     * \return the GPUs in that order
     */
    NodeContainer GetGpus(const std::string& placement, uint64_t seed = 1) const;

    /**
     * \param placement a name
     * \return true if GetGpus() knows it
     */
    static bool IsPlacement(const std::string& placement);

    /// \return every switch, in linear index order
    NodeContainer GetSwitches() const;

    /// \return one line: dimensions, wrap, switches, GPUs, links
    std::string Summary() const;

  private:
    std::vector<uint32_t> m_dims{4, 4}; //!< sizes
    bool m_wrap{true};                  //!< torus or mesh
    uint32_t m_gpusPerSwitch{1};        //!< GPUs per switch
    uint32_t m_ranks{1};                //!< MPI ranks the nodes are split over
    std::vector<DataRate> m_rates;      //!< per dimension (0: the fabric's)
    bool m_dor{true};                   //!< dimension-order routing
    bool m_datelines{true};             //!< dateline classes
    bool m_routerInGpu{false};          //!< switches are the GPUs' routers
    NodeContainer m_switches;           //!< by linear index
    NodeContainer m_gpus;               //!< by rank
};

} // namespace ns3

#endif /* TORUS_HELPER_H */
