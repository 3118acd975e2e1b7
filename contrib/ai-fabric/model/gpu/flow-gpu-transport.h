/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FLOW_GPU_TRANSPORT_H
#define FLOW_GPU_TRANSPORT_H

#include "gpu-transport.h"
#include "ns3/fabric-fifo.h"
#include "ns3/fabric-flat-map.h"
#include "ns3/flow-network.h"
#include "ns3/flow-router.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The flow engine under the GPU transport: each transfer is a flow on the path the
 *        packet level would take, sharing links max-min fairly (FlowNetwork).
 *
 * A connection (peer, channel) is resolved once by the FlowRouter: the same NIC-to-NIC path
 * as the QP the packet engine would open (same QP numbers, same flow entropy, the switches'
 * tables), or NVLink within a domain. Send() starts a flow of the message's wire bytes. A
 * connection's messages go in order: a QP sends one message's packets after the last of the
 * one before; over NVLink, messages to one peer hold one port per packet, and the next starts
 * when ports are free for it. When the flow is done
 * it is done, the receiver is told after the route's arrival delay (cables, switches, the last
 * packet's serialization after the first link, the NIC's receive latency) and the sender
 * after the ACK's way back (over NVLink: when its bytes left). Flow control, queues, pauses,
 * marks, congestion control and losses are not modelled.
 *
 * NVLS (SendNvls): a GPU's NVLS messages leave in the order its NVLink ports serve them at
 * the packet level: multicasts before contributions, each kind oldest first, each message
 * holding one port per packet, the next starting when ports are free for it. A contribution
 * or a multicast is a flow on its sender's NVLink egress. The switch takes NVLS packets into
 * its engines at once (a busy ingress does not slow an egress) and its output ports send what
 * they hold first come, first served: what an NVLS message puts on a GPU's ingress (a
 * reduction's result once its last contribution is in, a multicast's copy once its flow is
 * done) goes after everything that came to that ingress before it, at the link's rate
 * (ThroughIngress). A reduction's result arrives when it is through its destination's
 * ingress, a multicast when it is through every member's. NVLS bytes on an ingress do not
 * share it max-min with unicast flows there (the port statistics count both).
 */
class FlowGpuTransport
    : public GpuTransport
    , public FlowNetwork::Owner
    , public FlowRouter::Listener
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowGpuTransport();
    ~FlowGpuTransport() override;

    /// What the ranks of one communicator share: each other, and the NVLS operations open.
    struct Shared
    {
        /// An NVLS reduction: its contributions and result.
        struct Reduction
        {
            uint32_t size{0};    //!< ranks contributing
            uint32_t started{0}; //!< contributions whose flows started
            uint32_t open{0};    //!< contributions not finished
            Time lastStart;      //!< when the last contribution started (the result with it)
        };

        std::vector<FlowGpuTransport*> peers; //!< by rank
        FabricFlatMap<Reduction> reductions;  //!< by (destination, tag)
    };

    /**
     * \param rank this GPU's rank
     * \param nRanks ranks in the communicator
     * \param nChannels channels
     * \param node the GPU's node id (the context of its arrivals)
     * \param router the routes (shared by every rank of the communicator)
     * \param shared what the communicator's ranks share (the caller lists every rank in it)
     */
    void Setup(uint32_t rank,
               uint32_t nRanks,
               uint32_t nChannels,
               uint32_t node,
               Ptr<FlowRouter> router,
               std::shared_ptr<Shared> shared);

    bool IsNvLinkPeer(uint32_t peer) const override;
    bool IsConnected(uint32_t peer, uint32_t channel) const override;
    void Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag) override;
    void SendNvls(bool multicast,
                  uint32_t peer,
                  uint64_t bytes,
                  uint32_t tag,
                  uint32_t groupSize,
                  uint32_t groupBase = 0) override;

    void FlowFinished(uint32_t flow, uint64_t cookie) override;

    /**
     * \brief A reroute: retrace this GPU's routes; the flows in flight on one that changed go
     *        on, with the bytes they have left, on its new path.
     */
    void RoutesChanged() override;

    /// \return flows this GPU started
    uint64_t GetFlowsStarted() const;

  protected:
    void DoDispose() override;
    void DoConnect(Ptr<GpuTransport> peer, uint32_t channel) override;

  private:
    /// What a flow of this GPU's carries.
    enum class Kind : uint8_t
    {
        UNICAST,      //!< a transfer to a peer
        MULTICAST,    //!< an NVLS multicast (route: the group's base; peer: its size)
        CONTRIBUTION, //!< an NVLS reduction's contribution (peer: its destination)
    };

    /// A transfer in flight (32 bytes: never across two cache lines).
    struct alignas(32) Transfer
    {
        Kind kind{Kind::UNICAST};  //!< what
        uint32_t route{0};         //!< index in m_routes
        uint32_t peer{0};          //!< receiving rank
        uint32_t tag{0};           //!< tag
        uint64_t bytes{0};         //!< payload
        uint32_t flow{UINT32_MAX}; //!< its flow once started (unicast), until it finishes
    };

    static_assert(sizeof(Transfer) == 32, "a transfer is half a cache line");

    /**
     * \return a slot for a new transfer
     * \param kind what
     * \param route its route (or the multicast's group base)
     * \param peer the receiver (or the multicast's group size)
     * \param bytes payload
     * \param tag tag
     */
    uint32_t NewTransfer(Kind kind, uint32_t route, uint32_t peer, uint64_t bytes, uint32_t tag);

    /**
     * \brief What a message reads of its route, in one cache line (at scale every GPU's state
     *        is cold): its costs for one message size (the last one asked: collectives repeat
     *        sizes), what the route's messages hold and wait, and the route's path, lanes and
     *        kind (copies of its FlowRoute's, kept when it is retraced).
     */
    struct alignas(64) Costs
    {
        uint64_t bytes{UINT64_MAX}; //!< the payload they are for
        uint64_t wire{0};           //!< FlowRoute::WireBytes()
        double maxRate{0};          //!< FlowRoute::MaxRate()
        Time arrival;               //!< FlowRoute::ArrivalDelay() + the receiver's latency
        Time completion;            //!< FlowRoute::CompletionDelay()
        uint32_t packets{0};        //!< FlowRoute::Packets()
        uint16_t lanes{0};          //!< lanes a message of it holds (one on a NIC)
        uint16_t routeLanes{0};     //!< the route's lanes (FlowRoute::lanes)
        uint16_t busy{0};           //!< lanes its messages hold
        bool nvlink{false};         //!< the route is over NVLink
        uint32_t path{0};           //!< the route's path
        uint32_t waiting{0};        //!< messages its queues hold
        uint32_t nextQueue{0};      //!< the queue whose turn is next (in m_routeQueues)
    };

    static_assert(sizeof(Costs) == 64, "a route's costs are one cache line");

    /**
     * \param route a route
     * \param bytes a payload
     * \return its costs on the route
     */
    const Costs& CostsOf(uint32_t route, uint64_t bytes);

    /**
     * \param route a route: copy what its costs keep of it (when it is made or retraced)
     */
    void KeepRoute(uint32_t route);

    /// An NVLS message's costs for one size (the last one asked), in one cache line.
    struct alignas(64) NvlsCosts
    {
        uint64_t bytes{UINT64_MAX}; //!< the payload they are for
        uint64_t wire{0};           //!< FlowRoute::WireBytes()
        uint64_t packets{0};        //!< FlowRoute::Packets()
        double maxRate{0};          //!< FlowRoute::MaxRate()
        Time arrival;               //!< FlowRoute::ArrivalDelay()
        Time completion;            //!< FlowRoute::CompletionDelay()
        uint32_t lanes{0};          //!< NVLink ports its packets hold at once
    };

    /**
     * \param bytes an NVLS message's payload
     * \return its costs on this GPU's NVLS route
     */
    const NvlsCosts& NvlsCostsOf(uint64_t bytes);

    /**
     * \brief Start a unicast transfer's flow.
     * \param slot the transfer
     */
    void StartUnicast(uint32_t slot);

    /**
     * \param slot a unicast transfer
     * \return true if it may start now: its route is idle or has lanes free for it
     */
    bool Fits(uint32_t slot);

    /**
     * \param bytes an NVLS message's payload
     * \return the ports its packets hold at once
     */
    uint32_t NvlsLanes(uint64_t bytes);

    /// Start the NVLS messages whose turn it is and for which ports are free.
    void PumpNvls();

    /**
     * \brief Start an NVLS message's flow on this GPU's egress.
     * \param slot the transfer
     */
    void StartNvls(uint32_t slot);

    /**
     * \brief An NVLS multicast's flow finished: the sender completes, and the copies reach
     *        the members after their ingresses have sent them.
     * \param slot the transfer
     */
    void MulticastFinished(uint32_t slot);

    /**
     * \brief An NVLS message's bytes on this GPU's ingress, served first come, first served
     *        (a fluid FIFO): they began to reach the switch's port at start, the last of them
     *        is there now; they leave after all that came before them, at the link's rate.
     *        Counts them on the link.
     * \param start when its first bytes reached the port
     * \param c the message's costs
     * \return when its last byte has left the port (now at the earliest)
     */
    Time ThroughIngress(Time start, const NvlsCosts& c);

    /// \return the path of this GPU's NVLink egress alone
    uint32_t OutPath();

    /**
     * \param tag a transfer that arrived
     * \param bytes its bytes
     */
    void Deliver(uint32_t tag, uint64_t bytes);

    /**
     * \brief A multicast arrives at every member of its group at once: one event for all (the
     *        members' deliveries in order, each in its node's context, as the events of each
     *        would have run; FabricSimulatorImpl only), bound to the group's first GPU.
     * \param groupBase the group's first rank
     * \param groupSize its ranks
     * \param tag the transfer
     * \param bytes its bytes
     */
    void DeliverGroup(uint32_t groupBase, uint32_t groupSize, uint32_t tag, uint64_t bytes);

    /// \param tag a transfer of this GPU that completed
    void Complete(uint32_t tag);

    /**
     * \brief A stopped flow resumes on its route's path (its QP's retransmission).
     * \param slot its transfer
     * \param flow its flow (nothing happens if the transfer has finished since)
     */
    void Resume(uint32_t slot, uint32_t flow);

    /**
     * \param delay from now to the sender's completion
     * \param tag the transfer
     */
    void CompleteAfter(Time delay, uint32_t tag);

    /**
     * \param peer a connected rank
     * \param channel the connection's channel
     * \return its queue (aborts if not connected)
     */
    uint32_t QueueOf(uint32_t peer, uint32_t channel);

    /**
     * \brief The queue of a connection, made with its route if new: one route per channel to
     *        a peer over the network; over NVLink one route per peer, shared by its channels'
     *        queues (each channel's messages in order, the channels side by side, as the
     *        packet level's NVLink queues).
     * \param peer the peer
     * \param channel the channel
     * \return the queue
     */
    uint32_t AddQueue(FlowGpuTransport* peer, uint32_t channel);

    /**
     * \param peer a rank
     * \param channel a channel
     * \return the key of that connection
     */
    uint64_t Key(uint32_t peer, uint32_t channel) const;

    Ptr<FlowRouter> m_router;                               //!< the routes
    Ptr<FlowNetwork> m_network;                             //!< the router's network
    std::shared_ptr<Shared> m_shared;                       //!< shared by the communicator
    uint32_t m_node{0};                                     //!< node id
    std::vector<FlowRoute> m_routes;                        //!< this GPU's, as the sender
    std::vector<Costs> m_costs;                             //!< by route: costs and state
    std::vector<uint32_t> m_queueRoute;                     //!< by queue: its route
    std::vector<FabricFifo<uint32_t>> m_waiting;            //!< by queue: transfers queued
    std::vector<std::vector<uint32_t>> m_routeQueues;       //!< by route: its queues
    std::unordered_map<uint64_t, uint32_t> m_connections;   //!< (peer, channel) -> queue
    std::unordered_map<uint32_t, uint32_t> m_nvRoutes;      //!< NVLink peer -> route
    std::vector<std::pair<uint32_t, uint32_t>> m_lastRoute; //!< by channel: (peer, queue) last sent
    std::vector<Transfer> m_transfers;                      //!< in flight, by slot
    std::vector<uint32_t> m_freeTransfers;                  //!< slots to reuse
    bool m_hasNvls{false};                                  //!< NVLS engines in its switch
    uint32_t m_nvlsOut{0};                                  //!< its NVLink egress link
    uint32_t m_nvlsIn{0};                                   //!< its NVLink ingress link
    FlowRoute m_nvlsRoute;                                  //!< NVLS packets' fixed costs
    NvlsCosts m_nvlsCosts;                                  //!< NvlsCostsOf()
    FabricFifo<uint32_t> m_nvlsWaiting[2]; //!< NVLS messages not started: multicasts, contributions
    uint32_t m_nvlsBusy{0};                //!< NVLink ports its NVLS messages hold
    std::vector<Time> m_multicastStart;    //!< by slot: when a multicast's flow started
    Time m_ingressFree;                    //!< when its ingress has sent the NVLS bytes it took
    uint32_t m_outPath{UINT32_MAX};        //!< OutPath()
    uint64_t m_flows{0};                   //!< flows started
};

} // namespace ns3

#endif /* FLOW_GPU_TRANSPORT_H */
