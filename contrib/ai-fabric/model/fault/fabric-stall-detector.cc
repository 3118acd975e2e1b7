/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-stall-detector.h"

#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-topology.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricStallDetector");
NS_OBJECT_ENSURE_REGISTERED(FabricStallDetector);

namespace
{
/**
 * \param node a node
 * \return its name, or "node<id>"
 */
std::string
NodeName(Ptr<Node> node)
{
    const std::string name = Names::FindName(node);
    return name.empty() ? "node" + std::to_string(node->GetId()) : name;
}
} // namespace

TypeId
FabricStallDetector::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricStallDetector")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricStallDetector>()
              .AddAttribute("StallTime",
                            "No progress this long while work is outstanding is a stall (s). "
                            "Default 10 ms: thousands of round trips of any ai-fabric "
                            "fabric, and shorter than a queue pair's retransmission timeout, "
                            "so a deadlock is named before timeouts blur it.",
                            TimeValue(MilliSeconds(10)),
                            MakeTimeAccessor(&FabricStallDetector::m_stallTime),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("RecoveryAllowance",
                            "Added to the wait before a stall without a cycle is reported: the "
                            "time the fabric takes to detect and reroute a failure (s). "
                            "Default 0.",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&FabricStallDetector::m_allowance),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("CheckInterval",
                            "Time between checks of the progress count (s). 0 (the default): "
                            "a quarter of StallTime.",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&FabricStallDetector::m_interval),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("ExchangeTime",
                            "How long before each check every process takes its part of the "
                            "fabric's state (across MPI ranks it is sent to the others in that "
                            "time, so it bounds the lookahead; in one process it is the same, so "
                            "findings do not depend on the split). At most CheckInterval is "
                            "used. Default 10 ns: CollectiveHelper's iteration gap, which bounds "
                            "the lookahead already.",
                            TimeValue(NanoSeconds(10)),
                            MakeTimeAccessor(&FabricStallDetector::m_exchange),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("StopOnStall",
                            "Stop the simulation when a stall or deadlock is found.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&FabricStallDetector::m_stop),
                            MakeBooleanChecker())
              .AddTraceSource("Stall",
                              "A stall was found: (true for a deadlock's cycle, the report).",
                              MakeTraceSourceAccessor(&FabricStallDetector::m_trace),
                              "ns3::FabricStallDetector::StallTracedCallback");
    return tid;
}

FabricStallDetector::FabricStallDetector() = default;

FabricStallDetector::~FabricStallDetector() = default;

void
FabricStallDetector::DoDispose()
{
    m_event.Cancel();
    if (FabricSimulatorImpl* impl = FabricSimulatorImpl::Get(); impl && impl->GetNRanks() > 1)
    {
        impl->Unregister(m_id, this);
    }
    m_received.clear();
    m_ports.clear();
    m_transports.clear();
    m_done = Callback<bool>();
    m_work = Callback<void, uint64_t&, uint64_t&>();
    Object::DoDispose();
}

void
FabricStallDetector::Install(const FabricTopology& topology,
                             const std::vector<Ptr<RdmaTransport>>& transports)
{
    const FabricTopology::Graph& g = topology.GetGraph();
    for (uint32_t v = 0; v < topology.GetNVertices(); ++v)
    {
        if (g[v].kind == FabricTopology::Kind::ENDPOINT)
        {
            m_hostNames[g[v].address] = NodeName(g[v].node);
        }
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e)
    {
        for (const Ptr<FabricNetDevice>& port : {g[*e].portA, g[*e].portB})
        {
            m_portIndex[PeekPointer(port)] = static_cast<uint32_t>(m_ports.size());
            m_ports.push_back(port);
        }
    }
    m_transports = transports;
}

void
FabricStallDetector::SetDoneCallback(Callback<bool> done)
{
    m_done = done;
}

void
FabricStallDetector::SetWorkCallback(Callback<void, uint64_t&, uint64_t&> work, Time timeout)
{
    m_work = work;
    m_workTimeout = timeout;
}

void
FabricStallDetector::Start()
{
    if (m_interval.IsZero())
    {
        m_interval = m_stallTime / 4;
    }
    if (m_interval.IsZero())
    {
        m_interval = m_stallTime;
    }
    m_lead = std::min(m_exchange, m_interval);
    if (FabricSimulatorImpl* impl = FabricSimulatorImpl::Get(); impl && impl->GetNRanks() > 1)
    {
        // Before the run every rank's progress is 0: the ranks start from the same count.
        NS_ABORT_MSG_IF(!Simulator::Now().IsZero(),
                        "FabricStallDetector: across MPI ranks, Start() before the run");
        m_id = impl->Register(this);
        impl->BoundLookahead(m_lead);
    }
    m_check = 0;
    m_received.clear();
    m_lastProgress = Progress();
    m_lastChange = Simulator::Now();
    m_event = Simulator::Schedule(m_interval - m_lead, &FabricStallDetector::Snapshot, this);
}

uint64_t
FabricStallDetector::Progress() const
{
    return TakePart(false).progress;
}

FabricStallDetector::Part
FabricStallDetector::TakePart(bool withQueues) const
{
    // Another rank's queue pairs and ports are idle copies here: they add nothing.
    Part part;
    for (uint32_t t = 0; t < m_transports.size(); ++t)
    {
        const Ptr<RdmaTransport>& transport = m_transports[t];
        for (uint32_t i = 0; i < transport->GetNQueuePairs(); ++i)
        {
            Ptr<RdmaQueuePair> qp = transport->GetQueuePair(RdmaTransport::FIRST_QPN + i);
            // Bytes delivered in order, and packets that reached the QP out of sequence or
            // again: a transport that is still retransmitting within its retry budget, over
            // a lossy link, gets packets through (recovering, not stalled). Retransmissions
            // into a cut cable reach nothing and count for nothing.
            part.progress += qp->GetDeliveredBytes() + qp->GetOutOfSequencePackets();
            const uint32_t outstanding = qp->GetOutstandingRequests();
            part.outstanding += outstanding;
            if (qp->IsInError())
            {
                if (part.firstErrors.size() < 4)
                {
                    part.firstErrors.push_back(
                        {t, i, transport->GetAddress(), qp->GetQpn(), qp->GetRemoteAddress()});
                }
                ++part.errors;
            }
            else if (outstanding > 0)
            {
                part.rto = std::max(part.rto, qp->GetRetransmissionTimeout().GetTimeStep());
            }
        }
    }
    if (!m_work.IsNull())
    {
        uint64_t progress = 0;
        uint64_t outstanding = 0;
        m_work(progress, outstanding);
        part.progress += progress;
        part.outstanding += outstanding;
        if (outstanding > 0)
        {
            part.rto = std::max(part.rto, m_workTimeout.GetTimeStep());
        }
    }
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        const Ptr<FabricNetDevice>& port = m_ports[p];
        part.noRoute
            += port->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::NO_ROUTE)];
        if (!withQueues || !port->IsLinkUp())
        {
            continue;
        }
        for (uint32_t c = 0; c < port->GetNTrafficClasses(); ++c)
        {
            const auto cls = static_cast<uint8_t>(c);
            if (port->GetClassQueuedBytes(cls) > 0 && port->IsClassBlocked(cls))
            {
                BlockedQueue q{p, cls, {}};
                port->GetClassSources(cls, q.sources);
                part.queues.push_back(std::move(q));
            }
        }
    }
    return part;
}

namespace
{
/**
 * \param out bytes
 * \param value a value to append (its bytes, in this machine's order: ranks of one run share it)
 */
template<typename T>
void
Put(std::vector<uint8_t>& out, T value)
{
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

/// Reads what Put() wrote.
class Reader
{
  public:
    /**
     * \param data the bytes
     * \param size their number
     */
    Reader(const uint8_t* data, uint32_t size)
        : m_data(data)
        , m_left(size)
    {
    }

    /// \return the next value
    template<typename T>
    T Get()
    {
        NS_ABORT_MSG_IF(m_left < sizeof(T), "FabricStallDetector: a short message");
        T value;
        std::memcpy(&value, m_data, sizeof(T));
        m_data += sizeof(T);
        m_left -= sizeof(T);
        return value;
    }

  private:
    const uint8_t* m_data; //!< next byte
    uint32_t m_left;       //!< bytes left
};

/// What a part's message carries before the part.
struct PartHeader
{
    uint32_t detector; //!< the detector's id (FabricSimulatorImpl::Register())
    uint32_t rank;     //!< the sending rank
    uint64_t check;    //!< the check's number
};

/// Registered at load, so in the same order on every rank.
[[maybe_unused]] const uint32_t g_stallHandler = FabricStallDetector::MessageHandler();
} // namespace

std::vector<uint8_t>
FabricStallDetector::Encode(const Part& part)
{
    std::vector<uint8_t> out;
    Put(out, part.progress);
    Put(out, part.outstanding);
    Put(out, part.rto);
    Put(out, part.noRoute);
    Put(out, part.errors);
    Put(out, static_cast<uint32_t>(part.firstErrors.size()));
    for (const ErrorQp& e : part.firstErrors)
    {
        Put(out, e);
    }
    Put(out, static_cast<uint32_t>(part.queues.size()));
    for (const BlockedQueue& q : part.queues)
    {
        Put(out, q.port);
        Put(out, q.cls);
        Put(out, static_cast<uint32_t>(q.sources.size()));
        for (const auto& [ingress, cls] : q.sources)
        {
            Put(out, ingress);
            Put(out, cls);
        }
    }
    return out;
}

FabricStallDetector::Part
FabricStallDetector::Decode(const uint8_t* data, uint32_t size)
{
    Reader in(data, size);
    Part part;
    part.progress = in.Get<uint64_t>();
    part.outstanding = in.Get<uint64_t>();
    part.rto = in.Get<int64_t>();
    part.noRoute = in.Get<uint64_t>();
    part.errors = in.Get<uint64_t>();
    part.firstErrors.resize(in.Get<uint32_t>());
    for (ErrorQp& e : part.firstErrors)
    {
        e = in.Get<ErrorQp>();
    }
    part.queues.resize(in.Get<uint32_t>());
    for (BlockedQueue& q : part.queues)
    {
        q.port = in.Get<uint32_t>();
        q.cls = in.Get<uint8_t>();
        q.sources.resize(in.Get<uint32_t>());
        for (auto& [ingress, cls] : q.sources)
        {
            ingress = in.Get<uint16_t>();
            cls = in.Get<uint8_t>();
        }
    }
    return part;
}

uint32_t
FabricStallDetector::MessageHandler()
{
    static const uint32_t id
        = FabricSimulatorImpl::RegisterHandler(&FabricStallDetector::ReceivePart);
    return id;
}

void
FabricStallDetector::ReceivePart(const FabricSimulatorImpl::Key& /* key */,
                                 uint32_t /* context */,
                                 const uint8_t* data,
                                 uint32_t size)
{
    // Read at the end of a window, before any event at the check's time: kept until then.
    PartHeader h;
    NS_ABORT_MSG_IF(size < sizeof(h), "FabricStallDetector: a short message");
    std::memcpy(&h, data, sizeof(h));
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    auto* detector = static_cast<FabricStallDetector*>(impl->Lookup(h.detector));
    NS_ABORT_MSG_IF(!detector || h.rank >= impl->GetNRanks(),
                    "FabricStallDetector: a message for no detector");
    std::vector<std::vector<uint8_t>>& parts = detector->m_received[h.check];
    parts.resize(impl->GetNRanks());
    parts[h.rank].assign(data + sizeof(h), data + size);
}

void
FabricStallDetector::Snapshot()
{
    // The blocked queues only when the check may analyse them (what Decide() asks below).
    const bool withQueues = Simulator::Now() + m_lead - m_lastChange >= m_stallTime;
    m_own = TakePart(withQueues);
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    if (impl && impl->GetNRanks() > 1)
    {
        const PartHeader h{m_id, impl->GetRank(), m_check};
        std::vector<uint8_t> message(sizeof(h));
        std::memcpy(message.data(), &h, sizeof(h));
        const std::vector<uint8_t> part = Encode(m_own);
        message.insert(message.end(), part.begin(), part.end());
        const FabricSimulatorImpl::Key key = impl->MakeKey(m_lead);
        for (uint32_t r = 0; r < impl->GetNRanks(); ++r)
        {
            if (r != impl->GetRank())
            {
                impl->Send(r,
                           key,
                           Simulator::NO_CONTEXT,
                           MessageHandler(),
                           message.data(),
                           static_cast<uint32_t>(message.size()));
            }
        }
    }
    m_event = Simulator::Schedule(m_lead, &FabricStallDetector::Decide, this);
}

FabricStallDetector::Part
FabricStallDetector::Merge()
{
    Part all = std::move(m_own);
    m_own = Part();
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    if (!impl || impl->GetNRanks() == 1)
    {
        return all;
    }
    auto it = m_received.find(m_check);
    for (uint32_t r = 0; r < impl->GetNRanks(); ++r)
    {
        if (r == impl->GetRank())
        {
            continue;
        }
        NS_ABORT_MSG_IF(it == m_received.end() || it->second.size() <= r || it->second[r].empty(),
                        "FabricStallDetector: rank " << r << "'s part of check " << m_check
                                                     << " did not arrive");
        const Part part = Decode(it->second[r].data(), static_cast<uint32_t>(it->second[r].size()));
        all.progress += part.progress;
        all.outstanding += part.outstanding;
        all.rto = std::max(all.rto, part.rto);
        all.noRoute += part.noRoute;
        all.errors += part.errors;
        all.firstErrors.insert(
            all.firstErrors.end(), part.firstErrors.begin(), part.firstErrors.end());
        all.queues.insert(all.queues.end(), part.queues.begin(), part.queues.end());
    }
    m_received.erase(it);
    // One process's order: queue pairs by transport, queues by port and class.
    std::sort(all.firstErrors.begin(),
              all.firstErrors.end(),
              [](const ErrorQp& a, const ErrorQp& b)
              { return std::tie(a.transport, a.index) < std::tie(b.transport, b.index); });
    if (all.firstErrors.size() > 4)
    {
        all.firstErrors.resize(4);
    }
    std::sort(all.queues.begin(),
              all.queues.end(),
              [](const BlockedQueue& a, const BlockedQueue& b)
              { return std::tie(a.port, a.cls) < std::tie(b.port, b.cls); });
    return all;
}

Time
FabricStallDetector::StallWithoutCycle(const Part& all) const
{
    return std::max(m_stallTime, Time(all.rto) * 2 + m_allowance);
}

std::string
FabricStallDetector::QueuePairsInError(const Part& all) const
{
    if (all.errors == 0)
    {
        return "";
    }
    auto name = [this](uint32_t address)
    {
        auto it = m_hostNames.find(address);
        return it == m_hostNames.end() ? "address " + std::to_string(address) : it->second;
    };
    std::ostringstream s;
    for (std::size_t n = 0; n < all.firstErrors.size(); ++n)
    {
        const ErrorQp& e = all.firstErrors[n];
        s << (n == 0 ? "" : ", ") << name(e.address) << " qp " << e.qpn << " -> " << name(e.remote);
    }
    if (all.errors > 4)
    {
        s << ", ...";
    }
    return std::to_string(all.errors)
           + " queue pair(s) in the error state (retries exhausted): " + s.str();
}

void
FabricStallDetector::Decide()
{
    const Part all = Merge();
    ++m_check;
    if (!m_done.IsNull() && m_done())
    {
        m_received.clear();
        return; // the workload finished: stop checking
    }
    const Time now = Simulator::Now();
    const std::string errors = QueuePairsInError(all);
    if (!errors.empty())
    {
        // A queue pair gave up (retries exhausted): its transfer never completes.
        m_detected = now;
        m_finding = Finding::STALL;
        m_report = "stall: " + errors;
        NS_LOG_WARN(m_report);
        m_trace(false, m_report);
        if (m_stop)
        {
            Simulator::Stop();
        }
        return;
    }
    if (all.progress != m_lastProgress || all.outstanding == 0)
    {
        m_lastProgress = all.progress;
        m_lastChange = now;
    }
    else if (now - m_lastChange >= m_stallTime)
    {
        Analyse(all);
        if (m_finding == Finding::STALL && now - m_lastChange < StallWithoutCycle(all))
        {
            // No cycle: the fabric may still recover (timeouts, a reroute). Wait longer.
            m_finding = Finding::NONE;
            m_report.clear();
            m_event
                = Simulator::Schedule(m_interval - m_lead, &FabricStallDetector::Snapshot, this);
            return;
        }
        m_detected = now;
        NS_LOG_WARN(m_report);
        m_trace(m_finding == Finding::DEADLOCK, m_report);
        if (m_stop)
        {
            Simulator::Stop();
        }
        return;
    }
    m_event = Simulator::Schedule(m_interval - m_lead, &FabricStallDetector::Snapshot, this);
}

void
FabricStallDetector::Analyse(const Part& all)
{
    // Vertices: blocked queues (port, class), every process's, in port order; edges: a queue
    // waits for a blocked queue of the next switch that holds frames from its ingress buffer.
    std::map<std::pair<uint32_t, uint8_t>, uint32_t> index;
    for (uint32_t i = 0; i < all.queues.size(); ++i)
    {
        index[{all.queues[i].port, all.queues[i].cls}] = i;
    }
    std::vector<std::vector<uint32_t>> waitsFor(all.queues.size());
    for (uint32_t i = 0; i < all.queues.size(); ++i)
    {
        const Ptr<FabricNetDevice>& port = m_ports[all.queues[i].port];
        const uint8_t cls = all.queues[i].cls;
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        Ptr<Node> next = peer->GetNode();
        const auto ingress = static_cast<uint16_t>(peer->GetIfIndex());
        for (uint32_t d = 0; d < next->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> out = DynamicCast<FabricNetDevice>(next->GetDevice(d));
            auto known = out ? m_portIndex.find(PeekPointer(out)) : m_portIndex.end();
            if (known == m_portIndex.end())
            {
                continue;
            }
            for (uint32_t c = 0; c < out->GetNTrafficClasses(); ++c)
            {
                auto it = index.find({known->second, static_cast<uint8_t>(c)});
                if (it == index.end())
                {
                    continue;
                }
                for (const auto& s : all.queues[it->second].sources)
                {
                    if (s.first == ingress && s.second == cls)
                    {
                        waitsFor[i].push_back(it->second);
                        break;
                    }
                }
            }
        }
    }

    // Depth-first search for a cycle, in port order (deterministic).
    const std::size_t nQueues = all.queues.size();
    std::vector<uint8_t> state(nQueues, 0); // 0 new, 1 on the stack, 2 done
    std::vector<uint32_t> stack;
    std::vector<uint32_t> cycle;
    for (uint32_t root = 0; root < nQueues && cycle.empty(); ++root)
    {
        if (state[root] != 0)
        {
            continue;
        }
        std::vector<std::pair<uint32_t, std::size_t>> dfs{{root, 0}};
        stack.assign(1, root);
        state[root] = 1;
        while (!dfs.empty() && cycle.empty())
        {
            auto& [v, next] = dfs.back();
            if (next < waitsFor[v].size())
            {
                const uint32_t u = waitsFor[v][next++];
                if (state[u] == 1)
                {
                    auto from = std::find(stack.begin(), stack.end(), u);
                    cycle.assign(from, stack.end());
                }
                else if (state[u] == 0)
                {
                    state[u] = 1;
                    stack.push_back(u);
                    dfs.emplace_back(u, 0);
                }
            }
            else
            {
                state[v] = 2;
                stack.pop_back();
                dfs.pop_back();
            }
        }
    }

    auto label = [this, &all](uint32_t i)
    {
        const Ptr<FabricNetDevice>& port = m_ports[all.queues[i].port];
        const uint8_t cls = all.queues[i].cls;
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        std::ostringstream s;
        s << NodeName(port->GetNode()) << " port " << port->GetIfIndex() << " (to "
          << NodeName(peer->GetNode()) << ") " << port->GetTrafficClassName() << " "
          << static_cast<uint32_t>(cls);
        return s.str();
    };
    char quiet[64];
    std::snprintf(quiet,
                  sizeof(quiet),
                  "no progress for %.3f ms",
                  (Simulator::Now() - m_lastChange).GetSeconds() * 1e3);
    std::ostringstream report;
    m_cycle.clear();
    if (!cycle.empty())
    {
        m_finding = Finding::DEADLOCK;
        report << "deadlock: a cycle of " << cycle.size() << " blocked queues: ";
        for (uint32_t i : cycle)
        {
            m_cycle.push_back(label(i));
            report << m_cycle.back() << " -> ";
        }
        report << m_cycle.front() << " (" << quiet << ", " << all.outstanding
               << " work requests outstanding)";
    }
    else
    {
        m_finding = Finding::STALL;
        report << "stall: " << quiet << " with " << all.outstanding
               << " work requests outstanding; ";
        const std::string errors = QueuePairsInError(all);
        if (!errors.empty())
        {
            report << errors << "; ";
        }
        if (all.noRoute > 0)
        {
            report << all.noRoute
                   << " packet(s) dropped for want of a route (the routing engine has "
                   << "no path around a failure); ";
        }
        if (nQueues == 0)
        {
            report << "no queue is held by flow control (waiting for a timeout or an "
                      "unreachable destination)";
        }
        else
        {
            report << nQueues << " queue(s) held by flow control, no cycle: ";
            for (uint32_t i = 0; i < nQueues && i < 4; ++i)
            {
                report << (i == 0 ? "" : ", ") << label(i);
            }
            if (nQueues > 4)
            {
                report << ", ...";
            }
        }
    }
    m_report = report.str();
}

FabricStallDetector::Finding
FabricStallDetector::GetFinding() const
{
    return m_finding;
}

std::string
FabricStallDetector::GetReport() const
{
    return m_report;
}

const std::vector<std::string>&
FabricStallDetector::GetCycle() const
{
    return m_cycle;
}

Time
FabricStallDetector::GetDetectionTime() const
{
    return m_detected;
}

} // namespace ns3
