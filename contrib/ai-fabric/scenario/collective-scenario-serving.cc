/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// CollectiveScenario's serving mode (ai-fabric-train --model --serve): its configuration from
// the flags, and what a run reports (the table, JSON and timeline).

#include "collective-scenario.h"
#include "fabric-cli.h"
#include "fabric-output-file.h"
#include "fabric-series.h"
#include "ns3/inference-runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ns3
{

void
CollectiveScenario::ConfigureServing(const TrainingConfig& model)
{
    ScenarioOptions& o = m_options;
    const std::string& serve = o.Get("serve");
    // What a serving run does not use.
    for (const auto& [flag, unused] : {std::make_pair("pp", "1"),
                                       std::make_pair("ep", "1"),
                                       std::make_pair("microBatch", "1"),
                                       std::make_pair("globalBatch", "0"),
                                       std::make_pair("seqLength", "0"),
                                       std::make_pair("cp", "1"),
                                       std::make_pair("zero", "0"),
                                       std::make_pair("gradReduce", "fp32"),
                                       std::make_pair("recompute", "none"),
                                       std::make_pair("firstStageLayers", "0"),
                                       std::make_pair("lastStageLayers", "0")})
    {
        if (o.Get(flag) != unused)
        {
            o.Fail(std::string("--") + flag + "=" + o.Get(flag) + " trains; --serve=" + serve
                   + " serves (its instances are --tp GPUs each)");
        }
    }
    if (o.GetFlag("sequenceParallel"))
    {
        o.Fail("--sequenceParallel trains; --serve=" + serve
               + " serves (its instances are --tp GPUs each)");
    }
    InferenceConfig c;
    c.model = model.model;
    c.dtype = model.dtype;
    c.tp = model.tp;
    c.gpusPerServer = model.gpusPerServer;
    c.dispatcher = model.dispatcher;
    c.dispatchCopyRate = model.dispatchCopyRate;
    c.combineCopyRate = model.combineCopyRate;
    const std::size_t x = serve.find('x');
    uint64_t p = 0;
    uint64_t d = 0;
    if (x == std::string::npos || !FabricCli::ParseUnsigned(serve.substr(0, x), p)
        || !FabricCli::ParseUnsigned(serve.substr(x + 1), d) || p == 0 || d == 0 || p > 4096
        || d > 4096)
    {
        o.Fail("--serve=" + serve + ": expected PxD, prefill and decode instances (e.g. 1x3)");
    }
    c.prefillInstances = static_cast<uint32_t>(p);
    c.decodeInstances = static_cast<uint32_t>(d);
    c.requests = o.Whole("requests", 1, 1 << 20);
    c.inputTokens = o.Whole("inputTokens", 1, 1 << 20);
    c.outputTokens = o.Whole("outputTokens", 1, 1 << 20);
    c.maxBatch = o.Whole("maxBatch", 1, 4096);
    const std::string& rate = o.Get("rate");
    char* end = nullptr;
    c.rate = rate.empty() ? 0 : std::strtod(rate.c_str(), &end);
    if (rate.empty() || *end != '\0' || !(c.rate > 0) || c.rate > 1e9)
    {
        o.Fail("--rate=" + o.Get("rate") + ": expected requests per second above 0");
    }
    std::string error;
    if (!InferenceRunner::Check(c, m_topology->GetNGpus(), *m_trainingGpu, error))
    {
        o.Fail("--serve=" + serve + ": " + error);
    }
    m_inference = std::make_unique<InferenceConfig>(c);
}

namespace
{
/**
 * \param values samples (sorted here)
 * \return mean, p50, p90, p99 (nearest rank) of the samples, in microseconds
 */
nlohmann::ordered_json
Summary(std::vector<double> values)
{
    nlohmann::ordered_json j = {{"mean", 0.0}, {"p50", 0.0}, {"p90", 0.0}, {"p99", 0.0}};
    if (values.empty())
    {
        return j;
    }
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    j["mean"] = sum / values.size();
    j["p50"] = NearestRank(values, 0.50);
    j["p90"] = NearestRank(values, 0.90);
    j["p99"] = NearestRank(values, 0.99);
    return j;
}
} // namespace

void
CollectiveScenario::ReportServing(const InferenceRunner& serving,
                                  bool print,
                                  FailureRunOutput& out) const
{
    const InferenceConfig& c = serving.GetConfig();
    std::vector<double> ttft;
    std::vector<double> tpot;
    uint32_t done = 0;
    nlohmann::ordered_json requests = nlohmann::ordered_json::array();
    for (const InferenceRunner::Request& r : serving.GetRequests())
    {
        auto us = [](Time t) { return t.IsStrictlyNegative() ? -1.0 : t.GetSeconds() * 1e6; };
        const nlohmann::ordered_json decode = r.kvArrived.IsStrictlyNegative()
                                                  ? nlohmann::ordered_json()
                                                  : nlohmann::ordered_json(r.decode);
        requests.push_back({{"arrival_us", us(r.arrival)},
                            {"prefill", r.prefill},
                            {"decode", decode},
                            {"prefill_start_us", us(r.prefillStart)},
                            {"first_token_us", us(r.firstToken)},
                            {"kv_arrived_us", us(r.kvArrived)},
                            {"last_token_us", us(r.lastToken)}});
        if (r.firstToken.IsStrictlyNegative())
        {
            continue;
        }
        ttft.push_back((r.firstToken - r.arrival).GetSeconds() * 1e6);
        if (r.lastToken.IsStrictlyNegative())
        {
            continue;
        }
        ++done;
        if (c.outputTokens > 1)
        {
            tpot.push_back((r.lastToken - r.firstToken).GetSeconds() * 1e6
                           / static_cast<double>(c.outputTokens - 1));
        }
    }
    const Time first = serving.GetRequests().front().arrival;
    const double span = (serving.GetEndTime() - first).GetSeconds();
    const double throughput = span > 0 ? done * static_cast<double>(c.outputTokens) / span : 0;
    const uint64_t steps = serving.GetDecodeSteps();
    const double batch = steps > 0 ? static_cast<double>(serving.GetDecodeBatchSum()) / steps : 0;
    nlohmann::ordered_json j
        = {{"model", c.model.name},
           {"prefill_instances", c.prefillInstances},
           {"decode_instances", c.decodeInstances},
           {"gpus_per_instance", c.tp},
           {"requests", c.requests},
           {"done", done},
           {"rate", c.rate},
           {"input_tokens", c.inputTokens},
           {"output_tokens", c.outputTokens},
           {"max_batch", c.maxBatch},
           {"dispatcher",
            c.model.experts > 0 ? nlohmann::ordered_json(MoeDispatcherName(c.dispatcher))
                                : nlohmann::ordered_json()},
           {"kv_bytes_per_request", serving.GetKvBytes()},
           {"kv_bytes_sent_per_request", serving.GetKvBytesSent()},
           {"ttft_us", Summary(ttft)},
           {"tpot_us", c.outputTokens > 1 ? Summary(tpot) : nlohmann::ordered_json()},
           {"output_tokens_per_s", throughput},
           {"decode_steps", steps},
           {"decode_tokens", serving.GetDecodeBatchSum()},
           {"mean_decode_batch", batch},
           {"per_request", requests}};
    if (print)
    {
        const nlohmann::ordered_json& t = j["ttft_us"];
        char line[400];
        std::snprintf(line,
                      sizeof(line),
                      "# serving: %u of %u requests done in %.2f us; time to first token (us): "
                      "mean %.2f, p50 %.2f, p90 %.2f, p99 %.2f; ",
                      done,
                      c.requests,
                      serving.GetEndTime().GetSeconds() * 1e6,
                      t["mean"].get<double>(),
                      t["p50"].get<double>(),
                      t["p90"].get<double>(),
                      t["p99"].get<double>());
        std::cout << line;
        if (c.outputTokens > 1)
        {
            const nlohmann::ordered_json& p = j["tpot_us"];
            std::snprintf(line,
                          sizeof(line),
                          "time per output token (us): mean %.2f, p50 %.2f, p90 %.2f, p99 %.2f\n",
                          p["mean"].get<double>(),
                          p["p50"].get<double>(),
                          p["p90"].get<double>(),
                          p["p99"].get<double>());
            std::cout << line;
        }
        else
        {
            std::cout << "time per output token: n/a (one token each)\n";
        }
        const uint64_t sent = serving.GetKvBytesSent();
        std::snprintf(line,
                      sizeof(line),
                      "# %.1f output tokens/s; KV cache %.2f MB per request, %.2f MB of it sent "
                      "over the fabric; %llu decode steps, %.2f requests per step on average\n",
                      throughput,
                      serving.GetKvBytes() / 1e6,
                      sent / 1e6,
                      static_cast<unsigned long long>(steps),
                      batch);
        std::cout << line;
        if (m_timeline)
        {
            WriteServingTimeline(m_timeline->Stream(), serving);
        }
    }
    out.extra["serving"] = j;
}

void
CollectiveScenario::WriteServingTimeline(std::ostream& os, const InferenceRunner& serving)
{
    // A process per instance, a thread per request; a prompt, its cache's way and its decode.
    const InferenceConfig& c = serving.GetConfig();
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < c.prefillInstances + c.decodeInstances; ++i)
    {
        const bool prefill = i < c.prefillInstances;
        const uint32_t index = prefill ? i : i - c.prefillInstances;
        events.push_back(
            {{"name", "process_name"},
             {"ph", "M"},
             {"pid", i},
             {"args", {{"name", (prefill ? "prefill " : "decode ") + std::to_string(index)}}}});
    }
    auto span = [&events](const std::string& name, uint32_t pid, uint32_t tid, Time from, Time to)
    {
        if (from.IsStrictlyNegative() || to.IsStrictlyNegative())
        {
            return;
        }
        events.push_back({{"name", name},
                          {"cat", name.substr(0, name.find(' '))},
                          {"ph", "X"},
                          {"ts", from.GetSeconds() * 1e6},
                          {"dur", (to - from).GetSeconds() * 1e6},
                          {"pid", pid},
                          {"tid", tid}});
    };
    const std::vector<InferenceRunner::Request>& requests = serving.GetRequests();
    for (uint32_t r = 0; r < requests.size(); ++r)
    {
        const InferenceRunner::Request& q = requests[r];
        const std::string id = " " + std::to_string(r);
        const uint32_t decode = c.prefillInstances + q.decode;
        span("queue" + id, q.prefill, r, q.arrival, q.prefillStart);
        span("prefill" + id, q.prefill, r, q.prefillStart, q.firstToken);
        span("kv" + id, decode, r, q.firstToken, q.kvArrived);
        span("decode" + id, decode, r, q.kvArrived, q.lastToken);
    }
    nlohmann::ordered_json doc;
    doc["traceEvents"] = events;
    doc["displayTimeUnit"] = "ns";
    os << doc.dump(1) << "\n";
}

} // namespace ns3
