/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_ROUTING_H
#define IB_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The subnet manager's min-hop routing (OpenSM's "minhop"): for every switch and every
 * destination, one port on a shortest path; among equal ports, the one that carries the
 * fewest destinations so far (destinations in LID order, ties to the lowest port), so that
 * routes spread evenly over parallel links.
 *
 * An InfiniBand switch forwards by a linear table, one output port per destination LID, so
 * the result has exactly one port per (switch, reachable destination LID): with LMC > 0
 * (attribute Lmc) a destination has 2^LMC LIDs, listed in LID order, and its LIDs take
 * different ports where several are on a shortest path (as OpenSM spreads them).
 */
class IbMinHopRoutingEngine : public FabricRoutingEngine
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricRouteTable Compute(const FabricTopology& topology) const override;

  private:
    uint32_t m_lmc{0}; //!< LID mask control: 2^m_lmc LIDs per destination
};

/**
 * \ingroup ai-fabric
 * \brief Fat-tree routing (OpenSM's "ftree"), as d-mod-k: switches are ranked by their
 * distance from the hosts (leaves 1, then 2, 3); towards a destination below, the one
 * shortest downward port; upward, of the switch's shortest-path up-ports (in port order) the
 * one at index (d / D) mod u, where d is the destination's index (LID - 1), u the number of
 * candidates and D the product of the up-port counts of the ranks below. Every destination
 * then has its own route down from the top, and the destinations spread evenly over every
 * switch's up-links. Outside a fat-tree it still gives every pair a shortest path.
 */
class IbFatTreeRoutingEngine : public FabricRoutingEngine
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricRouteTable Compute(const FabricTopology& topology) const override;

  private:
    uint32_t m_lmc{0}; //!< LID mask control: 2^m_lmc LIDs per destination
};

/**
 * \brief Up-down routing (OpenSM's "updn"): switches are ranked by their distance from the
 * root switches (the ones farthest from the hosts: a fat-tree's top); a link is "up" towards
 * the lower rank (the node id breaks ties). A route may go up, then down, never down then up,
 * so that no cycle of credit dependencies can form, whatever the topology. A switch's one
 * table serves packets that came up and packets that came down, so it routes down only
 * whenever a down-only route exists (the shortest), and up then down otherwise; among equal
 * ports it chooses as min-hop does (fewest destinations so far).
 */
class IbUpDownRoutingEngine : public FabricRoutingEngine
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricRouteTable Compute(const FabricTopology& topology) const override;

  private:
    uint32_t m_lmc{0}; //!< LID mask control: 2^m_lmc LIDs per destination
};

} // namespace ns3

#endif /* IB_ROUTING_H */
