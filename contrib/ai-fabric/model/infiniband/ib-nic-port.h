/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_NIC_PORT_H
#define IB_NIC_PORT_H

#include "ns3/ib-net-device.h"
#include "ns3/rdma-transport.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An InfiniBand adapter's port (HCA port), the role that carries the RC transport.
 *
 * Data packets of the QPs travel on the VL of the port's service level (Sl attribute,
 * SL-to-VL: SL mod DataVls), and so do ACKs and NAKs, behind at most one data packet waiting
 * for credits. Received packets addressed to its LID (or its LMC's block) go to the transport
 * at once, so their blocks are freed as they arrive. It sends and receives management
 * datagrams on VL15 (SendManagement(), SetManagementCallback()).
 */
class IbNicPort
    : public IbNetDevice
    , public RdmaNicPort
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbNicPort();
    ~IbNicPort() override;

    /**
     * \brief Give the port the adapter's transport (which it owns).
     * \param transport the NIC's RC transport
     */
    void SetTransport(Ptr<RdmaTransport> transport);

    /// \return the transport, or nullptr before SetTransport()
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

  protected:
    void DoDispose() override;
    bool HasPendingFrames() const override;
    void ReceiveData(Ptr<Packet> p, uint8_t vl, uint32_t blocks, const uint8_t* h) override;
    void ReceiveManagement(Ptr<Packet> p, const uint8_t* lrh) override;
    void FillFromTransport(uint8_t vl) override;
    uint32_t TransportLanes() const override;

  private:
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

    Ptr<RdmaTransport> m_transport; //!< the adapter's transport
    uint16_t m_lid{0};              //!< local identifier (base LID)
    uint32_t m_lmc{0};              //!< LID mask control
    bool m_pathBitsFromQp{true};    //!< DLID path bits from the QP entropy
    uint8_t m_sl{0};                //!< service level of the transport's traffic
    ManagementCallback m_mgmtCb;    //!< MADs for this adapter
};

} // namespace ns3

#endif /* IB_NIC_PORT_H */
