/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The congestion-control contract, proven by an algorithm written in this file alone: a fixed
// window that reads every ACK (bytes, RTT sample, ECN echo). Nothing else in the module knows
// it; the transport creates it by TypeId and obeys its window.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ns3
{

/**
 * \brief A toy window-based algorithm: a fixed window, and a record of every ACK it read.
 */
class ToyWindowCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyWindowCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<ToyWindowCc>()
                                .AddAttribute("Window",
                                              "the window (payload bytes; 0: none)",
                                              UintegerValue(0),
                                              MakeUintegerAccessor(&ToyWindowCc::m_configured),
                                              MakeUintegerChecker<uint64_t>());
        return tid;
    }

    bool WantsRttSamples() const override
    {
        return true;
    }

    void OnAck(const RdmaAckInfo& ack) override
    {
        s_acks.push_back(ack);
        s_acks.back().packet = nullptr; // not kept beyond the call
    }

    /// Every ACK any instance read, in order.
    static std::vector<RdmaAckInfo> s_acks;

  protected:
    void NotifyConstructionCompleted() override
    {
        RdmaCongestionControl::NotifyConstructionCompleted();
        SetWindow(m_configured);
    }

  private:
    uint64_t m_configured{0}; //!< the Window attribute
};

std::vector<RdmaAckInfo> ToyWindowCc::s_acks;
NS_OBJECT_ENSURE_REGISTERED(ToyWindowCc);

} // namespace ns3

using namespace ns3;

namespace
{

const DataRate RATE("100Gbps");
const Time CABLE = NanoSeconds(100);
constexpr uint32_t MTU = 4096;

class CcContractTest : public AiFabricTest
{
  protected:
    void SetUp() override
    {
        AiFabricTest::SetUp();
        ToyWindowCc::s_acks.clear();
    }

    /**
     * \brief Senders, each on its own host, write to one receiver through one switch; each
     *        sender's QP runs ToyWindowCc.
     * \param senders how many
     * \param window the toy's window (0: none)
     * \param bytes each sender's message
     * \param echo the transports' AckEcnEcho
     * \param kmin the switch's ECN Kmin (bytes)
     * \return when the last completion arrived
     */
    Time Run(uint32_t senders, uint64_t window, uint64_t bytes, bool echo, uint32_t kmin)
    {
        RoceFabricHelper fabric;
        fabric.SetDeviceAttribute("DataRate", DataRateValue(RATE));
        fabric.SetPortPartAttribute("Marker", "Kmin", UintegerValue(kmin));
        fabric.SetPortPartAttribute("Marker", "Kmax", UintegerValue(kmin + 1));
        fabric.SetChannelAttribute("Delay", TimeValue(CABLE));
        fabric.SetTransportAttribute("CongestionControl",
                                     TypeIdValue(TypeId::LookupByName("ns3::ToyWindowCc")));
        fabric.SetTransportAttribute("AckEcnEcho", BooleanValue(echo));
        fabric.SetCongestionControlAttribute("Window", UintegerValue(window));
        fabric.SetQueuePairAttribute("Mtu", UintegerValue(MTU));
        NodeContainer hosts;
        hosts.Create(senders + 1);
        NodeContainer sw;
        sw.Create(1);
        fabric.InstallHosts(hosts);
        fabric.InstallSwitches(sw);
        for (uint32_t h = 0; h <= senders; ++h)
        {
            fabric.Connect(hosts.Get(h), sw.Get(0));
        }
        fabric.ComputeRoutes();
        fabric.AssignStreams(1);
        Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(senders));
        Time last;
        for (uint32_t s = 0; s < senders; ++s)
        {
            Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(s));
            Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
            Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
            tx->ConnectQueuePairs(a, b, rx);
            EXPECT_EQ(a->GetCongestionControl()->GetInstanceTypeId().GetName(), "ns3::ToyWindowCc");
            EXPECT_EQ(a->GetCongestionControl()->GetWindow(), window);
            a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
                [&last](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
                {
                    EXPECT_EQ(c.status, RdmaCompletionStatus::SUCCESS);
                    last = std::max(last, Simulator::Now());
                }));
            a->PostWrite(bytes, s);
        }
        Simulator::Run();
        Simulator::Destroy();
        return last;
    }
};

} // namespace

// One sender: the window holds the unacknowledged bytes at or below it after every ACK, every
// byte is acknowledged exactly once, the RTT samples are the unloaded path's round trip, and
// the goodput is the window per round trip (the window-limited law), far below the line.
TEST_F(CcContractTest, ToyWindowHoldsTheFlightAndSetsTheGoodput)
{
    const uint64_t bytes = 4 << 20;
    const uint64_t window = 2 * MTU;
    const Time end = Run(1, window, bytes, false, 1 << 20);
    const std::vector<RdmaAckInfo>& acks = ToyWindowCc::s_acks;
    ASSERT_FALSE(acks.empty());
    uint64_t acked = 0;
    uint64_t packets = 0;
    Time minRtt = Seconds(1);
    Time maxRtt;
    for (const RdmaAckInfo& a : acks)
    {
        acked += a.ackedBytes;
        packets += a.ackedPackets;
        EXPECT_LE(a.inflightBytes + a.ackedBytes, window); // in flight before this ACK
        EXPECT_FALSE(a.ecnEcho);
        EXPECT_FALSE(a.nak);
        ASSERT_TRUE(a.rtt.IsPositive());
        minRtt = std::min(minRtt, a.rtt);
        maxRtt = std::max(maxRtt, a.rtt);
    }
    EXPECT_EQ(acked, bytes);
    EXPECT_EQ(packets, bytes / MTU);
    EXPECT_EQ(acks.back().inflightBytes, 0u);
    // Floor of a round trip: the data frame serialized at the NIC and at the switch, the ACK
    // likewise, and four cables.
    const Time floor = 2 * FabricBytesTxTime(RATE, MTU) + 4 * CABLE;
    EXPECT_GE(minRtt, floor);
    EXPECT_LT(maxRtt - minRtt, FabricBytesTxTime(RATE, window)) << minRtt << " " << maxRtt;
    // Window-limited: the window per round trip, within the first round trip's start-up.
    const double expected = static_cast<double>(window) * 8 / minRtt.GetSeconds();
    const double goodput = static_cast<double>(bytes) * 8 / end.GetSeconds();
    EXPECT_NEAR(goodput / expected, 1.0, 0.05) << goodput / 1e9 << " Gb/s";
    EXPECT_LT(goodput, 0.5 * static_cast<double>(RATE.GetBitRate()));
}

// Without a window the same algorithm leaves the rate to the line: the flight grows past any
// window above and the goodput is near the line rate.
TEST_F(CcContractTest, NoWindowRunsAtTheLine)
{
    const uint64_t bytes = 4 << 20;
    const Time end = Run(1, 0, bytes, false, 1 << 20);
    uint64_t maxFlight = 0;
    for (const RdmaAckInfo& a : ToyWindowCc::s_acks)
    {
        maxFlight = std::max(maxFlight, a.inflightBytes + a.ackedBytes);
    }
    EXPECT_GT(maxFlight, 4u * MTU);
    const double goodput = static_cast<double>(bytes) * 8 / end.GetSeconds();
    EXPECT_GT(goodput, 0.9 * static_cast<double>(RATE.GetBitRate()));
}

// Two senders into one port with a low marking threshold: with AckEcnEcho the ACKs carry the
// echo of the marks (BECN), without it they do not; the bytes are acknowledged either way.
TEST_F(CcContractTest, EcnEchoFollowsTheMarksWhenAsked)
{
    const uint64_t bytes = 1 << 20;
    for (const bool echo : {false, true})
    {
        ToyWindowCc::s_acks.clear();
        Run(2, 0, bytes, echo, 2 * MTU);
        uint64_t echoes = 0;
        uint64_t acked = 0;
        for (const RdmaAckInfo& a : ToyWindowCc::s_acks)
        {
            echoes += a.ecnEcho ? 1 : 0;
            acked += a.ackedBytes;
        }
        EXPECT_EQ(acked, 2 * bytes);
        if (echo)
        {
            EXPECT_GT(echoes, 0u);
        }
        else
        {
            EXPECT_EQ(echoes, 0u);
        }
    }
}

// --cc=NAME: the registered short names, a TypeId name of any algorithm (this file's
// included), and refusals.
TEST_F(CcContractTest, NamesAndTypeIds)
{
    RdmaCcRegistration::Entry e;
    ASSERT_TRUE(RdmaCcRegistration::Lookup("dcqcn", e));
    EXPECT_EQ(e.typeId, RdmaCcDcqcn::GetTypeId());
    EXPECT_EQ(e.fabric, "roce");
    ASSERT_TRUE(RdmaCcRegistration::Lookup("none", e));
    EXPECT_EQ(e.typeId, RdmaCcNone::GetTypeId());
    EXPECT_EQ(e.fabric, "");
    ASSERT_TRUE(RdmaCcRegistration::Lookup("ibcc", e));
    EXPECT_EQ(e.fabric, "ib");
    ASSERT_TRUE(RdmaCcRegistration::Lookup("ns3::ToyWindowCc", e));
    EXPECT_EQ(e.typeId, ToyWindowCc::GetTypeId());
    EXPECT_FALSE(RdmaCcRegistration::Lookup("hpcc", e));
    EXPECT_FALSE(RdmaCcRegistration::Lookup("ns3::Node", e)); // not a congestion control
    EXPECT_FALSE(RdmaCcRegistration::Lookup("ns3::RdmaCongestionControl", e)); // the base
    EXPECT_EQ(RdmaCcRegistration::Names(), "dcqcn, ibcc, none");
}
