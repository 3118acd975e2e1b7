/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_HEADERS_H
#define IB_HEADERS_H

#include "ns3/header.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Local Route Header (IBTA vol. 1, 7.7), 8 bytes:
 * VL (4), LVer (4), SL (4), reserved (2), LNH (2), DLID (16), reserved (5), PktLen (11),
 * SLID (16). PktLen counts 4-byte words from the LRH to the ICRC, both included (the VCRC is
 * not counted).
 */
class LrhHeader : public Header
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
    static constexpr uint32_t SIZE = 8;
    /// Link Next Header: IBA local, a BTH follows (no GRH)
    static constexpr uint8_t LNH_IBA_LOCAL = 0x2;

    /// \param vl virtual lane (0-15)
    void SetVl(uint8_t vl);
    /// \return the virtual lane
    uint8_t GetVl() const;
    /// \param sl service level (0-15)
    void SetSl(uint8_t sl);
    /// \return the service level
    uint8_t GetSl() const;
    /// \param lnh link next header (2 bits)
    void SetLnh(uint8_t lnh);
    /// \return the link next header
    uint8_t GetLnh() const;
    /// \param lid destination LID
    void SetDlid(uint16_t lid);
    /// \return the destination LID
    uint16_t GetDlid() const;
    /// \param lid source LID
    void SetSlid(uint16_t lid);
    /// \return the source LID
    uint16_t GetSlid() const;
    /// \param words packet length in 4-byte words, LRH to ICRC (11 bits)
    void SetPktLen(uint16_t words);
    /// \return the packet length in 4-byte words
    uint16_t GetPktLen() const;

  private:
    uint8_t m_vl{0};              //!< virtual lane
    uint8_t m_sl{0};              //!< service level
    uint8_t m_lnh{LNH_IBA_LOCAL}; //!< link next header
    uint16_t m_dlid{0};           //!< destination LID
    uint16_t m_slid{0};           //!< source LID
    uint16_t m_pktLen{0};         //!< length in words
};

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Variant CRC (2 bytes), the last field of a data packet. ai-fabric writes
 * it as zero: link errors are modelled by error models, not by CRCs.
 */
class VcrcTrailer : public Trailer
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
    static constexpr uint32_t SIZE = 2;
};

/**
 * \ingroup ai-fabric
 * \brief InfiniBand flow-control packet (IBTA vol. 1, 7.9.4), 6 bytes: Op (4), FCTBS (12),
 * VL (4), FCCL (12), LPCRC (16). FCTBS is the sender's total blocks sent on the VL, FCCL the
 * receiver's credit limit, both in 64-byte blocks modulo 4096.
 */
class IbFlowControlHeader : public Header
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
    static constexpr uint32_t SIZE = 6;
    /// Op of a normal flow-control packet
    static constexpr uint8_t OP_NORMAL = 0x0;
    /// Op of an initialization flow-control packet
    static constexpr uint8_t OP_INIT = 0x1;
    /// The 12-bit counters wrap at this value
    static constexpr uint32_t MODULO = 4096;

    /// \param op OP_NORMAL or OP_INIT
    void SetOp(uint8_t op);
    /// \return the op
    uint8_t GetOp() const;
    /// \param vl the virtual lane
    void SetVl(uint8_t vl);
    /// \return the virtual lane
    uint8_t GetVl() const;
    /// \param fctbs total blocks sent (kept modulo 4096)
    void SetFctbs(uint32_t fctbs);
    /// \return total blocks sent modulo 4096
    uint16_t GetFctbs() const;
    /// \param fccl credit limit (kept modulo 4096)
    void SetFccl(uint32_t fccl);
    /// \return the credit limit modulo 4096
    uint16_t GetFccl() const;

  private:
    uint8_t m_op{OP_NORMAL}; //!< op
    uint8_t m_vl{0};         //!< virtual lane
    uint16_t m_fctbs{0};     //!< total blocks sent mod 4096
    uint16_t m_fccl{0};      //!< credit limit mod 4096
};

} // namespace ns3

#endif /* IB_HEADERS_H */
