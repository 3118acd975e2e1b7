/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TRANSFORMER_MODEL_H
#define TRANSFORMER_MODEL_H

#include "moe-routing.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A decoder-only transformer's shape, as its published configuration gives it.
 *
 * Attention is multi-head (kvHeads == heads), grouped-query (kvHeads < heads) or, where
 * qLoraRank or kvLoraRank is set, DeepSeek's multi-head latent attention (MLA). The MLP is
 * dense, or a mixture of experts on every layer from firstMoeLayer on: experts routed experts
 * of expertFfnHidden each, topK of them per token, plus sharedExperts always used.
 */
struct TransformerSpec
{
    std::string name;            //!< preset name ("gpt3-175b")
    uint32_t layers{0};          //!< transformer layers
    uint64_t hidden{0};          //!< model (hidden) dimension
    uint64_t ffnHidden{0};       //!< dense MLP's inner dimension
    uint32_t heads{0};           //!< attention (query) heads
    uint32_t kvHeads{0};         //!< key/value heads (GQA; = heads: MHA)
    uint64_t headDim{0};         //!< per-head dimension (0: hidden / heads)
    uint64_t vocab{0};           //!< vocabulary
    uint64_t seqLength{0};       //!< training sequence length
    bool gatedMlp{false};        //!< SwiGLU: three matrices per MLP (else two)
    bool tiedEmbeddings{false};  //!< the output layer reuses the input embedding
    uint32_t experts{0};         //!< routed experts per MoE layer (0: dense model)
    uint32_t topK{0};            //!< routed experts per token
    uint32_t sharedExperts{0};   //!< experts every token uses
    uint64_t expertFfnHidden{0}; //!< an expert's inner dimension
    uint32_t firstMoeLayer{0};   //!< layers before it are dense
    uint64_t qLoraRank{0};       //!< MLA: query compression rank (0: none)
    uint64_t kvLoraRank{0};      //!< MLA: key/value compression rank (0: not MLA)
    uint64_t qkNopeHeadDim{0};   //!< MLA: per-head query/key dimension without RoPE
    uint64_t qkRopeHeadDim{0};   //!< MLA: per-head query/key dimension with RoPE
    uint64_t vHeadDim{0};        //!< MLA: per-head value dimension
    uint32_t expertGroups{0};    //!< router: groups of experts (0: no group limit)
    uint32_t topkGroups{0};      //!< router: groups a token's experts may come from
    /// Multi-token-prediction modules (DeepSeek-V3 trains with 1; 0: none), each a projection
    /// of the hidden state and the next token's embedding (2 x hidden to hidden), a layer like
    /// the model's last (layer index layers + k) and the shared output layer.
    uint32_t mtpLayers{0};
    std::string source; //!< the published configuration
};

/**
 * \ingroup ai-fabric
 * \brief A transformer's parameters and the FLOPs of a training step, from its shape.
 *
 * Counts are of the weight matrices (norms and biases, a few per million, are left out). A
 * forward pass costs 2 FLOPs per weight a token meets (a multiply-add), plus attention's two
 * score products, QK^T and AV: 2 x 2 x s x heads x headDim per token and layer, counted over
 * the whole sequence as Megatron-LM does (no causal halving). The backward pass costs twice
 * the forward. For GPT-3 a step of B sequences is then 72 B s l h^2 (1 + s / (6h) + V / (12 l
 * h)): Megatron-LM's count (Narayanan et al., SC21, section 5.1: 96 B s l h^2 (1 + s / (6h) +
 * V / (16 l h)) with the layers' forward recomputed) without the recomputation.
 */
class TransformerModel
{
  public:
    /**
     * \param spec the shape (must have layers, hidden, heads and vocab)
     */
    explicit TransformerModel(TransformerSpec spec);

    /**
     * \param name a preset: gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b,
     *        deepseek-v3
     * \param spec set to its shape
     * \return false if there is no such preset
     */
    static bool GetPreset(const std::string& name, TransformerSpec& spec);

    /// \return every preset's name
    static std::vector<std::string> GetPresetNames();

    /// \return the shape
    const TransformerSpec& GetSpec() const;

    /// \return weights of one layer's attention
    uint64_t AttentionParameters() const;
    /**
     * \return the weights of MLA's down-projections to the query and key-value latents (whole
     *         on every tensor-parallel rank; the rest of the attention splits by heads); 0
     *         without MLA
     */
    uint64_t LatentDownParameters() const;
    /**
     * \param tokens tokens each rank routes
     * \return the router's draw: the model's experts and top-k, with its group limit (n_group
     *         and topk_group, DeepSeek-V3: 4 of 8 groups) or none
     */
    MoeRoutingConfig RoutingConfig(uint32_t tokens) const;
    /// \return weights of one dense MLP (ffnHidden)
    uint64_t DenseMlpParameters() const;
    /// \return weights of one expert (expertFfnHidden)
    uint64_t ExpertParameters() const;
    /// \return weights of the router of one MoE layer
    uint64_t RouterParameters() const;

    /**
     * \param layer a layer (0-based)
     * \return true if its MLP is a mixture of experts
     */
    bool IsMoeLayer(uint32_t layer) const;

    /**
     * \param layer a layer
     * \return its weights (every expert)
     */
    uint64_t LayerParameters(uint32_t layer) const;

    /**
     * \param layer a layer
     * \return the weights one token meets in it (its topK routed and shared experts)
     */
    uint64_t LayerActiveParameters(uint32_t layer) const;

    /// \return input embedding weights (vocab x hidden)
    uint64_t EmbeddingParameters() const;
    /// \return output layer weights (0 when tied to the embedding)
    uint64_t OutputParameters() const;

    /// \return every weight of the model (the multi-token-prediction modules' included)
    uint64_t TotalParameters() const;
    /// \return the weights of a multi-token-prediction module's projection (2 x hidden to
    ///         hidden); its layer's are LayerParameters(layers + k)
    uint64_t MtpProjectionParameters() const;
    /// \return the weights one token meets
    uint64_t ActiveParameters() const;

    /**
     * \param layer a layer
     * \param tokens tokens in the pass (micro-batch x sequence)
     * \param seq the sequence length the attention spans
     * \return FLOPs of the layer's forward pass
     */
    double LayerForwardFlops(uint32_t layer, uint64_t tokens, uint64_t seq) const;

    /**
     * \param tokens tokens in the pass
     * \return FLOPs of the output layer's forward pass (the logits)
     */
    double OutputForwardFlops(uint64_t tokens) const;

    /**
     * \param batch sequences in the step (the global batch)
     * \return FLOPs of one training step: forward and backward of every layer and the output
     *         layer, and of each multi-token-prediction module (its projection, its layer and
     *         the output layer again), without recomputation (3 x the forward)
     */
    double TrainingStepFlops(uint64_t batch) const;

    /// \return the per-head dimension of queries and keys (headDim, or hidden / heads)
    uint64_t HeadDim() const;

  private:
    TransformerSpec m_spec; //!< the shape
};

} // namespace ns3

#endif /* TRANSFORMER_MODEL_H */
