/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FLOW_NETWORK_H
#define FLOW_NETWORK_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The flow-level engine: flows share links max-min fairly, and each flow finishes when
 *        its bytes have gone at the rates it was given.
 *
 * A link is one direction of a cable (or any shared resource: a NIC's PCIe link, a GPU's
 * NVLink ports together) with a capacity in bytes per second. A path is the list of links a
 * flow crosses, each with a weight: the flow takes weight x its rate of that link (1 on the
 * links its data crosses, the ratio of ACK to data bytes on the links its ACKs come back by).
 * A flow's rate is the max-min fair share: no flow can go faster without slowing one that is
 * no faster than it (weighted progressive filling).
 *
 * The allocation is kept incrementally. Each link has a level: the rate of the flows it
 * limits (infinite if it limits none). A link's level follows from its flows and the levels of
 * the other links they cross (sum over its flows of weight x min(level, their other limit) =
 * capacity). When flows start or finish, only their links are solved again, and a link whose
 * level changed has the other links of its flows solved again, until no level changes; flows
 * whose rate changed have their finish times moved. Starts and finishes at one time are
 * settled together. If the propagation runs too long (EvaluationLimit), every link is solved
 * from scratch by progressive filling: the same allocation.
 *
 * Finish times are kept in the engine's own heap; the simulator holds one event, for the
 * earliest.
 */
class FlowNetwork
    : public Object
    , public FabricInstantEnd
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowNetwork();
    ~FlowNetwork() override;

    /// One link of a path and the share of the flow's rate it takes there.
    struct Use
    {
        uint32_t link{0};   //!< the link
        double weight{1.0}; //!< bytes taken on the link per byte of the flow
    };

    /// Who is told that a flow finished.
    class Owner
    {
      public:
        virtual ~Owner() = default;
        /**
         * \param flow the flow (its number may be reused from now on)
         * \param cookie what the owner gave Start()
         */
        virtual void FlowFinished(uint32_t flow, uint64_t cookie) = 0;
    };

    /**
     * TracedCallback signature of a congested link (GetCongestion()).
     * \param link the link
     * \param fanIn the upstream links of the flows it limits
     */
    typedef void (*CongestionTracedCallback)(uint32_t link, uint32_t fanIn);

    /**
     * TracedCallback signature of a port where flows converge from links that carry other
     * flows (GetCongestion()).
     * \param link the link
     * \param others the data flows on its upstream links that do not cross it
     */
    typedef void (*SharedInputTracedCallback)(uint32_t link, uint32_t others);

    /**
     * TracedCallback signature of a flow that starts or finishes.
     * \param flow the flow
     * \param path its path
     * \param bytes its bytes
     */
    typedef void (*FlowTracedCallback)(uint32_t flow, uint32_t path, uint64_t bytes);

    /**
     * \param rate the link's capacity (0: the link carries nothing)
     * \return the link's number (0, 1, ...)
     */
    uint32_t AddLink(DataRate rate);

    /// \return links added
    uint32_t GetNLinks() const;

    /**
     * \brief Change a link's capacity (0: down; its flows stop until it is up or they are
     *        moved); the allocation is settled again at once.
     * \param link the link
     * \param rate its new capacity
     */
    void SetLinkRate(uint32_t link, DataRate rate);

    /**
     * \param link a link
     * \return its capacity
     */
    DataRate GetLinkRate(uint32_t link) const;

    /**
     * \brief Watch a link for congestion the flow level does not model: a switch's egress
     *        port, where flows that arrive by different links converge (see GetCongestion()).
     * \param link the link
     */
    void WatchLink(uint32_t link);

    /// What the watched links saw (GetCongestion()).
    struct Congestion
    {
        uint32_t links{0};           //!< watched links that were ever congested
        double peakDemand{0};        //!< the highest demand over capacity on one of them
        uint32_t peakFanIn{0};       //!< the most upstream links one of them limited at once
        uint32_t peakLink{0};        //!< that link (valid if links > 0)
        Time peakTime;               //!< when it first limited that many
        uint32_t sharedInput{0};     //!< watched links: converging flows, shared inputs
        uint32_t sharedInputLink{0}; //!< the first of them (valid if sharedInput > 0)
        Time sharedInputTime;        //!< when it was first seen
    };

    /**
     * \brief A watched link is congested when, as settled, it limits flows that arrive by at
     *        least two different links (each flow's link before it on its path) and what its
     *        flows would take without it is at least CongestionDemand times its capacity:
     *        there the packet level queues, marks ECN, pauses with PFC and slows its senders
     *        with congestion control, none of which the flow level models.
     *        A watched link also counts in sharedInput when it limits flows that arrive by
     *        at least two different links, what they would take without it is at least
     *        SharedInputDemand times its capacity, and one of those links also carries data
     *        flows that do not cross it. The packet level's queue there couples them: the
     *        converging flows run ahead into the buffer, freeing their input links for the
     *        others early, or PFC pauses those links and the others stop with them
     *        (head-of-line blocking).
     * \return what the watched links saw so far
     */
    const Congestion& GetCongestion() const;

    /**
     * \param uses the links, each once, with positive weights
     * \return the path's number
     */
    uint32_t AddPath(const std::vector<Use>& uses);

    /**
     * \param path a path
     * \return its links
     */
    std::vector<Use> GetPath(uint32_t path) const;

    /**
     * \brief Start a flow now. Started from an owner's FlowFinished() on the finished flow's
     *        path at the same limit (a connection's next message), it takes that flow's place
     *        and number: its links keep their flows, so their shares are not solved again.
     * \param path its path
     * \param bytes its bytes (on its links of weight 1)
     * \param packets the packets they stand for (counted on every link of the path)
     * \param owner told when it finishes
     * \param cookie handed back to the owner
     * \param maxRate the fastest it may go (bytes/s; infinite: only its links limit it)
     * \return the flow's number
     */
    uint32_t Start(uint32_t path,
                   uint64_t bytes,
                   uint64_t packets,
                   Owner* owner,
                   uint64_t cookie,
                   double maxRate = std::numeric_limits<double>::infinity());

    /**
     * \brief Move an active flow to another path (a reroute): the bytes it has sent stay on
     *        the old path's links, the rest go on the new one's; the allocation is settled
     *        again at once.
     * \param flow an active flow
     * \param path its new path
     */
    void Move(uint32_t flow, uint32_t path);

    /**
     * \brief Count bytes a link sent outside the flows (the statistics only: they take none
     *        of its rate from the flows), such as what a GPU's transport serves in order.
     * \param link the link
     * \param bytes its bytes
     * \param packets their packets
     */
    void Carry(uint32_t link, uint64_t bytes, uint64_t packets);

    /**
     * \param flow an active flow
     * \return its path
     */
    uint32_t GetFlowPath(uint32_t flow) const;

    /**
     * \param flow an active flow
     * \param since filled: when its rate fell to 0 (a link of its path went down)
     * \param rateBefore filled: its rate before (bytes/s; 0 if it started stopped)
     * \return true if it is stopped now
     */
    bool GetStop(uint32_t flow, Time& since, double& rateBefore) const;

    /**
     * \param flow an active flow
     * \return its rate (bytes/s), as last settled
     */
    double GetRate(uint32_t flow) const;

    /**
     * \param flow an active flow
     * \return its bytes not yet sent, now
     */
    double GetRemaining(uint32_t flow) const;

    /// \return flows started and not finished
    uint32_t GetNActive() const;

    /// \return flows started so far
    uint64_t GetFlowsStarted() const;

    /**
     * \brief What a stall detector watches (FabricStallDetector::SetWorkCallback).
     * \param progress bytes sent so far (every flow's, weight 1)
     * \param outstanding flows not finished
     */
    void GetWork(uint64_t& progress, uint64_t& outstanding) const;

    /// \return settlements of the allocation (one per time at which flows started or ended)
    uint64_t GetSettlements() const;

    /// \return link solutions computed (incremental propagation)
    uint64_t GetLinkEvaluations() const;

    /// \return allocations computed from scratch (the propagation's fallback)
    uint64_t GetFullSolutions() const;

    /**
     * \param link a link
     * \return bytes carried by the flows that crossed it (weighted), so far
     */
    double GetLinkBytes(uint32_t link) const;

    /**
     * \param link a link
     * \return the flows crossing it now
     */
    uint32_t GetLinkFlows(uint32_t link) const;

    /**
     * \param link a link
     * \return packets of the flows that finished on it
     */
    uint64_t GetLinkPackets(uint32_t link) const;

    /**
     * \param link a link
     * \return its load now (sum of weight x rate of its flows, bytes/s)
     */
    double GetLinkLoad(uint32_t link) const;

    /**
     * \brief Solve every link from scratch by progressive filling (what the incremental
     *        propagation arrives at): for tests, and the fallback.
     */
    void SolveFromScratch();

  protected:
    void DoDispose() override;

  private:
    /// A flow's place in m_heap when it has none.
    static constexpr uint32_t NOT_IN_HEAP = UINT32_MAX;

    /// A flow on a link's list: the flow and which of its path's uses this is.
    struct Member
    {
        uint32_t flow; //!< the flow
        uint32_t use;  //!< index in its path
        double weight; //!< the use's weight
    };

    /// One direction of a cable.
    struct alignas(64) Link // one cache line: a flow's path touches each of its links
    {
        double capacity{0};          //!< bytes/s
        double level{0};             //!< rate of the flows it limits; infinity if none
        double carried{0};           //!< bytes carried by the flows that finished
        uint64_t packets{0};         //!< packets of the flows that finished
        std::vector<Member> members; //!< the flows crossing it
        uint32_t dataFlows{0};       //!< members of weight 1 (their data, not ACKs)
        bool queued{false};          //!< in the propagation's work list
        bool watched{false};         //!< WatchLink()
        bool changed{false};         //!< watched, its level changed in this settlement
        bool congested{false};       //!< watched, and congested at some settlement
    };

    static_assert(sizeof(Link) == 64, "a link is one cache line");

    /// A flow: what its start, its settlements and its finish read and write.
    struct alignas(64) Flow // one cache line
    {
        uint32_t path{0};      //!< its path
        bool active{false};    //!< started, not finished
        bool stopped{false};   //!< its rate fell to 0 (m_history says when)
        uint64_t bytes{0};     //!< its bytes
        uint64_t packets{0};   //!< its packets
        double remaining{0};   //!< bytes not yet sent at m_updated
        double rate{0};        //!< bytes/s
        int64_t updated{0};    //!< time steps of the last rate change
        Owner* owner{nullptr}; //!< told when it finishes
        uint64_t cookie{0};    //!< handed to the owner
    };

    static_assert(sizeof(Flow) == 64, "a flow is one cache line");

    /// What a flow keeps beside Flow: read at a take-over, a move, a stop and in the
    /// statistics, never in a settlement.
    struct FlowHistory
    {
        uint64_t bytesBefore{0};   //!< bytes of the flows it took over (Start()), not yet
                                   //!< counted on its links
        uint64_t packetsBefore{0}; //!< their packets
        int64_t stoppedAt{0};      //!< time steps its rate fell to 0 (Flow::stopped)
        double rateBefore{0};      //!< its rate before it stopped
    };

    /// What solving a link reads of each of its flows (kept apart from Flow: dense).
    struct alignas(32) Limits // never across two cache lines
    {
        double low{0};                //!< the lowest level on its path
        double second{0};             //!< the lowest but one (equal to low on a tie)
        double maxRate{0};            //!< its own limit (bytes/s)
        uint32_t lowLink{UINT32_MAX}; //!< the link of low (none: every level infinite)
        uint32_t uses{0};             //!< its path's first use in m_uses
    };

    /// A use of a path as kept: the uses of a path are consecutive in m_uses.
    struct PathUse
    {
        uint32_t link; //!< the link
        uint32_t end;  //!< one past the path's last use in m_uses
        double weight; //!< bytes taken on the link per byte of the flow
    };

    /// \param link add to the work list
    void Enqueue(uint32_t link);
    /// \param flow add to the flows whose rates are checked after the settlement
    void Touch(uint32_t flow);
    /**
     * \brief Find the lowest two levels on a flow's path.
     * \param limits the flow's limits (they name its path)
     */
    void FindLow(Limits& limits);
    /**
     * \brief Keep a flow's lowest two levels when one of its links' level changes.
     * \param limits the flow's limits
     * \param link the link
     * \param before its level before
     * \param after its level now
     */
    void MoveLow(Limits& limits, uint32_t link, double before, double after);
    /**
     * \param link a link
     * \return its level from its flows and the other links' levels
     */
    double Solve(uint32_t link);
    /**
     * \param link a watched link
     * \param demand filled: what its flows would take without it, over its capacity
     * \return the upstream links of the flows it limits, as settled
     */
    uint32_t FanIn(uint32_t link, double& demand);
    /**
     * \param link a watched link, after FanIn() (its upstream links, sorted and unique, in
     *        m_upstream)
     * \return the data flows on those upstream links that do not cross it
     */
    uint32_t Blocked(uint32_t link);
    /**
     * \brief Count a watched link converging on shared inputs (GetCongestion()), after
     *        FanIn() found two or more input links.
     * \param link the link
     * \param demand what FanIn() gave
     */
    void NoteSharedInput(uint32_t link, double demand);
    /**
     * \param a a level
     * \param b another
     * \return true if they differ by more than rounding
     */
    static bool Differ(double a, double b);
    /// The watched links whose level changed in this settlement: note those congested.
    void NoteCongestion();
    /// Propagate, then move the finish times of the flows whose rate changed.
    void Settle();
    /// Ask for a settlement at the current time (once): when the instant's events are done
    /// (FabricSimulatorImpl::AtEndOfInstant()), or else as an event now.
    void RequestSettle();
    /// The instant's events are done: settle.
    void InstantEnded() override;
    /// The earliest finish time is due: finish the flows due, then settle.
    void FinishDue();
    /// Keep the simulator's event at the heap's earliest finish time.
    void ArmEvent();
    /**
     * \param id a flow: put it on its path's links
     */
    void Attach(uint32_t id);
    /**
     * \param id a flow: take it off its path's links, counting its bytes and packets there
     * \param bytes its bytes on them
     * \param packets its packets on them
     */
    void Leave(uint32_t id, double bytes, uint64_t packets);
    /**
     * \brief The flow whose owner FinishDue() is telling leaves its links (if no flow of
     *        the owner's took it over) and its number is free.
     */
    void ReleaseFinishing();
    /**
     * \brief A flow that starts on the path of the flow that just finished, as its owner is
     *        told, at the same limit: it takes that flow's place on the links, whose shares
     *        do not change (a connection's next message).
     * \param bytes its bytes
     * \param packets its packets
     * \param owner its owner
     * \param cookie handed back to the owner
     * \return the flow's number (the finished flow's)
     */
    uint32_t TakeOver(uint64_t bytes, uint64_t packets, Owner* owner, uint64_t cookie);
    /**
     * \brief Put a flow in the finish heap at a time, or move it there.
     * \param flow the flow
     * \param time its finish (time steps)
     */
    void HeapSet(uint32_t flow, int64_t time);
    /// \param flow take it out of the finish heap (if in)
    void HeapRemove(uint32_t flow);
    /// \param at a place in m_heap: move its flow up or down to where it belongs
    void HeapFix(uint32_t at);
    /// A finish time in the heap.
    struct HeapEntry
    {
        int64_t time;  //!< time steps
        uint32_t flow; //!< the flow
        /**
         * \param o another entry
         * \return true if this one finishes first (ties: the lower number first)
         */
        bool operator<(const HeapEntry& o) const
        {
            return time != o.time ? time < o.time : flow < o.flow;
        }
    };

    /**
     * \param at a place in m_heap
     * \param entry the entry to put there
     */
    void HeapPlace(uint32_t at, const HeapEntry& entry);
    /**
     * \param bytes bytes to send
     * \param rate at this rate (bytes/s, positive)
     * \return the time steps they take, rounded up
     */
    int64_t StepsToSend(double bytes, double rate) const;
    /**
     * \param f a flow
     * \param now time steps
     * \return its bytes not yet sent at now
     */
    double RemainingAt(const Flow& f, int64_t now) const;

    std::vector<Link> m_links;          //!< by number
    std::vector<PathUse> m_uses;        //!< every path's uses, path after path
    std::vector<uint32_t> m_pathUses;   //!< by path: its first use in m_uses
    std::vector<Flow> m_flows;          //!< by number
    std::vector<FlowHistory> m_history; //!< by flow
    std::vector<Limits> m_limits;       //!< by flow
    std::vector<uint32_t> m_heapAt;     //!< by flow: its place in m_heap
    std::vector<uint32_t> m_slots; //!< by flow x m_stride + use: its place in the link's members
    uint32_t m_stride{1};          //!< the longest path's uses
    std::vector<uint32_t> m_freeFlows;           //!< numbers to reuse
    std::vector<uint32_t> m_queue;               //!< links to solve (a stack)
    std::vector<uint32_t> m_touched;             //!< flows whose rates may have changed
    std::vector<uint8_t> m_isTouched;            //!< by flow: in m_touched
    std::vector<std::pair<double, double>> m_bw; //!< scratch of Solve(): (limit, weight)
    std::vector<uint32_t> m_changed;             //!< watched links whose level changed
    std::vector<uint32_t> m_upstream;            //!< scratch of FanIn()
    std::vector<uint32_t> m_feeding;             //!< scratch of Blocked()
    std::vector<bool> m_sharedInputSeen;         //!< by link: counted in sharedInput
    double m_sharedInputDemand{2.0};             //!< SharedInputDemand
    Congestion m_congestion;                     //!< GetCongestion()
    double m_congestionDemand{4.0};              //!< CongestionDemand
    /// A flow finished, its owner not yet told.
    struct Done
    {
        Owner* owner;    //!< its owner
        uint32_t flow;   //!< the flow
        uint64_t cookie; //!< the owner's cookie
    };

    std::vector<Done> m_done;         //!< scratch of FinishDue()
    uint32_t m_finishing{UINT32_MAX}; //!< finished, its owner being told, still on its links
    std::vector<HeapEntry> m_heap;    //!< finish times: a 4-ary heap
    EventId m_event;                  //!< at the earliest finish time
    int64_t m_eventTime{-1};          //!< its time steps
    bool m_settlePending{false};      //!< a settlement is scheduled now
    uint32_t m_active{0};             //!< active flows
    uint64_t m_started{0};            //!< flows started
    double m_sent{0};              //!< bytes the flows sent on paths they left (finished or moved)
    uint64_t m_settlements{0};     //!< settlements
    uint64_t m_evaluations{0};     //!< Solve() calls
    uint64_t m_fullSolutions{0};   //!< SolveFromScratch() calls
    uint32_t m_evaluationLimit{0}; //!< EvaluationLimit
    double m_stepsPerSecond{0};    //!< time steps per second
    TracedCallback<uint32_t, uint32_t, uint64_t> m_startTrace;  //!< FlowStart
    TracedCallback<uint32_t, uint32_t, uint64_t> m_finishTrace; //!< FlowFinish
    TracedCallback<uint32_t, uint32_t> m_congestionTrace;       //!< Congestion
    TracedCallback<uint32_t, uint32_t> m_sharedInputTrace;      //!< SharedInput
};

} // namespace ns3

#endif /* FLOW_NETWORK_H */
