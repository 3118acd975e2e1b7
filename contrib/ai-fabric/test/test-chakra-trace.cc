/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Chakra execution traces: traces the test writes (protobuf's wire format by hand) run as
// their workload, to the picosecond of the same collective in ai-fabric-fattree; the real trace
// in ../shared/data/chakra reads with its nodes and durations (skipped where it is absent);
// broken traces get one line and exit status 2.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/chakra-trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace
{

class ChakraTraceTest : public AiFabricTest
{
};

/// Protobuf's wire format, as much as a trace needs.
struct Proto
{
    std::string bytes; //!< what was written

    /// \param v a varint
    void Varint(uint64_t v)
    {
        while (v >= 0x80)
        {
            bytes.push_back(static_cast<char>((v & 0x7F) | 0x80));
            v >>= 7;
        }
        bytes.push_back(static_cast<char>(v));
    }

    /**
     * \param field a field number
     * \param v its varint value
     */
    void Number(uint32_t field, uint64_t v)
    {
        Varint(static_cast<uint64_t>(field) << 3);
        Varint(v);
    }

    /**
     * \param field a field number
     * \param text its length-delimited value
     */
    void Text(uint32_t field, const std::string& text)
    {
        Varint((static_cast<uint64_t>(field) << 3) | 2);
        Varint(text.size());
        bytes += text;
    }
};

/**
 * \param name an attribute's name
 * \param v its int64 value
 * \return the AttributeProto
 */
std::string
IntAttr(const std::string& name, int64_t v)
{
    Proto p;
    p.Text(1, name);
    p.Number(9, static_cast<uint64_t>(v));
    return p.bytes;
}

/**
 * \param name an attribute's name
 * \param v its string value
 * \return the AttributeProto
 */
std::string
StrAttr(const std::string& name, const std::string& v)
{
    Proto p;
    p.Text(1, name);
    p.Text(29, v);
    return p.bytes;
}

/**
 * \param id the node's id
 * \param type its NodeType
 * \param deps its data dependencies
 * \param micros its duration
 * \param attrs its attributes (AttributeProto bytes)
 * \return the Node
 */
std::string
Node(uint64_t id,
     uint32_t type,
     const std::vector<uint64_t>& deps,
     uint64_t micros,
     const std::vector<std::string>& attrs)
{
    Proto p;
    p.Number(1, id);
    p.Text(2, "n" + std::to_string(id));
    p.Number(3, type);
    for (uint64_t d : deps)
    {
        p.Number(5, d);
    }
    p.Number(7, micros);
    for (const std::string& a : attrs)
    {
        p.Text(10, a);
    }
    return p.bytes;
}

/**
 * \param path the file
 * \param nodes its nodes, after a GlobalMetadata of version 1.0.1
 */
void
WriteTrace(const std::string& path, const std::vector<std::string>& nodes)
{
    Proto file;
    Proto meta;
    meta.Text(1, "1.0.1");
    file.Varint(meta.bytes.size());
    file.bytes += meta.bytes;
    for (const std::string& n : nodes)
    {
        file.Varint(n.size());
        file.bytes += n;
    }
    std::ofstream(path, std::ios::binary) << file.bytes;
}

} // namespace

// Two ranks: 100 us of compute, a 1 MiB all-reduce after it, 50 us after that (the last node
// listed first; its dependencies on a node the trace does not hold and on itself are dropped).
// The step is 150 us plus the all-reduce's time in ai-fabric-fattree's sweep on the same fabric,
// exactly.
TEST_F(ChakraTraceTest, OwnTracesRunAsTheirWorkload)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    for (uint32_t r = 0; r < 2; ++r)
    {
        WriteTrace(dir + "/t." + std::to_string(r) + ".et",
                   {Node(7, ChakraTrace::COMP_NODE, {3, 99, 7}, 50, {}),
                    Node(1, ChakraTrace::COMP_NODE, {}, 100, {IntAttr("is_cpu_op", 0)}),
                    Node(2, ChakraTrace::COMP_NODE, {}, 999, {IntAttr("is_cpu_op", 1)}),
                    Node(3,
                         ChakraTrace::COMM_COLL_NODE,
                         {1, 2},
                         0,
                         {IntAttr("comm_type", 0), IntAttr("comm_size", 1 << 20)})});
    }
    Workload w;
    std::string error;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    ASSERT_TRUE(ChakraTrace::Read(dir + "/t", 2, *gpu, w, error)) << error;
    ASSERT_EQ(w.ops[0].size(), 4u);
    EXPECT_EQ(w.ops[0][0].name, "n1");        // dependency order, by id where free
    EXPECT_EQ(w.ops[0][1].duration, Time(0)); // the host's operation takes no time
    EXPECT_EQ(w.ops[0][2].kind, WorkloadOpKind::COLLECTIVE);
    EXPECT_EQ(w.ops[0][2].bytes, 1u << 20);
    EXPECT_EQ(w.ops[0][3].duration, MicroSeconds(50));

    const std::string fabric = " --server=none --servers=2 --radix=8 --algo=ring --protocol=simple";
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-train") + " --quiet --trace=" + dir
                                       + "/t" + fabric + " --json=" + dir + "/out.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const CommandResult sweep = RunCommand(
        ProgramPath("ai-fabric-fattree") + " --quiet" + fabric
        + " --minBytes=1M --maxBytes=1M --iters=1 --warmup=0 --json=" + dir + "/s.json");
    ASSERT_EQ(sweep.status, 0) << sweep.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/s.json"));
    EXPECT_NEAR(j["workload"]["step_us"].get<double>(),
                150 + s["results"][0]["time_us"].get<double>(),
                1e-6);
    EXPECT_EQ(j["scenario"]["trace"], dir + "/t");

    // Broken traces: one line, exit status 2.
    for (const auto& [nodes, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{Node(1, ChakraTrace::COMP_NODE, {}, 1, {}),
               Node(1, ChakraTrace::COMP_NODE, {}, 1, {})},
              "node 1 appears twice"},
             {{Node(1,
                    ChakraTrace::COMM_COLL_NODE,
                    {},
                    1,
                    {IntAttr("comm_type", 1), IntAttr("comm_size", 8)})},
              "collective type 1 (reduce, gather or scatter) is not modelled"},
             {{Node(1, ChakraTrace::COMM_SEND_NODE, {}, 1, {IntAttr("comm_size", 8)})},
              "a send needs comm_dst and comm_size"}})
    {
        for (uint32_t rank = 0; rank < 2; ++rank)
        {
            WriteTrace(dir + "/b." + std::to_string(rank) + ".et", nodes);
        }
        const CommandResult bad = RunCommand(ProgramPath("ai-fabric-train")
                                             + " --quiet --trace=" + dir + "/b" + fabric);
        EXPECT_EQ(bad.status, 2) << says;
        EXPECT_NE(bad.err.find(says), std::string::npos) << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
    std::ofstream(dir + "/c.0.et", std::ios::binary) << std::string("\x05\x0a\x01", 3);
    std::ofstream(dir + "/c.1.et", std::ios::binary) << std::string("\x05\x0a\x01", 3);
    const CommandResult cut
        = RunCommand(ProgramPath("ai-fabric-train") + " --quiet --trace=" + dir + "/c" + fabric);
    EXPECT_EQ(cut.status, 2);
    EXPECT_NE(cut.err.find("a message runs past the end of the file"), std::string::npos)
        << cut.err;
    const CommandResult none
        = RunCommand(ProgramPath("ai-fabric-train") + " --quiet --trace=" + dir + "/none" + fabric);
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("cannot read"), std::string::npos) << none.err;
    RunCommand("rm -rf " + dir);
}

// Process groups: four ranks, pg "1" = ranks 0 and 1 and pg "2" = ranks 2 and 3 (a
// --commGroups file in ASTRA-sim's format), each pair running 100 us of compute and then a
// 1 MiB all-reduce of its own pg on four one-GPU servers under one leaf (disjoint paths): the
// step is 100 us plus a two-GPU all-reduce's time in ai-fabric-fattree's sweep on two such
// servers, exactly; a pg_name of "0" is every rank. Bad groups: one line, exit status 2.
TEST_F(ChakraTraceTest, ProcessGroupsRunOnTheirRanks)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    auto write = [&dir](const std::string& name, const std::string& pgOf)
    {
        for (uint32_t r = 0; r < 4; ++r)
        {
            const std::string pg = pgOf.empty() ? (r < 2 ? "1" : "2") : pgOf;
            WriteTrace(dir + "/" + name + "." + std::to_string(r) + ".et",
                       {Node(1, ChakraTrace::COMP_NODE, {}, 100, {}),
                        Node(2,
                             ChakraTrace::COMM_COLL_NODE,
                             {1},
                             0,
                             {IntAttr("comm_type", 0),
                              IntAttr("comm_size", 1 << 20),
                              StrAttr("pg_name", pg)})});
        }
    };
    write("p", "");
    std::ofstream(dir + "/groups.json") << R"({"1": [0, 1], "2": [2, 3]})";
    ChakraTrace::Groups groups;
    std::string error;
    ASSERT_TRUE(ChakraTrace::ReadCommGroups(dir + "/groups.json", 4, groups, error)) << error;
    Workload w;
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    ASSERT_TRUE(ChakraTrace::Read(dir + "/p", 4, *gpu, groups, w, error)) << error;
    ASSERT_EQ(w.groups.size(), 3u);
    EXPECT_EQ(w.groups[1], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(w.groupNames[2], "pg 2");
    EXPECT_EQ(w.ops[0][1].group, 1u);
    EXPECT_EQ(w.ops[3][1].group, 2u);

    const std::string fabric = " --server=none --radix=8 --algo=ring --protocol=simple";
    const CommandResult r = RunCommand(
        ProgramPath("ai-fabric-train") + " --quiet --servers=4 --trace=" + dir + "/p"
        + " --commGroups=" + dir + "/groups.json" + fabric + " --json=" + dir + "/out.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const CommandResult sweep = RunCommand(
        ProgramPath("ai-fabric-fattree") + " --quiet --servers=2" + fabric
        + " --minBytes=1M --maxBytes=1M --iters=1 --warmup=0 --json=" + dir + "/s.json");
    ASSERT_EQ(sweep.status, 0) << sweep.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/s.json"));
    EXPECT_NEAR(j["workload"]["step_us"].get<double>(),
                100 + s["results"][0]["time_us"].get<double>(),
                1e-6);
    write("w", "0"); // PyTorch's default group: every rank, no file needed
    EXPECT_EQ(RunCommand(ProgramPath("ai-fabric-train") + " --quiet --servers=4 --trace=" + dir
                         + "/w" + fabric)
                  .status,
              0);

    write("x", "7");
    std::ofstream(dir + "/far.json") << R"({"1": [0, 9]})";
    std::ofstream(dir + "/zero.json") << R"({"0": [0, 1]})";
    std::ofstream(dir + "/twice.json") << R"({"1": [1, 1]})";
    std::ofstream(dir + "/list.json") << R"([[0, 1]])";
    std::ofstream(dir + "/short.json") << R"({"1": [0], "2": [2, 3]})";
    const std::string base = ProgramPath("ai-fabric-train") + " --quiet --servers=4" + fabric;
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {" --trace=" + dir + "/p",
              "process group \"1\" (pg_name) is not one of the "
              "communicator groups: give --commGroups=FILE"},
             {" --trace=" + dir + "/x --commGroups=" + dir + "/groups.json",
              "process group \"7\" (pg_name) is not one of 2 communicator groups"},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/far.json",
              "group \"1\": 9 is not a rank of the 4"},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/zero.json",
              "group \"0\" is every rank"},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/twice.json",
              "group \"1\" names rank 1 twice"},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/list.json",
              "expected a JSON object of group names to ranks"},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/short.json",
              "rank 1 is not in its process group \"1\""},
             {" --trace=" + dir + "/p --commGroups=" + dir + "/none.json", "cannot read it"},
             {" --model=llama3-8b --commGroups=" + dir + "/groups.json", "give --trace"}})
    {
        const CommandResult bad = RunCommand(base + args);
        EXPECT_EQ(bad.status, 2) << args;
        EXPECT_NE(bad.err.find(says), std::string::npos) << args << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
    RunCommand("rm -rf " + dir);
}

// The real trace of MLCommons' Chakra repository (one rank, schema 1.0.1): 3,664 nodes, of
// which 3,643 compute and 21 collective (7 with a size: the GPU's; the others the host's side
// of the call); it reads, becomes a workload of one rank, and its compute is the GPU nodes'
// durations.
TEST_F(ChakraTraceTest, TheSharedTraceReads)
{
    const std::string archive
        = std::string(AI_FABRIC_SOURCE_DIR) + "/../shared/data/chakra/feeder_tests_trace.tar.gz";
    struct stat st;
    if (stat(archive.c_str(), &st) != 0)
    {
        GTEST_SKIP() << "no " << archive;
    }
    const std::string dir = TempDir();
    ASSERT_EQ(RunCommand("tar xzf " + archive + " -C " + dir).status, 0);
    std::map<std::string, ChakraTrace::Value> metadata;
    std::vector<ChakraTrace::Node> nodes;
    std::string error;
    ASSERT_TRUE(ChakraTrace::ReadFile(dir + "/tests/data/chakra.0.et", metadata, nodes, error))
        << error;
    EXPECT_EQ(metadata.at("schema").text, "1.0.1");
    EXPECT_EQ(nodes.size(), 3664u);
    uint32_t compute = 0;
    uint32_t collectives = 0;
    uint32_t sized = 0;
    uint64_t gpuMicros = 0;
    for (const ChakraTrace::Node& n : nodes)
    {
        compute += n.type == ChakraTrace::COMP_NODE;
        collectives += n.type == ChakraTrace::COMM_COLL_NODE;
        sized += n.attrs.count("comm_size");
        const auto cpu = n.attrs.find("is_cpu_op");
        if (n.type == ChakraTrace::COMP_NODE && (cpu == n.attrs.end() || cpu->second.bits == 0))
        {
            gpuMicros += n.durationMicros;
        }
    }
    EXPECT_EQ(compute, 3643u);
    EXPECT_EQ(collectives, 21u);
    EXPECT_EQ(sized, 7u);
    Workload w;
    w.nRanks = 1;
    w.ops.resize(1);
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    uint64_t dropped = 0;
    ASSERT_TRUE(ChakraTrace::ToOps(nodes, 0, 1, *gpu, w.ops[0], error, dropped)) << error;
    EXPECT_GE(dropped, 383u); // its self-dependencies at least
    EXPECT_TRUE(w.Check(error)) << error;
    Time total;
    for (const WorkloadOp& op : w.ops[0])
    {
        total += op.kind == WorkloadOpKind::COMPUTE ? op.duration : Time(0);
    }
    EXPECT_EQ(total, MicroSeconds(static_cast<int64_t>(gpuMicros)));
    RunCommand("rm -rf " + dir);
}
