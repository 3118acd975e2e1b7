/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "ns3/fabric-congestion-marker.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-net-device.h"
#include "ns3/ipv4-address.h"
#include "ns3/rdma-transport.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

namespace ns3
{

class RdmaTransport;
class RocePfcWatchdog;
class RocePfc;
class RoceHostInterface;

/**
 * \ingroup ai-fabric
 * Counters of one output queue (one port, one priority).
 */
struct RoceQueueCounters
{
    uint64_t enqueuedPackets{0}; //!< packets accepted
    uint64_t enqueuedBytes{0};   //!< bytes accepted
    uint64_t droppedPackets{0};  //!< packets dropped at the byte limit or by the PFC watchdog
    uint64_t ecnMarked{0};       //!< packets marked CE at dequeue (switch ports)
    uint32_t bytes{0};           //!< bytes queued now
    uint32_t maxBytes{0};        //!< high-water mark
};

/**
 * \ingroup ai-fabric
 * \brief An Ethernet port carrying RoCEv2: a NIC port or a switch port.
 *
 * Frames are real Ethernet II / IPv4 / UDP (destination port 4791) / BTH frames built with
 * ns-3's header classes and ai-fabric's BthHeader, so a capture opens in Wireshark as RoCE.
 * Eight priorities, each an output queue with a byte limit (drop-tail), served by the port's
 * egress scheduler (attribute Scheduler; strict priority, 7 highest, by default). The
 * priority of a frame is its IPv4 DSCP / 8.
 *
 * As a NIC port, it carries an RdmaTransport: data packets are pulled from its QP scheduler
 * in the RDMA priority (DSCP RdmaDscp), ACKs and NAKs are queued in the control priority
 * (DSCP ControlDscp). Frames for the host that are not RoCEv2 are passed to the upper layer
 * (ns-3's internet stack may send through Send()). As a switch port, every received frame is
 * handed to the switch's forwarding callback, and the switch enqueues frames for output with
 * EnqueueForwarded().
 *
 * MAC addresses are derived from IPv4 addresses (02:00 followed by the four address bytes),
 * so no ARP is needed; switches forward by IPv4 address and do not rewrite MACs or TTL.
 */
class RoceNetDevice
    : public FabricNetDevice
    , public RdmaNicPort
    , private FabricEgressClasses
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNetDevice();
    ~RoceNetDevice() override;

    /// Number of priorities (IEEE 802.1p classes)
    static constexpr uint32_t N_PRIORITIES = 8;
    /// RoCEv2's UDP destination port (IBTA Annex A17)
    static constexpr uint16_t ROCEV2_UDP_PORT = 4791;
    /// Ethernet II + IPv4 + UDP bytes before the BTH
    static constexpr uint32_t ENCAPSULATION_BYTES = 14 + 20 + 8;
    /// Preamble and SFD (8), inter-frame gap (12) and FCS (4): line time beyond the frame
    static constexpr uint32_t ETHERNET_OVERHEAD_BYTES = 8 + 12 + 4;
    /// IP MTU of the port (bytes): jumbo frames
    static constexpr uint16_t JUMBO_MTU = 9000;
    /// Largest frame on the wire: a jumbo IP MTU, Ethernet header, FCS, preamble and gap
    static constexpr uint32_t MAX_FRAME_WIRE_BYTES = JUMBO_MTU + 14 + ETHERNET_OVERHEAD_BYTES;
    /// Minimum Ethernet frame without FCS
    static constexpr uint32_t ETHERNET_MIN_FRAME_BYTES = 60;

    /// Forwarding callback of a switch: (ingress port, frame).
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>> ForwardCallback;
    /// A forwarded frame leaves this port: (its ingress port, priority, bytes, when its first
    /// bit leaves: now, or later for a frame chosen ahead).
    typedef Callback<void, uint16_t, uint8_t, uint32_t, Time> DepartureCallback;
    /// Ingress port of a frame that did not come through a switch.
    static constexpr uint16_t NO_INGRESS = 0xFFFF;

    /**
     * \brief Make this a NIC port carrying the given transport.
     * \param transport the NIC's RC transport
     */
    void SetTransport(Ptr<RdmaTransport> transport);

    /// \return the transport, or nullptr for a switch port
    Ptr<RdmaTransport> GetTransport() const override;

    /**
     * \brief Make this a switch port (its role; the switch that adopts it calls this): every
     *        frame it receives but PFC goes to the switch, and the frames the switch queues
     *        here (EnqueueAfter(), EnqueueForwarded()) report their departure. A switch port
     *        chooses forwarded frames ahead of their pipeline latency; a PFC pause that
     *        arrives before one starts takes it back (withdrawal).
     * \param forward the switch's forwarding function
     * \param departure called when a forwarded frame leaves (the switch's buffer frees it)
     * \param withdrawal called when a forwarded frame chosen ahead is withdrawn because a PFC
     *        pause arrived before its first bit left: the departure announced for that time
     *        does not happen (the frame stays in the buffer); same arguments
     */
    void AttachToSwitch(ForwardCallback forward,
                        DepartureCallback departure,
                        DepartureCallback withdrawal);

    /**
     * \brief Set the IPv4 address of a NIC port (and the MAC address derived from it).
     * \param address the address
     */
    void SetIpv4Address(Ipv4Address address);

    /// \return the IPv4 address of a NIC port
    Ipv4Address GetIpv4Address() const;

    /**
     * \brief Queue a frame for output (switch egress).
     * \param p the frame
     * \param priority its priority (0..7)
     * \param ingress the switch port it came in on (reported at its departure)
     * \param limit drop it if the queue is at MaxQueueBytes (false when an MMU admitted it)
     * \param ingressPriority the priority it arrived with, if the switch re-marked it
     *        (0xFF: the same as priority); its departure frees that ingress priority's buffer
     * \return false if the frame was dropped
     */
    /**
     * \brief Take a frame a switch forwards, to be sendable after the switch's pipeline
     * latency: as EnqueueForwarded() \p delay later, without an event of its own. The frame
     * joins its queue now, marked not to leave before \p delay from now; if the port is idle
     * it is chosen now and put on the wire to start then. A PFC pause that arrives before its
     * first bit leaves takes it back (FabricNetDevice::WithdrawUnstarted()). With
     * CompletionPerFrame, during a PFC storm, or while the link is down, it is an event
     * \p delay later, as before.
     * \param delay the switch's pipeline latency
     * \param p the frame
     * \param priority the priority it leaves in
     * \param ingress the switch ingress port it came in on
     * \param inPriority the priority it holds buffer under at the ingress
     * \param pausable the priority is lossless (the peer may pause it with PFC): chosen ahead
     *        only on a withdrawable port (a switch port is)
     */
    void EnqueueAfter(Time delay,
                      Ptr<Packet> p,
                      uint8_t priority,
                      uint16_t ingress,
                      uint8_t inPriority,
                      bool pausable);

    bool EnqueueForwarded(Ptr<Packet> p,
                          uint8_t priority,
                          uint16_t ingress,
                          bool limit,
                          uint8_t ingressPriority = 0xFF);

    /**
     * \brief Send a PFC frame (802.1Qbb) for one priority, ahead of every queue.
     * \param priority the priority to pause or release
     * \param quanta pause time in quanta of 512 bit times (0: release)
     */
    void SendPfc(uint8_t priority, uint16_t quanta);

    /**
     * \param priority a priority
     * \return true while the peer has that priority paused at this port
     */
    bool IsPaused(uint8_t priority) const;

    /**
     * \param priority a priority
     * \return PFC pauses (XOFF, nonzero quanta, refreshes included) this port sent for it
     */
    uint64_t GetPfcPausesSent(uint8_t priority) const;

    /**
     * \param priority a priority
     * \return PFC releases (XON, zero quanta) this port sent for it
     */
    uint64_t GetPfcReleasesSent(uint8_t priority) const;

    /**
     * \param priority a priority
     * \return PFC frames this port received for it (pauses and releases)
     */
    uint64_t GetPfcFramesReceived(uint8_t priority) const;

    /**
     * \param priority a priority
     * \return time this port spent paused for it so far
     */
    Time GetPausedTime(uint8_t priority) const;

    /**
     * \param priority 0..7
     * \return the counters of that output queue
     */
    const RoceQueueCounters& GetQueueCounters(uint8_t priority) const;

    /// \return the byte limit of each output queue
    uint32_t GetMaxQueueBytes() const;

    // FabricNetDevice statistics
    uint64_t GetPeakQueuedBytes() const override;
    uint64_t GetClassPeakQueuedBytes(uint8_t cls) const override;
    /**
     * \brief Give the port its congestion marker (attribute Marker), before the simulation
     *        starts; a marker serves one port.
     * \param marker the marker
     */
    void SetMarker(Ptr<FabricCongestionMarker> marker);
    Ptr<FabricCongestionMarker> GetCongestionMarker() const override;

    /**
     * \brief Give the port its egress scheduler (attribute Scheduler: strict priority,
     *        FabricStrictPriorityScheduler, by default), before the simulation starts; a
     *        scheduler serves one port.
     * \param scheduler the scheduler
     */
    void SetScheduler(Ptr<FabricEgressScheduler> scheduler);

    /// \return the port's egress scheduler (attribute Scheduler)
    Ptr<FabricEgressScheduler> GetScheduler() const;

    /// \return the receive buffer's high-water mark (a NIC port whose host interface has a
    ///         Rate), bytes
    uint32_t GetRxBufferMaxBytes() const;

    /**
     * \brief Give a NIC port its host side (attribute HostInterface); it serves this port.
     * \param host the host interface
     */
    void SetHostInterface(Ptr<RoceHostInterface> host);

    /// \return the port's host interface (a NIC port's, from SetTransport() on), or nullptr
    Ptr<RoceHostInterface> GetHostInterface() const;

    /// \return the priority of RDMA data (RdmaDscp / 8)
    uint8_t GetRdmaPriority() const;

    /**
     * \brief Hand a received RoCEv2 frame to the transport (at once, or when the host
     *        interface's buffer lets it go).
     * \param p the frame
     * \param meta its addressing
     */
    void DeliverToTransport(Ptr<Packet> p, const RdmaPacketMeta& meta);

    /// \return PFC storms the watchdog detected at this port, every priority
    uint64_t GetPfcStorms() const;

    /**
     * \brief Give the port a PFC watchdog (attribute PfcWatchdog); it watches this port.
     * \param watchdog the watchdog
     */
    void SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog);

    /// \return the port's PFC watchdog (a switch port's, from AttachToSwitch() on), or nullptr
    Ptr<RocePfcWatchdog> GetPfcWatchdog() const;

    /**
     * \brief Give the port its priority flow control (attribute FlowControl).
     * \param pfc the part
     */
    void SetPfc(Ptr<RocePfc> pfc);

    /// \return the port's priority flow control
    Ptr<RocePfc> GetPfc() const;

    Ptr<FabricLinkFlowControl> GetLinkFlowControl() const override;

    /**
     * \param priority a priority
     * \return when the peer's current (or last) pause of it began
     */
    Time GetPauseStart(uint8_t priority) const;

    /**
     * \brief The watchdog found a PFC storm on a priority: drop what its queue holds, freeing
     *        the frames' buffer at the switch.
     * \param priority the priority
     */
    void EnterPfcStorm(uint8_t priority);

    /**
     * \param priority a priority
     * \return true while the watchdog holds that priority's queue lossy (a storm)
     */
    bool IsInPfcStorm(uint8_t priority) const;

    /**
     * \param address an IPv4 address
     * \return the MAC address ai-fabric gives to a NIC with that address
     */
    static Mac48Address MacFromIpv4(Ipv4Address address);

    // NetDevice
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    bool SupportsSendFrom() const override;

    /**
     * TracedCallback signature for queue occupancy.
     * \param priority the queue's priority
     * \param bytes bytes queued after the change
     */
    typedef void (*QueueTracedCallback)(uint8_t priority, uint32_t bytes);

    // Queue state (FabricNetDevice): the eight priorities.
    uint32_t GetNTrafficClasses() const override;
    const char* GetTrafficClassName() const override;
    uint64_t GetClassQueuedBytes(uint8_t cls) const override;
    void GetClassSources(uint8_t cls,
                         std::vector<std::pair<uint16_t, uint8_t>>& sources) const override;

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueForTransmit() override;
    bool HasPendingFrames() const override;

    /**
     * \brief EnqueueForwarded() at the end of a switch's pipeline latency (EnqueueAfter()).
     * \param p the frame
     * \param priority the priority it leaves in
     * \param ingress the switch ingress port
     * \param inPriority the priority it holds buffer under at the ingress
     */
    void DelayedEnqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority);
    void DoReceive(Ptr<Packet> p) override;
    void DoLinkChange(bool up) override;
    void DoWithdraw(Ptr<Packet> p, uint32_t cookie, Time ready, Time start) override;

  private:
    /**
     * \brief The scheduler asks: may a priority send now (FabricEgressClasses)? Not while the
     *        peer pauses it; yes if its queue's head is ready, or, at the RDMA priority of a
     *        NIC port, if the transport gives a frame (kept as the one to send).
     * \param cls the priority
     * \return true if it may
     */
    bool IsSendable(uint8_t cls) override;

    /**
     * \brief Add UDP, IPv4 and Ethernet headers to a transport packet.
     * \param p the packet, starting at the BTH
     * \param meta its addressing
     * \param dscp the IPv4 DSCP
     */
    void EncapsulateRdma(Ptr<Packet> p, const RdmaPacketMeta& meta, uint8_t dscp);

    /**
     * \brief Drop a forwarded frame that a storm turned lossy, releasing its buffer.
     * \param f the frame
     * \param priority its priority
     * \param ingress the switch port it came in on
     * \param inPriority the priority it came in with
     */
    void DropInStorm(const Ptr<Packet>& f, uint8_t priority, uint16_t ingress, uint8_t inPriority);

    /**
     * \brief Transport callback: queue an ACK, NAK or CNP.
     * \param p the packet, starting at the BTH
     * \param meta its addressing
     */
    void SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta);

    /**
     * \brief Queue a frame at a priority, or drop it at the byte limit.
     * \param p the frame
     * \param priority 0..7
     * \param ingress its ingress port, or NO_INGRESS
     * \param limit enforce MaxQueueBytes
     * \param inPriority the priority it came in with at the ingress port
     * \return true if queued
     */
    bool Enqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, bool limit, uint8_t inPriority);

    /// Transport callback: a QP has data again.
    void DataReady();

    /**
     * \brief Apply a received PFC frame.
     * \param p the frame
     */
    void ReceivePfc(Ptr<Packet> p);

    /**
     * \brief The flow control's report: a pause arrived for a priority (for the watchdog).
     * \param priority the priority
     */
    void PauseArrived(uint8_t priority);

    /**
     * \brief The flow control's report: a pause ran out with no newer one: send again.
     * \param priority the priority
     */
    void PauseExpired(uint8_t priority);

    /// A queued frame and the switch port it came in on.
    struct QueuedFrame
    {
        Ptr<Packet> packet;    //!< the frame
        uint16_t ingress;      //!< its ingress port, or NO_INGRESS
        uint8_t inPriority;    //!< the priority it arrived with at that port
        Time ready{};          //!< it may not leave before (a switch's pipeline latency)
        bool withdrawn{false}; //!< chosen once and taken back: its ECN chance was taken
    };

    Ptr<RdmaTransport> m_transport; //!< NIC transport (nullptr on a switch port)
    ForwardCallback m_forwardCb;    //!< switch forwarding (null on a NIC port)
    uint32_t m_delayedEnqueues{0};  //!< forwarded frames still in the pipeline as events
    Ipv4Address m_ipv4;             //!< NIC address
    uint32_t m_maxQueueBytes{0};    //!< byte limit per output queue
    uint8_t m_rdmaDscp{26};         //!< DSCP of RDMA data
    uint8_t m_controlDscp{48};      //!< DSCP of ACK, NAK, CNP
    std::array<std::deque<QueuedFrame>, N_PRIORITIES> m_queues; //!< output queues
    std::deque<Ptr<Packet>> m_macControl; //!< PFC frames to send, ahead of all queues
    DepartureCallback m_departureCb;      //!< to the switch's MMU
    DepartureCallback m_withdrawalCb;     //!< to the switch's MMU (withdrawn)
    std::array<RoceQueueCounters, N_PRIORITIES> m_queueCounters; //!< their counters
    uint8_t m_nonEmpty{0};                          //!< bit p set when queue p holds frames
    Ptr<RoceHostInterface> m_host;                  //!< the host side (NIC ports)
    Ptr<RocePfc> m_pfc;                             //!< the link's flow control (PFC)
    Ptr<RocePfcWatchdog> m_pfcWatchdog;             //!< turns a storming queue lossy
    Ptr<FabricCongestionMarker> m_marker;           //!< marks at switch egress
    Ptr<FabricEgressScheduler> m_scheduler;         //!< which priority sends next
    Time m_readyLimit;                              //!< heads ready by this may go (dequeue)
    Ptr<Packet> m_transportFrame;                   //!< the transport's frame chosen
    TracedCallback<uint8_t, uint32_t> m_queueTrace; //!< occupancy changes
};

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
