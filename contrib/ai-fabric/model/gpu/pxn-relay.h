/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PXN_RELAY_H
#define PXN_RELAY_H

#include "collective-plan.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Where one GPU of a communicator sits: its server's NVLink domain, its device index in the
 * server, and its NIC.
 */
struct PxnPlace
{
    int64_t domain{-1}; //!< NVLink domain (server); -1: none
    uint32_t device{0}; //!< the GPU's index in its server (NCCL's nvmlDev)
    uint64_t nic{0};    //!< its NIC's id (GPUs sharing a NIC have the same id)
};

/**
 * \ingroup ai-fabric
 * \brief NCCL's PXN (PCI x NVLink) for one communicator: a point-to-point transfer to a GPU
 * of another server leaves by the NIC of the sender's server that serves the destination's
 * device index, forwarded there over NVLink by the GPU next to that NIC.
 *
 * NCCL (NCCL_P2P_PXN_LEVEL=2, its default, ncclTopoGetNetDev) sends to a peer of another
 * node through the NIC local to this node's GPU with the peer's device index; the GPU that
 * NIC serves first (ncclTopoGetLocalGpu) is the proxy: the sender writes into its memory over
 * NVLink and the proxy's NIC puts the data on the wire. On a rail-optimized fabric every
 * transfer then stays on the destination's rail. Where the communicator has no GPU of the
 * peer's device index on this server, or the sender has no NVLink, the sender's own NIC sends.
 *
 * Route() rewrites a peer-to-peer plan (CollectiveSchedule::IsPeerToPeer(): all-to-all, MoE
 * all-to-all, send/receive) once, transfer by transfer: a relayed transfer becomes an NVLink
 * transfer to the proxy and, when it has arrived there, the proxy's transfer to the
 * destination. The relay pipelines at the plan's piece size. Other schedules are unchanged.
 * The proxy must be one of the communicator's ranks: a send/receive on a communicator of its
 * two ranks (as the workload runner and the serving run make them) is never relayed.
 */
class PxnRelay : public SimpleRefCount<PxnRelay>
{
  public:
    /**
     * \param places each rank's place, by communicator rank
     */
    explicit PxnRelay(std::vector<PxnPlace> places);

    /**
     * \param src sending rank
     * \param dst receiving rank
     * \return the rank whose NIC sends src's data to dst (src itself: no relay)
     */
    uint32_t GetProxy(uint32_t src, uint32_t dst) const;

    /**
     * \brief The schedule to run in place of schedule: its PXN form if it is a peer-to-peer
     *        plan of this communicator's size with a relayed transfer (made once, then kept),
     *        schedule itself otherwise.
     * \param schedule a schedule
     * \return the schedule to run
     */
    Ptr<const CollectiveSchedule> Route(Ptr<const CollectiveSchedule> schedule);

    /**
     * \brief The PXN form of a plan (every relayed transfer in two).
     * \param plan a finalized plan of this communicator's size
     * \return the new plan, or nullptr if no transfer is relayed
     */
    Ptr<CollectivePlan> Rewrite(const CollectivePlan& plan) const;

  private:
    std::vector<PxnPlace> m_places; //!< by rank
    /// (domain, device) -> rank
    std::unordered_map<uint64_t, uint32_t> m_byDevice;
    /// NIC id -> the communicator's first rank (lowest device) it serves
    std::unordered_map<uint64_t, uint32_t> m_firstOfNic;
    /// schedules seen -> what runs (held, so that no other schedule takes the address)
    std::unordered_map<const CollectiveSchedule*,
                       std::pair<Ptr<const CollectiveSchedule>, Ptr<CollectivePlan>>>
        m_routed;
};

} // namespace ns3

#endif /* PXN_RELAY_H */
