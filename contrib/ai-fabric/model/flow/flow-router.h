/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FLOW_ROUTER_H
#define FLOW_ROUTER_H

#include "flow-network.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A switch on a flow's way, for the fixed cost its last packet pays there.
 */
struct FlowHop
{
    double inSecondsPerByte{0};  //!< serialization on the link it arrives by (s/byte)
    double outSecondsPerByte{0}; //!< serialization on the link it leaves by (s/byte)
    Time latency;                //!< the switch's port-to-port latency
    bool cutThrough{false};      //!< cut-through: latency counts from the packet's first bit
};

/**
 * \ingroup ai-fabric
 * \brief What a transfer from one GPU to another crosses and pays at the flow level: resolved
 *        once per connection and direction.
 *
 * A message of B payload bytes goes as packets of up to Unit payload bytes, each adding
 * PerPacket wire bytes (headers, trailers, preamble and gap), plus PerMessage bytes once
 * (RETH, immediate data), its payload stretched by 1/Efficiency (NVLink's protocol). Its flow
 * carries those wire bytes on the path's links. When the flow is done, the last packet still
 * crosses the cables and the switches after the first link: the arrival delay.
 */
struct FlowRoute
{
    uint32_t path{0};                //!< the FlowNetwork path (data, and the ACKs' way back)
    uint32_t connection{UINT32_MAX}; //!< the router's connection (Retrace()); none over NVLink
    bool forward{true};              //!< from the connection's first rank to its second
    bool nvlink{false};              //!< over NVLink (else the NIC)
    uint32_t unit{4096};             //!< payload bytes per packet (MTU, NVLink transfer unit)
    uint32_t perPacket{0};           //!< wire bytes each packet adds
    uint32_t perMessage{0};          //!< wire bytes a message adds once
    uint32_t perLast{0};    //!< of those, the bytes its last packet carries (one packet: all)
    double efficiency{1.0}; //!< payload share of the wire after the protocol
    uint32_t lanes{1};      //!< ports the sender sprays packets over (NVLink), else 1
    double firstSecondsPerByte{0}; //!< serialization of the sender's link(s) together (s/byte)
    /// NVLink unicast: each port a message's packets are sprayed over, as the hop its packets
    /// take (the port's serialization in, the switch's port to the receiver out); empty: the
    /// ports alike (firstSecondsPerByte together, then hops).
    std::shared_ptr<const std::vector<FlowHop>> lanePorts;
    Time fixed;                //!< sender's NIC latency and every cable's delay
    std::vector<FlowHop> hops; //!< the switches, in order
    Time rxLatency;            //!< from the last bit's arrival to the receiver's notification
    // The ACK of the last packet (NIC routes; none over NVLink).
    bool acked{false};                //!< the sender completes on the ACK (else when sent)
    uint32_t ackBytes{0};             //!< wire bytes of an ACK
    double ackFirstSecondsPerByte{0}; //!< serialization of the receiver's link (s/byte)
    Time ackFixed;                    //!< the cables back
    std::vector<FlowHop> ackHops;     //!< the switches back
    Time ackRxLatency;                //!< the sender's NIC, from the ACK to the completion
    Time retransmitTimeout;           //!< the sender's QP's (a reroute's resumption)

    /**
     * \param bytes payload bytes of a message
     * \return its wire bytes
     */
    uint64_t WireBytes(uint64_t bytes) const;

    /**
     * \param bytes payload bytes of a message
     * \return its packets (at least one)
     */
    uint64_t Packets(uint64_t bytes) const;

    /**
     * \param bytes payload bytes of a message
     * \return from its flow's end to its last bit at the receiver's port
     */
    Time ArrivalDelay(uint64_t bytes) const;

    /**
     * \brief A message alone on idle ports (lanePorts): each packet in turn on the port free
     *        first, as the packet level's ports take them.
     * \param bytes its payload
     * \param send set to when its last packet has left the sender (s)
     * \param arrival set to when its last packet has reached the receiver, cables aside (s)
     */
    void Spray(uint64_t bytes, double& send, double& arrival) const;

    /**
     * \param bytes payload bytes of a message
     * \return from its flow's end to the sender's completion
     */
    Time CompletionDelay(uint64_t bytes) const;

    /**
     * \param bytes payload bytes of a message
     * \return the fastest its flow may go (wire bytes/s): a sender that sprays packets over
     *         lanes ports, one packet on each at a time, uses no more ports than the message
     *         has packets; infinite on one lane
     */
    double MaxRate(uint64_t bytes) const;
};

/**
 * \ingroup ai-fabric
 * \brief Where the flow level's transfers go: the links of a fabric as a FlowNetwork, and the
 *        route of each connection between two GPUs.
 */
class FlowRouter : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \return the network its routes' paths are in
    virtual Ptr<FlowNetwork> GetNetwork() const = 0;

    /**
     * \param a a rank
     * \param b another
     * \return true if they reach each other over NVLink
     */
    virtual bool IsNvLinkPeer(uint32_t a, uint32_t b) const = 0;

    /**
     * \param rank a rank
     * \return its NVLink domain (its server; -1: it has no NVLink)
     */
    virtual int64_t GetNvLinkDomain(uint32_t rank) const = 0;

    /**
     * \brief A rank's NVLink ports as links, for NVLS (reductions and multicasts in the
     *        switch).
     * \param rank a rank
     * \param out its NVLink egress (all ports together)
     * \param in its NVLink ingress
     * \param route the fixed costs of a packet through the switch (its path unused)
     * \return false if the rank has no NVLink or its switch no NVLS engines
     */
    virtual bool GetNvls(uint32_t rank, uint32_t& out, uint32_t& in, FlowRoute& route) = 0;

    /**
     * \brief Open a connection (one channel's, between two ranks): resolve both directions.
     * \param a a rank
     * \param b another
     * \param channel the channel
     * \param ab a to b
     * \param ba b to a
     * \param error why there is no route, if there is none
     * \return false if there is none
     */
    virtual bool Resolve(
        uint32_t a, uint32_t b, uint32_t channel, FlowRoute& ab, FlowRoute& ba, std::string& error)
        = 0;

    /**
     * \param link a link of the network
     * \return its name: the sending node's name (or "node<id>") and the port's index, as
     *         "leaf3/12"; a GPU's NVLink ports together "gpu5/nvlink-out" and
     *         "gpu5/nvlink-in", its NIC's PCIe "gpu5/pcie"
     */
    virtual std::string GetLinkName(uint32_t link) const = 0;

    /// Told when the routes may have changed (a failure's reroute).
    class Listener
    {
      public:
        virtual ~Listener() = default;
        /// Retrace the routes held (Retrace()), and move their flows to the new paths.
        virtual void RoutesChanged() = 0;
    };

    /**
     * \param listener told at each reroute (not owned: it must outlive the router's use)
     */
    void AddListener(Listener* listener);

    /**
     * \brief Follow a route again over the fabric's current tables.
     * \param route a route Resolve() gave (updated in place if it changed: its path and fixed
     *        costs)
     * \return true if it changed; false if not, or if there is no route now (the flows on it
     *         stay where they are: stalled while a link of theirs is down)
     */
    virtual bool Retrace(FlowRoute& route);

  protected:
    void DoDispose() override;

    /// Tell every listener that the routes may have changed.
    void NotifyRoutesChanged();

  private:
    std::vector<Listener*> m_listeners; //!< AddListener()
};

} // namespace ns3

#endif /* FLOW_ROUTER_H */
