/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_STALL_DETECTOR_H
#define FABRIC_STALL_DETECTOR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricTopology;
class Node;
class RdmaTransport;

/**
 * \ingroup ai-fabric
 * \brief Stops a run whose fabric stopped moving, and says why: a deadlock's cycle of paused
 * or credit-starved queues, or the queues it is stuck on.
 *
 * Every CheckInterval it compares a progress count (bytes delivered in order to the queue
 * pairs) with the last one. When the count has not changed for StallTime while some queue
 * pair has work requests outstanding, it analyses the fabric:
 *
 * - A queue (a port's priority or VL) is blocked when it holds frames and the link's flow
 *   control holds them (the peer paused the priority; the VL has no credits).
 * - A blocked queue waits for the next switch's ingress buffer on that class; the frames
 *   holding that buffer sit in that switch's output queues. The queue waits for each of those
 *   output queues that is blocked too: the wait-for graph of Hu et al. (HotNets 2016).
 * - A cycle in that graph is a deadlock: the buffers wait for each other and no timer will
 *   free them; it is reported at once.
 * - Without a cycle the fabric may be recovering: queue pairs wait for their retransmission
 *   timeout after losses (a failed link). Such a stall is reported only once nothing has
 *   moved for two of the longest retransmission timeouts of the queue pairs with work, plus
 *   RecoveryAllowance (the time a fault takes to be detected and rerouted); the report names
 *   the queue pairs in the error state (retries exhausted) and the blocked queues.
 *
 * The finding goes to the Stall trace source and GetFinding(); with StopOnStall the
 * simulation stops there. Checking ends once the Done callback says the workload finished, so
 * the detector never keeps an otherwise finished simulation running.
 *
 * A check has two steps. ExchangeTime before it, every process takes its part of the fabric's
 * state: the progress and outstanding work of its queue pairs, those in the error state, and
 * (when a stall may be declared) its blocked queues with the ingress buffers they hold. Across
 * MPI ranks (FabricSimulatorImpl) each rank sends its part to every other one, and at the
 * check every rank decides from all the parts, the same way, and stops at the same event. In
 * one process the two steps are the same, so a finding does not depend on the split.
 */
class FabricStallDetector : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricStallDetector();
    ~FabricStallDetector() override;

    /// What the detector concluded
    enum class Finding : uint8_t
    {
        NONE,     //!< nothing yet
        STALL,    //!< no progress, no cyclic wait
        DEADLOCK, //!< no progress, a cycle of blocked queues
    };

    /**
     * \brief Watch a fabric: every port of its links and the hosts' transports.
     * \param topology the fabric graph
     * \param transports the hosts' transports
     */
    void Install(const FabricTopology& topology, const std::vector<Ptr<RdmaTransport>>& transports);

    /**
     * \param done returns true once the workload has finished (checking stops)
     */
    void SetDoneCallback(Callback<bool> done);

    /**
     * \brief Also watch work that is not on queue pairs (the flow level's flows).
     * \param work fills (progress, outstanding): a count that grows while the work moves
     *        (bytes sent), and the work not finished (flows)
     * \param timeout the retransmission timeout the work waits for after a loss (as a queue
     *        pair's: a stall is declared after two of them and the RecoveryAllowance)
     */
    void SetWorkCallback(Callback<void, uint64_t&, uint64_t&> work, Time timeout);

    /// Start checking (call before Simulator::Run(); across MPI ranks, on every rank).
    void Start();

    /// \return what was found
    Finding GetFinding() const;

    /// \return the report: one line, "deadlock: ..." or "stall: ..." (empty if none)
    std::string GetReport() const;

    /// \return the queues of the deadlock's cycle, as "node port N (to peer) prio P"
    const std::vector<std::string>& GetCycle() const;

    /// \return when the stall was declared
    Time GetDetectionTime() const;

    /**
     * \return the progress count (bytes delivered in order to the queue pairs), of this
     *         process's queue pairs (across MPI ranks, this rank's)
     */
    uint64_t Progress() const;

    /// \return the id of its message between MPI ranks (registered at load)
    static uint32_t MessageHandler();

    /**
     * TracedCallback signature for a finding.
     * \param deadlock true for a cycle, false for a stall without one
     * \param report the one-line report
     */
    typedef void (*StallTracedCallback)(bool deadlock, const std::string& report);

  protected:
    void DoDispose() override;

  private:
    /// A queue pair in the error state, in one process's part of a check.
    struct ErrorQp
    {
        uint32_t transport; //!< its transport's index
        uint32_t index;     //!< its index in the transport
        uint32_t address;   //!< its transport's address
        uint32_t qpn;       //!< its number
        uint32_t remote;    //!< the peer's address
    };

    /// A blocked queue, in one process's part of a check.
    struct BlockedQueue
    {
        uint32_t port;                                     //!< index in m_ports
        uint8_t cls;                                       //!< its class
        std::vector<std::pair<uint16_t, uint8_t>> sources; //!< ingress (port, class) it holds
    };

    /// One process's part of a check, or the sum of all (Merge()).
    struct Part
    {
        uint64_t progress{0};             //!< bytes delivered in order, and more (Progress())
        uint64_t outstanding{0};          //!< work requests outstanding
        int64_t rto{0};                   //!< the longest RTO of QPs with work (time steps)
        uint64_t noRoute{0};              //!< drops for want of a route
        uint64_t errors{0};               //!< queue pairs in the error state
        std::vector<ErrorQp> firstErrors; //!< the first 4 of them
        std::vector<BlockedQueue> queues; //!< blocked queues (when a stall may be declared)
    };

    /// Take this process's part, ExchangeTime before a check, and send it to the others.
    void Snapshot();

    /// The check: decide from every process's part.
    void Decide();

    /**
     * \param withQueues take the blocked queues too
     * \return this process's part
     */
    Part TakePart(bool withQueues) const;

    /**
     * \param part a part
     * \return its bytes
     */
    static std::vector<uint8_t> Encode(const Part& part);

    /**
     * \param data bytes from Encode()
     * \param size their number
     * \return the part
     */
    static Part Decode(const uint8_t* data, uint32_t size);

    /// \return every process's part of this check, added up (in one process's order)
    Part Merge();

    /**
     * \brief A part from another rank (FabricSimulatorImpl's handler).
     * \param key the message's key
     * \param context its context
     * \param data its bytes
     * \param size their number
     */
    static void ReceivePart(const FabricSimulatorImpl::Key& key,
                            uint32_t context,
                            const uint8_t* data,
                            uint32_t size);

    /**
     * \brief Build the wait-for graph and the report.
     * \param all every process's part
     */
    void Analyse(const Part& all);

    /**
     * \param all every process's part
     * \return how long a stall without a cycle must last to be reported
     */
    Time StallWithoutCycle(const Part& all) const;

    /**
     * \param all every process's part
     * \return the queue pairs in the error state, as "gpuA qp N -> gpuB" (up to 4)
     */
    std::string QueuePairsInError(const Part& all) const;

    Time m_stallTime;                            //!< no progress this long: a stall
    Time m_allowance;                            //!< RecoveryAllowance
    std::map<uint32_t, std::string> m_hostNames; //!< endpoint name by fabric address
    Time m_interval;                             //!< between checks
    Time m_exchange;                             //!< ExchangeTime
    Time m_lead{0};                              //!< parts taken this long before a check
    uint32_t m_id{0};                            //!< FabricSimulatorImpl::Register()'s
    uint64_t m_check{0};                         //!< checks so far
    Part m_own;                                  //!< this process's part of the next check
    std::map<uint64_t, std::vector<std::vector<uint8_t>>> m_received; //!< by check, by rank
    std::unordered_map<const FabricNetDevice*, uint32_t> m_portIndex; //!< index in m_ports
    bool m_stop{true};                                //!< stop the simulation on a finding
    std::vector<Ptr<FabricNetDevice>> m_ports;        //!< every port
    std::vector<Ptr<RdmaTransport>> m_transports;     //!< hosts' transports
    Callback<bool> m_done;                            //!< workload finished?
    Callback<void, uint64_t&, uint64_t&> m_work;      //!< SetWorkCallback()
    Time m_workTimeout;                               //!< SetWorkCallback()
    uint64_t m_lastProgress{0};                       //!< count at the last change
    Time m_lastChange;                                //!< when it last changed
    EventId m_event;                                  //!< next check
    Finding m_finding{Finding::NONE};                 //!< result
    std::string m_report;                             //!< one line
    std::vector<std::string> m_cycle;                 //!< the cycle's queues
    Time m_detected;                                  //!< when
    TracedCallback<bool, const std::string&> m_trace; //!< finding
};

} // namespace ns3

#endif /* FABRIC_STALL_DETECTOR_H */
