/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Mixture-of-experts traffic: the routing's counts against the combinatorics of drawing top-k
// experts, the dispatch and combine plans' bytes exactly (flat and DeepEP's relayed), and
// ai-fabric-train --moe: the network bytes deduplicated per node, the time between the
// fabric's bounds, both engines alike, deterministic, and bad flags refused.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"
#include "ns3/moe-all-to-all.h"
#include "ns3/moe-routing.h"
#include "ns3/random-variable-stream.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <unistd.h>

using namespace ns3;

namespace
{

class MoeTest : public AiFabricTest
{
};

/**
 * \param n a count
 * \param k a count
 * \return ln C(n, k)
 */
double
LogChoose(double n, double k)
{
    return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

/**
 * \param ranks ranks
 * \param perNode ranks per node
 * \param config the routing
 * \param stream the random stream
 * \return the routing drawn (asserted to exist)
 */
Ptr<MoeRouting>
Draw(uint32_t ranks, uint32_t perNode, const MoeRoutingConfig& config, int64_t stream = 7)
{
    std::vector<uint32_t> nodeOf(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        nodeOf[r] = r / perNode;
    }
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(stream);
    std::string error;
    Ptr<MoeRouting> routing = MoeRouting::Draw(config, nodeOf, rng, error);
    EXPECT_TRUE(routing) << error;
    return routing;
}

/**
 * \brief Run ai-fabric-train and read its JSON's workload.moe.
 * \param command the program and its flags, without --json
 * \param dir a directory for the JSON file (removed after)
 * \return workload.moe
 */
nlohmann::json
RunMoe(const std::string& command, const std::string& dir)
{
    const CommandResult r = RunCommand(command + " --json=" + dir + "/moe.json");
    EXPECT_EQ(r.status, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/moe.json"));
    std::remove((dir + "/moe.json").c_str());
    return j["workload"]["moe"];
}

} // namespace

// Top-8 of 256 experts drawn uniformly: a token reaches rank d unless all 8 experts miss d's
// 256/R, so the mean distinct ranks per token is R (1 - C(256 - 256/R, 8) / C(256, 8)), and
// likewise for nodes; 32,768 tokens land within 1% of both. Limited to one group of the four
// (one per node), a token reaches exactly one node. The draw follows the stream.
TEST_F(MoeTest, RoutingFollowsTheCombinatorics)
{
    MoeRoutingConfig c;
    c.tokens = 2048;
    c.experts = 256;
    c.topk = 8;
    const uint32_t ranks = 16;
    const uint32_t perNode = 8;
    Ptr<MoeRouting> r = Draw(ranks, perNode, c);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->GetNNodes(), 2u);
    EXPECT_EQ(r->GetConfig().expertGroups, 2u); // one per node
    EXPECT_EQ(r->GetConfig().topkGroups, 2u);   // no limit
    double rankHits = 0;
    double nodeHits = 0;
    for (uint32_t s = 0; s < ranks; ++s)
    {
        uint64_t sum = 0;
        for (uint32_t d = 0; d < ranks; ++d)
        {
            sum += r->GetTokens(s, d);
            EXPECT_LE(r->GetTokens(s, d), c.tokens);
        }
        for (uint32_t m = 0; m < r->GetNNodes(); ++m)
        {
            EXPECT_LE(r->GetNodeTokens(s, m), c.tokens);
        }
        rankHits += sum;
        nodeHits += r->GetNodeTokenPairs(s);
    }
    const double tokens = static_cast<double>(c.tokens) * ranks;
    const double missRank = std::exp(LogChoose(256 - 256.0 / ranks, 8) - LogChoose(256, 8));
    const double missNode = std::exp(LogChoose(128, 8) - LogChoose(256, 8));
    EXPECT_NEAR(rankHits / tokens / (ranks * (1 - missRank)), 1.0, 0.01);
    EXPECT_NEAR(nodeHits / tokens / (2 * (1 - missNode)), 1.0, 0.01);
    uint64_t received = 0;
    for (uint32_t d = 0; d < ranks; ++d)
    {
        received += r->GetReceivedTokens(d);
    }
    EXPECT_EQ(received, static_cast<uint64_t>(rankHits));

    // Node-limited to one group of four: every token on exactly one node, and its ranks there.
    MoeRoutingConfig one = c;
    one.tokens = 256;
    one.topkGroups = 1;
    Ptr<MoeRouting> limited = Draw(16, 4, one);
    ASSERT_TRUE(limited);
    for (uint32_t s = 0; s < 16; ++s)
    {
        EXPECT_EQ(limited->GetNodeTokenPairs(s), one.tokens);
    }
    // Every expert: every token everywhere.
    MoeRoutingConfig all = c;
    all.tokens = 10;
    all.experts = 16;
    all.topk = 16;
    Ptr<MoeRouting> every = Draw(16, 8, all);
    ASSERT_TRUE(every);
    EXPECT_EQ(every->GetTokens(3, 12), 10u);
    EXPECT_EQ(every->GetNodeTokens(3, 1), 10u);

    // The same stream draws the same; another draws otherwise.
    Ptr<MoeRouting> again = Draw(ranks, perNode, c);
    Ptr<MoeRouting> other = Draw(ranks, perNode, c, 8);
    bool same = true;
    bool differs = false;
    for (uint32_t s = 0; s < ranks; ++s)
    {
        for (uint32_t d = 0; d < ranks; ++d)
        {
            same = same && again->GetTokens(s, d) == r->GetTokens(s, d);
            differs = differs || other->GetTokens(s, d) != r->GetTokens(s, d);
        }
    }
    EXPECT_TRUE(same);
    EXPECT_TRUE(differs);
}

// Group-limited as DeepEP's tests draw it (EP64: 8 nodes, 256 experts in a group per node, the
// 4 groups with the best top score, top 8): the mean nodes and ranks per token match this
// test's own draw of |N(0,1)| + 1 scores (std::mt19937, 50,000 tokens) within 1%, and no
// token reaches more than 4 nodes.
TEST_F(MoeTest, GroupLimitedRoutingIsDeepEpsDraw)
{
    MoeRoutingConfig c;
    c.tokens = 512;
    c.topkGroups = 4;
    Ptr<MoeRouting> r = Draw(64, 8, c);
    ASSERT_TRUE(r);
    double nodes = 0;
    double ranks = 0;
    for (uint32_t s = 0; s < 64; ++s)
    {
        nodes += r->GetNodeTokenPairs(s);
        for (uint32_t d = 0; d < 64; ++d)
        {
            ranks += r->GetTokens(s, d);
        }
        EXPECT_LE(r->GetNodeTokenPairs(s), 4u * c.tokens);
    }
    nodes /= 64.0 * c.tokens;
    ranks /= 64.0 * c.tokens;
    std::mt19937 gen(12345);
    std::normal_distribution<double> normal;
    double refNodes = 0;
    double refRanks = 0;
    const int n = 50000;
    std::vector<double> score(256);
    for (int t = 0; t < n; ++t)
    {
        for (double& x : score)
        {
            x = std::abs(normal(gen)) + 1;
        }
        std::vector<std::pair<double, int>> groups;
        for (int g = 0; g < 8; ++g)
        {
            groups.emplace_back(
                *std::max_element(score.begin() + 32 * g, score.begin() + 32 * g + 32), g);
        }
        std::sort(groups.rbegin(), groups.rend());
        std::vector<std::pair<double, int>> experts;
        for (int i = 0; i < 4; ++i)
        {
            for (int e = 32 * groups[i].second; e < 32 * groups[i].second + 32; ++e)
            {
                experts.emplace_back(score[e], e);
            }
        }
        std::partial_sort(experts.begin(), experts.begin() + 8, experts.end(), std::greater<>());
        std::set<int> hitNodes;
        std::set<int> hitRanks;
        for (int i = 0; i < 8; ++i)
        {
            hitNodes.insert(experts[i].second / 32);
            hitRanks.insert(experts[i].second / 4);
        }
        refNodes += hitNodes.size();
        refRanks += hitRanks.size();
    }
    EXPECT_NEAR(nodes / (refNodes / n), 1.0, 0.01) << nodes << " against " << refNodes / n;
    EXPECT_NEAR(ranks / (refRanks / n), 1.0, 0.01) << ranks << " against " << refRanks / n;
}

// Routings that cannot be drawn say why.
TEST_F(MoeTest, BadRoutingsSayWhy)
{
    std::vector<uint32_t> nodeOf(16, 0);
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    for (const auto& [experts, topk, groups, topkGroups, says] :
         std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, std::string>>{
             {100, 8, 0, 0, "100 experts do not spread evenly over 16 ranks"},
             {256, 8, 3, 0, "256 experts do not split into 3 groups"},
             {256, 8, 4, 5, "top-5 groups of only 4"},
             {256, 65, 4, 1, "top-65 experts of the 64 a token may choose from"}})
    {
        MoeRoutingConfig c;
        c.experts = experts;
        c.topk = topk;
        c.expertGroups = groups;
        c.topkGroups = topkGroups;
        std::string error;
        EXPECT_FALSE(MoeRouting::Draw(c, nodeOf, rng, error));
        EXPECT_EQ(error, says);
    }
    std::string error;
    EXPECT_FALSE(MoeRouting::Draw(MoeRoutingConfig(), {}, rng, error));
    EXPECT_FALSE(MoeRouting::Draw(MoeRoutingConfig(), {0, 2}, rng, error));
    EXPECT_EQ(error, "node 1 has no rank");
}

// The plans move exactly the routing's bytes. Flat: rank s sends T(s, d) tokens to every
// other d. Relayed: s sends N(s, m) tokens once to its relay on every other node m (the rank
// of its rail there), which forwards T(s, d) to every other d of m; s's own node straight.
// The combine sends back what the dispatch delivered, and reduces it.
TEST_F(MoeTest, PlansMoveTheRoutingsBytes)
{
    MoeRoutingConfig c;
    c.tokens = 64;
    c.experts = 32;
    c.topk = 4;
    const uint32_t n = 8;
    Ptr<MoeRouting> r = Draw(n, 4, c);
    ASSERT_TRUE(r);
    const uint64_t b = 100;
    const uint64_t chunk = 1000; // several pieces per relay hop
    for (const MoeDispatcher how : {MoeDispatcher::FLAT, MoeDispatcher::HIERARCHICAL})
    {
        Ptr<CollectivePlan> dispatch = MoeAllToAll::Build(*r, how, false, b, chunk, 3);
        Ptr<CollectivePlan> combine = MoeAllToAll::Build(*r, how, true, b, chunk, 3);
        for (uint32_t d = 0; d < n; ++d)
        {
            uint64_t expected = 0;
            for (uint32_t s = 0; s < n; ++s)
            {
                if (s == d)
                {
                    continue;
                }
                const uint32_t m = r->GetNode(d);
                const bool relayed = how == MoeDispatcher::HIERARCHICAL && r->GetNode(s) != m;
                expected += relayed && r->GetRelay(s, m) == d ? r->GetNodeTokens(s, m) * b
                                                              : r->GetTokens(s, d) * b;
            }
            EXPECT_EQ(dispatch->GetBytesReceived(d), expected) << MoeDispatcherName(how) << d;
            EXPECT_EQ(combine->GetBytesSent(d), expected) << MoeDispatcherName(how) << d;
        }
        uint64_t network = 0;
        for (uint32_t s = 0; s < n; ++s)
        {
            network += MoeAllToAll::NetworkTokens(*r, how, s) * b;
        }
        uint64_t crossing = 0;
        uint64_t reduced = 0;
        uint64_t sharesIn = 0;  // combine: the shares the relays' pieces wait for
        std::set<uint32_t> fed; // and which they are
        for (uint32_t id = 0; id < dispatch->GetNTransfers(); ++id)
        {
            const CollectiveTransfer& t = dispatch->GetTransfer(id);
            EXPECT_LE(t.bytes, chunk);
            EXPECT_FALSE(t.reduce);
            const bool across = r->GetNode(t.src) != r->GetNode(t.dst);
            crossing += across ? t.bytes : 0;
            // A forward (step 1) waits for its piece from the network; nothing else waits.
            EXPECT_EQ(t.nDeps, t.step == 1 ? 1u : 0u);
            EXPECT_TRUE(t.step == 0 || (!across && how == MoeDispatcher::HIERARCHICAL));
            if (across && how == MoeDispatcher::HIERARCHICAL)
            {
                EXPECT_EQ(r->GetLocal(t.src), r->GetLocal(t.dst)) << "same rail";
            }
        }
        for (uint32_t id = 0; id < combine->GetNTransfers(); ++id)
        {
            const CollectiveTransfer& t = combine->GetTransfer(id);
            reduced += t.reduce ? t.bytes : 0;
            // A relay's piece to the tokens' rank (step 1, across) waits for exactly that
            // piece's shares from its node's other experts (step 0, to the relay).
            const std::vector<uint32_t> deps = combine->GetDependencies(id);
            if (t.step == 0)
            {
                EXPECT_TRUE(deps.empty());
                continue;
            }
            ASSERT_EQ(how, MoeDispatcher::HIERARCHICAL);
            EXPECT_NE(r->GetNode(t.src), r->GetNode(t.dst));
            for (uint32_t d : deps)
            {
                const CollectiveTransfer& share = combine->GetTransfer(d);
                EXPECT_EQ(share.dst, t.src);
                EXPECT_EQ(share.step, 0u);
                EXPECT_EQ(share.channel, t.channel);
                EXPECT_EQ(r->GetNode(share.src), r->GetNode(t.src));
                EXPECT_TRUE(fed.insert(d).second) << "a share feeds one piece";
                sharesIn += share.bytes;
            }
        }
        // Every expert's outputs for a remote rank's tokens reach its relay, and only those.
        uint64_t relayed = 0;
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t m = 0; m < r->GetNNodes(); ++m)
            {
                if (how == MoeDispatcher::FLAT || m == r->GetNode(s))
                {
                    continue;
                }
                for (uint32_t d : r->GetNodeRanks(m))
                {
                    relayed += d == r->GetRelay(s, m) ? 0 : r->GetTokens(s, d) * b;
                }
            }
        }
        EXPECT_EQ(sharesIn, relayed) << MoeDispatcherName(how);
        EXPECT_EQ(crossing, network) << MoeDispatcherName(how);
        uint64_t all = 0;
        for (uint32_t d = 0; d < n; ++d)
        {
            all += combine->GetBytesSent(d);
        }
        EXPECT_EQ(reduced, all); // every piece of the combine is reduced
    }
    // The relay sends fewer bytes across: a token with experts on two GPUs of a node crosses
    // once.
    uint64_t flat = 0;
    uint64_t relayed = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        flat += MoeAllToAll::NetworkTokens(*r, MoeDispatcher::FLAT, s);
        relayed += MoeAllToAll::NetworkTokens(*r, MoeDispatcher::HIERARCHICAL, s);
    }
    EXPECT_LT(relayed, flat);
}

// ai-fabric-train --moe on two 8-GPU H800 servers: the relayed dispatch puts fewer bytes on the
// network than the flat one; its time lies between its network phase and the network and
// NVLink phases one after the other; the flow level lands within 10% of the packet level
// (9.3% for the dispatch and 1.1% for the combine at this size since DeepEP's copy rate: the
// manual says why); a second run prints the same. Bad flags: one line, exit status 2.
TEST_F(MoeTest, TrainRunsADispatchAndCombine)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    const std::string base = ProgramPath("ai-fabric-train")
                             + " --quiet --server=hgx-h800 --servers=2 --rail=true --tokens=2048";
    auto run = [&](const std::string& args) { return RunMoe(base + " " + args, dir); };
    const nlohmann::json deepep = run("--moe=deepep");
    const nlohmann::json flat = run("--moe=flat --mode=flow");
    const nlohmann::json flow = run("--moe=deepep --mode=flow");
    const nlohmann::json again = run("--moe=deepep");
    EXPECT_EQ(deepep.dump(), again.dump());
    EXPECT_EQ(deepep["servers"], 2);
    EXPECT_EQ(deepep["topk_groups"], 2); // min(servers, 4)
    const nlohmann::json& d = deepep["dispatch"];
    EXPECT_EQ(d["bytes_per_token"], 7168 + 7168 / 128 * 4);
    EXPECT_EQ(deepep["combine"]["bytes_per_token"], 2 * 7168);
    EXPECT_LT(d["network_bytes"].get<double>(), flat["dispatch"]["network_bytes"].get<double>());
    // A NIC's goodput: 400 Gb/s x 4096 / 4178 payload bytes per RoCEv2 frame; NVLink: 8 x
    // 25 GB/s x 0.818 per direction.
    const double nic = 400e9 / 8 * 4096 / 4178;
    const double nvlink = 200e9 * 0.818;
    const double t = d["time_us"].get<double>() * 1e-6;
    const double net = d["network_bytes"].get<double>() / nic;
    // NVLink: what rank 0 receives of tokens, less its own and those it relays to itself.
    const double nvl = d["nvl_bytes"].get<double>() / nvlink;
    EXPECT_GT(t, net);
    EXPECT_LT(t, net + nvl + 100e-6);
    for (const char* phase : {"dispatch", "combine"})
    {
        EXPECT_NEAR(
            flow[phase]["time_us"].get<double>() / deepep[phase]["time_us"].get<double>(), 1.0, 0.1)
            << phase;
    }
    rmdir(dir.c_str());
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"--moe=ring", "--moe=ring: expected flat or deepep"},
             {"--moe=deepep --experts=100", "100 experts do not spread evenly over 16 ranks"},
             {"--moe=deepep --dispatchDtype=fp16", "--dispatchDtype=fp16: expected fp8 or bf16"},
             {"--moe=deepep --topk=0", "--topk=0"},
             {"--moe=deepep --model=llama3-8b", "give one of --workload=FILE"}})
    {
        const CommandResult bad = RunCommand(base + " " + args);
        EXPECT_EQ(bad.status, 2) << args;
        EXPECT_NE(bad.err.find(says), std::string::npos) << args << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
}

// DeepEP's copy rate (--deepepRates; the H800's measured 153 and 158 GB/s by default): on one
// 8-GPU server every token a rank receives, its own included, passes its kernel's copy queue,
// so what it lands per second (DeepEP's "NVL" figure) is the rate, to within the kernel's
// start and the last piece's way (1%); with the copies not costed NVLink bounds it instead
// (164 GB/s a direction, 8/7 of that counting a rank's own tokens); a given rate is that
// rate. Bad rates: one line, exit status 2.
TEST_F(MoeTest, DeepEpCopyRateBoundsWhatARankLands)
{
    AI_FABRIC_REQUIRE_PROGRAM("ai-fabric-train");
    const std::string dir = TempDir();
    const std::string base = ProgramPath("ai-fabric-train")
                             + " --quiet --server=hgx-h800 --servers=1 --moe=deepep --mode=flow";
    auto run = [&](const std::string& args) { return RunMoe(base + " " + args, dir); };
    const nlohmann::json measured = run("");
    EXPECT_NEAR(measured["dispatch"]["nvl_GBps"].get<double>(), 153, 153 * 0.01);
    EXPECT_NEAR(measured["combine"]["nvl_GBps"].get<double>(), 158, 158 * 0.01);
    const nlohmann::json given = run("--deepepRates=100,120");
    EXPECT_NEAR(given["dispatch"]["nvl_GBps"].get<double>(), 100, 1);
    EXPECT_NEAR(given["combine"]["nvl_GBps"].get<double>(), 120, 1.2);
    const nlohmann::json free = run("--deepepRates=0,0");
    const double nvlink = 200 * 0.818 * 8 / 7;
    for (const char* phase : {"dispatch", "combine"})
    {
        const double rate = free[phase]["nvl_GBps"].get<double>();
        EXPECT_GT(rate, 160) << phase;
        EXPECT_LT(rate, nvlink) << phase;
    }
    rmdir(dir.c_str());
    for (const std::string rates : {"abc", "153", "-1,2", "153,", "1e9,1"})
    {
        const CommandResult bad = RunCommand(base + " --deepepRates=" + rates);
        EXPECT_EQ(bad.status, 2) << rates;
        EXPECT_NE(bad.err.find("--deepepRates=" + rates + ": expected two rates in GB/s"),
                  std::string::npos)
            << rates << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
}
