/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Per-rank schedules at scale: the ring and tree schedules of 64 to 1,024 ranks hold memory
// linear in the ranks (the same bytes per rank, measured on the heap), give every rank the
// same few streams, and account for every byte exactly, computed from each rank's own
// messages; a materialized schedule is the plan the tests check.

#include "ai-fabric-test-fixture.h"
#include "ns3/chain-broadcast-algorithm.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-plan.h"
#include "ns3/collective-schedule.h"
#include "ns3/double-binary-tree-algorithm.h"
#include "ns3/halving-doubling-algorithm.h"
#include "ns3/nvls-tree-algorithm.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <malloc.h>
#include <vector>

using namespace ns3;

namespace
{

class ScheduleMemoryTest : public AiFabricTest
{
};

/// A scalable unit's all-reduce: 1 GiB on 8 channels, NCCL Simple's 512 KiB chunks.
constexpr uint64_t BYTES = 1ULL << 30;
/// Channels.
constexpr uint32_t CHANNELS = 8;
/// Pipelining unit.
constexpr uint64_t CHUNK = 512 << 10;
/// GPUs per server (DGX H100).
constexpr uint32_t GPUS = 8;

/// The heap is glibc's (AddressSanitizer's allocator does not report through mallinfo2).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool HEAP_MEASURED = false;
#else
constexpr bool HEAP_MEASURED = true;
#endif

/// \return bytes in use on the heap now
uint64_t
HeapInUse()
{
    return mallinfo2().uordblks;
}

/**
 * \param algorithm an algorithm
 * \param n ranks
 * \param[out] heap heap bytes the schedule took
 * \return the schedule
 */
Ptr<CollectiveSchedule>
Make(Ptr<CollectiveAlgorithm> algorithm, uint32_t n, uint64_t& heap)
{
    const uint64_t before = HeapInUse();
    Ptr<CollectiveSchedule> schedule
        = algorithm->Schedule(CollectiveType::ALL_REDUCE, n, BYTES, CHANNELS, CHUNK);
    heap = HeapInUse() - before;
    return schedule;
}

TEST_F(ScheduleMemoryTest, RingScheduleIsLinearAndExactAt1024Ranks)
{
    Ptr<RingAlgorithm> ring = CreateObject<RingAlgorithm>();
    ring->SetAttribute("GpusPerServer", UintegerValue(GPUS));
    for (uint32_t n : {64U, 256U, 1024U})
    {
        uint64_t heap = 0;
        Ptr<CollectiveSchedule> s = Make(ring, n, heap);
        // Its tables: the ring order and its inverse, per channel (2 x 4 bytes per rank and
        // channel), and a few hundred bytes more. A plan of every transfer would hold
        // 2n(n-1) transfers per channel: 1,024 ranks x 8 channels, 16.8 million.
        const uint64_t tables = 2ULL * n * CHANNELS * sizeof(uint32_t);
        EXPECT_GE(s->GetMemoryBytes(), tables) << n;
        EXPECT_LE(s->GetMemoryBytes(), tables + 1024) << n;
        if (HEAP_MEASURED)
        {
            EXPECT_GE(heap, tables) << n;
            EXPECT_LE(heap, tables + 4096) << n << " ranks: " << heap << " heap bytes";
            EXPECT_LE(heap / n, 2 * CHANNELS * sizeof(uint32_t) + 64) << n;
        }
        // Every rank runs one send and one receive stream per channel.
        for (uint32_t r = 0; r < n; r += n / 16)
        {
            EXPECT_EQ(s->GetNSendStreams(r), CHANNELS);
            EXPECT_EQ(s->GetNRecvStreams(r), CHANNELS);
        }
        // Exact bytes from each rank's own messages: every rank sends and receives 2(n-1)
        // parts of bytes / n (1 GiB divides evenly).
        const uint64_t perRank = 2 * (n - 1) * (BYTES / n);
        uint64_t sent = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint64_t bytes = s->GetBytesSent(r);
            EXPECT_EQ(bytes, perRank) << "rank " << r;
            sent += bytes;
        }
        EXPECT_EQ(sent, 2 * (n - 1) * BYTES);
        for (uint32_t r = 0; r < n; r += n / 8)
        {
            EXPECT_EQ(s->GetBytesReceived(r), perRank) << "rank " << r;
        }
    }
}

TEST_F(ScheduleMemoryTest, TreeScheduleIsLinearAndExactAt1024Ranks)
{
    Ptr<DoubleBinaryTreeAlgorithm> tree = CreateObject<DoubleBinaryTreeAlgorithm>();
    tree->SetAttribute("GpusPerServer", UintegerValue(GPUS));
    double perRankAt64 = 0;
    for (uint32_t n : {64U, 256U, 1024U})
    {
        uint64_t heap = 0;
        Ptr<CollectiveSchedule> s = Make(tree, n, heap);
        // Per channel and tree: a parent, a place among siblings, a first child and a child
        // entry per rank (4 x 4 bytes).
        const uint64_t tables = 4ULL * n * CHANNELS * 2 * sizeof(uint32_t);
        EXPECT_GE(s->GetMemoryBytes(), tables) << n;
        EXPECT_LE(s->GetMemoryBytes(), tables + 2048) << n;
        const double perRank = static_cast<double>(HEAP_MEASURED ? heap : s->GetMemoryBytes()) / n;
        if (HEAP_MEASURED)
        {
            EXPECT_GE(heap, tables) << n;
            EXPECT_LE(heap, tables + 8192) << n << " ranks: " << heap << " heap bytes";
        }
        if (n == 64)
        {
            perRankAt64 = perRank;
        }
        EXPECT_LE(perRank, perRankAt64 * 1.05) << n; // constant per rank
        // Exact bytes: in each tree of each channel, a rank sends its half H up unless it is
        // the root, and H down to each child; every edge carries H up and H down.
        const std::vector<uint64_t> shares = CollectiveAlgorithm::Split(BYTES, CHANNELS);
        std::vector<uint64_t> expected(n, 0);
        for (uint32_t c = 0; c < CHANNELS; ++c)
        {
            const std::vector<uint64_t> halves = CollectiveAlgorithm::Split(shares[c], 2);
            for (uint32_t t = 0; t < 2; ++t)
            {
                const std::vector<uint32_t> parents
                    = DoubleBinaryTreeAlgorithm::GetServerParents(n, GPUS, t, c);
                for (uint32_t r = 0; r < n; ++r)
                {
                    if (parents[r] != DoubleBinaryTreeAlgorithm::NO_PARENT)
                    {
                        expected[r] += halves[t];          // up
                        expected[parents[r]] += halves[t]; // down, to r
                    }
                }
            }
        }
        uint64_t sent = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(s->GetBytesSent(r), expected[r]) << "rank " << r;
            EXPECT_EQ(s->GetBytesReceived(r), expected[r]) << "rank " << r;
            EXPECT_LE(s->GetNSendStreams(r), CHANNELS * 2 * 4);
            sent += expected[r];
        }
        EXPECT_EQ(sent, 2 * (n - 1) * BYTES);
    }
}

TEST_F(ScheduleMemoryTest, NvlsTreeScheduleIsLinear)
{
    Ptr<NvlsTreeAlgorithm> nvlsTree = CreateObject<NvlsTreeAlgorithm>();
    nvlsTree->SetAttribute("GpusPerServer", UintegerValue(GPUS));
    for (uint32_t n : {64U, 1024U})
    {
        uint64_t heap = 0;
        Ptr<CollectiveSchedule> s = Make(nvlsTree, n, heap);
        // The tree over the servers: 3 entries per server and tree, plus 2 child slots.
        if (HEAP_MEASURED)
        {
            EXPECT_LE(heap, 4ULL * (n / GPUS) * 2 * sizeof(uint32_t) + 4096) << n;
        }
        EXPECT_LE(s->GetMemoryBytes(), 4ULL * (n / GPUS) * 2 * sizeof(uint32_t) + 2048) << n;
        // A GPU contributes every piece of both halves once: bytes / 8 channels, all of it.
        uint64_t contributed = 0;
        for (uint32_t r = 0; r < GPUS; ++r)
        {
            contributed += s->GetBytesSent(r);
        }
        EXPECT_GE(contributed, GPUS * BYTES);
    }
}

TEST_F(ScheduleMemoryTest, StepSchedulesHoldNoStatePerRank)
{
    for (uint32_t n : {64U, 1024U})
    {
        // Halving-doubling: a power of two of ranks sends 2 (n-1)/n of the buffer each, in 2
        // log2 n steps; the schedule holds the channels' shares.
        Ptr<CollectiveSchedule> hd = CreateObject<HalvingDoublingAlgorithm>()->Schedule(
            CollectiveType::ALL_REDUCE, n, BYTES, CHANNELS, CHUNK);
        EXPECT_LE(hd->GetMemoryBytes(), 512U) << n;
        EXPECT_EQ(hd->GetNSendStreams(0), CHANNELS * hd->GetNSteps());
        for (uint32_t r = 0; r < n; r += n / 8)
        {
            EXPECT_EQ(hd->GetBytesSent(r), 2 * (n - 1) * (BYTES / n)) << "rank " << r;
            EXPECT_EQ(hd->GetBytesReceived(r), 2 * (n - 1) * (BYTES / n)) << "rank " << r;
        }
        // The chain broadcast: every rank but the last sends the whole buffer once.
        Ptr<CollectiveSchedule> chain = CreateObject<ChainBroadcastAlgorithm>()->Schedule(
            CollectiveType::BROADCAST, n, BYTES, CHANNELS, CHUNK);
        EXPECT_LE(chain->GetMemoryBytes(), 512U) << n;
        EXPECT_EQ(chain->GetBytesSent(0), BYTES);
        EXPECT_EQ(chain->GetBytesSent(n - 1), 0U);
        EXPECT_EQ(chain->GetBytesReceived(n - 1), BYTES);
        EXPECT_EQ(chain->GetBytesReceived(0), 0U);
    }
}

TEST_F(ScheduleMemoryTest, MaterializedScheduleIsThePlanItRuns)
{
    // A 16-rank ring on two servers: the plan lists exactly the schedule's messages, with
    // ids that follow dependencies, and accounts the same bytes.
    Ptr<RingAlgorithm> ring = CreateObject<RingAlgorithm>();
    ring->SetAttribute("GpusPerServer", UintegerValue(GPUS));
    const uint32_t n = 16;
    const uint64_t bytes = 3 * (1 << 20) + 5; // uneven parts and pieces
    Ptr<CollectiveSchedule> s = ring->Schedule(CollectiveType::ALL_REDUCE, n, bytes, 4, 64 << 10);
    Ptr<CollectivePlan> plan = s->Materialize();
    uint64_t messages = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t j = 0; j < s->GetNSendStreams(r); ++j)
        {
            messages += s->GetSendLength(r, j);
        }
        EXPECT_EQ(plan->GetBytesSent(r), s->GetBytesSent(r));
        EXPECT_EQ(plan->GetBytesReceived(r), s->GetBytesReceived(r));
        EXPECT_EQ(plan->GetConnections(r), s->GetConnections(r));
    }
    EXPECT_EQ(plan->GetNTransfers(), messages);
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        for (uint32_t d : plan->GetDependencies(id))
        {
            EXPECT_LT(d, id);
            EXPECT_EQ(plan->GetTransfer(d).dst, plan->GetTransfer(id).src);
        }
    }
    // The plan runs the schedule it lists.
    EXPECT_EQ(plan->GetNSendStreams(0), s->GetNSendStreams(0));
    EXPECT_EQ(plan->GetTagIndexBits(), s->GetTagIndexBits());
    // A plan listed for an algorithm without a schedule is its own schedule.
    Ptr<CollectivePlan> own = plan->Materialize();
    EXPECT_EQ(own, plan);
}

} // namespace
