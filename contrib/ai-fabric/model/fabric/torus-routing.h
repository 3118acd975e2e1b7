/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TORUS_ROUTING_H
#define TORUS_ROUTING_H

#include "fabric-routing.h"
#include "ns3/node.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Dimension-order routing on a torus or mesh of switches, with dateline classes.
 *
 * A packet corrects its first coordinate that differs from the destination switch's, then
 * the next, and so on (X, then Y, then Z), each along the shorter way round the ring (ties go
 * up). It never turns back into a dimension it left, so dependencies between dimensions
 * have no cycle; within a ring, the links of one direction form a cycle.
 *
 * With Datelines on (tori only), every switch also gets, per destination, the class of the
 * next hop: class 0 while the packet still has to cross its ring's wrap-around link (the
 * dateline) in the current dimension, class 1 once it has crossed it or never needs to. A
 * packet never moves from class 1 back to class 0 within a ring, so neither class has a
 * cycle (Dally and Seitz, IEEE Trans. Computers 1987). Fabrics carry the class as a virtual
 * lane (InfiniBand) or a PFC priority (RoCEv2).
 *
 * The engine routes only over links that are up. Dimension-order routing has no detour: the
 * switch at a failed link has no route to the destinations whose path crosses it (the
 * switches before it still forward toward it, and those packets are dropped there as
 * NoRoute); FabricHelper::FindMissingRoute() finds such holes after a reroute.
 */
class DimensionOrderRoutingEngine : public FabricRoutingEngine
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Describe the torus.
     * \param dims size of each dimension
     * \param wrap true for a torus, false for a mesh
     * \param switches the switch at each linear index x + X (y + Y z)
     */
    void SetGeometry(const std::vector<uint32_t>& dims,
                     bool wrap,
                     const std::vector<Ptr<Node>>& switches);

    FabricRouteTable Compute(const FabricTopology& topology) const override;

  private:
    std::vector<uint32_t> m_dims;      //!< sizes
    bool m_wrap{true};                 //!< torus or mesh
    std::vector<Ptr<Node>> m_switches; //!< by linear index
    bool m_datelines{false};           //!< give dateline classes
};

} // namespace ns3

#endif /* TORUS_ROUTING_H */
