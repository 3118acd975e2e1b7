/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// BthHeader, RethHeader, AethHeader and IcrcTrailer: sizes, the exact bytes at the IBTA offsets
// (IBTA spec vol. 1, 9.2-9.3), round trips, 24-bit fields and the NAK syndrome.

#include "ai-fabric-test-fixture.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \param p a packet
 * \return its bytes
 */
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/**
 * \param h a header
 * \return the bytes it serializes to, alone in a packet
 */
std::vector<uint8_t>
Serialize(const Header& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    return Bytes(p);
}

class RdmaHeadersTest : public AiFabricTest
{
};

} // namespace

// The sizes the IBTA gives: BTH 12, RETH 16, AETH 4, ICRC 4; a packet grows by exactly that.
TEST_F(RdmaHeadersTest, SerializedSizes)
{
    EXPECT_EQ(BthHeader::SIZE, 12u);
    EXPECT_EQ(RethHeader::SIZE, 16u);
    EXPECT_EQ(AethHeader::SIZE, 4u);
    EXPECT_EQ(IcrcTrailer::SIZE, 4u);
    EXPECT_EQ(BthHeader().GetSerializedSize(), BthHeader::SIZE);
    EXPECT_EQ(RethHeader().GetSerializedSize(), RethHeader::SIZE);
    EXPECT_EQ(AethHeader().GetSerializedSize(), AethHeader::SIZE);
    EXPECT_EQ(IcrcTrailer().GetSerializedSize(), IcrcTrailer::SIZE);

    const uint32_t payload = 100;
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(RethHeader());
    EXPECT_EQ(p->GetSize(), payload + RethHeader::SIZE);
    p->AddHeader(BthHeader());
    EXPECT_EQ(p->GetSize(), payload + RethHeader::SIZE + BthHeader::SIZE);
    p->AddTrailer(IcrcTrailer());
    EXPECT_EQ(p->GetSize(), payload + RethHeader::SIZE + BthHeader::SIZE + IcrcTrailer::SIZE);
    Ptr<Packet> ack = Create<Packet>();
    ack->AddHeader(AethHeader());
    EXPECT_EQ(ack->GetSize(), AethHeader::SIZE);
}

// The IBTA opcodes of RC (table 38) and the RoCEv2 CNP (Annex A17).
TEST_F(RdmaHeadersTest, OpcodesAreIbtaValues)
{
    EXPECT_EQ(RC_SEND_ONLY, 0x04);
    EXPECT_EQ(RC_RDMA_WRITE_FIRST, 0x06);
    EXPECT_EQ(RC_RDMA_WRITE_MIDDLE, 0x07);
    EXPECT_EQ(RC_RDMA_WRITE_LAST, 0x08);
    EXPECT_EQ(RC_RDMA_WRITE_ONLY, 0x0A);
    EXPECT_EQ(RC_ACKNOWLEDGE, 0x11);
    EXPECT_EQ(ROCE_CNP, 0x81);
    EXPECT_EQ(RDMA_PSN_MASK, 0xFFFFFFu);
}

// BTH byte by byte: opcode (0), SE|M|PadCnt|TVer (1), P_Key (2-3), FECN|BECN (4),
// DestQP (5-7), AckReq (8), PSN (9-11), all big-endian.
TEST_F(RdmaHeadersTest, BthByteLayout)
{
    BthHeader bth;
    bth.SetOpcode(RC_RDMA_WRITE_ONLY);
    bth.SetPadCount(2);
    bth.SetDestQp(0x123456);
    bth.SetAckRequest(true);
    bth.SetPsn(0xABCDEF);
    std::vector<uint8_t> b = Serialize(bth);
    ASSERT_EQ(b.size(), BthHeader::SIZE);
    EXPECT_EQ(b[0], RC_RDMA_WRITE_ONLY);
    EXPECT_EQ(b[1] & 0x80, 0);       // SE clear
    EXPECT_EQ(b[1] & 0x40, 0x40);    // M set: the default migration state NICs send
    EXPECT_EQ((b[1] >> 4) & 0x3, 2); // PadCnt
    EXPECT_EQ(b[1] & 0x0F, 0);       // TVer 0
    EXPECT_EQ(b[2], 0xFF);           // P_Key 0xFFFF, the default partition
    EXPECT_EQ(b[3], 0xFF);
    EXPECT_EQ(b[4], 0x00); // FECN, BECN clear, reserved
    EXPECT_EQ(b[5], 0x12); // DestQP, big-endian
    EXPECT_EQ(b[6], 0x34);
    EXPECT_EQ(b[7], 0x56);
    EXPECT_EQ(b[8], 0x80); // AckReq
    EXPECT_EQ(b[9], 0xAB); // PSN, big-endian
    EXPECT_EQ(b[10], 0xCD);
    EXPECT_EQ(b[11], 0xEF);

    // Every pad count lands in bits 5..4 of byte 1 and nowhere else.
    for (uint8_t pad = 0; pad < 4; ++pad)
    {
        BthHeader h;
        h.SetPadCount(pad);
        const std::vector<uint8_t> c = Serialize(h);
        EXPECT_EQ(c[1], 0x40 | (pad << 4)) << "pad " << unsigned(pad);
    }

    // The other bits: SE, FECN, BECN, a non-default P_Key, AckReq clear.
    BthHeader other;
    other.SetOpcode(RC_ACKNOWLEDGE);
    other.SetSolicitedEvent(true);
    other.SetPartitionKey(0x8001);
    other.SetFecn(true);
    other.SetBecn(true);
    other.SetAckRequest(false);
    b = Serialize(other);
    EXPECT_EQ(b[0], RC_ACKNOWLEDGE);
    EXPECT_EQ(b[1], 0x80 | 0x40);
    EXPECT_EQ(b[2], 0x80);
    EXPECT_EQ(b[3], 0x01);
    EXPECT_EQ(b[4], 0x80 | 0x40);
    EXPECT_EQ(b[8], 0x00);
}

// A BTH parsed from bytes written by hand (as another implementation would send them).
TEST_F(RdmaHeadersTest, BthParsesWireBytes)
{
    const uint8_t wire[BthHeader::SIZE]
        = {0x07, 0xB0, 0x12, 0x34, 0x40, 0xFE, 0xDC, 0xBA, 0x80, 0x01, 0x02, 0x03};
    Ptr<Packet> p = Create<Packet>(wire, sizeof(wire));
    BthHeader bth;
    EXPECT_EQ(p->RemoveHeader(bth), BthHeader::SIZE);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_EQ(bth.GetOpcode(), RC_RDMA_WRITE_MIDDLE);
    EXPECT_TRUE(bth.GetSolicitedEvent());
    EXPECT_EQ(bth.GetPadCount(), 3);
    EXPECT_EQ(bth.GetPartitionKey(), 0x1234);
    EXPECT_FALSE(bth.GetFecn());
    EXPECT_TRUE(bth.GetBecn());
    EXPECT_EQ(bth.GetDestQp(), 0xFEDCBAu);
    EXPECT_TRUE(bth.GetAckRequest());
    EXPECT_EQ(bth.GetPsn(), 0x010203u);
}

// Serialize then deserialize gives back every field.
TEST_F(RdmaHeadersTest, BthRoundTrip)
{
    BthHeader in;
    in.SetOpcode(RC_RDMA_WRITE_FIRST);
    in.SetSolicitedEvent(true);
    in.SetPadCount(1);
    in.SetPartitionKey(0x7FFF);
    in.SetFecn(true);
    in.SetBecn(false);
    in.SetDestQp(0xC0FFEE);
    in.SetAckRequest(true);
    in.SetPsn(0xFFFFFF);
    Ptr<Packet> p = Create<Packet>(8);
    p->AddHeader(in);
    BthHeader out;
    EXPECT_EQ(p->RemoveHeader(out), BthHeader::SIZE);
    EXPECT_EQ(p->GetSize(), 8u);
    EXPECT_EQ(out.GetOpcode(), in.GetOpcode());
    EXPECT_EQ(out.GetSolicitedEvent(), in.GetSolicitedEvent());
    EXPECT_EQ(out.GetPadCount(), in.GetPadCount());
    EXPECT_EQ(out.GetPartitionKey(), in.GetPartitionKey());
    EXPECT_EQ(out.GetFecn(), in.GetFecn());
    EXPECT_EQ(out.GetBecn(), in.GetBecn());
    EXPECT_EQ(out.GetDestQp(), in.GetDestQp());
    EXPECT_EQ(out.GetAckRequest(), in.GetAckRequest());
    EXPECT_EQ(out.GetPsn(), in.GetPsn());
    // And serializing the parsed header again gives the same bytes.
    EXPECT_EQ(Serialize(out), Serialize(in));
}

// PSN and QPN are 24-bit: higher bits are dropped and never spill into the neighbouring byte.
TEST_F(RdmaHeadersTest, PsnAndQpnAreMaskedTo24Bits)
{
    BthHeader bth;
    bth.SetPsn(0x12345678);
    bth.SetDestQp(0xFF000001);
    EXPECT_EQ(bth.GetPsn(), 0x345678u);
    EXPECT_EQ(bth.GetDestQp(), 0x000001u);
    const std::vector<uint8_t> b = Serialize(bth);
    EXPECT_EQ(b[4], 0x00); // FECN/BECN byte untouched by the QPN's high bits
    EXPECT_EQ(b[5], 0x00);
    EXPECT_EQ(b[6], 0x00);
    EXPECT_EQ(b[7], 0x01);
    EXPECT_EQ(b[8], 0x00); // AckReq byte untouched by the PSN's high bits
    EXPECT_EQ(b[9], 0x34);
    EXPECT_EQ(b[10], 0x56);
    EXPECT_EQ(b[11], 0x78);

    // The wrap: 0xFFFFFF + 1 is 0.
    bth.SetPsn(RDMA_PSN_MASK + 1);
    EXPECT_EQ(bth.GetPsn(), 0u);

    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::SYNDROME_ACK);
    aeth.SetMsn(0x1ABCDEF);
    EXPECT_EQ(aeth.GetMsn(), 0xABCDEFu);
    const std::vector<uint8_t> a = Serialize(aeth);
    EXPECT_EQ(a[0], AethHeader::SYNDROME_ACK);
    EXPECT_EQ(a[1], 0xAB);
}

// RETH: virtual address (0-7), R_Key (8-11), DMA length (12-15), big-endian; and back.
TEST_F(RdmaHeadersTest, RethByteLayoutAndRoundTrip)
{
    RethHeader reth;
    reth.SetVirtualAddress(0x0102030405060708ULL);
    reth.SetRemoteKey(0x11223344);
    reth.SetDmaLength(0x80000000);
    const std::vector<uint8_t> b = Serialize(reth);
    const std::vector<uint8_t> expected = {0x01,
                                           0x02,
                                           0x03,
                                           0x04,
                                           0x05,
                                           0x06,
                                           0x07,
                                           0x08,
                                           0x11,
                                           0x22,
                                           0x33,
                                           0x44,
                                           0x80,
                                           0x00,
                                           0x00,
                                           0x00};
    EXPECT_EQ(b, expected);

    Ptr<Packet> p = Create<Packet>(b.data(), b.size());
    RethHeader out;
    EXPECT_EQ(p->RemoveHeader(out), RethHeader::SIZE);
    EXPECT_EQ(out.GetVirtualAddress(), reth.GetVirtualAddress());
    EXPECT_EQ(out.GetRemoteKey(), reth.GetRemoteKey());
    EXPECT_EQ(out.GetDmaLength(), reth.GetDmaLength());
}

// AETH: syndrome (0), MSN (1-3) big-endian; and back.
TEST_F(RdmaHeadersTest, AethByteLayoutAndRoundTrip)
{
    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR);
    aeth.SetMsn(0x0A0B0C);
    const std::vector<uint8_t> b = Serialize(aeth);
    const std::vector<uint8_t> expected
        = {AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR, 0x0A, 0x0B, 0x0C};
    EXPECT_EQ(b, expected);

    Ptr<Packet> p = Create<Packet>(b.data(), b.size());
    AethHeader out;
    EXPECT_EQ(p->RemoveHeader(out), AethHeader::SIZE);
    EXPECT_EQ(out.GetSyndrome(), AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR);
    EXPECT_EQ(out.GetMsn(), 0x0A0B0Cu);
    EXPECT_TRUE(out.IsNak());

    // A default AETH is an ACK without end-to-end credits: syndrome 000 11111.
    const std::vector<uint8_t> ack = Serialize(AethHeader());
    EXPECT_EQ(ack[0], 0x1F);
    EXPECT_FALSE(AethHeader().IsNak());
}

// IsNak is exactly "syndrome bits 7..5 are 011": every NAK code, and nothing else (ACK 000,
// RNR NAK 001, reserved 010/1xx).
TEST_F(RdmaHeadersTest, IsNakFollowsSyndromeBits)
{
    EXPECT_EQ(AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR, 0x60);
    for (uint32_t s = 0; s < 256; ++s)
    {
        AethHeader aeth;
        aeth.SetSyndrome(static_cast<uint8_t>(s));
        EXPECT_EQ(aeth.IsNak(), (s >> 5) == 0x3) << "syndrome 0x" << std::hex << s;
    }
}

// ICRC: 4 zero bytes at the end of the packet, removed from the end.
TEST_F(RdmaHeadersTest, IcrcTrailerAtTheEnd)
{
    const uint8_t payload[6] = {1, 2, 3, 4, 5, 6};
    Ptr<Packet> p = Create<Packet>(payload, sizeof(payload));
    BthHeader bth;
    bth.SetOpcode(RC_RDMA_WRITE_LAST);
    bth.SetPadCount(2);
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());
    const std::vector<uint8_t> b = Bytes(p);
    ASSERT_EQ(b.size(), BthHeader::SIZE + sizeof(payload) + IcrcTrailer::SIZE);
    EXPECT_EQ(b[0], RC_RDMA_WRITE_LAST);
    for (std::size_t i = 0; i < sizeof(payload); ++i)
    {
        EXPECT_EQ(b[BthHeader::SIZE + i], payload[i]);
    }
    for (std::size_t i = b.size() - IcrcTrailer::SIZE; i < b.size(); ++i)
    {
        EXPECT_EQ(b[i], 0);
    }
    IcrcTrailer icrc;
    EXPECT_EQ(p->RemoveTrailer(icrc), IcrcTrailer::SIZE);
    EXPECT_EQ(p->GetSize(), BthHeader::SIZE + sizeof(payload));
    BthHeader out;
    p->RemoveHeader(out);
    EXPECT_EQ(out.GetPadCount(), 2);
    const std::vector<uint8_t> rest = Bytes(p);
    EXPECT_EQ(rest, std::vector<uint8_t>(payload, payload + sizeof(payload)));
}

// Print names the fields (what NS_LOG and Packet::Print show).
TEST_F(RdmaHeadersTest, PrintShowsFields)
{
    BthHeader bth;
    bth.SetOpcode(RC_ACKNOWLEDGE);
    bth.SetDestQp(300);
    bth.SetPsn(42);
    bth.SetAckRequest(true);
    std::ostringstream os;
    bth.Print(os);
    EXPECT_NE(os.str().find("opcode=0x11"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("dqp=300"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("psn=42"), std::string::npos) << os.str();
    AethHeader aeth;
    aeth.SetSyndrome(AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR);
    std::ostringstream as;
    aeth.Print(as);
    EXPECT_NE(as.str().find("NAK"), std::string::npos) << as.str();
}
