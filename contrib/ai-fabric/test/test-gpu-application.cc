/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// GpuApplication: a workload of compute and collectives runs on every rank with no barrier;
// a straggler's extra compute delays everyone, once per collective that follows it.

#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-tuner.h"
#include "ns3/double.h"
#include "ns3/gpu-application.h"
#include "ns3/node-container.h"
#include "ns3/roce-fabric-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class GpuApplicationTest : public AiFabricTest
{
};

/// The outcome of one workload run.
struct WorkloadRun
{
    Time end;                            //!< when the last rank finished
    std::vector<uint32_t> stepsDone;     //!< per rank
    std::vector<uint64_t> bytesSent;     //!< per rank, by its GPU transport
    std::vector<uint64_t> planBytesSent; //!< per rank, as the plans say, for all iterations
};

/**
 * \param straggler compute multiplier of rank 0
 * \return the outcome
 */
WorkloadRun
RunWorkload(double straggler)
{
    const uint32_t n = 4;
    const uint32_t iterations = 3;
    NodeContainer gpus;
    gpus.Create(n);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(gpus);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i < n; ++i)
    {
        fabric.Connect(gpus.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    CollectiveHelper collectives;
    collectives.Install(gpus, fabric);
    const uint64_t chunk = collectives.GetChunkBytes();
    Ptr<CollectivePlan> allReduce = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_REDUCE, n, 2 * 1000 * 1000, 1, chunk);
    Ptr<CollectivePlan> allGather = CreateObject<RingAlgorithm>()->Build(
        CollectiveType::ALL_GATHER, n, 1000 * 1000, 1, chunk);
    const std::vector<GpuWorkloadStep> workload
        = {{MicroSeconds(10), allReduce}, {MicroSeconds(5), allGather}, {MicroSeconds(7), nullptr}};
    ApplicationContainer apps = collectives.InstallApplications(workload, iterations);
    apps.Get(0)->SetAttribute("ComputeScale", DoubleValue(straggler));
    Simulator::Run();

    WorkloadRun run;
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<GpuApplication> app = DynamicCast<GpuApplication>(apps.Get(r));
        run.end = std::max(run.end, app->GetFinishTime());
        run.stepsDone.push_back(app->GetStepsDone());
        run.bytesSent.push_back(collectives.GetTransport(r)->GetBytesSent());
        run.planBytesSent.push_back(iterations
                                    * (allReduce->GetBytesSent(r) + allGather->GetBytesSent(r)));
    }
    Simulator::Destroy();
    return run;
}

} // namespace

TEST_F(GpuApplicationTest, EveryRankRunsEveryStep)
{
    const WorkloadRun run = RunWorkload(1.0);
    for (std::size_t r = 0; r < run.stepsDone.size(); ++r)
    {
        EXPECT_EQ(run.stepsDone[r], 3u * 3u) << "rank " << r;
        EXPECT_EQ(run.bytesSent[r], run.planBytesSent[r]) << "rank " << r;
    }
    // At least the compute of three iterations.
    EXPECT_GT(run.end, MicroSeconds(3 * (10 + 5 + 7)));
}

// Rank 0 computes 3x longer. Its peers start each collective earlier and their data waits at
// rank 0 until it starts too. The run is longer by at most rank 0's extra compute before each
// collective (2 x (10 + 5) us per iteration) plus, once, that of the last step (2 x 7 us); a
// little less, because the ring steps that do not need rank 0 proceed meanwhile.
TEST_F(GpuApplicationTest, StragglerDelaysEveryone)
{
    const WorkloadRun nominal = RunWorkload(1.0);
    const WorkloadRun slow = RunWorkload(3.0);
    for (std::size_t r = 0; r < slow.stepsDone.size(); ++r)
    {
        EXPECT_EQ(slow.stepsDone[r], 9u);
        EXPECT_EQ(slow.bytesSent[r], slow.planBytesSent[r]);
    }
    const Time expected = MicroSeconds(3 * 2 * (10 + 5) + 2 * 7);
    const Time extra = slow.end - nominal.end;
    EXPECT_GE(extra, expected * 0.85) << extra.As(Time::US);
    EXPECT_LE(extra, expected) << extra.As(Time::US);
}

// The root of a chain broadcast waits for nobody: over many small broadcasts in a row it runs
// several collectives ahead of the last rank, whose data waits until it gets there.
TEST_F(GpuApplicationTest, PeersFarAheadAreHeldBack)
{
    const uint32_t n = 8;
    const uint32_t iterations = 40;
    NodeContainer gpus;
    gpus.Create(n);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(gpus);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i < n; ++i)
    {
        fabric.Connect(gpus.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    CollectiveHelper collectives;
    collectives.Install(gpus, fabric);
    std::string error;
    Ptr<CollectiveAlgorithm> chain
        = CollectiveAlgorithm::CreateByName("chain", CollectiveType::BROADCAST, n, error);
    ASSERT_TRUE(chain) << error;
    Ptr<CollectivePlan> plan
        = chain->Build(CollectiveType::BROADCAST, n, 4096, 1, collectives.GetChunkBytes());
    ApplicationContainer apps = collectives.InstallApplications({{Time(0), plan}}, iterations);
    Simulator::Run();
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<GpuApplication> app = DynamicCast<GpuApplication>(apps.Get(r));
        EXPECT_EQ(app->GetStepsDone(), iterations) << "rank " << r;
        EXPECT_EQ(collectives.GetTransport(r)->GetBytesReceived(),
                  iterations * plan->GetBytesReceived(r));
    }
    // The root finished well before the last rank: it ran ahead.
    const Time root = DynamicCast<GpuApplication>(apps.Get(0))->GetFinishTime();
    const Time last = DynamicCast<GpuApplication>(apps.Get(n - 1))->GetFinishTime();
    EXPECT_LT(root, last);
}
