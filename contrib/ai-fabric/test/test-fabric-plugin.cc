/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// A fabric is a plug-in: every registered fabric's helper is made by name and answers what
// programs ask of it, and its answers match what its ports do.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ai-fabric-test-programs.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/fault-injector.h"
#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FabricPluginTest : public AiFabricTest
{
};

} // namespace

TEST_F(FabricPluginTest, EveryFabricIsMadeByName)
{
    const std::vector<std::string> names = FabricHelperRegistration::Names();
    ASSERT_EQ(names, (std::vector<std::string>{"ib", "roce"}));
    for (const std::string& name : names)
    {
        std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(name);
        ASSERT_TRUE(fabric) << name;
        EXPECT_EQ(fabric->GetFabricName(), name);
    }
    EXPECT_FALSE(FabricHelper::CreateByName("ualink"));
}

// The overhead a fabric declares is what its port puts on the wire around a full packet: the
// line time of the second packet of a two-MTU write (no RETH) is (MTU + overhead) bytes.
TEST_F(FabricPluginTest, OverheadIsWhatThePortSends)
{
    const DataRate rate("100Gbps");
    constexpr uint32_t MTU = 4096;
    for (const std::string& name : FabricHelperRegistration::Names())
    {
        std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(name);
        fabric->SetDeviceAttribute("DataRate", DataRateValue(rate));
        fabric->SetQueuePairAttribute("Mtu", UintegerValue(MTU));
        NodeContainer hosts;
        hosts.Create(2);
        fabric->InstallHosts(hosts);
        fabric->Connect(hosts.Get(0), hosts.Get(1));
        fabric->ComputeRoutes();
        fabric->AssignStreams(1);
        Ptr<FabricNetDevice> port = fabric->GetHostPort(hosts.Get(0));
        std::vector<Time> starts;
        port->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>(
                [&starts](Ptr<const Packet> p)
                {
                    if (p->GetSize() > MTU) // data frames, not ACKs or flow-control packets
                    {
                        starts.push_back(Simulator::Now());
                    }
                }));
        Ptr<RdmaTransport> a = fabric->GetTransport(hosts.Get(0));
        Ptr<RdmaTransport> b = fabric->GetTransport(hosts.Get(1));
        Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
        Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
        a->ConnectQueuePairs(qa, qb, b);
        qa->PostWrite(3 * MTU, 1);
        Simulator::Run();
        // Data packets leave back to back: the second starts one line time after the first;
        // the third one after the second, and it carries no RETH, like the second.
        ASSERT_GE(starts.size(), 3u) << name;
        EXPECT_EQ(starts[2] - starts[1],
                  FabricBytesTxTime(rate, MTU + fabric->GetRdmaOverheadBytes()))
            << name;
        EXPECT_DOUBLE_EQ(fabric->GetRdmaWireEfficiency(MTU),
                         MTU / (MTU + static_cast<double>(fabric->GetRdmaOverheadBytes())));
        Simulator::Destroy();
    }
}

// What each fabric answers: recovery delays, switch buffers, options.
TEST_F(FabricPluginTest, AnswersPerFabric)
{
    std::unique_ptr<FabricHelper> roce = FabricHelper::CreateByName("roce");
    std::unique_ptr<FabricHelper> ib = FabricHelper::CreateByName("ib");
    for (const auto& [fabric, detection, reroute] :
         {std::make_tuple(roce.get(), MilliSeconds(30), MilliSeconds(5)),
          std::make_tuple(ib.get(), MilliSeconds(1), MilliSeconds(50))})
    {
        Ptr<FaultInjector> injector = CreateObject<FaultInjector>();
        fabric->SetRecoveryDelays(injector);
        TimeValue d;
        TimeValue r;
        injector->GetAttribute("DetectionDelay", d);
        injector->GetAttribute("RerouteDelay", r);
        EXPECT_EQ(d.Get(), detection) << fabric->GetFabricName();
        EXPECT_EQ(r.Get(), reroute) << fabric->GetFabricName();
    }
    EXPECT_EQ(roce->SetSwitchBuffer(100), "");
    EXPECT_EQ(ib->SetSwitchBuffer(4160), "");
    EXPECT_NE(ib->SetSwitchBuffer(4100), ""); // not a multiple of 64
    EXPECT_TRUE(roce->HasOption("pfc"));
    EXPECT_FALSE(roce->HasOption("lmc"));
    EXPECT_TRUE(ib->HasOption("lmc"));
    EXPECT_EQ(roce->SetOption("pfc", "maybe"), "expected true or false");
    EXPECT_EQ(ib->SetOption("lmc", "8"), "expected 0 to 7");
    EXPECT_EQ(ib->SetOption("routing", "updn"), "");
    EXPECT_EQ(ib->GetRoutingName(), "updn");
    EXPECT_EQ(roce->GetRoutingName(), "ecmp");
    EXPECT_STREQ(ib->GetLinkLayerName(), "IB");
    EXPECT_STREQ(roce->GetLinkLayerName(), "Ethernet");
}

// Programs give each option to its fabric: one of the other fabric is refused when it would
// change something, and ignored at its default.
TEST_F(FabricPluginTest, ProgramsRefuseTheOtherFabricsOptions)
{
    ExpectRefused("ai-fabric-fattree", "--fabric=ib --pfc=false", "", "an option of --fabric=roce");
    ExpectRefused("ai-fabric-fattree", "--lmc=2", "", "--lmc=2: an option of --fabric=ib only");
    ExpectRefused("ai-fabric-fattree", "--routing=updn", "", "an option of --fabric=ib only");
    ExpectRefused("ai-fabric-fattree", "--fabric=ib --routing=bogus", "", "expected minhop");
    ExpectRefused("ai-fabric-fattree", "--fabric=ib --lmc=9", "", "--lmc=9: expected 0 to 7");
    ExpectRefused("ai-fabric-torus", "--fabric=ib --pfc=false", "", "an option of --fabric=roce");
    ExpectRefused("ai-fabric-torus", "--fabric=ib --bufferBytes=4100", "", "multiple of 64");
    ExpectRefused("ai-fabric-fattree", "--fabric=ualink", "", "--fabric=ualink: expected ib or");
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree")
                                       + " --fabric=ib --pfc=true --lmc=0 --server=none "
                                         "--servers=4 --radix=4 --maxBytes=1M --quiet");
    EXPECT_EQ(r.status, 0) << r.err;
    const CommandResult perf
        = RunCommand(ProgramPath("ai-fabric-perftest") + " --fabric=ib --size=64K --iters=10");
    ASSERT_EQ(perf.status, 0) << perf.err;
    EXPECT_NE(perf.out.find("Fabric          : InfiniBand"), std::string::npos) << perf.out;
    EXPECT_NE(perf.out.find("Link type       : IB"), std::string::npos) << perf.out;
}
