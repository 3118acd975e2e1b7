/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "halving-doubling-algorithm.h"

#include "ns3/log.h"
#include "step-schedule.h"

#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAlgorithm);

TypeId
HalvingDoublingAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingAlgorithm>();
    return tid;
}

std::string
HalvingDoublingAlgorithm::GetName() const
{
    return "hd";
}

bool
HalvingDoublingAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    return type == CollectiveType::ALL_REDUCE && nRanks >= 2;
}

namespace
{
/// Rabenseifner's all-reduce as steps: [pre-step], log2 p halving steps, log2 p doubling
/// steps, [post-step].
class HalvingDoublingSchedule : public StepSchedule
{
  public:
    /**
     * \param n ranks
     * \param p the largest power of two <= n
     * \param bytes size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     */
    HalvingDoublingSchedule(
        uint32_t n, uint32_t p, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
        : StepSchedule(CollectiveType::ALL_REDUCE,
                       n,
                       bytes,
                       "hd",
                       channels,
                       chunkBytes,
                       2 * Log2(p) + (n > p ? 2 : 0),
                       Wait::PREVIOUS_STEP)
        , m_p(p)
        , m_extra(n - p)
        , m_log(Log2(p))
    {
    }

  protected:
    uint32_t Peer(uint32_t rank, uint32_t step) const override
    {
        return Partner(rank, step, true);
    }

    uint32_t Sender(uint32_t rank, uint32_t step) const override
    {
        return Partner(rank, step, false);
    }

    uint64_t Bytes(uint64_t share, uint32_t rank, uint32_t step) const override
    {
        const uint32_t s = m_extra > 0 ? step - 1 : step;
        if (m_extra > 0 && (step == 0 || step == GetNSteps() - 1))
        {
            return share; // the pre- and post-step move the whole buffer
        }
        const uint32_t j = Renumbered(rank);
        if (s < m_log)
        {
            const uint32_t d = m_p >> (s + 1);
            return Run(share, j ^ d, d); // the partner's run
        }
        const uint32_t d = 1U << (s - m_log);
        return Run(share, j, d); // its own run
    }

    bool Reduce(uint32_t step) const override
    {
        // The pre-step and the halving steps reduce at the receiver.
        return m_extra > 0 ? step <= m_log : step < m_log;
    }

  private:
    /**
     * \param x a power of two
     * \return its log2
     */
    static uint32_t Log2(uint32_t x)
    {
        uint32_t l = 0;
        while ((1U << l) < x)
        {
            ++l;
        }
        return l;
    }

    /**
     * \param j a renumbered rank
     * \return the rank that plays it
     */
    uint32_t RankOf(uint32_t j) const
    {
        return j < m_extra ? 2 * j : j + m_extra;
    }

    /**
     * \param r a rank
     * \return its renumbered rank (NONE: an odd rank below 2r, which sits out)
     */
    uint32_t Renumbered(uint32_t r) const
    {
        if (r < 2 * m_extra)
        {
            return r % 2 == 0 ? r / 2 : NONE;
        }
        return r - m_extra;
    }

    /**
     * \param share a channel's bytes
     * \param j a block
     * \param d a run length (a power of two)
     * \return bytes of the aligned run of d blocks that holds block j
     */
    uint64_t Run(uint64_t share, uint32_t j, uint32_t d) const
    {
        const uint32_t first = j & ~(d - 1);
        return Prefix(share, first + d) - Prefix(share, first);
    }

    /**
     * \param share a channel's bytes
     * \param b a block
     * \return bytes of blocks 0 .. b - 1 (Split() into p blocks)
     */
    uint64_t Prefix(uint64_t share, uint32_t b) const
    {
        return b * (share / m_p) + std::min<uint64_t>(b, share % m_p);
    }

    /**
     * \param rank a rank
     * \param step a step
     * \param sends true: the rank it sends to; false: the rank that sends to it
     * \return that rank, or NONE
     */
    uint32_t Partner(uint32_t rank, uint32_t step, bool sends) const
    {
        if (m_extra > 0 && step == 0)
        {
            // Pre-step: 2i+1 sends to 2i.
            if (rank >= 2 * m_extra)
            {
                return NONE;
            }
            return (rank % 2 == 1) == sends ? rank ^ 1 : NONE;
        }
        if (m_extra > 0 && step == GetNSteps() - 1)
        {
            // Post-step: 2i sends to 2i+1.
            if (rank >= 2 * m_extra)
            {
                return NONE;
            }
            return (rank % 2 == 0) == sends ? rank ^ 1 : NONE;
        }
        const uint32_t j = Renumbered(rank);
        if (j == NONE)
        {
            return NONE;
        }
        const uint32_t s = m_extra > 0 ? step - 1 : step;
        const uint32_t d = s < m_log ? m_p >> (s + 1) : 1U << (s - m_log);
        return RankOf(j ^ d); // exchanges are symmetric
    }

    uint32_t m_p;     //!< the largest power of two <= n
    uint32_t m_extra; //!< n - p
    uint32_t m_log;   //!< log2 p
};
} // namespace

Ptr<CollectiveSchedule>
HalvingDoublingAlgorithm::DoSchedule(CollectiveType /* type */,
                                     uint32_t nRanks,
                                     uint64_t bytes,
                                     uint32_t channels,
                                     uint64_t chunkBytes) const
{
    uint32_t p = 1;
    while (2 * p <= nRanks)
    {
        p *= 2;
    }
    return Create<HalvingDoublingSchedule>(nRanks, p, bytes, channels, chunkBytes);
}

Time
HalvingDoublingAlgorithm::Predict(CollectiveType /* type */,
                                  uint32_t nRanks,
                                  uint64_t bytes,
                                  const CollectiveSystem& system) const
{
    // Not a power of two: a pre- and a post-step move the whole buffer once each.
    const double n = nRanks;
    const double logSteps = std::ceil(std::log2(n));
    const bool powerOfTwo = (nRanks & (nRanks - 1)) == 0;
    return Seconds(2 * logSteps * system.alpha.GetSeconds()
                   + (2 * (n - 1) / n + (powerOfTwo ? 0 : 2)) * static_cast<double>(bytes)
                         * system.beta);
}

static CollectiveAlgorithmRegistration g_hd(
    "hd", {CollectiveType::ALL_REDUCE}, &HalvingDoublingAlgorithm::GetTypeId, false, 40);

} // namespace ns3
