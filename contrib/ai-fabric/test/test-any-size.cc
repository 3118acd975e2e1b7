/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Every size completes: every algorithm, on both fabrics and the server presets, from 0 B up,
// including sizes smaller than ranks x channels (transfers of zero bytes); NCCL's channel
// count for small collectives; a collective of zero bytes moves nothing.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/collective-algorithm.h"
#include "ns3/communicator.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class AnySizeTest : public AiFabricTest
{
};

/// One table row: size and time.
struct Row
{
    uint64_t bytes{0}; //!< size
    double timeUs{0};  //!< time
};

/**
 * \param out a sweep's standard output
 * \return its rows
 */
std::vector<Row>
Rows(const std::string& out)
{
    std::vector<Row> rows;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line))
    {
        const std::size_t first = line.find_first_not_of(' ');
        if (first == 0 || first == std::string::npos || !std::isdigit(line[first]))
        {
            continue; // not a row of the table
        }
        std::istringstream in(line);
        Row r;
        uint64_t count = 0;
        std::string type;
        std::string op;
        in >> r.bytes >> count >> type >> op >> r.timeUs;
        rows.push_back(r);
    }
    return rows;
}

/// Sizes 0, 4, 16, ... 64 KiB (factor 4): 9 rows.
const std::string SMALL_SWEEP
    = "--minBytes=0 --maxBytes=64K --stepFactor=4 --iters=1 "
      "--warmup=0 --quiet";

/**
 * \brief Run a program's sweep and check it completes with a row per size, the zero-byte row
 * taking no time and every other row some.
 * \param program the program
 * \param args its arguments (SMALL_SWEEP is added)
 * \param nRows rows expected: 9; 7 for the collectives whose size is a multiple of the ranks'
 *        elements (after 0 B comes one element per rank, 64 B on 16 ranks)
 */
void
ExpectSweepCompletes(const std::string& program, const std::string& args, std::size_t nRows = 9)
{
    const CommandResult r
        = RunCommand("timeout 120 " + ProgramPath(program) + " " + args + " " + SMALL_SWEEP);
    ASSERT_EQ(r.status, 0) << program << " " << args << ": " << r.err;
    const std::vector<Row> rows = Rows(r.out);
    ASSERT_EQ(rows.size(), nRows) << args << "\n" << r.out;
    EXPECT_EQ(rows[0].bytes, 0u);
    EXPECT_EQ(rows[0].timeUs, 0.0) << args;
    for (std::size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_GT(rows[i].timeUs, 0.0) << args << ": " << rows[i].bytes << " B";
        // Larger sizes never finish sooner (all of them are latency bound here).
        EXPECT_GE(rows[i].timeUs + 0.01, rows[i - 1].timeUs) << args << ": " << rows[i].bytes;
    }
}

// The hangs of the audit: 8 B tree and 64 B ring on two DGX H100 (a zero-byte NVLink data
// packet was taken for a credit and its send never completed), and larger fabrics.
TEST_F(AnySizeTest, EveryAlgorithmOnTwoDgxH100)
{
    for (const std::string algo : {"ring", "tree", "hd", "hier", "nvlstree", "torus", "auto"})
    {
        ExpectSweepCompletes("ai-fabric-fattree", "--servers=2 --algo=" + algo);
    }
    ExpectSweepCompletes("ai-fabric-fattree", "--servers=1 --algo=nvls");
    for (const std::string collective : {"allgather", "reducescatter", "broadcast", "alltoall"})
    {
        ExpectSweepCompletes("ai-fabric-fattree",
                             "--servers=2 --collective=" + collective,
                             collective == "broadcast" ? 9 : 7);
    }
}

TEST_F(AnySizeTest, OtherFabricsAndPresets)
{
    ExpectSweepCompletes("ai-fabric-fattree",
                         "--fabric=ib --server=dgx-a100 --servers=4 --nicRate=100Gbps "
                         "--radix=16 --algo=tree");
    ExpectSweepCompletes("ai-fabric-fattree", "--fabric=ib --servers=2 --algo=ring");
    ExpectSweepCompletes("ai-fabric-fattree", "--server=none --servers=16 --channels=8");
    ExpectSweepCompletes("ai-fabric-fattree",
                         "--server=none --servers=16 --radix=8 --collective=alltoall "
                         "--algo=pairwise --channels=4",
                         7);
    ExpectSweepCompletes("ai-fabric-fattree", "--server=hgx-b200 --servers=2 --radix=16");
    ExpectSweepCompletes("ai-fabric-torus", "--dims=4x4");
    ExpectSweepCompletes("ai-fabric-torus", "--dims=2x2x2 --fabric=ib --algo=ring");
}

// The audit's runs as given, each of which ran forever.
TEST_F(AnySizeTest, TheAuditRunsEnd)
{
    for (const std::string args :
         {"--server=dgx-h100 --servers=2 --minBytes=8 --maxBytes=8 --algo=tree --iters=1 "
          "--warmup=0",
          "--server=dgx-h100 --servers=2 --algo=ring --minBytes=64 --maxBytes=64 --iters=1 "
          "--warmup=0",
          "--servers=16 --radix=32 --minBytes=8 --maxBytes=4K --stepFactor=8 --algo=tree",
          "--fabric=ib --server=dgx-a100 --servers=32 --nicRate=100Gbps --radix=64 --minBytes=8 "
          "--maxBytes=128"})
    {
        const CommandResult r
            = RunCommand("timeout 120 " + ProgramPath("ai-fabric-fattree") + " --quiet " + args);
        EXPECT_EQ(r.status, 0) << args << ": " << r.err;
        EXPECT_NE(r.out.find("# Avg bus bandwidth"), std::string::npos) << args;
    }
}

// NCCL drops channels while bytes < channels x threads x bytes per thread.
TEST_F(AnySizeTest, ChannelsForSmallCollectives)
{
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Protocol", EnumValue(NCCL_SIMPLE));
    const uint64_t perChannel = 512 * 64; // Simple: 512 threads x 64 B
    EXPECT_EQ(comm->ChannelsFor(0, 8, true), 1u);
    EXPECT_EQ(comm->ChannelsFor(8, 8, true), 1u);
    EXPECT_EQ(comm->ChannelsFor(2 * perChannel - 1, 8, true), 1u);
    EXPECT_EQ(comm->ChannelsFor(2 * perChannel, 8, true), 2u);
    EXPECT_EQ(comm->ChannelsFor(7 * perChannel + 5, 8, false), 7u);
    EXPECT_EQ(comm->ChannelsFor(8 * perChannel, 8, true), 8u);
    EXPECT_EQ(comm->ChannelsFor(1ULL << 30, 8, true), 8u);
    comm->SetAttribute("Protocol", EnumValue(NCCL_LL128));
    EXPECT_EQ(comm->ChannelsFor(3 * 640 * 8, 16, false), 3u);
    comm->SetAttribute("MinBytesPerChannel", UintegerValue(1000));
    EXPECT_EQ(comm->ChannelsFor(4999, 16, true), 4u);
}

// A collective of zero bytes has no transfer; one smaller than ranks x channels has transfers
// of zero bytes, and its byte accounting is exact.
TEST_F(AnySizeTest, PlansOfTinySizes)
{
    Ptr<RingAlgorithm> ring = CreateObject<RingAlgorithm>();
    EXPECT_EQ(ring->Build(CollectiveType::ALL_REDUCE, 8, 0, 4, 1 << 20)->GetNTransfers(), 0u);
    Ptr<CollectivePlan> plan = ring->Build(CollectiveType::ALL_REDUCE, 8, 12, 4, 1 << 20);
    // 4 channels x 2 x 7 steps x 8 ranks, one piece each.
    ASSERT_EQ(plan->GetNTransfers(), 4u * 2 * 7 * 8);
    uint64_t sent = 0;
    uint32_t empty = 0;
    for (uint32_t id = 0; id < plan->GetNTransfers(); ++id)
    {
        sent += plan->GetTransfer(id).bytes;
        empty += plan->GetTransfer(id).bytes == 0 ? 1 : 0;
    }
    // Each byte of each channel's share crosses 2 x 7 hops.
    EXPECT_EQ(sent, 12u * 2 * 7);
    EXPECT_GT(empty, 0u);
}

} // namespace
