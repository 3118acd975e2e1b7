/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// RdmaQueuePair, the IBTA RC transport, on a RoCE fabric built by RoceFabricHelper:
// segmentation and opcodes read from the frames on the wire, exactly-once in-order delivery,
// ACK coalescing, and loss recovery (NAK and go-back-N, timeouts, the error state) with an
// error model that drops chosen frames; PSN wrap-around.

#include "ai-fabric-test-fixture.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/fabric-net-device.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

using namespace ns3;

namespace
{

/// Offsets in a RoCEv2 frame: the BTH follows Ethernet II (14) + IPv4 (20) + UDP (8).
constexpr uint32_t BTH_OFFSET = RoceNetDevice::ENCAPSULATION_BYTES;
/// Offset of the byte after the BTH (RETH or AETH)
constexpr uint32_t EXT_OFFSET = BTH_OFFSET + BthHeader::SIZE;

/// Attributes of the fabric under test (away from the defaults).
const DataRate RATE("100Gb/s");
const Time CABLE_DELAY = NanoSeconds(123);
const Time TX_LATENCY = NanoSeconds(77);
const Time RX_LATENCY = NanoSeconds(55);
const uint32_t MTU = 1024;
/// Retransmission timeout exponent: 4.096 us x 2^6 = 262.144 us
const uint32_t ACK_TIMEOUT = 6;

/// One RoCEv2 frame, decoded from its bytes.
struct Frame
{
    Time time;             //!< when it was traced
    uint32_t size{0};      //!< frame bytes
    uint8_t opcode{0};     //!< BTH opcode (byte 42)
    uint8_t padCount{0};   //!< BTH PadCnt
    uint32_t destQp{0};    //!< BTH DestQP
    bool ackReq{false};    //!< BTH AckReq
    uint32_t psn{0};       //!< BTH PSN
    uint32_t dmaLength{0}; //!< RETH DMA length (First and Only)
    uint8_t syndrome{0};   //!< AETH syndrome (Acknowledge)

    /// \return true for an RDMA WRITE packet
    bool IsData() const
    {
        return opcode == RC_RDMA_WRITE_FIRST || opcode == RC_RDMA_WRITE_MIDDLE
               || opcode == RC_RDMA_WRITE_LAST || opcode == RC_RDMA_WRITE_ONLY;
    }

    /// \return payload bytes of a WRITE packet, from the frame size
    uint32_t Payload() const
    {
        const bool reth = opcode == RC_RDMA_WRITE_FIRST || opcode == RC_RDMA_WRITE_ONLY;
        return size - EXT_OFFSET - (reth ? RethHeader::SIZE : 0) - padCount - IcrcTrailer::SIZE;
    }
};

/**
 * \param p a frame as a port sends or receives it
 * \return its decoded RoCEv2 fields
 */
Frame
Decode(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    Frame f;
    f.time = Simulator::Now();
    f.size = p->GetSize();
    EXPECT_GE(b.size(), EXT_OFFSET + AethHeader::SIZE);
    if (b.size() < EXT_OFFSET + AethHeader::SIZE)
    {
        return f;
    }
    const uint8_t* h = b.data() + BTH_OFFSET;
    f.opcode = h[0];
    f.padCount = (h[1] >> 4) & 0x3;
    f.destQp = (uint32_t(h[5]) << 16) | (uint32_t(h[6]) << 8) | h[7];
    f.ackReq = (h[8] & 0x80) != 0;
    f.psn = (uint32_t(h[9]) << 16) | (uint32_t(h[10]) << 8) | h[11];
    const uint8_t* x = b.data() + EXT_OFFSET;
    if (f.opcode == RC_ACKNOWLEDGE)
    {
        f.syndrome = x[0];
    }
    if ((f.opcode == RC_RDMA_WRITE_FIRST || f.opcode == RC_RDMA_WRITE_ONLY)
        && b.size() >= EXT_OFFSET + RethHeader::SIZE)
    {
        f.dmaLength
            = (uint32_t(x[12]) << 24) | (uint32_t(x[13]) << 16) | (uint32_t(x[14]) << 8) | x[15];
    }
    return f;
}

/**
 * \brief A receive error model that drops chosen frames: the Nth frame that matches a
 * predicate on the frame's bytes, or every matching frame from the Nth on.
 */
class FrameDropper : public ErrorModel
{
  public:
    /// Predicate on a decoded frame
    using Predicate = std::function<bool(const Frame&)>;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricTestFrameDropper")
                                .SetParent<ErrorModel>()
                                .SetGroupName("AiFabric");
        return tid;
    }

    /**
     * \param match which frames count
     * \param nth the first matching frame to drop (1-based)
     * \param andLater drop every later matching frame too
     */
    void Configure(Predicate match, uint32_t nth, bool andLater)
    {
        m_match = std::move(match);
        m_nth = nth;
        m_andLater = andLater;
    }

    /// \return frames that matched so far
    uint32_t GetMatches() const
    {
        return m_matches;
    }

    /// \return frames dropped so far
    uint32_t GetDropped() const
    {
        return m_dropped;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (!m_match || !m_match(Decode(p)))
        {
            return false;
        }
        ++m_matches;
        const bool drop = m_andLater ? m_matches >= m_nth : m_matches == m_nth;
        m_dropped += drop ? 1 : 0;
        return drop;
    }

    void DoReset() override
    {
        m_matches = 0;
        m_dropped = 0;
    }

    Predicate m_match;      //!< which frames count
    uint32_t m_nth{1};      //!< first to drop
    bool m_andLater{false}; //!< drop all from the nth on
    uint32_t m_matches{0};  //!< matches seen
    uint32_t m_dropped{0};  //!< frames dropped
};

/**
 * \param bytes a message
 * \param mtu the path MTU
 * \return packets it takes: ceil(bytes / MTU), and one for a zero-length WRITE
 */
uint32_t
PacketsOf(uint64_t bytes, uint32_t mtu)
{
    return bytes == 0 ? 1 : static_cast<uint32_t>((bytes + mtu - 1) / mtu);
}

/**
 * \param frameBytes a frame
 * \return its serialization at RATE: (frame + 24) x 8 / rate, exact in picoseconds
 */
Time
Serialization(uint32_t frameBytes)
{
    const uint64_t wire = std::max(frameBytes, RoceNetDevice::ETHERNET_MIN_FRAME_BYTES)
                          + RoceNetDevice::ETHERNET_OVERHEAD_BYTES;
    return PicoSeconds(wire * 8 * 1000000000000ULL / RATE.GetBitRate());
}

/**
 * \param payload WRITE payload bytes
 * \param reth true for First and Only
 * \return the frame bytes
 */
uint32_t
DataFrameBytes(uint32_t payload, bool reth)
{
    return EXT_OFFSET + (reth ? RethHeader::SIZE : 0) + payload + (4 - payload % 4) % 4
           + IcrcTrailer::SIZE;
}

/// Frame bytes of an ACK or NAK
const uint32_t ACK_FRAME_BYTES = EXT_OFFSET + AethHeader::SIZE + IcrcTrailer::SIZE;

/**
 * \param a a PSN
 * \param n packets later
 * \return the PSN n packets after a, modulo 2^24
 */
uint32_t
PsnAdd(uint32_t a, uint32_t n)
{
    return (a + n) & RDMA_PSN_MASK;
}

class RdmaQueuePairTest : public AiFabricTest
{
  protected:
    void SetUp() override
    {
        AiFabricTest::SetUp();
        m_fabric = std::make_unique<RoceFabricHelper>();
        m_fabric->SetQueuePairAttribute("Mtu", UintegerValue(MTU));
        m_fabric->SetQueuePairAttribute("LocalAckTimeout", UintegerValue(ACK_TIMEOUT));
    }

    /// For a test that runs several simulations: end this one and start afresh.
    void Restart()
    {
        Simulator::Destroy();
        m_hosts = NodeContainer();
        m_switches = NodeContainer();
        m_nicA = nullptr;
        m_nicB = nullptr;
        m_ta = nullptr;
        m_tb = nullptr;
        m_peer = nullptr;
        m_txA.clear();
        m_txB.clear();
        m_rxA.clear();
        m_completions.clear();
        m_arrivals.clear();
        SetUp();
    }

    /**
     * \brief Build host A - [switch] - host B; trace the frames each NIC sends and receives.
     * \param switches 0 or 1
     */
    void Build(uint32_t switches = 0)
    {
        m_hosts.Create(2);
        m_switches.Create(switches);
        m_fabric->SetDeviceAttribute("DataRate", DataRateValue(RATE));
        m_fabric->SetChannelAttribute("Delay", TimeValue(CABLE_DELAY));
        m_fabric->SetTransportAttribute("TxLatency", TimeValue(TX_LATENCY));
        m_fabric->SetTransportAttribute("RxLatency", TimeValue(RX_LATENCY));
        m_fabric->InstallHosts(m_hosts);
        m_fabric->InstallSwitches(m_switches);
        Ptr<Node> previous = m_hosts.Get(0);
        for (uint32_t i = 0; i < switches; ++i)
        {
            m_fabric->Connect(previous, m_switches.Get(i));
            previous = m_switches.Get(i);
        }
        m_fabric->Connect(previous, m_hosts.Get(1));
        m_fabric->ComputeRoutes();
        m_fabric->AssignStreams(1);
        m_nicA = m_fabric->GetNic(m_hosts.Get(0));
        m_nicB = m_fabric->GetNic(m_hosts.Get(1));
        m_ta = m_nicA->GetTransport();
        m_tb = m_nicB->GetTransport();
        m_nicA->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> p)
                                              { m_txA.push_back(Decode(p)); }));
        m_nicB->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> p)
                                              { m_txB.push_back(Decode(p)); }));
        m_nicA->TraceConnectWithoutContext(
            "PhyRxEnd",
            Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> p)
                                              { m_rxA.push_back(Decode(p)); }));
    }

    /**
     * \brief Create a QP on A and one on B and connect them (random initial PSNs); record
     *        completions at A and arrivals at B.
     * \return the QP on A (its peer is m_peer)
     */
    Ptr<RdmaQueuePair> CreatePair()
    {
        Ptr<RdmaQueuePair> a = m_ta->CreateQueuePair();
        Ptr<RdmaQueuePair> b = m_tb->CreateQueuePair();
        m_ta->ConnectQueuePairs(a, b, m_tb);
        Record(a, b);
        return a;
    }

    /**
     * \brief Record completions at a and arrivals at b.
     * \param a requester
     * \param b responder
     */
    void Record(Ptr<RdmaQueuePair> a, Ptr<RdmaQueuePair> b)
    {
        m_peer = b;
        a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [this](Ptr<RdmaQueuePair>, const RdmaCompletion& c) { m_completions.push_back(c); }));
        b->SetArrivalCallback(Callback<void, Ptr<RdmaQueuePair>, uint64_t>(
            [this](Ptr<RdmaQueuePair>, uint64_t n) { m_arrivals.push_back(n); }));
    }

    /**
     * \brief Drop frames received by a NIC.
     * \param nic the NIC
     * \param match which frames
     * \param nth the first matching frame to drop (1-based)
     * \param andLater drop every later matching frame too
     * \return the error model
     */
    static Ptr<FrameDropper> DropAt(Ptr<RoceNetDevice> nic,
                                    FrameDropper::Predicate match,
                                    uint32_t nth,
                                    bool andLater = false)
    {
        Ptr<FrameDropper> em = CreateObject<FrameDropper>();
        em->Configure(std::move(match), nth, andLater);
        nic->SetAttribute("ReceiveErrorModel", PointerValue(em));
        return em;
    }

    /**
     * \param frames frames
     * \param opcode an opcode
     * \return how many have it
     */
    static uint32_t Count(const std::vector<Frame>& frames, uint8_t opcode)
    {
        uint32_t n = 0;
        for (const Frame& f : frames)
        {
            n += f.opcode == opcode ? 1 : 0;
        }
        return n;
    }

    /// \return the data frames A sent
    std::vector<Frame> DataSentByA() const
    {
        std::vector<Frame> d;
        for (const Frame& f : m_txA)
        {
            if (f.IsData())
            {
                d.push_back(f);
            }
        }
        return d;
    }

    /**
     * \param nic a NIC
     * \return the drops it counted with reason RECEIVE_ERROR
     */
    static uint64_t ReceiveErrors(Ptr<RoceNetDevice> nic)
    {
        return nic->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::RECEIVE_ERROR)];
    }

    std::unique_ptr<RoceFabricHelper> m_fabric; //!< the builder
    NodeContainer m_hosts;                      //!< A and B
    NodeContainer m_switches;                   //!< switches between them
    Ptr<RoceNicPort> m_nicA;                    //!< A's NIC
    Ptr<RoceNicPort> m_nicB;                    //!< B's NIC
    Ptr<RdmaTransport> m_ta;                    //!< A's transport
    Ptr<RdmaTransport> m_tb;                    //!< B's transport
    Ptr<RdmaQueuePair> m_peer;                  //!< the responder of the last pair
    std::vector<Frame> m_txA;                   //!< frames A sent
    std::vector<Frame> m_txB;                   //!< frames B sent
    std::vector<Frame> m_rxA;                   //!< frames A received
    std::vector<RdmaCompletion> m_completions;  //!< completions at A
    std::vector<uint64_t> m_arrivals;           //!< message sizes arrived at B
};

/// Message sizes around the MTU boundaries, for an MTU m.
std::vector<uint64_t>
BoundarySizes(uint32_t m)
{
    return {1, 2, m - 1, m, m + 1, 2 * m, 3 * m, 5 * m + 7, 0};
}

} // namespace

// A WRITE of n bytes is ceil(n / MTU) packets: WRITE Only, or First, Middle..., Last; the first
// carries a RETH with the whole length; PSNs are consecutive across messages; AckReq is set on
// the last packet of each message only; the payloads add up to the message. For every IBTA MTU
// the Mtu attribute allows.
TEST_F(RdmaQueuePairTest, SegmentationFollowsMtu)
{
    for (uint32_t mtu : {256U, 1024U, 4096U})
    {
        Restart();
        m_fabric->SetQueuePairAttribute("Mtu", UintegerValue(mtu));
        Build(1);
        Ptr<RdmaQueuePair> qp = CreatePair();
        ASSERT_EQ(qp->GetMtu(), mtu);
        const std::vector<uint64_t> sizes = BoundarySizes(mtu);
        uint64_t wrId = 0;
        for (uint64_t s : sizes)
        {
            qp->PostWrite(s, wrId++);
        }
        Simulator::Run();

        const std::vector<Frame> data = DataSentByA();
        uint32_t expectedPackets = 0;
        for (uint64_t s : sizes)
        {
            expectedPackets += PacketsOf(s, mtu);
        }
        ASSERT_EQ(data.size(), expectedPackets) << "MTU " << mtu;
        EXPECT_EQ(qp->GetPacketsSent(), expectedPackets);
        std::size_t i = 0;
        for (uint64_t s : sizes)
        {
            const uint32_t n = PacketsOf(s, mtu);
            uint64_t payload = 0;
            for (uint32_t k = 0; k < n; ++k, ++i)
            {
                const Frame& f = data[i];
                uint8_t expected = RC_RDMA_WRITE_MIDDLE;
                if (n == 1)
                {
                    expected = RC_RDMA_WRITE_ONLY;
                }
                else if (k == 0)
                {
                    expected = RC_RDMA_WRITE_FIRST;
                }
                else if (k + 1 == n)
                {
                    expected = RC_RDMA_WRITE_LAST;
                }
                EXPECT_EQ(f.opcode, expected) << "MTU " << mtu << " size " << s << " packet " << k;
                EXPECT_EQ(f.ackReq, k + 1 == n) << "size " << s << " packet " << k;
                EXPECT_EQ(f.destQp, m_peer->GetQpn());
                EXPECT_EQ(f.psn, PsnAdd(data[0].psn, static_cast<uint32_t>(i)));
                if (k == 0)
                {
                    EXPECT_EQ(f.dmaLength, s) << "RETH DMA length, size " << s;
                }
                if (k + 1 < n)
                {
                    EXPECT_EQ(f.Payload(), mtu) << "size " << s << " packet " << k;
                }
                EXPECT_EQ(f.padCount, (4 - f.Payload() % 4) % 4);
                payload += f.Payload();
            }
            EXPECT_EQ(payload, s) << "MTU " << mtu;
        }
        EXPECT_EQ(m_arrivals, sizes);
    }
}

// Several QPs between the same NICs, each posting messages of different sizes: every message
// arrives once, whole and in posting order, and completes in order with SUCCESS; nothing is
// retransmitted or out of sequence.
TEST_F(RdmaQueuePairTest, DeliversExactlyOnceInOrder)
{
    Build(1);
    const std::vector<std::vector<uint64_t>> sizes
        = {{5000, 1, 3 * MTU, 777, 64 * 1024}, {MTU, 12345, 2, 8 * MTU + 1}};
    std::vector<Ptr<RdmaQueuePair>> requesters;
    std::vector<Ptr<RdmaQueuePair>> responders;
    std::vector<std::vector<uint64_t>> arrivals(sizes.size());
    std::vector<std::vector<RdmaCompletion>> completions(sizes.size());
    for (std::size_t q = 0; q < sizes.size(); ++q)
    {
        Ptr<RdmaQueuePair> a = m_ta->CreateQueuePair();
        Ptr<RdmaQueuePair> b = m_tb->CreateQueuePair();
        m_ta->ConnectQueuePairs(a, b, m_tb);
        b->SetArrivalCallback(Callback<void, Ptr<RdmaQueuePair>, uint64_t>(
            [&arrivals, q](Ptr<RdmaQueuePair>, uint64_t n) { arrivals[q].push_back(n); }));
        a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [&completions, q](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
            { completions[q].push_back(c); }));
        for (std::size_t m = 0; m < sizes[q].size(); ++m)
        {
            a->PostWrite(sizes[q][m], 100 * q + m);
        }
        requesters.push_back(a);
        responders.push_back(b);
    }
    Simulator::Run();

    for (std::size_t q = 0; q < sizes.size(); ++q)
    {
        uint64_t total = 0;
        uint32_t packets = 0;
        for (uint64_t s : sizes[q])
        {
            total += s;
            packets += PacketsOf(s, MTU);
        }
        EXPECT_EQ(arrivals[q], sizes[q]) << "QP " << q;
        EXPECT_EQ(responders[q]->GetDeliveredBytes(), total);
        EXPECT_EQ(responders[q]->GetDeliveredMessages(), sizes[q].size());
        EXPECT_EQ(responders[q]->GetOutOfSequencePackets(), 0u);
        EXPECT_EQ(requesters[q]->GetPacketsSent(), packets);
        EXPECT_EQ(requesters[q]->GetRetransmissions(), 0u);
        EXPECT_EQ(requesters[q]->GetOutstandingRequests(), 0u);
        ASSERT_EQ(completions[q].size(), sizes[q].size());
        for (std::size_t m = 0; m < sizes[q].size(); ++m)
        {
            EXPECT_EQ(completions[q][m].wrId, 100 * q + m);
            EXPECT_EQ(completions[q][m].bytes, sizes[q][m]);
            EXPECT_EQ(completions[q][m].status, RdmaCompletionStatus::SUCCESS);
            EXPECT_GT(completions[q][m].completionTime, completions[q][m].postTime);
        }
    }
    EXPECT_EQ(m_nicA->GetCounters().TotalDrops() + m_nicB->GetCounters().TotalDrops(), 0u);
}

// AckInterval k: the responder ACKs every k-th packet and the last of each message, so a
// message of n packets draws ceil(n / k) ACKs, each carrying the PSN of the packet it answers.
TEST_F(RdmaQueuePairTest, AckCoalescing)
{
    const std::vector<uint64_t> packetsPerMessage = {10, 3, 1, 8, 4};
    for (uint32_t k : {1U, 3U, 4U, 16U})
    {
        Restart();
        m_fabric->SetQueuePairAttribute("AckInterval", UintegerValue(k));
        Build(0);
        Ptr<RdmaQueuePair> qp = CreatePair();
        for (uint64_t n : packetsPerMessage)
        {
            qp->PostWrite(n * MTU, n);
        }
        Simulator::Run();

        std::vector<uint32_t> expectedAckPsns;
        const std::vector<Frame> data = DataSentByA();
        ASSERT_FALSE(data.empty());
        uint32_t index = 0;
        for (uint64_t n : packetsPerMessage)
        {
            for (uint32_t j = 0; j < n; ++j, ++index)
            {
                if ((j + 1) % k == 0 || j + 1 == n)
                {
                    expectedAckPsns.push_back(PsnAdd(data[0].psn, index));
                }
            }
        }
        uint32_t ceilSum = 0;
        for (uint64_t n : packetsPerMessage)
        {
            ceilSum += static_cast<uint32_t>((n + k - 1) / k);
        }
        EXPECT_EQ(expectedAckPsns.size(), ceilSum);
        EXPECT_EQ(Count(m_txB, RC_ACKNOWLEDGE), ceilSum) << "AckInterval " << k;
        EXPECT_EQ(m_txB.size(), ceilSum); // B sends nothing else
        std::vector<uint32_t> ackPsns;
        for (const Frame& f : m_txB)
        {
            ackPsns.push_back(f.psn);
            EXPECT_EQ(f.syndrome, AethHeader::SYNDROME_ACK);
            EXPECT_EQ(f.destQp, qp->GetQpn());
            EXPECT_EQ(f.size, ACK_FRAME_BYTES);
        }
        EXPECT_EQ(ackPsns, expectedAckPsns) << "AckInterval " << k;
        ASSERT_EQ(m_completions.size(), packetsPerMessage.size());
        for (const RdmaCompletion& c : m_completions)
        {
            EXPECT_EQ(c.status, RdmaCompletionStatus::SUCCESS);
        }
    }
}

// A lost middle packet: the next packet is out of sequence, the responder NAKs once with the
// missing PSN, the requester goes back to it, and every byte arrives exactly once; no timeout.
TEST_F(RdmaQueuePairTest, LostMiddlePacketNakGoBackN)
{
    Build(0);
    Ptr<RdmaQueuePair> qp = CreatePair();
    std::vector<uint32_t> nakPsns;
    std::vector<uint32_t> rewindPsns;
    qp->TraceConnectWithoutContext(
        "Nak", Callback<void, uint32_t>([&nakPsns](uint32_t psn) { nakPsns.push_back(psn); }));
    qp->TraceConnectWithoutContext(
        "Retransmit",
        Callback<void, uint32_t>([&rewindPsns](uint32_t psn) { rewindPsns.push_back(psn); }));
    // The second Middle packet of an 8-packet WRITE: packet index 2.
    Ptr<FrameDropper> em = DropAt(
        m_nicB, [](const Frame& f) { return f.opcode == RC_RDMA_WRITE_MIDDLE; }, 2);
    const uint32_t n = 8;
    const uint64_t bytes = n * MTU - 100;
    qp->PostWrite(bytes, 7);
    Simulator::Run();

    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(ReceiveErrors(m_nicB), 1u);
    const std::vector<Frame> data = DataSentByA();
    ASSERT_GT(data.size(), n);
    const uint32_t lost = PsnAdd(data[0].psn, 2);
    // One NAK, carrying the missing PSN (the expected PSN), with the NAK syndrome.
    EXPECT_EQ(qp->GetNaksReceived(), 1u);
    EXPECT_EQ(nakPsns, std::vector<uint32_t>{lost});
    std::vector<Frame> naks;
    for (const Frame& f : m_txB)
    {
        if (f.syndrome == AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR)
        {
            naks.push_back(f);
        }
    }
    ASSERT_EQ(naks.size(), 1u);
    EXPECT_EQ(naks[0].psn, lost);
    // Go-back-N: after the first pass, transmission restarts at the lost PSN and runs to the end.
    EXPECT_EQ(rewindPsns, std::vector<uint32_t>{lost});
    EXPECT_GT(qp->GetRetransmissions(), 0u);
    EXPECT_EQ(qp->GetPacketsSent(), n + qp->GetRetransmissions());
    const std::size_t firstPass = data.size() - (n - 2);
    EXPECT_EQ(qp->GetRetransmissions(), data.size() - n);
    for (std::size_t i = 0; i < firstPass; ++i)
    {
        EXPECT_EQ(data[i].psn, PsnAdd(data[0].psn, static_cast<uint32_t>(i)));
    }
    for (std::size_t i = firstPass; i < data.size(); ++i)
    {
        EXPECT_EQ(data[i].psn, PsnAdd(lost, static_cast<uint32_t>(i - firstPass)));
    }
    // The NAK arrived before the requester had finished its first pass.
    EXPECT_LT(firstPass, 2 * n);
    // Exactly once: the responder dropped what followed the gap, and delivered everything once.
    EXPECT_EQ(m_peer->GetOutOfSequencePackets(), firstPass - 3);
    EXPECT_EQ(m_peer->GetDeliveredBytes(), bytes);
    EXPECT_EQ(m_arrivals, std::vector<uint64_t>{bytes});
    EXPECT_EQ(qp->GetTimeouts(), 0u);
    ASSERT_EQ(m_completions.size(), 1u);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);
}

// The ACK of the last message is lost: only the retransmission timer can recover. The second
// message completes exactly one RTO (4.096 us x 2^LocalAckTimeout) later than the first,
// which took TxLatency + two serializations + two cable delays + RxLatency.
TEST_F(RdmaQueuePairTest, LostAckOfLastMessageTimesOut)
{
    Build(0);
    Ptr<RdmaQueuePair> qp = CreatePair();
    const uint64_t bytes = 300;
    // Post the next message when the first completes.
    qp->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
        [this, qp, bytes](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
        {
            m_completions.push_back(c);
            if (m_completions.size() == 1)
            {
                qp->PostWrite(bytes, 2);
            }
        }));
    Ptr<FrameDropper> em = DropAt(
        m_nicA, [](const Frame& f) { return f.opcode == RC_ACKNOWLEDGE; }, 2);
    qp->PostWrite(bytes, 1);
    Simulator::Run();

    ASSERT_EQ(m_completions.size(), 2u);
    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(qp->GetTimeouts(), 1u);
    EXPECT_EQ(qp->GetNaksReceived(), 0u);
    EXPECT_EQ(qp->GetRetransmissions(), 1u);
    const Time rto = qp->GetRetransmissionTimeout();
    EXPECT_EQ(rto, NanoSeconds(4096) * (1 << ACK_TIMEOUT));
    const Time roundTrip = TX_LATENCY + Serialization(DataFrameBytes(bytes, true))
                           + Serialization(ACK_FRAME_BYTES) + CABLE_DELAY * 2 + RX_LATENCY;
    const Time first = m_completions[0].completionTime - m_completions[0].postTime;
    const Time second = m_completions[1].completionTime - m_completions[1].postTime;
    EXPECT_EQ(first, roundTrip);
    EXPECT_EQ(second, roundTrip + rto);
    for (const RdmaCompletion& c : m_completions)
    {
        EXPECT_EQ(c.status, RdmaCompletionStatus::SUCCESS);
    }
    // The retransmitted packet was a duplicate: re-ACKed, not delivered twice.
    EXPECT_EQ(m_peer->GetOutOfSequencePackets(), 1u);
    EXPECT_EQ(m_peer->GetDeliveredBytes(), 2 * bytes);
    EXPECT_EQ(m_arrivals, (std::vector<uint64_t>{bytes, bytes}));
    EXPECT_EQ(Count(m_txB, RC_ACKNOWLEDGE), 3u);
}

// The last packet of a message is lost: no later packet reveals the gap, so no NAK; the timer
// (restarted by the last ACK) expires one RTO after that ACK and the packet is sent again.
TEST_F(RdmaQueuePairTest, LostLastPacketTimesOut)
{
    Build(0);
    Ptr<RdmaQueuePair> qp = CreatePair();
    Ptr<FrameDropper> em = DropAt(
        m_nicB, [](const Frame& f) { return f.opcode == RC_RDMA_WRITE_LAST; }, 1);
    const uint64_t bytes = 3 * MTU + 200;
    qp->PostWrite(bytes, 1);
    Simulator::Run();

    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(qp->GetTimeouts(), 1u);
    EXPECT_EQ(qp->GetNaksReceived(), 0u);
    EXPECT_EQ(qp->GetRetransmissions(), 1u);
    EXPECT_EQ(m_peer->GetDeliveredBytes(), bytes);
    EXPECT_EQ(m_arrivals, std::vector<uint64_t>{bytes});
    ASSERT_EQ(m_completions.size(), 1u);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);

    // The timeline, from the frame sizes: packets 0..2 back to back, ACK 2 back at A, one RTO,
    // packet 3 again, its ACK, RxLatency.
    const Time rto = qp->GetRetransmissionTimeout();
    const Time serAck = Serialization(ACK_FRAME_BYTES);
    const Time ser0 = Serialization(DataFrameBytes(MTU, true));
    const Time ser1 = Serialization(DataFrameBytes(MTU, false));
    const Time ser3 = Serialization(DataFrameBytes(200, false));
    const Time ack2 = TX_LATENCY + ser0 + ser1 * 2 + CABLE_DELAY + serAck + CABLE_DELAY;
    const std::vector<Frame> data = DataSentByA();
    ASSERT_EQ(data.size(), 5u);
    EXPECT_EQ(data[4].opcode, RC_RDMA_WRITE_LAST);
    EXPECT_EQ(data[4].psn, data[3].psn);
    ASSERT_EQ(m_rxA.size(), 4u);
    EXPECT_EQ(m_rxA[2].time, ack2);
    EXPECT_EQ(data[4].time, ack2 + rto);
    EXPECT_EQ(m_completions[0].completionTime,
              ack2 + rto + ser3 + CABLE_DELAY + serAck + CABLE_DELAY + RX_LATENCY);
}

// Every data frame is lost from some point on: after RetryCount + 1 timeouts without progress
// the QP enters the error state; the oldest request completes with RETRY_EXCEEDED, the others
// and any later post with FLUSHED, and the Error trace fires once.
TEST_F(RdmaQueuePairTest, RetryExceededEntersError)
{
    const uint32_t retryCount = 3;
    m_fabric->SetQueuePairAttribute("RetryCount", UintegerValue(retryCount));
    Build(1);
    Ptr<RdmaQueuePair> qp = CreatePair();
    std::vector<Time> errors;
    std::vector<uint32_t> timeoutPsns;
    // A raw pointer: a Ptr captured by the QP's own trace would hold the QP forever (a leak).
    const RdmaQueuePair* raw = PeekPointer(qp);
    qp->TraceConnectWithoutContext("Error",
                                   Callback<void, Ptr<const RdmaQueuePair>>(
                                       [&errors, raw](Ptr<const RdmaQueuePair> q)
                                       {
                                           EXPECT_EQ(PeekPointer(q), raw);
                                           errors.push_back(Simulator::Now());
                                       }));
    qp->TraceConnectWithoutContext(
        "Timeout",
        Callback<void, uint32_t>([&timeoutPsns](uint32_t psn) { timeoutPsns.push_back(psn); }));
    // Two packets get through; from the third on, every data frame is lost.
    Ptr<FrameDropper> em = DropAt(
        m_nicB, [](const Frame& f) { return f.IsData(); }, 3, true);
    qp->PostWrite(4 * MTU, 1);
    qp->PostWrite(2 * MTU, 2);
    qp->PostWrite(2 * MTU, 3);
    Simulator::Run();

    const Time rto = qp->GetRetransmissionTimeout();
    EXPECT_TRUE(qp->IsInError());
    EXPECT_EQ(qp->GetTimeouts(), retryCount + 1);
    ASSERT_EQ(errors.size(), 1u);
    // The last progress was the ACK of the second packet; then RetryCount + 1 timeouts.
    ASSERT_EQ(m_rxA.size(), 2u);
    EXPECT_EQ(errors[0], m_rxA[1].time + rto * (retryCount + 1));
    const std::vector<Frame> data = DataSentByA();
    ASSERT_FALSE(data.empty());
    EXPECT_EQ(timeoutPsns, std::vector<uint32_t>(retryCount + 1, PsnAdd(data[0].psn, 2)));
    // The first pass sent 8 packets; each of the RetryCount retries resent the 6 unacknowledged.
    EXPECT_EQ(qp->GetPacketsSent(), 8 + 6 * retryCount);
    EXPECT_EQ(em->GetDropped(), 6 * (retryCount + 1));

    ASSERT_EQ(m_completions.size(), 3u);
    EXPECT_EQ(m_completions[0].wrId, 1u);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::RETRY_EXCEEDED);
    EXPECT_EQ(m_completions[1].wrId, 2u);
    EXPECT_EQ(m_completions[1].status, RdmaCompletionStatus::FLUSHED);
    EXPECT_EQ(m_completions[2].wrId, 3u);
    EXPECT_EQ(m_completions[2].status, RdmaCompletionStatus::FLUSHED);
    for (const RdmaCompletion& c : m_completions)
    {
        EXPECT_EQ(c.completionTime, errors[0] + RX_LATENCY);
    }
    EXPECT_EQ(m_peer->GetDeliveredBytes(), 2 * MTU);
    EXPECT_TRUE(m_arrivals.empty());

    // A post on a QP in error is flushed without sending anything.
    const std::size_t framesBefore = m_txA.size();
    const Time post = Simulator::Now();
    qp->PostWrite(MTU, 4);
    Simulator::Run();
    ASSERT_EQ(m_completions.size(), 4u);
    EXPECT_EQ(m_completions[3].wrId, 4u);
    EXPECT_EQ(m_completions[3].status, RdmaCompletionStatus::FLUSHED);
    EXPECT_EQ(m_completions[3].completionTime, post + TX_LATENCY + RX_LATENCY);
    EXPECT_EQ(m_txA.size(), framesBefore);
    EXPECT_EQ(errors.size(), 1u);
    EXPECT_EQ(qp->GetOutstandingRequests(), 0u);
}

// PSNs wrap from 0xFFFFFF to 0: with initial PSNs just below the wrap on both sides, 64
// packets each way arrive in order with no NAK, no timeout and no retransmission, and the wire
// shows consecutive 24-bit PSNs through the wrap, in the data and in the ACKs (one per packet,
// or coalesced so that ACKs jump across the wrap).
TEST_F(RdmaQueuePairTest, PsnWrapAround)
{
    for (uint32_t k : {1U, 3U})
    {
        Restart();
        m_fabric->SetQueuePairAttribute("AckInterval", UintegerValue(k));
        Build(0);
        Ptr<RdmaQueuePair> a = m_ta->CreateQueuePair();
        Ptr<RdmaQueuePair> b = m_tb->CreateQueuePair();
        const uint32_t psnA = 0xFFFFF0;
        const uint32_t psnB = 0xFFFFFF;
        a->Connect(m_tb->GetAddress(), b->GetQpn(), psnA, psnB);
        b->Connect(m_ta->GetAddress(), a->GetQpn(), psnB, psnA);
        Record(a, b);
        uint64_t arrivalsAtA = 0;
        a->SetArrivalCallback(Callback<void, Ptr<RdmaQueuePair>, uint64_t>(
            [&arrivalsAtA](Ptr<RdmaQueuePair>, uint64_t n) { arrivalsAtA += n; }));
        const uint32_t n = 64;
        const std::vector<uint32_t> messages = {n / 2, n / 2};
        a->PostWrite(messages[0] * MTU, 1);
        a->PostWrite(messages[1] * MTU, 2);
        b->PostWrite(n * MTU, 3);
        Simulator::Run();

        for (const auto& qp : {a, b})
        {
            EXPECT_EQ(qp->GetPacketsSent(), n) << "AckInterval " << k;
            EXPECT_EQ(qp->GetNaksReceived(), 0u);
            EXPECT_EQ(qp->GetTimeouts(), 0u);
            EXPECT_EQ(qp->GetRetransmissions(), 0u);
            EXPECT_EQ(qp->GetOutOfSequencePackets(), 0u);
            EXPECT_EQ(qp->GetDeliveredBytes(), n * MTU);
            EXPECT_EQ(qp->GetOutstandingRequests(), 0u);
        }
        EXPECT_EQ(m_arrivals, (std::vector<uint64_t>{n / 2 * MTU, n / 2 * MTU}));
        EXPECT_EQ(arrivalsAtA, n * MTU);
        ASSERT_EQ(m_completions.size(), 2u);
        for (const RdmaCompletion& c : m_completions)
        {
            EXPECT_EQ(c.status, RdmaCompletionStatus::SUCCESS);
        }
        // The wire: A's data from 0xFFFFF0 through 0 to 0x2F; B's ACKs answer every k-th
        // packet and the last of each message.
        std::vector<uint32_t> dataA;
        std::vector<uint32_t> acksFromB;
        for (const Frame& f : m_txA)
        {
            if (f.IsData())
            {
                dataA.push_back(f.psn);
            }
        }
        for (const Frame& f : m_txB)
        {
            if (f.opcode == RC_ACKNOWLEDGE)
            {
                acksFromB.push_back(f.psn);
            }
        }
        ASSERT_EQ(dataA.size(), n);
        for (uint32_t i = 0; i < n; ++i)
        {
            EXPECT_EQ(dataA[i], PsnAdd(psnA, i));
        }
        EXPECT_EQ(dataA[15], 0xFFFFFFu);
        EXPECT_EQ(dataA[16], 0u);
        std::vector<uint32_t> expectedAcks;
        uint32_t index = 0;
        for (uint32_t packets : messages)
        {
            for (uint32_t j = 0; j < packets; ++j, ++index)
            {
                if ((j + 1) % k == 0 || j + 1 == packets)
                {
                    expectedAcks.push_back(PsnAdd(psnA, index));
                }
            }
        }
        EXPECT_EQ(acksFromB, expectedAcks) << "AckInterval " << k;
    }
}

// A loss exactly at the wrap (the packet with PSN 0) is recovered by NAK and go-back-N like
// any other, with coalesced ACKs: the NAK carries PSN 0, and every byte arrives once.
TEST_F(RdmaQueuePairTest, LossAtPsnWrapIsRecovered)
{
    m_fabric->SetQueuePairAttribute("AckInterval", UintegerValue(4));
    Build(0);
    Ptr<RdmaQueuePair> a = m_ta->CreateQueuePair();
    Ptr<RdmaQueuePair> b = m_tb->CreateQueuePair();
    const uint32_t psnA = 0xFFFFF0;
    a->Connect(m_tb->GetAddress(), b->GetQpn(), psnA, 0x000010);
    b->Connect(m_ta->GetAddress(), a->GetQpn(), 0x000010, psnA);
    Record(a, b);
    std::vector<uint32_t> nakPsns;
    a->TraceConnectWithoutContext(
        "Nak", Callback<void, uint32_t>([&nakPsns](uint32_t psn) { nakPsns.push_back(psn); }));
    Ptr<FrameDropper> em = DropAt(
        m_nicB, [](const Frame& f) { return f.IsData() && f.psn == 0; }, 1);
    const uint64_t bytes = 32 * MTU;
    a->PostWrite(bytes, 1);
    Simulator::Run();

    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(nakPsns, std::vector<uint32_t>{0});
    EXPECT_EQ(a->GetNaksReceived(), 1u);
    EXPECT_EQ(a->GetTimeouts(), 0u);
    EXPECT_GT(a->GetRetransmissions(), 0u);
    EXPECT_EQ(b->GetDeliveredBytes(), bytes);
    EXPECT_EQ(m_arrivals, std::vector<uint64_t>{bytes});
    ASSERT_EQ(m_completions.size(), 1u);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);
}

// A timeout rewinds to the start of a message whose only ACK was lost; the duplicate's re-ACK
// then acknowledges the whole message while the requester is still resending its first
// packets. The message completes, the resending stops at once (one retransmission for each
// packet that left before the ACK came back), and the next message starts at the next PSN.
TEST_F(RdmaQueuePairTest, LateAckAfterRewindCompletesMessage)
{
    const uint32_t n = 16;
    m_fabric->SetQueuePairAttribute("AckInterval", UintegerValue(n));
    Build(0);
    Ptr<RdmaQueuePair> qp = CreatePair();
    qp->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
        [this, qp](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
        {
            m_completions.push_back(c);
            if (m_completions.size() == 1)
            {
                qp->PostWrite(2 * MTU, 2);
            }
        }));
    Ptr<FrameDropper> em = DropAt(
        m_nicA, [](const Frame& f) { return f.opcode == RC_ACKNOWLEDGE; }, 1);
    qp->PostWrite(n * MTU, 1);
    Simulator::Run();

    EXPECT_EQ(em->GetDropped(), 1u);
    EXPECT_EQ(qp->GetTimeouts(), 1u);
    ASSERT_EQ(m_completions.size(), 2u);
    EXPECT_EQ(m_completions[0].status, RdmaCompletionStatus::SUCCESS);
    EXPECT_EQ(m_completions[1].status, RdmaCompletionStatus::SUCCESS);
    EXPECT_EQ(m_peer->GetDeliveredBytes(), (n + 2) * MTU);
    EXPECT_EQ(m_arrivals, (std::vector<uint64_t>{n * MTU, 2 * MTU}));

    // The timer, armed by the first packet, expires one RTO after it; the re-ACK of the first
    // duplicate comes back one round trip later. Packets that started before that were resent.
    const Time rto = qp->GetRetransmissionTimeout();
    const Time ser0 = Serialization(DataFrameBytes(MTU, true));
    const Time ser1 = Serialization(DataFrameBytes(MTU, false));
    const Time timeout = TX_LATENCY + rto;
    const Time reAck = timeout + ser0 + CABLE_DELAY + Serialization(ACK_FRAME_BYTES) + CABLE_DELAY;
    uint32_t resent = 1;
    while (resent < n && timeout + ser0 + ser1 * (resent - 1) < reAck)
    {
        ++resent;
    }
    ASSERT_LT(resent, n) << "the re-ACK must arrive mid-message for this test";
    EXPECT_EQ(qp->GetRetransmissions(), resent);
    EXPECT_EQ(m_peer->GetOutOfSequencePackets(), resent);
    const std::vector<Frame> data = DataSentByA();
    ASSERT_EQ(data.size(), n + resent + 2);
    for (uint32_t i = 0; i < resent; ++i)
    {
        EXPECT_EQ(data[n + i].psn, PsnAdd(data[0].psn, i));
        EXPECT_EQ(data[n + i].time, timeout + (i == 0 ? Time(0) : ser0 + ser1 * (i - 1)));
    }
    // The second message continues the PSN sequence after the first.
    EXPECT_EQ(data[n + resent].opcode, RC_RDMA_WRITE_FIRST);
    EXPECT_EQ(data[n + resent].psn, PsnAdd(data[0].psn, n));
    EXPECT_EQ(data[n + resent + 1].opcode, RC_RDMA_WRITE_LAST);
    EXPECT_EQ(data[n + resent + 1].psn, PsnAdd(data[0].psn, n + 1));
    EXPECT_EQ(qp->GetOutstandingRequests(), 0u);
}
