/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The InfiniBand link layer: LRH and flow-control packet layouts, and credit-based flow
// control between two adapters: lossless by construction, with throughput
// min(link rate, credits / credit round trip).

#include "ai-fabric-test-fixture.h"
#include "ns3/error-model.h"
#include "ns3/fabric-channel.h"
#include "ns3/ib-headers.h"
#include "ns3/ib-nic-port.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace ns3;

namespace
{

class IbLinkTest : public AiFabricTest
{
};

/// Two adapters on one cable, each with a transport.
struct IbPair
{
    Ptr<IbNicPort> nic[2];           //!< the ports
    Ptr<RdmaTransport> transport[2]; //!< their transports
    Ptr<FabricChannel> cable;        //!< the cable
};

/**
 * \param rate link rate
 * \param delay cable delay
 * \param vlBuffer receive buffer per VL (bytes)
 * \return two adapters, LIDs 1 and 2
 */
IbPair
MakePair(DataRate rate, Time delay, uint32_t vlBuffer)
{
    IbPair pair;
    pair.cable = CreateObject<FabricChannel>();
    pair.cable->SetAttribute("Delay", TimeValue(delay));
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<Node> node = CreateObject<Node>();
        Ptr<IbNicPort> nic = CreateObject<IbNicPort>();
        nic->SetAttribute("DataRate", DataRateValue(rate));
        nic->GetFlowControl()->SetAttribute("VlBufferBytes", UintegerValue(vlBuffer));
        nic->SetAddress(Mac48Address::Allocate());
        node->AddDevice(nic);
        nic->Attach(pair.cable);
        nic->SetLid(static_cast<uint16_t>(i + 1));
        Ptr<RdmaTransport> t = CreateObject<RdmaTransport>();
        t->SetAddress(i + 1);
        nic->SetTransport(t);
        pair.nic[i] = nic;
        pair.transport[i] = t;
    }
    return pair;
}

/// When data frames started and the last one ended, at one port.
struct DataSpan
{
    Time first;        //!< first data packet started
    Time last;         //!< last data packet started
    uint32_t count{0}; //!< data packets
};

/**
 * \param span where to record
 * \param p a packet the port started to send
 */
void
RecordData(DataSpan* span, Ptr<const Packet> p)
{
    if (p->GetSize() <= IbFlowControlHeader::SIZE)
    {
        return;
    }
    uint8_t h[LrhHeader::SIZE + 1];
    p->CopyData(h, sizeof(h));
    if (h[LrhHeader::SIZE] == RC_ACKNOWLEDGE)
    {
        return;
    }
    if (span->count++ == 0)
    {
        span->first = Simulator::Now();
    }
    span->last = Simulator::Now();
}

/// Corrupts the first data packets it sees (anything larger than a flow-control packet).
class FirstDataPacketsError : public ErrorModel
{
  public:
    /// \param n how many data packets to corrupt
    void SetCount(uint32_t n)
    {
        m_left = n;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (p->GetSize() > 64 && m_left > 0)
        {
            --m_left;
            return true;
        }
        return false;
    }

    void DoReset() override {}

    uint32_t m_left{0}; //!< data packets still to corrupt
};

} // namespace

// LRH: VL and LVer, SL and LNH, DLID, PktLen (11 bits), SLID, big-endian.
TEST_F(IbLinkTest, LrhLayout)
{
    LrhHeader lrh;
    lrh.SetVl(3);
    lrh.SetSl(5);
    lrh.SetDlid(0x1234);
    lrh.SetSlid(0xABCD);
    lrh.SetPktLen(1031);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(lrh);
    ASSERT_EQ(p->GetSize(), 8u);
    uint8_t b[8];
    p->CopyData(b, 8);
    EXPECT_EQ(b[0], 0x30);
    EXPECT_EQ(b[1], 0x52); // SL 5, LNH 2 (IBA local: a BTH follows)
    EXPECT_EQ(b[2], 0x12);
    EXPECT_EQ(b[3], 0x34);
    EXPECT_EQ((b[4] << 8) | b[5], 1031);
    EXPECT_EQ(b[6], 0xAB);
    EXPECT_EQ(b[7], 0xCD);
    LrhHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetVl(), 3);
    EXPECT_EQ(back.GetSl(), 5);
    EXPECT_EQ(back.GetDlid(), 0x1234);
    EXPECT_EQ(back.GetSlid(), 0xABCD);
    EXPECT_EQ(back.GetPktLen(), 1031);
}

// Flow-control packet: Op and FCTBS, VL and FCCL (12 bits each, modulo 4096), LPCRC.
TEST_F(IbLinkTest, FlowControlLayout)
{
    IbFlowControlHeader fc;
    fc.SetOp(IbFlowControlHeader::OP_INIT);
    fc.SetVl(7);
    fc.SetFctbs(4096 + 5);
    fc.SetFccl(2 * 4096 + 0xABC);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(fc);
    ASSERT_EQ(p->GetSize(), 6u);
    uint8_t b[6];
    p->CopyData(b, 6);
    EXPECT_EQ(b[0], 0x10);
    EXPECT_EQ(b[1], 0x05);
    EXPECT_EQ(b[2], 0x7A);
    EXPECT_EQ(b[3], 0xBC);
    IbFlowControlHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetVl(), 7);
    EXPECT_EQ(back.GetFctbs(), 5);
    EXPECT_EQ(back.GetFccl(), 0xABC);
    EXPECT_EQ(IbNetDevice::Blocks(64), 1u);
    EXPECT_EQ(IbNetDevice::Blocks(65), 2u);
}

// Throughput follows min(link rate, credits / credit round trip) at points on both sides of
// the bandwidth-delay product, with nothing lost. A packet of P wire bytes takes b =
// ceil(P / 64) credit blocks; a VL buffer of C blocks lets k = floor(C / b) packets be
// outstanding; a packet's credit comes back ser(P) + 2 d + ser(flow-control packet) after the
// packet starts, so the sender moves at most k packets per such round trip.
TEST_F(IbLinkTest, ThroughputFollowsTheCreditLaw)
{
    const DataRate rate("400Gbps");
    const uint32_t mtu = 4096;
    const uint32_t wire = IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + mtu
                          + IcrcTrailer::SIZE + IbNetDevice::TRAILER_BYTES;
    const uint32_t blocks = IbNetDevice::Blocks(wire);
    struct Point
    {
        Time delay;      //!< cable
        uint32_t buffer; //!< VL buffer
    };
    bool lineLimited = false;
    bool creditLimited = false;
    for (const Point& pt : {Point{NanoSeconds(10), 131072},
                            Point{NanoSeconds(500), 131072},
                            Point{MicroSeconds(2), 131072},
                            Point{MicroSeconds(5), 131072},
                            Point{MicroSeconds(2), 32768}})
    {
        IbPair pair = MakePair(rate, pt.delay, pt.buffer);
        Ptr<RdmaQueuePair> a = pair.transport[0]->CreateQueuePair();
        Ptr<RdmaQueuePair> b = pair.transport[1]->CreateQueuePair();
        pair.transport[0]->ConnectQueuePairs(a, b, pair.transport[1]);
        // Many one-packet messages: every data packet has the same size.
        const uint32_t messages = 4000;
        for (uint32_t m = 0; m < messages; ++m)
        {
            a->PostWrite(mtu, m);
        }
        DataSpan span;
        pair.nic[0]->TraceConnectWithoutContext("PhyTxBegin",
                                                MakeBoundCallback(&RecordData, &span));
        Simulator::Run();

        ASSERT_EQ(b->GetDeliveredBytes(), uint64_t(messages) * mtu);
        EXPECT_EQ(pair.nic[0]->GetCounters().TotalDrops(), 0u);
        EXPECT_EQ(pair.nic[1]->GetCounters().TotalDrops(), 0u);
        EXPECT_EQ(a->GetRetransmissions(), 0u);
        ASSERT_EQ(span.count, messages);
        // Packets per second, measured between the first and the last start.
        const double measured = (span.count - 1) / (span.last - span.first).GetSeconds();
        const double ser = wire * 8.0 / rate.GetBitRate();
        const double fc = IbFlowControlHeader::SIZE * 8.0 / rate.GetBitRate();
        const double roundTrip = ser + 2 * pt.delay.GetSeconds() + fc;
        const double k = std::floor(double(pt.buffer / IbNetDevice::BLOCK_BYTES) / blocks);
        const double expected = std::min(1.0 / ser, k / roundTrip);
        EXPECT_NEAR(measured, expected, 0.02 * expected)
            << "delay " << pt.delay.GetNanoSeconds() << " ns, buffer " << pt.buffer;
        (1.0 / ser <= k / roundTrip ? lineLimited : creditLimited) = true;
        if (1.0 / ser > k / roundTrip)
        {
            EXPECT_GT(pair.nic[0]->GetCreditStallTime(0), Time(0));
        }
        Simulator::Destroy();
    }
    EXPECT_TRUE(lineLimited);
    EXPECT_TRUE(creditLimited);
}

// A lossy link (1% of packets, flow-control packets included, lost at each end): the credits
// of lost packets come back through the next FCTBS, a lost update is repeated, and every byte
// arrives (the transport retransmits) without a single packet beyond its credits.
TEST_F(IbLinkTest, CreditsSurviveALossyLink)
{
    IbPair pair = MakePair(DataRate("400Gbps"), NanoSeconds(10), 32768);
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(0.01);
        em->AssignStreams(10 + i);
        pair.nic[i]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    Ptr<RdmaQueuePair> a = pair.transport[0]->CreateQueuePair();
    Ptr<RdmaQueuePair> b = pair.transport[1]->CreateQueuePair();
    pair.transport[0]->ConnectQueuePairs(a, b, pair.transport[1]);
    const uint32_t messages = 400;
    for (uint32_t m = 0; m < messages; ++m)
    {
        a->PostWrite(16384, m);
    }
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), uint64_t(messages) * 16384);
    EXPECT_GT(a->GetRetransmissions(), 0u);
    EXPECT_GT(
        pair.nic[1]->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::RECEIVE_ERROR)],
        0u);
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(pair.nic[i]
                      ->GetCounters()
                      .drops[static_cast<std::size_t>(FabricDropReason::CREDIT_VIOLATION)],
                  0u);
    }
}

// The credits of corrupted data packets come back with no return traffic: a VL buffer of two
// packets, both corrupted on the way long after the ports' start-up updates fell silent. The
// receiver gets nothing, so it sends no ACK and frees no block; the sender waits for credits
// it already spent. Its credit probe (a flow-control packet every FlowControlPeriod while it
// waits) carries its FCTBS, the receiver counts the lost blocks as received and freed and
// reports them, and the transport's retransmission delivers every byte. Before the probe the
// VL stayed starved until the QP ran out of retries.
TEST_F(IbLinkTest, CorruptedDataCreditsComeBackWithoutReturnTraffic)
{
    const uint32_t packetBlocks = IbNetDevice::Blocks(4096 + 40);
    IbPair pair = MakePair(
        DataRate("400Gbps"), NanoSeconds(10), 2 * packetBlocks * IbNetDevice::BLOCK_BYTES);
    Ptr<FirstDataPacketsError> em = CreateObject<FirstDataPacketsError>();
    em->SetCount(2);
    pair.nic[1]->SetReceiveErrorModel(em);
    Ptr<RdmaQueuePair> a = pair.transport[0]->CreateQueuePair();
    Ptr<RdmaQueuePair> b = pair.transport[1]->CreateQueuePair();
    pair.transport[0]->ConnectQueuePairs(a, b, pair.transport[1]);
    constexpr uint32_t messages = 10;
    Simulator::Schedule(MicroSeconds(50),
                        [a]()
                        {
                            for (uint32_t m = 0; m < messages; ++m)
                            {
                                a->PostWrite(16384, m);
                            }
                        });
    Simulator::Stop(Seconds(5));
    Simulator::Run();
    EXPECT_EQ(
        pair.nic[1]->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::RECEIVE_ERROR)],
        2u);
    EXPECT_FALSE(a->IsInError());
    EXPECT_EQ(b->GetDeliveredBytes(), uint64_t(messages) * 16384);
    EXPECT_EQ(pair.nic[0]->GetAvailableCredits(0), 2u * packetBlocks);
}
