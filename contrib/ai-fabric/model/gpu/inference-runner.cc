/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "inference-runner.h"

#include "collective-plan.h"
#include "communicator.h"
#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InferenceRunner");
NS_OBJECT_ENSURE_REGISTERED(InferenceRunner);

namespace
{
/// The most requests a run serves, and the longest prompt and answer.
constexpr uint64_t MAX_REQUESTS = 1 << 20;
constexpr uint64_t MAX_TOKENS = 1 << 20;
/// The largest decode batch.
constexpr uint32_t MAX_BATCH = 4096;
} // namespace

TypeId
InferenceRunner::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::InferenceRunner")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<InferenceRunner>()
              .AddAttribute("KvElementBytes",
                            "Bytes of one cached key or value element (bytes): 2 for a BF16 "
                            "cache (the default), 1 for FP8.",
                            DoubleValue(2),
                            MakeDoubleAccessor(&InferenceRunner::m_kvElementBytes),
                            MakeDoubleChecker<double>(0.125, 8))
              .AddTraceSource("FirstToken",
                              "A request's first token is out (its prompt is done).",
                              MakeTraceSourceAccessor(&InferenceRunner::m_firstTokenTrace),
                              "ns3::InferenceRunner::RequestTracedCallback")
              .AddTraceSource("LastToken",
                              "A request's last token is out.",
                              MakeTraceSourceAccessor(&InferenceRunner::m_lastTokenTrace),
                              "ns3::InferenceRunner::RequestTracedCallback");
    return tid;
}

InferenceRunner::InferenceRunner()
{
    NS_LOG_FUNCTION(this);
}

InferenceRunner::~InferenceRunner()
{
    NS_LOG_FUNCTION(this);
}

void
InferenceRunner::DoDispose()
{
    m_gpu = nullptr;
    m_prefill.clear();
    m_decode.clear();
    m_pairs.clear();
    m_prefillReduce.clear();
    m_decodeReduce.clear();
    m_kvPlan = nullptr;
    Object::DoDispose();
}

bool
InferenceRunner::Check(const InferenceConfig& c,
                       uint32_t gpus,
                       const GpuComputeModel& gpu,
                       std::string& error)
{
    const TransformerSpec& s = c.model;
    if (s.experts > 0 && (c.tp == 0 || s.experts % c.tp != 0))
    {
        error = std::to_string(s.experts) + " experts of " + s.name
                + " do not spread evenly over instances of " + std::to_string(c.tp) + " GPUs";
        return false;
    }
    if (c.prefillInstances == 0 || c.decodeInstances == 0 || c.tp == 0)
    {
        error = "serving needs at least one prefill and one decode instance of at least one GPU";
        return false;
    }
    const uint64_t need = static_cast<uint64_t>(c.prefillInstances + c.decodeInstances) * c.tp;
    if (need != gpus)
    {
        error = std::to_string(c.prefillInstances) + " prefill and "
                + std::to_string(c.decodeInstances) + " decode instances of " + std::to_string(c.tp)
                + " GPUs need " + std::to_string(need) + " GPUs; the fabric has "
                + std::to_string(gpus);
        return false;
    }
    const uint32_t kv = s.kvLoraRank > 0 ? s.heads : (s.kvHeads > 0 ? s.kvHeads : s.heads);
    if (s.heads % c.tp != 0 || s.ffnHidden % c.tp != 0 || (kv % c.tp != 0 && c.tp % kv != 0))
    {
        error = "tp = " + std::to_string(c.tp) + " does not divide the heads and the MLP of "
                + s.name;
        return false;
    }
    if (c.requests == 0 || c.requests > MAX_REQUESTS || c.inputTokens == 0
        || c.inputTokens > MAX_TOKENS || c.outputTokens == 0 || c.outputTokens > MAX_TOKENS)
    {
        error
            = "requests, prompt and output tokens must be from 1 to " + std::to_string(MAX_TOKENS);
        return false;
    }
    if (c.maxBatch == 0 || c.maxBatch > MAX_BATCH)
    {
        error = "the decode batch must be from 1 to " + std::to_string(MAX_BATCH) + " requests";
        return false;
    }
    if (!(c.rate > 0))
    {
        error = "the arrival rate must be above 0 requests/s";
        return false;
    }
    if (!gpu.Supports(c.dtype))
    {
        error = std::string("the ") + gpu.GetGpu().name + " does not compute in "
                + ComputeDataTypeName(c.dtype);
        return false;
    }
    return true;
}

void
InferenceRunner::Setup(const InferenceConfig& config, Ptr<GpuComputeModel> gpu)
{
    NS_LOG_FUNCTION(this);
    m_config = config;
    m_gpu = gpu;
    const TransformerSpec& s = config.model;
    const uint32_t kv = s.kvHeads > 0 ? s.kvHeads : s.heads;
    const double headsPerRank = std::max(1.0, static_cast<double>(kv) / config.tp);
    const TransformerModel model(s);
    // A request's cache: keys and values of every layer, KV head and prompt token. A rank
    // holds its heads' share; with more ranks than KV heads each rank holds one head, a copy
    // of it on tp / kv ranks, and each copy is sent.
    const double perHead = 2 * static_cast<double>(model.HeadDim()) * m_kvElementBytes * s.layers
                           * static_cast<double>(config.inputTokens);
    m_kvBytes = static_cast<uint64_t>(perHead * kv);
    m_kvShareBytes = static_cast<uint64_t>(perHead * headsPerRank);
    if (s.kvLoraRank > 0)
    {
        // MLA caches each token's compressed latent and its RoPE key, shared by every head:
        // every rank of the instance holds the whole of it, and each copy is sent.
        m_kvBytes = static_cast<uint64_t>(static_cast<double>(s.kvLoraRank + s.qkRopeHeadDim)
                                          * m_kvElementBytes * s.layers
                                          * static_cast<double>(config.inputTokens));
        m_kvShareBytes = m_kvBytes;
    }
    m_prefill.assign(config.prefillInstances, Instance());
    m_decode.assign(config.decodeInstances, Instance());
    for (uint32_t i = 0; i < config.prefillInstances; ++i)
    {
        m_prefill[i].firstRank = i * config.tp;
    }
    for (uint32_t j = 0; j < config.decodeInstances; ++j)
    {
        m_decode[j].firstRank = (config.prefillInstances + j) * config.tp;
    }
    m_requests.assign(config.requests, Request());
}

const InferenceConfig&
InferenceRunner::GetConfig() const
{
    return m_config;
}

void
InferenceRunner::AddGroups(CollectiveHelper& helper)
{
    NS_LOG_FUNCTION(this);
    const uint32_t tp = m_config.tp;
    for (std::vector<Instance>* pool : {&m_prefill, &m_decode})
    {
        for (Instance& inst : *pool)
        {
            if (tp > 1)
            {
                std::vector<uint32_t> ranks(tp);
                for (uint32_t k = 0; k < tp; ++k)
                {
                    ranks[k] = inst.firstRank + k;
                }
                inst.group = helper.AddGroup(ranks);
            }
        }
    }
    m_pairs.clear();
    for (const Instance& p : m_prefill)
    {
        for (const Instance& d : m_decode)
        {
            for (uint32_t k = 0; k < tp; ++k)
            {
                KvPair pair;
                pair.group = helper.AddGroup({p.firstRank + k, d.firstRank + k});
                m_pairs.push_back(pair);
            }
        }
    }
}

void
InferenceRunner::Prepare(CollectiveHelper& helper, ScheduleMaker make)
{
    NS_LOG_FUNCTION(this);
    const TransformerSpec& s = m_config.model;
    const double a
        = m_config.dtype == ComputeDataType::FP8 ? 2 : ComputeDataTypeBytes(m_config.dtype);
    const double h = static_cast<double>(s.hidden);
    auto comms = [&helper](Instance& inst)
    {
        inst.comms.clear();
        const std::vector<uint32_t> ranks = helper.GetGroupRanks(inst.group);
        for (uint32_t k = 0; k < ranks.size(); ++k)
        {
            inst.comms.push_back(helper.GetGroupCommunicator(inst.group, k));
        }
        return ranks;
    };
    m_prefillReduce.assign(m_prefill.size(), nullptr);
    m_decodeReduce.assign(m_decode.size(), {});
    for (uint32_t i = 0; i < m_prefill.size(); ++i)
    {
        const std::vector<uint32_t> ranks = comms(m_prefill[i]);
        if (m_config.tp > 1)
        {
            const auto bytes
                = static_cast<uint64_t>(a * h * static_cast<double>(m_config.inputTokens));
            m_prefillReduce[i] = make(CollectiveType::ALL_REDUCE, m_prefill[i].group, ranks, bytes);
            helper.Connect(*m_prefillReduce[i], m_prefill[i].group);
        }
    }
    // A decode step holds at most maxBatch requests, and never more than there are.
    const uint32_t batches = std::min(m_config.maxBatch, m_config.requests);
    for (uint32_t j = 0; j < m_decode.size(); ++j)
    {
        const std::vector<uint32_t> ranks = comms(m_decode[j]);
        if (m_config.tp > 1)
        {
            for (uint32_t b = 1; b <= batches; ++b)
            {
                m_decodeReduce[j].push_back(make(CollectiveType::ALL_REDUCE,
                                                 m_decode[j].group,
                                                 ranks,
                                                 static_cast<uint64_t>(a * h * b)));
                helper.Connect(*m_decodeReduce[j].back(), m_decode[j].group);
            }
        }
    }
    // A mixture of experts: each instance's routing, dispatch, combine and all-gather for each
    // slice size its passes have (the prompt's; each decode batch's).
    if (s.experts > 0 && m_config.tp > 1)
    {
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(m_config.stream + 1);
        auto plans = [&](Instance& inst, uint64_t tokens)
        {
            const uint64_t t = TokensPerRank(tokens);
            if (inst.moe.count(t) > 0)
            {
                return;
            }
            const std::vector<uint32_t> ranks = helper.GetGroupRanks(inst.group);
            const std::vector<uint32_t> nodeOf = MoeRouting::NodesOf(ranks, m_config.gpusPerServer);
            // The model's experts, top-k and group limit (DeepSeek-V3: 4 of 8 groups).
            const MoeRoutingConfig rc = TransformerModel(s).RoutingConfig(static_cast<uint32_t>(t));
            std::string why;
            MoePlans p;
            p.routing = MoeRouting::Draw(rc, nodeOf, rng, why);
            NS_ABORT_MSG_IF(!p.routing, "InferenceRunner: " << why);
            const auto perToken = static_cast<uint64_t>(a * h);
            p.dispatch = MoeAllToAll::Build(*p.routing,
                                            m_config.dispatcher,
                                            false,
                                            perToken,
                                            helper.GetChunkBytes(NCCL_SIMPLE),
                                            helper.GetChannels(),
                                            m_config.dispatchCopyRate);
            p.combine = MoeAllToAll::Build(*p.routing,
                                           m_config.dispatcher,
                                           true,
                                           perToken,
                                           helper.GetChunkBytes(NCCL_SIMPLE),
                                           helper.GetChannels(),
                                           m_config.combineCopyRate);
            p.dispatch->SetProtocol(NCCL_SIMPLE);
            p.combine->SetProtocol(NCCL_SIMPLE);
            p.gather = make(CollectiveType::ALL_GATHER,
                            inst.group,
                            ranks,
                            static_cast<uint64_t>(a * h * static_cast<double>(t)
                                                  * m_config.tp)); // every rank's slice
            for (uint32_t k = 0; k < ranks.size(); ++k)
            {
                p.maxPairs = std::max(p.maxPairs, p.routing->GetAssignments(k));
            }
            helper.Connect(*p.dispatch, inst.group);
            helper.Connect(*p.combine, inst.group);
            helper.Connect(*p.gather, inst.group);
            inst.moe[t] = p;
        };
        for (Instance& inst : m_prefill)
        {
            plans(inst, m_config.inputTokens);
        }
        for (Instance& inst : m_decode)
        {
            for (uint32_t b = 1; b <= batches; ++b)
            {
                plans(inst, b);
            }
        }
    }
    // One rank's share of a cache: one message from the pair's prefill rank to its decode
    // rank.
    m_kvPlan = CollectivePlan::PointToPoint(m_kvShareBytes, "kv-cache");
    for (KvPair& pair : m_pairs)
    {
        helper.Connect(*m_kvPlan, pair.group);
        pair.send = helper.GetGroupCommunicator(pair.group, 0);
        pair.recv = helper.GetGroupCommunicator(pair.group, 1);
    }
}

void
InferenceRunner::Start()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_kvPlan, "InferenceRunner: Prepare() first");
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetAttribute("Mean", DoubleValue(1.0 / m_config.rate));
    gap->SetStream(m_config.stream);
    Time t;
    for (uint32_t r = 0; r < m_requests.size(); ++r)
    {
        t += Seconds(gap->GetValue());
        m_requests[r].arrival = Simulator::Now() + t;
        Simulator::Schedule(t, &InferenceRunner::Arrive, this, r);
    }
}

void
InferenceRunner::Arrive(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    uint32_t best = 0;
    for (uint32_t i = 1; i < m_prefill.size(); ++i)
    {
        best = m_prefill[i].load < m_prefill[best].load ? i : best;
    }
    m_requests[r].prefill = best;
    ++m_prefill[best].load;
    m_prefill[best].queue.push_back(r);
    TryPrefill(best);
}

void
InferenceRunner::TryPrefill(uint32_t i)
{
    NS_LOG_FUNCTION(this << i);
    Instance& inst = m_prefill[i];
    if (inst.busy || inst.queue.empty())
    {
        return;
    }
    const uint32_t r = inst.queue.front();
    inst.queue.pop_front();
    inst.running = {r};
    m_requests[r].prefillStart = Simulator::Now();
    inst.stages
        = Pass(m_config.inputTokens,
               {},
               inst.moe.empty() ? nullptr : &inst.moe.at(TokensPerRank(m_config.inputTokens)));
    inst.stage = 0;
    inst.busy = true;
    RunStage(inst, false, i);
}

void
InferenceRunner::TryDecode(uint32_t j)
{
    NS_LOG_FUNCTION(this << j);
    Instance& inst = m_decode[j];
    if (inst.busy)
    {
        return;
    }
    while (inst.running.size() < m_config.maxBatch && !inst.queue.empty())
    {
        inst.running.push_back(inst.queue.front());
        inst.queue.pop_front();
    }
    if (inst.running.empty())
    {
        return;
    }
    std::vector<uint64_t> contexts;
    for (uint32_t r : inst.running)
    {
        contexts.push_back(m_config.inputTokens + m_requests[r].generated);
    }
    inst.stages
        = Pass(inst.running.size(),
               contexts,
               inst.moe.empty() ? nullptr : &inst.moe.at(TokensPerRank(inst.running.size())));
    inst.stage = 0;
    inst.busy = true;
    ++m_steps;
    m_batchSum += inst.running.size();
    RunStage(inst, true, j);
}

void
InferenceRunner::RunStage(Instance& inst, bool decode, uint32_t index)
{
    if (inst.stage == inst.stages.size())
    {
        PassDone(decode, index);
        return;
    }
    const Stage& s = inst.stages[inst.stage];
    if (s.kind == StageKind::COMPUTE)
    {
        Simulator::Schedule(s.compute, &InferenceRunner::StageDone, this, decode, index);
        return;
    }
    const uint64_t tokens = decode ? inst.running.size() : m_config.inputTokens;
    Ptr<CollectiveSchedule> schedule;
    switch (s.kind)
    {
    case StageKind::ALL_REDUCE:
        schedule = decode ? m_decodeReduce[index][tokens - 1] : m_prefillReduce[index];
        break;
    case StageKind::DISPATCH:
        schedule = inst.moe.at(TokensPerRank(tokens)).dispatch;
        break;
    case StageKind::COMBINE:
        schedule = inst.moe.at(TokensPerRank(tokens)).combine;
        break;
    default:
        schedule = inst.moe.at(TokensPerRank(tokens)).gather;
        break;
    }
    inst.left = static_cast<uint32_t>(inst.comms.size());
    for (const Ptr<Communicator>& comm : inst.comms)
    {
        comm->Run(schedule, MakeBoundCallback(&InferenceRunner::ReduceDone, this, decode, index));
    }
}

void
InferenceRunner::StageDone(bool decode, uint32_t index)
{
    Instance& inst = decode ? m_decode[index] : m_prefill[index];
    ++inst.stage;
    RunStage(inst, decode, index);
}

void
InferenceRunner::ReduceDone(InferenceRunner* runner,
                            bool decode,
                            uint32_t index,
                            uint32_t /* commRank */)
{
    Instance& inst = decode ? runner->m_decode[index] : runner->m_prefill[index];
    if (--inst.left == 0)
    {
        runner->StageDone(decode, index);
    }
}

void
InferenceRunner::PassDone(bool decode, uint32_t index)
{
    NS_LOG_FUNCTION(this << decode << index);
    const Time now = Simulator::Now();
    Instance& inst = decode ? m_decode[index] : m_prefill[index];
    inst.busy = false;
    if (decode)
    {
        std::vector<uint32_t> still;
        for (uint32_t r : inst.running)
        {
            Request& req = m_requests[r];
            if (++req.generated < m_config.outputTokens)
            {
                still.push_back(r);
                continue;
            }
            req.lastToken = now;
            --inst.load;
            ++m_done;
            m_end = now;
            m_lastTokenTrace(r, now);
        }
        inst.running.swap(still);
        TryDecode(index);
        return;
    }
    const uint32_t r = inst.running.front();
    inst.running.clear();
    --inst.load;
    Request& req = m_requests[r];
    req.firstToken = now;
    req.generated = 1;
    m_firstTokenTrace(r, now);
    if (m_config.outputTokens == 1)
    {
        req.lastToken = now;
        ++m_done;
        m_end = now;
        m_lastTokenTrace(r, now);
    }
    else
    {
        uint32_t best = 0;
        for (uint32_t j = 1; j < m_decode.size(); ++j)
        {
            best = m_decode[j].load < m_decode[best].load ? j : best;
        }
        req.decode = best;
        ++m_decode[best].load;
        req.kvPending = m_config.tp;
        const uint32_t first
            = (index * static_cast<uint32_t>(m_decode.size()) + best) * m_config.tp;
        for (uint32_t k = 0; k < m_config.tp; ++k)
        {
            m_pairs[first + k].queue.push_back(r);
            TrySend(first + k);
        }
    }
    TryPrefill(index);
}

void
InferenceRunner::TrySend(uint32_t p)
{
    NS_LOG_FUNCTION(this << p);
    KvPair& pair = m_pairs[p];
    if (pair.busy || pair.queue.empty())
    {
        return;
    }
    pair.busy = true;
    pair.left = 2;
    pair.send->Run(m_kvPlan, MakeBoundCallback(&InferenceRunner::ShareSent, this, p));
    pair.recv->Run(m_kvPlan, MakeBoundCallback(&InferenceRunner::ShareArrived, this, p));
}

void
InferenceRunner::ShareSent(InferenceRunner* runner, uint32_t p, uint32_t /* commRank */)
{
    runner->SideDone(p);
}

void
InferenceRunner::SideDone(uint32_t p)
{
    NS_LOG_FUNCTION(this << p);
    // A pair's communicators run one schedule at a time: the next share waits for both
    // sides of this one (the sender's ends when its write is acknowledged).
    KvPair& pair = m_pairs[p];
    if (--pair.left == 0)
    {
        pair.busy = false;
        pair.queue.pop_front();
        TrySend(p);
    }
}

void
InferenceRunner::ShareArrived(InferenceRunner* runner, uint32_t p, uint32_t /* commRank */)
{
    const uint32_t r = runner->m_pairs[p].queue.front();
    Request& req = runner->m_requests[r];
    if (--req.kvPending == 0)
    {
        req.kvArrived = Simulator::Now();
        runner->m_decode[req.decode].queue.push_back(r);
        runner->TryDecode(req.decode);
    }
    runner->SideDone(p);
}

uint64_t
InferenceRunner::TokensPerRank(uint64_t tokens) const
{
    return (tokens + m_config.tp - 1) / m_config.tp;
}

std::vector<InferenceRunner::Stage>
InferenceRunner::Pass(uint64_t tokens,
                      const std::vector<uint64_t>& contexts,
                      const MoePlans* moe) const
{
    const TransformerSpec& s = m_config.model;
    const TransformerModel model(s);
    const double tp = m_config.tp;
    const double e = ComputeDataTypeBytes(m_config.dtype);
    const double a = m_config.dtype == ComputeDataType::FP8 ? 2 : e;
    const double T = static_cast<double>(tokens);
    const double h = static_cast<double>(s.hidden);
    const double d = static_cast<double>(model.HeadDim());
    const uint32_t kv = s.kvHeads > 0 ? s.kvHeads : s.heads;
    const double qWidth = s.heads * d / tp;
    const double kvWidth = std::max(1.0, static_cast<double>(kv) / tp) * d;
    const double ffn = static_cast<double>(s.ffnHidden) / tp;
    const double gates = s.gatedMlp ? 2 : 1;
    // Score products: QK^T and AV of every token over its context: a prompt's token over the
    // tokens up to it (causal: T (T + 1) / 2 pairs, as FlashAttention skips the masked
    // blocks), a decode step's over its request's whole context.
    double contextTokens = T * (T + 1) / 2;
    double cacheRead = 0;
    if (!contexts.empty())
    {
        contextTokens = 0;
        for (uint64_t c : contexts)
        {
            contextTokens += static_cast<double>(c);
        }
        cacheRead = contextTokens * 2 * kvWidth * m_kvElementBytes;
    }
    GpuComputeModel::BlockCost attn;
    attn.gemmFlops = 2 * T * static_cast<double>(model.AttentionParameters()) / tp;
    attn.gemmBytes = e
                     * (static_cast<double>(model.AttentionParameters()) / tp
                        + T * (h + qWidth + 2 * kvWidth + qWidth + h));
    attn.scoreFlops = 2 * contextTokens * s.heads * 2 * d / tp;
    attn.scoreBytes = a * T * (2 * qWidth + 2 * kvWidth) + cacheRead;
    attn.elementBytes = a * T * 5 * h; // layer norm; residual add
    if (s.kvLoraRank > 0)
    {
        // MLA. The weights cost a token 2 FLOPs each whichever way they are applied. A prompt
        // expands its latents into per-head keys (nope + rope) and values and scores them; a
        // decode step absorbs the key and value up-projections into the query and the output
        // (DeepSeek-V2, section 2.1.3) and scores the cached latents directly, kvLoraRank +
        // ropeDim for QK^T and kvLoraRank for AV, reading each cached token's latent once.
        const double heads = static_cast<double>(s.heads) / tp;
        const double qk = static_cast<double>(s.qkNopeHeadDim + s.qkRopeHeadDim);
        const double v = static_cast<double>(s.vHeadDim);
        const double latent = static_cast<double>(s.kvLoraRank + s.qkRopeHeadDim);
        const double qr = static_cast<double>(s.qLoraRank);
        const double down = static_cast<double>(model.LatentDownParameters());
        const double weights
            = down + (static_cast<double>(model.AttentionParameters()) - down) / tp;
        attn.gemmFlops = 2 * T * weights;
        const double kvr = static_cast<double>(s.kvLoraRank);
        const double nope = static_cast<double>(s.qkNopeHeadDim);
        // Every GEMM's input and output: the query's projections, the latent's, the output's;
        // a prompt's key-value up-projection (latent in, keys and values out), or a decode
        // step's absorbed ones (the query's nope part into the latent space, the attention's
        // output out of it).
        const double moved = (qr > 0 ? h + qr : 0) + (qr > 0 ? qr : h) + heads * qk + h + latent
                             + heads * v + h
                             + (contexts.empty() ? kvr + heads * (nope + v)
                                                 : heads * (nope + kvr) + heads * (kvr + v));
        attn.gemmBytes = e * (weights + T * moved);
        if (contexts.empty())
        {
            attn.scoreFlops = 2 * contextTokens * heads * (qk + v);
            attn.scoreBytes = a * T * heads * (2 * qk + 2 * v) + a * T * latent;
        }
        else
        {
            attn.scoreFlops
                = 2 * contextTokens * heads * (latent + static_cast<double>(s.kvLoraRank));
            attn.scoreBytes = a * T * heads * (latent + static_cast<double>(s.kvLoraRank))
                              + contextTokens * latent * m_kvElementBytes;
        }
    }
    GpuComputeModel::BlockCost mlp;
    mlp.gemmFlops = 2 * T * static_cast<double>(model.DenseMlpParameters()) / tp;
    mlp.gemmBytes = e
                    * (static_cast<double>(model.DenseMlpParameters()) / tp
                       + T * (h + gates * ffn + ffn + h));
    mlp.elementBytes = a * T * (2 * h + (gates + 1) * ffn + 3 * h);
    // The output layer: the prompt's last token, or every request's token.
    const double out = contexts.empty() ? 1 : T;
    GpuComputeModel::BlockCost output;
    output.gemmFlops = 2 * out * h * static_cast<double>(s.vocab) / tp;
    output.gemmBytes = e * (static_cast<double>(s.vocab) * h / tp + out * (h + s.vocab / tp));
    output.elementBytes = a * out * 2.0 * s.vocab / tp;
    // A MoE layer: the router on a rank's slice of the tokens, then its experts on the
    // (token, expert) pairs that landed on the busiest rank (all of them with one GPU), and
    // the shared experts on the slice; the weights of its experts and the shared ones.
    const bool experts = s.experts > 0;
    const double slice = experts ? static_cast<double>(TokensPerRank(tokens)) : 0;
    const double ef = static_cast<double>(s.expertFfnHidden);
    const double expertWeights = static_cast<double>(model.ExpertParameters());
    GpuComputeModel::BlockCost router;
    router.gemmFlops = 2 * slice * static_cast<double>(model.RouterParameters());
    router.gemmBytes
        = e * (static_cast<double>(model.RouterParameters()) + slice * h) + a * slice * s.experts;
    router.elementBytes = a * slice * 2.0 * s.experts + a * slice * 2 * h; // top-k; norm
    const double pairs = moe ? static_cast<double>(moe->maxPairs) : T * s.topK;
    const double shared = slice * s.sharedExperts;
    // The weights of the local experts some token uses: each of the pass's T tokens picks a
    // given expert with probability topk / experts.
    const double touched
        = experts ? static_cast<double>(s.experts) / tp
                        * (1 - std::pow(1 - static_cast<double>(s.topK) / s.experts, T))
                  : 0;
    GpuComputeModel::BlockCost expert;
    expert.gemmFlops = 2 * (pairs + shared) * expertWeights;
    expert.gemmBytes = e
                       * ((touched + s.sharedExperts) * expertWeights
                          + (pairs + shared) * (h + gates * ef + ef + h));
    expert.elementBytes = a * (pairs + shared) * (gates + 1) * ef + a * slice * 3 * h;
    const Time attnTime = m_gpu->BlockTime(attn, m_config.dtype);
    const Time mlpTime = m_gpu->BlockTime(mlp, m_config.dtype);
    const Time routerTime = m_gpu->BlockTime(router, m_config.dtype);
    const Time expertTime = m_gpu->BlockTime(expert, m_config.dtype);
    const Time outTime = m_gpu->BlockTime(output, m_config.dtype);
    std::vector<Stage> stages;
    auto compute = [&stages](Time t)
    {
        // Kernels one after another with nothing between them: one stage.
        if (!stages.empty() && stages.back().kind == StageKind::COMPUTE)
        {
            stages.back().compute += t;
            return;
        }
        stages.push_back({StageKind::COMPUTE, t});
    };
    auto collective = [&stages, this](StageKind kind)
    {
        if (m_config.tp > 1)
        {
            stages.push_back({kind, Time(0)});
        }
    };
    for (uint32_t l = 0; l < s.layers; ++l)
    {
        compute(attnTime);
        collective(StageKind::ALL_REDUCE);
        if (!model.IsMoeLayer(l))
        {
            compute(mlpTime);
            collective(StageKind::ALL_REDUCE);
            continue;
        }
        compute(routerTime);
        collective(StageKind::DISPATCH);
        compute(expertTime);
        collective(StageKind::COMBINE);
        collective(StageKind::ALL_GATHER);
    }
    compute(outTime);
    return stages;
}

bool
InferenceRunner::IsDone() const
{
    return !m_requests.empty() && m_done == m_requests.size();
}

Time
InferenceRunner::GetEndTime() const
{
    return m_end;
}

const std::vector<InferenceRunner::Request>&
InferenceRunner::GetRequests() const
{
    return m_requests;
}

uint64_t
InferenceRunner::GetKvBytes() const
{
    return m_kvBytes;
}

uint64_t
InferenceRunner::GetKvBytesSent() const
{
    return m_config.outputTokens > 1 ? m_kvShareBytes * m_config.tp : 0;
}

uint64_t
InferenceRunner::GetDecodeSteps() const
{
    return m_steps;
}

uint64_t
InferenceRunner::GetDecodeBatchSum() const
{
    return m_batchSum;
}

} // namespace ns3
