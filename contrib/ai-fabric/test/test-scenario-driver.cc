/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// One scenario driver: flags declared once (ScenarioOptions), and a topology added from this
// file alone (a star of GPUs on one switch) that the driver sweeps like the fat-tree and the
// torus, with its table, its JSON and a busbw bounded by the link's goodput.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/collective-scenario.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/names.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace ns3
{
namespace
{

/// A toy topology: N GPUs on one switch, declared and built here alone.
class StarTopology : public ScenarioTopology
{
  public:
    void DeclareOptions(ScenarioOptions& o) override
    {
        o.Add("gpus", "GPUs on the switch", "4");
        o.Use("algo", "ring");
    }

    void Check(ScenarioOptions& o, FabricHelper& /* probe */) override
    {
        m_n = o.Whole("gpus", 2, 64);
    }

    uint32_t GetNGpus() const override
    {
        return m_n;
    }

    DataRate GetLinkRate() const override
    {
        return DataRate("400Gbps");
    }

    void Install(FabricHelper& fabric) override
    {
        m_gpus.Create(m_n);
        m_switch.Create(1);
        fabric.InstallHosts(m_gpus);
        fabric.InstallSwitches(m_switch);
        for (uint32_t i = 0; i < m_n; ++i)
        {
            Names::Add("gpu" + std::to_string(i), m_gpus.Get(i));
            fabric.Connect(m_gpus.Get(i), m_switch.Get(0));
        }
        fabric.ComputeRoutes();
    }

    NodeContainer GetRanks() const override
    {
        return m_gpus;
    }

    Time GetPathLatency(const FabricHelper& fabric) const override
    {
        return fabric.GetSwitchLatency(m_switch.Get(0)) + fabric.GetChannels()[0]->GetDelay() * 2;
    }

    void PrintHeader(std::ostream& os, const CollectiveScenario& /* scenario */) const override
    {
        os << "star: " << m_n << " GPUs on one switch\n";
    }

    nlohmann::ordered_json GetScenarioJson(const CollectiveScenario& scenario,
                                           const FailureRunOutput& out) const override
    {
        nlohmann::ordered_json j = scenario.GetCommonJson(out);
        j["topology"] = "star";
        j["gpus"] = m_n;
        return j;
    }

    std::unique_ptr<ScenarioTopology> Copy() const override
    {
        return std::make_unique<StarTopology>(*this);
    }

  private:
    uint32_t m_n{4};        //!< GPUs
    NodeContainer m_gpus;   //!< the GPUs
    NodeContainer m_switch; //!< the switch
};

const ScenarioTopologyRegistration g_star("star",
                                          []() { return std::make_unique<StarTopology>(); });

/**
 * \param args the arguments after the program's name
 * \return an argv for them (the strings live in the vector given)
 */
std::vector<char*>
Argv(std::vector<std::string>& args)
{
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    return argv;
}

} // namespace
} // namespace ns3

using namespace ns3;

// The star runs through the driver like the module's own topologies: its header, the
// nccl-tests table, and a JSON with the driver's keys and its own. A ring all-reduce on a
// non-blocking switch moves 2 (n - 1) / n of the buffer over every NIC: its busbw is at most
// the link's RDMA goodput, and above 85 % of it at 16 MiB, where the 2 (n - 1) steps' latency
// is a few percent of the transfer.
TEST(ScenarioDriverTest, AToyTopologyFromATestFile)
{
    const std::string json = "/tmp/ai-fabric-star-" + std::to_string(getpid()) + ".json";
    std::vector<std::string> args = {"star-program",
                                     "--gpus=4",
                                     "--minBytes=16M",
                                     "--maxBytes=16M",
                                     "--iters=1",
                                     "--warmup=0",
                                     "--quiet",
                                     "--json=" + json};
    std::vector<char*> argv = Argv(args);
    testing::internal::CaptureStdout();
    const int status = CollectiveScenario("star-program", "star")
                           .Main(static_cast<int>(args.size()), argv.data(), "A star.");
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("star: 4 GPUs on one switch\n"), std::string::npos) << out;
    EXPECT_NE(out.find("# collective allreduce, algo ring, 4 ranks, 1 channel(s)"),
              std::string::npos)
        << out;
    std::ifstream in(json);
    ASSERT_TRUE(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    std::remove(json.c_str());
    EXPECT_EQ(j["scenario"]["topology"], "star");
    EXPECT_EQ(j["scenario"]["gpus"], 4);
    EXPECT_EQ(j["scenario"]["fabric"], "roce");
    EXPECT_EQ(j["scenario"]["algo"], "ring");
    EXPECT_EQ(j["scenario"]["dcqcn"], true);
    ASSERT_EQ(j["results"].size(), 1U);
    const double busbw = j["results"][0]["busbw_GBps"].get<double>();
    const double goodput
        = 400e9 / 8 * FabricHelper::CreateByName("roce")->GetRdmaWireEfficiency(4096) / 1e9;
    EXPECT_LE(busbw, goodput * 1.0001);
    EXPECT_GE(busbw, goodput * 0.85) << busbw << " of " << goodput;
    EXPECT_EQ(j["fabric"]["drops"], 0);
}

// Flags in every form a user types: bare (a toggle of the default, as ns-3's CommandLine
// toggles a bool), =true, =1, =0; given or not; a default chosen after parsing; a fabric's
// settings kept apart for the fabric.
TEST(ScenarioOptionsTest, FormsAndDefaults)
{
    ScenarioOptions o("options-test");
    o.Use("quiet");
    o.Use("dcqcn");
    o.Use("servers", "", "a note");
    o.Add("own", "a flag of this program", "x");
    o.UseFabricOption("pfc");
    o.UseFabricOption("routing");
    o.UseFabricOption("ecn");
    std::vector<std::string> args = {"options-test", "--quiet", "--dcqcn=0", "--pfc=1", "--ecn"};
    std::vector<char*> argv = Argv(args);
    o.Parse(static_cast<int>(args.size()), argv.data(), "A test.");
    EXPECT_TRUE(o.GetFlag("quiet"));
    EXPECT_FALSE(o.GetFlag("dcqcn"));
    EXPECT_TRUE(o.IsGiven("dcqcn"));
    EXPECT_FALSE(o.IsGiven("own"));
    EXPECT_EQ(o.Get("own"), "x");
    EXPECT_EQ(o.Get("pfc"), "true");  // normalised: the fabric compares it with its default
    EXPECT_EQ(o.Get("ecn"), "false"); // bare: the default (true) toggled
    o.SetDefault("servers", "16");
    EXPECT_EQ(o.Get("servers"), "16");
    o.SetDefault("dcqcn", "true"); // given: kept
    EXPECT_FALSE(o.GetFlag("dcqcn"));
    const auto fabricOptions = o.GetFabricOptions();
    ASSERT_EQ(fabricOptions.size(), 3U);
    EXPECT_EQ(fabricOptions[0], std::make_pair(std::string("pfc"), std::string("true")));
    EXPECT_EQ(fabricOptions[1], std::make_pair(std::string("routing"), std::string("minhop")));
    EXPECT_FALSE(o.Has("json"));
}

// A flag is declared once: twice is a programming error, as is a name the catalogue lacks.
TEST(ScenarioOptionsTest, DeclaredOnce)
{
    ScenarioOptions o("options-test");
    o.Use("fabric");
    EXPECT_DEATH(o.Add("fabric", "again", "roce"), "declared twice");
    EXPECT_DEATH(o.Use("nosuchflag"), "not in the catalogue");
    EXPECT_DEATH(o.UseFabricOption("nosuchoption"), "no fabric's option");
}

// Bad values end the program with one line and status 2, naming the flag.
TEST(ScenarioOptionsTest, BadValuesExitWithTwo)
{
    ScenarioOptions o("options-test");
    o.Use("channels", "0");
    o.Add("rate", "a rate", "400");
    o.Add("switch", "a boolean as text", "maybe");
    EXPECT_EXIT(o.Whole("channels", 1, 64),
                testing::ExitedWithCode(2),
                "^options-test: --channels=0: expected a whole number from 1 to 64\n$");
    EXPECT_EXIT(o.LinkRate("rate"), testing::ExitedWithCode(2), "--rate=400");
    EXPECT_EXIT(o.Bool("switch"),
                testing::ExitedWithCode(2),
                "^options-test: --switch=maybe: expected true or false\n$");
}

// ai-fabric-sweep runs any registered topology: with --topology=torus it is ai-fabric-torus,
// with the default fat-tree ai-fabric-fattree, to the byte (stdout and JSON but its
// wall-clock "sim"); an unknown topology is refused with the registered names.
TEST(ScenarioDriverTest, TheSweepProgramIsEveryTopologysProgram)
{
    const std::string dir = TempDir();
    for (const auto& [program, args] : std::vector<std::pair<std::string, std::string>>{
             {"ai-fabric-torus", "--dims=2x2x2 --maxBytes=2M --quiet"},
             {"ai-fabric-fattree", "--server=none --servers=4 --radix=4 --maxBytes=2M --quiet"}})
    {
        const std::string topology = program == "ai-fabric-torus" ? "torus" : "fat-tree";
        const CommandResult own
            = RunCommand(ProgramPath(program) + " " + args + " --json=" + dir + "/own.json");
        const CommandResult any
            = RunCommand(ProgramPath("ai-fabric-sweep") + " --topology=" + topology + " " + args
                         + " --json=" + dir + "/any.json");
        ASSERT_EQ(own.status, 0) << own.err;
        ASSERT_EQ(any.status, 0) << any.err;
        EXPECT_EQ(own.out, any.out) << topology;
        nlohmann::ordered_json a = nlohmann::ordered_json::parse(ReadFile(dir + "/own.json"));
        nlohmann::ordered_json b = nlohmann::ordered_json::parse(ReadFile(dir + "/any.json"));
        a.erase("sim");
        b.erase("sim");
        // Each names its own program and flags (the sweep's with --topology).
        EXPECT_EQ(a["scenario"]["program"], program);
        EXPECT_EQ(b["scenario"]["program"], "ai-fabric-sweep");
        EXPECT_EQ(b["scenario"]["flags"]["topology"], topology);
        for (nlohmann::ordered_json* j : {&a, &b})
        {
            (*j)["scenario"].erase("program");
            (*j)["scenario"].erase("flags");
        }
        EXPECT_EQ(a.dump(), b.dump()) << topology;
    }
    const CommandResult bad = RunCommand(ProgramPath("ai-fabric-sweep") + " --topology=ring");
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.err,
              "ai-fabric-sweep: --topology=ring: expected one of fat-tree, graph, torus\n");
    EXPECT_EQ(bad.out, "");
}
