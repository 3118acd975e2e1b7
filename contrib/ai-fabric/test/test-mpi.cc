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
 * \param err a program's stderr
 * \param program the program
 * \return its lines that start with the program's name (findings, refusals)
 */
std::string
ProgramLines(const std::string& err, const std::string& program)
{
    std::string lines;
    std::size_t start = 0;
    while (start < err.size())
    {
        std::size_t end = err.find('\n', start);
        end = end == std::string::npos ? err.size() : end + 1;
        if (err.compare(start, program.size() + 2, program + ": ") == 0)
        {
            lines += err.substr(start, end - start);
        }
        start = end;
    }
    return lines;
}

/**
 * \brief Run the flags in one process and on some ranks: stdout and JSON (but "sim") must
 *        match byte for byte, and so must the exit status and the findings on stderr.
 * \param args the flags
 * \param program the program
 * \param status the exit status both must end with
 * \param ranks MPI ranks
 */
void
ExpectSameAcrossRanks(const std::string& args,
                      const std::string& program = "ai-fabric-fattree",
                      int status = 0,
                      uint32_t ranks = 2)
{
    const std::string dir = "/tmp/ai-fabric-mpi-test-" + std::to_string(getpid());
    ASSERT_EQ(RunCommand("mkdir -p " + dir).status, 0);
    const CommandResult one
        = RunCommand(ProgramPath(program) + " " + args + " --json=" + dir + "/one.json </dev/null");
    const CommandResult two
        = RunCommand(Mpirun(ranks, args + " --json=" + dir + "/two.json", program));
    ASSERT_EQ(one.status, status) << one.err;
    ASSERT_EQ(two.status, status) << two.err;
    EXPECT_FALSE(one.out.empty());
    EXPECT_EQ(two.out, one.out) << args;
    EXPECT_EQ(JsonWithoutSim(dir + "/two.json"), JsonWithoutSim(dir + "/one.json")) << args;
    // Rank 1 speaks through rank 0: the split and any finding are said once, on stderr.
    EXPECT_NE(two.err.find("# split over " + std::to_string(ranks) + " MPI ranks"),
              std::string::npos)
        << two.err;
    EXPECT_EQ(ProgramLines(two.err, program), ProgramLines(one.err, program)) << two.err;
    EXPECT_EQ(ProgramLines(one.err, program).empty(), status == 0) << one.err;
    RunCommand("rm -rf " + dir);
}

// A collective on two DGX H100 servers (NVLink and RoCEv2) on 2 ranks, one server each.
TEST(MpiTest, TwoRanksPrintWhatOneProcessPrints)
{
    ExpectSameAcrossRanks("--servers=2 --minBytes=1M --maxBytes=4M --iters=2 --warmup=1");
}

// InfiniBand (credits per VL across the cut) on 2 ranks.
TEST(MpiTest, InfiniBandOnTwoRanks)
{
    ExpectSameAcrossRanks(
        "--fabric=ib --server=none --servers=8 --radix=4 --maxBytes=2M --iters=2");
}

// A torus (slabs of switches on each rank; its per-dimension statistics replayed in one
// process's order).
TEST(MpiTest, TorusOnTwoRanks)
{
    ExpectSameAcrossRanks("--dims=4x4 --maxBytes=2M --iters=2", "ai-fabric-torus");
}

// A cable fails and is repaired: both ends are told on their own ranks, the frames on it are
// lost on either side of the cut, every rank reroutes, and the report is one process's.
TEST(MpiTest, FailuresOnTwoRanks)
{
    ExpectSameAcrossRanks(
        "--server=none --servers=8 --radix=4 --maxBytes=2M --iters=2 "
        "--failures='link:leaf0-spine1@50us;up@300us'");
}

// The stall detector decides from every rank's part of the fabric: queue pairs out of retries
// on both ranks (gpu3's on rank 0, gpu4's on rank 1) are named in one process's order, and
// the run stops on both ranks at the same event.
TEST(MpiTest, StallOnTwoRanks)
{
    ExpectSameAcrossRanks(
        "--server=none --servers=8 --radix=4 --maxBytes=1M --iters=1 --warmup=0 "
        "--algo=ring --failures=ber:gpu4-leaf2@20us,rate=1e-2 "
        "--ns3::RdmaQueuePair::RetryCount=0",
        "ai-fabric-fattree",
        3);
}

// A deadlock whose cycle of paused queues crosses ranks (a torus ring without datelines:
// torus0-0 and torus1-0 on rank 0, torus2-0 and torus3-0 on rank 1, of 4) is found and named
// as in one process, instead of a run that never ends.
TEST(MpiTest, DeadlockAcrossRanks)
{
    ExpectSameAcrossRanks(
        "--dims=4x2 --algo=ring --placement=stride --channels=4 --dcqcn=false "
        "--bufferBytes=2M --minBytes=16M --maxBytes=16M --iters=1 --warmup=0 "
        "--quiet --datelines=false",
        "ai-fabric-torus",
        3,
        4);
}

// A watchdog limit counts each rank's events; the first rank to reach it stops every rank, and
// rank 0 reports it (naming the rank) as one process would: exit status 3, the finding on
// stdout and stderr, the JSON's outcome.
TEST(MpiTest, WatchdogOnTwoRanks)
{
    const std::string json = "/tmp/ai-fabric-mpi-watchdog-" + std::to_string(getpid()) + ".json";
    const CommandResult r = RunCommand(Mpirun(
        2, "--server=none --servers=8 --radix=4 --maxBytes=4M --maxEvents=200000 --json=" + json));
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.out.find("# watchdog: MaxEvents (200000 events) reached"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(" (on MPI rank "), std::string::npos) << r.out;
    const std::string findings = ProgramLines(r.err, "ai-fabric-fattree");
    EXPECT_EQ(std::count(findings.begin(), findings.end(), '\n'), 1) << r.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    EXPECT_EQ(j["outcome"]["watchdog"], 1);
    EXPECT_EQ(j["outcome"]["completed"], 0);
    std::remove(json.c_str());
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
