/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricOutputFile, which writes every --json and --trace file (a unique temporary beside
// the target, renamed over it, never through a link), and the programs' output files: a bad
// target is one line and exit status 2 before anything runs, and nothing is left behind.

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

// FabricOutputFile in the test process.

TEST(FabricOutputFileTest, CommitRenamesAUniqueTemporaryOverTheTarget)
{
    const std::string dir = TempDir();
    const std::string target = dir + "/out.json";
    FabricOutputFile a;
    FabricOutputFile b;
    std::string error;
    ASSERT_TRUE(a.Open(target, error)) << error;
    ASSERT_TRUE(b.Open(target, error)) << error; // a second run writing the same file
    const std::set<std::string> temporaries = ListDir(dir);
    EXPECT_EQ(temporaries.size(), 2U); // two temporaries, neither the target
    EXPECT_EQ(temporaries.count("out.json"), 0U);
    EXPECT_EQ(temporaries.count("out.json.tmp"), 0U);
    a.Stream() << "first\n";
    b.Stream() << "second\n";
    ASSERT_TRUE(a.Commit(error)) << error;
    EXPECT_EQ(ReadFile(target), "first\n");
    ASSERT_TRUE(b.Commit(error)) << error;
    EXPECT_EQ(ReadFile(target), "second\n"); // whole files, one after the other
    EXPECT_EQ(ListDir(dir), std::set<std::string>{"out.json"});
    // The permissions of any other output file, not mkstemp's 0600.
    const mode_t mask = umask(0);
    umask(mask);
    struct stat st;
    ASSERT_EQ(stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(FabricOutputFileTest, NeverFollowsALink)
{
    const std::string dir = TempDir();
    const std::string victim = dir + "/victim";
    WriteText(victim, "precious\n");
    // Links planted at the old temporary names and at the target itself.
    ASSERT_EQ(symlink(victim.c_str(), (dir + "/out.json.tmp").c_str()), 0);
    ASSERT_EQ(symlink(victim.c_str(), (dir + "/out.json").c_str()), 0);
    ASSERT_EQ(symlink(victim.c_str(), (dir + "/pcap-probe.tmp").c_str()), 0);
    FabricOutputFile f;
    std::string error;
    ASSERT_TRUE(f.Open(dir + "/out.json", error)) << error;
    f.Stream() << "new\n";
    ASSERT_TRUE(f.Commit(error)) << error;
    EXPECT_TRUE(FabricOutputFile::IsWritablePrefix(dir + "/pcap"));
    EXPECT_TRUE(FabricCli::IsWritablePrefix(dir + "/pcap"));
    EXPECT_EQ(ReadFile(victim), "precious\n");
    struct stat st;
    ASSERT_EQ(lstat((dir + "/out.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)); // the link was replaced, its target left alone
    EXPECT_EQ(ReadFile(dir + "/out.json"), "new\n");
    EXPECT_EQ(ListDir(dir),
              (std::set<std::string>{"victim", "out.json", "out.json.tmp", "pcap-probe.tmp"}));
}

TEST(FabricOutputFileTest, RefusesDirectoriesAndMissingDirectories)
{
    const std::string dir = TempDir();
    FabricOutputFile f;
    std::string error;
    EXPECT_FALSE(f.Open(dir, error));
    EXPECT_EQ(error, "is a directory");
    EXPECT_FALSE(f.Open(dir + "/", error));
    EXPECT_FALSE(f.Open(dir + "/missing/out.json", error));
    EXPECT_EQ(error, "the directory " + dir + "/missing does not exist");
    EXPECT_FALSE(f.Open("", error));
    EXPECT_FALSE(f.Open("/dev/null", error));
    EXPECT_FALSE(f.IsOpen());
    EXPECT_FALSE(FabricOutputFile::IsWritablePrefix(dir + "/missing/pcap"));
    EXPECT_EQ(ListDir(dir), std::set<std::string>());
}

TEST(FabricOutputFileTest, DiscardAndDestructorRemoveTheTemporary)
{
    const std::string dir = TempDir();
    std::string error;
    {
        FabricOutputFile f;
        ASSERT_TRUE(f.Open(dir + "/a.json", error));
        EXPECT_EQ(ListDir(dir).size(), 1U);
        f.Discard();
        EXPECT_EQ(ListDir(dir), std::set<std::string>());
        ASSERT_TRUE(f.Open(dir + "/b.json", error));
    }
    EXPECT_EQ(ListDir(dir), std::set<std::string>());
}

TEST(FabricOutputFileDeathTest, FailAndSignalsRemoveTheTemporary)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::string dir = TempDir();
    EXPECT_EXIT(
        {
            FabricOutputFile f;
            std::string error;
            f.Open(dir + "/out.json", error);
            FabricCli::Fail("prog", "bad input");
        },
        ::testing::ExitedWithCode(2),
        "^prog: bad input\n$");
    EXPECT_EQ(ListDir(dir), std::set<std::string>());
    EXPECT_EXIT(
        {
            FabricOutputFile f;
            std::string error;
            f.Open(dir + "/out.json", error);
            std::raise(SIGTERM);
        },
        ::testing::KilledBySignal(SIGTERM),
        "");
    EXPECT_EQ(ListDir(dir), std::set<std::string>());
}

// The programs' --json.

TEST(OutputFileProgramTest, JsonDirectoryOrMissingDirectoryIsRefusedBeforeRunning)
{
    for (const Program& p : PROGRAMS)
    {
        if (!p.json)
        {
            continue;
        }
        const std::string dir = TempDir();
        mkdir((dir + "/out").c_str(), 0755);
        ExpectRefused(p.name, "--json=" + dir + "/out", dir, "is a directory");
        ExpectRefused(p.name, "--json=" + dir + "/missing/out.json", dir, "does not exist");
        EXPECT_EQ(ListDir(dir + "/out"), std::set<std::string>());
    }
}

TEST(OutputFileProgramTest, JsonThroughAPlantedLinkLeavesItsTargetAlone)
{
    const std::string dir = TempDir();
    const std::string victim = dir + "/victim";
    WriteText(victim, "precious\n");
    ASSERT_EQ(symlink(victim.c_str(), (dir + "/run.json.tmp").c_str()), 0);
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-pfc-pause")
                                       + " --quanta=10 --json=" + dir + "/run.json");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ReadFile(victim), "precious\n");
    EXPECT_NE(ReadFile(dir + "/run.json").find("\"quanta\": 10"), std::string::npos);
    EXPECT_EQ(ListDir(dir), (std::set<std::string>{"victim", "run.json", "run.json.tmp"}));
}

TEST(OutputFileProgramTest, TraceAndJsonOfTheCongestionExamples)
{
    const std::string dir = TempDir();
    const CommandResult r
        = RunCommand(ProgramPath("ai-fabric-incast") + " --senders=2 --bytes=64K --json=" + dir
                     + "/run.json --trace=" + dir + "/series");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ListDir(dir), (std::set<std::string>{"run.json", "series.csv"}));
    EXPECT_EQ(ReadFile(dir + "/series.csv").rfind("time_us", 0), 0U);
    mkdir((dir + "/d.csv").c_str(), 0755);
    ExpectRefused("ai-fabric-incast", "--trace=" + dir + "/d", dir, "is a directory");
    ExpectRefused("ai-fabric-incast", "--trace=" + dir + "/missing/x", dir, "does not exist");
}
