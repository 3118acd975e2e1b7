/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Runs across MPI ranks print what one process prints (in the MPI build: ./ns3 configure
// --mpi), and ./ns3 run --np refuses bad input.

#include "ai-fabric-test-command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace
{

using namespace ns3;

/// The ns3 script of the source tree.
const std::string NS3 = std::string(AI_FABRIC_SOURCE_DIR) + "/ns3";

// ./ns3 run --np takes a number of ranks, 1 or more: one line and exit status 2 otherwise.
TEST(MpiTest, NpMustBeARankCount)
{
    for (const char* np : {"0", "-3", "two"})
    {
        const CommandResult r
            = RunCommand(NS3 + " run --no-build --np " + np + " ai-fabric-fattree </dev/null");
        EXPECT_EQ(r.status, 2) << np << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
}

#ifdef NS3_MPI

/**
 * \param ranks MPI ranks
 * \param args the program's flags
 * \return mpirun running ai-fabric-fattree on that many ranks of this machine
 */
std::string
Mpirun(uint32_t ranks, const std::string& args, const std::string& program = "ai-fabric-fattree")
{
    return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np "
           + std::to_string(ranks) + " " + ProgramPath(program) + " " + args + " </dev/null";
}

/**
 * \param path a JSON file written by a program
 * \return its text without "sim" (wall time, events, memory: the run's, not the model's)
 */
std::string
JsonWithoutSim(const std::string& path)
{
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    if (!in.good())
    {
        return "";
    }
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
    j.erase("sim");
    return j.dump(1);
}

/**
 * \brief Run the flags in one process and on 2 ranks: stdout and JSON (but "sim") must match
 *        byte for byte.
 * \param args the flags
 * \param program the program
 */
void
ExpectSameOnTwoRanks(const std::string& args, const std::string& program = "ai-fabric-fattree")
{
    const std::string dir = "/tmp/ai-fabric-mpi-test-" + std::to_string(getpid());
    ASSERT_EQ(RunCommand("mkdir -p " + dir).status, 0);
    const CommandResult one
        = RunCommand(ProgramPath(program) + " " + args + " --json=" + dir + "/one.json </dev/null");
    const CommandResult two = RunCommand(Mpirun(2, args + " --json=" + dir + "/two.json", program));
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_FALSE(one.out.empty());
    EXPECT_EQ(two.out, one.out) << args;
    EXPECT_EQ(JsonWithoutSim(dir + "/two.json"), JsonWithoutSim(dir + "/one.json")) << args;
    // Rank 1 speaks through rank 0: the split is said once, on stderr.
    EXPECT_NE(two.err.find("# split over 2 MPI ranks"), std::string::npos) << two.err;
    RunCommand("rm -rf " + dir);
}

// A collective on two DGX H100 servers (NVLink and RoCEv2) on 2 ranks, one server each.
TEST(MpiTest, TwoRanksPrintWhatOneProcessPrints)
{
    ExpectSameOnTwoRanks("--servers=2 --minBytes=1M --maxBytes=4M --iters=2 --warmup=1");
}

// InfiniBand (credits per VL across the cut) on 2 ranks.
TEST(MpiTest, InfiniBandOnTwoRanks)
{
    ExpectSameOnTwoRanks("--fabric=ib --server=none --servers=8 --radix=4 --maxBytes=2M --iters=2");
}

// A torus (slabs of switches on each rank; its per-dimension statistics replayed in one
// process's order).
TEST(MpiTest, TorusOnTwoRanks)
{
    ExpectSameOnTwoRanks("--dims=4x4 --maxBytes=2M --iters=2", "ai-fabric-torus");
}

// Each rank traces its own GPUs' ports: the same pcap files, byte for byte.
TEST(MpiTest, PcapOnTwoRanks)
{
    const std::string dir = "/tmp/ai-fabric-mpi-pcap-" + std::to_string(getpid());
    ASSERT_EQ(RunCommand("mkdir -p " + dir + "/one " + dir + "/two").status, 0);
    const std::string args = "--server=none --servers=4 --radix=4 --maxBytes=1M --iters=1";
    ASSERT_EQ(RunCommand(ProgramPath("ai-fabric-fattree") + " " + args + " --pcap=" + dir
                         + "/one/x </dev/null")
                  .status,
              0);
    ASSERT_EQ(RunCommand(Mpirun(2, args + " --pcap=" + dir + "/two/x")).status, 0);
    for (uint32_t g = 0; g < 4; ++g)
    {
        const std::string name = "/x-gpu" + std::to_string(g) + "-0.pcap";
        const std::string one = ReadFile(dir + "/one" + name);
        EXPECT_GT(one.size(), 24u) << name; // more than the file header
        EXPECT_EQ(ReadFile(dir + "/two" + name), one) << name;
    }
    RunCommand("rm -rf " + dir);
}

// More ranks than a fabric has places for: one line from rank 0, exit status 2.
TEST(MpiTest, AFabricThatCannotBeSplitIsRefused)
{
    const CommandResult r = RunCommand(Mpirun(8, "--server=none --servers=2 --radix=2"));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("ai-fabric-fattree: cannot split this fat-tree over 8 MPI ranks"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty());
}

#else

// In the build without MPI, the program runs alone and --np is refused by ./ns3 run.
TEST(MpiTest, TwoRanksPrintWhatOneProcessPrints)
{
    GTEST_SKIP() << "the build without MPI (./ns3 configure --mpi builds the MPI variant)";
}

#endif

} // namespace
