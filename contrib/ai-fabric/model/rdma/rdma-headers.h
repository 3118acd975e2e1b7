/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_HEADERS_H
#define RDMA_HEADERS_H

#include "ns3/header.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * IBTA base transport opcodes used by ai-fabric (IBTA spec vol. 1, table 38: the top three
 * bits are the transport, 000 = RC, 011 = UD; 100 = CNP: 0x80 on InfiniBand, Annex A10, 0x81 on
 * RoCEv2, Annex A17).
 */
enum RdmaOpcode : uint8_t
{
    RC_SEND_ONLY = 0x04,                      //!< RC SEND Only
    RC_RDMA_WRITE_FIRST = 0x06,               //!< RC RDMA WRITE First (carries a RETH)
    RC_RDMA_WRITE_MIDDLE = 0x07,              //!< RC RDMA WRITE Middle
    RC_RDMA_WRITE_LAST = 0x08,                //!< RC RDMA WRITE Last
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09, //!< RC RDMA WRITE Last with Immediate (ImmDt)
    RC_RDMA_WRITE_ONLY = 0x0A,                //!< RC RDMA WRITE Only (carries a RETH)
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B, //!< RC RDMA WRITE Only with Immediate (RETH, ImmDt)
    RC_ACKNOWLEDGE = 0x11,                    //!< RC Acknowledge (carries an AETH)
    UD_SEND_ONLY = 0x64,                      //!< UD SEND Only (carries a DETH): MADs on QP0
    IB_CNP = 0x80,                            //!< InfiniBand CNP (IBTA Annex A10), with BECN
    ROCE_CNP = 0x81,                          //!< RoCEv2 Congestion Notification Packet
};

/// PSNs are 24-bit and wrap.
constexpr uint32_t RDMA_PSN_MASK = 0xFFFFFF;

/**
 * \ingroup ai-fabric
 * \brief IBTA Base Transport Header (12 bytes), carried by InfiniBand and RoCEv2 alike.
 *
 * Layout (IBTA spec vol. 1, 9.2): opcode (8), SE (1), M (1), PadCnt (2), TVer (4), P_Key (16),
 * FECN (1), BECN (1), reserved (6), DestQP (24), AckReq (1), reserved (7), PSN (24).
 */
class BthHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Size on the wire
    static constexpr uint32_t SIZE = 12;

    /// \param opcode the opcode (RdmaOpcode)
    void SetOpcode(uint8_t opcode);
    /// \return the opcode
    uint8_t GetOpcode() const;
    /// \param se solicited event bit
    void SetSolicitedEvent(bool se);
    /// \return the solicited event bit
    bool GetSolicitedEvent() const;
    /// \param padCount bytes of padding after the payload (0..3)
    void SetPadCount(uint8_t padCount);
    /// \return bytes of padding after the payload
    uint8_t GetPadCount() const;
    /// \param pkey the partition key
    void SetPartitionKey(uint16_t pkey);
    /// \return the partition key
    uint16_t GetPartitionKey() const;
    /// \param fecn forward explicit congestion notification bit
    void SetFecn(bool fecn);
    /// \return the FECN bit
    bool GetFecn() const;
    /// \param becn backward explicit congestion notification bit
    void SetBecn(bool becn);
    /// \return the BECN bit
    bool GetBecn() const;
    /// \param qpn destination queue pair number (24 bits)
    void SetDestQp(uint32_t qpn);
    /// \return the destination queue pair number
    uint32_t GetDestQp() const;
    /// \param ackReq the AckReq bit
    void SetAckRequest(bool ackReq);
    /// \return the AckReq bit
    bool GetAckRequest() const;
    /// \param psn packet sequence number (24 bits; higher bits are ignored)
    void SetPsn(uint32_t psn);
    /// \return the packet sequence number
    uint32_t GetPsn() const;

  private:
    uint8_t m_opcode{0};     //!< opcode
    bool m_solicited{false}; //!< SE
    bool m_migReq{true};     //!< M (migration state: 1 = migrated/armed-free, as NICs send)
    uint8_t m_padCount{0};   //!< PadCnt
    uint16_t m_pkey{0xFFFF}; //!< P_Key: the default full-membership partition
    bool m_fecn{false};      //!< FECN
    bool m_becn{false};      //!< BECN
    uint32_t m_destQp{0};    //!< DestQP
    bool m_ackReq{false};    //!< AckReq
    uint32_t m_psn{0};       //!< PSN
};

/**
 * \ingroup ai-fabric
 * \brief RDMA Extended Transport Header (16 bytes): virtual address, R_Key, DMA length.
 * Carried by the first (or only) packet of an RDMA WRITE (IBTA spec vol. 1, 9.3.3).
 */
class RethHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Size on the wire
    static constexpr uint32_t SIZE = 16;

    /// \param va remote virtual address
    void SetVirtualAddress(uint64_t va);
    /// \return remote virtual address
    uint64_t GetVirtualAddress() const;
    /// \param rkey remote key
    void SetRemoteKey(uint32_t rkey);
    /// \return remote key
    uint32_t GetRemoteKey() const;
    /// \param length bytes of the whole message
    void SetDmaLength(uint32_t length);
    /// \return bytes of the whole message
    uint32_t GetDmaLength() const;

  private:
    uint64_t m_va{0};     //!< virtual address
    uint32_t m_rkey{0};   //!< R_Key
    uint32_t m_length{0}; //!< DMA length
};

/**
 * \ingroup ai-fabric
 * \brief ACK Extended Transport Header (4 bytes): syndrome and MSN (IBTA spec vol. 1, 9.3.5).
 *
 * Syndrome bits 7..5: 000 ACK (bits 4..0 = credit count), 011 NAK (bits 4..0 = NAK code,
 * 00000 = PSN sequence error), 001 RNR NAK.
 */
class AethHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Size on the wire
    static constexpr uint32_t SIZE = 4;
    /// ACK syndrome with the credit count field set to "invalid" (no end-to-end credits)
    static constexpr uint8_t SYNDROME_ACK = 0x1F;
    /// NAK syndrome: PSN sequence error
    static constexpr uint8_t SYNDROME_NAK_PSN_SEQ_ERROR = 0x60;

    /// \param syndrome the syndrome byte
    void SetSyndrome(uint8_t syndrome);
    /// \return the syndrome byte
    uint8_t GetSyndrome() const;
    /// \return true if the syndrome is a NAK
    bool IsNak() const;
    /// \param msn message sequence number (24 bits)
    void SetMsn(uint32_t msn);
    /// \return message sequence number
    uint32_t GetMsn() const;

  private:
    uint8_t m_syndrome{SYNDROME_ACK}; //!< syndrome
    uint32_t m_msn{0};                //!< MSN
};

/**
 * \ingroup ai-fabric
 * \brief Immediate Data extended transport header (4 bytes), carried by the last (or only)
 * packet of an RDMA WRITE with Immediate (IBTA spec vol. 1, 9.3.1): 32 bits the requester
 * hands to the responder's application with the arrival of the message.
 */
class ImmDtHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Size on the wire
    static constexpr uint32_t SIZE = 4;

    /// \param data the immediate data
    void SetData(uint32_t data);
    /// \return the immediate data
    uint32_t GetData() const;

  private:
    uint32_t m_data{0}; //!< immediate data
};

/**
 * \ingroup ai-fabric
 * \brief Invariant CRC trailer (4 bytes) of an IBTA transport packet.
 *
 * Payload bytes are not materialised in ai-fabric, so the CRC is not computed: the field is
 * written as zero and counted in every size. Wireshark shows it unverified.
 */
class IcrcTrailer : public Trailer
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;
    void Print(std::ostream& os) const override;

    /// Size on the wire
    static constexpr uint32_t SIZE = 4;
};

} // namespace ns3

#endif /* RDMA_HEADERS_H */
