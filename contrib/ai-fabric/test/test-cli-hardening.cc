/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Bad input on every program: one line on stderr ("PROGRAM: message"), exit status 2, nothing
// left behind, never an abort, a crash or a usage dump: ns-3's own options, empty values, bad
// numbers, values that used to be misread silently, and rates a run cannot finish at.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-programs.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

// ns-3's own options and empty values.

TEST(CliHardeningTest, MalformedNs3OptionsAreOneLine)
{
    for (const Program& p : PROGRAMS)
    {
        ExpectRefused(p.name, "--ns3::FabricChannel::Delay=5xs", "", "Delay");
        ExpectRefused(p.name, "'--ns3::FabricChannel::Delay=5 ns'");
        ExpectRefused(p.name, "--ns3::FabricChannel::Delay=1e300s");
        ExpectRefused(p.name, "--ns3::FabricChannel::Nope=5ns", "", "no such attribute");
        ExpectRefused(p.name, "--ns3::FabricNetDevice::DataRate=5xbps");
        ExpectRefused(p.name, "--RngSeed=0", "", "RngSeed");
        ExpectRefused(p.name, "--RngSeed=abc");
        ExpectRefused(p.name, "--RngRun=-1");
        ExpectRefused(p.name, "--SimulatorImplementationType=ns3::Nope");
        ExpectRefused(p.name, "--SchedulerType=ns3::Nope");
        ExpectRefused(p.name, "--PrintAttributes=ns3::Nope", "", "no such TypeId");
        ExpectRefused(p.name, "--PrintGroup=Nope", "", "no such group");
        ExpectRefused(p.name, "--PrintAttributes");
        ExpectRefused(p.name, "--nope=1", "", "unknown option --nope");
    }
    const CommandResult types = RunCommand(ProgramPath("ai-fabric-pfc-pause") + " --PrintTypeIds");
    EXPECT_EQ(types.status, 0) << types.err;
    EXPECT_NE(types.out.find("ns3::FabricChannel"), std::string::npos);
    const CommandResult group
        = RunCommand(ProgramPath("ai-fabric-pfc-pause") + " --PrintGroup=AiFabric");
    EXPECT_EQ(group.status, 0) << group.err;
    EXPECT_NE(group.out.find("ns3::FabricChannel"), std::string::npos);
    // Well-formed values are still taken.
    const CommandResult ok = RunCommand(ProgramPath("ai-fabric-pfc-pause")
                                        + " --quanta=10 --ns3::FabricChannel::Delay=1.5us "
                                          "--RngSeed=7 --RngRun=3");
    EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(CliHardeningTest, EmptyValuesAreOneLine)
{
    for (const Program& p : PROGRAMS)
    {
        ExpectRefused(p.name, "--" + p.numeric + "=", "", "expected a value");
        ExpectRefused(p.name, "--" + p.numeric, "", "expected a value");
        ExpectRefused(p.name, "--ns3::FabricChannel::Delay=", "", "expected a value");
        ExpectRefused(p.name, "--RngRun=", "", "expected a value");
        if (p.json)
        {
            ExpectRefused(p.name, "--json=", "", "expected a value");
        }
    }
    ExpectRefused("ai-fabric-fattree", "--servers=", "", "--servers=: expected a value");
    ExpectRefused("ai-fabric-fattree", "--servers", "", "--servers: expected a value");
}

TEST(CliHardeningTest, BadNumbersAreOneLine)
{
    for (const Program& p : PROGRAMS)
    {
        for (const std::string v : {"abc", "-1", "99999999999999999999", "1x", "1.5"})
        {
            ExpectRefused(p.name, "--" + p.numeric + "=" + v);
        }
    }
}

// Silent misreads.

TEST(CliHardeningTest, IncastLeavesAndSpinesAreChecked)
{
    ExpectRefused("ai-fabric-incast", "--leaves=abc --spines=-1", "", "--leaves=abc");
    ExpectRefused("ai-fabric-incast", "--topology=leafspine --spines=-1", "", "--spines=-1");
    ExpectRefused("ai-fabric-incast", "--leaves=4", "", "--topology=leafspine");
    ExpectRefused("ai-fabric-incast", "--topology=leafspine --leaves=99999999999999999999");
}

TEST(CliHardeningTest, FailureFilesAreReadWhole)
{
    const std::string dir = TempDir();
    const std::string good
        = "[{\"what\": \"link\", \"target\": \"leaf0-spine0\", \"at\": \"1us\"}]";
    WriteText(dir + "/junk.json", good + " junk\n");
    WriteText(dir + "/two.json", good + good);
    WriteText(dir + "/object.json",
              "{\"what\": \"link\", \"target\": \"leaf0-spine0\", \"at\": \"1us\"} junk");
    mkdir((dir + "/dir.json").c_str(), 0755);
    const std::string base = "--server=none --servers=8 --radix=4 --quiet --failures=";
    ExpectRefused("ai-fabric-fattree", base + dir + "/junk.json", dir, "not JSON");
    ExpectRefused("ai-fabric-fattree", base + dir + "/two.json", dir, "not JSON");
    ExpectRefused("ai-fabric-fattree", base + dir + "/object.json", dir, "not JSON");
    ExpectRefused("ai-fabric-fattree", base + dir + "/dir.json", dir, "is a directory");
    ExpectRefused("ai-fabric-torus", "--quiet --failures=" + dir + "/dir.json", dir);
    ExpectRefused("ai-fabric-fattree", base + dir, dir);
}

// A rate at which the run cannot finish.

TEST(CliHardeningTest, IbCreditsRefusesRatesOutOfRange)
{
    // At 1 bit/s a packet outlasted the ACK timeout: "not every byte was delivered", exit 1.
    ExpectRefused("ai-fabric-ib-credits", "--rate=1bps", "", "from 1Gbps to 100Tbps");
    ExpectRefused("ai-fabric-ib-credits", "--rate=999Mbps", "", "--rate=999Mbps");
    ExpectRefused("ai-fabric-ib-credits", "--rate=100001Gbps", "", "--rate=100001Gbps");
    const CommandResult slowest = RunCommand(ProgramPath("ai-fabric-ib-credits")
                                             + " --rate=1Gbps --buffers=131072 --cables=2 "
                                               "--messages=20");
    EXPECT_EQ(slowest.status, 0) << slowest.err;
    EXPECT_EQ(slowest.err, "");
    const CommandResult help = RunCommand(ProgramPath("ai-fabric-ib-credits") + " --help");
    EXPECT_NE(help.out.find("1Gbps to 100Tbps"), std::string::npos) << help.out;
}

TEST(CliHardeningTest, EveryLinkRateHasTheSameRange)
{
    // pfc-pause at 1 bit/s overflowed Time and printed a wrong pause; perftest exited 1 on
    // retries; fattree and torus stalled (exit 3).
    for (const std::string command : {"ai-fabric-perftest --rate=1bps",
                                      "ai-fabric-pfc-pause --rate=1bps",
                                      "ai-fabric-incast --rate=1bps",
                                      "ai-fabric-dcqcn --rate=1bps",
                                      "ai-fabric-pfc-hol --rate=1bps",
                                      "ai-fabric-hop-benchmark --rate=1bps",
                                      "ai-fabric-fattree --nicRate=1bps",
                                      "ai-fabric-torus --linkRate=1bps"})
    {
        const std::size_t blank = command.find(' ');
        ExpectRefused(command.substr(0, blank), command.substr(blank + 1), "", "from 1Gbps");
    }
}

// A string option takes its whole value: a failure list with a blank after ';' keeps every
// failure (ns-3.37 stopped reading at the blank and dropped the next one), and a size with a
// blank is refused instead of read as its first word.
TEST(CliHardeningTest, BlanksInValuesAreKept)
{
    const std::string dir = TempDir();
    const CommandResult r = RunCommand(
        ProgramPath("ai-fabric-fattree") +
        " --server=none --servers=8 --radix=4 --minBytes=1M --maxBytes=1M --iters=1 --warmup=0 "
        "--quiet --json=" +
        dir + "/f.json '--failures=link:leaf0-spine0@20us; link:leaf1-spine1@30us'");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string json = ReadFile(dir + "/f.json");
    EXPECT_NE(json.find("leaf0-spine0"), std::string::npos) << json;
    EXPECT_NE(json.find("leaf1-spine1"), std::string::npos) << json;
    ExpectRefused("ai-fabric-fattree", "'--minBytes=1 M'", "", "--minBytes=1 M");
}

// --cc=NAME and its aliases: unknown names, an algorithm of the other fabric and a
// contradicting alias are refused; --cc=none and --cc=ibcc run exactly as --dcqcn=false and
// --ibcc do.
TEST(CliHardeningTest, CongestionControlByName)
{
    for (const std::string program : {"ai-fabric-fattree", "ai-fabric-torus", "ai-fabric-incast"})
    {
        ExpectRefused(program, "--cc=bogus", "", "--cc=bogus: expected dcqcn, ibcc, none or");
        ExpectRefused(program, "--cc=ns3::Node", "", "--cc=ns3::Node: expected");
        ExpectRefused(program, "--cc=ibcc", "", "--cc=ibcc: runs on --fabric=ib only");
        ExpectRefused(program, "--cc=none --dcqcn=true", "", "--dcqcn=true contradicts --cc=none");
        ExpectRefused(
            program, "--fabric=ib --cc=dcqcn", "", "--cc=dcqcn: runs on --fabric=roce only");
    }
    ExpectRefused("ai-fabric-fattree", "--fabric=ib --cc=none --ibcc=true", "", "contradicts");
    const std::string small = ProgramPath("ai-fabric-fattree")
                              + " --server=none --servers=8 --radix=4 --maxBytes=2M --quiet";
    const std::string dir = TempDir();
    const CommandResult none = RunCommand(small + " --cc=none --json=" + dir + "/none.json");
    const CommandResult off = RunCommand(small + " --dcqcn=false --json=" + dir + "/off.json");
    ASSERT_EQ(none.status, 0) << none.err;
    EXPECT_EQ(none.out, off.out);
    auto slurp = [](const std::string& path)
    {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string noneJson = slurp(dir + "/none.json");
    EXPECT_NE(noneJson.find("\"dcqcn\": false"), std::string::npos) << noneJson;
    // The dcqcn key tells it all (scenario.flags has the flag as given).
    EXPECT_FALSE(nlohmann::json::parse(noneJson)["scenario"].contains("cc")) << noneJson;
    const CommandResult ibcc = RunCommand(small + " --fabric=ib --cc=ibcc");
    const CommandResult alias = RunCommand(small + " --fabric=ib --ibcc");
    ASSERT_EQ(ibcc.status, 0) << ibcc.err;
    EXPECT_EQ(ibcc.out, alias.out);
    const CommandResult byType = RunCommand(ProgramPath("ai-fabric-incast")
                                            + " --senders=4 --bytes=1M --cc=ns3::RdmaCcNone");
    const CommandResult noDcqcn
        = RunCommand(ProgramPath("ai-fabric-incast") + " --senders=4 --bytes=1M --dcqcn=false");
    ASSERT_EQ(byType.status, 0) << byType.err;
    EXPECT_EQ(byType.out, noDcqcn.out);
}
