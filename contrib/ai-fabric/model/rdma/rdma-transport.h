/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_TRANSPORT_H
#define RDMA_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/rdma-headers.h"

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace ns3
{

class Packet;
class RdmaQueuePair;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * What a NIC port and its transport tell each other about one packet, beyond its bytes.
 */
struct RdmaPacketMeta
{
    uint32_t srcAddress{0};       //!< sender's fabric address (IPv4 as integer, or LID)
    uint32_t dstAddress{0};       //!< receiver's fabric address
    uint16_t entropy{0};          //!< flow entropy (RoCEv2 UDP source port)
    bool congestionMarked{false}; //!< ECN CE (RoCEv2) or FECN (IB) seen on arrival
    bool control{false};          //!< ACK, NAK or CNP (sent in the control class)
};

/**
 * \ingroup ai-fabric
 * \brief The IBTA RC transport of one NIC: its queue pairs and its QP scheduler.
 *
 * The same transport serves InfiniBand and RoCEv2 NICs; the port device only encapsulates.
 * The port pulls data packets with DequeueData() when it may send (round robin over the QPs
 * that have data and whose congestion control allows them to send now) and hands received
 * transport packets (starting at the BTH) to Receive(). Control packets (ACK, NAK, CNP) are
 * pushed to the port through the send callback as soon as they are generated.
 *
 * NIC latency is modelled at the two ends of the host interface: a posted work request
 * reaches the wire scheduler TxLatency after the post (doorbell, WQE fetch, DMA read), and a
 * completion or an arrived message is visible to the application RxLatency after the packet
 * that caused it reached the port (DMA write, CQE).
 */
class RdmaTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaTransport();
    ~RdmaTransport() override;

    /// First QP number handed out (0 and 1 are reserved by the IBTA for SMI and GSI).
    static constexpr uint32_t FIRST_QPN = 0x100;

    /// Port callback for control packets: (packet starting at the BTH, meta).
    typedef Callback<void, Ptr<Packet>, const RdmaPacketMeta&> SendCallback;

    /**
     * \brief Create a queue pair on this NIC.
     * \return the new QP (not yet connected)
     */
    Ptr<RdmaQueuePair> CreateQueuePair();

    /**
     * \param address a NIC's fabric address
     * \param qpn the number of one of its QPs
     * \return that QP's flow entropy (the RoCEv2 UDP source port; an IB QP's path bits under
     *         an LMC), a hash of the two
     */
    static uint16_t EntropyOf(uint32_t address, uint32_t qpn);

    /**
     * \param qpn a QP number
     * \return the QP, or nullptr if this NIC has none with that number
     */
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;

    /// \return the number of QPs created
    uint32_t GetNQueuePairs() const;

    /**
     * \brief Set an attribute of the QPs this transport creates from now on.
     * \param name attribute name of ns3::RdmaQueuePair
     * \param value its value
     */
    void SetQueuePairAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the congestion control of the QPs created from now on.
     * \param name attribute name of the CongestionControl type (e.g. ns3::RdmaCcDcqcn)
     * \param value its value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Connect two QPs (on this or another NIC) to each other, drawing initial PSNs.
     * \param local a QP of this transport
     * \param remote a QP of the peer's transport
     * \param remoteTransport the peer's transport
     */
    void ConnectQueuePairs(Ptr<RdmaQueuePair> local,
                           Ptr<RdmaQueuePair> remote,
                           Ptr<RdmaTransport> remoteTransport);

    /// \param address this NIC's fabric address (IPv4 as integer, or LID)
    void SetAddress(uint32_t address);
    /// \return this NIC's fabric address
    uint32_t GetAddress() const;

    /// \return the post-to-wire latency
    Time GetTxLatency() const;
    /// \return the wire-to-application latency
    Time GetRxLatency() const;

    /**
     * \brief Use the given stream for this transport's random numbers (initial PSNs).
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * \brief The BTH opcode of the congestion notification packets this transport's QPs send:
     *        set by the port (ROCE_CNP, the default, on RoCEv2; IB_CNP on InfiniBand).
     * \param opcode the opcode
     */
    void SetCnpOpcode(uint8_t opcode);

    /// \return the CNP opcode
    uint8_t GetCnpOpcode() const;

    /// \return true if responders echo congestion marks in their ACKs (AckEcnEcho)
    bool GetAckEcnEcho() const
    {
        return m_ackEcnEcho;
    }

    /**
     * \brief Called by the port device that carries this transport.
     * \param lineRate the port's rate
     * \param encapsulationBytes bytes the port adds to every transport packet on the wire
     *        (its headers and per-frame overhead)
     * \param sendControl called with each ACK/NAK/CNP to send
     * \param dataReady called when a QP gains data to send while none was ready
     */
    void AttachPort(DataRate lineRate,
                    uint32_t encapsulationBytes,
                    SendCallback sendControl,
                    Callback<void> dataReady);

    /**
     * \brief The next data packet, chosen round robin among ready QPs.
     * \param meta filled with the packet's addressing
     * \return the packet (starting at the BTH), or nullptr if no QP may send now
     */
    Ptr<Packet> DequeueData(RdmaPacketMeta& meta);

    /// \return true if a QP may send now
    bool HasReadyData() const;

    /**
     * \brief A transport packet arrived at the port.
     * \param p the packet, starting at the BTH
     * \param meta its addressing and congestion mark
     * \return false if no QP of this NIC takes it (the port counts the drop)
     */
    bool Receive(Ptr<Packet> p, const RdmaPacketMeta& meta);

  protected:
    void DoDispose() override;

  private:
    friend class RdmaQueuePair;

    /**
     * \brief A QP may have gained data to send.
     * \param qp the QP
     */
    void NotifyDataReady(RdmaQueuePair* qp);

    /**
     * \brief Send a control packet of a QP through the port.
     * \param p the packet, starting at the BTH
     * \param qp the QP that sends it
     */
    void SendControl(Ptr<Packet> p, const RdmaQueuePair* qp);

    /// PCIe has read the last packet: the port may take the next.
    void PcieDone();

    /**
     * \brief A paced QP may send again.
     * \param index its index
     */
    void PacingDone(uint32_t index);

    /**
     * \brief A QP's congestion control changed its rate: a pacing wait computed at the old
     *        rate is recomputed at the new one, from the start of the last packet.
     * \param index the QP's index
     */
    void RateChanged(uint32_t index);

    /// Pacing state of one QP.
    struct Pacing
    {
        EventId event;        //!< when the QP may send again (running while it waits)
        Time lastStart;       //!< start of its last data packet
        uint32_t lastWire{0}; //!< that packet's bytes on the wire
    };

    /**
     * \param qpn a QP number
     * \return its index, or m_qps.size() if it is not ours
     */
    std::size_t IndexOf(uint32_t qpn) const;

    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< QPs by index (QPN - FIRST_QPN)
    std::vector<uint8_t> m_scheduled;      //!< per QP: in the ready ring or pacing
    std::vector<Pacing> m_pacing;          //!< per QP
    std::deque<uint32_t> m_ready;          //!< ready ring of QP indices
    ObjectFactory m_qpFactory;             //!< creates QPs
    TypeId m_ccType;                       //!< congestion control of new QPs
    bool m_ackEcnEcho{false};              //!< BECN on ACKs after a marked packet
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes; //!< for it
    Ptr<UniformRandomVariable> m_psnRng;                                     //!< initial PSNs
    uint32_t m_address{0};                                                   //!< fabric address
    Time m_txLatency;                                                        //!< post to wire
    Time m_rxLatency;                 //!< wire to application
    DataRate m_lineRate;              //!< port rate
    uint32_t m_encapsulationBytes{0}; //!< port's bytes per packet on the wire
    uint8_t m_cnpOpcode{ROCE_CNP};    //!< BTH opcode of the CNPs the QPs send
    SendCallback m_sendControl;       //!< to the port
    Callback<void> m_dataReady;       //!< to the port
    DataRate m_pcieRate;              //!< PcieRate (0: not limited)
    Time m_pcieFree;                  //!< when PCIe can read the next packet
    EventId m_pcieEvent;              //!< wakes the port when it can
};

/**
 * \ingroup ai-fabric
 * \brief The role of a port that carries an RDMA transport: the NIC port of any fabric.
 *
 * Helpers and statistics reach a NIC's transport through this interface, whatever the fabric
 * (RoceNetDevice, IbNetDevice, ...), instead of testing the port's class.
 */
class RdmaNicPort
{
  public:
    virtual ~RdmaNicPort() = default;

    /// \return the transport this port carries; nullptr for a port of the same class that is
    ///         a switch's
    virtual Ptr<RdmaTransport> GetTransport() const = 0;
};

} // namespace ns3

#endif /* RDMA_TRANSPORT_H */
