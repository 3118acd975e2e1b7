/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_NET_DEVICE_H
#define IB_NET_DEVICE_H

#include "ns3/event-id.h"
#include "ns3/fabric-congestion-marker.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-net-device.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/rdma-transport.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An InfiniBand port (IBTA vol. 1, chapter 7) carrying the RC transport: LRH / BTH /
 * payload / ICRC / VCRC data packets, virtual lanes, and credit-based link-level flow control.
 *
 * Credits are counted per data VL in 64-byte blocks, as the IBTA counts them. The receiving
 * end of a link advertises, per VL, a credit limit FCCL = blocks received (ABR) + free blocks
 * of its receive buffer; the sending end counts the blocks it sent (FCTBS) and starts a packet
 * only when FCCL - FCTBS covers it, so a buffer never overflows: the link is lossless by
 * construction. Flow-control packets (6 bytes, sent ahead of data, not themselves flow
 * controlled) carry FCTBS and FCCL modulo 4096: an initialization packet per VL when the
 * port starts, then an update when CreditUpdateBlocks blocks have been freed, at the latest
 * FlowControlPeriod after a freed block, and each update once more a period later unless a
 * newer one went out (one lost update cannot stall a VL). A received FCTBS resets the
 * receiver's ABR, which returns the credits of packets lost on the link.
 *
 * As a NIC port (SetTransport) it carries an RdmaTransport: data packets of the QPs travel on
 * the VL of the port's service level (Sl attribute, SL-to-VL: SL mod DataVls), and so do
 * ACKs and NAKs, behind at most one data packet waiting for credits. Received packets go to
 * the transport at once, so their blocks are freed as they arrive. Data VLs with a packet and
 * credits are served by the port's egress scheduler (attribute Scheduler; IBTA VL arbitration,
 * IbVlArbiter, by default). The credits are the port's flow control (attribute FlowControl,
 * IbCreditFlowControl).
 */
class IbNetDevice
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

    IbNetDevice();
    ~IbNetDevice() override;

    /// Most data VLs a port may have (VL0-VL14; VL15 is for subnet management)
    static constexpr uint32_t MAX_DATA_VLS = IbCreditFlowControl::MAX_DATA_VLS;
    /// Bytes per credit block
    static constexpr uint32_t BLOCK_BYTES = IbCreditFlowControl::BLOCK_BYTES;
    /// Bytes of a data packet before the BTH (LRH)
    static constexpr uint32_t ENCAPSULATION_BYTES = 8;
    /// Bytes of a data packet after the ICRC (VCRC)
    static constexpr uint32_t TRAILER_BYTES = 2;
    /// Largest credit limit a 12-bit FCCL can grant beyond what was sent (blocks)
    static constexpr uint32_t MAX_OUTSTANDING_BLOCKS = IbCreditFlowControl::MAX_OUTSTANDING_BLOCKS;
    /// The management VL (subnet management packets)
    static constexpr uint8_t MANAGEMENT_VL = 15;
    /// Bytes of a MAD (management datagram)
    static constexpr uint32_t MAD_BYTES = 256;
    /// Bytes of a management packet on the wire: LRH, BTH, DETH, MAD, ICRC, VCRC
    static constexpr uint32_t MANAGEMENT_PACKET_BYTES = 8 + 12 + 8 + MAD_BYTES + 4 + 2;

    /**
     * \param bytes a packet's size
     * \return the 64-byte credit blocks it takes
     */
    static uint32_t Blocks(uint32_t bytes)
    {
        return IbCreditFlowControl::Blocks(bytes);
    }

    /**
     * \brief Make this a NIC port carrying the given transport.
     * \param transport the NIC's RC transport
     */
    void SetTransport(Ptr<RdmaTransport> transport);

    /// \return the transport, or nullptr
    Ptr<RdmaTransport> GetTransport() const override;

    /// \param lid this port's local identifier
    void SetLid(uint16_t lid);

    /// \return this port's LID (the base LID of its block when the LMC is above 0)
    uint16_t GetLid() const;

    /**
     * \brief LID mask control: the port answers to 2^lmc LIDs from its base LID (SetLid).
     * \param lmc 0 to 7 (aborts otherwise, or if the base LID is not a multiple of 2^lmc)
     */
    void SetLmc(uint32_t lmc);

    /// \return the LMC
    uint32_t GetLmc() const;

    /**
     * \param sl a service level
     * \return its virtual lane at this port's output (the SlToVl table; SL mod DataVls
     *         without one)
     */
    uint8_t VlOfSl(uint8_t sl) const;

    /// \return the number of data VLs (DataVls)
    uint32_t GetDataVls() const;

    /// \return the receive buffer of each data VL (bytes): its flow control's VlBufferBytes
    uint32_t GetVlBufferBytes() const;

    /**
     * \brief Give the port its credit-based flow control (attribute FlowControl), before the
     *        simulation starts; a flow control serves one port.
     * \param fc the flow control
     */
    void SetFlowControl(Ptr<IbCreditFlowControl> fc);

    /// \return the port's credit-based flow control (attribute FlowControl)
    Ptr<IbCreditFlowControl> GetFlowControl() const;

    /**
     * \brief Give the port its egress scheduler (attribute Scheduler: IBTA VL arbitration,
     *        IbVlArbiter, by default), before the simulation starts; a scheduler serves one
     *        port.
     * \param scheduler the scheduler
     */
    void SetScheduler(Ptr<FabricEgressScheduler> scheduler);

    /// \return the port's egress scheduler (attribute Scheduler)
    Ptr<FabricEgressScheduler> GetScheduler() const;

    /// \return the same, as the fabric-independent interface
    Ptr<FabricLinkFlowControl> GetLinkFlowControl() const override;

    /**
     * \param vl a data VL
     * \return blocks the peer still lets this port send on it
     */
    uint64_t GetAvailableCredits(uint8_t vl) const;

    /**
     * \brief Send a management datagram on VL15 (QP0, UD SEND only): ahead of every data VL,
     *        without credits (VL15 has no link-level flow control).
     * \param mad the MAD, MAD_BYTES long (aborts otherwise)
     * \param dlid the destination's LID
     */
    void SendManagement(Ptr<Packet> mad, uint16_t dlid);

    /// Called with each MAD that arrives for this adapter: (MAD, source LID).
    typedef Callback<void, Ptr<Packet>, uint16_t> ManagementCallback;

    /// \param cb receives the MADs addressed to this adapter
    void SetManagementCallback(ManagementCallback cb);

    /// \return management packets sent by this port (sourced or forwarded)
    uint64_t GetManagementPacketsSent() const;

    /// \return packets this switch port marked with FECN
    uint64_t GetFecnMarks() const;

    // FabricNetDevice statistics
    /**
     * \brief Give the port its congestion marker (attribute Marker), before the simulation
     *        starts; a marker serves one port.
     * \param marker the marker
     */
    void SetMarker(Ptr<FabricCongestionMarker> marker);
    Ptr<FabricCongestionMarker> GetCongestionMarker() const override;
    uint64_t GetPeakQueuedBytes() const override;
    uint64_t GetClassPeakQueuedBytes(uint8_t cls) const override;

    /// \return flow-control packets sent (its flow control's count)
    uint64_t GetFlowControlPacketsSent() const;

    /// Forwarding callback of a switch: (ingress port, packet, its VL).
    typedef Callback<void, Ptr<IbNetDevice>, Ptr<Packet>, uint8_t> ForwardCallback;
    /// A forwarded packet left this port: (its ingress port, VL, bytes).
    typedef Callback<void, uint16_t, uint8_t, uint32_t> DepartureCallback;

    /**
     * \brief Make this a switch port (its role; the switch that adopts it calls this):
     *        received packets go to the switch, and their blocks stay held in this port's VL
     *        buffer until ReleaseBlocks().
     * \param forward the switch's forwarding function
     * \param departure called when a forwarded packet leaves this port
     */
    void AttachToSwitch(ForwardCallback forward, DepartureCallback departure);

    /**
     * \brief Take a packet a switch forwards, to be sendable after the switch's latency:
     * as EnqueueForwarded() \p delay later, without an event of its own. The packet joins
     * its VL's queue now, marked not to leave before \p delay from now (chosen earlier, it
     * starts then). With CompletionPerFrame, for VL15, or while the link is down, it is an
     * event \p delay later, as before.
     * \param delay the switch's latency for this packet
     * \param p the packet
     * \param vl the output VL
     * \param ingress the switch ingress port
     * \param inVl the VL whose buffer it holds at the ingress
     */
    void EnqueueAfter(Time delay, Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);

    /**
     * \brief Queue a packet for output on a VL (switch egress).
     * \param p the packet
     * \param vl its VL
     * \param ingress the switch port it came in on (reported at its departure)
     * \param inVl the VL it came in on (whose blocks it holds there)
     */
    void EnqueueForwarded(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);

    /**
     * \brief A packet received on this port left its switch: free its blocks (and report
     *        them upstream when due).
     * \param vl its VL
     * \param bytes its size
     */
    void ReleaseBlocks(uint8_t vl, uint32_t bytes);

    /**
     * \param vl a data VL
     * \return bytes queued for output on it
     */
    uint32_t GetQueuedBytes(uint8_t vl) const;

    /**
     * \param vl a data VL
     * \return the high-water mark of its output queue (bytes)
     */
    uint32_t GetMaxQueuedBytes(uint8_t vl) const;

    /**
     * \param vl a data VL
     * \return true while its head packet waits for credits
     */
    bool IsCreditStalled(uint8_t vl) const;

    /// \return the interval of flow-control updates in force (attribute, or derived)
    Time GetFlowControlPeriod() const;

    // NetDevice: ai-fabric's IB ports carry the RC transport only (no IPoIB).
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;

    // Queue state (FabricNetDevice): the data VLs.
    uint32_t GetNTrafficClasses() const override;
    const char* GetTrafficClassName() const override;
    uint64_t GetClassQueuedBytes(uint8_t cls) const override;
    void GetClassSources(uint8_t cls,
                         std::vector<std::pair<uint16_t, uint8_t>>& sources) const override;

  protected:
    void DoDispose() override;
    void DoInitialize() override;
    Ptr<Packet> DequeueForTransmit() override;
    bool HasPendingFrames() const override;

    /**
     * \brief EnqueueForwarded() at the end of the switch's latency (EnqueueAfter()).
     * \param p the packet
     * \param vl the output VL
     * \param ingress the switch ingress port
     * \param inVl the VL whose buffer it holds at the ingress
     */
    void DelayedEnqueue(Ptr<Packet> p, uint8_t vl, uint16_t ingress, uint8_t inVl);
    void DoReceive(Ptr<Packet> p) override;
    void DoLinkChange(bool up) override;

    /// The link went down: discard what waits for it (LinkDown drops), freeing its buffers.
    void Flush();

  private:
    /// A packet waiting at an output VL.
    struct Queued
    {
        Ptr<Packet> packet; //!< the packet
        uint16_t ingress;   //!< the switch port it came in on (NO_INGRESS: from the adapter)
        uint8_t inVl;       //!< the VL it came in on (its blocks are held there)
        Time ready{};       //!< it may not leave before (the switch's latency)
    };

    /// Output state of one data VL (its credits are the flow control's).
    struct Lane
    {
        std::deque<Queued> queue;   //!< ready to send
        uint32_t queuedBytes{0};    //!< bytes in queue
        uint32_t maxQueuedBytes{0}; //!< high-water mark
    };

    /**
     * \brief Add the LRH and VCRC to a transport packet.
     * \param p the packet, starting at the BTH
     * \param meta its addressing (LIDs)
     */
    void Encapsulate(Ptr<Packet> p, const RdmaPacketMeta& meta) const;

    /**
     * \brief Transport callback: queue an ACK or NAK.
     * \param p the packet
     * \param meta its addressing
     */
    void SendRdmaControl(Ptr<Packet> p, const RdmaPacketMeta& meta);

    /// Transport callback: a QP has data.
    void DataReady();

    /**
     * \brief Flow-control callback: queue a flow-control packet ahead of data, and send it
     *        when the wire allows (never ahead of a packet chosen before it, SendInGap: its
     *        FCTBS counts that packet).
     * \param p the packet
     */
    void QueueFlowControl(Ptr<Packet> p);

    /**
     * \brief The scheduler asks: may the VL send its head packet now (pulling one from the
     *        transport if it is the transport's VL and empty)? Keeps the VL's credit-stall
     *        time (FabricEgressClasses).
     * \param vl the VL
     * \return true if it has a packet and the credits for it
     */
    bool IsSendable(uint8_t vl) override;

    /**
     * \brief Send the head packet of an eligible VL.
     * \param vl the VL
     * \return the packet
     */
    Ptr<Packet> Take(uint8_t vl);

    /**
     * \brief A VL15 packet arrived: a switch port forwards it if its VL15 buffer has room
     *        (else drops it), an adapter hands the MAD to the management callback.
     * \param p the packet
     * \param lrh its first bytes (the LRH)
     */
    void ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh);

    /// \param text the SL-to-VL table (attribute setter; aborts on a malformed table)
    void SetSlToVl(std::string text);
    /// \return the SL-to-VL table's text
    std::string GetSlToVl() const;

    /// Ingress of a packet that did not come through a switch
    static constexpr uint16_t NO_INGRESS = 0xFFFF;

    Time m_readyLimit{Time::Max()};         //!< heads ready by this may be chosen (dequeue)
    ForwardCallback m_forwardCb;            //!< switch forwarding (null on a NIC port)
    uint32_t m_delayedEnqueues{0};          //!< forwarded packets still in the pipeline
    DepartureCallback m_departureCb;        //!< to the switch: a forwarded packet left
    Ptr<RdmaTransport> m_transport;         //!< NIC transport
    uint16_t m_lid{0};                      //!< local identifier (base LID)
    uint32_t m_lmc{0};                      //!< LID mask control
    bool m_pathBitsFromQp{true};            //!< DLID path bits from the QP entropy
    uint32_t m_dataVls{1};                  //!< data VLs
    uint8_t m_sl{0};                        //!< service level of the transport's traffic
    std::string m_slToVlText;               //!< SlToVl attribute
    std::vector<uint8_t> m_slToVl;          //!< SL-to-VL table (empty: SL mod DataVls)
    std::array<Lane, MAX_DATA_VLS> m_lanes; //!< per data VL
    std::deque<Ptr<Packet>> m_fcQueue;      //!< flow-control packets to send, ahead of data
    std::deque<std::pair<Ptr<Packet>, uint16_t>> m_mgmtQueue; //!< VL15: (packet, ingress)
    uint32_t m_vl15BufferBytes{0};          //!< Vl15BufferBytes: receive buffer of VL15
    uint32_t m_vl15Occupied{0};             //!< VL15 receive buffer in use (switch ports)
    uint64_t m_mgmtSent{0};                 //!< management packets sent
    ManagementCallback m_mgmtCb;            //!< MADs for this adapter
    Ptr<FabricCongestionMarker> m_marker;   //!< FECN at switch egress (attribute Marker)
    Ptr<IbCreditFlowControl> m_fc;          //!< per-VL credits (attribute FlowControl)
    Ptr<FabricEgressScheduler> m_scheduler; //!< VL arbitration (attribute Scheduler)
};

} // namespace ns3

#endif /* IB_NET_DEVICE_H */
