/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_NET_DEVICE_H
#define IB_NET_DEVICE_H

#include "ns3/fabric-congestion-marker.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-net-device.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/ib-vl-arbiter.h"

#include <array>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An InfiniBand port (IBTA vol. 1, chapter 7), what its two roles share: LRH / BTH /
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
 * Data VLs with a packet and credits are served by the port's egress scheduler (attribute
 * Scheduler; IBTA VL arbitration, IbVlArbiter, by default); VL15 (subnet management) goes
 * ahead of them without credits. The credits are the port's flow control (attribute
 * FlowControl, IbCreditFlowControl).
 *
 * The class is abstract: a port is created as one of its roles, an adapter's port
 * (IbNicPort, carrying the RC transport) or a switch's (IbSwitchPort), each with its
 * attributes and what it does with the packets it receives.
 */
class IbNetDevice
    : public FabricNetDevice
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
    void DoReceive(Ptr<Packet> p) override;
    void DoLinkChange(bool up) override;

    /// The link went down: discard what waits for it (LinkDown drops), freeing its buffers.
    void Flush();

    /**
     * \brief A data packet arrived on a VL and its blocks are charged to the VL's buffer: the
     *        role takes it (a switch port forwards it, an adapter hands it to its transport).
     * \param p the packet
     * \param vl its VL
     * \param blocks its blocks
     * \param h its first bytes: the LRH and the BTH up to its FECN byte
     */
    virtual void ReceiveData(Ptr<Packet> p, uint8_t vl, uint32_t blocks, const uint8_t* h) = 0;

    /**
     * \brief A VL15 packet arrived: a switch port forwards it if its VL15 buffer has room
     *        (else drops it), an adapter hands the MAD to its management callback.
     * \param p the packet
     * \param lrh its first bytes (the LRH)
     */
    virtual void ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh) = 0;

    /**
     * \brief A packet that came through a switch left this port, or was dropped here: the
     *        switch port frees its blocks at its ingress (the base class: nothing to free).
     * \param ingress its ingress port
     * \param vl the VL whose buffer it holds there (MANAGEMENT_VL for VL15)
     * \param bytes its size
     */
    virtual void Departed(uint16_t ingress, uint8_t vl, uint32_t bytes);

    /**
     * \brief A data VL is empty when the scheduler asks for it: an adapter fills the
     *        transport's VL with the transport's next packet (the base class: nothing).
     *        Asked only for the VLs in TransportLanes().
     * \param vl the VL
     */
    virtual void FillFromTransport(uint8_t vl);

    /// \return bit mask of the data VLs a transport fills when asked (FillFromTransport());
    ///         the base class: none
    virtual uint32_t TransportLanes() const;

    /**
     * \brief Queue a packet at a data VL.
     * \param p the packet
     * \param vl the VL
     * \param ingress its ingress port (NO_INGRESS: from the adapter)
     * \param inVl the VL whose blocks it holds at the ingress
     * \param ready it may not leave before (0: at once)
     * \param peak count it in the VL's high-water mark (an adapter's ACKs are not)
     */
    void EnqueueData(Ptr<Packet> p,
                     uint8_t vl,
                     uint16_t ingress,
                     uint8_t inVl,
                     Time ready = Time(),
                     bool peak = true);

    /**
     * \brief Queue a VL15 packet, ahead of every data VL.
     * \param p the packet
     * \param ingress its ingress port (NO_INGRESS: from the adapter)
     */
    void EnqueueManagement(Ptr<Packet> p, uint16_t ingress);

    /// \return true if no data VL, nor the flow-control or VL15 queue, holds a packet
    bool QueuesEmpty() const
    {
        return m_nonEmptyLanes == 0 && m_fcQueue.empty() && m_mgmtQueue.empty();
    }

    /// Ingress of a packet that did not come through a switch
    static constexpr uint16_t NO_INGRESS = 0xFFFF;

    uint32_t m_dataVls{1};         //!< data VLs
    Ptr<IbCreditFlowControl> m_fc; //!< per-VL credits (attribute FlowControl)

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
     * \brief IsSendable() itself, for the scheduler run inline.
     * \param vl the VL
     * \return true if it has a packet and the credits for it
     */
    bool Sendable(uint8_t vl);

    /**
     * \brief Send the head packet of an eligible VL.
     * \param vl the VL
     * \return the packet
     */
    Ptr<Packet> Take(uint8_t vl);

    /// \param text the SL-to-VL table (attribute setter; aborts on a malformed table)
    void SetSlToVl(std::string text);
    /// \return the SL-to-VL table's text
    std::string GetSlToVl() const;

    Time m_readyLimit{Time::Max()};         //!< heads ready by this may be chosen (dequeue)
    std::string m_slToVlText;               //!< SlToVl attribute
    std::vector<uint8_t> m_slToVl;          //!< SL-to-VL table (empty: SL mod DataVls)
    std::array<Lane, MAX_DATA_VLS> m_lanes; //!< per data VL
    uint32_t m_nonEmptyLanes{0};            //!< bit v: data VL v holds a packet
    std::deque<Ptr<Packet>> m_fcQueue;      //!< flow-control packets to send, ahead of data
    std::deque<std::pair<Ptr<Packet>, uint16_t>> m_mgmtQueue; //!< VL15: (packet, ingress)
    uint64_t m_mgmtSent{0};                                   //!< management packets sent
    Ptr<FabricCongestionMarker> m_marker;   //!< FECN at switch egress (attribute Marker)
    Ptr<FabricEgressScheduler> m_scheduler; //!< VL arbitration (attribute Scheduler)
    IbVlArbiter* m_plainArbiter{nullptr};   //!< m_scheduler, run inline, if plain IbVlArbiter
};

} // namespace ns3

#endif /* IB_NET_DEVICE_H */
