/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// ai-fabric-train: a workload file on a fat-tree. A collective after compute takes the compute
// plus the collective's time in ai-fabric-fattree, to the picosecond; the shipped example runs
// and is deterministic; the timeline is a Chrome trace; bad workloads and flags get one line
// and exit status 2, with nothing written.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/workload-file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace
{

class TrainProgramTest : public AiFabricTest
{
};

/**
 * \param path a file
 * \param text its contents
 */
void
Write(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

/**
 * \param path a file
 * \return true if it exists
 */
bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/**
 * \param args the program's flags (--quiet added)
 * \return its result
 */
CommandResult
Train(const std::string& args)
{
    return RunCommand(ProgramPath("ai-fabric-train") + " --quiet " + args);
}

} // namespace

// 1 ms of compute, then a 16 MiB ring all-reduce of every rank: the step is 1 ms plus the
// all-reduce's time in ai-fabric-fattree's sweep, exactly; the breakdown says so.
TEST_F(TrainProgramTest, ACollectiveAfterComputeIsTheSweepsTime)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    Write(dir + "/w.json",
          R"({"ranks": 16, "default": [
               {"name": "fwd", "compute_us": 1000},
               {"name": "ar", "collective": "allreduce", "bytes": 16777216, "deps": ["fwd"]}]})");
    const std::string fabric = " --servers=2 --radix=8 --algo=ring --protocol=simple";
    const CommandResult r = Train("--workload=" + dir + "/w.json" + fabric + " --json=" + dir
                                  + "/out.json --timeline=" + dir + "/tl.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const CommandResult sweep = RunCommand(
        ProgramPath("ai-fabric-fattree") + " --quiet" + fabric
        + " --minBytes=16M --maxBytes=16M --iters=1 --warmup=0 --json=" + dir + "/sweep.json");
    ASSERT_EQ(sweep.status, 0) << sweep.err;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir + "/sweep.json"));
    const double allreduce = s["results"][0]["time_us"].get<double>();
    EXPECT_NEAR(j["workload"]["step_us"].get<double>(), 1000 + allreduce, 1e-6);
    EXPECT_TRUE(j["workload"]["finished"].get<bool>());
    for (const auto& rank : j["workload"]["per_rank"])
    {
        EXPECT_NEAR(rank["compute_us"].get<double>(), 1000, 1e-6);
        EXPECT_NEAR(rank["exposed_us"]["allreduce"].get<double>() + rank["compute_us"].get<double>()
                        + rank["idle_us"].get<double>(),
                    rank["end_us"].get<double>(),
                    1e-6);
    }
    EXPECT_EQ(j["scenario"]["program"], "ai-fabric-train");
    EXPECT_EQ(j["scenario"]["workload"], dir + "/w.json");
    // The timeline: a process per rank, a thread per stream, an event per operation.
    const nlohmann::json tl = nlohmann::json::parse(ReadFile(dir + "/tl.json"));
    uint32_t processes = 0;
    uint32_t ops = 0;
    for (const auto& e : tl["traceEvents"])
    {
        processes += e["name"] == "process_name" ? 1 : 0;
        if (e["ph"] == "X")
        {
            ++ops;
            EXPECT_GE(e["dur"].get<double>(), 0);
        }
    }
    EXPECT_EQ(processes, 16u);
    EXPECT_EQ(ops, 32u);
    for (const char* f : {"/w.json", "/out.json", "/sweep.json", "/tl.json"})
    {
        std::remove((dir + f).c_str());
    }
    rmdir(dir.c_str());
}

// The shipped example: tensor-parallel all-reduces inside servers, data-parallel gradients
// across them overlapping the backward pass; the same output twice, on both engines within
// 0.1%.
TEST_F(TrainProgramTest, TheExampleRunsAndIsDeterministic)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string file = std::string(AI_FABRIC_SOURCE_DIR)
                             + "/contrib/ai-fabric/examples/workloads/dp-overlap.json";
    const CommandResult a = Train("--workload=" + file + " --servers=2 --mode=flow");
    const CommandResult b = Train("--workload=" + file + " --servers=2 --mode=flow");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("# step time: "), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("exposed allreduce"), std::string::npos) << a.out;
    // Each backward pass is 2e13 FLOPs at an H100's measured 794.5 TFLOP/s (25.17 ms): the
    // last gradients' all-reduce cannot hide, the first's does.
    Workload w;
    std::string error;
    ASSERT_TRUE(WorkloadFile::Read(file, w, error)) << error;
    EXPECT_EQ(w.nRanks, 16u);
    EXPECT_EQ(w.groups.size(), 11u); // every rank's, 2 tensor- and 8 data-parallel groups
    EXPECT_NEAR(w.ops[0][0].duration.GetSeconds(), 2e13 / (989.4e12 * 0.803), 1e-9);
}

// Bad input: one line on stderr, exit status 2, no output file left.
TEST_F(TrainProgramTest, BadWorkloadsAndFlags)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    const std::string json = dir + "/out.json";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "give one of --workload=FILE (a workload file), --model=NAME"},
        {R"({"ranks": 8, "default": []})", "a workload of 8 ranks on 16 GPUs"},
        {R"({"ranks": 16, "default": [{"compute_us": -1}]})", "\"compute_us\" must be a number"},
        {R"({"ranks": 16, "default": [{"name": "a", "compute_us": 1, "deps": ["b"]}]})",
         "\"deps\" names \"b\", not an operation before it"},
        {R"({"ranks": 16, "default": [{"collective": "allreduce", "comm": "tp", "bytes": 8}]})",
         "no communicator kind \"tp\""},
        {R"({"ranks": 16, "colour": 1, "default": []})", "unknown key \"colour\""},
        {R"({"ranks": 16, "default": [], "rank_ops": {"0": [{"send": 1, "bytes": 8}]}})",
         "rank 0's sends to rank 1 do not match its receives from it"},
        {R"({"ranks": 16, "gpu": "a100", "default": [{"flops": 1e9, "dtype": "fp8"}]})",
         "the a100 does not compute in fp8"},
        {R"({"ranks": 16, "communicators": {"tp": [[0, 1], [1, 2]]}, "default": []})",
         "rank 1 is in two groups of \"tp\""},
        {"not json", "is not JSON"},
        {R"({"ranks": 16, "default": [{"name": 5, "compute_us": 1}]})",
         "\"name\" must be a non-empty string"},
        {R"({"ranks": 16, "default": [], "rank_ops": {"03": []}})",
         "\"rank_ops\": \"03\" must be a rank"},
        {R"({"ranks": 16, "default": [{"compute_us": 1e13}]})", "more than a simulation holds"},
        {R"({"ranks": 16, "communicators": {"tp": [[0, 1, 2, 3, 4, 5, 6, 7],
                                                     [8, 9, 10, 11, 12, 13, 14, 15]]},
             "default": [{"collective": "allreduce", "comm": "tp", "bytes": 1024, "algo": "nvls"}]})",
         "nvls runs on every rank's communicator only"},
        {R"({"ranks": 16, "default": [],
             "rank_ops": {"0": [{"name": "r", "recv": 1, "bytes": 8},
                                {"send": 1, "bytes": 8, "deps": ["r"]}],
                          "1": [{"name": "r", "recv": 0, "bytes": 8},
                                {"send": 0, "bytes": 8, "deps": ["r"]}]}})",
         "the workload cannot finish: rank 0 operation 'r' waits forever"},
    };
    for (const auto& [text, says] : cases)
    {
        std::string args = "--servers=2 --json=" + json;
        if (!text.empty())
        {
            Write(dir + "/w.json", text);
            args += " --workload=" + dir + "/w.json";
        }
        const CommandResult r = Train(args);
        EXPECT_EQ(r.status, 2) << text;
        EXPECT_NE(r.err.find(says), std::string::npos) << text << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(Exists(json)) << text;
    }
    const CommandResult missing = Train("--servers=2 --workload=" + dir + "/none.json");
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
    Write(dir + "/w.json", R"({"ranks": 16, "default": [{"compute_us": 1}]})");
    const CommandResult timeline
        = Train("--servers=2 --workload=" + dir + "/w.json --timeline=/nonexistent/tl.json");
    EXPECT_EQ(timeline.status, 2);
    EXPECT_NE(timeline.err.find("--timeline=/nonexistent/tl.json"), std::string::npos)
        << timeline.err;
    // The sweep's flags are not the workload program's.
    const CommandResult sweepFlag
        = Train("--servers=2 --workload=" + dir + "/w.json --minBytes=1M");
    EXPECT_EQ(sweepFlag.status, 2);
    std::remove((dir + "/w.json").c_str());
    rmdir(dir.c_str());
}

// --model generates one training step: Llama 3 8B with TP 8 on one DGX H100. Its JSON says
// the model, its parallelism and the MFU, the FLOPs per step over the step's time at the GPUs'
// peak; bad models and parallelism get one line.
TEST_F(TrainProgramTest, ModelSteps)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    const CommandResult r
        = Train("--model=llama3-8b --servers=1 --tp=8 --mode=flow --json=" + dir + "/out.json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# model llama3-8b: tp 8, pp 1, dp 1"), std::string::npos) << r.out;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    const nlohmann::json& model = j["workload"]["model"];
    EXPECT_EQ(model["tp"], 8);
    EXPECT_EQ(model["gpu"], "h100");
    const double step = j["workload"]["step_us"].get<double>() * 1e-6;
    EXPECT_NEAR(model["mfu"].get<double>(),
                model["step_flops"].get<double>() / (step * 8 * 989.4e12),
                1e-9);
    // Compute alone cannot beat the measured GEMM efficiency.
    EXPECT_LT(model["mfu"].get<double>(), 0.803);
    EXPECT_GT(model["mfu"].get<double>(), 0.2);
    std::remove((dir + "/out.json").c_str());
    // A mixture of experts: Mixtral's 8 experts over the server's 8 GPUs.
    const CommandResult moe = Train(
        "--model=mixtral-8x7b --servers=1 --ep=8 --seqLength=1024 "
        "--dispatcher=deepep --mode=flow --json="
        + dir + "/out.json");
    ASSERT_EQ(moe.status, 0) << moe.err;
    const nlohmann::json mj = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    EXPECT_EQ(mj["workload"]["model"]["ep"], 8);
    EXPECT_EQ(mj["workload"]["model"]["dispatcher"], "deepep");
    std::map<std::string, double> perRank;
    for (const auto& k : mj["workload"]["kinds"])
    {
        perRank[k["kind"].get<std::string>()] = k["ops_per_rank"].get<double>();
    }
    EXPECT_EQ(perRank["dispatch"], 32 * 2); // every layer, forward and backward
    EXPECT_EQ(perRank["combine"], 32 * 2);
    std::remove((dir + "/out.json").c_str());
    // With TP 2 and sequence parallelism (EP 4 inside DP 4): per layer, attention gathers and
    // scatters forward, gathers twice and scatters backward; the experts gather and scatter
    // their pairs both ways; the embedding scatters forward and gathers backward, the output
    // layer gathers forward, gathers again and scatters backward.
    const CommandResult tp = Train(
        "--model=mixtral-8x7b --servers=1 --tp=2 --ep=4 "
        "--sequenceParallel --seqLength=1024 --mode=flow --json="
        + dir + "/out.json");
    ASSERT_EQ(tp.status, 0) << tp.err;
    EXPECT_NE(tp.out.find("# model mixtral-8x7b: tp 2 (sequence parallel), pp 1, dp 4, ep 4"),
              std::string::npos)
        << tp.out;
    const nlohmann::json tj = nlohmann::json::parse(ReadFile(dir + "/out.json"));
    EXPECT_EQ(tj["workload"]["model"]["sequence_parallel"], true);
    perRank.clear();
    for (const auto& k : tj["workload"]["kinds"])
    {
        perRank[k["kind"].get<std::string>()] = k["ops_per_rank"].get<double>();
    }
    EXPECT_EQ(perRank["allgather"], 32 * (2 + 3) + 3);
    EXPECT_EQ(perRank["reducescatter"], 32 * (2 + 2) + 2);
    EXPECT_EQ(perRank["dispatch"], 32 * 2);
    EXPECT_EQ(perRank.count("allreduce"), 1u); // the gradients' over DP and expert DP
    // The same operations by communicator: TP's gathers and scatters with the replicated
    // weights' all-reduce, EP's dispatches and combines, DP's gradient all-reduces (DP and EP
    // have the same ranks here, and are two communicators). EP's exposed time is the
    // dispatches' and combines', on every rank and in the totals.
    std::map<std::string, double> byCommunicator;
    double epExposed = 0;
    for (const auto& c : tj["workload"]["communicators"])
    {
        byCommunicator[c["communicator"].get<std::string>()] = c["ops_per_rank"].get<double>();
        if (c["communicator"] == "ep")
        {
            epExposed = c["exposed_us_per_rank"].get<double>();
        }
    }
    EXPECT_EQ(
        byCommunicator,
        (std::map<std::string, double>{{"tp", perRank["allgather"] + perRank["reducescatter"] + 1},
                                       {"ep", perRank["dispatch"] + perRank["combine"]},
                                       {"dp", perRank["allreduce"] - 1}}));
    double moeExposed = 0;
    for (const auto& k : tj["workload"]["kinds"])
    {
        if (k["kind"] == "dispatch" || k["kind"] == "combine")
        {
            moeExposed += k["exposed_us_per_rank"].get<double>();
        }
    }
    EXPECT_GT(moeExposed, 0);
    EXPECT_NEAR(epExposed, moeExposed, 1e-9 * moeExposed);
    for (const auto& rank : tj["workload"]["per_rank"])
    {
        const auto& kinds = rank["exposed_us"];
        EXPECT_NEAR(rank["exposed_us_by_communicator"]["ep"].get<double>(),
                    kinds["dispatch"].get<double>() + kinds["combine"].get<double>(),
                    1e-9 * kinds["dispatch"].get<double>())
            << rank["rank"];
    }
    EXPECT_NE(tp.out.find("# communicator   ops/rank"), std::string::npos) << tp.out;
    std::remove((dir + "/out.json").c_str());
    rmdir(dir.c_str());
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"--model=gpt5", "--model=gpt5: expected gpt3-175b, llama3-8b"},
             {"--model=llama3-8b --tp=3", "tp x pp x cp = 3 does not divide the 8 GPUs"},
             {"--model=mixtral-8x7b --tp=2", "at tp > 1 it needs sequence parallelism"},
             {"--model=llama3-8b --tp=8 --sequenceParallel --seqLength=1001",
              "tp = 8 does not divide 1001 tokens"},
             {"--model=llama3-8b --cp=3", "tp x pp x cp = 3 does not divide the 8 GPUs"},
             {"--model=llama3-8b --recompute=some", "--recompute=some: expected none, selective"},
             {"--model=llama3-8b --zero=2", "--zero=2: expected 0, 1 or 3"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --mtpLayers=1",
              "--mtpLayers=1: multi-token prediction is generated in training steps only"},
             {"--model=llama3-8b --gradReduce=fp16", "--gradReduce=fp16: expected fp32 or bf16"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --zero=3",
              "--zero=3 trains; --serve=1x1 serves"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --recompute=full",
              "--recompute=full trains; --serve=1x1 serves"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --sequenceParallel",
              "--sequenceParallel trains; --serve=1x1 serves"},
             {"--model=llama3-8b --cp=2 --seqLength=1001", "1001 tokens do not split into 4"},
             {"--model=llama3-8b --pp=2 --firstStageLayers=40",
              "the 32 layers of llama3-8b less 40 on the first and last stages do not split"},
             {"--model=mixtral-8x7b --ep=8 --dispatcher=ring", "--dispatcher=ring: expected"},
             {"--model=llama3-8b --ep=2", "ep = 2 needs a mixture of experts"},
             {"--model=llama3-8b --dtype=int4", "--dtype=int4: expected"},
             {"--model=llama3-8b --workload=x.json", "give one of --workload=FILE"}})
    {
        const CommandResult bad = Train("--servers=1 " + args);
        EXPECT_EQ(bad.status, 2) << args;
        EXPECT_NE(bad.err.find(says), std::string::npos) << args << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
}
