/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// ./ns3 validate -j: a bad job count is one line and exit status 2, before anything is built
// or run; with several jobs the table, the progress lines and the exit status are the serial
// run's, and the case reported when cases fail is the first in order, not the first to end.
//
// The runs use a copy of the script in a directory of its own, whose build/ is this build
// (a link) and whose validation/ holds the cases written here: the project's own cases are
// studies that take minutes, and ./ns3 builds nothing here that is not built already. The
// script is the standalone project's: inside an ns-3 tree these tests are skipped.

#include "ai-fabric-test-command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Skip a test of the standalone project's ./ns3 inside an ns-3 tree, which has its own.
#ifdef AI_FABRIC_IN_NS3_TREE
#define AI_FABRIC_REQUIRE_NS3_SCRIPT() GTEST_SKIP() << "./ns3 is the standalone project's"
#else
#define AI_FABRIC_REQUIRE_NS3_SCRIPT()
#endif

/// A directory that ./ns3 takes for the project: the script, build/ and validation/.
class ValidateProject
{
  public:
    ValidateProject()
        : m_dir(TempDir())
    {
        RunCommand("cp " + std::string(AI_FABRIC_SOURCE_DIR) + "/ns3 " + m_dir + "/ns3");
        RunCommand("ln -s " + std::string(AI_FABRIC_BIN_DIR) + "/.. " + m_dir + "/build");
        RunCommand("mkdir " + m_dir + "/validation");
    }

    ~ValidateProject()
    {
        RunCommand("rm -rf " + m_dir);
    }

    ValidateProject(const ValidateProject&) = delete;
    ValidateProject& operator=(const ValidateProject&) = delete;

    /**
     * \brief Write a case.
     * \param name its name
     * \param program the program
     * \param args its arguments, as a JSON list's items ("\"--a=1\", \"--b=2\"")
     * \param rest the keys after them, from "value" on
     */
    void AddCase(const std::string& name,
                 const std::string& program,
                 const std::string& args,
                 const std::string& rest)
    {
        std::ofstream(m_dir + "/validation/" + name + ".json")
            << "{\"name\": \"" << name << "\", \"kind\": \"prediction\", \"program\": \"" << program
            << "\", \"args\": [" << args << "], " << rest << "}\n";
    }

    /**
     * \param args ./ns3's arguments
     * \return how ./ns3 ended
     */
    CommandResult Ns3(const std::string& args) const
    {
        return RunCommand(m_dir + "/ns3 " + args + " </dev/null");
    }

    /// \return the directory
    const std::string& GetDir() const
    {
        return m_dir;
    }

  private:
    std::string m_dir; //!< the directory
};

/// A case of a pause time: 335.5 us published; "tolerance" makes it pass or fail.
const std::string PAUSE = "\"--quanta=65535\", \"--rate=100Gbps\"";

TEST(Ns3ValidateTest, ABadJobCountIsOneLine)
{
    AI_FABRIC_REQUIRE_NS3_SCRIPT();
    ValidateProject project;
    for (const std::string args :
         {"-j 0", "-j0", "-j -1", "--jobs=abc", "--jobs=1.5", "--jobs=", "-j", "--jobs=+2"})
    {
        const CommandResult r = project.Ns3("validate " + args);
        EXPECT_EQ(r.status, 2) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
        EXPECT_EQ(r.err.rfind("./ns3 validate: argument -j/--jobs: ", 0), 0u) << r.err;
    }
}

// Three cases, one failing, three at once: the serial run's table, progress lines and status.
TEST(Ns3ValidateTest, JobsGiveTheSerialTable)
{
    AI_FABRIC_REQUIRE_NS3_SCRIPT();
    ValidateProject project;
    const std::string value = "\"value\": \"pause_us\", \"unit\": \"us\", \"source\": \"test\", ";
    project.AddCase("a-pause",
                    "ai-fabric-pfc-pause",
                    PAUSE,
                    value + "\"published\": 335.5, \"tolerance_pct\": 0.1");
    project.AddCase("b-pause-off",
                    "ai-fabric-pfc-pause",
                    PAUSE,
                    value + "\"published\": 300, \"tolerance_pct\": 1");
    project.AddCase("c-goodput",
                    "ai-fabric-perftest",
                    "\"--size=1M\", \"--iters=50\"",
                    "\"value\": \"bw_avg_gbps\", \"source\": \"test\", "
                    "\"published_range\": [300, 400], \"tolerance_pct\": 1");
    const CommandResult serial = project.Ns3("validate");
    ASSERT_EQ(serial.status, 1) << serial.out << serial.err;
    EXPECT_NE(serial.out.find("2 passed, 1 failed"), std::string::npos) << serial.out;
    EXPECT_NE(serial.err.find("validating c-goodput"), std::string::npos) << serial.err;
    for (const std::string jobs : {"-j 2", "--jobs=3", "-j9"})
    {
        const CommandResult parallel = project.Ns3("validate " + jobs);
        EXPECT_EQ(parallel.status, 1) << jobs;
        EXPECT_EQ(parallel.out, serial.out) << jobs;
        EXPECT_EQ(parallel.err, serial.err) << jobs;
    }
}

// The first case runs for a while and then exits with a status it should not have; the
// second fails at once. Serial and with 2 jobs, the first is the one reported.
TEST(Ns3ValidateTest, TheFirstCaseInOrderThatFailsIsReported)
{
    AI_FABRIC_REQUIRE_NS3_SCRIPT();
    ValidateProject project;
    project.AddCase("a-slow",
                    "ai-fabric-perftest",
                    "\"--size=1M\", \"--iters=500\"",
                    "\"value\": \"bw_avg_gbps\", \"source\": \"test\", \"published\": 392, "
                    "\"tolerance_pct\": 1, \"exit_status\": 3");
    project.AddCase("b-fast",
                    "ai-fabric-pfc-pause",
                    "\"--quanta=x\"",
                    "\"value\": \"pause_us\", \"source\": \"test\", \"published\": 1, "
                    "\"tolerance_pct\": 1");
    const CommandResult serial = project.Ns3("validate");
    ASSERT_EQ(serial.status, 1) << serial.err;
    EXPECT_EQ(serial.out, "");
    EXPECT_NE(serial.err.find("./ns3 validate: a-slow: ai-fabric-perftest exited with 0 "
                              "(expected 3)"),
              std::string::npos)
        << serial.err;
    const CommandResult parallel = project.Ns3("validate -j 2");
    EXPECT_EQ(parallel.status, 1);
    EXPECT_EQ(parallel.out, "");
    EXPECT_EQ(parallel.err, serial.err);
}

// Each run keeps its cases' wall times beside the cases (.validate-times.json) for -j's start
// order, longest first; a file that is not such a record is ignored and replaced, and the
// output is the serial run's whatever the order.
TEST(Ns3ValidateTest, CaseTimesAreKeptForTheStartOrder)
{
    AI_FABRIC_REQUIRE_NS3_SCRIPT();
    ValidateProject project;
    const std::string value = "\"value\": \"pause_us\", \"unit\": \"us\", \"source\": \"test\", ";
    project.AddCase("a-pause",
                    "ai-fabric-pfc-pause",
                    PAUSE,
                    value + "\"published\": 335.5, \"tolerance_pct\": 0.1");
    project.AddCase("b-goodput",
                    "ai-fabric-perftest",
                    "\"--size=1M\", \"--iters=50\"",
                    "\"value\": \"bw_avg_gbps\", \"source\": \"test\", "
                    "\"published_range\": [300, 400], \"tolerance_pct\": 1");
    const std::string times = project.GetDir() + "/.validate-times.json";
    std::ofstream(times) << "[not, a record";
    const CommandResult serial = project.Ns3("validate");
    ASSERT_EQ(serial.status, 0) << serial.out << serial.err;
    const nlohmann::json kept = nlohmann::json::parse(ReadFile(times));
    ASSERT_TRUE(kept.is_object()) << kept.dump();
    EXPECT_EQ(kept.size(), 2u) << kept.dump();
    EXPECT_GT(kept["a-pause"].get<double>(), 0) << kept.dump();
    EXPECT_GT(kept["b-goodput"].get<double>(), 0) << kept.dump();
    const CommandResult parallel = project.Ns3("validate -j 2");
    EXPECT_EQ(parallel.status, 0);
    EXPECT_EQ(parallel.out, serial.out);
    EXPECT_EQ(parallel.err, serial.err);
}

} // namespace
