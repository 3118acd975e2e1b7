/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "transformer-model.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cctype>

namespace ns3
{

namespace
{

/// The presets, from the models' published configurations.
const std::vector<TransformerSpec>&
Presets()
{
    static const std::vector<TransformerSpec> presets = []
    {
        std::vector<TransformerSpec> list;
        TransformerSpec gpt3;
        gpt3.name = "gpt3-175b";
        gpt3.layers = 96;
        gpt3.hidden = 12288;
        gpt3.ffnHidden = 49152;
        gpt3.heads = 96;
        gpt3.kvHeads = 96;
        gpt3.vocab = 51200;
        gpt3.seqLength = 2048;
        gpt3.tiedEmbeddings = true;
        gpt3.source
            = "Brown et al. 2020 (GPT-3), Table 2.1: 96 layers, d_model 12288, 96 heads; "
              "NVIDIA NeMo GPTConfig175B (FFN 4 x 12288); Megatron-LM: vocabulary padded "
              "to 51,200, sequence 2048, tied embeddings";
        list.push_back(gpt3);

        TransformerSpec llama;
        llama.gatedMlp = true;
        llama.vocab = 128256;
        llama.seqLength = 8192;
        llama.kvHeads = 8;
        llama.name = "llama3-8b";
        llama.layers = 32;
        llama.hidden = 4096;
        llama.ffnHidden = 14336;
        llama.heads = 32;
        llama.source
            = "Meta Llama 3 8B config.json: 32 layers, hidden 4096, intermediate 14336, "
              "32 heads, 8 KV heads, vocabulary 128,256; NVIDIA NeMo Llama3Config8B "
              "(sequence 8192)";
        list.push_back(llama);
        llama.name = "llama3-70b";
        llama.layers = 80;
        llama.hidden = 8192;
        llama.ffnHidden = 28672;
        llama.heads = 64;
        llama.source
            = "Meta Llama 3 70B config.json: 80 layers, hidden 8192, intermediate 28672, "
              "64 heads, 8 KV heads, vocabulary 128,256; NVIDIA NeMo Llama3Config70B";
        list.push_back(llama);
        llama.name = "llama3-405b";
        llama.layers = 126;
        llama.hidden = 16384;
        llama.ffnHidden = 53248;
        llama.heads = 128;
        llama.source
            = "Meta Llama 3.1 405B config.json: 126 layers, hidden 16384, intermediate "
              "53248, 128 heads, 8 KV heads, vocabulary 128,256; NVIDIA NeMo "
              "Llama31Config405B (sequence 8192)";
        list.push_back(llama);

        TransformerSpec mixtral;
        mixtral.name = "mixtral-8x7b";
        mixtral.layers = 32;
        mixtral.hidden = 4096;
        mixtral.ffnHidden = 14336;
        mixtral.heads = 32;
        mixtral.kvHeads = 8;
        mixtral.vocab = 32000;
        mixtral.seqLength = 4096;
        mixtral.gatedMlp = true;
        mixtral.experts = 8;
        mixtral.topK = 2;
        mixtral.expertFfnHidden = 14336;
        mixtral.source
            = "mistralai/Mixtral-8x7B config.json: 32 layers, hidden 4096, "
              "intermediate 14336, 32 heads, 8 KV heads, 8 experts, 2 per token, "
              "vocabulary 32,000; NVIDIA NeMo MixtralConfig8x7B (sequence 4096)";
        list.push_back(mixtral);

        TransformerSpec deepseek;
        deepseek.name = "deepseek-v3";
        deepseek.layers = 61;
        deepseek.hidden = 7168;
        deepseek.ffnHidden = 18432;
        deepseek.heads = 128;
        deepseek.kvHeads = 128;
        deepseek.vocab = 129280;
        deepseek.seqLength = 4096;
        deepseek.gatedMlp = true;
        deepseek.experts = 256;
        deepseek.topK = 8;
        deepseek.sharedExperts = 1;
        deepseek.expertFfnHidden = 2048;
        deepseek.firstMoeLayer = 3;
        deepseek.qLoraRank = 1536;
        deepseek.kvLoraRank = 512;
        deepseek.qkNopeHeadDim = 128;
        deepseek.qkRopeHeadDim = 64;
        deepseek.vHeadDim = 128;
        deepseek.expertGroups = 8;
        deepseek.topkGroups = 4;
        deepseek.source
            = "DeepSeek-V3 config.json and NVIDIA NeMo DeepSeekV3Config: 61 layers "
              "(the first 3 dense, FFN 18432), hidden 7168, 128 heads with MLA (q "
              "rank 1536, kv rank 512, head dims 128 + 64 RoPE, values 128), 256 "
              "routed experts of 2048, 8 per token from at most 4 of 8 groups (n_group, "
              "topk_group), 1 shared, vocabulary 129,280; "
              "sequence 4096; its multi-token-prediction module (depth 1) is not in the "
              "preset (mtpLayers = 1 adds it)";
        list.push_back(deepseek);
        return list;
    }();
    return presets;
}

} // namespace

TransformerModel::TransformerModel(TransformerSpec spec)
    : m_spec(std::move(spec))
{
    NS_ABORT_MSG_IF(
        m_spec.layers == 0 || m_spec.hidden == 0 || m_spec.heads == 0 || m_spec.vocab == 0,
        "TransformerModel: " << m_spec.name << " needs layers, hidden, heads and vocab");
    if (m_spec.kvHeads == 0)
    {
        m_spec.kvHeads = m_spec.heads;
    }
    NS_ABORT_MSG_IF(
        m_spec.experts > 0
            && (m_spec.topK == 0 || m_spec.topK > m_spec.experts || m_spec.expertFfnHidden == 0),
        "TransformerModel: " << m_spec.name
                             << ": a mixture of experts needs 1 <= topK <= experts "
                                "and an expert size");
}

bool
TransformerModel::GetPreset(const std::string& name, TransformerSpec& spec)
{
    std::string lower = name;
    std::transform(lower.begin(),
                   lower.end(),
                   lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const TransformerSpec& preset : Presets())
    {
        if (preset.name == lower)
        {
            spec = preset;
            return true;
        }
    }
    return false;
}

std::vector<std::string>
TransformerModel::GetPresetNames()
{
    std::vector<std::string> names;
    for (const TransformerSpec& preset : Presets())
    {
        names.push_back(preset.name);
    }
    return names;
}

const TransformerSpec&
TransformerModel::GetSpec() const
{
    return m_spec;
}

uint64_t
TransformerModel::HeadDim() const
{
    return m_spec.headDim > 0 ? m_spec.headDim : m_spec.hidden / m_spec.heads;
}

uint64_t
TransformerModel::AttentionParameters() const
{
    const TransformerSpec& s = m_spec;
    const uint64_t h = s.hidden;
    if (s.kvLoraRank > 0)
    {
        // MLA: queries through a low-rank projection (or directly), keys and values from one
        // compressed latent and a shared RoPE key, then the output projection.
        const uint64_t qk = s.qkNopeHeadDim + s.qkRopeHeadDim;
        const uint64_t q
            = s.qLoraRank > 0 ? h * s.qLoraRank + s.qLoraRank * s.heads * qk : h * s.heads * qk;
        const uint64_t kv = h * (s.kvLoraRank + s.qkRopeHeadDim)
                            + s.kvLoraRank * s.heads * (s.qkNopeHeadDim + s.vHeadDim);
        return q + kv + s.heads * s.vHeadDim * h;
    }
    const uint64_t d = HeadDim();
    return h * s.heads * d + 2 * h * s.kvHeads * d + s.heads * d * h;
}

uint64_t
TransformerModel::LatentDownParameters() const
{
    const TransformerSpec& s = m_spec;
    if (s.kvLoraRank == 0)
    {
        return 0;
    }
    return s.hidden * s.qLoraRank + s.hidden * (s.kvLoraRank + s.qkRopeHeadDim);
}

MoeRoutingConfig
TransformerModel::RoutingConfig(uint32_t tokens) const
{
    MoeRoutingConfig rc;
    rc.tokens = tokens;
    rc.experts = m_spec.experts;
    rc.topk = m_spec.topK;
    rc.expertGroups = m_spec.expertGroups > 0 ? m_spec.expertGroups : 1;
    rc.topkGroups = m_spec.expertGroups > 0 ? m_spec.topkGroups : 1;
    return rc;
}

uint64_t
TransformerModel::DenseMlpParameters() const
{
    return (m_spec.gatedMlp ? 3 : 2) * m_spec.hidden * m_spec.ffnHidden;
}

uint64_t
TransformerModel::ExpertParameters() const
{
    return (m_spec.gatedMlp ? 3 : 2) * m_spec.hidden * m_spec.expertFfnHidden;
}

uint64_t
TransformerModel::RouterParameters() const
{
    return m_spec.hidden * m_spec.experts;
}

bool
TransformerModel::IsMoeLayer(uint32_t layer) const
{
    return m_spec.experts > 0 && layer >= m_spec.firstMoeLayer;
}

uint64_t
TransformerModel::LayerParameters(uint32_t layer) const
{
    if (!IsMoeLayer(layer))
    {
        return AttentionParameters() + DenseMlpParameters();
    }
    return AttentionParameters() + (m_spec.experts + m_spec.sharedExperts) * ExpertParameters()
           + RouterParameters();
}

uint64_t
TransformerModel::LayerActiveParameters(uint32_t layer) const
{
    if (!IsMoeLayer(layer))
    {
        return LayerParameters(layer);
    }
    return AttentionParameters() + (m_spec.topK + m_spec.sharedExperts) * ExpertParameters()
           + RouterParameters();
}

uint64_t
TransformerModel::EmbeddingParameters() const
{
    return m_spec.vocab * m_spec.hidden;
}

uint64_t
TransformerModel::OutputParameters() const
{
    return m_spec.tiedEmbeddings ? 0 : m_spec.vocab * m_spec.hidden;
}

uint64_t
TransformerModel::TotalParameters() const
{
    uint64_t total = EmbeddingParameters() + OutputParameters();
    for (uint32_t l = 0; l < m_spec.layers + m_spec.mtpLayers; ++l)
    {
        total += LayerParameters(l);
    }
    return total + m_spec.mtpLayers * MtpProjectionParameters();
}

uint64_t
TransformerModel::MtpProjectionParameters() const
{
    return 2 * m_spec.hidden * m_spec.hidden;
}

uint64_t
TransformerModel::ActiveParameters() const
{
    uint64_t total = EmbeddingParameters() + OutputParameters();
    for (uint32_t l = 0; l < m_spec.layers; ++l)
    {
        total += LayerActiveParameters(l);
    }
    return total;
}

double
TransformerModel::LayerForwardFlops(uint32_t layer, uint64_t tokens, uint64_t seq) const
{
    const TransformerSpec& s = m_spec;
    const double t = static_cast<double>(tokens);
    // Weights: a multiply-add per weight a token meets.
    const double weights = 2.0 * t * static_cast<double>(LayerActiveParameters(layer));
    // Scores: QK^T and AV over the whole sequence, per token and head.
    const uint64_t qk = s.kvLoraRank > 0 ? s.qkNopeHeadDim + s.qkRopeHeadDim : HeadDim();
    const uint64_t v = s.kvLoraRank > 0 ? s.vHeadDim : HeadDim();
    const double scores
        = 2.0 * t * static_cast<double>(seq) * s.heads * static_cast<double>(qk + v);
    return weights + scores;
}

double
TransformerModel::OutputForwardFlops(uint64_t tokens) const
{
    return 2.0 * static_cast<double>(tokens) * static_cast<double>(m_spec.hidden)
           * static_cast<double>(m_spec.vocab);
}

double
TransformerModel::TrainingStepFlops(uint64_t batch) const
{
    const uint64_t tokens = batch * m_spec.seqLength;
    double forward = OutputForwardFlops(tokens);
    for (uint32_t l = 0; l < m_spec.layers; ++l)
    {
        forward += LayerForwardFlops(l, tokens, m_spec.seqLength);
    }
    for (uint32_t k = 0; k < m_spec.mtpLayers; ++k)
    {
        forward
            += 2.0 * static_cast<double>(tokens) * static_cast<double>(MtpProjectionParameters())
               + LayerForwardFlops(m_spec.layers + k, tokens, m_spec.seqLength)
               + OutputForwardFlops(tokens);
    }
    return 3.0 * forward; // the backward pass: gradients of inputs and of weights
}

} // namespace ns3
