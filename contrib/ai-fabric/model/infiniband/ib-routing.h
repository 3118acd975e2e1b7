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
 * the result has exactly one port per (switch, reachable destination).
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
};

} // namespace ns3

#endif /* IB_ROUTING_H */
