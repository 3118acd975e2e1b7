/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief IEEE 802.1Qbb priority-based flow control frame: the MAC control payload after an
 * Ethernet header with EtherType 0x8808 sent to 01:80:C2:00:00:01.
 *
 * Opcode 0x0101, a class-enable vector (bit p enables priority p), and eight pause times in
 * quanta of 512 bit times; a pause time of 0 releases the priority (XON). The frame is padded
 * to Ethernet's 60-byte minimum, so the payload is 46 bytes on the wire (26 of them padding).
 */
class PfcHeader : public Header
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

    /// EtherType of MAC control frames
    static constexpr uint16_t ETHERTYPE_MAC_CONTROL = 0x8808;
    /// MAC control opcode of PFC
    static constexpr uint16_t OPCODE_PFC = 0x0101;
    /// Payload size with padding: a minimum Ethernet frame (60 bytes) less its 14-byte header
    static constexpr uint32_t SIZE = 46;
    /// Bit times in one pause quantum
    static constexpr uint32_t QUANTUM_BITS = 512;
    /// The largest pause time
    static constexpr uint16_t MAX_QUANTA = 0xFFFF;

    /**
     * \brief PFC headroom of a port: what may still arrive after it sends XOFF, as SONiC
     *        computes it: a frame in flight at each end, the cable's round trip and the peer's
     *        response time.
     * \param bitRate the link rate (bit/s)
     * \param cableDelay the cable's one-way delay
     * \param maxFrameBytes the largest frame on the wire (bytes)
     * \param responseQuanta the peer's response time (quanta of 512 bit times)
     * \return the headroom (bytes)
     */
    static uint32_t HeadroomBytes(uint64_t bitRate,
                                  Time cableDelay,
                                  uint32_t maxFrameBytes,
                                  uint32_t responseQuanta);

    /**
     * \brief Pause (or, with zero quanta, release) one priority.
     * \param priority 0..7
     * \param quanta pause time in quanta of 512 bit times
     */
    void SetPause(uint8_t priority, uint16_t quanta);

    /**
     * \param priority 0..7
     * \return true if the class-enable vector has that priority
     */
    bool IsEnabled(uint8_t priority) const;

    /**
     * \param priority 0..7
     * \return its pause time (quanta)
     */
    uint16_t GetQuanta(uint8_t priority) const;

    /// \return the class-enable vector
    uint16_t GetClassEnableVector() const;

    /// \return the opcode read from the wire
    uint16_t GetOpcode() const;

  private:
    uint16_t m_opcode{OPCODE_PFC};      //!< MAC control opcode
    uint16_t m_classEnable{0};          //!< class-enable vector
    std::array<uint16_t, 8> m_quanta{}; //!< pause times by priority
};

} // namespace ns3

#endif /* PFC_HEADER_H */
