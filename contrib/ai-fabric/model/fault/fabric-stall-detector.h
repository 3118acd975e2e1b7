/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_STALL_DETECTOR_H
#define FABRIC_STALL_DETECTOR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
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

    /// Start checking (call before Simulator::Run()).
    void Start();

    /// \return what was found
    Finding GetFinding() const;

    /// \return the report: one line, "deadlock: ..." or "stall: ..." (empty if none)
    std::string GetReport() const;

    /// \return the queues of the deadlock's cycle, as "node port N (to peer) prio P"
    const std::vector<std::string>& GetCycle() const;

    /// \return when the stall was declared
    Time GetDetectionTime() const;

    /// \return the progress count (bytes delivered in order to the queue pairs)
    uint64_t Progress() const;

    /**
     * TracedCallback signature for a finding.
     * \param deadlock true for a cycle, false for a stall without one
     * \param report the one-line report
     */
    typedef void (*StallTracedCallback)(bool deadlock, const std::string& report);

  protected:
    void DoDispose() override;

  private:
    /// One check.
    void Check();

    /// Build the wait-for graph and the report.
    void Analyse();

    /// \return work requests outstanding over all queue pairs
    uint64_t Outstanding() const;

    /// \return how long a stall without a cycle must last to be reported
    Time StallWithoutCycle() const;

    /// \return the queue pairs in the error state, as "gpuA qp N -> gpuB" (up to 4)
    std::string QueuePairsInError() const;

    Time m_stallTime;                                 //!< no progress this long: a stall
    Time m_allowance;                                 //!< RecoveryAllowance
    std::map<uint32_t, std::string> m_hostNames;      //!< endpoint name by fabric address
    Time m_interval;                                  //!< between checks
    bool m_stop{true};                                //!< stop the simulation on a finding
    std::vector<Ptr<FabricNetDevice>> m_ports;        //!< every port
    std::vector<Ptr<RdmaTransport>> m_transports;     //!< hosts' transports
    Callback<bool> m_done;                            //!< workload finished?
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
