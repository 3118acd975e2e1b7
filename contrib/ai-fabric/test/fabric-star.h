/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_FABRIC_STAR_H
#define AI_FABRIC_TEST_FABRIC_STAR_H

#include "ns3/node-container.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

#include <cstdint>
#include <functional>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The tests' smallest fabric: hosts around one switch, built by a fabric helper
 * (RoceFabricHelper or IbFabricHelper), host i on the switch's port i, routes computed.
 */
template<class Helper>
struct FabricStar
{
    /**
     * \param n hosts
     * \param configure called on the helper before anything is installed (may be empty)
     */
    explicit FabricStar(uint32_t n, const std::function<void(Helper&)>& configure = {})
    {
        if (configure)
        {
            configure(fabric);
        }
        hosts.Create(n);
        sw.Create(1);
        fabric.InstallHosts(hosts);
        fabric.InstallSwitches(sw);
        for (uint32_t i = 0; i < n; ++i)
        {
            fabric.Connect(hosts.Get(i), sw.Get(0));
        }
        fabric.ComputeRoutes();
    }

    /**
     * \brief Connect a queue pair from one host to another.
     * \param from the requester's host index
     * \param to the responder's host index
     * \return the requester's queue pair and the responder's
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(uint32_t from, uint32_t to)
    {
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(from));
        Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(to));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        return {a, b};
    }

    NodeContainer hosts; //!< the hosts
    NodeContainer sw;    //!< the switch
    Helper fabric;       //!< the fabric
};

} // namespace ns3

#endif /* AI_FABRIC_TEST_FABRIC_STAR_H */
