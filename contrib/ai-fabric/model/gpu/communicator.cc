/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "communicator.h"

#include "gpu-transport.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Communicator");
NS_OBJECT_ENSURE_REGISTERED(Communicator);

namespace
{
/// A reduction reads two operands and writes the result.
constexpr uint64_t REDUCE_MEMORY_PASSES = 3;
/// LL: every 8-byte data word travels with an 8-byte flag word.
constexpr double LL_EFFICIENCY = 0.5;
/// A message's tag: the collective's sequence number (8 bits) above the schedule's tag.
constexpr uint32_t TAG_ID_BITS = CollectiveSchedule::TAG_BITS;
/// Sequence numbers wrap at 256.
constexpr uint32_t TAG_SEQUENCE_MASK = 0xFF;
/// A peer may run at most this many collectives ahead (a root that waits for nobody, as the
/// chain broadcast's, runs ahead by about one collective per hop of latency).
constexpr uint32_t MAX_LEAD = 127;
/// NCCL's threads per channel (NCCL_SIMPLE_MAX_NTHREADS, NCCL_LL_MAX_NTHREADS).
constexpr uint64_t NCCL_MAX_THREADS = 512;
/// NCCL's LL128 threads per channel (NCCL_LL128_MAX_NTHREADS).
constexpr uint64_t NCCL_LL128_MAX_THREADS = 640;
/// NCCL_SIMPLE_THREAD_THRESHOLD: bytes per thread before another channel is used.
constexpr uint64_t NCCL_SIMPLE_THREAD_BYTES = 64;
/// NCCL_LL_THREAD_THRESHOLD and NCCL_LL128_THREAD_THRESHOLD.
constexpr uint64_t NCCL_LL_THREAD_BYTES = 8;
/**
 * \param protocol a protocol
 * \param simple Simple's value
 * \param ll LL's value
 * \param ll128 LL128's value
 * \return the protocol's value
 */
template<typename T>
T
ByProtocol(NcclProtocol protocol, T simple, T ll, T ll128)
{
    return protocol == NCCL_LL ? ll : protocol == NCCL_LL128 ? ll128 : simple;
}
} // namespace

TypeId
Communicator::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::Communicator")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<Communicator>()
              .AddAttribute(
                  "Protocol",
                  "NCCL protocol of a collective whose schedule names none: Simple (default, "
                  "as NCCL uses for large messages), LL or LL128. The programs' sweeps name "
                  "one per size (--protocol, or the tuner's choice).",
                  EnumValue(NCCL_SIMPLE),
                  MakeEnumAccessor(&Communicator::m_protocol),
                  MakeEnumChecker(NCCL_SIMPLE, "Simple", NCCL_LL, "LL", NCCL_LL128, "LL128"))
              .AddAttribute("SimpleStepLatency",
                            "Latency the Simple protocol adds to every step, beyond the fabric "
                            "(s): GPU flag polling and the proxy thread posting the write. "
                            "Default 14 us, NCCL's tuning model (network, ring, Simple).",
                            TimeValue(MicroSeconds(14)),
                            MakeTimeAccessor(&Communicator::m_simpleLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("LlStepLatency",
                            "Latency the LL protocol adds to every step (s). Default 2.7 us, "
                            "NCCL's tuning model (network, ring, LL).",
                            TimeValue(NanoSeconds(2700)),
                            MakeTimeAccessor(&Communicator::m_llLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("Ll128StepLatency",
                            "Latency the LL128 protocol adds to every step (s). Default 4.0 us, "
                            "NCCL's tuning model (network, ring, LL128).",
                            TimeValue(MicroSeconds(4)),
                            MakeTimeAccessor(&Communicator::m_ll128Latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("NvLinkSimpleStepLatency",
                            "Latency the Simple protocol adds to every step to a peer over "
                            "NVLink (s). Default 3.4 us, NCCL's tuning model (NVLink, ring, "
                            "Simple).",
                            TimeValue(NanoSeconds(3400)),
                            MakeTimeAccessor(&Communicator::m_nvlSimpleLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("NvLinkLlStepLatency",
                            "Latency the LL protocol adds to every NVLink step (s). Default "
                            "0.6 us, NCCL's tuning model (NVLink, ring, LL).",
                            TimeValue(NanoSeconds(600)),
                            MakeTimeAccessor(&Communicator::m_nvlLlLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("NvLinkLl128StepLatency",
                            "Latency the LL128 protocol adds to every NVLink step (s). Default "
                            "1.9 us, NCCL's tuning model (NVLink, ring, LL128).",
                            TimeValue(NanoSeconds(1900)),
                            MakeTimeAccessor(&Communicator::m_nvlLl128Latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("TreeLlStepLatency",
                            "Latency the LL protocol adds to every network step of a tree "
                            "(s). Default 5.0 us, NCCL's tuning model (network, tree, LL).",
                            TimeValue(NanoSeconds(5000)),
                            MakeTimeAccessor(&Communicator::m_treeLlLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("TreeLl128StepLatency",
                            "Latency the LL128 protocol adds to every network step of a tree "
                            "(s). Default 8.5 us, NCCL's tuning model (network, tree, LL128).",
                            TimeValue(NanoSeconds(8500)),
                            MakeTimeAccessor(&Communicator::m_treeLl128Latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("NvLinkTreeLl128StepLatency",
                            "Latency the LL128 protocol adds to every NVLink step of a tree "
                            "(s). Default 1.25 us, NCCL's tuning model (NVLink, tree, LL128). "
                            "A tree's LL NVLink step is the ring's (0.6 us in both).",
                            TimeValue(NanoSeconds(1250)),
                            MakeTimeAccessor(&Communicator::m_nvlTreeLl128Latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("SimpleBaseLatency",
                            "Latency a collective with the Simple protocol pays once, before a "
                            "rank's first message (s). Default 0: the Simple step latencies "
                            "hold it (NCCL's tuning model has 0 for the tree, 8.4 us for the "
                            "ring).",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&Communicator::m_simpleBaseLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("LlBaseLatency",
                            "Latency a collective with the LL protocol pays once, before a "
                            "rank's first message: the kernel's launch and setup (s). Default "
                            "6.8 us, NCCL's tuning model (tree, LL; the ring's is 6.6 us).",
                            TimeValue(NanoSeconds(6800)),
                            MakeTimeAccessor(&Communicator::m_llBaseLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("Ll128BaseLatency",
                            "Latency a collective with the LL128 protocol pays once, before a "
                            "rank's first message (s). Default 14 us, NCCL's tuning model "
                            "(ring and tree, LL128).",
                            TimeValue(MicroSeconds(14)),
                            MakeTimeAccessor(&Communicator::m_ll128BaseLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("Ll128Efficiency",
                            "Payload efficiency of LL128: 120 data bytes per 128-byte line "
                            "(NCCL).",
                            DoubleValue(120.0 / 128.0),
                            MakeDoubleAccessor(&Communicator::m_ll128Efficiency),
                            MakeDoubleChecker<double>(0.01, 1.0))
              .AddAttribute("ReduceBandwidth",
                            "GPU memory bandwidth available to reductions (bit/s); a reduction "
                            "of B bytes moves 3B. Default 3.35 TB/s, the HBM3 bandwidth of an "
                            "H100 SXM.",
                            DataRateValue(DataRate("26800Gbps")),
                            MakeDataRateAccessor(&Communicator::m_reduceBandwidth),
                            MakeDataRateChecker())
              .AddAttribute("MinBytesPerChannel",
                            "Bytes a collective must have per channel before NCCL uses another "
                            "channel (bytes). 0 (the default): NCCL's rule, threads per channel "
                            "x bytes per thread of the protocol (Simple 512 x 64 B = 32 KiB; LL "
                            "512 x 8 B, times the ranks on a ring; LL128 640 x 8 B).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&Communicator::m_minBytesPerChannel),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("StepAccounting",
                            "Count the payload bytes sent and received at each step of a "
                            "collective (GetBytesSentByStep(), GetBytesReceivedByStep()). Off "
                            "by default: two counters per step on every rank, O(ranks x steps) "
                            "in all (a ring's 2(n-1) steps: 33 MB at 1,024 GPUs, 8.6 GB at "
                            "16,384), each touched once per message.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&Communicator::m_stepAccounting),
                            MakeBooleanChecker())
              .AddTraceSource("Send",
                              "A message was handed to the transport.",
                              MakeTraceSourceAccessor(&Communicator::m_sendTrace),
                              "ns3::Communicator::TransferTracedCallback")
              .AddTraceSource("Arrival",
                              "A message to this rank arrived (and was reduced).",
                              MakeTraceSourceAccessor(&Communicator::m_arrivalTrace),
                              "ns3::Communicator::TransferTracedCallback");
    return tid;
}

Communicator::Communicator()
{
    NS_LOG_FUNCTION(this);
}

Communicator::~Communicator()
{
    NS_LOG_FUNCTION(this);
}

void
Communicator::DoDispose()
{
    m_startEvent.Cancel();
    if (m_transport)
    {
        m_transport->ClearListener(this); // not told once it is gone
    }
    m_transport = nullptr;
    m_schedule = nullptr;
    m_posted[0].clear();
    m_posted[1].clear();
    m_lastDue[0] = -1;
    m_lastDue[1] = -1;
    m_done = DoneCallback();
    m_pxn = nullptr; // the relay and the plans it keeps
    Object::DoDispose();
}

void
Communicator::Setup(uint32_t rank, uint32_t nRanks, Ptr<GpuTransport> transport)
{
    NS_ABORT_MSG_IF(rank >= nRanks, "Communicator: rank " << rank << " of " << nRanks);
    m_rank = rank;
    m_nRanks = nRanks;
    m_transport = transport;
    m_transport->SetListener(this);
}

void
Communicator::TransportReceived(uint32_t tag, uint64_t bytes)
{
    Received(tag, bytes);
}

void
Communicator::TransportSent(uint32_t tag)
{
    SendCompleted(tag);
}

void
Communicator::SetGroup(std::vector<uint32_t> globalRanks,
                       uint32_t channelBase,
                       uint32_t id,
                       uint32_t idBits)
{
    NS_ABORT_MSG_IF(!globalRanks.empty() && globalRanks.size() != m_nRanks,
                    "Communicator: a group of " << globalRanks.size() << " ranks for a " << m_nRanks
                                                << "-rank communicator");
    NS_ABORT_MSG_IF(idBits > 8 || (id >> idBits) != 0,
                    "Communicator: id " << id << " does not fit " << idBits << " bits");
    NS_ABORT_MSG_IF(IsRunning(), "Communicator: SetGroup() while a collective runs");
    m_global = std::move(globalRanks);
    m_channelBase = channelBase;
    m_groupId = id;
    m_idBits = idBits;
    m_localMask = (1U << (TAG_ID_BITS - idBits)) - 1;
    m_nvlsContiguous = true;
    for (uint32_t r = 1; r < m_global.size(); ++r)
    {
        m_nvlsContiguous = m_nvlsContiguous && m_global[r] == m_global[r - 1] + 1;
    }
}

uint32_t
Communicator::GetGlobalRank(uint32_t rank) const
{
    return m_global.empty() ? rank : m_global[rank];
}

uint32_t
Communicator::GetGroupId() const
{
    return m_groupId;
}

uint32_t
Communicator::GetRank() const
{
    return m_rank;
}

NcclProtocol
Communicator::GetProtocol() const
{
    return m_schedule ? m_running : m_protocol;
}

NcclProtocol
Communicator::GetDefaultProtocol() const
{
    return m_protocol;
}

double
Communicator::GetProtocolEfficiency() const
{
    return GetProtocolEfficiency(GetProtocol());
}

double
Communicator::GetProtocolEfficiency(NcclProtocol protocol) const
{
    return ByProtocol(protocol, 1.0, LL_EFFICIENCY, m_ll128Efficiency);
}

Time
Communicator::GetStepLatency() const
{
    return GetStepLatency(GetProtocol(), m_schedule && m_runningTree);
}

Time
Communicator::GetStepLatency(NcclProtocol protocol) const
{
    return ByProtocol(protocol, m_simpleLatency, m_llLatency, m_ll128Latency);
}

Time
Communicator::GetStepLatency(NcclProtocol protocol, bool tree) const
{
    if (tree && protocol == NCCL_LL)
    {
        return m_treeLlLatency;
    }
    if (tree && protocol == NCCL_LL128)
    {
        return m_treeLl128Latency;
    }
    return GetStepLatency(protocol);
}

Time
Communicator::GetNvLinkStepLatency() const
{
    return GetNvLinkStepLatency(GetProtocol(), m_schedule && m_runningTree);
}

Time
Communicator::GetNvLinkStepLatency(NcclProtocol protocol, bool tree) const
{
    return tree && protocol == NCCL_LL128 ? m_nvlTreeLl128Latency : GetNvLinkStepLatency(protocol);
}

Time
Communicator::GetBaseLatency(NcclProtocol protocol) const
{
    return ByProtocol(protocol, m_simpleBaseLatency, m_llBaseLatency, m_ll128BaseLatency);
}

Time
Communicator::GetNvLinkStepLatency(NcclProtocol protocol) const
{
    return ByProtocol(protocol, m_nvlSimpleLatency, m_nvlLlLatency, m_nvlLl128Latency);
}

DataRate
Communicator::GetReduceBandwidth() const
{
    return m_reduceBandwidth;
}

uint64_t
Communicator::WireBytes(uint64_t payloadBytes) const
{
    return WireBytes(payloadBytes, GetProtocolEfficiency());
}

uint64_t
Communicator::WireBytes(uint64_t payloadBytes, double efficiency)
{
    return efficiency >= 1.0 ? payloadBytes
                             : static_cast<uint64_t>(std::ceil(payloadBytes / efficiency));
}

uint32_t
Communicator::ChannelsFor(uint64_t bytes, uint32_t maxChannels, bool ring) const
{
    return ChannelsFor(bytes, maxChannels, ring, GetProtocol());
}

uint32_t
Communicator::ChannelsFor(uint64_t bytes,
                          uint32_t maxChannels,
                          bool ring,
                          NcclProtocol protocol) const
{
    uint64_t perChannel = m_minBytesPerChannel;
    if (perChannel == 0)
    {
        switch (protocol)
        {
        case NCCL_SIMPLE:
            perChannel = NCCL_MAX_THREADS * NCCL_SIMPLE_THREAD_BYTES;
            break;
        case NCCL_LL:
            perChannel = NCCL_MAX_THREADS * NCCL_LL_THREAD_BYTES * (ring ? m_nRanks : 1);
            break;
        case NCCL_LL128:
            perChannel = NCCL_LL128_MAX_THREADS * NCCL_LL_THREAD_BYTES;
            break;
        }
    }
    const uint64_t fit = bytes / perChannel;
    return static_cast<uint32_t>(std::clamp<uint64_t>(fit, 1, std::max(maxChannels, 1U)));
}

Time
Communicator::ReductionTime(uint64_t bytes) const
{
    return FabricBytesTxTime(m_reduceBandwidth, bytes * REDUCE_MEMORY_PASSES);
}

void
Communicator::StartStreams()
{
    for (uint32_t s = 0; s < m_send.size(); ++s)
    {
        Advance(s);
    }
}

bool
Communicator::IsRunning() const
{
    return m_schedule != nullptr;
}

void
Communicator::SetPxn(Ptr<PxnRelay> pxn)
{
    NS_ABORT_MSG_IF(IsRunning(), "Communicator: SetPxn() while a collective runs");
    m_pxn = pxn;
}

Ptr<PxnRelay>
Communicator::GetPxn() const
{
    return m_pxn;
}

void
Communicator::Run(Ptr<const CollectiveSchedule> schedule, DoneCallback done)
{
    NS_LOG_FUNCTION(this << m_rank);
    NS_ABORT_MSG_IF(IsRunning(), "Communicator: rank " << m_rank << " is already running");
    if (m_pxn)
    {
        schedule = m_pxn->Route(schedule);
    }
    NS_ABORT_MSG_IF(schedule->GetNRanks() != m_nRanks,
                    "Communicator: a schedule for " << schedule->GetNRanks() << " ranks on a "
                                                    << m_nRanks << "-rank communicator");
    m_running = schedule->HasProtocol() ? schedule->GetProtocol() : m_protocol;
    m_runningTree = schedule->UsesTreeLatency();
    m_schedule = schedule;
    // What each message asks, once per collective.
    m_runStepLatency = GetStepLatency();
    m_runNvLinkStepLatency = GetNvLinkStepLatency();
    m_runEfficiency = GetProtocolEfficiency();
    m_runCopying = schedule->GetKernelCopyRate() > 0;
    m_done = done;
    m_sequence = (m_sequence + 1) & TAG_SEQUENCE_MASK;
    m_indexBits = schedule->GetTagIndexBits(m_idBits);
    m_started = 0;
    m_completed = 0;
    m_sentByStep.assign(m_stepAccounting ? schedule->GetNSteps() : 0, 0);
    m_receivedByStep.assign(m_stepAccounting ? schedule->GetNSteps() : 0, 0);
    m_gpuFree.assign(schedule->GetNChannels() + 1, Time(0));
    m_recv.resize(schedule->GetNRecvStreams(m_rank));
    m_arrivalsLeft = 0;
    for (uint32_t j = 0; j < m_recv.size(); ++j)
    {
        RecvStream& in = m_recv[j];
        const uint64_t length = schedule->GetRecvLength(m_rank, j);
        NS_ABORT_MSG_IF(length > UINT32_MAX,
                        "Communicator: rank " << m_rank << " receives " << length
                                              << " messages on one stream, more than "
                                              << UINT32_MAX);
        in.length = static_cast<uint32_t>(length);
        in.received = 0;
        in.arrived = 0;
        in.ahead.clear();
        in.waiters.clear();
        m_arrivalsLeft += in.length;
    }
    m_send.resize(schedule->GetNSendStreams(m_rank));
    m_sendStreamsLeft = 0;
    for (uint32_t s = 0; s < m_send.size(); ++s)
    {
        m_send[s].next = 0;
        m_send[s].length = schedule->GetSendLength(m_rank, s);
        m_sendStreamsLeft += m_send[s].length > 0 ? 1 : 0;
    }
    // The kernel's launch and setup (NCCL's base latency), once per collective.
    const Time base = GetBaseLatency(m_running);
    if (m_runCopying)
    {
        // The kernel copies the rank's own bytes first, once it runs.
        m_gpuFree.back() = Simulator::Now() + base
                           + Seconds(static_cast<double>(schedule->GetKernelOwnBytes(m_rank))
                                     / schedule->GetKernelCopyRate());
    }
    if (base.IsStrictlyPositive() && m_sendStreamsLeft > 0)
    {
        m_startEvent = Simulator::Schedule(base, &Communicator::StartStreams, this);
    }
    else
    {
        StartStreams();
    }
    // Messages of this collective that arrived before this rank started it; those of later
    // collectives stay.
    std::vector<std::pair<uint32_t, uint64_t>> early;
    early.swap(m_early);
    for (const auto& [tag, bytes] : early)
    {
        if ((tag >> TAG_ID_BITS) == m_sequence)
        {
            Received(tag, bytes);
        }
        else
        {
            m_early.emplace_back(tag, bytes);
        }
    }
    CheckDone(); // a rank with nothing to do (one rank, or zero bytes)
}

bool
Communicator::Satisfied(const ScheduleDependency& d) const
{
    const RecvStream& in = m_recv[d.stream];
    for (uint64_t i = std::max<uint64_t>(d.first, in.arrived); i <= d.last; ++i)
    {
        if (!std::binary_search(in.ahead.begin(), in.ahead.end(), i))
        {
            return false;
        }
    }
    return true;
}

void
Communicator::Advance(uint32_t stream)
{
    SendStream& out = m_send[stream];
    while (m_schedule && out.next < out.length)
    {
        m_schedule->GetSend(m_rank, stream, out.next, m_message);
        for (const ScheduleDependency& d : m_message.deps)
        {
            NS_ASSERT(d.stream < m_recv.size() && d.last < m_recv[d.stream].length);
            if (!Satisfied(d))
            {
                m_recv[d.stream].waiters.push_back(stream);
                return;
            }
        }
        if (++out.next == out.length)
        {
            --m_sendStreamsLeft;
        }
        if (!m_message.skip)
        {
            ++m_started;
            // Start may deliver at once (a zero latency): m_message is not used after it.
            Start(m_message.transfer, m_schedule->MakeTag(m_message, m_indexBits));
        }
    }
}

void
Communicator::Start(const CollectiveTransfer& t, uint32_t tag)
{
    const bool nvlink = m_transport->IsNvLinkPeer(GetGlobalRank(t.dst));
    const Time latency = nvlink ? m_runNvLinkStepLatency : m_runStepLatency;
    if (latency.IsZero())
    {
        Send(t, tag);
        return;
    }
    // The first message due at a time is an event; the others due then (a schedule often
    // starts many at once) wait in a queue per latency (NVLink's, the network's) and leave
    // with it, instead of being events of their own.
    const uint32_t which = nvlink ? 0 : 1;
    const int64_t due = Simulator::Now().GetTimeStep() + latency.GetTimeStep();
    if (due == m_lastDue[which])
    {
        m_posted[which].push_back(Posted{due, t, tag});
        return;
    }
    m_lastDue[which] = std::max(m_lastDue[which], due);
    Simulator::Schedule(latency, &Communicator::SendDue, this, t, tag, which);
}

void
Communicator::SendDue(const CollectiveTransfer& t, uint32_t tag, uint32_t which)
{
    Send(t, tag);
    FabricFifo<Posted>& posted = m_posted[which];
    if (posted.empty())
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    while (!posted.empty() && posted.front().due <= now)
    {
        const Posted p = posted.front();
        posted.pop_front();
        Send(p.transfer, p.tag); // what it starts waits at least a step latency: not these
    }
}

void
Communicator::Send(const CollectiveTransfer& t, uint32_t tag)
{
    // t is not read after the transport has it (a delivery at once may start other messages).
    if (m_stepAccounting)
    {
        m_sentByStep[t.step] += t.bytes;
    }
    m_sendTrace(t);
    tag |= m_sequence << TAG_ID_BITS;
    if (m_idBits > 0)
    {
        tag |= m_groupId << (TAG_ID_BITS - m_idBits);
    }
    switch (t.kind)
    {
    case TransferKind::POINT_TO_POINT:
        m_transport->Send(GetGlobalRank(t.dst),
                          m_channelBase + t.channel,
                          WireBytes(t.bytes, m_runEfficiency),
                          tag);
        break;
    case TransferKind::NVLS_REDUCE:
    case TransferKind::NVLS_MULTICAST:
    {
        // An NVLS group is GPUs groupBase .. groupBase + groupSize - 1 of a domain: the
        // communicator's ranks there must be consecutive global ranks.
        NS_ABORT_MSG_IF(!m_nvlsContiguous,
                        "Communicator: NVLS on a group whose ranks are not consecutive GPUs");
        const bool multicast = t.kind == TransferKind::NVLS_MULTICAST;
        m_transport->SendNvls(multicast,
                              GetGlobalRank(multicast ? t.src : t.dst),
                              WireBytes(t.bytes, m_runEfficiency),
                              tag,
                              t.groupSize,
                              GetGlobalRank(t.groupBase));
        break;
    }
    }
}

void
Communicator::Received(uint32_t tag, uint64_t bytes)
{
    const uint32_t sequence = tag >> TAG_ID_BITS;
    if (!m_schedule || sequence != m_sequence)
    {
        // A peer already runs a later collective: keep its data until this rank starts it.
        const uint32_t lead = (sequence - m_sequence) & TAG_SEQUENCE_MASK;
        NS_ABORT_MSG_IF(lead == 0 || lead > MAX_LEAD,
                        "Communicator: rank " << m_rank << " received a message of collective "
                                              << sequence << " during collective " << m_sequence
                                              << " (a peer is too far ahead)");
        m_early.emplace_back(tag, bytes);
        return;
    }
    const uint32_t local = tag & m_localMask;
    const auto [first, count] = m_schedule->LocateRecv(m_rank, local >> m_indexBits);
    NS_ABORT_MSG_IF(count == 0 || first + count > m_recv.size(),
                    "Communicator: rank " << m_rank << " received an unexpected message " << local);
    RecvStream& in = m_recv[first];
    uint64_t index = in.received;
    if (m_indexBits > 0)
    {
        // The full index from its low bits: the one nearest the messages received so far.
        const uint64_t window = 1ULL << m_indexBits;
        uint64_t delta = ((local & (window - 1)) - in.received) & (window - 1);
        index = delta < window / 2 ? in.received + delta : in.received - (window - delta);
    }
    NS_ABORT_MSG_IF(index >= in.length,
                    "Communicator: rank " << m_rank << " received message " << index
                                          << " of a stream of " << in.length);
    ++in.received;
    CollectiveTransfer t;
    m_schedule->GetRecv(m_rank, first, index, t);
    NS_ABORT_MSG_IF(bytes != WireBytes(t.bytes, m_runEfficiency),
                    "Communicator: rank " << m_rank << " received " << bytes
                                          << " bytes of a message of "
                                          << WireBytes(t.bytes, m_runEfficiency));
    if (m_stepAccounting)
    {
        m_receivedByStep[t.step] += t.bytes;
    }
    if (t.kind == TransferKind::NVLS_REDUCE)
    {
        // The switch delivered the reduction once, for every rank's contribution.
        for (uint32_t j = 0; j < count; ++j)
        {
            Arrived(first + j, j == 0 ? index : 0, t);
        }
        return;
    }
    Time ready; // zero: no copy
    if (m_runCopying && m_transport->IsNvLinkPeer(GetGlobalRank(t.src)))
    {
        // The kernel copies it out of the buffer it landed in, one copy at a time.
        Time& copy = m_gpuFree.back();
        copy = std::max(copy, Simulator::Now())
               + Seconds(static_cast<double>(t.bytes) / m_schedule->GetKernelCopyRate());
        ready = copy;
    }
    if (!t.reduce)
    {
        if (ready.IsZero())
        {
            Arrived(first, index, t);
            return;
        }
        Simulator::Schedule(
            ready - Simulator::Now(), &Communicator::Arrived, this, first, index, t);
        return;
    }
    // The channel's thread block reduces one piece at a time.
    Time& free = m_gpuFree[t.channel];
    const Time now = Simulator::Now();
    free = std::max(std::max(free, now), ready) + ReductionTime(t.bytes);
    Simulator::Schedule(free - now, &Communicator::Arrived, this, first, index, t);
}

void
Communicator::Arrived(uint32_t stream, uint64_t index, CollectiveTransfer t)
{
    RecvStream& in = m_recv[stream];
    if (index == in.arrived)
    {
        ++in.arrived;
        while (!in.ahead.empty() && in.ahead.front() == in.arrived)
        {
            in.ahead.erase(in.ahead.begin());
            ++in.arrived;
        }
    }
    else
    {
        auto at = std::lower_bound(in.ahead.begin(), in.ahead.end(), index);
        NS_ABORT_MSG_IF(index < in.arrived || (at != in.ahead.end() && *at == index),
                        "Communicator: rank " << m_rank << " received message " << index
                                              << " of stream " << stream << " twice");
        in.ahead.insert(at, index);
    }
    --m_arrivalsLeft;
    m_arrivalTrace(t);
    if (!in.waiters.empty())
    {
        // Wake them from a copy (Advance() may make them wait again), in storage kept from
        // the last time: no allocation per arrival.
        std::vector<uint32_t> waiters = std::move(m_spareWaiters);
        waiters.clear();
        waiters.swap(in.waiters);
        for (uint32_t s : waiters)
        {
            Advance(s);
        }
        waiters.clear();
        m_spareWaiters = std::move(waiters);
    }
    CheckDone();
}

void
Communicator::SendCompleted(uint32_t /* tag */)
{
    ++m_completed;
    CheckDone();
}

void
Communicator::CheckDone()
{
    if (!m_schedule || m_sendStreamsLeft > 0 || m_arrivalsLeft > 0 || m_completed < m_started)
    {
        return;
    }
    NS_LOG_FUNCTION(this << m_rank);
    m_schedule = nullptr;
    DoneCallback done = m_done;
    m_done = DoneCallback();
    if (!done.IsNull())
    {
        done(m_rank);
    }
}

Ptr<const CollectiveSchedule>
Communicator::GetSchedule() const
{
    return m_schedule;
}

const std::vector<uint64_t>&
Communicator::GetBytesReceivedByStep() const
{
    return m_receivedByStep;
}

const std::vector<uint64_t>&
Communicator::GetBytesSentByStep() const
{
    return m_sentByStep;
}

} // namespace ns3
