/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_HELPER_H
#define COLLECTIVE_HELPER_H

#include "ns3/application-container.h"
#include "ns3/callback.h"
#include "ns3/collective-plan.h"
#include "ns3/communicator.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/flow-router.h"
#include "ns3/gpu-application.h"
#include "ns3/gpu-transport.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/simple-ref-count.h"

#include <vector>

namespace ns3
{

class FabricHelper;

/**
 * \ingroup ai-fabric
 * \brief Puts a communicator on every GPU of a fabric and runs collectives on all of them.
 *
 * Ranks follow the order of the GPUs given to Install(). Connect() opens the connections
 * (one QP pair per peer and channel) that a plan uses, before the simulation runs, as NCCL
 * connects its rings and trees at communicator creation. Run() starts a plan on every rank at
 * the same time and reports when the slowest rank is done.
 */
class CollectiveHelper
{
  public:
    CollectiveHelper();

    /**
     * \param name attribute of ns3::Communicator
     * \param value its value
     */
    void SetCommunicatorAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param channels channels of every plan run through this helper (NCCL's nChannels)
     */
    void SetChannels(uint32_t channels);

    /**
     * \param chunkBytes pipelining unit of every plan (NCCL Simple: 4 MiB / 8 steps =
     *        512 KiB, the default)
     */
    void SetChunkBytes(uint64_t chunkBytes);

    /**
     * \brief A protocol's pipelining unit: the payload of one step of its buffer. Defaults,
     *        from NCCL's buffer sizes over NCCL_STEPS = 8 steps: Simple 4 MiB / 8 = 512 KiB;
     *        LL 512 KiB of 16-byte lines / 8 = 64 KiB of lines, 32 KiB of payload; LL128
     *        120 x 640 x 8 B x 8 / 8 = 614,400 B of lines, 576,000 B of payload.
     * \param protocol the protocol
     * \param chunkBytes its pipelining unit (payload bytes)
     */
    void SetChunkBytes(NcclProtocol protocol, uint64_t chunkBytes);

    /**
     * \brief Run the GPUs on the flow engine (FlowGpuTransport over this router's network)
     *        instead of the packet engine. Before Install().
     * \param router the routes of the fabric the GPUs are on
     */
    void SetFlowRouter(Ptr<FlowRouter> router);

    /// \return the flow engine's router, or nullptr on the packet engine
    Ptr<FlowRouter> GetFlowRouter() const;

    /**
     * \brief Where each GPU's NIC is: GPUs that share a NIC (FatTreeHelper::SetNicsPerServer())
     *        open their queue pairs on the node that holds it. Before Install(); by default
     *        every GPU's own node.
     * \param nics the node of each rank's NIC, in rank order
     */
    void SetNicNodes(NodeContainer nics);

    /**
     * \brief NCCL's PXN (NCCL_PXN_DISABLE=0, its default): point-to-point plans (all-to-all,
     *        send/receive on communicators with more ranks than the pair) send to a GPU of
     *        another server through the NIC of this server
     *        that serves the destination's device index, relayed over NVLink (PxnRelay).
     *        On by default; before Install().
     * \param pxn true to relay, false to send every transfer by its sender's NIC
     */
    void SetPxn(bool pxn);
    /// \return true if point-to-point plans are relayed as PXN does
    bool GetPxn() const;

    /// \return channels
    uint32_t GetChannels() const;
    /// \return pipelining unit of Simple (bytes)
    uint64_t GetChunkBytes() const;
    /**
     * \param protocol a protocol
     * \return its pipelining unit (payload bytes)
     */
    uint64_t GetChunkBytes(NcclProtocol protocol) const;

    /**
     * \brief Before Install(): a communicator over some of the ranks, as ncclCommSplit makes
     *        one (a tensor-, data-, pipeline- or expert-parallel group), beside the
     *        communicator of every rank.
     *
     * Its collectives run with schedules of the group's size, on channels of their own: each
     * communicator takes a slot, the lowest that no communicator sharing a GPU with it has
     * taken (every rank's communicator slot 0), and uses the transport's channels slot x
     * channels .. slot x channels + channels - 1; the transports get channels x slots. A tag
     * carries its slot in ceil(log2(slots)) bits, by which each GPU hands an arrival to its
     * communicator. Without groups nothing changes.
     * \param ranks the group's ranks, in its rank order (distinct, at least one)
     * \return the group's id: 1, 2, ... (0 names every rank's communicator)
     */
    uint32_t AddGroup(std::vector<uint32_t> ranks);

    /// \return the groups added
    uint32_t GetNGroups() const;

    /**
     * \param group a group (0: every rank)
     * \return its ranks (global), in its rank order
     */
    std::vector<uint32_t> GetGroupRanks(uint32_t group) const;

    /**
     * \param group a group (0: every rank)
     * \param groupRank a rank of the group
     * \return that rank's communicator of the group
     */
    Ptr<Communicator> GetGroupCommunicator(uint32_t group, uint32_t groupRank) const;

    /**
     * \brief Open every connection a schedule of a group uses (idempotent), its PXN form's
     *        for a point-to-point plan (the communicators keep that form for the schedule).
     * \param schedule a schedule of the group's size, made with Create<>() (reference
     *        counted: the group's PXN relay holds it)
     * \param group the group (0: every rank)
     */
    void Connect(const CollectiveSchedule& schedule, uint32_t group);

    /// \return communicator slots per GPU (1 without groups)
    uint32_t GetSlots() const;

    /**
     * \brief Install a GPU transport and a communicator on each GPU.
     * \param gpus the GPUs, in rank order
     * \param fabric the helper that gave them their NICs
     */
    void Install(NodeContainer gpus, const FabricHelper& fabric);

    /**
     * \brief Install on GPUs without NICs: every pair of ranks must share an NVLink domain
     *        (ServerHelper).
     * \param gpus the GPUs, in rank order
     */
    void Install(NodeContainer gpus);

    /// \return the number of ranks
    uint32_t GetNRanks() const;

    /**
     * \param rank a rank
     * \return its communicator
     */
    Ptr<Communicator> GetCommunicator(uint32_t rank) const;

    /**
     * \param rank a rank
     * \return its GPU transport
     */
    Ptr<GpuTransport> GetTransport(uint32_t rank) const;

    /**
     * \brief Open every connection the schedule uses (idempotent), its PXN form's for a
     *        point-to-point plan.
     * \param schedule a schedule (or plan) for these ranks, made with Create<>() (reference
     *        counted: the PXN relay holds it)
     */
    void Connect(const CollectiveSchedule& schedule);

    /**
     * \brief Put a GpuApplication running the workload on every rank (opening the
     *        connections of its collectives).
     * \param workload the steps of one iteration, the same for every rank
     * \param iterations iterations
     * \return the applications, in rank order (they start at time zero unless told)
     */
    ApplicationContainer InstallApplications(const std::vector<GpuWorkloadStep>& workload,
                                             uint32_t iterations);

    /// Completion of a run: (start time, time the slowest rank finished).
    typedef Callback<void, Time, Time> RunCallback;

    /**
     * \brief Start a schedule (or plan) on every rank now: each GPU starts in its own node's
     *        context (on its MPI rank).
     *
     * When every GPU is done, at time T, \p done is called at T + the iteration gap (with T as
     * the end): the host's barrier before the next collective. Across MPI ranks each rank's
     * last GPU tells every other rank, which hears it the gap later; the gap is the same in
     * one process, so the runs agree.
     * \param plan the schedule (connections must be open)
     * \param done called when every rank is done
     */
    void Run(Ptr<const CollectiveSchedule> plan, RunCallback done);

    /**
     * \param gap the time from the last GPU's completion to Run()'s callback (default 10 ns:
     *        the default cable's delay, so that it does not shorten the lookahead across
     *        MPI ranks; it must be positive)
     */
    void SetIterationGap(Time gap);

    /// \return the iteration gap
    Time GetIterationGap() const;

  private:
    /**
     * \param gpus the GPUs, in rank order
     * \param fabric the helper that gave them their NICs, or nullptr
     */
    void Install(NodeContainer gpus, const FabricHelper* fabric);

    /**
     * \param schedule a schedule of a communicator
     * \param comm one of that communicator's ranks
     * \return what its ranks run for it (its PXN form, PxnRelay::Route())
     */
    static Ptr<const CollectiveSchedule> Routed(const CollectiveSchedule& schedule,
                                                const Ptr<Communicator>& comm);

    /// \param rank a rank that finished its part
    void RankDone(uint32_t rank);

    /**
     * \brief A process's GPUs are all done (this one's, or another MPI rank's, heard the
     *        iteration gap later).
     * \param end when its last GPU finished
     */
    void ProcessDone(Time end);

    /**
     * \brief The handler of another rank's ProcessDone message (FabricSimulatorImpl).
     * \param key the message's key
     * \param context its context
     * \param data the message
     * \param size its size
     */
    static void ReceiveDone(const FabricSimulatorImpl::Key& key,
                            uint32_t context,
                            const uint8_t* data,
                            uint32_t size);

  public:
    /// \return the id of the done messages between ranks (registered at load)
    static uint32_t DoneHandler();

  private:
    /// A GPU's communicators by slot: hands each arrival and completion to its own.
    class Dispatch
        : public SimpleRefCount<Dispatch>
        , public GpuTransport::Listener
    {
      public:
        std::vector<Ptr<Communicator>> bySlot; //!< the GPU's communicator of each slot
        uint32_t shift{0};                     //!< where the slot is in a tag
        uint32_t mask{0};                      //!< its bits

        /**
         * \param tag the transfer's tag (its slot names the communicator)
         * \param bytes bytes that arrived
         */
        void TransportReceived(uint32_t tag, uint64_t bytes) override;
        /// \param tag the transfer's tag (its slot names the communicator)
        void TransportSent(uint32_t tag) override;
    };

    std::vector<std::vector<uint32_t>> m_groups;              //!< AddGroup()'s, by id - 1
    std::vector<uint32_t> m_groupSlot;                        //!< by id - 1
    std::vector<std::vector<Ptr<Communicator>>> m_groupComms; //!< by id - 1, by group rank
    std::vector<Ptr<Dispatch>> m_dispatch;                    //!< by rank (with groups)
    uint32_t m_slots{1};                                      //!< communicator slots per GPU
    ObjectFactory m_communicatorFactory;                      //!< communicators
    uint32_t m_channels{1};                                   //!< channels
    uint64_t m_chunkBytes[NCCL_PROTOCOL_COUNT]{512 * 1024, 32 * 1024, 576000}; //!< by protocol
    Ptr<FlowRouter> m_flowRouter;                   //!< the flow engine's (none: packets)
    NodeContainer m_nicNodes;                       //!< each rank's NIC's node (empty: its own)
    bool m_pxn{true};                               //!< SetPxn()
    std::vector<Ptr<GpuTransport>> m_transports;    //!< by rank
    std::vector<Ptr<Communicator>> m_communicators; //!< by rank
    uint32_t m_running{0};                          //!< this process's ranks still running
    uint32_t m_local{0};                            //!< this process's GPUs
    std::vector<uint32_t> m_otherRanks;             //!< other MPI ranks holding GPUs
    uint32_t m_processes{1};                        //!< processes holding GPUs
    uint32_t m_heard{0};                            //!< processes done in this run
    Time m_end;                                     //!< the last GPU's completion so far
    Time m_gap{NanoSeconds(10)};                    //!< the iteration gap
    uint32_t m_id{0};                               //!< FabricSimulatorImpl::Register()'s
    Time m_start;                                   //!< start of the current run
    RunCallback m_done;                             //!< caller's callback
};

} // namespace ns3

#endif /* COLLECTIVE_HELPER_H */
