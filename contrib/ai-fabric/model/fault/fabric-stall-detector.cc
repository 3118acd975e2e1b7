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

#include <cstdio>
#include <map>
#include <sstream>

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
    m_ports.clear();
    m_transports.clear();
    m_done = Callback<bool>();
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
        m_ports.push_back(g[*e].portA);
        m_ports.push_back(g[*e].portB);
    }
    m_transports = transports;
}

void
FabricStallDetector::SetDoneCallback(Callback<bool> done)
{
    m_done = done;
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
    m_lastProgress = Progress();
    m_lastChange = Simulator::Now();
    m_event = Simulator::Schedule(m_interval, &FabricStallDetector::Check, this);
}

uint64_t
FabricStallDetector::Progress() const
{
    uint64_t progress = 0;
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        for (uint32_t i = 0; i < t->GetNQueuePairs(); ++i)
        {
            Ptr<RdmaQueuePair> qp = t->GetQueuePair(RdmaTransport::FIRST_QPN + i);
            // Bytes delivered in order, and packets that reached the QP out of sequence or
            // again: a transport that is still retransmitting within its retry budget, over
            // a lossy link, gets packets through (recovering, not stalled). Retransmissions
            // into a cut cable reach nothing and count for nothing.
            progress += qp->GetDeliveredBytes() + qp->GetOutOfSequencePackets();
        }
    }
    return progress;
}

uint64_t
FabricStallDetector::Outstanding() const
{
    uint64_t outstanding = 0;
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        for (uint32_t i = 0; i < t->GetNQueuePairs(); ++i)
        {
            outstanding += t->GetQueuePair(RdmaTransport::FIRST_QPN + i)->GetOutstandingRequests();
        }
    }
    return outstanding;
}

Time
FabricStallDetector::StallWithoutCycle() const
{
    Time rto(0);
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        for (uint32_t i = 0; i < t->GetNQueuePairs(); ++i)
        {
            Ptr<RdmaQueuePair> qp = t->GetQueuePair(RdmaTransport::FIRST_QPN + i);
            if (qp->GetOutstandingRequests() > 0 && !qp->IsInError())
            {
                rto = std::max(rto, qp->GetRetransmissionTimeout());
            }
        }
    }
    return std::max(m_stallTime, rto * 2 + m_allowance);
}

std::string
FabricStallDetector::QueuePairsInError() const
{
    auto name = [this](uint32_t address)
    {
        auto it = m_hostNames.find(address);
        return it == m_hostNames.end() ? "address " + std::to_string(address) : it->second;
    };
    std::ostringstream s;
    uint32_t n = 0;
    for (const Ptr<RdmaTransport>& t : m_transports)
    {
        for (uint32_t i = 0; i < t->GetNQueuePairs(); ++i)
        {
            Ptr<RdmaQueuePair> qp = t->GetQueuePair(RdmaTransport::FIRST_QPN + i);
            if (!qp->IsInError())
            {
                continue;
            }
            if (n < 4)
            {
                s << (n == 0 ? "" : ", ") << name(t->GetAddress()) << " qp " << qp->GetQpn()
                  << " -> " << name(qp->GetRemoteAddress());
            }
            ++n;
        }
    }
    if (n > 4)
    {
        s << ", ...";
    }
    return n == 0 ? ""
                  : std::to_string(n)
                        + " queue pair(s) in the error state (retries exhausted): " + s.str();
}

void
FabricStallDetector::Check()
{
    if (!m_done.IsNull() && m_done())
    {
        return; // the workload finished: stop checking
    }
    const Time now = Simulator::Now();
    if (!QueuePairsInError().empty())
    {
        // A queue pair gave up (retries exhausted): its transfer never completes.
        m_detected = now;
        m_finding = Finding::STALL;
        m_report = "stall: " + QueuePairsInError();
        NS_LOG_WARN(m_report);
        m_trace(false, m_report);
        if (m_stop)
        {
            Simulator::Stop();
        }
        return;
    }
    const uint64_t progress = Progress();
    if (progress != m_lastProgress || Outstanding() == 0)
    {
        m_lastProgress = progress;
        m_lastChange = now;
    }
    else if (now - m_lastChange >= m_stallTime)
    {
        Analyse();
        if (m_finding == Finding::STALL && now - m_lastChange < StallWithoutCycle())
        {
            // No cycle: the fabric may still recover (timeouts, a reroute). Wait longer.
            m_finding = Finding::NONE;
            m_report.clear();
            m_event = Simulator::Schedule(m_interval, &FabricStallDetector::Check, this);
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
    m_event = Simulator::Schedule(m_interval, &FabricStallDetector::Check, this);
}

void
FabricStallDetector::Analyse()
{
    // Vertices: blocked queues (port, class); edges: a queue waits for a blocked queue of the
    // next switch that holds frames from its ingress buffer.
    std::map<std::pair<const FabricNetDevice*, uint8_t>, uint32_t> index;
    std::vector<std::pair<Ptr<FabricNetDevice>, uint8_t>> queues;
    for (const Ptr<FabricNetDevice>& port : m_ports)
    {
        if (!port->IsLinkUp())
        {
            continue;
        }
        for (uint32_t c = 0; c < port->GetNTrafficClasses(); ++c)
        {
            const auto cls = static_cast<uint8_t>(c);
            if (port->GetClassQueuedBytes(cls) > 0 && port->IsClassBlocked(cls))
            {
                index[{PeekPointer(port), cls}] = static_cast<uint32_t>(queues.size());
                queues.emplace_back(port, cls);
            }
        }
    }
    std::vector<std::vector<uint32_t>> waitsFor(queues.size());
    std::vector<std::pair<uint16_t, uint8_t>> sources;
    for (uint32_t i = 0; i < queues.size(); ++i)
    {
        const auto& [port, cls] = queues[i];
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        Ptr<Node> next = peer->GetNode();
        const auto ingress = static_cast<uint16_t>(peer->GetIfIndex());
        for (uint32_t d = 0; d < next->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> out = DynamicCast<FabricNetDevice>(next->GetDevice(d));
            if (!out)
            {
                continue;
            }
            for (uint32_t c = 0; c < out->GetNTrafficClasses(); ++c)
            {
                auto it = index.find({PeekPointer(out), static_cast<uint8_t>(c)});
                if (it == index.end())
                {
                    continue;
                }
                out->GetClassSources(static_cast<uint8_t>(c), sources);
                for (const auto& s : sources)
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
    std::vector<uint8_t> state(queues.size(), 0); // 0 new, 1 on the stack, 2 done
    std::vector<uint32_t> stack;
    std::vector<uint32_t> cycle;
    for (uint32_t root = 0; root < queues.size() && cycle.empty(); ++root)
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

    auto label = [&queues](uint32_t i)
    {
        const auto& [port, cls] = queues[i];
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
        report << m_cycle.front() << " (" << quiet << ", " << Outstanding()
               << " work requests outstanding)";
    }
    else
    {
        m_finding = Finding::STALL;
        report << "stall: " << quiet << " with " << Outstanding() << " work requests outstanding; ";
        const std::string errors = QueuePairsInError();
        if (!errors.empty())
        {
            report << errors << "; ";
        }
        uint64_t noRoute = 0;
        for (const Ptr<FabricNetDevice>& port : m_ports)
        {
            noRoute
                += port->GetCounters().drops[static_cast<std::size_t>(FabricDropReason::NO_ROUTE)];
        }
        if (noRoute > 0)
        {
            report << noRoute << " packet(s) dropped for want of a route (the routing engine has "
                   << "no path around a failure); ";
        }
        if (queues.empty())
        {
            report << "no queue is held by flow control (waiting for a timeout or an "
                      "unreachable destination)";
        }
        else
        {
            report << queues.size() << " queue(s) held by flow control, no cycle: ";
            for (uint32_t i = 0; i < queues.size() && i < 4; ++i)
            {
                report << (i == 0 ? "" : ", ") << label(i);
            }
            if (queues.size() > 4)
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
