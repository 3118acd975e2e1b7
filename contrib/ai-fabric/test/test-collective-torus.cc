/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The multi-dimensional all-reduce of tori: ring reduce-scatter along X, then Y (then Z),
// all-gather back; every transfer is to the next rank of its line; each rank sends exactly
// 2 (D - 1) / D of what it holds in each dimension; channels rotate the dimension order; the
// reduce-scatter and all-gather halves; the grid's checks.

#include "ai-fabric-test-fixture.h"
#include "ns3/collective-plan.h"
#include "ns3/string.h"
#include "ns3/torus-all-reduce-algorithm.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

class CollectiveTorusTest : public AiFabricTest
{
};

/**
 * \param dims a grid
 * \return an algorithm on it
 */
Ptr<TorusAllReduceAlgorithm>
OnGrid(const std::string& dims)
{
    Ptr<TorusAllReduceAlgorithm> a = CreateObject<TorusAllReduceAlgorithm>();
    a->SetAttribute("Dims", StringValue(dims));
    return a;
}

/**
 * \param r a rank
 * \param dims the grid
 * \return its coordinates
 */
std::vector<uint32_t>
Coords(uint32_t r, const std::vector<uint32_t>& dims)
{
    std::vector<uint32_t> c;
    for (uint32_t d : dims)
    {
        c.push_back(r % d);
        r /= d;
    }
    return c;
}

} // namespace

// 4x4x2, one channel: 2 (3 + 3 + 1) = 14 steps; the first 7 reduce, the last 7 do not; every
// transfer goes to the next rank along one dimension (X for steps 0-2 and 11-13, Y for 3-5
// and 8-10, Z for 6-7); each rank sends 2 x 3/4 of S along X, of S/4 along Y, 2 x 1/2 of
// S/16 along Z, to the byte.
TEST_F(CollectiveTorusTest, DimensionByDimensionExactBytes)
{
    const std::vector<uint32_t> dims{4, 4, 2};
    const uint32_t n = 32;
    const uint64_t bytes = 32 << 16; // n atoms of 64 KiB
    Ptr<CollectivePlan> plan
        = OnGrid("4x4x2")->Build(CollectiveType::ALL_REDUCE, n, bytes, 1, 1 << 30);
    EXPECT_EQ(plan->GetAlgorithm(), "torus");
    ASSERT_EQ(plan->GetNSteps(), 14u);
    const uint32_t dimOfStep[] = {0, 0, 0, 1, 1, 1, 2, 2, 1, 1, 1, 0, 0, 0};
    std::vector<std::vector<uint64_t>> sent(n, std::vector<uint64_t>(3, 0));
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        const std::vector<uint32_t> a = Coords(t.src, dims);
        const std::vector<uint32_t> b = Coords(t.dst, dims);
        const uint32_t d = dimOfStep[t.step];
        for (uint32_t e = 0; e < 3; ++e)
        {
            EXPECT_EQ(b[e], e == d ? (a[e] + 1) % dims[e] : a[e]) << "transfer " << id;
        }
        EXPECT_EQ(t.reduce, t.step < 7) << "step " << t.step;
        sent[t.src][d] += t.bytes;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        EXPECT_EQ(sent[r][0], 2 * bytes * 3 / 4);
        EXPECT_EQ(sent[r][1], 2 * (bytes / 4) * 3 / 4);
        EXPECT_EQ(sent[r][2], 2 * (bytes / 16) / 2);
        // In all, what the flat ring sends: 2 (n - 1) / n of S.
        EXPECT_EQ(plan->GetBytesSent(r), 2 * bytes * (n - 1) / n);
    }
}

// Two channels on a 4x4 grid: the second starts along Y. The halves: reduce-scatter runs the
// first 6 steps only, all-gather the last 6, each sending (n - 1) / n of S per rank.
TEST_F(CollectiveTorusTest, RotationAndHalves)
{
    const uint64_t bytes = 2 * 16 * 4096;
    Ptr<CollectivePlan> plan
        = OnGrid("4x4")->Build(CollectiveType::ALL_REDUCE, 16, bytes, 2, 1 << 30);
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        if (t.step == 0)
        {
            const bool alongX = t.dst / 4 == t.src / 4;
            EXPECT_EQ(alongX, t.channel == 0) << "transfer " << id;
        }
    }
    for (CollectiveType type : {CollectiveType::REDUCE_SCATTER, CollectiveType::ALL_GATHER})
    {
        Ptr<CollectivePlan> half = OnGrid("4x4")->Build(type, 16, bytes, 1, 1 << 30);
        EXPECT_EQ(half->GetNSteps(), 6u);
        for (uint32_t r = 0; r < 16; ++r)
        {
            EXPECT_EQ(half->GetBytesSent(r), bytes * 15 / 16);
        }
        for (uint32_t id = 0; id < half->GetNTransfers(); ++id)
        {
            EXPECT_EQ(half->GetTransfer(id).reduce, type == CollectiveType::REDUCE_SCATTER);
        }
    }
}

// Pieces pipeline within a dimension (each depends on one piece of the step before); the
// first step of the next dimension waits for every piece of the last step of this one.
TEST_F(CollectiveTorusTest, PipelinedWithinBarrierBetweenDimensions)
{
    const uint64_t bytes = 16 * 4 * 4096; // parts of 16 pieces of 4 KiB along X, 4 along Y
    Ptr<CollectivePlan> plan = OnGrid("4x4")->Build(CollectiveType::ALL_REDUCE, 16, bytes, 1, 4096);
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan->GetTransfer(id);
        const std::size_t deps = plan->GetDependencies(id).size();
        if (t.step == 0)
        {
            EXPECT_EQ(deps, 0u);
        }
        else if (t.step == 3) // first Y step: after the 16 X pieces of step 2
        {
            EXPECT_EQ(deps, 16u) << "transfer " << id;
        }
        else if (t.step == 6 || t.step == 9) // after the 4 Y pieces of the step before
        {
            EXPECT_EQ(deps, 4u) << "transfer " << id;
        }
        else
        {
            EXPECT_EQ(deps, 1u) << "transfer " << id;
        }
    }
}

// The grid: Dims must multiply to the ranks; without Dims the squarest 2D grid; sizes of 1
// are left out; all-to-all is not this algorithm's; malformed Dims are refused.
TEST_F(CollectiveTorusTest, Shapes)
{
    Ptr<TorusAllReduceAlgorithm> free = CreateObject<TorusAllReduceAlgorithm>();
    EXPECT_EQ(free->GetShape(16), (std::vector<uint32_t>{4, 4}));
    EXPECT_EQ(free->GetShape(12), (std::vector<uint32_t>{4, 3}));
    EXPECT_EQ(free->GetShape(7), (std::vector<uint32_t>{7}));
    EXPECT_TRUE(free->Supports(CollectiveType::ALL_REDUCE, 12));
    EXPECT_FALSE(free->Supports(CollectiveType::ALL_TO_ALL, 16));
    EXPECT_FALSE(free->Supports(CollectiveType::BROADCAST, 16));
    Ptr<TorusAllReduceAlgorithm> grid = OnGrid("1x4x4");
    EXPECT_EQ(grid->GetShape(16), (std::vector<uint32_t>{4, 4}));
    EXPECT_TRUE(grid->Supports(CollectiveType::ALL_REDUCE, 16));
    EXPECT_FALSE(grid->Supports(CollectiveType::ALL_REDUCE, 32));
    std::vector<uint32_t> dims;
    EXPECT_TRUE(TorusAllReduceAlgorithm::ParseDims("2x3x4x5", dims));
    EXPECT_FALSE(TorusAllReduceAlgorithm::ParseDims("2x3x4x5x6", dims));
    EXPECT_FALSE(TorusAllReduceAlgorithm::ParseDims("4x0", dims));
    EXPECT_FALSE(TorusAllReduceAlgorithm::ParseDims("4x", dims));
    EXPECT_FALSE(TorusAllReduceAlgorithm::ParseDims("4*4", dims));
}
