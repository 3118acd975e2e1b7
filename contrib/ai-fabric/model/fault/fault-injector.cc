/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fault-injector.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-topology.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <deque>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FaultInjector");
NS_OBJECT_ENSURE_REGISTERED(FaultInjector);

namespace
{
/**
 * \param node a node
 * \return its name, or "node<id>"
 */
std::string
NameOf(Ptr<Node> node)
{
    const std::string name = Names::FindName(node);
    return name.empty() ? "node" + std::to_string(node->GetId()) : name;
}
} // namespace

TypeId
FaultInjector::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FaultInjector")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<FaultInjector>()
              .AddAttribute("DetectionDelay",
                            "From a failure (or repair) to the fabric noticing it (s). Default "
                            "30 ms: BFD with a 10 ms interval and a detect multiplier of 3 "
                            "(RFC 5880: detection time = multiplier x interval), the fastest "
                            "common hardware BFD setting. A fabric's helper sets its own "
                            "(FabricHelper::SetRecoveryDelays; InfiniBand: 1 ms, the switch's "
                            "trap to the subnet manager).",
                            TimeValue(MilliSeconds(30)),
                            MakeTimeAccessor(&FaultInjector::m_detection),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("RerouteDelay",
                            "From detection to new tables in every switch (s). Default 5 ms: "
                            "BGP withdrawal and FIB update across a two-tier Clos (an "
                            "assumption). InfiniBand's helper: 50 ms, the subnet manager's "
                            "heavy sweep and LFT upload (an assumption).",
                            TimeValue(MilliSeconds(5)),
                            MakeTimeAccessor(&FaultInjector::m_reroute),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("StopWhenUnreachable",
                            "Stop the simulation when, after a reroute, some endpoint cannot "
                            "reach another.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&FaultInjector::m_stop),
                            MakeBooleanChecker())
              .AddTraceSource("Fault",
                              "A failure or repair struck.",
                              MakeTraceSourceAccessor(&FaultInjector::m_faultTrace),
                              "ns3::FaultInjector::FaultTracedCallback")
              .AddTraceSource("Reroute",
                              "The routes were recomputed after a failure or repair.",
                              MakeTraceSourceAccessor(&FaultInjector::m_rerouteTrace),
                              "ns3::FaultInjector::FaultTracedCallback");
    return tid;
}

FaultInjector::FaultInjector() = default;

FaultInjector::~FaultInjector() = default;

void
FaultInjector::DoDispose()
{
    m_topology = nullptr;
    m_recompute = Callback<void>();
    m_missingRoute = Callback<std::string>();
    m_changes.clear();
    Object::DoDispose();
}

void
FaultInjector::Install(Ptr<FabricTopology> topology,
                       Callback<void> recomputeRoutes,
                       Callback<std::string> missingRoute)
{
    m_topology = topology;
    m_recompute = recomputeRoutes;
    m_missingRoute = missingRoute;
}

int64_t
FaultInjector::AssignStreams(int64_t stream)
{
    m_stream = stream;
    return 2 * static_cast<int64_t>(m_berEvents); // one per direction of each bit-error event
}

bool
FaultInjector::Resolve(const std::vector<FaultEvent>& events,
                       std::vector<std::vector<Ptr<FabricChannel>>>& resolved,
                       std::string& error) const
{
    NS_ABORT_MSG_IF(!m_topology, "FaultInjector: Install() first");
    const FabricTopology::Graph& g = m_topology->GetGraph();
    auto nodeNamed = [](const std::string& name) { return Names::Find<Node>(name); };
    // The cable between two named nodes: split "a-b" at each '-' (names hold '-' too).
    auto cableNamed = [&](const std::string& target) -> Ptr<FabricChannel>
    {
        for (std::size_t dash = target.find('-'); dash != std::string::npos;
             dash = target.find('-', dash + 1))
        {
            Ptr<Node> a = nodeNamed(target.substr(0, dash));
            Ptr<Node> b = nodeNamed(target.substr(dash + 1));
            if (!a || !b)
            {
                continue;
            }
            for (auto [e, end] = boost::edges(g); e != end; ++e)
            {
                const FabricTopology::Link& l = g[*e];
                const Ptr<Node> x = l.portA->GetNode();
                const Ptr<Node> y = l.portB->GetNode();
                if ((x == a && y == b) || (x == b && y == a))
                {
                    return l.channel;
                }
            }
        }
        return nullptr;
    };
    auto cablesOf = [&](Ptr<Node> node)
    {
        std::vector<Ptr<FabricChannel>> cables;
        for (auto [e, end] = boost::edges(g); e != end; ++e)
        {
            const FabricTopology::Link& l = g[*e];
            if (l.portA->GetNode() == node || l.portB->GetNode() == node)
            {
                cables.push_back(l.channel);
            }
        }
        return cables;
    };
    auto isEndpoint = [&](Ptr<Node> node)
    {
        for (uint32_t i = 0; i < m_topology->GetNEndpoints(); ++i)
        {
            if (m_topology->GetVertex(m_topology->GetEndpointVertex(i)).node == node)
            {
                return true;
            }
        }
        return false;
    };

    // Resolve everything first: a bad name schedules nothing.
    resolved.clear();
    for (const FaultEvent& e : events)
    {
        std::vector<Ptr<FabricChannel>> cables;
        switch (e.kind)
        {
        case FaultEvent::Kind::LINK_DOWN:
        case FaultEvent::Kind::LINK_UP:
        case FaultEvent::Kind::FLAP:
        case FaultEvent::Kind::BER:
        case FaultEvent::Kind::BER_CLEAR:
            if (Ptr<FabricChannel> c = cableNamed(e.target))
            {
                cables.push_back(c);
            }
            else
            {
                error = "no cable '" + e.target + "' (expected <node>-<node> of linked nodes)";
                return false;
            }
            break;
        case FaultEvent::Kind::SWITCH_DOWN:
        case FaultEvent::Kind::SWITCH_UP:
        {
            Ptr<Node> node = nodeNamed(e.target);
            if (!node || m_topology->GetSwitchVertex(node) >= m_topology->GetNVertices())
            {
                error = "no switch '" + e.target + "'";
                return false;
            }
            cables = cablesOf(node);
            break;
        }
        case FaultEvent::Kind::NIC_DOWN:
        case FaultEvent::Kind::NIC_UP:
        {
            Ptr<Node> node = nodeNamed(e.target);
            if (!node || !isEndpoint(node))
            {
                error = "no GPU '" + e.target + "' with a NIC";
                return false;
            }
            cables = cablesOf(node);
            break;
        }
        }
        resolved.push_back(cables);
    }
    return true;
}

bool
FaultInjector::Check(const std::vector<FaultEvent>& events, std::string& error) const
{
    std::vector<std::vector<Ptr<FabricChannel>>> resolved;
    return Resolve(events, resolved, error);
}

bool
FaultInjector::Schedule(const std::vector<FaultEvent>& events, std::string& error)
{
    std::vector<std::vector<Ptr<FabricChannel>>> resolved;
    if (!Resolve(events, resolved, error))
    {
        return false;
    }
    for (std::size_t i = 0; i < events.size(); ++i)
    {
        const FaultEvent& e = events[i];
        const std::vector<Ptr<FabricChannel>>& cables = resolved[i];
        switch (e.kind)
        {
        case FaultEvent::Kind::FLAP:
            for (uint32_t k = 0; k < e.count; ++k)
            {
                const bool up = k % 2 == 1;
                std::ostringstream what;
                what << "link " << e.target << (up ? " up" : " down") << " (flap " << k + 1 << "/"
                     << e.count << ")";
                Simulator::Schedule(e.at + e.period * static_cast<int64_t>(k),
                                    &FaultInjector::Change,
                                    this,
                                    cables,
                                    up,
                                    what.str());
            }
            break;
        case FaultEvent::Kind::BER:
        case FaultEvent::Kind::BER_CLEAR:
        {
            std::ostringstream what;
            if (e.kind == FaultEvent::Kind::BER)
            {
                what << "bit errors " << e.rate << " on " << e.target;
            }
            else
            {
                what << "bit errors cleared on " << e.target;
            }
            Simulator::Schedule(e.at,
                                &FaultInjector::SetBitErrors,
                                this,
                                cables[0],
                                e.kind == FaultEvent::Kind::BER ? e.rate : 0.0,
                                what.str(),
                                e.kind == FaultEvent::Kind::BER ? m_berEvents++ : 0U);
            break;
        }
        default:
        {
            const bool up = e.kind == FaultEvent::Kind::LINK_UP
                            || e.kind == FaultEvent::Kind::SWITCH_UP
                            || e.kind == FaultEvent::Kind::NIC_UP;
            const std::string noun
                = e.kind == FaultEvent::Kind::SWITCH_DOWN || e.kind == FaultEvent::Kind::SWITCH_UP
                      ? "switch "
                  : e.kind == FaultEvent::Kind::NIC_DOWN || e.kind == FaultEvent::Kind::NIC_UP
                      ? "nic "
                      : "link ";
            Simulator::Schedule(e.at,
                                &FaultInjector::Change,
                                this,
                                cables,
                                up,
                                noun + e.target + (up ? " up" : " down"));
        }
        }
    }
    return true;
}

void
FaultInjector::Change(std::vector<Ptr<FabricChannel>> cables, bool up, std::string what)
{
    NS_LOG_INFO(Simulator::Now().As(Time::US) << " " << what);
    for (const Ptr<FabricChannel>& c : cables)
    {
        c->SetLinkUp(up);
    }
    m_records.push_back({Simulator::Now(), what, Time(-1), Time(-1)});
    m_changes.push_back({cables, up});
    m_faultTrace(what);
    Simulator::Schedule(m_detection, &FaultInjector::Detected, this, m_records.size() - 1);
}

void
FaultInjector::SetBitErrors(Ptr<FabricChannel> cable, double rate, std::string what, uint32_t index)
{
    for (std::size_t i = 0; i < cable->GetNDevices(); ++i)
    {
        Ptr<ErrorModel> model;
        if (rate > 0)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
            em->SetRate(rate);
            if (m_stream >= 0)
            {
                em->AssignStreams(m_stream + 2 * static_cast<int64_t>(index)
                                  + static_cast<int64_t>(i));
            }
            model = em;
        }
        // Not the attribute: ns-3.37 refuses to set a PointerValue to nullptr (clearing).
        StaticCast<FabricNetDevice>(cable->GetDevice(i))->SetReceiveErrorModel(model);
    }
    m_records.push_back({Simulator::Now(), what, Time(-1), Time(-1)});
    m_changes.push_back({});
    m_faultTrace(what);
}

void
FaultInjector::Detected(std::size_t record)
{
    m_records[record].detected = Simulator::Now();
    Simulator::Schedule(m_reroute, &FaultInjector::Rerouted, this, record);
}

void
FaultInjector::Rerouted(std::size_t record)
{
    if (!m_recompute.IsNull())
    {
        m_recompute();
    }
    m_records[record].rerouted = Simulator::Now();
    m_rerouteTrace(m_records[record].what);
    std::string unreachable = CheckReachability();
    std::string cause = m_records[record].what;
    if (!unreachable.empty())
    {
        // Another failure may have cut the endpoint off since (a NIC down after a link down):
        // name the one that did.
        const std::string cut = CauseOfCut();
        cause = cut.empty() ? cause : cut;
    }
    else if (!m_missingRoute.IsNull())
    {
        const std::string missing = m_missingRoute();
        if (!missing.empty())
        {
            unreachable = missing + " (the routing engine has no path around the failure)";
        }
    }
    if (!unreachable.empty() && m_finding.empty())
    {
        m_finding = "unreachable: " + unreachable + " after " + cause;
        NS_LOG_WARN(m_finding);
        if (m_stop)
        {
            Simulator::Stop();
        }
    }
}

std::string
FaultInjector::CauseOfCut() const
{
    std::set<const FabricChannel*> down;
    std::string cause;
    bool connected = true;
    for (std::size_t k = 0; k < m_changes.size(); ++k)
    {
        if (m_changes[k].cables.empty())
        {
            continue; // bit errors: no cable changes state
        }
        for (const Ptr<FabricChannel>& c : m_changes[k].cables)
        {
            if (m_changes[k].up)
            {
                down.erase(PeekPointer(c));
            }
            else
            {
                down.insert(PeekPointer(c));
            }
        }
        const bool now = CheckReachability(&down).empty();
        if (connected && !now)
        {
            cause = m_records[k].what;
        }
        connected = now;
    }
    return cause;
}

std::string
FaultInjector::CheckReachability(const std::set<const FabricChannel*>* down) const
{
    auto isUp = [down](const Ptr<FabricChannel>& c)
    { return down ? down->count(PeekPointer(c)) == 0 : c->IsLinkUp(); };
    // Components over links that are up; endpoints do not forward.
    const FabricTopology::Graph& g = m_topology->GetGraph();
    const uint32_t nEndpoints = m_topology->GetNEndpoints();
    if (nEndpoints < 2)
    {
        return "";
    }
    std::vector<bool> seen(m_topology->GetNVertices(), false);
    const uint32_t source = m_topology->GetEndpointVertex(0);
    std::deque<uint32_t> frontier{source};
    seen[source] = true;
    while (!frontier.empty())
    {
        const uint32_t v = frontier.front();
        frontier.pop_front();
        if (v != source && g[v].kind == FabricTopology::Kind::ENDPOINT)
        {
            continue;
        }
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        {
            const uint32_t u = static_cast<uint32_t>(boost::target(*e, g));
            if (!seen[u] && isUp(g[*e].channel))
            {
                seen[u] = true;
                frontier.push_back(u);
            }
        }
    }
    const std::string from = NameOf(g[source].node);
    for (uint32_t i = 1; i < nEndpoints; ++i)
    {
        const uint32_t v = m_topology->GetEndpointVertex(i);
        if (!seen[v])
        {
            // Name the one cut off: endpoint 0 itself if it lost its own link.
            bool ownLinkUp = false;
            for (auto [e, end] = boost::out_edges(source, g); e != end; ++e)
            {
                ownLinkUp = ownLinkUp || isUp(g[*e].channel);
            }
            return ownLinkUp ? NameOf(g[v].node) + " cannot be reached from " + from
                             : from + " cannot reach any other GPU";
        }
    }
    return "";
}

const std::vector<FaultRecord>&
FaultInjector::GetRecords() const
{
    return m_records;
}

const std::string&
FaultInjector::GetFinding() const
{
    return m_finding;
}

} // namespace ns3
