/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_FRAME_BYTES_HEADER_H
#define FABRIC_FRAME_BYTES_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Header bytes written as they are: the fixed-format headers of a frame (a RoCEv2
 * frame's Ethernet II, IPv4 and UDP headers), built in one place and added in one step.
 *
 * ns-3 adds a header object by object, each a virtual serialization, a buffer growth and a
 * metadata entry, and an IPv4 checksum computed byte by byte; a switch that rewrites one field
 * (an ECN mark) parsed and wrote the headers again. On the per-packet path of a fabric that
 * is most of a packet's cost, so ai-fabric writes the bytes directly: the wire bytes are the
 * same (a capture opens in Wireshark as before, and the tests compare them with ns-3's header
 * classes), only Packet::Print() shows one header of raw bytes instead of three.
 */
class FrameBytesHeader : public Header
{
  public:
    /// Most bytes it holds
    static constexpr uint32_t MAX_BYTES = 64;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    /**
     * \brief Make room for \p n bytes, to be written by the caller.
     * \param n bytes (at most MAX_BYTES)
     * \return where to write them
     */
    uint8_t* Prepare(uint32_t n);

    /**
     * \brief Set the size to read with Deserialize() (RemoveHeader()).
     * \param n bytes (at most MAX_BYTES)
     */
    void SetSize(uint32_t n);

    /// \return the bytes
    const uint8_t* GetBytes() const;

    /// \return the bytes, to change some
    uint8_t* GetBytes();

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /**
     * \brief The Internet checksum (RFC 1071) of bytes with their checksum field zero.
     * \param bytes the bytes (an even number)
     * \param n how many
     * \return the checksum, as written in network byte order
     */
    static uint16_t InternetChecksum(const uint8_t* bytes, uint32_t n);

  private:
    std::array<uint8_t, MAX_BYTES> m_bytes{}; //!< the bytes
    uint32_t m_size{0};                       //!< how many
};

} // namespace ns3

#endif /* FABRIC_FRAME_BYTES_HEADER_H */
