/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef INFERENCE_RUNNER_H
#define INFERENCE_RUNNER_H

#include "collective-plan.h"
#include "collective-schedule.h"
#include "gpu-compute-model.h"
#include "moe-all-to-all.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "transformer-model.h"

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;
class Communicator;

/**
 * \ingroup ai-fabric
 * Disaggregated serving: prefill and decode instances of one model and the requests they
 * serve.
 */
struct InferenceConfig
{
    TransformerSpec model;                        //!< the model (dense)
    ComputeDataType dtype{ComputeDataType::BF16}; //!< the GEMMs' and weights' data type
    uint32_t prefillInstances{1};                 //!< instances that run prompts
    uint32_t decodeInstances{1};                  //!< instances that generate tokens
    uint32_t tp{8};                               //!< GPUs (tensor-parallel ranks) per instance
    uint32_t requests{32};                        //!< requests served
    double rate{20};                              //!< mean arrival rate (requests/s, Poisson)
    uint64_t inputTokens{2048};                   //!< prompt length
    uint64_t outputTokens{128};                   //!< tokens generated per request
    uint32_t maxBatch{64};                        //!< requests a decode step holds at most
    uint32_t gpusPerServer{0}; //!< GPUs per server, for the MoE relays (0: one server)
    MoeDispatcher dispatcher{MoeDispatcher::FLAT}; //!< how MoE layers move their tokens
    double dispatchCopyRate{0};    //!< DeepEP: MoeLayer::dispatchCopyRate (0: not costed)
    double combineCopyRate{0};     //!< DeepEP: MoeLayer::combineCopyRate (0: not costed)
    int64_t stream{(1 << 20) + 1}; //!< the arrivals' random stream
};

/**
 * \ingroup ai-fabric
 * \brief Serves requests with prefill and decode on separate GPUs (disaggregated serving, as
 * DistServe, Splitwise and Mooncake run it) over the fabric, and measures time to first token
 * and time per output token.
 *
 * Ranks: prefill instance i holds ranks i x tp .. i x tp + tp - 1, decode instance j the tp
 * ranks after the prefill instances'. An instance runs the model tensor-parallel over its
 * ranks as Megatron-LM does (a TP all-reduce after each attention and each MLP); its ranks
 * compute in step (one event per kernel group, for all of them).
 *
 * - **Arrivals**: requests arrive as a Poisson process of the given rate (exponential gaps
 *   from the configured random stream, so RngRun varies them), each with inputTokens of
 *   prompt and outputTokens to generate.
 * - **Prefill**: a request goes to the prefill instance with the fewest requests queued or
 *   running (lowest index on a tie), which runs its prompt alone (no batching of prompts, no
 *   chunked prefill): every layer, then the output layer on the last token. Its first token
 *   is out then (time to first token, TTFT).
 * - **KV cache transfer**: prefill rank k sends its share of the request's KV cache (every
 *   layer's keys and values of the prompt, its KV heads' share, BF16) to rank k of the decode
 *   instance with the fewest requests (queued, running or on their way), over the fabric. The
 *   prefill instance goes on with its next request meanwhile; a (prefill rank, decode rank)
 *   pair sends one cache at a time, in order.
 * - **Decode**: continuous batching. When a decode instance is free it admits the requests
 *   whose caches have arrived, oldest first, up to maxBatch, and runs one step for all its
 *   requests: every layer (the weights read once, each request's cache read), then the output
 *   layer; every request gets a token. Done requests leave after the step. A request's time
 *   per output token (TPOT) is (last token - first token) / (outputTokens - 1).
 * - **Kernels**: GpuComputeModel::BlockTime on the instance's GPU, per layer attention and
 *   MLP as the training step costs them (GEMMs, score products, element-wise traffic); a
 *   prompt's score products are causal (T (T + 1) / 2 token pairs, as FlashAttention skips the
 *   masked blocks), a decode step's read each request's cache.
 *
 * - **Mixtures of experts**: attention is tensor-parallel as above; a MoE layer's experts
 *   are spread over the instance's GPUs (expert parallelism), each rank routes its slice of
 *   the pass's tokens (ceil(tokens / tp)), dispatches them to their experts' ranks, the experts
 *   run on the (token, expert) pairs that landed (the busiest rank sets the pace: the ranks
 *   compute in step; the weights read are those of the local experts some token of the pass
 *   uses, in expectation), the outputs come back by a combine and an all-gather gives every
 *   rank every token's. Attention's all-reduce stays whole (Megatron-Core's sequence
 *   parallelism would reduce-scatter it instead). A slice is ceil(tokens / tp) on every rank,
 *   so a decode batch below tp routes padding tokens. The routing is drawn once per instance
 *   and slice size (MoeRouting, the model's group limit) and used by every layer; the plans
 *   are built for every slice size up front. Tokens travel as BF16 activations (no FP8
 *   dispatch).
 * - **Multi-head latent attention** (DeepSeek-V3): the cache holds each token's latent and
 *   RoPE key ((kvLoraRank + qkRopeHeadDim) x layers elements), whole on every rank of the
 *   instance and sent by each; a prompt scores expanded keys and values, a decode step the
 *   cached latents with the up-projections absorbed (DeepSeek-V2, section 2.1.3); the latent
 *   down-projections are whole on every rank, the rest split by heads.
 *
 * Left out: prompt batching and chunked prefill, speculative decoding, paged-memory limits
 * (the batch is limited by maxBatch, not by HBM), preemption, prefix caching, the
 * scheduler's own time, and data-parallel attention (DeepSeek's serving runs MLA per GPU).
 *
 * Call Check(), Setup(), AddGroups() before the helper's Install(), Prepare() after it, then
 * Start().
 */
class InferenceRunner : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    InferenceRunner();
    ~InferenceRunner() override;

    /// What happened to one request.
    struct Request
    {
        Time arrival;          //!< when it arrived
        Time prefillStart{-1}; //!< when its prompt started
        Time firstToken{-1};   //!< its first token (prefill done)
        Time kvArrived{-1};    //!< its cache at the decode instance
        Time lastToken{-1};    //!< its last token
        uint32_t prefill{0};   //!< its prefill instance
        uint32_t decode{0};    //!< its decode instance
        uint64_t generated{0}; //!< tokens generated so far (the first included)
        uint32_t kvPending{0}; //!< cache shares still on their way
    };

    /**
     * \param config the serving configuration
     * \param gpus the GPUs there are
     * \param gpu the compute model
     * \param[out] error one line when the configuration cannot run
     * \return true if it can run
     */
    static bool Check(const InferenceConfig& config,
                      uint32_t gpus,
                      const GpuComputeModel& gpu,
                      std::string& error);

    /**
     * \param config the serving configuration (Check() must pass)
     * \param gpu the compute model
     */
    void Setup(const InferenceConfig& config, Ptr<GpuComputeModel> gpu);

    /// \return the configuration
    const InferenceConfig& GetConfig() const;

    /**
     * \brief Add the instances' TP groups and the KV pairs to the helper, before its
     *        Install().
     * \param helper the helper
     */
    void AddGroups(CollectiveHelper& helper);

    /// Makes a TP collective's schedule: (the collective (all-reduce, or all-gather for a
    /// MoE layer's outputs), the helper's group, its ranks, bytes).
    using ScheduleMaker = std::function<Ptr<CollectiveSchedule>(
        CollectiveType, uint32_t, const std::vector<uint32_t>&, uint64_t)>;

    /**
     * \brief Make every schedule the run needs (the prompt's all-reduce, a decode step's for
     *        each batch size, a cache transfer) and open their connections, after the
     *        helper's Install().
     * \param helper the helper
     * \param make makes a TP all-reduce's schedule
     */
    void Prepare(CollectiveHelper& helper, ScheduleMaker make);

    /// Schedule the arrivals.
    void Start();

    /// \return true when every request has its last token
    bool IsDone() const;
    /// \return the time of the last token out so far
    Time GetEndTime() const;
    /// \return every request, in arrival order
    const std::vector<Request>& GetRequests() const;
    /// \return bytes of one request's KV cache (every layer's keys and values of its prompt)
    uint64_t GetKvBytes() const;
    /// \return bytes sent for one request's cache: every decode rank's share, so a KV head
    ///         held by several ranks (tp above the KV heads) is sent to each (0 with one
    ///         output token: no cache moves)
    uint64_t GetKvBytesSent() const;
    /// \return decode steps run
    uint64_t GetDecodeSteps() const;
    /// \return requests in decode steps, summed over the steps
    uint64_t GetDecodeBatchSum() const;

    /**
     * TracedCallback signature for a request's milestone.
     * \param request its index
     * \param time now
     */
    typedef void (*RequestTracedCallback)(uint32_t request, Time time);

  private:
    void DoDispose() override;

    /// What a stage does.
    enum class StageKind : uint8_t
    {
        COMPUTE,    //!< a kernel group
        ALL_REDUCE, //!< the TP all-reduce of the pass's activations
        DISPATCH,   //!< a MoE layer's tokens to their experts over the instance
        COMBINE,    //!< their outputs back
        ALL_GATHER, //!< every rank's slice of the MoE outputs to every rank
    };

    /// One kernel group or collective of a pass over the model.
    struct Stage
    {
        StageKind kind{StageKind::COMPUTE}; //!< what it does
        Time compute;                       //!< a kernel group's time
    };

    /// A mixture of experts' traffic for one number of tokens per rank, on one instance.
    struct MoePlans
    {
        Ptr<const MoeRouting> routing;  //!< every rank's tokens' experts
        Ptr<CollectivePlan> dispatch;   //!< the dispatch
        Ptr<CollectivePlan> combine;    //!< the combine
        Ptr<CollectiveSchedule> gather; //!< the all-gather of the outputs
        uint64_t maxPairs{0};           //!< the most (token, expert) pairs on one rank
    };

    /// A prefill or decode instance.
    struct Instance
    {
        uint32_t firstRank{0};                //!< its first rank
        uint32_t group{0};                    //!< its TP group (0: tp 1)
        std::vector<Ptr<Communicator>> comms; //!< its ranks' TP communicators
        bool busy{false};                     //!< a pass is running
        std::vector<Stage> stages;            //!< the pass's stages
        uint32_t stage{0};                    //!< the one running
        uint32_t left{0};                     //!< ranks whose all-reduce is not done
        std::deque<uint32_t> queue;           //!< prefill: waiting; decode: caches arrived
        std::vector<uint32_t> running;        //!< prefill: the prompt; decode: the batch
        uint32_t load{0};                     //!< requests assigned and not done
        std::map<uint64_t, MoePlans> moe;     //!< by tokens per rank (a MoE model)
    };

    /// A (prefill rank, decode rank) pair's cache transfers.
    struct KvPair
    {
        uint32_t group{0};          //!< the helper's group
        Ptr<Communicator> send;     //!< the prefill rank's side
        Ptr<Communicator> recv;     //!< the decode rank's side
        std::deque<uint32_t> queue; //!< requests whose share waits
        bool busy{false};           //!< a share is on its way
        uint32_t left{0};           //!< its sides (send, receive) not done
    };

    /// \param r a request arrives
    void Arrive(uint32_t r);
    /// \param i a prefill instance that may start its next prompt
    void TryPrefill(uint32_t i);
    /// \param j a decode instance that may start a step
    void TryDecode(uint32_t j);
    /**
     * \param inst an instance
     * \param decode true for a decode instance
     * \param index its index
     */
    void RunStage(Instance& inst, bool decode, uint32_t index);
    /**
     * \param decode true for a decode instance
     * \param index its index
     */
    void StageDone(bool decode, uint32_t index);
    /**
     * \param runner this
     * \param decode true for a decode instance
     * \param index its index
     * \param commRank the communicator's rank
     */
    static void ReduceDone(InferenceRunner* runner, bool decode, uint32_t index, uint32_t commRank);
    /**
     * \param decode true for a decode instance
     * \param index its index
     */
    void PassDone(bool decode, uint32_t index);
    /// \param pair a KV pair that may send its next share
    void TrySend(uint32_t pair);
    /**
     * \param runner this
     * \param pair the pair whose share arrived
     * \param commRank the communicator's rank
     */
    static void ShareArrived(InferenceRunner* runner, uint32_t pair, uint32_t commRank);
    /**
     * \param runner this
     * \param pair the pair whose share was sent
     * \param commRank the communicator's rank
     */
    static void ShareSent(InferenceRunner* runner, uint32_t pair, uint32_t commRank);
    /// \param pair a pair one of whose sides is done with its share
    void SideDone(uint32_t pair);
    /**
     * \param tokens tokens in the pass
     * \param contexts each request's context (decode), or empty (prefill of tokens)
     * \param moe the instance's MoE traffic for this pass (nullptr: a dense model)
     * \return a pass's stages
     */
    std::vector<Stage> Pass(uint64_t tokens,
                            const std::vector<uint64_t>& contexts,
                            const MoePlans* moe) const;
    /**
     * \param tokens tokens in a pass
     * \return the tokens each rank routes (the pass's split over the instance)
     */
    uint64_t TokensPerRank(uint64_t tokens) const;

    InferenceConfig m_config;                             //!< the configuration
    Ptr<GpuComputeModel> m_gpu;                           //!< the kernels' costs
    std::vector<Instance> m_prefill;                      //!< prefill instances
    std::vector<Instance> m_decode;                       //!< decode instances
    std::vector<KvPair> m_pairs;                          //!< by (prefill, decode, rank)
    std::vector<Request> m_requests;                      //!< in arrival order
    std::vector<Ptr<CollectiveSchedule>> m_prefillReduce; //!< by prefill instance
    std::vector<std::vector<Ptr<CollectiveSchedule>>> m_decodeReduce; //!< by instance, batch
    Ptr<CollectiveSchedule> m_kvPlan;                 //!< one rank's share of a cache
    uint64_t m_kvShareBytes{0};                       //!< its bytes
    uint64_t m_kvBytes{0};                            //!< a request's whole cache
    double m_kvElementBytes{2};                       //!< KvElementBytes
    uint32_t m_done{0};                               //!< requests with their last token
    Time m_end;                                       //!< the last token
    uint64_t m_steps{0};                              //!< decode steps
    uint64_t m_batchSum{0};                           //!< requests over the decode steps
    TracedCallback<uint32_t, Time> m_firstTokenTrace; //!< a request's first token
    TracedCallback<uint32_t, Time> m_lastTokenTrace;  //!< a request's last token
};

} // namespace ns3

#endif /* INFERENCE_RUNNER_H */
