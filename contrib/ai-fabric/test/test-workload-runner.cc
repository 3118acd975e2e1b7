/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Workloads of compute, collectives and point-to-point transfers: overlap hides communication
// (exposed < total), a dependency exposes it exactly, a 1F1B pipeline over the fabric takes the
// time the schedule's own evaluation gives with the measured transfer time, and bad workloads
// say what is wrong in one line.

#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/workload-runner.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class WorkloadRunnerTest : public AiFabricTest
{
};

/**
 * \brief Run a workload on GPUs around one RoCEv2 switch (ring schedules, 2 channels).
 * \param w the workload
 * \return the runner, run
 */
Ptr<WorkloadRunner>
RunOnStar(const Workload& w)
{
    NodeContainer gpus;
    NodeContainer sw;
    gpus.Create(w.nRanks);
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.InstallHosts(gpus);
    fabric.InstallSwitches(sw);
    for (uint32_t i = 0; i < w.nRanks; ++i)
    {
        fabric.Connect(gpus.Get(i), sw.Get(0));
    }
    fabric.ComputeRoutes();
    CollectiveHelper collectives;
    collectives.SetChannels(2);
    Ptr<WorkloadRunner> runner = CreateObject<WorkloadRunner>();
    runner->SetWorkload(w);
    runner->AddGroups(collectives);
    collectives.Install(gpus, fabric);
    runner->Prepare(
        collectives,
        [](const WorkloadOp& op, uint32_t /* group */, const std::vector<uint32_t>& ranks)
        {
            const auto n = static_cast<uint32_t>(ranks.size());
            std::string error;
            Ptr<CollectiveAlgorithm> a = CollectiveAlgorithm::CreateByName(
                op.algorithm.empty() ? "ring" : op.algorithm, op.collective, n, error);
            return a->Schedule(op.collective, n, op.bytes, 2, 512 * 1024);
        });
    runner->Start();
    Simulator::Run();
    Simulator::Destroy();
    return runner;
}

/**
 * \param ms compute time (ms)
 * \param deps dependencies
 * \return a compute operation
 */
WorkloadOp
Compute(double ms, std::vector<uint32_t> deps = {})
{
    WorkloadOp op;
    op.kind = WorkloadOpKind::COMPUTE;
    op.duration = Seconds(ms * 1e-3);
    op.deps = std::move(deps);
    return op;
}

/**
 * \param bytes size
 * \param deps dependencies
 * \param group communicator
 * \return an all-reduce
 */
WorkloadOp
AllReduce(uint64_t bytes, std::vector<uint32_t> deps = {}, uint32_t group = 0)
{
    WorkloadOp op;
    op.kind = WorkloadOpKind::COLLECTIVE;
    op.collective = CollectiveType::ALL_REDUCE;
    op.bytes = bytes;
    op.group = group;
    op.deps = std::move(deps);
    return op;
}

/**
 * \param send a send (else a receive)
 * \param peer the peer
 * \param bytes size
 * \param deps dependencies
 * \return a point-to-point operation
 */
WorkloadOp
P2p(bool send, uint32_t peer, uint64_t bytes, std::vector<uint32_t> deps = {})
{
    WorkloadOp op;
    op.kind = send ? WorkloadOpKind::SEND : WorkloadOpKind::RECV;
    op.peer = peer;
    op.bytes = bytes;
    op.deps = std::move(deps);
    return op;
}

/**
 * \param n ranks
 * \param ops every rank's operations
 * \return the workload
 */
Workload
Same(uint32_t n, const std::vector<WorkloadOp>& ops)
{
    Workload w;
    w.nRanks = n;
    w.ops.assign(n, ops);
    return w;
}

} // namespace

// An all-reduce beside compute is hidden by it; after it, it is exposed in full.
TEST_F(WorkloadRunnerTest, OverlapHidesCommunication)
{
    const uint64_t bytes = 8 << 20;
    const Time alone = RunOnStar(Same(4, {AllReduce(bytes)}))->GetEndTime();
    ASSERT_GT(alone, MilliSeconds(0));
    ASSERT_LT(alone, MilliSeconds(5));

    // Overlapped: the step is the compute; no communication is exposed.
    Ptr<WorkloadRunner> overlapped = RunOnStar(Same(4, {Compute(5), AllReduce(bytes)}));
    EXPECT_EQ(overlapped->GetEndTime(), MilliSeconds(5));
    const WorkloadRunner::Breakdown o = overlapped->Summarize(0);
    EXPECT_EQ(o.compute, MilliSeconds(5));
    EXPECT_TRUE(o.exposed.empty());
    EXPECT_EQ(o.idle, Time(0));

    // After the compute: exposed in full, the same time as alone.
    Ptr<WorkloadRunner> serial = RunOnStar(Same(4, {Compute(5), AllReduce(bytes, {0})}));
    EXPECT_EQ(serial->GetEndTime(), MilliSeconds(5) + alone);
    const WorkloadRunner::Breakdown s = serial->Summarize(3);
    EXPECT_EQ(s.exposed.at("allreduce"), alone);
    EXPECT_EQ(s.compute + s.exposed.at("allreduce") + s.idle, s.end);

    // Half overlapped: a second compute after the first, the all-reduce beside the second.
    Ptr<WorkloadRunner> half = RunOnStar(
        Same(4, {Compute(0.5), AllReduce(bytes, {0}), Compute(alone.GetSeconds() * 500, {0})}));
    const WorkloadRunner::Breakdown h = half->Summarize(1);
    EXPECT_LT(h.exposed.at("allreduce"), alone); // exposed < total
    EXPECT_NEAR(h.exposed.at("allreduce").GetSeconds(), alone.GetSeconds() / 2, 1e-9);
}

// Collectives of two communicators of a rank run at once, each in its own order.
TEST_F(WorkloadRunnerTest, GroupsRunTheirOwnCollectives)
{
    Workload w;
    w.nRanks = 4;
    w.groupNames = {"all", "tp0", "tp1", "dp0", "dp1"};
    w.groups = {{}, {0, 1}, {2, 3}, {0, 2}, {1, 3}};
    w.ops.resize(4);
    for (uint32_t r = 0; r < 4; ++r)
    {
        const uint32_t tp = 1 + r / 2;
        const uint32_t dp = 3 + r % 2;
        w.ops[r] = {AllReduce(1 << 20, {}, tp),
                    AllReduce(2 << 20, {}, dp),
                    Compute(0.1, {0}),
                    AllReduce(1 << 20, {2}, tp)};
    }
    Ptr<WorkloadRunner> runner = RunOnStar(w);
    for (uint32_t r = 0; r < 4; ++r)
    {
        const auto& recs = runner->GetRecords()[r];
        EXPECT_EQ(recs[0].start, Time(0));
        EXPECT_EQ(recs[1].start, Time(0)); // beside the tensor-parallel one
        EXPECT_EQ(recs[2].start, recs[0].end);
        EXPECT_GE(recs[3].start, recs[2].end);
    }
}

// A 1F1B pipeline of 4 stages, 8 micro-batches: its step is OneFOneBSchedule::Evaluate() with
// the transfer time of one activation measured alone.
TEST_F(WorkloadRunnerTest, PipelineIsTheScheduleOverTheFabric)
{
    const uint32_t p = 4;
    const uint32_t m = 8;
    const double f = 0.2; // ms
    const double b = 0.4; // ms
    const uint64_t act = 1 << 20;
    Workload one;
    one.nRanks = 2;
    one.ops = {{P2p(true, 1, act)}, {P2p(false, 0, act)}};
    const Time transfer = RunOnStar(one)->GetEndTime();

    Workload w;
    w.nRanks = p;
    w.ops.resize(p);
    for (uint32_t s = 0; s < p; ++s)
    {
        std::vector<WorkloadOp>& ops = w.ops[s];
        for (const PipelineOp& po : OneFOneBSchedule::StageOrder(p, s, m))
        {
            const bool hasPrev = po.forward ? s > 0 : s + 1 < p; // an input to receive
            const bool hasNext = po.forward ? s + 1 < p : s > 0; // an output to send
            std::vector<uint32_t> deps;
            if (hasPrev)
            {
                ops.push_back(P2p(false, po.forward ? s - 1 : s + 1, act));
                deps.push_back(static_cast<uint32_t>(ops.size() - 1));
            }
            ops.push_back(Compute(po.forward ? f : b, deps));
            if (hasNext)
            {
                const auto c = static_cast<uint32_t>(ops.size() - 1);
                ops.push_back(P2p(true, po.forward ? s + 1 : s - 1, act, {c}));
            }
        }
    }
    std::string error;
    ASSERT_TRUE(w.Check(error)) << error;
    Ptr<WorkloadRunner> runner = RunOnStar(w);
    const OneFOneBSchedule::Timing t
        = OneFOneBSchedule::Evaluate(p, m, f * 1e-3, b * 1e-3, transfer.GetSeconds());
    EXPECT_NEAR(runner->GetEndTime().GetSeconds(), t.makespan, 1e-3 * t.makespan);
    // The first stage's compute is m (f + b); the rest of its step waits on the pipeline, with
    // a receive posted (the bubble shows as exposed receives).
    const WorkloadRunner::Breakdown first = runner->Summarize(0);
    EXPECT_EQ(first.compute, Seconds(m * (f + b) * 1e-3));
    EXPECT_GT(first.exposed.at("recv"), Seconds((p - 1) * (f + b) * 1e-3));
    Time sum = first.compute + first.idle;
    for (const auto& [kind, t] : first.exposed)
    {
        sum += t;
    }
    EXPECT_EQ(sum, first.end);
}

// Bad workloads: one line each.
TEST_F(WorkloadRunnerTest, ChecksSayWhatIsWrong)
{
    std::string error;
    Workload w = Same(2, {AllReduce(1024)});
    w.ops[1][0].bytes = 2048;
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "ranks 0 and 1 list different collectives on communicator all");
    w = Same(2, {Compute(1, {0})});
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "rank 0 operation 0 depends on an operation not listed before it");
    w.ops = {{P2p(true, 1, 64)}, {P2p(false, 0, 32)}};
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "rank 0's sends to rank 1 do not match its receives from it");
    w.ops = {{P2p(false, 1, 64)}, {}};
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "rank 0 receives from rank 1, which sends it nothing");
    w.groupNames = {"all", "pair"};
    w.groups = {{}, {0, 0}};
    w.ops = {{}, {}};
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "communicator pair names rank 0 twice");
    w.groups = {{}, {0}};
    w.ops = {{}, {AllReduce(8, {}, 1)}};
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error, "rank 1 operation 0 runs on a communicator rank 1 is not in");
    // Ranks that wait for each other forever: each receives before it sends; or each runs the
    // other's communicator's collective first.
    w.groupNames = {"all"};
    w.groups = {{}};
    w.ops = {{P2p(false, 1, 8), P2p(true, 1, 8, {0})}, {P2p(false, 0, 8), P2p(true, 0, 8, {0})}};
    w.ops[0][0].name = "r";
    EXPECT_FALSE(w.Check(error));
    EXPECT_EQ(error.rfind("the workload cannot finish: rank 0 operation 'r' waits forever", 0), 0u)
        << error;
    w.groupNames = {"all", "a", "b"};
    w.groups = {{}, {0, 1}, {0, 1}};
    w.ops = {{AllReduce(8, {}, 1), AllReduce(8, {0}, 2)},
             {AllReduce(8, {}, 2), AllReduce(8, {0}, 1)}};
    EXPECT_FALSE(w.Check(error));
    EXPECT_NE(error.find("cannot finish"), std::string::npos) << error;
    // The same, in an order that ends.
    w.ops[1] = {AllReduce(8, {}, 1), AllReduce(8, {0}, 2)};
    EXPECT_TRUE(w.Check(error)) << error;
}

// An operation's communicator, as the breakdown by communicator names it: a group's name
// without a trailing index in brackets (a generated step's "tp[3]"), a workload file's or a
// Chakra trace's name as it is, "p2p" for sends and receives, nothing for compute.
TEST(WorkloadRunnerNames, CommunicatorNames)
{
    Workload w;
    w.groupNames = {"all", "tp[3]", "dp", "a[b", "[0]", "x[1]y", "pg 5", "ep[12]"};
    WorkloadOp op;
    op.kind = WorkloadOpKind::COLLECTIVE;
    const std::vector<std::string> expected{"all", "tp", "dp", "a[b", "[0]", "x[1]y", "pg 5", "ep"};
    for (uint32_t g = 0; g < w.groupNames.size(); ++g)
    {
        op.group = g;
        EXPECT_EQ(WorkloadRunner::CommunicatorName(w, op), expected[g]) << w.groupNames[g];
    }
    op.kind = WorkloadOpKind::SEND;
    EXPECT_EQ(WorkloadRunner::CommunicatorName(w, op), "p2p");
    op.kind = WorkloadOpKind::RECV;
    EXPECT_EQ(WorkloadRunner::CommunicatorName(w, op), "p2p");
    op.kind = WorkloadOpKind::COMPUTE;
    EXPECT_EQ(WorkloadRunner::CommunicatorName(w, op), "");
}
