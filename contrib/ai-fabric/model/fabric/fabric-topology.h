/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_TOPOLOGY_H
#define FABRIC_TOPOLOGY_H

#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Node;
class FabricNetDevice;
class FabricChannel;

/**
 * \ingroup ai-fabric
 * \brief The graph of a fabric, built by the helpers beside the ns-3 objects.
 *
 * Vertices are endpoints (a NIC port of a host, with its fabric address) and switches; edges
 * are links, each remembering the port device at both ends and the cable. Routing engines
 * read this graph to fill the switches' tables, at setup and again after a failure (a link
 * whose cable is down is skipped).
 */
class FabricTopology : public SimpleRefCount<FabricTopology>
{
  public:
    /// What a vertex is
    enum class Kind : uint8_t
    {
        ENDPOINT, //!< a NIC port; does not forward
        SWITCH    //!< forwards
    };

    /// Vertex properties
    struct Vertex
    {
        Ptr<Node> node;            //!< the node
        Kind kind{Kind::SWITCH};   //!< endpoint or switch
        uint32_t address{0};       //!< fabric address of an endpoint
        uint32_t endpointIndex{0}; //!< dense index among endpoints (endpoints only)
        std::string name;          //!< name in the topology's own terms
    };

    /// Edge properties
    struct Link
    {
        Ptr<FabricNetDevice> portA; //!< port at the edge's source vertex
        Ptr<FabricNetDevice> portB; //!< port at the edge's target vertex
        Ptr<FabricChannel> channel; //!< the cable
    };

    /// The graph type
    typedef boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex, Link> Graph;

    /**
     * \brief Add an endpoint (a NIC port).
     * \param node its node
     * \param address its fabric address
     * \param name its name
     * \return its vertex index
     */
    uint32_t AddEndpoint(Ptr<Node> node, uint32_t address, const std::string& name);

    /**
     * \brief Add a switch.
     * \param node its node
     * \param name its name
     * \return its vertex index
     */
    uint32_t AddSwitch(Ptr<Node> node, const std::string& name);

    /**
     * \brief Add a link.
     * \param a vertex of one end
     * \param b vertex of the other end
     * \param portA port device at a
     * \param portB port device at b
     * \param channel the cable
     */
    void AddLink(uint32_t a,
                 uint32_t b,
                 Ptr<FabricNetDevice> portA,
                 Ptr<FabricNetDevice> portB,
                 Ptr<FabricChannel> channel);

    /// \return the graph
    const Graph& GetGraph() const;

    /// \return number of vertices
    uint32_t GetNVertices() const;
    /// \return number of links
    uint32_t GetNLinks() const;
    /// \return number of endpoints
    uint32_t GetNEndpoints() const;

    /**
     * \param endpointIndex dense endpoint index
     * \return its vertex index
     */
    uint32_t GetEndpointVertex(uint32_t endpointIndex) const;

    /**
     * \param v a vertex index
     * \return its properties
     */
    const Vertex& GetVertex(uint32_t v) const;

    /**
     * \param node a node
     * \return the vertex of the switch on that node, or GetNVertices() if it is not a switch
     */
    uint32_t GetSwitchVertex(Ptr<Node> node) const;

  private:
    Graph m_graph;                        //!< the graph
    std::vector<uint32_t> m_endpoints;    //!< vertex of each endpoint index
    std::vector<uint32_t> m_switchOfNode; //!< vertex by node id, for switch nodes
};

} // namespace ns3

#endif /* FABRIC_TOPOLOGY_H */
