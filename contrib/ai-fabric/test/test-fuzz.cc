/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Fuzzing as a test: every program with generated bad and edge flag values must end with a
// result (exit 0), one line of bad input (exit 2) or a named finding (exit 3) — never a
// crash, a hang, a usage dump or a file left half-written. Randomized failure schedules on
// fat-trees and tori of both fabrics end, lose in lossless classes only what the failures
// themselves destroy, and deliver every byte once.
//
// The runs are drawn from a fixed seed, a bounded number per program so that the suite stays
// within CI's time; AI_FABRIC_FUZZ_RUNS (runs per program) and AI_FABRIC_FUZZ_SEED widen the
// study. Each test prints its count of outcomes by exit status.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ai-fabric-test-programs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A program and the small scenario each fuzzed run starts from.
struct FuzzProgram
{
    std::string name; //!< binary
    std::string base; //!< arguments every run has (a fuzzed flag given again overrides)
};

/**
 * \brief How gtest prints a program (its name, not its bytes).
 * \param p the program
 * \param os the stream
 */
void
PrintTo(const FuzzProgram& p, std::ostream* os)
{
    *os << p.name;
}

/// The programs: each base keeps a healthy run well under a second.
const std::vector<FuzzProgram> FUZZ_PROGRAMS = {
    {"ai-fabric-fattree",
     "--server=none --servers=4 --radix=4 --minBytes=64K --maxBytes=64K --iters=1 --warmup=0 "
     "--quiet --maxWallTime=20s"},
    {"ai-fabric-torus",
     "--dims=2x2 --minBytes=64K --maxBytes=64K --iters=1 --warmup=0 --quiet --maxWallTime=20s"},
    {"ai-fabric-sweep",
     "--topology=torus --dims=2x2 --minBytes=64K --maxBytes=64K --iters=1 --warmup=0 --quiet "
     "--maxWallTime=20s"},
    {"ai-fabric-perftest", "--iters=50"},
    {"ai-fabric-incast", "--senders=2 --bytes=256K"},
    {"ai-fabric-dcqcn", "--duration=1ms --stagger=0.2ms --printEvery=0.5ms"},
    {"ai-fabric-pfc-hol", "--duration=0.5ms"},
    {"ai-fabric-pfc-pause", ""},
    {"ai-fabric-ib-credits", "--messages=20"},
    {"failure-sweep", "--servers=4 --radix=4 --bytes=256K --quiet"},
    {"clos-deadlock", ""},
    {"ai-fabric-scale-benchmark", "--servers=2 --bytes=1M --algos=ring --maxWallTime=20s"},
};

/**
 * \param out a program's --help
 * \return the names of its own options
 */
std::vector<std::string>
Options(const std::string& out)
{
    std::vector<std::string> names;
    std::istringstream lines(out);
    std::string line;
    bool own = false;
    while (std::getline(lines, line))
    {
        if (line.rfind("Program Options", 0) == 0)
        {
            own = true;
            continue;
        }
        if (line.rfind("General Arguments", 0) == 0)
        {
            break;
        }
        const std::size_t dash = line.find("--");
        const std::size_t colon = line.find(':', dash);
        if (own && dash != std::string::npos && colon != std::string::npos)
        {
            names.push_back(line.substr(dash + 2, colon - dash - 2));
        }
    }
    return names;
}

/**
 * \param name an environment variable
 * \param fallback its value when unset
 * \return its value
 */
uint64_t
FromEnvironment(const char* name, uint64_t fallback)
{
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

/**
 * \param s a string
 * \return it quoted for the shell
 */
std::string
Quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

/**
 * \param command a shell command
 * \return it run with at most 2 GiB of address space (any flag must stay within it), except
 *         under AddressSanitizer, whose shadow needs terabytes of address space
 */
std::string
Limited(const std::string& command)
{
#if defined(__SANITIZE_ADDRESS__)
    return command;
#else
    return "ulimit -v 2097152; " + command;
#endif
}

class FuzzTest
    : public AiFabricTest
    , public testing::WithParamInterface<FuzzProgram>
{
};

TEST_P(FuzzTest, EveryRunEndsCleanly)
{
    AI_FABRIC_REQUIRE_PROGRAM(GetParam().name);
    const FuzzProgram& program = GetParam();
    const std::string bin = ProgramPath(program.name);
    std::vector<std::string> options = Options(RunCommand(bin + " --help").out);
    ASSERT_FALSE(options.empty()) << program.name;
    // ns-3's own options, which every program takes too.
    options.insert(options.end(),
                   {"RngSeed",
                    "RngRun",
                    "SchedulerType",
                    "SimulatorImplementationType",
                    "ns3::FabricChannel::Delay",
                    "ns3::RdmaQueuePair::Mtu",
                    "PrintAttributes",
                    "PrintGroup"});
    const bool hasJson = std::find(options.begin(), options.end(), "json") != options.end();

    const std::string dir = TempDir();
    const std::string aDirectory = TempDir();
    {
        std::ofstream(dir + "/bad.json") << "{\"failures\": [ {\"what\": ";
        std::ofstream(dir + "/junk.json") << "[] trailing";
    }
    // Values of every kind a user may type, and some no user should.
    const std::vector<std::string> values = {
        "",
        "0",
        "-1",
        "1",
        "2",
        "3",
        "7",
        "99999999999999999999",
        "4294967297",
        "abc",
        "1.5",
        "-0.5",
        "1e308",
        "nan",
        "0.001ns",
        "1ps",
        "1000000s",
        "64K",
        "1 M",
        "5G",
        "true",
        "maybe",
        "roce",
        "ib",
        "/nonexistent/dir/f",
        aDirectory,
        "400Gbps",
        "1bps",
        "1Tbps",
        "4:1",
        "leaf0-spine0",
        "link:leaf0-spine0@1us",
        "link:nope@1us",
        "ber:leaf0-spine0@1us,rate=2",
        "flap:leaf0-spine0@1us,period=1000000s,count=11",
        "@@@",
        dir + "/bad.json",
        dir + "/junk.json",
        "/nonexistent.json",
    };

    const uint64_t runs = FromEnvironment("AI_FABRIC_FUZZ_RUNS", 24);
    std::mt19937_64 rng(FromEnvironment("AI_FABRIC_FUZZ_SEED", 1)
                        + std::hash<std::string>()(program.name));
    std::map<int, uint32_t> outcomes;
    for (uint64_t i = 0; i < runs; ++i)
    {
        const std::string& option = options[rng() % options.size()];
        const std::string& value = values[rng() % values.size()];
        const std::string out = dir + "/run";
        std::string args = program.base;
        if (hasJson && option != "json")
        {
            args += " --json=" + out + "/out.json";
        }
        args += " " + Quote("--" + option + "=" + value);
        // Programs without the watchdog's flags have a healthy run well under a second; 120 s
        // is a hang. Each run has a working directory of its own: a value taken for a
        // relative file name (--pcap=abc) writes there, not into the build tree.
        const std::string cwd = dir + "/cwd";
        RunCommand("mkdir -p " + out + " " + cwd);
        const CommandResult r
            = RunCommand("cd " + cwd + " && " + Limited("timeout 120 " + bin + " " + args));
        const std::string what = program.name + " " + args;
        ++outcomes[r.status];
        EXPECT_TRUE(r.status == 0 || r.status == 2 || r.status == 3)
            << what << ": exit " << r.status << "\n"
            << r.err.substr(0, 2000);
        if (r.status == 2)
        {
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
            EXPECT_EQ(r.err.rfind(program.name + ": ", 0), 0u) << what << ": " << r.err;
            EXPECT_EQ(ListDir(out).size(), 0u) << what << ": a file was left";
            EXPECT_EQ(ListDir(cwd).size(), 0u) << what << ": a file was left";
        }
        if (r.status == 3)
        {
            EXPECT_NE(r.err.find(program.name + ": "), std::string::npos) << what << ": " << r.err;
        }
        for (const std::string& e : ListDir(out))
        {
            // Only the finished JSON may stay; it is whole.
            EXPECT_EQ(e, "out.json") << what << ": left " << e;
            if (e == "out.json")
            {
                EXPECT_NO_THROW(nlohmann::json::parse(ReadFile(out + "/out.json"))) << what;
            }
        }
        RunCommand("rm -rf " + out + " " + cwd);
    }
    std::ostringstream summary;
    for (const auto& [status, n] : outcomes)
    {
        summary << " exit " << status << ": " << n << ";";
    }
    std::cout << "# fuzz " << program.name << ": " << runs << " runs;" << summary.str()
              << std::endl;
    RunCommand("rm -rf " + dir + " " + aDirectory); // what the programs wrote there too
}

INSTANTIATE_TEST_SUITE_P(Programs,
                         FuzzTest,
                         testing::ValuesIn(FUZZ_PROGRAMS),
                         [](const testing::TestParamInfo<FuzzProgram>& info)
                         {
                             std::string name = info.param.name;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

/// One randomized failure schedule's run.
struct FailureCase
{
    std::string program;             //!< binary
    std::string args;                //!< its scenario
    std::vector<std::string> cables; //!< cables the schedule may fail
    std::vector<std::string> nodes;  //!< switches and GPUs it may fail
};

/**
 * \param rng the generator
 * \param c the scenario
 * \return a schedule of 1-3 failures within the first 100 us
 */
std::string
RandomSchedule(std::mt19937_64& rng, const FailureCase& c)
{
    std::string s;
    const uint32_t n = 1 + rng() % 3;
    for (uint32_t i = 0; i < n; ++i)
    {
        const std::string at = std::to_string(5 + rng() % 95) + "us";
        const std::string& cable = c.cables[rng() % c.cables.size()];
        std::string f;
        switch (rng() % 6)
        {
        case 0:
        case 1:
            f = "link:" + cable + "@" + at;
            break;
        case 2:
            f = "flap:" + cable + "@" + at + ",period=" + std::to_string(5 + rng() % 50)
                + "us,count=" + std::to_string(1 + rng() % 4);
            break;
        case 3:
            f = "ber:" + cable + "@" + at + ",rate=1e-" + std::to_string(5 + rng() % 3);
            break;
        case 4:
        {
            const std::string& node = c.nodes[rng() % c.nodes.size()];
            f = (node.rfind("gpu", 0) == 0 ? "nic:" : "switch:") + node + "@" + at;
            break;
        }
        default:
            f = "link:" + cable + "@" + at + ";up@" + std::to_string(105 + rng() % 50) + "us";
            break;
        }
        s += (s.empty() ? "" : ";") + f;
    }
    return s;
}

TEST_F(AiFabricTest, RandomizedFailureSchedulesEndLosslessly)
{
    const std::vector<FailureCase> cases = {
        {"ai-fabric-fattree",
         "--server=none --servers=8 --radix=4 --algo=ring --minBytes=4M --maxBytes=4M --iters=1 "
         "--warmup=0 --quiet",
         {"leaf0-spine0", "leaf1-spine1", "leaf0-spine1", "gpu2-leaf1", "leaf3-spine0"},
         {"spine0", "leaf1", "gpu3"}},
        {"ai-fabric-torus",
         "--dims=3x3 --minBytes=1M --maxBytes=1M --iters=1 --warmup=0 --quiet",
         {"torus0-0-torus1-0", "torus1-1-torus1-2", "torus2-2-torus0-2"},
         {"torus1-1"}},
    };
    const uint64_t runs = FromEnvironment("AI_FABRIC_FUZZ_FAILURE_RUNS", 6);
    std::mt19937_64 rng(FromEnvironment("AI_FABRIC_FUZZ_SEED", 1));
    const std::string dir = TempDir();
    std::map<int, uint32_t> outcomes;
    for (const FailureCase& c : cases)
    {
        for (const std::string fabric : {"roce", "ib"})
        {
            for (uint64_t i = 0; i < runs; ++i)
            {
                const std::string schedule = RandomSchedule(rng, c);
                const std::string json = dir + "/f.json";
                const std::string args = c.args + " --fabric=" + fabric + " --json=" + json + " "
                                         + Quote("--failures=" + schedule);
                const CommandResult r
                    = RunCommand("timeout 300 " + ProgramPath(c.program) + " " + args);
                ++outcomes[r.status];
                const std::string what = c.program + " " + args;
                // Ends: a result, or a finding (a deadlock, a stall, a GPU cut off). A failure
                // that names what the topology lacks is bad input (2).
                ASSERT_TRUE(r.status == 0 || r.status == 2 || r.status == 3)
                    << what << ": exit " << r.status << "\n"
                    << r.err.substr(0, 2000);
                if (r.status == 2)
                {
                    // Only a failure after the end of the run is refused here (the schedules
                    // name real cables and nodes, in the first 100 us).
                    EXPECT_NE(r.err.find("after the end of the run"), std::string::npos)
                        << what << ": " << r.err;
                    continue;
                }
                const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
                const nlohmann::json& reasons = j["fabric"]["drops_by_reason"];
                // Lossless classes lose only what the failures destroy: frames on a link that
                // went down, corrupted by bit errors, or without a route until the reroute.
                for (const char* never :
                     {"QueueFull", "HeadroomExceeded", "CreditViolation", "PfcWatchdog"})
                {
                    EXPECT_EQ(reasons.value(never, 0), 0) << what << ": " << never;
                }
                if (r.status == 0)
                {
                    // Completed: every rank received each of the plan's transfers (the RC
                    // transport delivers a message once, in order; the communicator refuses a
                    // transfer of another size than planned).
                    EXPECT_EQ(j["outcome"]["completed"], 1) << what;
                }
                std::remove(json.c_str());
            }
        }
    }
    std::ostringstream summary;
    for (const auto& [status, n] : outcomes)
    {
        summary << " exit " << status << ": " << n << ";";
    }
    std::cout << "# failure fuzz:" << summary.str() << std::endl;
}

} // namespace
