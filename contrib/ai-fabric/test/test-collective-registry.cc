/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Algorithms own their knowledge: each registers its name per collective and predicts its own
// alpha-beta cost; the tuner only asks. The costs against the closed forms, the choice at the
// ring/tree crossover, and an algorithm added from this file alone.

#include "ai-fabric-test-fixture.h"
#include "ns3/chain-broadcast-algorithm.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-tuner.h"
#include "ns3/double-binary-tree-algorithm.h"
#include "ns3/torus-all-reduce-algorithm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ns3
{

/**
 * \brief A toy: the ring under another name, with a cost model that wins whenever the test
 *        lets it compete.
 */
class ToyRingAlgorithm : public RingAlgorithm
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ToyRingAlgorithm")
                                .SetParent<RingAlgorithm>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<ToyRingAlgorithm>();
        return tid;
    }

    std::string GetName() const override
    {
        return "toyring";
    }

    Time Predict(CollectiveType /* type */,
                 uint32_t /* nRanks */,
                 uint64_t /* bytes */,
                 const CollectiveSystem& /* system */) const override
    {
        return NanoSeconds(1);
    }

    bool FitsSystem(const CollectiveSystem& /* system */) const override
    {
        return s_competes;
    }

    /// --algo=auto considers the toy only while a test sets this.
    static bool s_competes;
};

bool ToyRingAlgorithm::s_competes = false;
NS_OBJECT_ENSURE_REGISTERED(ToyRingAlgorithm);
static CollectiveAlgorithmRegistration g_toyRing(
    "toyring", {CollectiveType::ALL_REDUCE}, &ToyRingAlgorithm::GetTypeId, true, 1000);

} // namespace ns3

using namespace ns3;

namespace
{

/// A 64-GPU fabric: 5 us a step, 400 Gb/s NICs at 97% payload.
CollectiveTuner
Tuner()
{
    return CollectiveTuner(MicroSeconds(5), DataRate("400Gbps"), 0.97);
}

constexpr double ALPHA = 5e-6;
const double BETA = 8.0 / 400e9 / 0.97;

} // namespace

TEST(CollectiveRegistryTest, NamesAndClasses)
{
    std::string error;
    EXPECT_EQ(CollectiveAlgorithm::CreateByName("ring", CollectiveType::ALL_REDUCE, 8, error)
                  ->GetInstanceTypeId(),
              RingAlgorithm::GetTypeId());
    // "ring" broadcast is NCCL's ring broadcast, the chain.
    EXPECT_EQ(CollectiveAlgorithm::CreateByName("ring", CollectiveType::BROADCAST, 8, error)
                  ->GetInstanceTypeId(),
              ChainBroadcastAlgorithm::GetTypeId());
    EXPECT_EQ(CollectiveAlgorithm::CreateByName("tree", CollectiveType::ALL_REDUCE, 8, error)
                  ->GetInstanceTypeId(),
              DoubleBinaryTreeAlgorithm::GetTypeId());
    EXPECT_FALSE(CollectiveAlgorithm::CreateByName("tree", CollectiveType::ALL_TO_ALL, 8, error));
    EXPECT_EQ(error, "--algo=tree does not run alltoall");
    EXPECT_FALSE(CollectiveAlgorithm::CreateByName("nope", CollectiveType::ALL_REDUCE, 8, error));
    EXPECT_EQ(error, "--algo=nope: unknown algorithm");
    const std::vector<std::string> names = CollectiveTuner::GetAlgorithmNames();
    for (const std::string n : {"ring",
                                "chain",
                                "tree",
                                "hd",
                                "pairwise",
                                "direct",
                                "nvls",
                                "hier",
                                "nvlstree",
                                "torus",
                                "toyring",
                                "auto"})
    {
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    }
    EXPECT_EQ(names.front(), "ring");
    EXPECT_EQ(names.back(), "auto");
}

// Each algorithm's prediction is its closed form (n ranks, S bytes).
TEST(CollectiveRegistryTest, PredictionsAreTheClosedForms)
{
    const CollectiveTuner tuner = Tuner();
    const double n = 64;
    const double s = 64 << 20;
    const uint64_t bytes = 64 << 20;
    auto seconds = [&](const std::string& name, CollectiveType type)
    { return tuner.Predict(name, type, 64, bytes).GetSeconds(); };
    const double ring = 2 * (n - 1) * ALPHA + 2 * (n - 1) / n * s * BETA;
    EXPECT_NEAR(seconds("ring", CollectiveType::ALL_REDUCE), ring, 1e-12);
    EXPECT_NEAR(seconds("ring", CollectiveType::ALL_GATHER), ring / 2, 1e-12);
    EXPECT_NEAR(seconds("ring", CollectiveType::BROADCAST), (n - 1) * ALPHA + s * BETA, 1e-12);
    EXPECT_NEAR(seconds("tree", CollectiveType::ALL_REDUCE), 2 * 6 * ALPHA + 2 * s * BETA, 1e-12);
    EXPECT_NEAR(seconds("hd", CollectiveType::ALL_REDUCE),
                2 * 6 * ALPHA + 2 * (n - 1) / n * s * BETA,
                1e-12);
    EXPECT_NEAR(
        seconds("direct", CollectiveType::ALL_TO_ALL), ALPHA + (n - 1) / n * s * BETA, 1e-12);
    EXPECT_NEAR(seconds("pairwise", CollectiveType::ALL_TO_ALL),
                (n - 1) * ALPHA + (n - 1) / n * s * BETA,
                1e-12);
    // The torus on its squarest grid, 8 x 8: 7 + 7 steps each way, the flat ring's bytes.
    EXPECT_NEAR(seconds("torus", CollectiveType::ALL_REDUCE),
                2 * (14 * ALPHA + (n - 1) / n * s * BETA),
                1e-12);
    // Hierarchical without NVLink on 8 servers of 8: the phases pipeline; in-server steps at
    // the NIC's terms.
    CollectiveSystem sys = tuner.GetSystem();
    sys.gpusPerServer = 8;
    std::string error;
    Ptr<CollectiveAlgorithm> hier
        = CollectiveAlgorithm::CreateByName("hier", CollectiveType::ALL_REDUCE, 64, error);
    hier->Configure(64, sys);
    EXPECT_NEAR(hier->Predict(CollectiveType::ALL_REDUCE, 64, bytes, sys).GetSeconds(),
                2 * 7 * ALPHA + 2 * 7 * ALPHA + 2 * 7.0 / 8 * s * BETA,
                1e-12);
}

// The tree wins below the size where the ring's extra steps cost more than the tree's extra
// bytes, the ring above: 2 (n - 1 - log2 n) alpha = 2 S beta (1 - (n - 1) / n).
TEST(CollectiveRegistryTest, AutoChoosesAtTheRingTreeCrossover)
{
    const CollectiveTuner tuner = Tuner();
    const double n = 64;
    const double crossover = (n - 1 - 6) * ALPHA / (BETA / n);
    EXPECT_EQ(tuner.Choose(CollectiveType::ALL_REDUCE, 64, static_cast<uint64_t>(crossover * 0.9)),
              "tree");
    EXPECT_EQ(tuner.Choose(CollectiveType::ALL_REDUCE, 64, static_cast<uint64_t>(crossover * 1.1)),
              "ring");
    EXPECT_EQ(tuner.Choose(CollectiveType::ALL_TO_ALL, 64, 1 << 20), "direct");
    EXPECT_EQ(tuner.Choose(CollectiveType::BROADCAST, 64, 1 << 20), "ring");
}

// An algorithm registered from this file competes like the module's own once it fits the
// system, and runs by its name.
TEST(CollectiveRegistryTest, AnAlgorithmAddedFromOneFile)
{
    const CollectiveTuner tuner = Tuner();
    EXPECT_EQ(tuner.Choose(CollectiveType::ALL_REDUCE, 64, 1 << 30), "ring");
    ToyRingAlgorithm::s_competes = true;
    EXPECT_EQ(tuner.Choose(CollectiveType::ALL_REDUCE, 64, 1 << 30), "toyring");
    ToyRingAlgorithm::s_competes = false;
    std::string error;
    Ptr<CollectiveAlgorithm> toy
        = CollectiveAlgorithm::CreateByName("toyring", CollectiveType::ALL_REDUCE, 8, error);
    ASSERT_TRUE(toy) << error;
    Ptr<CollectiveSchedule> schedule
        = toy->Schedule(CollectiveType::ALL_REDUCE, 8, 1 << 20, 2, 128 << 10);
    EXPECT_TRUE(schedule);
}
