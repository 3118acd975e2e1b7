/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Tori and meshes of switches with GPUs attached: link counts, coordinates and names,
// wrap-around, per-dimension rates, a collective across the torus, and bad shapes.

#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/names.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/torus-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class TorusHelperTest : public AiFabricTest
{
};

/// \return the Done time of the last run
Time g_end;

/**
 * \param s start
 * \param e end
 */
void
RunDone(Time /* s */, Time e)
{
    g_end = e;
}

} // namespace

// Switch links per shape: a 4x4 torus 32 (each dimension's 4 lines of 4), a 4x4 mesh 24, a 4x2
// torus 12 (the size-2 dimension has one link per pair), a 4x4x4 torus 192; the fabric has
// them plus one cable per GPU.
TEST_F(TorusHelperTest, LinkCountsFollowTheShape)
{
    struct Case
    {
        std::vector<uint32_t> dims; //!< shape
        bool wrap;                  //!< torus
        uint32_t links;             //!< switch links
    };
    for (const Case& c : std::vector<Case>{
             {{4, 4}, true, 32}, {{4, 4}, false, 24}, {{4, 2}, true, 12}, {{4, 4, 4}, true, 192}})
    {
        TorusHelper torus;
        torus.SetDimensions(c.dims);
        torus.SetWrap(c.wrap);
        ASSERT_EQ(torus.Check(), "");
        EXPECT_EQ(torus.GetNSwitchLinks(), c.links);
        RoceFabricHelper fabric;
        torus.Install(fabric);
        EXPECT_EQ(fabric.GetChannels().size(), c.links + torus.GetNGpus()) << torus.Summary();
        Simulator::Destroy();
        Names::Clear();
    }
}

// Coordinates, names and wrap-around: the linear index and the coordinates agree, switches
// are named by their coordinates, a torus corner has 4 neighbours (one over the wrap) and a
// mesh corner 2, and per-dimension rates reach the ports of that dimension.
TEST_F(TorusHelperTest, CoordinatesNamesWrapAndRates)
{
    TorusHelper torus;
    torus.SetDimensions({4, 3});
    torus.SetGpusPerSwitch(2);
    torus.SetDimensionRate(1, DataRate("100Gbps"));
    RoceFabricHelper fabric;
    torus.Install(fabric);
    for (uint32_t i = 0; i < torus.GetNSwitches(); ++i)
    {
        EXPECT_EQ(torus.GetIndex(torus.GetCoordinates(i)), i);
    }
    EXPECT_EQ(Names::Find<Node>("torus2-1"), torus.GetSwitch({2, 1}));
    EXPECT_EQ(torus.GetGpu({2, 1}, 1), torus.GetGpus().Get((2 + 4 * 1) * 2 + 1));
    // Switch (0, 0): 2 GPUs, and neighbours (1, 0), (3, 0) over the wrap, (0, 1), (0, 2).
    Ptr<Node> corner = torus.GetSwitch({0, 0});
    EXPECT_EQ(corner->GetNDevices(), 2u + 4u);
    uint32_t slow = 0;
    for (uint32_t d = 0; d < corner->GetNDevices(); ++d)
    {
        Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(corner->GetDevice(d));
        slow += port->GetDataRate() == DataRate("100Gbps") ? 1 : 0;
    }
    EXPECT_EQ(slow, 2u); // its two dimension-1 links
    Simulator::Destroy();
    Names::Clear();

    TorusHelper mesh;
    mesh.SetDimensions({4, 3});
    mesh.SetWrap(false);
    RoceFabricHelper meshFabric;
    mesh.Install(meshFabric);
    EXPECT_EQ(mesh.GetSwitch({0, 0})->GetNDevices(), 1u + 2u);
    EXPECT_EQ(mesh.Summary(),
              "mesh 4x3: 12 GPUs (1 per switch), 12 switches, 17 switch links, "
              "dimension-order routing");
}

// A ring all-reduce over the 16 GPUs of a 4x4 torus (RoCEv2, shortest paths): every rank
// finishes, nothing is dropped, and the plan's bytes are exactly what the GPUs sent.
TEST_F(TorusHelperTest, CollectiveRunsAcrossTheTorus)
{
    TorusHelper torus;
    RoceFabricHelper fabric;
    torus.Install(fabric);
    CollectiveHelper collectives;
    collectives.Install(torus.GetGpus(), fabric);
    Ptr<CollectivePlan> plan = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, 16, 4 << 20, 1, collectives.GetChunkBytes());
    collectives.Connect(*plan);
    Simulator::ScheduleNow(&CollectiveHelper::Run, &collectives, plan, MakeCallback(&RunDone));
    g_end = Time(0);
    Simulator::Run();
    EXPECT_TRUE(g_end.IsStrictlyPositive());
    EXPECT_EQ(FabricStatsHelper::Totals().drops, 0u);
    for (uint32_t r = 0; r < 16; ++r)
    {
        EXPECT_EQ(collectives.GetTransport(r)->GetBytesSent(), plan->GetBytesSent(r));
    }
}

// Shapes the helper refuses, each named.
TEST_F(TorusHelperTest, BadShapesAreNamed)
{
    TorusHelper torus;
    torus.SetDimensions({8});
    EXPECT_NE(torus.Check().find("2 or 3 dimensions"), std::string::npos);
    torus.SetDimensions({4, 1});
    EXPECT_NE(torus.Check().find("at least 2 switches"), std::string::npos);
    torus.SetDimensions({4, 4});
    torus.SetGpusPerSwitch(0);
    EXPECT_NE(torus.Check().find("at least one GPU"), std::string::npos);
    torus.SetGpusPerSwitch(1);
    EXPECT_EQ(torus.Check(), "");
}
