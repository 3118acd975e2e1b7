/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Scenario files (--scenario=FILE, ScenarioOptions::ExpandScenario()): every program takes its
// flags from a JSON file and writes the flags it ran with into its JSON output
// (scenario.flags), so that a result runs again to the same output.

#include "ai-fabric-test-command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \param path a file
 * \param text written to it
 */
void
WriteFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
}

/**
 * \param path a JSON output
 * \return it without the figures of the machine (wall time, memory)
 */
nlohmann::ordered_json
WithoutMachine(const std::string& path)
{
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(ReadFile(path));
    if (j.contains("sim"))
    {
        for (const char* key : {"wall_s", "peak_rss_mb", "events_per_s"})
        {
            j["sim"].erase(key);
        }
    }
    return j;
}

} // namespace

// A --json result given back as --scenario runs the same scenario: the same standard output,
// byte for byte, and the same JSON but the machine's figures; on programs of each kind.
TEST(ScenarioFileTest, AResultRunsAgainByteForByte)
{
    const std::string dir = TempDir();
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"ai-fabric-fattree",
         "--server=none --servers=8 --radix=4 --algo=ring --minBytes=256K --maxBytes=1M "
         "--stepFactor=4 --iters=2 --RngRun=3 --ns3::RdmaQueuePair::Mtu=2048 --quiet"},
        {"ai-fabric-fattree",
         "--servers=2 --mode=flow --collective=alltoall --minBytes=1M --maxBytes=1M --quiet"},
        {"ai-fabric-torus", "--dims=2x2 --maxBytes=2M --quiet"},
        {"ai-fabric-incast", "--senders=3 --bytes=256K"},
        {"ai-fabric-perftest", "--test=write_bw --size=65536 --iters=20"},
    };
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        const auto& [program, args] = runs[i];
        const std::string first = dir + "/first" + std::to_string(i) + ".json";
        const std::string again = dir + "/again" + std::to_string(i) + ".json";
        const CommandResult a = RunCommand(ProgramPath(program) + " " + args + " --json=" + first);
        ASSERT_EQ(a.status, 0) << program << " " << args << ": " << a.err;
        const CommandResult b
            = RunCommand(ProgramPath(program) + " --scenario=" + first + " --json=" + again);
        ASSERT_EQ(b.status, 0) << program << ": " << b.err;
        EXPECT_FALSE(a.out.empty()) << program;
        EXPECT_EQ(a.out, b.out) << program << " " << args;
        const nlohmann::ordered_json x = WithoutMachine(first);
        const nlohmann::ordered_json y = WithoutMachine(again);
        EXPECT_EQ(x.dump(), y.dump()) << program << " " << args;
        EXPECT_EQ(x["scenario"]["program"], program);
        EXPECT_FALSE(x["scenario"]["flags"].contains("json")) << "an output, not the scenario";
    }
}

// A hand-written file: numbers, booleans and strings, attributes and global values, in the
// order given; flags after --scenario win over the file's, flags before it lose.
TEST(ScenarioFileTest, HandWrittenFilesAndTheCommandLine)
{
    const std::string dir = TempDir();
    const std::string file = dir + "/scenario.json";
    WriteFile(file,
              R"({"program": "ai-fabric-fattree", "flags": {"server": "none", "servers": 8,
                  "radix": 4, "algo": "ring", "minBytes": "256K", "maxBytes": "256K",
                  "iters": 1, "warmup": 0, "quiet": true, "RngRun": 2,
                  "ns3::RdmaQueuePair::Mtu": 1024}})");
    const std::string plain
        = "--server=none --servers=8 --radix=4 --algo=ring --minBytes=256K --maxBytes=256K "
          "--iters=1 --warmup=0 --quiet=true --RngRun=2 --ns3::RdmaQueuePair::Mtu=1024";
    const std::string fattree = ProgramPath("ai-fabric-fattree");
    const CommandResult byFile
        = RunCommand(fattree + " --scenario=" + file + " --json=" + dir + "/file.json");
    const CommandResult byFlags
        = RunCommand(fattree + " " + plain + " --json=" + dir + "/flags.json");
    ASSERT_EQ(byFile.status, 0) << byFile.err;
    ASSERT_EQ(byFlags.status, 0) << byFlags.err;
    EXPECT_EQ(byFile.out, byFlags.out);
    const nlohmann::ordered_json j = WithoutMachine(dir + "/file.json");
    EXPECT_EQ(j["scenario"]["flags"].dump(),
              WithoutMachine(dir + "/flags.json")["scenario"]["flags"].dump());
    EXPECT_EQ(j["scenario"]["flags"]["servers"], "8");
    EXPECT_EQ(j["scenario"]["flags"]["quiet"], true);
    EXPECT_EQ(j["scenario"]["flags"]["ns3::RdmaQueuePair::Mtu"], "1024");
    EXPECT_EQ(j["scenario"]["RngRun"], 2);

    const CommandResult after
        = RunCommand(fattree + " --scenario=" + file + " --servers=4 --json=" + dir + "/a.json");
    const CommandResult before
        = RunCommand(fattree + " --servers=4 --scenario=" + file + " --json=" + dir + "/b.json");
    ASSERT_EQ(after.status, 0) << after.err;
    ASSERT_EQ(before.status, 0) << before.err;
    EXPECT_EQ(WithoutMachine(dir + "/a.json")["scenario"]["servers"], 4);
    EXPECT_EQ(WithoutMachine(dir + "/b.json")["scenario"]["servers"], 8);
}

// A file that cannot be read, is not JSON, holds no flags, is another program's, or holds a
// value or a name no flag takes: one line, exit status 2, nothing on standard output and no
// JSON written.
TEST(ScenarioFileTest, BadFilesAreOneLine)
{
    const std::string dir = TempDir();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "cannot read it"},
        {"{\"flags\": {\"servers\": 4", "not JSON"},
        {"[1, 2]", "expected an object with a \"flags\" object"},
        {"{\"scenario\": {\"servers\": 4}}", "expected an object with a \"flags\" object"},
        {"{\"flags\": [\"--servers=4\"]}", "expected an object with a \"flags\" object"},
        {"{\"program\": \"ai-fabric-torus\", \"flags\": {}}",
         "written for ai-fabric-torus, not ai-fabric-fattree"},
        {"{\"flags\": {\"servers\": [4]}}", "flag \"servers\": expected a string, a number"},
        {"{\"flags\": {\"servers\": null}}", "flag \"servers\": expected a string, a number"},
        {"{\"flags\": {\"bogus\": 1}}", "unknown flag \"bogus\""},
        {"{\"flags\": {\"--servers\": 4}}", "expected a flag's name without dashes"},
        {"{\"flags\": {\"scenario\": \"x.json\"}}", "expected a flag's name without dashes"},
        {"{\"flags\": {\"servers\": \"many\"}}", "--servers=many"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i)
    {
        const auto& [text, message] = cases[i];
        const std::string file = dir + "/bad" + std::to_string(i) + ".json";
        if (!text.empty())
        {
            WriteFile(file, text);
        }
        const std::string json = dir + "/out" + std::to_string(i) + ".json";
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-fattree") + " --scenario=" + file
                                           + " --json=" + json);
        EXPECT_EQ(r.status, 2) << text;
        EXPECT_EQ(r.out, "") << text;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << text << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << text << ": " << r.err;
        EXPECT_NE(access(json.c_str(), F_OK), 0) << text;
    }
    const CommandResult bare = RunCommand(ProgramPath("ai-fabric-fattree") + " --scenario");
    EXPECT_EQ(bare.status, 2);
    EXPECT_NE(bare.err.find("expected a JSON file"), std::string::npos) << bare.err;
}
