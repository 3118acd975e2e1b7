/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_GRAPH_H
#define FABRIC_GRAPH_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A fabric described in a file: GPUs (each with one NIC, its one link), switches and
 *        the links between them, each link with its rate and delay if the file gives them.
 *
 * Read from GraphML and Graphviz DOT (Boost.Graph's readers) and from the topology text files
 * of the HPCC and SimAI ns-3 simulators (Read()); Check() says what cannot be built or routed.
 */
struct FabricGraph
{
    /// A node.
    struct Node
    {
        std::string name;   //!< its ns-3 name
        bool gpu{false};    //!< a GPU (a host with one NIC), else a switch or a server
        bool server{false}; //!< a server: a preset's GPUs in an NVLink domain, a NIC each
        std::string preset; //!< a server's preset (ServerHelper), e.g. dgx-h100
        uint32_t gpus{1};   //!< a server's GPUs (its preset's); 1 for a GPU
    };

    /// A link (a cable, both directions).
    struct Link
    {
        uint32_t a{0};        //!< one end (index in nodes)
        uint32_t b{0};        //!< the other
        DataRate rate;        //!< its rate (if rateSet)
        bool rateSet{false};  //!< the file gave the rate
        Time delay;           //!< its propagation delay (if delaySet)
        bool delaySet{false}; //!< the file gave the delay
        int32_t nic{-1};      //!< at a server's end: which of its GPUs' NIC (its rail)
    };

    std::string format;      //!< graphml, dot, hpcc or simai
    std::vector<Node> nodes; //!< in the file's order
    std::vector<Link> links; //!< in the file's order

    /**
     * \param path a file
     * \param format graphml, dot, hpcc, simai, or auto (by the name's ending: .graphml, .xml;
     *        .dot, .gv; otherwise the text format, HPCC's or SimAI's by its first line)
     * \param graph filled
     * \return empty, or why the file cannot be read (one line)
     */
    static std::string Read(const std::string& path, const std::string& format, FabricGraph& graph);

    /**
     * \brief What a fabric needs of the graph: at least two GPUs; each GPU with exactly one
     *        link, to a switch (its NIC); each server with a link per GPU, each naming its
     *        GPU (nic), to switches; hosts all GPUs or all servers of one preset; no link
     *        from a node to itself; every host reachable from every other.
     * \return empty, or why not (one line naming the node)
     */
    std::string Check() const;

    /// \return the hosts' indices (GPUs, or servers), in the file's order (rank order)
    std::vector<uint32_t> GetGpus() const;

    /// \return the ranks: every host's GPUs, hosts in the file's order
    uint32_t GetNRanks() const;

    /// \return the servers' preset, or "" if the hosts are single GPUs
    std::string GetServerPreset() const;

    /**
     * \return the most switches on a shortest path from the first GPU to another GPU
     *         (the tuner's hop count)
     */
    uint32_t GetSwitchHops() const;

    /// What a breadth-first search from a host finds (only switches forward).
    struct Reach
    {
        std::vector<uint32_t> hops; //!< per node, links from the host (UINT32_MAX: unreached)
        std::vector<uint32_t> via;  //!< per node, the link it was reached by (UINT32_MAX: none)
    };

    /**
     * \param from a host
     * \return the nodes it reaches by fewest links, through switches, and how
     */
    Reach Search(uint32_t from) const;
};

} // namespace ns3

#endif /* FABRIC_GRAPH_H */
