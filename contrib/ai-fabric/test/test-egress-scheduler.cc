/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Egress schedulers as port parts: strict priority and IBTA VL arbitration against a port of
// the test's own (which classes are asked, in what order, what is chosen, the weights in
// bytes), and a scheduler written in this file, given to every port of a fabric, that sees
// every frame a port sends from its queues, byte for byte.

#include "ai-fabric-test-fixture.h"
#include "fabric-star.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-strict-priority-scheduler.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/ib-vl-arbiter.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

using namespace ns3;

namespace
{

class EgressSchedulerTest : public AiFabricTest
{
};

/// A port of the test's: the classes in \p sendable may send; every question is recorded.
class FakeClasses : public FabricEgressClasses
{
  public:
    uint32_t sendable{0};   //!< bit c: class c may send
    std::vector<int> asked; //!< the classes asked, in order

    bool IsSendable(uint8_t cls) override
    {
        asked.push_back(cls);
        return (sendable & (1U << cls)) != 0;
    }
};

/**
 * \param arbiter a scheduler
 * \param port its port
 * \param n classes
 * \param frames selections to make
 * \param bytes the bytes of every frame sent
 * \return the classes chosen, in order (-1: none)
 */
std::vector<int>
Serve(Ptr<FabricEgressScheduler> arbiter,
      FakeClasses& port,
      uint32_t n,
      uint32_t frames,
      uint32_t bytes)
{
    std::vector<int> chosen;
    for (uint32_t i = 0; i < frames; ++i)
    {
        const int32_t cls = arbiter->Select(port, n, (1U << n) - 1);
        chosen.push_back(cls);
        if (cls >= 0)
        {
            arbiter->Served(static_cast<uint8_t>(cls), bytes);
        }
    }
    return chosen;
}

/// Counts the bytes a port sends from each class: strict priority, and a tally.
class CountingScheduler : public FabricStrictPriorityScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestCountingScheduler")
                                .SetParent<FabricStrictPriorityScheduler>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<CountingScheduler>();
        return tid;
    }

    void Served(uint8_t cls, uint32_t bytes) override
    {
        served.at(cls) += bytes;
        ++frames;
    }

    std::array<uint64_t, 16> served{}; //!< bytes sent per class
    uint64_t frames{0};                //!< frames sent
};

NS_OBJECT_ENSURE_REGISTERED(CountingScheduler);

/// Strict priority asked through its virtual functions: a subclass that changes nothing.
class VirtualStrictPriority : public FabricStrictPriorityScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestVirtualStrictPriority")
                                .SetParent<FabricStrictPriorityScheduler>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<VirtualStrictPriority>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(VirtualStrictPriority);

/// VL arbitration asked through its virtual functions: a subclass that changes nothing.
class VirtualVlArbiter : public IbVlArbiter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestVirtualVlArbiter")
                                .SetParent<IbVlArbiter>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<VirtualVlArbiter>();
        return tid;
    }
};

NS_OBJECT_ENSURE_REGISTERED(VirtualVlArbiter);

/// Asks every candidate class, the lowest first, before it chooses the highest that may send:
/// a port must keep what a question made ready (a NIC's frame from its transport) until the
/// scheduler chooses that class.
class AskEveryClassScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestAskEveryClassScheduler")
                                .SetParent<FabricEgressScheduler>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<AskEveryClassScheduler>();
        return tid;
    }

    int32_t Select(FabricEgressClasses& port, uint32_t nClasses, uint32_t candidates) override
    {
        int32_t chosen = -1;
        for (uint32_t c = 0; c < nClasses; ++c)
        {
            if ((candidates & (1U << c)) != 0 && port.IsSendable(static_cast<uint8_t>(c)))
            {
                chosen = static_cast<int32_t>(c);
            }
        }
        return chosen;
    }

    void Served(uint8_t /* cls */, uint32_t bytes) override
    {
        served += bytes;
    }

    uint64_t served{0}; //!< bytes sent
};

NS_OBJECT_ENSURE_REGISTERED(AskEveryClassScheduler);

/// What an incast leaves behind: when each flow finished, and what each port sent.
struct IncastResult
{
    std::vector<int64_t> finished;   //!< per sender, ps
    std::vector<uint64_t> portBytes; //!< per switch port
};

/**
 * \brief Three hosts write 1 MiB each to a fourth through one switch (the switch's port to
 *        the receiver queues the three senders' frames), every port with the given scheduler.
 * \param scheduler a scheduler's type name, or empty for the default
 * \return the result
 */
IncastResult
Incast(const std::string& scheduler)
{
    FabricStar<RoceFabricHelper> star(4,
                                      [&scheduler](RoceFabricHelper& fabric)
                                      {
                                          if (!scheduler.empty())
                                          {
                                              fabric.SetPortPart("Scheduler", scheduler);
                                          }
                                      });
    IncastResult result;
    result.finished.assign(3, -1);
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t h = 0; h < 3; ++h)
    {
        auto [a, b] = star.Connect(h, 3);
        a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [&result, h](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
            { result.finished[h] = c.completionTime.GetTimeStep(); }));
        a->PostWrite(1 << 20, h + 1);
        qps.push_back(b);
    }
    Simulator::Run();
    for (uint32_t h = 0; h < 3; ++h)
    {
        EXPECT_EQ(qps[h]->GetDeliveredBytes(), 1u << 20);
    }
    Ptr<RoceSwitch> s = star.sw.Get(0)->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        result.portBytes.push_back(s->GetPort(i)->GetCounters().txBytes);
    }
    return result;
}

/**
 * \brief Hosts 0 (SL 0, VL0) and 1 (SL 1, VL1) write 2 MiB each to host 2 through one
 *        InfiniBand switch, every port with the given VL arbiter and low-priority table.
 * \param scheduler the arbiter's type name
 * \param lowTable its LowTable
 * \return when each flow finished, and what each switch port sent
 */
IncastResult
IbIncast(const std::string& scheduler, const std::string& lowTable)
{
    FabricStar<IbFabricHelper> star(3,
                                    [&](IbFabricHelper& fabric)
                                    {
                                        fabric.SetPortPart("Scheduler", scheduler);
                                        fabric.SetPortPartAttribute(
                                            "Scheduler", "LowTable", StringValue(lowTable));
                                    });
    star.fabric.GetNic(star.hosts.Get(1))->SetAttribute("Sl", UintegerValue(1));
    IncastResult result;
    result.finished.assign(2, -1);
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t h = 0; h < 2; ++h)
    {
        auto [a, b] = star.Connect(h, 2);
        a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [&result, h](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
            { result.finished[h] = c.completionTime.GetTimeStep(); }));
        a->PostWrite(2 << 20, h + 1);
        qps.push_back(b);
    }
    Simulator::Run();
    for (uint32_t h = 0; h < 2; ++h)
    {
        EXPECT_EQ(qps[h]->GetDeliveredBytes(), 2u << 20);
    }
    Ptr<IbSwitch> s = star.sw.Get(0)->GetObject<IbSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        result.portBytes.push_back(s->GetPort(i)->GetCounters().txBytes);
    }
    Simulator::Destroy();
    return result;
}

} // namespace

// Strict priority asks from the highest class down, only those in the candidates, and stops at
// the first that may send.
TEST_F(EgressSchedulerTest, StrictPriorityAsksFromTheTopWithinTheCandidates)
{
    Ptr<FabricStrictPriorityScheduler> sp = CreateObject<FabricStrictPriorityScheduler>();
    FakeClasses port;
    port.sendable = (1U << 2) | (1U << 5);
    EXPECT_EQ(sp->Select(port, 8, 0xFF), 5);
    EXPECT_EQ(port.asked, (std::vector<int>{7, 6, 5}));
    port.asked.clear();
    EXPECT_EQ(sp->Select(port, 8, (1U << 2) | (1U << 4)), 2);
    EXPECT_EQ(port.asked, (std::vector<int>{4, 2}));
    port.asked.clear();
    EXPECT_EQ(sp->Select(port, 4, 0xFF), 2); // classes beyond the port's count are not asked
    EXPECT_EQ(port.asked, (std::vector<int>{3, 2}));
    port.sendable = 0;
    EXPECT_EQ(sp->Select(port, 8, 0xFF), -1);
}

// Without tables the VLs take turns, one packet each, passing over those that may not send.
TEST_F(EgressSchedulerTest, VlArbiterWithoutTablesTakesTurns)
{
    Ptr<IbVlArbiter> arbiter = CreateObject<IbVlArbiter>();
    FakeClasses port;
    port.sendable = (1U << 1) | (1U << 3);
    EXPECT_EQ(Serve(arbiter, port, 4, 5, 4138), (std::vector<int>{1, 3, 1, 3, 1}));
    port.sendable = 0;
    EXPECT_EQ(Serve(arbiter, port, 4, 1, 4138), (std::vector<int>{-1}));
}

// Weights are 64-byte units: an entry sends until its weight is spent, finishing the packet it
// started. With 100-byte packets, VL0's weight 2 (128 bytes) sends two packets (100, then 28
// left), VL1's weight 1 (64 bytes) one; an entry of weight 0 is passed over.
TEST_F(EgressSchedulerTest, VlArbiterWeighsInBytes)
{
    Ptr<IbVlArbiter> arbiter = CreateObject<IbVlArbiter>();
    arbiter->SetAttribute("LowTable", StringValue("0:2,2:0,1:1"));
    FakeClasses port;
    port.sendable = 0x7;
    EXPECT_EQ(Serve(arbiter, port, 4, 9, 100), (std::vector<int>{0, 0, 1, 0, 0, 1, 0, 0, 1}));
    // A VL with nothing to send gives its turn away at once.
    port.sendable = 1U << 1;
    EXPECT_EQ(Serve(arbiter, port, 4, 2, 100), (std::vector<int>{1, 1}));
}

// The limit of high priority: with a limit of 0 one high-priority packet goes, then the low
// table's; without a limit (255) the high table keeps the link while it has packets; a low
// table alone with nothing lets the high table go on.
TEST_F(EgressSchedulerTest, VlArbiterLimitsHighPriority)
{
    FakeClasses port;
    port.sendable = 0x3;
    Ptr<IbVlArbiter> bounded = CreateObject<IbVlArbiter>();
    bounded->SetAttribute("HighTable", StringValue("0:255"));
    bounded->SetAttribute("LowTable", StringValue("1:255"));
    bounded->SetAttribute("HighLimit", UintegerValue(0));
    EXPECT_EQ(Serve(bounded, port, 2, 6, 4138), (std::vector<int>{0, 1, 0, 1, 0, 1}));
    // A limit of one 4096-byte unit: high sends until 4096 bytes went (two 4000-byte packets).
    Ptr<IbVlArbiter> one = CreateObject<IbVlArbiter>();
    one->SetAttribute("HighTable", StringValue("0:255"));
    one->SetAttribute("LowTable", StringValue("1:255"));
    one->SetAttribute("HighLimit", UintegerValue(1));
    EXPECT_EQ(Serve(one, port, 2, 6, 4000), (std::vector<int>{0, 0, 1, 0, 0, 1}));
    Ptr<IbVlArbiter> unbounded = CreateObject<IbVlArbiter>();
    unbounded->SetAttribute("HighTable", StringValue("0:255"));
    unbounded->SetAttribute("LowTable", StringValue("1:255"));
    EXPECT_EQ(Serve(unbounded, port, 2, 4, 4138), (std::vector<int>{0, 0, 0, 0}));
    port.sendable = 0x1;
    EXPECT_EQ(Serve(bounded, port, 2, 3, 4138), (std::vector<int>{0, 0, 0}));
}

TEST_F(EgressSchedulerTest, VlArbiterRefusesAMalformedTable)
{
    Ptr<IbVlArbiter> arbiter = CreateObject<IbVlArbiter>();
    EXPECT_DEATH(arbiter->SetAttribute("HighTable", StringValue("0-3")), "is not VL:weight");
    EXPECT_DEATH(arbiter->SetAttribute("HighTable", StringValue("a:1")), "is not VL:weight");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("1:")), "is not VL:weight");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("1:-2")), "is not VL:weight");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("15:1")), "data VL \\(0-14\\)");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("1:256")), "weight of 0-255");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("1:2,")), "has an empty entry");
    EXPECT_DEATH(arbiter->SetAttribute("LowTable", StringValue("1:2,,3:4")), "has an empty entry");
    // Spaces around entries and numbers are allowed; a blank table is no table.
    arbiter->SetAttribute("LowTable", StringValue(" 0 : 2 , 1:1 "));
    arbiter->SetAttribute("HighTable", StringValue("  "));
    FakeClasses port;
    port.sendable = 0x3;
    // VL0 sends two 64-byte units, VL1 one, in turn: as "0:2,1:1" without a high table.
    EXPECT_EQ(Serve(arbiter, port, 2, 6, 64), (std::vector<int>{0, 0, 1, 0, 0, 1}));
}

// A port runs plain strict priority inline (its per-frame path); a subclass is asked through
// its virtual functions. Both choose the same frames: an incast through one switch ends
// at the same picosecond, every port having sent the same bytes.
TEST_F(EgressSchedulerTest, InlineStrictPriorityIsTheScheduler)
{
    EXPECT_TRUE(CreateObject<FabricStrictPriorityScheduler>()->IsPlainStrictPriority());
    EXPECT_FALSE(CreateObject<VirtualStrictPriority>()->IsPlainStrictPriority());
    EXPECT_FALSE(CreateObject<IbVlArbiter>()->IsPlainStrictPriority());
    const IncastResult inline_ = Incast("");
    Simulator::Destroy();
    const IncastResult virtual_ = Incast("ns3::TestVirtualStrictPriority");
    EXPECT_EQ(inline_.finished, virtual_.finished);
    EXPECT_EQ(inline_.portBytes, virtual_.portBytes);
    EXPECT_GT(inline_.finished[0], 0);
}

// The plain VL arbiter runs inline in an InfiniBand port; a subclass is asked through its
// virtual functions. Both choose the same packets, with tables (3:1 between the two VLs) and
// without (turns): the two flows end at the same picosecond, every port having sent the same.
TEST_F(EgressSchedulerTest, InlineVlArbiterIsTheScheduler)
{
    EXPECT_TRUE(CreateObject<IbVlArbiter>()->IsPlain());
    EXPECT_FALSE(CreateObject<VirtualVlArbiter>()->IsPlain());
    for (const std::string table : {"0:192,1:64", ""})
    {
        const IncastResult inline_ = IbIncast("ns3::IbVlArbiter", table);
        const IncastResult virtual_ = IbIncast("ns3::TestVirtualVlArbiter", table);
        EXPECT_EQ(inline_.finished, virtual_.finished) << table;
        EXPECT_EQ(inline_.portBytes, virtual_.portBytes) << table;
        EXPECT_GT(inline_.finished[0], 0);
        EXPECT_NE(inline_.finished[0], inline_.finished[1]) << table;
    }
}

// A scheduler of this file given to every RoCEv2 port by the helper: each port sends all its
// frames through it but PFC frames (none here: nothing congests), so what it counts is what the
// port sent, byte for byte; the data go on priority 3, ACKs on priority 6.
TEST_F(EgressSchedulerTest, EveryRocePortSendsThroughItsScheduler)
{
    FabricStar<RoceFabricHelper> star(
        2,
        [](RoceFabricHelper& fabric)
        { fabric.SetPortPart("Scheduler", "ns3::TestCountingScheduler"); });
    auto [a, b] = star.Connect(0, 1);
    a->PostWrite(64 * 4096, 1);
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), 64u * 4096);
    std::vector<Ptr<RoceNetDevice>> ports{star.fabric.GetNic(star.hosts.Get(0)),
                                          star.fabric.GetNic(star.hosts.Get(1))};
    Ptr<RoceSwitch> s = star.sw.Get(0)->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        ports.push_back(s->GetPort(i));
    }
    for (const Ptr<RoceNetDevice>& port : ports)
    {
        Ptr<CountingScheduler> counted = DynamicCast<CountingScheduler>(port->GetScheduler());
        ASSERT_NE(counted, nullptr);
        uint64_t total = 0;
        for (uint64_t bytes : counted->served)
        {
            total += bytes;
        }
        EXPECT_EQ(total, port->GetCounters().txBytes);
        EXPECT_EQ(counted->frames, port->GetCounters().txPackets);
        EXPECT_EQ(counted->served[3] + counted->served[6], total);
    }
    Ptr<CountingScheduler> sender = DynamicCast<CountingScheduler>(ports[0]->GetScheduler());
    EXPECT_GT(sender->served[3], 64u * 4096); // the data, with their headers
    EXPECT_EQ(sender->served[6], 0u);         // the sender sends no ACK
}

// Two hosts write to each other, so each NIC has data from its transport (priority 3) and ACKs
// (priority 6) to send; its scheduler asks priority 3 (the NIC takes a frame from the
// transport to answer) and then chooses 6. The frame waits for the next turn: every byte
// arrives once, nothing is dropped or sent again, and the scheduler saw every byte sent.
TEST_F(EgressSchedulerTest, ANicKeepsTheFrameItsSchedulerAskedFor)
{
    FabricStar<RoceFabricHelper> star(
        2,
        [](RoceFabricHelper& fabric)
        { fabric.SetPortPart("Scheduler", "ns3::TestAskEveryClassScheduler"); });
    std::vector<Ptr<RdmaQueuePair>> receivers;
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t h = 0; h < 2; ++h)
    {
        auto [a, b] = star.Connect(h, 1 - h);
        a->PostWrite(256 * 1024, h + 1);
        senders.push_back(a);
        receivers.push_back(b);
    }
    Simulator::Run();
    for (uint32_t h = 0; h < 2; ++h)
    {
        EXPECT_EQ(receivers[h]->GetDeliveredBytes(), 256u * 1024);
        EXPECT_EQ(senders[h]->GetRetransmissions(), 0u);
        Ptr<RoceNetDevice> nic = star.fabric.GetNic(star.hosts.Get(h));
        EXPECT_EQ(nic->GetCounters().TotalDrops(), 0u);
        Ptr<AskEveryClassScheduler> scheduler
            = DynamicCast<AskEveryClassScheduler>(nic->GetScheduler());
        ASSERT_NE(scheduler, nullptr);
        EXPECT_EQ(scheduler->served, nic->GetCounters().txBytes);
        EXPECT_GT(nic->GetQueueCounters(6).enqueuedPackets, 0u); // ACKs, chosen over data
    }
}

// The same on InfiniBand: the VL arbiter is a port part like any other, and a scheduler of this
// file replaces it on every port; it sees every data packet and ACK (flow-control packets go
// ahead of it and are not counted).
TEST_F(EgressSchedulerTest, EveryIbPortSendsThroughItsScheduler)
{
    FabricStar<IbFabricHelper> star(
        2,
        [](IbFabricHelper& fabric)
        { fabric.SetPortPart("Scheduler", "ns3::TestCountingScheduler"); });
    auto [a, b] = star.Connect(0, 1);
    a->PostWrite(64 * 4096, 0);
    Simulator::Run();
    EXPECT_EQ(b->GetDeliveredBytes(), 64u * 4096);
    Ptr<IbNetDevice> nic = star.fabric.GetNic(star.hosts.Get(0));
    Ptr<CountingScheduler> counted = DynamicCast<CountingScheduler>(nic->GetScheduler());
    ASSERT_NE(counted, nullptr);
    const uint64_t fcBytes = nic->GetFlowControlPacketsSent() * 6;
    EXPECT_EQ(counted->served[0] + fcBytes, nic->GetCounters().txBytes);
    EXPECT_EQ(counted->frames, 64u); // 4 KB-MTU packets, one per 4096 bytes
}
