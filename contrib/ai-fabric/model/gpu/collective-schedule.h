/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_SCHEDULE_H
#define COLLECTIVE_SCHEDULE_H

#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class CollectivePlan;

/**
 * \ingroup ai-fabric
 * The collectives of NCCL that ai-fabric runs.
 */
enum class CollectiveType : uint8_t
{
    ALL_REDUCE,     //!< every rank ends with the reduction of all ranks' buffers
    ALL_GATHER,     //!< every rank ends with every rank's piece
    REDUCE_SCATTER, //!< rank r ends with piece r of the reduction
    BROADCAST,      //!< every rank ends with the root's buffer
    ALL_TO_ALL,     //!< rank r sends piece p of its buffer to rank p
};

/**
 * \param type a collective
 * \return its name as on the command line ("allreduce", ...)
 */
const char* CollectiveTypeName(CollectiveType type);

/**
 * \param name a name as on the command line
 * \param type the collective
 * \return false if the name is not a collective
 */
bool ParseCollectiveType(const std::string& name, CollectiveType& type);

/**
 * \brief nccl-tests' bus bandwidth factor: busbw = algbw x factor.
 *
 * all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all (n-1)/n; broadcast 1
 * (nccl-tests doc/PERFORMANCE.md).
 * \param type the collective
 * \param nRanks ranks
 * \return the factor
 */
double BusBandwidthFactor(CollectiveType type, uint32_t nRanks);

/**
 * \ingroup ai-fabric
 * NCCL's protocols: how data and its ready flags travel.
 */
enum NcclProtocol
{
    NCCL_SIMPLE, //!< data, then a flag per step: near-peak bandwidth, highest latency
    NCCL_LL,     //!< 8-byte flag with every 8 bytes of data: 50% efficient, lowest latency
    NCCL_LL128,  //!< 8-byte flag per 128-byte line: 120/128 = 93.75% efficient
};

/// How many protocols there are.
constexpr uint32_t NCCL_PROTOCOL_COUNT = 3;

/**
 * \param protocol a protocol
 * \return its name ("Simple", "LL", "LL128")
 */
const char* NcclProtocolName(NcclProtocol protocol);

/**
 * \param name "simple", "ll" or "ll128" (any case)
 * \param protocol set to the protocol named
 * \return false if the name is not a protocol
 */
bool ParseNcclProtocol(const std::string& name, NcclProtocol& protocol);

/// How a transfer moves.
enum class TransferKind : uint8_t
{
    POINT_TO_POINT, //!< src writes to dst
    NVLS_REDUCE,    //!< src's contribution to an NVSwitch reduction delivered to dst
    NVLS_MULTICAST, //!< one NVSwitch multicast from src, one transfer per receiving rank
};

/**
 * \ingroup ai-fabric
 * One transfer of a collective: src writes bytes to dst on a channel (point to point), or
 * takes part in an NVLS group: an NVLS_REDUCE group has one transfer from every rank of the
 * group to the reduction's destination (which receives the reduced data once, for all of
 * them), an NVLS_MULTICAST group one transfer from its source to every rank of the group (sent
 * once; the switch copies it). In a CollectivePlan the transfers of a group are consecutive.
 */
struct CollectiveTransfer
{
    uint32_t src{0};      //!< sending rank
    uint32_t dst{0};      //!< receiving rank (a multicast: the group's first rank)
    uint32_t channel{0};  //!< channel (NCCL ring or tree instance)
    uint64_t bytes{0};    //!< payload bytes (before the protocol's overhead)
    uint32_t step{0};     //!< the algorithm's step this transfer belongs to
    bool reduce{false};   //!< dst reduces the data into its buffer on arrival (GPU time)
    uint32_t firstDep{0}; //!< in a plan: index of its first dependency in the dependency list
    uint32_t nDeps{0};    //!< in a plan: transfers that must have arrived at src first
    TransferKind kind{TransferKind::POINT_TO_POINT}; //!< how it moves
    uint32_t group{0};     //!< in a plan: first transfer of its NVLS group (itself otherwise)
    uint32_t groupSize{1}; //!< transfers in its group
    uint32_t groupBase{0}; //!< the first rank of its NVLS group (ranks base .. base + size - 1)
};

/**
 * \ingroup ai-fabric
 * A dependency of a message of a rank's schedule: messages first .. last (inclusive) of one of
 * the rank's receive streams must have arrived (and been reduced, if they are reduced).
 */
struct ScheduleDependency
{
    uint32_t stream{0}; //!< the rank's receive stream
    uint64_t first{0};  //!< first message
    uint64_t last{0};   //!< last message
};

/**
 * \ingroup ai-fabric
 * One message of a rank's send stream, as its schedule describes it.
 */
struct ScheduleMessage
{
    CollectiveTransfer transfer; //!< what moves (src is the sending rank)
    uint32_t recvStream{0};      //!< the receiver's stream it arrives on (every receiver's,
                                 //!< for a multicast; the destination's, for a reduction)
    uint64_t recvIndex{0};       //!< its index in that stream
    uint32_t tagCode{0};         //!< what names the stream in the tag (the stream, by default)
    bool skip{false};            //!< nothing to send (a plan's copy of a multicast's member)
    std::vector<ScheduleDependency> deps; //!< what must have arrived at the rank first
};

/**
 * \ingroup ai-fabric
 * \brief A collective as each rank runs it: every rank's part, made as it runs.
 *
 * A rank's part is a few send streams and receive streams (a ring: one of each per channel,
 * to the next and from the previous rank; a tree: to the parent and children, from them). The
 * messages of a send stream go out in order; each waits for named messages of the rank's
 * receive streams to have arrived (and been reduced), as NCCL's primitives wait on their
 * connection's FIFO. A schedule computes any message of any stream from the rank's position
 * in the algorithm, so the memory of a schedule and of a rank running it does not grow with
 * the collective's length: O(ranks x channels) for a ring or a tree, not O(ranks^2) as a plan
 * that lists every transfer. A CollectivePlan is a schedule too (every transfer a stream of
 * its own), and any schedule can be materialized into a plan for checks.
 *
 * A message is named at its receiver by a 24-bit tag: the receive stream (tag code) above the
 * message's index modulo 2^GetTagIndexBits(); the receiver recovers the full index from the
 * messages it has already received on the stream (messages of a stream may complete slightly
 * out of order, e.g. over NVLink paths, by less than half the index range).
 */
class CollectiveSchedule : public SimpleRefCount<CollectiveSchedule>
{
  public:
    /// Bits of a tag that name a message at its receiver.
    static constexpr uint32_t TAG_BITS = 24;

    /**
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the collective's size as nccl-tests reports it (the whole buffer for
     *        all-reduce and broadcast; the whole gathered array for all-gather and
     *        reduce-scatter; the whole send buffer of one rank for all-to-all)
     * \param algorithm name of the algorithm
     */
    CollectiveSchedule(CollectiveType type, uint32_t nRanks, uint64_t bytes, std::string algorithm);
    virtual ~CollectiveSchedule();

    /// \return the collective
    CollectiveType GetType() const;
    /// \return the number of ranks
    uint32_t GetNRanks() const;
    /// \return the collective's size (bytes, as nccl-tests counts it)
    uint64_t GetBytes() const;
    /// \return the algorithm's name
    const std::string& GetAlgorithm() const;

    /**
     * \brief Run this collective with a protocol (the tuner's choice, or --protocol). A
     *        schedule without one runs with its communicator's Protocol attribute.
     * \param protocol the protocol
     */
    void SetProtocol(NcclProtocol protocol);
    /// \return true if SetProtocol() named a protocol
    bool HasProtocol() const;
    /// \return the protocol set (Simple if none was)
    NcclProtocol GetProtocol() const;

    /**
     * \param tree the messages pay NCCL's tree latencies per step, not the ring's
     *        (CollectiveAlgorithm::UsesTreeLatency())
     */
    void SetTreeLatency(bool tree);
    /// \return true if the messages pay NCCL's tree latencies per step
    bool UsesTreeLatency() const;

    /**
     * \param p2p the transfers are NCCL point-to-point operations (ncclSend/ncclRecv, which
     *        all-to-all is made of), which PXN may route through a peer GPU's NIC (PxnRelay)
     */
    void SetPeerToPeer(bool p2p);
    /// \return true if the transfers are point-to-point operations (SetPeerToPeer())
    bool IsPeerToPeer() const;

    /**
     * \brief The kernel that runs the schedule copies what lands in each rank's buffers out
     *        of them at a bounded rate, one copy at a time per rank (DeepEP's normal kernels:
     *        their warps move every token a rank receives, its own included): each transfer
     *        a rank receives over NVLink, and its own bytes (which no transfer carries), pass
     *        its copy queue before they count as arrived (or are reduced).
     * \param bytesPerSecond the rate (0: no copy is costed, the default)
     * \param ownBytes by rank: the bytes that land without crossing NVLink (its own, and what
     *        arrives in a network transfer for the rank itself), copied first
     */
    void SetKernelCopy(double bytesPerSecond, std::vector<uint64_t> ownBytes);
    /// \return SetKernelCopy()'s rate (bytes/s; 0: none)
    double GetKernelCopyRate() const;
    /**
     * \param rank a rank
     * \return SetKernelCopy()'s own bytes of the rank (0 if none were given)
     */
    uint64_t GetKernelOwnBytes(uint32_t rank) const;

    /// \return the number of channels used (highest channel + 1; 0 if nothing moves)
    virtual uint32_t GetNChannels() const = 0;
    /// \return the number of steps (highest step + 1)
    virtual uint32_t GetNSteps() const = 0;

    /**
     * \param rank a rank
     * \return its send streams
     */
    virtual uint32_t GetNSendStreams(uint32_t rank) const = 0;
    /**
     * \param rank a rank
     * \param stream one of its send streams
     * \return the messages of the stream
     */
    virtual uint64_t GetSendLength(uint32_t rank, uint32_t stream) const = 0;
    /**
     * \brief Describe a message of a send stream.
     * \param rank a rank
     * \param stream one of its send streams
     * \param index a message of the stream
     * \param[out] message the message (its dependency vector is reused)
     */
    virtual void GetSend(uint32_t rank,
                         uint32_t stream,
                         uint64_t index,
                         ScheduleMessage& message) const = 0;
    /**
     * \param rank a rank
     * \return its receive streams
     */
    virtual uint32_t GetNRecvStreams(uint32_t rank) const = 0;
    /**
     * \param rank a rank
     * \param stream one of its receive streams
     * \return the messages that arrive on it
     */
    virtual uint64_t GetRecvLength(uint32_t rank, uint32_t stream) const = 0;
    /**
     * \brief The send stream that feeds a receive stream (for a reduction delivered by the
     *        NVSwitch: the destination's own contribution).
     * \param rank a rank
     * \param stream one of its receive streams
     * \return (sending rank, its send stream)
     */
    virtual std::pair<uint32_t, uint32_t> GetRecvSource(uint32_t rank, uint32_t stream) const = 0;
    /**
     * \param rank a rank
     * \param stream one of its receive streams
     * \param index a message of the stream
     * \param[out] transfer the message that arrives there
     */
    virtual void GetRecv(uint32_t rank,
                         uint32_t stream,
                         uint64_t index,
                         CollectiveTransfer& transfer) const;
    /**
     * \brief The receive streams a tag code names at a rank: one stream by default (a plan: a
     *        reduction delivered once counts on the streams of all its contributions).
     * \param rank a rank
     * \param code the tag code
     * \return (first stream, number of streams)
     */
    virtual std::pair<uint32_t, uint32_t> LocateRecv(uint32_t rank, uint32_t code) const;
    /**
     * \param reservedBits high bits of the 24 that the tag leaves to its communicator's id
     *        (CollectiveHelper::AddGroup(): 0 without groups)
     * \return bits of a tag that carry the message's index (the rest name the stream)
     */
    virtual uint32_t GetTagIndexBits(uint32_t reservedBits = 0) const;
    /// \return the largest tag code + 1 (by default: the most receive streams of a rank)
    virtual uint32_t GetTagCodes() const;

    /**
     * \param rank a rank
     * \return the (peer, channel) connections its messages use (NVLS messages too: they tell
     *         the GPU transports their NVLink peers; a multicast, every rank of its group)
     */
    virtual std::vector<std::pair<uint32_t, uint32_t>> GetConnections(uint32_t rank) const;

    /**
     * \param rank a rank
     * \return payload bytes it sends in the whole collective (a multicast once)
     */
    virtual uint64_t GetBytesSent(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return payload bytes it receives in the whole collective (a reduction once)
     */
    virtual uint64_t GetBytesReceived(uint32_t rank) const;

    /// \return heap bytes the schedule holds (its tables), for memory checks
    virtual uint64_t GetMemoryBytes() const;

    /**
     * \brief List every transfer with its dependencies: a plan, for checks and small runs.
     *        Running the plan runs this schedule.
     * \return the plan
     */
    virtual Ptr<CollectivePlan> Materialize() const;

    /**
     * \param message a message of a send stream
     * \return the message's 24-bit tag
     */
    uint32_t MakeTag(const ScheduleMessage& message) const;

    /**
     * \param message a message of a send stream
     * \param indexBits GetTagIndexBits(reservedBits)
     * \return the message's tag, in the low 24 - reservedBits bits
     */
    uint32_t MakeTag(const ScheduleMessage& message, uint32_t indexBits) const;

  protected:
    /**
     * \brief Sort connections and drop repeats.
     * \param connections (peer, channel) pairs
     * \return them, sorted and unique
     */
    static std::vector<std::pair<uint32_t, uint32_t>> Unique(
        std::vector<std::pair<uint32_t, uint32_t>> connections);

  private:
    CollectiveType m_type;                        //!< the collective
    uint32_t m_nRanks;                            //!< ranks
    uint64_t m_bytes;                             //!< size
    std::string m_algorithm;                      //!< builder
    NcclProtocol m_protocol{NCCL_SIMPLE};         //!< SetProtocol()
    bool m_hasProtocol{false};                    //!< SetProtocol() was called
    bool m_treeLatency{false};                    //!< SetTreeLatency()
    bool m_peerToPeer{false};                     //!< SetPeerToPeer()
    double m_copyRate{0};                         //!< SetKernelCopy(): bytes/s
    std::vector<uint64_t> m_ownBytes;             //!< SetKernelCopy(): by rank
    mutable uint32_t m_tagCodeBits{TAG_BITS + 1}; //!< bits of the tag codes (TAG_BITS + 1: not yet)
    /// GetRecv()'s message, kept so that its dependencies' storage is reused (no allocation
    /// per message received).
    mutable ScheduleMessage m_recvScratch;
};

} // namespace ns3

#endif /* COLLECTIVE_SCHEDULE_H */
