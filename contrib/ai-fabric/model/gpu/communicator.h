/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COMMUNICATOR_H
#define COMMUNICATOR_H

#include "collective-schedule.h"
#include "gpu-transport.h"
#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-fifo.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "pxn-relay.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One rank's communicator, shaped like an ncclComm: it runs this rank's part of a
 * collective's schedule, made as it runs.
 *
 * The rank's send streams go out in order, a message at a time: a message starts when every
 * message it depends on has arrived at this rank and, if the data is to be reduced, the GPU
 * has reduced it; it is then handed to the GPU transport after the protocol's step latency,
 * with the protocol's overhead added to its bytes. The communicator asks the schedule for
 * each message when it is next, so its memory is O(its streams): a counter per send stream,
 * and per receive stream the messages received and arrived (with those that arrived ahead of
 * an earlier one) and the send streams waiting on it. Reductions cost GPU time: a reduction of B
 * bytes reads two buffers and writes one, 3B bytes of memory traffic at ReduceBandwidth, one at a
 * time per channel (a channel is one GPU thread block in NCCL). A schedule whose kernel copies at a
 * bounded rate (CollectiveSchedule::SetKernelCopy(), DeepEP's) copies the rank's own bytes first,
 * then each transfer received over NVLink in turn, before it counts as arrived (or is reduced).
 * The rank's part is done when every transfer to it has arrived (and been reduced) and every
 * transfer from it has completed.
 *
 * Ranks need not start a collective together: a message's tag carries the collective's
 * sequence number (8 bits, above the schedule's 24-bit tag), and data of a later collective that
 * arrives from a faster peer waits until this rank starts that collective. A peer may be up to
 * 127 collectives ahead.
 */
class Communicator
    : public Object
    , private GpuTransport::Listener
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Communicator();
    ~Communicator() override;

    /// This rank finished its part: (rank).
    typedef Callback<void, uint32_t> DoneCallback;

    /**
     * \param rank this rank
     * \param nRanks ranks in the communicator
     * \param transport this GPU's transport
     */
    void Setup(uint32_t rank, uint32_t nRanks, Ptr<GpuTransport> transport);

    /**
     * \brief Make this a communicator of a group of ranks (CollectiveHelper::AddGroup(), as
     *        ncclCommSplit makes one), after Setup(groupRank, groupSize, transport): its ranks
     *        are the group's, which the transport knows by their global ranks; its channels
     *        are the transport's from channelBase on; its tags carry its id in their top
     *        idBits of 24, by which the GPU hands arrivals to it (Received()). The group's
     *        NVLS transfers need its ranks of an NVLink domain to be consecutive global ranks.
     * \param globalRanks the transport's rank of each group rank (empty: the same ranks)
     * \param channelBase the transport's channel of the group's channel 0
     * \param id this communicator's id on its GPUs
     * \param idBits bits of a tag that carry the id (0: alone on its GPUs)
     */
    void SetGroup(std::vector<uint32_t> globalRanks,
                  uint32_t channelBase,
                  uint32_t id,
                  uint32_t idBits);

    /**
     * \param rank a rank of this communicator
     * \return the transport's rank of it (itself unless SetGroup())
     */
    uint32_t GetGlobalRank(uint32_t rank) const;

    /// \return the communicator's id on its GPUs (0 unless SetGroup())
    uint32_t GetGroupId() const;

    /**
     * \brief A transfer to this rank arrived: the transport's receive callback (Setup()
     *        connects it), or the GPU's when several communicators share it.
     * \param tag the transfer's tag
     * \param bytes bytes that arrived
     */
    void Received(uint32_t tag, uint64_t bytes);

    /**
     * \brief A transfer this rank sent completed: the transport's send callback.
     * \param tag the transfer's tag
     */
    void SendCompleted(uint32_t tag);
    /**
     * \brief Route point-to-point plans as NCCL's PXN does (PxnRelay::Route(), shared by the
     *        communicator's ranks). Not running.
     * \param pxn the communicator's relay (null: every rank sends by its own NIC)
     */
    void SetPxn(Ptr<PxnRelay> pxn);
    /// \return the relay SetPxn() gave (null: none)
    Ptr<PxnRelay> GetPxn() const;

    /**
     * \brief Run this rank's part of a collective.
     * \param schedule the schedule (the same for every rank; a CollectivePlan is one)
     * \param done called when this rank's part is done
     */
    void Run(Ptr<const CollectiveSchedule> schedule, DoneCallback done);

    /// \return true while a collective runs
    bool IsRunning() const;

    /// \return this rank
    uint32_t GetRank() const;
    /// \return the protocol of the running collective (idle: the Protocol attribute's)
    NcclProtocol GetProtocol() const;
    /// \return the Protocol attribute: the protocol of a schedule that names none
    NcclProtocol GetDefaultProtocol() const;
    /// \return payload efficiency of GetProtocol() (payload bytes / bytes sent)
    double GetProtocolEfficiency() const;
    /**
     * \param protocol a protocol
     * \return its payload efficiency (payload bytes / bytes sent)
     */
    double GetProtocolEfficiency(NcclProtocol protocol) const;
    /// \return latency GetProtocol() adds to every step through the network
    Time GetStepLatency() const;
    /**
     * \param protocol a protocol
     * \return latency it adds to every step through the network
     */
    Time GetStepLatency(NcclProtocol protocol) const;

    /**
     * \param protocol a protocol
     * \param tree the tree's latency (CollectiveSchedule::UsesTreeLatency()), not the ring's
     * \return latency it adds to every step through the network
     */
    Time GetStepLatency(NcclProtocol protocol, bool tree) const;

    /// \return latency GetProtocol() adds to every step over NVLink
    Time GetNvLinkStepLatency() const;
    /**
     * \param protocol a protocol
     * \return latency it adds to every step over NVLink (the ring's)
     */
    Time GetNvLinkStepLatency(NcclProtocol protocol) const;
    /**
     * \param protocol a protocol
     * \param tree the tree's latency, not the ring's
     * \return latency it adds to every step over NVLink
     */
    Time GetNvLinkStepLatency(NcclProtocol protocol, bool tree) const;
    /**
     * \param protocol a protocol
     * \return the latency it adds once per collective, before a rank's first message (NCCL's
     *         base latency: the kernel's launch and setup)
     */
    Time GetBaseLatency(NcclProtocol protocol) const;
    /// \return GPU memory bandwidth used by reductions
    DataRate GetReduceBandwidth() const;

    /**
     * \param payloadBytes payload of a transfer
     * \return bytes the protocol puts on the wire for it
     */
    uint64_t WireBytes(uint64_t payloadBytes) const;

    /**
     * \param bytes bytes reduced
     * \return the GPU time of the reduction
     */
    Time ReductionTime(uint64_t bytes) const;

    /**
     * \brief The channels NCCL runs a collective of this size on.
     *
     * NCCL gives each channel (a thread block) at least threads x a per-thread threshold of
     * bytes: it drops channels one at a time while bytes < channels x threads x threshold,
     * down to one (NCCL 2.12-2.18, enqueue.cc getChannelThreads; thresholds from tuning.cc:
     * Simple 64 B per thread on 512 threads, LL 8 B on 512 threads (times the ranks on a
     * ring), LL128 8 B on 640 threads). MinBytesPerChannel, when set, replaces the product.
     * \param bytes the collective's size
     * \param maxChannels the communicator's channels
     * \param ring the algorithm is a ring (LL's threshold scales with the ranks)
     * \return channels to use, from 1 to maxChannels
     */
    uint32_t ChannelsFor(uint64_t bytes, uint32_t maxChannels, bool ring) const;
    /**
     * \brief ChannelsFor() with a protocol's threshold.
     * \param bytes the collective's size
     * \param maxChannels the communicator's channels
     * \param ring the algorithm is a ring
     * \param protocol the protocol it runs with
     * \return channels to use, from 1 to maxChannels
     */
    uint32_t ChannelsFor(uint64_t bytes,
                         uint32_t maxChannels,
                         bool ring,
                         NcclProtocol protocol) const;

    /// \return the running schedule (null when idle)
    Ptr<const CollectiveSchedule> GetSchedule() const;

    /// \return payload bytes received in the last (or current) collective, by step (empty
    ///         unless StepAccounting is on)
    const std::vector<uint64_t>& GetBytesReceivedByStep() const;
    /// \return payload bytes sent in the last (or current) collective, by step (empty unless
    ///         StepAccounting is on)
    const std::vector<uint64_t>& GetBytesSentByStep() const;

    /**
     * TracedCallback signature for a transfer event.
     * \param transfer the transfer (src, dst, channel, bytes, step, kind)
     */
    typedef void (*TransferTracedCallback)(const CollectiveTransfer& transfer);

  protected:
    void DoDispose() override;

  private:
    /// GpuTransport::Listener: Received()
    void TransportReceived(uint32_t tag, uint64_t bytes) override;
    /// GpuTransport::Listener: SendCompleted()
    void TransportSent(uint32_t tag) override;

    /// A send stream of this rank.
    struct SendStream
    {
        uint64_t next{0};   //!< its next message
        uint64_t length{0}; //!< its messages
    };

    /// A receive stream of this rank.
    struct alignas(64) RecvStream // one cache line: at scale each arrival's first touch
    {
        uint32_t length{0};            //!< messages that arrive on it (Run() checks the bound)
        uint32_t received{0};          //!< messages received so far
        uint32_t arrived{0};           //!< messages 0 .. arrived - 1 arrived (and reduced)
        std::vector<uint64_t> ahead;   //!< later messages that arrived, sorted
        std::vector<uint32_t> waiters; //!< send streams waiting for a message of it
    };

    static_assert(sizeof(RecvStream) == 64, "a receive stream is one cache line");

    /**
     * \brief Start the messages of a send stream whose dependencies are met, in order.
     * \param stream the send stream
     */
    void Advance(uint32_t stream);

    /**
     * \param d a dependency
     * \return true if every message it names arrived
     */
    bool Satisfied(const ScheduleDependency& d) const;

    /**
     * \param t a message whose dependencies are met: send it after the step latency
     * \param tag its tag (24 bits)
     */
    void Start(const CollectiveTransfer& t, uint32_t tag);

    /**
     * \param t a message to hand to the transport now
     * \param tag its tag (24 bits)
     */
    void Send(const CollectiveTransfer& t, uint32_t tag);

    /**
     * \brief The first message due now: send it, and the messages of its queue due now.
     * \param t the message
     * \param tag its tag
     * \param which its queue of m_posted
     */
    void SendDue(const CollectiveTransfer& t, uint32_t tag, uint32_t which);

    /// A message waiting out its step latency (Start()).
    struct Posted
    {
        int64_t due;                 //!< when it is sent (time steps)
        CollectiveTransfer transfer; //!< the message
        uint32_t tag;                //!< its tag
    };

    /**
     * \param stream a receive stream
     * \param index the message of it that arrived and is reduced (if it had to be)
     * \param t the message
     */
    void Arrived(uint32_t stream, uint64_t index, CollectiveTransfer t);

    /**
     * \param payloadBytes a message's payload
     * \param efficiency its protocol's payload efficiency
     * \return its bytes on the wire
     */
    static uint64_t WireBytes(uint64_t payloadBytes, double efficiency);

    /// Finish if everything arrived and completed.
    void CheckDone();

    /// Start the send streams (after the protocol's base latency).
    void StartStreams();

    // What each message reads first, together (at scale every rank's state is cold): a few
    // cache lines instead of one per field.
    Ptr<const CollectiveSchedule> m_schedule; //!< running schedule (null when idle)
    Ptr<GpuTransport> m_transport;            //!< this GPU's transport
    std::vector<RecvStream> m_recv;           //!< by receive stream
    std::vector<SendStream> m_send;           //!< by send stream
    std::vector<Time> m_gpuFree;    //!< per channel: when the GPU is free; last: its copy queue
    std::vector<uint32_t> m_global; //!< the transport's rank of each rank (empty: same)
    uint32_t m_rank{0};             //!< this rank
    uint32_t m_sequence{0};         //!< sequence number of the current collective
    uint32_t m_localMask{0xFFFFFF}; //!< the schedule's part of a tag
    uint32_t m_indexBits{0};        //!< tag bits of a message's index
    uint32_t m_channelBase{0};      //!< the transport's channel of channel 0
    uint32_t m_groupId{0};          //!< id on its GPUs, in its tags
    uint32_t m_idBits{0};           //!< tag bits of the id
    uint32_t m_sendStreamsLeft{0};  //!< send streams with messages left
    uint64_t m_arrivalsLeft{0};     //!< messages still to arrive
    uint64_t m_started{0};          //!< messages started
    uint64_t m_completed{0};        //!< messages sent and completed
    Time m_runStepLatency;          //!< the running collective's step latency
    Time m_runNvLinkStepLatency;    //!< ... and over NVLink
    double m_runEfficiency{1.0};    //!< ... and its protocol's efficiency
    int64_t m_lastDue[2]{-1, -1};   //!< by latency: the latest due time with an event
    DataRate m_reduceBandwidth;     //!< GPU memory bandwidth for reductions
    bool m_stepAccounting{false};   //!< StepAccounting
    bool m_runningTree{false};      //!< the running collective pays tree latencies
    bool m_runCopying{false};       //!< ... its kernel copies at a bounded rate
    bool m_nvlsContiguous{true};    //!< consecutive global ranks (NVLS groups)
    NcclProtocol m_running{NCCL_SIMPLE};  //!< protocol of the running collective
    ScheduleMessage m_message;            //!< the message being looked at
    std::vector<uint32_t> m_spareWaiters; //!< storage Arrived() swaps waiters into
    FabricFifo<Posted> m_posted[2];       //!< by latency (NVLink, network): Start()ed
    TracedCallback<const CollectiveTransfer&> m_sendTrace;    //!< handed to the transport
    TracedCallback<const CollectiveTransfer&> m_arrivalTrace; //!< arrived and reduced

    uint32_t m_nRanks{0};                    //!< ranks
    NcclProtocol m_protocol{NCCL_SIMPLE};    //!< Protocol attribute
    Ptr<PxnRelay> m_pxn;                     //!< SetPxn()
    Time m_simpleLatency;                    //!< Simple: latency per step
    Time m_llLatency;                        //!< LL: latency per step
    Time m_ll128Latency;                     //!< LL128: latency per step
    Time m_nvlSimpleLatency;                 //!< Simple: latency per NVLink step
    Time m_nvlLlLatency;                     //!< LL: latency per NVLink step
    Time m_nvlLl128Latency;                  //!< LL128: latency per NVLink step
    Time m_treeLlLatency;                    //!< LL, tree: latency per step
    Time m_treeLl128Latency;                 //!< LL128, tree: latency per step
    Time m_nvlTreeLl128Latency;              //!< LL128, tree: latency per NVLink step
    Time m_simpleBaseLatency;                //!< Simple: latency once per collective
    Time m_llBaseLatency;                    //!< LL: latency once per collective
    Time m_ll128BaseLatency;                 //!< LL128: latency once per collective
    EventId m_startEvent;                    //!< StartStreams() after the base latency
    double m_ll128Efficiency{120.0 / 128.0}; //!< LL128 payload efficiency
    uint64_t m_minBytesPerChannel{0};        //!< bytes a channel needs (0: NCCL's rule)

    DoneCallback m_done;                                //!< caller's callback
    std::vector<std::pair<uint32_t, uint64_t>> m_early; //!< arrivals of the next collective
    std::vector<uint64_t> m_sentByStep;                 //!< payload bytes sent, by step
    std::vector<uint64_t> m_receivedByStep;             //!< payload bytes received, by step
};

} // namespace ns3

#endif /* COMMUNICATOR_H */
