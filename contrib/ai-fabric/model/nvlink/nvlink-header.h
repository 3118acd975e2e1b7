/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLINK_HEADER_H
#define NVLINK_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The model's NVLink packet header: what the simulation needs of NVLink's (unpublished)
 *        packet format, 32 bytes.
 *
 * Type (1: data 0, credit 1, NVLS reduce 2, NVLS multicast 3), reserved (1), source GPU (2),
 * destination GPU (2), the sender's message slot (2), bytes (4: the payload of a data packet,
 * or the credit a credit packet returns), tag (4), message bytes (8: the whole message a data
 * packet belongs to), packet index within the message (4), group size (2: the GPUs an NVLS
 * packet involves), reserved (2). GPUs are numbered within their NVLink domain. All fields
 * big-endian.
 */
class NvLinkHeader : public Header
{
  public:
    /// Packet types
    enum Type : uint8_t
    {
        DATA = 0,           //!< a piece of a message
        CREDIT = 1,         //!< link-level flow control: buffer bytes freed at the sender of it
        NVLS_REDUCE = 2,    //!< one GPU's contribution to an in-switch reduction for dstGpu
        NVLS_MULTICAST = 3, //!< data the switch copies to every GPU of the group
    };

    /// Bytes on the wire
    static constexpr uint32_t SIZE = 32;

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

    Type type{DATA};          //!< data or credit
    uint16_t srcGpu{0};       //!< sending GPU (domain index)
    uint16_t dstGpu{0};       //!< receiving GPU (domain index)
    uint16_t slot{0};         //!< the sender's message slot
    uint32_t bytes{0};        //!< payload bytes (data) or credit bytes (credit)
    uint32_t tag{0};          //!< the message's tag
    uint64_t messageBytes{0}; //!< the message's payload bytes
    uint32_t index{0};        //!< the packet's index in its message
    uint16_t groupSize{0};    //!< GPUs of an NVLS reduction or multicast
};

} // namespace ns3

#endif /* NVLINK_HEADER_H */
