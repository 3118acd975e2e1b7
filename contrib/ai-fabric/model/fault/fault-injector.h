/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FAULT_INJECTOR_H
#define FAULT_INJECTOR_H

#include "fault-schedule.h"
#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <set>
#include <string>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricTopology;

/**
 * \ingroup ai-fabric
 * What happened to one scheduled failure: when it struck, when the fabric noticed, when the
 * new routes were in place.
 */
struct FaultRecord
{
    Time at;           //!< when it struck
    std::string what;  //!< "link leaf0-spine1 down", "bit errors 1e-07 on leaf0-spine1", ...
    Time detected{-1}; //!< when the fabric noticed (negative: never, e.g. bit errors)
    Time rerouted{-1}; //!< when the new tables were in place (negative: never)
};

/**
 * \ingroup ai-fabric
 * \brief Fails and repairs cables, switches and NICs on schedule, and plays the fabric's
 * detection and recovery: after DetectionDelay the failure is noticed (BFD on Ethernet, the
 * subnet manager's trap on InfiniBand); after RerouteDelay more the routing engine has
 * recomputed every switch's table over the links that are up (ECMP's routes converged, the
 * SM's sweep uploaded new LFTs).
 *
 * A cable that fails loses the packets on it and those queued for it (LinkDown drops); until
 * the reroute, switches still send into it and those packets are lost too. The transport
 * recovers them (timeouts, go-back-N). After each reroute the injector checks that every
 * endpoint still reaches every other: if one does not (its NIC, or every path to it, is
 * down), the run cannot complete; the finding is reported and, with StopWhenUnreachable, the
 * simulation stops. Bit errors corrupt frames at the receiving port (ReceiveErrorModel);
 * links stay up and nothing is rerouted.
 */
class FaultInjector : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FaultInjector();
    ~FaultInjector() override;

    /**
     * \param topology the fabric
     * \param recomputeRoutes recomputes every switch's table (FabricHelper::ComputeRoutes)
     * \param missingRoute after a reroute: empty, or a switch without a route to an endpoint
     *        it is connected to (FabricHelper::FindMissingRoute; null: not checked)
     */
    void Install(Ptr<FabricTopology> topology,
                 Callback<void> recomputeRoutes,
                 Callback<std::string> missingRoute = Callback<std::string>());

    /**
     * \brief Resolve the events' names and schedule them.
     * \param events the events
     * \param error one line naming what does not exist
     * \return false if a name does not resolve (nothing is scheduled then)
     */
    bool Schedule(const std::vector<FaultEvent>& events, std::string& error);

    /**
     * \brief Resolve the events' names without scheduling them.
     * \param events the events
     * \param error one line naming what does not exist
     * \return false if a name does not resolve
     */
    bool Check(const std::vector<FaultEvent>& events, std::string& error) const;

    /**
     * \brief Use fixed random streams: bit-error event k of the schedule (in the order
     *        scheduled) uses stream + k.
     * \param stream first random stream
     * \return streams used so far (one per bit-error event scheduled)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the record of every state change, in the order they struck
    const std::vector<FaultRecord>& GetRecords() const;

    /// \return empty, or the finding that ended the run ("unreachable: ...")
    const std::string& GetFinding() const;

    /**
     * TracedCallback signature for fault events.
     * \param what the record's description
     */
    typedef void (*FaultTracedCallback)(const std::string& what);

  protected:
    void DoDispose() override;

  private:
    /**
     * \param cables cables
     * \param up their new state
     * \param what the record's description
     */
    void Change(std::vector<Ptr<FabricChannel>> cables, bool up, std::string what);

    /**
     * \param cable a cable
     * \param rate bit error rate (0: none)
     * \param what the record's description
     * \param index the bit-error event's index in the schedule (its random stream)
     */
    void SetBitErrors(Ptr<FabricChannel> cable, double rate, std::string what, uint32_t index);

    /**
     * \param events events
     * \param resolved the cables of each
     * \param error one line naming what does not exist
     * \return false if a name does not resolve
     */
    bool Resolve(const std::vector<FaultEvent>& events,
                 std::vector<std::vector<Ptr<FabricChannel>>>& resolved,
                 std::string& error) const;

    /// \param record the record whose failure was just noticed
    void Detected(std::size_t record);

    /// \param record the record whose reroute is done
    void Rerouted(std::size_t record);

    /**
     * \param down if given, the cables to take as down (all others up) instead of the
     *        cables' present state
     * \return empty, or which endpoint cannot reach which
     */
    std::string CheckReachability(const std::set<const FabricChannel*>* down = nullptr) const;

    /**
     * \brief Which failure cut an endpoint off: replays the link changes so far, in order,
     * from a fabric with every cable up, and names the last change after which the fabric
     * stopped being connected (not the failure whose reroute happened to find it).
     * \return that change's description, or empty if the replay never disconnects
     */
    std::string CauseOfCut() const;

    /// The cables a record changed, and to which state (no cables: bit errors).
    struct LinkChange
    {
        std::vector<Ptr<FabricChannel>> cables; //!< the cables
        bool up{false};                         //!< their new state
    };

    Time m_detection;                     //!< DetectionDelay
    Time m_reroute;                       //!< RerouteDelay
    bool m_stop{true};                    //!< StopWhenUnreachable
    uint32_t m_berEvents{0};              //!< bit-error events scheduled
    int64_t m_stream{-1};                 //!< first stream for error models (-1: not assigned)
    Ptr<FabricTopology> m_topology;       //!< the fabric
    Callback<void> m_recompute;           //!< recompute routes
    Callback<std::string> m_missingRoute; //!< check the routes
    std::vector<FaultRecord> m_records;   //!< what happened
    std::vector<LinkChange> m_changes;    //!< the link changes of each record
    std::string m_finding;                //!< unreachable
    TracedCallback<const std::string&> m_faultTrace;   //!< a failure or repair struck
    TracedCallback<const std::string&> m_rerouteTrace; //!< tables recomputed after one
};

} // namespace ns3

#endif /* FAULT_INJECTOR_H */
