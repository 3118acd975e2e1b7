/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// ai-fabric-train --serve: disaggregated serving. Requests that arrive at once queue at the
// prefill instance (the k-th waits k prompts); every decode step gives each running request one
// token (exact token accounting); a request's cache is the model's keys and values of its
// prompt; a decode step reads the weights (a batch of one is the weights' HBM time, plus its
// cache); the cache crosses the network no faster than a NIC; both engines agree; runs repeat
// exactly; bad flags get one line and exit status 2.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/transformer-model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <unistd.h>

using namespace ns3;

namespace
{

class ServingTest : public AiFabricTest
{
};

/**
 * \param args ai-fabric-train's flags (--quiet added)
 * \return the JSON's "serving" object
 */
nlohmann::json
Serve(const std::string& args)
{
    const std::string dir = TempDir();
    const CommandResult r = RunCommand(ProgramPath("ai-fabric-train") + " --quiet " + args
                                       + " --json=" + dir + "/serve.json");
    EXPECT_EQ(r.status, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/serve.json"));
    std::remove((dir + "/serve.json").c_str());
    rmdir(dir.c_str());
    return j["serving"];
}

} // namespace

// Llama 3 8B, one GPU per instance (no TP all-reduce): four requests arrive within
// nanoseconds; the prefill instance runs them one after the other, so the k-th's first token
// comes after k prompts (to 1e-6); the decode steps hand out exactly 4 x 31 tokens; a cache is
// 2 (K and V) x 8 KV heads x 128 x 2 bytes x 32 layers x 1024 prompt tokens; it takes at
// least its bytes over a 400 Gb/s NIC; and a decode step of one request, in the last steps when
// it runs alone, reads the 8.03 B BF16 weights at the H100's 88.7% of 3.35 TB/s, plus a
// little (its cache, activations): within 10%.
TEST_F(ServingTest, QueuesTokensAndBytesFollowTheModel)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const nlohmann::json s = Serve(
        "--model=llama3-8b --server=dgx-h100 --servers=2 "
        "--gpusPerServer=1 --tp=1 --serve=1x1 --requests=4 --rate=1e9 "
        "--inputTokens=1024 --outputTokens=32 --mode=flow");
    ASSERT_EQ(s["done"], 4);
    const nlohmann::json& req = s["per_request"];
    const double first
        = req[0]["first_token_us"].get<double>() - req[0]["arrival_us"].get<double>();
    for (int k = 1; k < 4; ++k)
    {
        const double ttft
            = req[k]["first_token_us"].get<double>() - req[k]["arrival_us"].get<double>();
        EXPECT_NEAR(ttft / first, k + 1, 1e-6) << k;
    }
    EXPECT_EQ(s["decode_steps"].get<uint64_t>() > 0, true);
    // Every decode step gives each of its requests one token: 31 each after the first.
    EXPECT_EQ(s["decode_tokens"].get<uint64_t>(), 4u * 31);
    EXPECT_EQ(s["kv_bytes_sent_per_request"], s["kv_bytes_per_request"]);
    const uint64_t kv = 2ULL * 8 * 128 * 2 * 32 * 1024;
    EXPECT_EQ(s["kv_bytes_per_request"].get<uint64_t>(), kv);
    for (const auto& r : req)
    {
        EXPECT_GE(r["kv_arrived_us"].get<double>() - r["first_token_us"].get<double>(),
                  kv / (400e9 / 8) * 1e6);
    }
    // One request alone: after its cache arrives, 31 steps of a batch of one, each a read of
    // the weights (8.03e9 x 2 bytes at 0.887 x 3.35 TB/s) and a little more (its cache of about
    // 1,040 tokens, 134 MB, and the activations).
    const nlohmann::json one = Serve(
        "--model=llama3-8b --server=dgx-h100 --servers=2 "
        "--gpusPerServer=1 --tp=1 --serve=1x1 --requests=1 "
        "--inputTokens=1024 --outputTokens=32 --mode=flow");
    const nlohmann::json& r = one["per_request"][0];
    const double step = (r["last_token_us"].get<double>() - r["kv_arrived_us"].get<double>()) / 31;
    // Every weight but the input embedding's (a lookup reads only its tokens' rows).
    const double weights = (8.03e9 - 128256.0 * 4096) * 2 / (0.887 * 3.35e12) * 1e6;
    EXPECT_GT(step, weights);
    EXPECT_LT(step, 1.1 * weights);
    EXPECT_EQ(one["decode_steps"], 31);
}

// TP 8 instances on two DGX H100: both engines within 10% on the time to first token and per
// output token (5.4% and 0.8% here: the prompts' 8 MiB NVLink all-reduces differ most); the same
// flags give the same output (at the flow level: the packet level's determinism is the
// fattree example's test); another RngRun other arrivals.
TEST_F(ServingTest, EnginesAgreeAndRunsRepeat)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string args
        = "--model=llama3-8b --servers=2 --tp=8 --serve=1x1 --requests=4 "
          "--rate=50 --outputTokens=8 --inputTokens=1024";
    const nlohmann::json packet = Serve(args);
    const nlohmann::json flow = Serve(args + " --mode=flow");
    const nlohmann::json again = Serve(args + " --mode=flow");
    const nlohmann::json other = Serve(args + " --mode=flow --RngRun=2");
    EXPECT_EQ(flow.dump(), again.dump());
    EXPECT_NE(flow["per_request"][0]["arrival_us"], other["per_request"][0]["arrival_us"]);
    for (const char* m : {"ttft_us", "tpot_us"})
    {
        EXPECT_NEAR(flow[m]["mean"].get<double>() / packet[m]["mean"].get<double>(), 1.0, 0.1) << m;
    }
}

// Two prefill and two decode instances of one GPU (4 servers): six requests arriving together
// spread over both of each (fewest requests first), a decode step holds at most --maxBatch = 2
// of them, and every request gets all its tokens. With one output token nothing is decoded:
// no cache moves, no decode instance, no time per output token.
TEST_F(ServingTest, InstancesShareTheLoadAndTheBatchIsCapped)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string base
        = "--model=llama3-8b --server=dgx-h100 --servers=4 --gpusPerServer=1 "
          "--tp=1 --serve=2x2 --requests=6 --rate=1e9 --inputTokens=256 "
          "--mode=flow";
    const nlohmann::json s = Serve(base + " --outputTokens=8 --maxBatch=2");
    ASSERT_EQ(s["done"], 6);
    uint32_t prefill[2] = {0, 0};
    uint32_t decode[2] = {0, 0};
    for (const auto& r : s["per_request"])
    {
        ++prefill[r["prefill"].get<uint32_t>()];
        ++decode[r["decode"].get<uint32_t>()];
        EXPECT_GE(r["last_token_us"].get<double>(), r["kv_arrived_us"].get<double>());
    }
    EXPECT_EQ(prefill[0], 3u);
    EXPECT_EQ(prefill[1], 3u);
    EXPECT_EQ(decode[0], 3u);
    EXPECT_EQ(decode[1], 3u);
    EXPECT_EQ(s["decode_tokens"].get<uint64_t>(), 6u * 7);
    EXPECT_LE(s["mean_decode_batch"].get<double>(), 2.0);
    EXPECT_GT(s["decode_steps"].get<uint64_t>(), 6u * 7 / 2 - 1);
    const nlohmann::json one = Serve(base + " --outputTokens=1");
    EXPECT_EQ(one["done"], 6);
    EXPECT_TRUE(one["tpot_us"].is_null());
    EXPECT_EQ(one["kv_bytes_sent_per_request"], 0);
    EXPECT_EQ(one["decode_steps"], 0);
    for (const auto& r : one["per_request"])
    {
        EXPECT_TRUE(r["decode"].is_null());
        EXPECT_EQ(r["last_token_us"], r["first_token_us"]);
    }
}

// Mixtral 8x7B on TP/EP 8 instances, one request at a time: every token comes out, and a decode
// step of one token reads at least the weights a GPU uses: its eighth of attention, routers
// and output layer, and its expert's weights in 1 - (1 - 2/8)^1 = 1/4 of the steps on
// average (the pass's one token picks 2 of 8 experts), at 88.7% of 3.35 TB/s; and less than
// three times that with its 128 NVLink collectives (all-reduces, dispatches, combines,
// all-gathers) of a few microseconds each.
TEST_F(ServingTest, MixtureOfExpertsDecodes)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const nlohmann::json s = Serve(
        "--model=mixtral-8x7b --servers=2 --tp=8 --serve=1x1 "
        "--requests=2 --rate=5 --inputTokens=512 --outputTokens=8 "
        "--mode=flow");
    ASSERT_EQ(s["done"], 2);
    EXPECT_EQ(s["decode_tokens"].get<uint64_t>(), 2u * 7);
    TransformerSpec spec;
    ASSERT_TRUE(TransformerModel::GetPreset("mixtral-8x7b", spec));
    const TransformerModel model(spec);
    const double experts = 8.0 * spec.layers * model.ExpertParameters();
    const double rest = model.TotalParameters() - model.EmbeddingParameters() - experts;
    const double perGpu = rest / 8 + 0.25 * experts / 8;
    const double weights = perGpu * 2 / (0.887 * 3.35e12) * 1e6;
    const double tpot = s["tpot_us"]["p50"].get<double>();
    EXPECT_GT(tpot, weights);
    EXPECT_LT(tpot, 3 * weights);
}

// DeepSeek-V3 (multi-head latent attention) on two TP 8 instances: a request's cache is each
// prompt token's latent and RoPE key, (512 + 64) x 61 layers x 2 bytes, whole on every rank
// of the instance (a grouped-query cache of 128 heads would be 2 x 128 x 128 per token and
// layer, 57 times more), and each rank sends its copy; the run ends with every token.
TEST_F(ServingTest, LatentAttentionCachesTheLatent)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const nlohmann::json s = Serve(
        "--model=deepseek-v3 --servers=2 --tp=8 --serve=1x1 "
        "--requests=2 --rate=5 --inputTokens=512 --outputTokens=4 "
        "--mode=flow");
    ASSERT_EQ(s["done"], 2);
    EXPECT_EQ(s["decode_tokens"].get<uint64_t>(), 2u * 3);
    const uint64_t kv = (512ULL + 64) * 61 * 2 * 512;
    EXPECT_EQ(s["kv_bytes_per_request"].get<uint64_t>(), kv);
    EXPECT_EQ(s["kv_bytes_sent_per_request"].get<uint64_t>(), 8 * kv);
}

// Bad serving flags: one line, exit status 2.
TEST_F(ServingTest, BadFlags)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string base = ProgramPath("ai-fabric-train") + " --quiet --servers=2 ";
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"--model=llama3-8b --tp=8 --serve=2", "--serve=2: expected PxD"},
             {"--model=llama3-8b --tp=8 --serve=0x2", "--serve=0x2: expected PxD"},
             {"--model=llama3-8b --tp=8 --serve=2x2",
              "2 prefill and 2 decode instances of 8 GPUs need 32 GPUs; the fabric has 16"},
             {"--serve=1x1", "give one of --workload=FILE"},
             {"--moe=deepep --serve=1x1", "--serve=1x1 serves a --model"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --rate=0", "--rate=0: expected"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --rate=fast", "--rate=fast: expected"},
             {"--model=llama3-8b --tp=3 --serve=1x1", "of 3 GPUs need 6 GPUs; the fabric has 16"},
             {"--model=llama3-8b --gpusPerServer=3 --tp=3 --serve=1x1", "tp = 3 does not divide"},
             {"--model=mixtral-8x7b --gpusPerServer=3 --tp=3 --serve=1x1",
              "8 experts of mixtral-8x7b do not spread evenly over instances of 3 GPUs"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --outputTokens=0", "--outputTokens=0"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --pp=2", "--pp=2 trains; --serve=1x1 serves"},
             {"--model=llama3-8b --tp=8 --serve=1x1 --maxBatch=5000", "--maxBatch=5000"}})
    {
        const CommandResult bad = RunCommand(base + args);
        EXPECT_EQ(bad.status, 2) << args;
        EXPECT_NE(bad.err.find(says), std::string::npos) << args << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
}
