/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// RDMA WRITE with Immediate: the opcodes and the ImmDt header on the wire, and the immediate
// data handed to the responder's application with each message, in order.

#include "ai-fabric-test-fixture.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

class RdmaImmediateTest : public AiFabricTest
{
};

/// A frame seen on the wire: its opcode and size.
struct Frame
{
    uint8_t opcode; //!< BTH opcode
    uint32_t size;  //!< frame bytes
};

/**
 * \param frames where to record
 * \param p a frame sent by the requester's NIC
 */
void
RecordFrame(std::vector<Frame>* frames, Ptr<const Packet> p)
{
    uint8_t bytes[RoceNetDevice::ENCAPSULATION_BYTES + 1];
    p->CopyData(bytes, sizeof(bytes));
    frames->push_back({bytes[RoceNetDevice::ENCAPSULATION_BYTES], p->GetSize()});
}

/// What the responder's application saw.
struct Arrival
{
    uint64_t bytes;     //!< message length
    uint32_t immediate; //!< immediate data
};

/**
 * \param arrivals where to record
 * \param qp the responder QP
 * \param bytes message length
 * \param immediate immediate data
 */
void
RecordImmediate(std::vector<Arrival>* arrivals,
                Ptr<RdmaQueuePair> /* qp */,
                uint64_t bytes,
                uint32_t immediate)
{
    arrivals->push_back({bytes, immediate});
}

} // namespace

TEST_F(RdmaImmediateTest, ImmediateDataArrivesWithEachMessage)
{
    const uint32_t mtu = 4096;
    NodeContainer hosts;
    hosts.Create(2);
    RoceFabricHelper fabric;
    fabric.SetQueuePairAttribute("Mtu", UintegerValue(mtu));
    fabric.InstallHosts(hosts);
    fabric.Connect(hosts.Get(0), hosts.Get(1));
    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    a->ConnectQueuePairs(qa, qb, b);

    std::vector<Frame> frames;
    fabric.GetNic(hosts.Get(0))
        ->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&RecordFrame, &frames));
    std::vector<Arrival> arrivals;
    qb->SetImmediateCallback(MakeBoundCallback(&RecordImmediate, &arrivals));

    // One packet with immediate; three packets with immediate; a plain write; one more.
    const std::vector<uint64_t> sizes = {100, 2 * mtu + 1000, 5000, 8};
    qa->PostWriteWithImmediate(sizes[0], 1, 0xDEADBEEF);
    qa->PostWriteWithImmediate(sizes[1], 2, 7);
    qa->PostWrite(sizes[2], 3);
    qa->PostWriteWithImmediate(sizes[3], 4, 0);
    Simulator::Run();

    // Only the writes with immediate reach the immediate callback, in order, whole.
    ASSERT_EQ(arrivals.size(), 3u);
    EXPECT_EQ(arrivals[0].bytes, sizes[0]);
    EXPECT_EQ(arrivals[0].immediate, 0xDEADBEEFu);
    EXPECT_EQ(arrivals[1].bytes, sizes[1]);
    EXPECT_EQ(arrivals[1].immediate, 7u);
    EXPECT_EQ(arrivals[2].bytes, sizes[3]);
    EXPECT_EQ(arrivals[2].immediate, 0u);
    EXPECT_EQ(qb->GetDeliveredBytes(), sizes[0] + sizes[1] + sizes[2] + sizes[3]);
    EXPECT_EQ(qb->GetDeliveredMessages(), 4u);

    // Data frames from the requester, in order, with their sizes: encapsulation + BTH
    // [+ RETH on the first] [+ ImmDt on the last of a write with immediate] + padded payload
    // + ICRC.
    std::vector<Frame> data;
    for (const Frame& f : frames)
    {
        if (f.opcode != RC_ACKNOWLEDGE)
        {
            data.push_back(f);
        }
    }
    const uint32_t base = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + IcrcTrailer::SIZE;
    auto padded = [](uint32_t n) { return (n + 3) / 4 * 4; };
    const std::vector<Frame> expected = {
        {RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
         base + RethHeader::SIZE + ImmDtHeader::SIZE + padded(100)},
        {RC_RDMA_WRITE_FIRST, base + RethHeader::SIZE + mtu},
        {RC_RDMA_WRITE_MIDDLE, base + mtu},
        {RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, base + ImmDtHeader::SIZE + 1000},
        {RC_RDMA_WRITE_FIRST, base + RethHeader::SIZE + mtu},
        {RC_RDMA_WRITE_LAST, base + padded(5000 - mtu)},
        {RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, base + RethHeader::SIZE + ImmDtHeader::SIZE + 8},
    };
    ASSERT_EQ(data.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(data[i].opcode, expected[i].opcode) << "frame " << i;
        EXPECT_EQ(data[i].size, expected[i].size) << "frame " << i;
    }
}

TEST_F(RdmaImmediateTest, ImmDtLayout)
{
    ImmDtHeader h;
    h.SetData(0x01020304);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    ASSERT_EQ(p->GetSize(), ImmDtHeader::SIZE);
    uint8_t bytes[4];
    p->CopyData(bytes, 4);
    EXPECT_EQ(bytes[0], 0x01); // big-endian, as every IBTA field
    EXPECT_EQ(bytes[3], 0x04);
    ImmDtHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetData(), 0x01020304u);
}
