/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_NET_DEVICE_H
#define FABRIC_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricCongestionMarker;
class FabricLinkFlowControl;
class ErrorModel;
class Node;
class Packet;

/**
 * \ingroup ai-fabric
 * Why a port dropped a packet. Every drop in ai-fabric carries one of these.
 */
enum class FabricDropReason : uint8_t
{
    LINK_DOWN,         //!< sent on, or in flight on, a link that is down
    QUEUE_FULL,        //!< an output queue was at its byte limit (lossy class)
    RECEIVE_ERROR,     //!< the receive error model corrupted it (bit errors, --lossRate)
    NO_ROUTE,          //!< a switch had no route to the destination
    NOT_FOR_US,        //!< a NIC received a frame it cannot deliver (unknown QP, wrong type)
    HEADROOM_EXCEEDED, //!< a lossless queue overflowed its PFC headroom: a bug, never normal
    PFC_WATCHDOG,      //!< a queue in a PFC storm, turned lossy by the switch's PFC watchdog
    CREDIT_VIOLATION,  //!< a packet arrived beyond the credits its VL granted: a bug, never normal
    VL15_OVERFLOW,     //!< an IB management packet found VL15's buffer full (allowed: VL15 has
                       //!< no flow control, the subnet manager retries)
    COUNT              //!< number of reasons (not a reason)
};

/**
 * \param reason a drop reason
 * \return its name as printed in statistics ("LinkDown", "QueueFull", ...)
 */
const char* FabricDropReasonName(FabricDropReason reason);

/**
 * \ingroup ai-fabric
 * Per-port counters. Bytes are frame bytes (what a capture shows); wire bytes add the
 * per-frame overhead of the fabric (preamble, inter-frame gap, FCS on Ethernet).
 */
struct FabricPortCounters
{
    uint64_t txPackets{0};   //!< frames sent
    uint64_t txBytes{0};     //!< frame bytes sent
    uint64_t txWireBytes{0}; //!< bytes of line time used by the frames sent
    uint64_t rxPackets{0};   //!< frames received and accepted
    uint64_t rxBytes{0};     //!< frame bytes received and accepted
    std::array<uint64_t, static_cast<std::size_t>(FabricDropReason::COUNT)> drops{}; //!< by reason

    /// \return the sum of drops over all reasons
    uint64_t TotalDrops() const;
};

/**
 * \ingroup ai-fabric
 * What a port is: a host's (a NIC, a GPU's NVLink port) or a switch's. Each role is a type of
 * its own (RoceNicPort and RoceSwitchPort, IbNicPort and IbSwitchPort, NvLinkGpuPort and
 * NvSwitchPort), which sets it when constructed; the port's behaviour follows its type, never
 * a test of which callbacks happen to be set.
 */
enum class FabricPortRole : uint8_t
{
    HOST,  //!< a host's port: frames go to and come from its transport
    SWITCH //!< a switch's port: frames received are forwarded
};

/**
 * \ingroup ai-fabric
 * \brief The port base every ai-fabric port derives from.
 *
 * It owns what all fabrics share: the transmit state machine (ready / busy), serialization
 * at DataRate counting every byte on the wire, the link state, the receive error model, the
 * per-port counters and the trace sources (and so pcap). A fabric's device adds only what
 * differs, in the template-method shape of ns-3's traffic-control: it answers
 * DequeueForTransmit() with the next frame its link-level flow control allows, handles
 * DoReceive(), and calls TryTransmit() whenever something becomes sendable.
 *
 * Serialization time is computed exactly in picoseconds from the bit rate. If the simulator's
 * time resolution is coarser (ns-3's default is nanoseconds), the remainder is carried to the
 * next frame so that the long-run rate stays exact; ai-fabric's programs use picoseconds.
 */
class FabricNetDevice : public NetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricNetDevice();
    ~FabricNetDevice() override;

    /**
     * \brief Connect this port to a cable.
     * \param channel the cable
     */
    void Attach(Ptr<FabricChannel> channel);

    /**
     * \brief Called by the channel when a frame's last bit arrives.
     * \param p the frame
     */
    void Receive(Ptr<Packet> p);

    /**
     * \brief Called by the channel when a frame for this port was on a cable that went down.
     * \param p the frame
     */
    void NotifyLostInFlight(Ptr<Packet> p);

    /**
     * \brief Called by the channel when the link changes state.
     * \param up the new state
     */
    void NotifyLinkChange(bool up);

    /// \return the rate at which this port serializes
    DataRate GetDataRate() const
    {
        return m_dataRate;
    }

    /**
     * \param frameBytes size of a frame as captured
     * \return bytes of line time the frame takes (frame plus the fabric's per-frame overhead,
     *         padded to the minimum frame size)
     */
    uint32_t GetWireBytes(uint32_t frameBytes) const;

    /// \return true while a frame is being serialized
    bool IsTransmitting() const;

    /// \return the port's role
    FabricPortRole GetRole() const
    {
        return m_role;
    }

    /// \return true for a switch's port
    bool IsSwitchPort() const
    {
        return m_role == FabricPortRole::SWITCH;
    }

    /// \return this port's counters
    const FabricPortCounters& GetCounters() const;

    /**
     * \brief Count what the flow level moved through this port as sent (it sends no frames).
     * \param wireBytes bytes of line time
     * \param packets the frames they stand for (each adds GetWireBytes(0) to its frame)
     */
    void AddFlowTx(uint64_t wireBytes, uint64_t packets);

    /**
     * \return frames this port chose ahead and took back before their first bit left, because
     *         a PFC pause arrived for them (see WithdrawUnstarted()); they are not in the
     *         counters
     */
    uint64_t GetWithdrawnFrames() const;

    /// \return the cable, or nullptr before Attach()
    Ptr<FabricChannel> GetFabricChannel() const;

    /**
     * \brief Set or clear the error model applied to every received frame.
     *
     * The ReceiveErrorModel attribute cannot be reset: ns-3.37's PointerValue refuses a null
     * pointer (SetAttribute aborts). This setter takes nullptr to clear bit errors.
     * \param model the error model, or nullptr for none
     */
    void SetReceiveErrorModel(Ptr<ErrorModel> model);

    /// \return the receive error model, or nullptr if none
    Ptr<ErrorModel> GetReceiveErrorModel() const;

    /**
     * \name Queue state, for stall and deadlock analysis (FabricStallDetector)
     * A port's traffic classes are its PFC priorities (RoCEv2) or data VLs (InfiniBand).
     * \{
     */
    /// \return the number of traffic classes the port queues in (0: none reported)
    virtual uint32_t GetNTrafficClasses() const;

    /// \return what a traffic class is called in reports ("prio", "VL")
    virtual const char* GetTrafficClassName() const;

    /**
     * \param cls a traffic class
     * \return bytes queued for output in it
     */
    virtual uint64_t GetClassQueuedBytes(uint8_t cls) const;

    /**
     * \param cls a traffic class
     * \return true if the link's flow control holds its head frame (paused, no credits):
     *         what GetLinkFlowControl() says
     */
    bool IsClassBlocked(uint8_t cls) const;

    /// \return the port's link-level flow control as a part (RoCEv2's PFC, InfiniBand's
    ///         per-VL credits, NVLink's credits), or nullptr (the base class: none)
    virtual Ptr<FabricLinkFlowControl> GetLinkFlowControl() const;

    /**
     * \brief Where a class's queued frames came from (forwarded frames only).
     * \param cls a traffic class
     * \param sources filled with the distinct (switch ingress port, ingress class) pairs
     */
    virtual void GetClassSources(uint8_t cls,
                                 std::vector<std::pair<uint16_t, uint8_t>>& sources) const;
    /** \} */

    /**
     * \name Statistics every fabric reports (FabricStatsHelper walks these on every port)
     * \{
     */
    /// \return the part that marks congestion on frames leaving the port's output queues
    ///         (attribute "Marker" of the fabrics that mark), or nullptr (the base class)
    virtual Ptr<FabricCongestionMarker> GetCongestionMarker() const;

    /// \return frames this port marked with congestion (ECN CE on RoCEv2, FECN on
    ///         InfiniBand): its marker's count; 0 without a marker
    uint64_t GetCongestionMarks() const;

    /// \return link-level pause frames this port sent (PFC XOFFs and their refreshes), from
    ///         its flow control; 0 without one
    uint64_t GetPauseFramesSent() const;

    /// \return the traffic classes with credit-based flow control (InfiniBand's data VLs,
    ///         NVLink's one): those of a credit-based GetLinkFlowControl(), else 0
    uint32_t GetCreditClasses() const;

    /**
     * \param cls a class below GetCreditClasses()
     * \return how long the class had frames waiting and no credits (the time a
     *         credit-based GetLinkFlowControl() held it)
     */
    Time GetCreditStallTime(uint8_t cls) const;

    /// \return the most bytes ever queued for output in one class (its high-water mark); 0
    ///         in the base class
    virtual uint64_t GetPeakQueuedBytes() const;

    /**
     * \param cls a traffic class
     * \return the most bytes ever queued for output in it; 0 in the base class
     */
    virtual uint64_t GetClassPeakQueuedBytes(uint8_t cls) const;

    /**
     * \param cls a traffic class
     * \return link-level pause frames this port sent for it, from its flow control; 0
     *         without one
     */
    uint64_t GetClassPausesSent(uint8_t cls) const;

    /**
     * \param cls a traffic class
     * \return link-level pause frames this port received for it, from its flow control; 0
     *         without one
     */
    uint64_t GetClassPausesReceived(uint8_t cls) const;

    /**
     * \brief The queue lengths between which the port marks congestion (RED-style ECN).
     * \param kmin set to the lower threshold (bytes)
     * \param kmax set to the upper threshold (bytes)
     * \return false (both 0) if the port marks by another rule or not at all (its marker's
     *         FabricCongestionMarker::GetThresholds() at the port's rate)
     */
    bool GetMarkingThresholds(uint32_t& kmin, uint32_t& kmax) const;
    /** \} */

    /**
     * \brief Count and trace a drop.
     * \param p the dropped packet
     * \param reason why
     */
    void CountDrop(Ptr<const Packet> p, FabricDropReason reason);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /**
     * TracedCallback signature for drops.
     * \param packet the dropped packet
     * \param reason the FabricDropReason, as an integer
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint8_t reason);

  protected:
    /**
     * \brief Set the port's role (a role class's constructor: RoceSwitchPort, ...).
     * \param role the role
     */
    void SetRole(FabricPortRole role)
    {
        m_role = role;
    }

    void DoDispose() override;

    /**
     * \brief Start sending the next frame if the port is idle and one is sendable.
     *
     * While a frame is being serialized, this only makes sure that the end of the frame is
     * an event (the port chooses its next frame then).
     */
    void TryTransmit();

    /**
     * \brief Called by DequeueForTransmit() for a frame that may not leave before a time
     * (a switch's pipeline latency, see the fabrics' EnqueueAfter()): the frame is chosen now
     * and its first bit leaves at that time, without an event of its own then.
     * \param ready the earliest time its first bit may leave
     * \param cookie what the fabric needs to queue the frame again if it is withdrawn
     *        (WithdrawUnstarted()); its top byte is the frame's traffic class
     */
    void SetFrameReady(Time ready, uint32_t cookie = 0)
    {
        m_txReady = ready;
        m_txCookie = cookie;
    }

    /**
     * \brief Keep what it takes to withdraw the frames put on the wire ahead of their start
     * (a port whose peer may pause them). Off by default: nothing is kept.
     * \param on keep it
     */
    void SetWithdrawable(bool on)
    {
        m_withdrawable = on;
    }

    /**
     * \brief Take back the frames chosen ahead whose first bit has not left yet, from the
     * newest back to the oldest of a class in \p classMask, as if they had never been chosen:
     * their deliveries are withdrawn from the cable, the wire's state, the serialization
     * carry and the counters return to before them, and DoWithdraw() gives each back to the
     * fabric, newest first. A PFC pause holds every frame that has not started, and the
     * frames chosen after one it holds go back too, to keep their order. The caller then
     * calls TryTransmit(). Only on a port made withdrawable (SetWithdrawable()).
     * \param classMask bit c set: withdraw the frames of traffic class c (cookie >> 24)
     */
    void WithdrawUnstarted(uint32_t classMask);

    /**
     * \brief Put a withdrawn frame back at the head of its queue.
     * \param p the frame
     * \param cookie as given to SetFrameReady() when it was chosen
     * \param ready its ready time, as given to SetFrameReady()
     * \param start when its first bit was to leave
     */
    virtual void DoWithdraw(Ptr<Packet> p, uint32_t cookie, Time ready, Time start);

    /**
     * \brief For a switch egress whose only waiting frame is the one just forwarded: choose
     * it now even while the port still sends, if it would not wait behind the frame on the
     * wire for more than one frame time after it is ready (CanChooseAhead()). It then leaves
     * exactly when it would have (when it is ready, or when the wire frees), with no event
     * at that time; only the choice is made earlier.
     */
    void TransmitAhead();

    /**
     * \param ready when the forwarded frame may leave
     * \return true if TransmitAhead() may choose it now: no frame is being chosen, no
     *         end-of-frame event is pending, the link is up, CompletionPerFrame is off, and
     *         the wire frees by one frame time after \p ready
     */
    bool CanChooseAhead(Time ready) const
    {
        return !m_choosing && !m_completionPending && !m_completionPerFrame && m_linkUp
               && m_txEnd <= ready + m_lastTxTime;
    }

    /**
     * \brief Send a small link-level frame (a PFC pause) at once if
     * the wire is idle now until a frame chosen ahead starts (TransmitAhead(), a ready time):
     * the MAC sends it while that frame is still in the switch's pipeline, as it did when the
     * pipeline latency was an event.
     * \param p the frame
     * \return true if it was sent; false: queue it as usual
     */
    bool SendInGap(Ptr<Packet> p);

    /**
     * \return true if the port may have another frame to send once the current one ends.
     * The end of a frame is an event only then (or when something becomes sendable during
     * it); a port that cannot tell returns true, and every frame's end is an event.
     */
    virtual bool HasPendingFrames() const;

    /// \return when the last frame put on the wire ends (its last bit leaves)
    Time GetTransmitEnd() const
    {
        return m_txEnd;
    }

    /// \return true if every frame's end is an event (attribute CompletionPerFrame)
    bool IsCompletionPerFrame() const
    {
        return m_completionPerFrame;
    }

    /**
     * \brief Set the fabric's framing: per-frame overhead on the wire and minimum frame size.
     * \param overheadBytes bytes of line time per frame beyond the captured frame
     * \param minFrameBytes frames shorter than this are padded (as captured, without overhead)
     */
    void SetFraming(uint32_t overheadBytes, uint32_t minFrameBytes);

    /**
     * \brief The next frame to send, chosen by the fabric's scheduler and flow control.
     * \return the frame, or nullptr if nothing may be sent now
     */
    virtual Ptr<Packet> DequeueForTransmit() = 0;

    /**
     * \brief Handle a received frame (already counted, traced and past the error model).
     * \param p the frame
     */
    virtual void DoReceive(Ptr<Packet> p) = 0;

    /**
     * \brief Called when a frame's serialization ends, before the next one is chosen.
     * \param p the frame
     */
    virtual void DoTransmitComplete(Ptr<const Packet> p);

    /**
     * \brief Called when the link goes down or up.
     * \param up the new state
     */
    virtual void DoLinkChange(bool up);

    NetDevice::ReceiveCallback m_rxCallback;             //!< upper layer (normal receive)
    NetDevice::PromiscReceiveCallback m_promiscCallback; //!< upper layer (promiscuous)
    Mac48Address m_address;                              //!< this port's MAC address
    TracedCallback<Ptr<const Packet>> m_macTxTrace;      //!< packet accepted from above
    TracedCallback<Ptr<const Packet>> m_macRxTrace;      //!< packet passed up

  private:
    FabricPortRole m_role{FabricPortRole::HOST}; //!< a host's or a switch's port
    /// End of a frame's serialization.
    void TransmitComplete();

    /**
     * \brief Fire PhyTxBegin and the sniffers for a frame whose first bit leaves now.
     * \param p the frame
     */
    void NotifyTxBegin(Ptr<Packet> p);

    /**
     * \brief Put the frame just chosen on the cable.
     * \param p the frame
     * \param start when its first bit leaves (not before now)
     */
    void StartFrame(Ptr<Packet> p, Time start);

    /**
     * \param wireBytes bytes of line time
     * \return the serialization time, exact in picoseconds with the remainder carried
     */
    Time SerializationTime(uint32_t wireBytes);

    /// A frame put on the wire to start later than when it was chosen, and the port's
    /// state before it (to withdraw it).
    struct AheadFrame
    {
        Ptr<Packet> packet;       //!< the frame
        Ptr<Packet> packetBefore; //!< m_txPacket before it
        Time start;               //!< its first bit leaves
        Time ready;               //!< ready time given to SetFrameReady()
        Time endBefore;           //!< m_txEnd before it
        Time startBefore;         //!< m_txStart before it
        Time prevEndBefore;       //!< m_prevEnd before it
        Time lastTxTimeBefore;    //!< m_lastTxTime before it
        EventId txBegin;          //!< its PhyTxBegin event, if one was scheduled
        uint64_t carryBefore;     //!< m_carry before it
        uint32_t cookie;          //!< the fabric's cookie
        uint32_t ticket;          //!< its ticket on the cable
        uint32_t frameBytes;      //!< frame bytes counted
        uint32_t wireBytes;       //!< wire bytes counted
    };

    /**
     * \brief Forget the frames chosen ahead that have started by now.
     * \param now the current time
     */
    void ForgetStarted(Time now);

    Ptr<Node> m_node;                    //!< owning node
    Ptr<FabricChannel> m_channel;        //!< attached cable
    uint32_t m_ifIndex{0};               //!< interface index
    uint16_t m_mtu{1500};                //!< link MTU (bytes of upper-layer payload)
    DataRate m_dataRate;                 //!< line rate
    Ptr<ErrorModel> m_receiveErrorModel; //!< optional receive error model
    bool m_linkUp{false};                //!< link state as this port sees it
    bool m_choosing{false};              //!< a frame is being chosen (no reentry)
    bool m_completionPending{false};     //!< an end-of-frame event is scheduled
    bool m_completionPerFrame{false};    //!< every frame's end is an event (attribute)
    bool m_withdrawable{false};          //!< keep the frames chosen ahead (SetWithdrawable)
    EventId m_completionEvent;           //!< the pending end-of-frame event
    uint32_t m_txCookie{0};              //!< the fabric's cookie of the frame being chosen
    Time m_gapEnd;                       //!< end of the last frame sent in a gap (SendInGap)
    std::vector<AheadFrame> m_ahead;     //!< frames chosen ahead, oldest first, from m_aheadHead
    std::size_t m_aheadHead{0};          //!< first entry of m_ahead still kept
    uint64_t m_withdrawnFrames{0};       //!< frames withdrawn (GetWithdrawnFrames)
    Time m_txEnd;                        //!< end of the last frame put on the wire
    Time m_txReady;                      //!< earliest start of the frame being chosen
    Time m_lastTxTime;                   //!< serialization time of the last frame
    Time m_txStart;                      //!< start of the last frame put on the wire
    Time m_prevEnd;                      //!< end of the frame before it
    Ptr<Packet> m_txPacket;              //!< the last frame put on the wire
    uint32_t m_overheadBytes{0};         //!< per-frame overhead on the wire
    uint32_t m_minFrameBytes{0};         //!< minimum frame size
    uint64_t m_carry{0};                 //!< serialization remainder (bit-picoseconds)
    uint64_t m_psPerTick{0};             //!< picoseconds per simulator time step (0: not yet known)
    FabricPortCounters m_counters;       //!< statistics
    TracedCallback<> m_linkChangeCallbacks;                  //!< NetDevice link callbacks
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;     //!< serialization starts
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;       //!< serialization ends
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;       //!< last bit received
    TracedCallback<Ptr<const Packet>, uint8_t> m_dropTrace;  //!< any drop, with reason
    TracedCallback<Ptr<const Packet>> m_snifferTrace;        //!< frames sent and received
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace; //!< same, for pcap
};

} // namespace ns3

#endif /* FABRIC_NET_DEVICE_H */
