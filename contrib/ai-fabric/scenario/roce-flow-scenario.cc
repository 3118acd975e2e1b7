/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-flow-scenario.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace ns3
{

namespace
{

/// Everything a run keeps while it runs.
struct RunState
{
    const RoceFlowScenarioConfig* cfg{nullptr};   //!< the configuration
    std::vector<Ptr<FabricNetDevice>> watched;    //!< watched switch ports
    std::vector<RocePortResult>* ports{nullptr};  //!< their results
    std::vector<Ptr<RdmaQueuePair>> senders;      //!< each flow's requester
    std::vector<Ptr<RdmaQueuePair>> receivers;    //!< each flow's responder
    std::vector<Ptr<FabricNetDevice>> senderNics; //!< each flow's sending NIC
    std::vector<RoceFlowResult>* flows{nullptr};  //!< flow results
    std::vector<RoceSample>* samples{nullptr};    //!< time series
    std::vector<uint64_t> lastDelivered;          //!< per flow, at the last sample
    uint32_t remaining{0};                        //!< flows not yet done
    std::vector<uint64_t> writes;                 //!< per flow, writes posted
    std::vector<uint64_t> completions;            //!< per flow, writes completed
    Time interval;                                //!< sampling period (doubles on decimation)
    uint8_t rdmaPriority{3};                      //!< RDMA's priority (RoCEv2) or VL (IB)
    const FabricHelper* fabric{nullptr};          //!< the fabric's helper
};

/**
 * \param state the run
 * \param port a port
 * \return bytes in its RDMA queue now
 */
uint32_t
QueueBytes(const RunState* state, const Ptr<FabricNetDevice>& port)
{
    return static_cast<uint32_t>(port->GetClassQueuedBytes(state->rdmaPriority));
}

/**
 * \param state the run
 * \param nic a sender's port
 * \return true if it is held: paused by PFC (RoCEv2) or waiting for credits (IB)
 */
bool
Held(const RunState* state, const Ptr<FabricNetDevice>& nic)
{
    return nic->IsClassBlocked(state->rdmaPriority);
}

/**
 * \param state the run
 * \param index watched port index
 * \param p a frame the port started to send
 */
void
WatchedTx(RunState* state, uint32_t index, Ptr<const Packet> p)
{
    uint8_t opcode = 0;
    if (!state->fabric->ReadRdmaOpcode(p, opcode) || opcode == RC_ACKNOWLEDGE || opcode == ROCE_CNP
        || opcode == IB_CNP)
    {
        return; // link-level flow control (PFC, credits), an ACK or a CNP
    }
    RocePortResult& r = (*state->ports)[index];
    const uint32_t wire = state->watched[index]->GetWireBytes(p->GetSize());
    if (r.dataWireBytes == 0)
    {
        r.firstData = Simulator::Now();
    }
    r.dataWireBytes += wire;
    r.lastData = Simulator::Now() + FabricBytesTxTime(state->watched[index]->GetDataRate(), wire);
}

/**
 * \param state the run
 * \param index the flow
 * \param qp its responder
 * \param bytes the message that arrived
 */
void
Arrived(RunState* state, uint32_t index, Ptr<RdmaQueuePair> qp, uint64_t /* bytes */)
{
    RoceFlowResult& f = (*state->flows)[index];
    if (!f.done && qp->GetDeliveredBytes() >= f.spec.bytes)
    {
        f.done = true;
        f.finish = Simulator::Now();
        if (!state->cfg->untilCompletion && --state->remaining == 0
            && state->cfg->stopTime.IsZero())
        {
            Simulator::Stop();
        }
    }
}

/**
 * rief A write of a flow completed at its requester.
 * \param state the run
 * \param index the flow
 */
void
Completed(RunState* state,
          uint32_t index,
          Ptr<RdmaQueuePair> /* qp */,
          const RdmaCompletion& /* completion */)
{
    RoceFlowResult& f = (*state->flows)[index];
    if (++state->completions[index] == state->writes[index])
    {
        f.complete = true;
        f.completed = Simulator::Now();
        if (state->cfg->untilCompletion && --state->remaining == 0 && state->cfg->stopTime.IsZero())
        {
            Simulator::Stop();
        }
    }
}

/**
 * \param state the run
 */
void
Sample(RunState* state)
{
    const RoceFlowScenarioConfig& cfg = *state->cfg;
    RoceSample s;
    s.time = Simulator::Now();
    for (const auto& port : state->watched)
    {
        s.queueBytes.push_back(QueueBytes(state, port));
    }
    const double seconds = state->interval.GetSeconds();
    for (std::size_t i = 0; i < state->senders.size(); ++i)
    {
        s.rateGbps.push_back(state->senders[i]->GetCongestionControl()->GetRate().GetBitRate()
                             / 1e9);
        const uint64_t delivered = state->receivers[i]->GetDeliveredBytes();
        s.throughputGbps.push_back((delivered - state->lastDelivered[i]) * 8.0 / seconds / 1e9);
        state->lastDelivered[i] = delivered;
        s.paused.push_back(Held(state, state->senderNics[i]) ? 1 : 0);
    }
    state->samples->push_back(std::move(s));
    std::vector<RoceSample>& samples = *state->samples;
    if (samples.size() * RoceFlowScenario::SampleValues(cfg) >= RoceFlowScenario::MAX_SAMPLE_VALUES)
    {
        // A run of unknown length outgrows the bound: merge pairs of samples (mean throughput,
        // the later rate, queue and pause state) and sample half as often.
        for (std::size_t i = 0; 2 * i + 1 < samples.size(); ++i)
        {
            RoceSample merged = std::move(samples[2 * i + 1]);
            for (std::size_t f = 0; f < merged.throughputGbps.size(); ++f)
            {
                merged.throughputGbps[f]
                    = (merged.throughputGbps[f] + samples[2 * i].throughputGbps[f]) / 2;
            }
            samples[i] = std::move(merged);
        }
        samples.resize(samples.size() / 2);
        state->interval = state->interval * 2;
    }
    bool busy = cfg.stopTime.IsStrictlyPositive();
    for (const auto& qp : state->senders)
    {
        busy = busy || qp->GetOutstandingRequests() > 0;
    }
    if (busy)
    {
        Simulator::Schedule(state->interval, &Sample, state);
    }
}

} // namespace

uint64_t
RoceFlowScenario::SampleValues(const RoceFlowScenarioConfig& cfg)
{
    // Per flow: rate, throughput, pause state; per watched port: its queue.
    return 3 * cfg.flows.size() + cfg.watchHosts.size() + 1;
}

std::string
RoceFlowScenario::Check(const RoceFlowScenarioConfig& cfg)
{
    const auto hosts = static_cast<uint32_t>(cfg.hostSwitch.size());
    if (!FabricHelperRegistration::Find(cfg.fabric))
    {
        return "unknown fabric '" + cfg.fabric + "' (roce or ib)";
    }
    if (cfg.dcqcn && !RdmaCcRegistration::RunsOn("dcqcn", cfg.fabric))
    {
        return "DCQCN is RoCEv2's congestion control (on InfiniBand use --ibcc)";
    }
    if (cfg.ibcc && !RdmaCcRegistration::RunsOn("ibcc", cfg.fabric))
    {
        return "IB congestion control (--ibcc) needs --fabric=ib";
    }
    if (cfg.ibcc && (cfg.ibccThreshold == 0 || cfg.ibccThreshold > 15))
    {
        return "an IB congestion-control threshold outside 1-15";
    }
    if (!cfg.cc.empty())
    {
        RdmaCcRegistration::Entry entry;
        if (cfg.dcqcn || cfg.ibcc)
        {
            return "congestion control '" + cfg.cc + "' beside DCQCN or IB CC";
        }
        if (!RdmaCcRegistration::Lookup(cfg.cc, entry))
        {
            return "unknown congestion control '" + cfg.cc + "'";
        }
        if (!entry.fabric.empty() && entry.fabric != cfg.fabric)
        {
            return "congestion control '" + cfg.cc + "' runs on --fabric=" + entry.fabric + " only";
        }
    }
    if (cfg.switches == 0)
    {
        return "a scenario needs at least one switch";
    }
    if (cfg.stopTime.IsStrictlyPositive() && cfg.sampleInterval.IsStrictlyPositive()
        && cfg.stopTime.GetPicoSeconds() / cfg.sampleInterval.GetPicoSeconds()
               > static_cast<int64_t>(MAX_SAMPLE_VALUES / SampleValues(cfg)))
    {
        return "the time series would hold more than " + std::to_string(MAX_SAMPLE_VALUES)
               + " values (" + std::to_string(SampleValues(cfg))
               + " per sample): sample less often (--interval)";
    }
    for (uint32_t s : cfg.hostSwitch)
    {
        if (s >= cfg.switches)
        {
            return "a host is attached to switch " + std::to_string(s) + " of "
                   + std::to_string(cfg.switches);
        }
    }
    for (const auto& [a, b] : cfg.trunks)
    {
        if (a >= cfg.switches || b >= cfg.switches || a == b)
        {
            return "a switch-to-switch link names switches " + std::to_string(a) + " and "
                   + std::to_string(b) + " of " + std::to_string(cfg.switches);
        }
    }
    if (cfg.flows.empty())
    {
        return "a scenario needs at least one flow";
    }
    for (const RoceFlowSpec& f : cfg.flows)
    {
        if (f.src >= hosts || f.dst >= hosts || f.src == f.dst)
        {
            return "a flow from host " + std::to_string(f.src) + " to host " + std::to_string(f.dst)
                   + " (" + std::to_string(hosts) + " hosts)";
        }
        if (f.bytes == 0)
        {
            return "a flow of zero bytes";
        }
    }
    for (uint32_t h : cfg.watchHosts)
    {
        if (h >= hosts)
        {
            return "a watched host " + std::to_string(h) + " of " + std::to_string(hosts);
        }
    }
    if (cfg.rate.GetBitRate() == 0)
    {
        return "a link rate of zero";
    }
    if ((!cfg.hostRates.empty() && cfg.hostRates.size() != hosts)
        || (!cfg.hostCables.empty() && cfg.hostCables.size() != hosts)
        || (!cfg.trunkRates.empty() && cfg.trunkRates.size() != cfg.trunks.size())
        || (!cfg.trunkCables.empty() && cfg.trunkCables.size() != cfg.trunks.size()))
    {
        return "per-link rates and delays need one per host link and one per trunk";
    }
    if (cfg.messageBytes == 0)
    {
        return "a message size of zero";
    }
    if (!cfg.dcqcnPreset.empty() && RdmaCcDcqcn::GetPreset(cfg.dcqcnPreset).empty())
    {
        return "unknown DCQCN preset '" + cfg.dcqcnPreset + "' (paper or connectx)";
    }
    if (cfg.ecnPmax > 1.0)
    {
        return "an ECN marking probability above 1";
    }
    if (cfg.ecnKmin != 0 && cfg.ecnKmax != 0 && cfg.ecnKmin > cfg.ecnKmax)
    {
        return "ECN Kmin above Kmax";
    }
    return "";
}

RoceFlowScenarioResult
RoceFlowScenario::Run(const RoceFlowScenarioConfig& cfg)
{
    NS_ABORT_MSG_IF(!Check(cfg).empty(), "RoceFlowScenario: " << Check(cfg));
    RoceFlowScenarioResult result;
    const auto nHosts = static_cast<uint32_t>(cfg.hostSwitch.size());

    NodeContainer hosts;
    hosts.Create(nHosts);
    NodeContainer switches;
    switches.Create(cfg.switches);
    std::unique_ptr<FabricHelper> helper = FabricHelper::CreateByName(cfg.fabric);
    // The link-level settings go to the fabric that has them; InfiniBand is lossless by its
    // credits, and PFC, ECN and the switch buffer of RoCEv2 do not apply to it.
    std::ostringstream pmax;
    pmax << std::setprecision(17) << cfg.ecnPmax;
    std::vector<std::pair<std::string, std::string>> options
        = {{"pfc", cfg.pfc ? "true" : "false"},
           {"ecn", cfg.ecn ? "true" : "false"},
           {"kmin", std::to_string(cfg.ecnKmin)},
           {"kmax", std::to_string(cfg.ecnKmax)},
           {"buffer", std::to_string(cfg.bufferBytes)}};
    if (cfg.ecnPmax >= 0)
    {
        options.emplace_back("pmax", pmax.str());
    }
    helper->ApplyOptions(options);
    FabricHelper& fabric = *helper;
    const std::string ccName = cfg.dcqcn        ? "dcqcn"
                               : cfg.ibcc       ? "ibcc"
                               : cfg.cc.empty() ? "none"
                                                : cfg.cc;
    const std::string ccError = fabric.SetCongestionControl(ccName);
    NS_ABORT_MSG_IF(!ccError.empty(), "RoceFlowScenario: " << ccError);
    if (cfg.ibcc)
    {
        // Off by default, as in most deployments; on, with the Omni-Path fabric manager's
        // defaults (switch Threshold 8, every packet marked, IbCongestionControl's table).
        fabric.SetPortPartAttribute("Marker", "Threshold", UintegerValue(cfg.ibccThreshold));
    }
    if (cfg.dcqcn)
    {
        for (const auto& [name, value] : RdmaCcDcqcn::GetPreset(cfg.dcqcnPreset))
        {
            fabric.SetCongestionControlAttribute(name, StringValue(value));
        }
    }
    fabric.SetDeviceAttribute("DataRate", DataRateValue(cfg.rate));
    fabric.SetChannelAttribute("Delay", TimeValue(cfg.cable));
    fabric.SetQueuePairAttribute("Mtu", UintegerValue(cfg.mtu));
    if (cfg.hostRates.empty())
    {
        fabric.InstallHosts(hosts);
    }
    else
    {
        // Each host's NIC at its own link's rate (an imported fabric).
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            const DataRate& r = cfg.hostRates[h];
            fabric.SetDeviceAttribute("DataRate", DataRateValue(r.GetBitRate() > 0 ? r : cfg.rate));
            fabric.InstallHosts(NodeContainer(hosts.Get(h)));
        }
    }
    fabric.InstallSwitches(switches);
    // A link's switch ports at its rate; its cable's delay set once it exists.
    auto connect = [&](Ptr<Node> a, Ptr<Node> b, const DataRate* rate, const Time* delay)
    {
        fabric.SetDeviceAttribute("DataRate",
                                  DataRateValue(rate && rate->GetBitRate() > 0 ? *rate : cfg.rate));
        const NetDeviceContainer ports = fabric.Connect(a, b);
        if (delay && !delay->IsStrictlyNegative())
        {
            ports.Get(0)->GetChannel()->SetAttribute("Delay", TimeValue(*delay));
        }
    };
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        connect(hosts.Get(h),
                switches.Get(cfg.hostSwitch[h]),
                cfg.hostRates.empty() ? nullptr : &cfg.hostRates[h],
                cfg.hostCables.empty() ? nullptr : &cfg.hostCables[h]);
    }
    for (std::size_t t = 0; t < cfg.trunks.size(); ++t)
    {
        connect(switches.Get(cfg.trunks[t].first),
                switches.Get(cfg.trunks[t].second),
                cfg.trunkRates.empty() ? nullptr : &cfg.trunkRates[t],
                cfg.trunkCables.empty() ? nullptr : &cfg.trunkCables[t]);
    }
    fabric.SetDeviceAttribute("DataRate", DataRateValue(cfg.rate));
    fabric.ComputeRoutes();
    fabric.AssignStreams(0);

    RunState state;
    state.cfg = &cfg;
    state.ports = &result.ports;
    state.flows = &result.flows;
    state.samples = &result.samples;
    state.fabric = &fabric;
    state.rdmaPriority = fabric.GetRdmaClass(hosts.Get(0));

    for (uint32_t i = 0; i < cfg.watchHosts.size(); ++i)
    {
        Ptr<FabricNetDevice> nic = fabric.GetHostPort(hosts.Get(cfg.watchHosts[i]));
        Ptr<FabricNetDevice> port = nic->GetFabricChannel()->GetPeer(PeekPointer(nic));
        state.watched.push_back(port);
        RocePortResult r;
        r.host = cfg.watchHosts[i];
        result.ports.push_back(r);
        port->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&WatchedTx, &state, i));
    }

    for (uint32_t i = 0; i < cfg.flows.size(); ++i)
    {
        const RoceFlowSpec& spec = cfg.flows[i];
        Ptr<RdmaTransport> tx = fabric.GetTransport(hosts.Get(spec.src));
        Ptr<RdmaTransport> rx = fabric.GetTransport(hosts.Get(spec.dst));
        Ptr<RdmaQueuePair> a = tx->CreateQueuePair();
        Ptr<RdmaQueuePair> b = rx->CreateQueuePair();
        tx->ConnectQueuePairs(a, b, rx);
        b->SetArrivalCallback(MakeBoundCallback(&Arrived, &state, i));
        a->SetCompletionCallback(MakeBoundCallback(&Completed, &state, i));
        uint64_t writes = 0;
        for (uint64_t left = spec.bytes, id = 0; left > 0; ++id)
        {
            const uint64_t n = std::min(left, cfg.messageBytes);
            Simulator::Schedule(spec.start, &RdmaQueuePair::PostWrite, a, n, id);
            left -= n;
            ++writes;
        }
        state.writes.push_back(writes);
        state.completions.push_back(0);
        state.senders.push_back(a);
        state.receivers.push_back(b);
        state.senderNics.push_back(fabric.GetHostPort(hosts.Get(spec.src)));
        RoceFlowResult r;
        r.spec = spec;
        result.flows.push_back(r);
    }
    state.remaining = static_cast<uint32_t>(cfg.flows.size());
    state.lastDelivered.assign(cfg.flows.size(), 0);
    state.interval = cfg.sampleInterval;
    if (cfg.sampleInterval.IsStrictlyPositive())
    {
        Simulator::Schedule(cfg.sampleInterval, &Sample, &state);
    }
    if (cfg.stopTime.IsStrictlyPositive())
    {
        Simulator::Stop(cfg.stopTime);
    }
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named

    result.simTime = Simulator::Now();
    result.events = Simulator::GetEventCount();
    result.totals = FabricStatsHelper::Totals();
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (port)
            {
                result.headroomDrops
                    += port->GetCounters()
                           .drops[static_cast<std::size_t>(FabricDropReason::HEADROOM_EXCEEDED)];
            }
        }
    }
    for (uint32_t s = 0; s < cfg.switches; ++s)
    {
        result.switchPausesSent += fabric.GetSwitchPausesSent(switches.Get(s));
    }
    for (uint32_t i = 0; i < state.watched.size(); ++i)
    {
        RocePortResult& r = result.ports[i];
        Ptr<FabricNetDevice> port = state.watched[i];
        const Time span = r.lastData - r.firstData;
        r.utilization
            = span.IsStrictlyPositive()
                  ? r.dataWireBytes * 8.0 / port->GetDataRate().GetBitRate() / span.GetSeconds()
                  : 0;
        r.maxQueueBytes = port->GetClassPeakQueuedBytes(state.rdmaPriority);
        r.ecnMarks = port->GetCongestionMarks();
        port->GetMarkingThresholds(r.ecnKmin, r.ecnKmax);
        r.pausesSent = port->GetClassPausesSent(state.rdmaPriority);
        r.pausesReceived = port->GetClassPausesReceived(state.rdmaPriority);
    }
    for (uint32_t i = 0; i < result.flows.size(); ++i)
    {
        RoceFlowResult& f = result.flows[i];
        f.delivered = state.receivers[i]->GetDeliveredBytes();
        f.cnpsReceived = state.senders[i]->GetCnpsReceived();
        const Ptr<FabricNetDevice>& nic = state.senderNics[i];
        if (state.rdmaPriority < nic->GetCreditClasses())
        {
            f.creditStallUs = nic->GetCreditStallTime(state.rdmaPriority).GetSeconds() * 1e6;
        }
        f.pausesReceived = nic->GetClassPausesReceived(state.rdmaPriority);
    }
    Simulator::Destroy();
    return result;
}

double
RoceFlowScenario::JainIndex(const std::vector<double>& x)
{
    double sum = 0;
    double squares = 0;
    for (double v : x)
    {
        sum += v;
        squares += v * v;
    }
    return squares > 0 ? sum * sum / (x.size() * squares) : 1.0;
}

std::vector<double>
RoceFlowScenario::MeanThroughput(const RoceFlowScenarioResult& r, Time from, Time to)
{
    const std::size_t n = r.flows.size();
    std::vector<double> mean(n, 0.0);
    uint32_t rows = 0;
    for (const RoceSample& s : r.samples)
    {
        if (s.time <= from || s.time > to)
        {
            continue;
        }
        ++rows;
        for (std::size_t i = 0; i < n; ++i)
        {
            mean[i] += s.throughputGbps[i];
        }
    }
    for (double& m : mean)
    {
        m = rows > 0 ? m / rows : 0.0;
    }
    return mean;
}

bool
RoceFlowScenario::WriteCsv(const RoceFlowScenarioResult& r, const std::string& path)
{
    FabricOutputFile file;
    std::string error;
    if (!file.Open(path, error))
    {
        return false;
    }
    WriteCsv(r, file.Stream());
    return file.Commit(error);
}

void
RoceFlowScenario::WriteCsv(const RoceFlowScenarioResult& r, std::ostream& out)
{
    out << "time_us";
    for (const RocePortResult& p : r.ports)
    {
        out << ",queue_bytes_h" << p.host;
    }
    for (std::size_t i = 0; i < r.flows.size(); ++i)
    {
        out << ",rate_gbps_f" << i << ",thr_gbps_f" << i << ",paused_f" << i;
    }
    out << "\n" << std::fixed;
    for (const RoceSample& s : r.samples)
    {
        out << std::setprecision(3) << s.time.GetSeconds() * 1e6;
        for (uint32_t q : s.queueBytes)
        {
            out << "," << q;
        }
        for (std::size_t i = 0; i < s.rateGbps.size(); ++i)
        {
            out << std::setprecision(3) << "," << s.rateGbps[i] << "," << s.throughputGbps[i] << ","
                << static_cast<uint32_t>(s.paused[i]);
        }
        out << "\n";
    }
}

namespace
{
/**
 * \param t a time
 * \return it in microseconds, to the picosecond
 */
double
Us(Time t)
{
    return t.GetPicoSeconds() / 1e6;
}

/**
 * \param f a flow's result
 * \param end the end of the run
 * \return its delivered payload rate from its start to its finish (or the end), Gb/s
 */
double
FlowGbps(const RoceFlowResult& f, Time end)
{
    const Time span = (f.done ? f.finish : end) - f.spec.start;
    return span.IsStrictlyPositive() ? f.delivered * 8.0 / span.GetSeconds() / 1e9 : 0.0;
}
} // namespace

nlohmann::ordered_json
RoceFlowScenario::ToJson(const RoceFlowScenarioResult& r)
{
    nlohmann::ordered_json j;
    j["fabric"] = FabricStatsHelper::TotalsJson(r.totals);
    j["fabric"]["headroom_drops"] = r.headroomDrops;
    j["fabric"]["switch_pause_frames"] = r.switchPausesSent;
    j["flows"] = nlohmann::ordered_json::array();
    for (const RoceFlowResult& f : r.flows)
    {
        j["flows"].push_back(
            {{"src", f.spec.src},
             {"dst", f.spec.dst},
             {"bytes", f.spec.bytes},
             {"delivered", f.delivered},
             {"start_us", Us(f.spec.start)},
             {"finish_us",
              f.done ? nlohmann::ordered_json(Us(f.finish)) : nlohmann::ordered_json(nullptr)},
             {"gbps", FlowGbps(f, r.simTime)},
             {"cnps", f.cnpsReceived},
             {"pauses_received", f.pausesReceived},
             {"credit_stall_us", f.creditStallUs}});
    }
    j["ports"] = nlohmann::ordered_json::array();
    for (const RocePortResult& p : r.ports)
    {
        j["ports"].push_back({{"to_host", p.host},
                              {"data_wire_bytes", p.dataWireBytes},
                              {"utilization", p.utilization},
                              {"max_queue_bytes", p.maxQueueBytes},
                              {"ecn_marks", p.ecnMarks},
                              {"ecn_kmin", p.ecnKmin},
                              {"ecn_kmax", p.ecnKmax},
                              {"pauses_sent", p.pausesSent},
                              {"pauses_received", p.pausesReceived}});
    }
    if (!r.samples.empty())
    {
        // The time series (the CSV of --trace, by column), for the figures of --plot.
        nlohmann::ordered_json series;
        series["time_us"] = nlohmann::ordered_json::array();
        for (const RoceSample& sample : r.samples)
        {
            series["time_us"].push_back(Us(sample.time));
        }
        series["ports"] = nlohmann::ordered_json::array();
        for (std::size_t p = 0; p < r.ports.size(); ++p)
        {
            nlohmann::ordered_json queue = nlohmann::ordered_json::array();
            for (const RoceSample& sample : r.samples)
            {
                queue.push_back(p < sample.queueBytes.size() ? sample.queueBytes[p] : 0);
            }
            series["ports"].push_back({{"name", "port to host " + std::to_string(r.ports[p].host)},
                                       {"queue_bytes", queue}});
        }
        series["flows"] = nlohmann::ordered_json::array();
        for (std::size_t f = 0; f < r.flows.size(); ++f)
        {
            nlohmann::ordered_json rate = nlohmann::ordered_json::array();
            nlohmann::ordered_json thr = nlohmann::ordered_json::array();
            nlohmann::ordered_json paused = nlohmann::ordered_json::array();
            for (const RoceSample& sample : r.samples)
            {
                rate.push_back(f < sample.rateGbps.size() ? sample.rateGbps[f] : 0.0);
                thr.push_back(f < sample.throughputGbps.size() ? sample.throughputGbps[f] : 0.0);
                paused.push_back(f < sample.paused.size() ? sample.paused[f] : 0);
            }
            const RoceFlowResult& flow = r.flows[f];
            series["flows"].push_back(
                {{"name",
                  "flow " + std::to_string(f) + " (" + std::to_string(flow.spec.src) + "->"
                      + std::to_string(flow.spec.dst) + ")"},
                 {"rate_gbps", rate},
                 {"throughput_gbps", thr},
                 {"paused", paused}});
        }
        j["series"] = series;
    }
    j["sim"] = {{"sim_time_us", Us(r.simTime)}, {"events", r.events}};
    return j;
}

void
RoceFlowScenario::Print(const RoceFlowScenarioResult& r, std::ostream& os)
{
    os << "#  flow   src   dst        bytes    start(us)   finish(us)     Gb/s   pauses    cnps\n";
    for (std::size_t i = 0; i < r.flows.size(); ++i)
    {
        const RoceFlowResult& f = r.flows[i];
        os << std::setw(7) << i << std::setw(6) << f.spec.src << std::setw(6) << f.spec.dst
           << std::setw(13) << f.spec.bytes << std::fixed << std::setprecision(3) << std::setw(13)
           << Us(f.spec.start);
        if (f.done)
        {
            os << std::setw(13) << Us(f.finish);
        }
        else
        {
            os << std::setw(13) << "-";
        }
        os << std::setprecision(2) << std::setw(9) << FlowGbps(f, r.simTime) << std::setw(9)
           << f.pausesReceived << std::setw(8) << f.cnpsReceived << "\n";
    }
    const FabricTotals& t = r.totals;
    os << "# credit stall: " << t.creditStallUs << " us (InfiniBand ports, summed)\n"
       << "# drops: " << t.drops << " (beyond PFC headroom: " << r.headroomDrops << ")\n"
       << "# PFC pause frames sent: " << t.pfcPauseFrames << " (by switches: " << r.switchPausesSent
       << ")\n"
       << "# congestion marks (ECN CE on RoCEv2, FECN on IB): " << t.ecnMarks
       << ", CNPs: " << t.cnps << ", retransmitted packets: " << t.retransmits << "\n"
       << "# max queue: " << t.maxQueueBytes << " bytes\n";
    for (const RocePortResult& p : r.ports)
    {
        os << "# port to host " << p.host << ": utilization " << std::setprecision(2)
           << p.utilization * 100 << "% while data flowed, max queue " << p.maxQueueBytes
           << " bytes, congestion marks " << p.ecnMarks << ", pauses sent " << p.pausesSent << "\n";
    }
    os << "# simulated " << std::setprecision(3) << Us(r.simTime) << " us, " << r.events
       << " events\n";
}

} // namespace ns3
