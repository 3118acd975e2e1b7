/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef STEP_SCHEDULE_H
#define STEP_SCHEDULE_H

#include "collective-schedule.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The schedule of an algorithm that moves in steps, a rank sending to at most one peer
 * per step (halving-doubling, chain broadcast, pairwise and direct all-to-all).
 *
 * Per channel and step a rank has a send stream (to its peer of the step) and a receive
 * stream (from the rank that sends to it), each the pieces of the step's bytes
 * (CollectiveAlgorithm::Pieces()). What a piece waits for is the algorithm's: nothing, every
 * piece that arrived at the rank in the previous step, or the same piece in the previous step.
 * A subclass gives the peers, the bytes and the rule; the schedule holds the channels' shares:
 * O(channels), whatever the ranks.
 */
class StepSchedule : public CollectiveSchedule
{
  public:
    /// No peer.
    static constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

    /// What a piece waits for.
    enum class Wait : uint8_t
    {
        NOTHING,       //!< nothing: every piece starts at once
        PREVIOUS_STEP, //!< every piece that arrived at the rank in the previous step
        SAME_PIECE,    //!< the same piece, arrived at the rank in the previous step
    };

    /**
     * \param type the collective
     * \param nRanks ranks
     * \param bytes size
     * \param algorithm the algorithm's name
     * \param channels channels
     * \param chunkBytes the pipelining unit
     * \param steps steps of every channel
     * \param wait what a piece waits for
     */
    StepSchedule(CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes,
                 std::string algorithm,
                 uint32_t channels,
                 uint64_t chunkBytes,
                 uint32_t steps,
                 Wait wait);

    uint32_t GetNChannels() const override;
    uint32_t GetNSteps() const override;
    uint32_t GetNSendStreams(uint32_t rank) const override;
    uint64_t GetSendLength(uint32_t rank, uint32_t stream) const override;
    void GetSend(uint32_t rank,
                 uint32_t stream,
                 uint64_t index,
                 ScheduleMessage& message) const override;
    uint32_t GetNRecvStreams(uint32_t rank) const override;
    uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const override;
    std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const override;
    uint32_t GetTagCodes() const override;
    uint64_t GetMemoryBytes() const override;

  protected:
    /**
     * \param rank a rank
     * \param step a step
     * \return the rank it sends to in that step (NONE: it sends nothing)
     */
    virtual uint32_t Peer(uint32_t rank, uint32_t step) const = 0;

    /**
     * \param rank a rank
     * \param step a step
     * \return the rank that sends to it in that step (NONE: nobody)
     */
    virtual uint32_t Sender(uint32_t rank, uint32_t step) const = 0;

    /**
     * \param share the channel's share of the collective
     * \param rank a rank
     * \param step a step in which it sends
     * \return the bytes it sends (before cutting them in pieces)
     */
    virtual uint64_t Bytes(uint64_t share, uint32_t rank, uint32_t step) const = 0;

    /**
     * \param step a step
     * \return true if its receivers reduce what arrives
     */
    virtual bool Reduce(uint32_t step) const = 0;

    /**
     * \param bytes bytes
     * \param n parts
     * \param i a part
     * \return its size when bytes are split in n parts (CollectiveAlgorithm::Split())
     */
    static uint64_t Part(uint64_t bytes, uint64_t n, uint64_t i);

  private:
    /**
     * \param stream a stream (channel x steps + step)
     * \param rank the sending rank
     * \return pieces of it
     */
    uint64_t Pieces(uint32_t stream, uint32_t rank) const;

    uint32_t m_steps;              //!< steps per channel
    Wait m_wait;                   //!< what a piece waits for
    uint64_t m_chunk;              //!< the pipelining unit
    std::vector<uint64_t> m_share; //!< by channel: its bytes
};

} // namespace ns3

#endif /* STEP_SCHEDULE_H */
