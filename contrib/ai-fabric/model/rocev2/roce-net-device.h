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
#include "ns3/mac48-address.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

namespace ns3
{

class RocePfc;

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
 * \brief An Ethernet port carrying RoCEv2, what its two roles share: a NIC port (RoceNicPort)
 *        or a switch port (RoceSwitchPort).
 *
 * Frames are real Ethernet II / IPv4 / UDP (destination port 4791) / BTH frames built with
 * ns-3's header classes and ai-fabric's BthHeader, so a capture opens in Wireshark as RoCE.
 * Eight priorities, each an output queue, served by the port's egress scheduler (attribute
 * Scheduler; strict priority, 7 highest, by default). The priority of a frame is its IPv4
 * DSCP / 8. PFC frames (802.1Qbb, the port's FlowControl) go ahead of every queue.
 *
 * The class is abstract: a port is created as one of its roles, which has the role's
 * attributes, parts and per-frame paths (what it receives, how it chooses the next frame).
 */
class RoceNetDevice : public FabricNetDevice
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
    /// Ingress port of a frame that did not come through a switch.
    static constexpr uint16_t NO_INGRESS = 0xFFFF;

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
     * \param priority a priority
     * \return when the peer's current (or last) pause of it began
     */
    Time GetPauseStart(uint8_t priority) const;

    /**
     * \param priority 0..7
     * \return the counters of that output queue
     */
    const RoceQueueCounters& GetQueueCounters(uint8_t priority) const;

    // FabricNetDevice statistics
    uint64_t GetPeakQueuedBytes() const override;
    uint64_t GetClassPeakQueuedBytes(uint8_t cls) const override;

    /**
     * \brief Give the port its congestion marker (attribute Marker), before the simulation
     *        starts; a marker serves one port. Only a switch port marks: a NIC port keeps
     *        the marker it is given unused.
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

    /**
     * \brief Give the port its priority flow control (attribute FlowControl).
     * \param pfc the part
     */
    void SetPfc(Ptr<RocePfc> pfc);

    /// \return the port's priority flow control
    Ptr<RocePfc> GetPfc() const;

    Ptr<FabricLinkFlowControl> GetLinkFlowControl() const override;

    /**
     * \param address an IPv4 address
     * \return the MAC address ai-fabric gives to a NIC with that address
     */
    static Mac48Address MacFromIpv4(Ipv4Address address);

    // NetDevice: a port sends IP only in a role that has an address (RoceNicPort).
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;

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
    bool HasPendingFrames() const override;
    void DoLinkChange(bool up) override;

    /// A queued frame and the switch port it came in on.
    struct QueuedFrame
    {
        Ptr<Packet> packet;    //!< the frame
        uint16_t ingress;      //!< its ingress port, or NO_INGRESS
        uint8_t inPriority;    //!< the priority it arrived with at that port
        Time ready{};          //!< it may not leave before (a switch's pipeline latency)
        bool withdrawn{false}; //!< chosen once and taken back: its ECN chance was taken
    };

    /// Ethertype of IPv4
    static constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
    /// IP protocol number of UDP
    static constexpr uint8_t IP_PROTO_UDP = 17;
    /// ECN codepoint ECT(0)
    static constexpr uint8_t ECN_ECT0 = 0x2;
    /// ECN codepoint CE
    static constexpr uint8_t ECN_CE = 0x3;

    /**
     * \brief Queue a frame at a priority.
     * \param p the frame
     * \param priority 0..7
     * \param ingress its ingress port, or NO_INGRESS
     * \param inPriority the priority it came in with at the ingress port
     */
    void Enqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority);

    /**
     * \brief Take the frame at the head of a priority's queue (the scheduler chose it): its
     *        ready time goes to the transmit machine, the queue's counters and trace follow.
     * \param prio the priority
     * \return the frame
     */
    QueuedFrame TakeHead(uint8_t prio);

    /**
     * \brief A queued frame was dropped (the link went down): a switch port releases the
     *        buffer it holds at its ingress (the base class: nothing to release).
     * \param f the frame
     * \param size its bytes
     */
    virtual void QueuedFrameDropped(const QueuedFrame& f, uint32_t size);

    /**
     * \brief A received PFC frame: the peer's pauses are applied (an invalid one is dropped,
     *        NotForUs), and the port sends what it now may.
     * \param p the frame
     */
    void ReceivePfc(Ptr<Packet> p);

    /**
     * \brief A PFC frame paused priorities (a switch port withdraws the frames it chose ahead
     *        of them; the base class does nothing).
     * \param paused the priorities paused, a bit each
     */
    virtual void PausesReceived(uint32_t paused);

    /**
     * \brief The flow control's report: a pause arrived for a priority (a switch port's
     *        watchdog hears of it; the base class does nothing).
     * \param priority the priority
     */
    virtual void PauseArrived(uint8_t priority);

    /**
     * \brief Both roles' dequeue starts here when m_macControl holds a frame: MAC control
     *        frames (PFC) are not subject to pauses or the scheduler and go first. (The caller
     *        tests for one: an empty Ptr made and destroyed on every dequeue would cost more.)
     * \return the next MAC control frame
     */
    Ptr<Packet> TakeMacControl()
    {
        Ptr<Packet> p = std::move(m_macControl.front());
        m_macControl.pop_front();
        return p;
    }

    /**
     * \param cls a priority the peer does not pause
     * \return true if its queue has a head ready by the selection's ready limit
     */
    bool QueuedSendable(uint8_t cls) const
    {
        return (m_nonEmpty & (1U << cls)) && m_queues[cls].front().ready <= m_readyLimit;
    }

    std::array<std::deque<QueuedFrame>, N_PRIORITIES> m_queues;  //!< output queues
    std::array<RoceQueueCounters, N_PRIORITIES> m_queueCounters; //!< their counters
    std::deque<Ptr<Packet>> m_macControl;   //!< PFC frames to send, ahead of all queues
    uint8_t m_nonEmpty{0};                  //!< bit p set when queue p holds frames
    Ptr<RocePfc> m_pfc;                     //!< the link's flow control (PFC)
    Ptr<FabricCongestionMarker> m_marker;   //!< marks at switch egress
    Ptr<FabricEgressScheduler> m_scheduler; //!< which priority sends next
    bool m_strictPriority{false};           //!< the scheduler is plain strict priority (run inline)
    Time m_selectNow;                       //!< the time of the current selection (dequeue)
    Time m_readyLimit;                      //!< heads ready by this may go (dequeue)
    TracedCallback<uint8_t, uint32_t> m_queueTrace; //!< occupancy changes

  private:
    /**
     * \brief The flow control's report: a pause ran out with no newer one: send again.
     * \param priority the priority
     */
    void PauseExpired(uint8_t priority);
};

// The per-frame queue operations, inline in both roles' per-frame paths.

inline void
RoceNetDevice::Enqueue(Ptr<Packet> p, uint8_t priority, uint16_t ingress, uint8_t inPriority)
{
    RoceQueueCounters& c = m_queueCounters[priority];
    const uint32_t size = p->GetSize();
    m_queues[priority].push_back({p, ingress, inPriority});
    m_nonEmpty |= static_cast<uint8_t>(1U << priority);
    ++c.enqueuedPackets;
    c.enqueuedBytes += size;
    c.bytes += size;
    if (c.bytes > c.maxBytes)
    {
        c.maxBytes = c.bytes;
    }
    m_queueTrace(priority, c.bytes);
}

inline RoceNetDevice::QueuedFrame
RoceNetDevice::TakeHead(uint8_t prio)
{
    auto& q = m_queues[prio];
    QueuedFrame f = std::move(q.front());
    q.pop_front();
    SetFrameReady(f.ready,
                  (static_cast<uint32_t>(prio) << 24) | (static_cast<uint32_t>(f.inPriority) << 16)
                      | f.ingress);
    if (q.empty())
    {
        m_nonEmpty &= static_cast<uint8_t>(~(1U << prio));
    }
    RoceQueueCounters& c = m_queueCounters[prio];
    c.bytes -= f.packet->GetSize();
    m_queueTrace(prio, c.bytes);
    return f;
}

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
