/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_ROUTING_H
#define FABRIC_ROUTING_H

#include "fabric-topology.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Routes computed for a whole fabric: for every switch vertex and every endpoint index, the
 * output ports (interface indices of the switch's port devices) toward that endpoint.
 * Non-switch vertices have no entries.
 */
class FabricRouteTable
{
  public:
    /**
     * \param nVertices vertices in the topology
     * \param nEndpoints endpoints in the topology
     */
    FabricRouteTable(uint32_t nVertices, uint32_t nEndpoints);

    /**
     * \param vertex a switch vertex
     * \param endpoint an endpoint index
     * \return the output ports
     */
    const std::vector<uint32_t>& GetPorts(uint32_t vertex, uint32_t endpoint) const;

    /**
     * \param vertex a switch vertex
     * \return its table: output ports for each endpoint index
     */
    const std::vector<std::vector<uint32_t>>& GetSwitchTable(uint32_t vertex) const;

    /**
     * \param vertex a switch vertex
     * \param endpoint an endpoint index
     * \param port an output port to add
     */
    void AddPort(uint32_t vertex, uint32_t endpoint, uint32_t port);

    /**
     * \brief Set the class (0 or 1) a switch gives packets toward an endpoint: the virtual
     *        lane or priority a torus's dateline rule picks for the next hop.
     * \param vertex a switch vertex
     * \param endpoint an endpoint index
     * \param cls the class
     */
    void SetClass(uint32_t vertex, uint32_t endpoint, uint8_t cls);

    /// \return true if some entry has a class (an engine with datelines filled them)
    bool HasClasses() const;

    /**
     * \param vertex a switch vertex
     * \return its classes by endpoint index (all 0 without datelines)
     */
    std::vector<uint8_t> GetSwitchClasses(uint32_t vertex) const;

  private:
    std::vector<std::vector<std::vector<uint32_t>>> m_ports; //!< [vertex][endpoint] -> ports
    std::vector<std::vector<uint8_t>> m_classes; //!< [vertex][endpoint] -> class (lazily sized)
};

/**
 * \ingroup ai-fabric
 * \brief A routing engine: turns the fabric graph into switch tables.
 *
 * Engines differ in which paths they choose (all shortest paths for Ethernet ECMP; one path
 * per destination and LID for InfiniBand's engines; dimension order on tori); each subclass
 * writes only Compute().
 */
class FabricRoutingEngine : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Compute routes over the links that are up.
     * \param topology the fabric
     * \return the table of every switch
     */
    virtual FabricRouteTable Compute(const FabricTopology& topology) const = 0;

  protected:
    /**
     * \brief Hop distances to one endpoint over links that are up; paths never transit
     *        another endpoint.
     * \param topology the fabric
     * \param endpoint the destination's endpoint index
     * \return distance of every vertex (UINT32_MAX where unreachable)
     */
    static std::vector<uint32_t> DistancesTo(const FabricTopology& topology, uint32_t endpoint);
};

/**
 * \ingroup ai-fabric
 * \brief Equal-cost multipath over all shortest paths (hop count), as Ethernet fabrics
 * running BGP or OSPF with ECMP do: every switch gets, for every endpoint, every port whose
 * neighbour is one hop closer.
 */
class EcmpRoutingEngine : public FabricRoutingEngine
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

#endif /* FABRIC_ROUTING_H */
