/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef MOE_ALL_TO_ALL_H
#define MOE_ALL_TO_ALL_H

#include "collective-plan.h"
#include "moe-routing.h"

#include <string>
#include <vector>

namespace ns3
{

struct Workload;

/**
 * \ingroup ai-fabric
 * How a mixture-of-experts layer moves its tokens to the experts (dispatch) and their outputs
 * back (combine).
 */
enum class MoeDispatcher : uint8_t
{
    /// Each rank sends each token once to every rank holding one of its experts, over NVLink
    /// or the network (Megatron-Core's all-to-all token dispatcher: an all-to-all-v)
    FLAT,
    /// DeepEP's normal kernels: a token crosses the network once per node it has experts on,
    /// to the GPU of its own rail there, which forwards it over NVLink to the experts' GPUs
    HIERARCHICAL,
};

/**
 * \param d a dispatcher
 * \return its name on the command line ("flat", "deepep")
 */
const char* MoeDispatcherName(MoeDispatcher d);

/**
 * \param name "flat" or "deepep"
 * \param d set to the dispatcher named
 * \return false if the name is not a dispatcher
 */
bool ParseMoeDispatcher(const std::string& name, MoeDispatcher& d);

/**
 * \ingroup ai-fabric
 * \brief The all-to-all traffic of a mixture-of-experts layer as a CollectivePlan: the
 * dispatch of every rank's tokens to their experts' ranks, or the combine of the experts'
 * outputs back to the tokens' ranks, for a drawn MoeRouting.
 *
 * - **Flat dispatch**: rank s sends GetTokens(s, d) x bytesPerToken to every rank d != s at
 *   once, in pieces of at most chunkBytes. **Flat combine**: the reverse, reduced at s.
 * - **Hierarchical dispatch** (DeepEP's normal internode kernels, deepseek-ai/DeepEP
 *   csrc/kernels/internode.cu, as its README describes them): for every other node m, rank s
 *   sends GetNodeTokens(s, m) x bytesPerToken over the network to its relay on m
 *   (MoeRouting::GetRelay: the GPU of its rail), in pieces of at most chunkBytes; as each piece
 *   arrives, the relay forwards that piece's share of every other rank's tokens of m over
 *   NVLink. Tokens for s's own node go to their ranks over NVLink directly. **Hierarchical
 *   combine**: the reverse: each expert rank of m sends its outputs for s's tokens over NVLink
 *   to s's relay on m, piece by piece; the relay reduces them and sends each piece, one token
 *   per node, over the network to s, which reduces the nodes' pieces.
 * - A token's bytes on the wire: bytesPerToken (the caller counts scales or padding into it).
 * - Channels: piece i of a transfer runs on channel i mod channels (queue pairs and paths).
 * - A rank's tokens for itself and, hierarchically, the relay's own tokens do not move.
 * - **DeepEP's copy rate** (copyRate > 0, hierarchical only): its kernels' warps move every
 *   token a rank receives, its own included, at a bounded rate (their SM budget): the plan's
 *   CollectiveSchedule::SetKernelCopy(), with each rank's own bytes (its tokens for itself,
 *   and, as a relay, the tokens for itself that came over the network).
 *
 * Left out: DeepEP's buffer-level flow control between its senders, forwarders and receivers
 * (bounded ring buffers of a few chunks, ack'd as read), its forwarders' own copy (a second
 * stage, as busy as the receivers'), and the notify step that exchanges the counts first.
 *
 * Memory: O(ranks x nodes x pieces x ranks per node) transfers, all listed.
 */
class MoeAllToAll
{
  public:
    /**
     * \brief Build the plan of one dispatch or combine.
     * \param routing the drawn routing
     * \param dispatcher flat or hierarchical
     * \param combine true for the combine (outputs back), false for the dispatch
     * \param bytesPerToken bytes one token takes on the wire
     * \param chunkBytes largest piece (> 0)
     * \param channels channels to spread pieces over (>= 1)
     * \param copyRate hierarchical: DeepEP's copy rate, bytes/s a rank's kernel lands (0: not
     *        costed)
     * \return the plan (finalized)
     */
    static Ptr<CollectivePlan> Build(const MoeRouting& routing,
                                     MoeDispatcher dispatcher,
                                     bool combine,
                                     uint64_t bytesPerToken,
                                     uint64_t chunkBytes,
                                     uint32_t channels,
                                     double copyRate = 0);

    /**
     * \param routing the drawn routing
     * \param dispatcher flat or hierarchical
     * \param src a rank
     * \return tokens src sends over the network in a dispatch (receives in a combine)
     */
    static uint64_t NetworkTokens(const MoeRouting& routing,
                                  MoeDispatcher dispatcher,
                                  uint32_t src);
};

/**
 * \ingroup ai-fabric
 * One mixture-of-experts layer of a Workload: its routing and how its tokens move. A workload
 * operation names it by Workload::moe index + 1 (WorkloadOp::moe).
 */
struct MoeLayer
{
    Ptr<const MoeRouting> routing;                 //!< its drawn routing (over its group)
    MoeDispatcher dispatcher{MoeDispatcher::FLAT}; //!< how its tokens move
    uint64_t dispatchBytesPerToken{0};             //!< a dispatched token's bytes
    uint64_t combineBytesPerToken{0};              //!< a combined output's bytes
    double dispatchCopyRate{0}; //!< DeepEP's dispatch kernel: bytes/s a rank lands (0: none)
    double combineCopyRate{0};  //!< DeepEP's combine kernel: bytes/s a rank lands (0: none)
};

} // namespace ns3

#endif /* MOE_ALL_TO_ALL_H */
