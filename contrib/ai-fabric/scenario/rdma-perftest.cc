/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-perftest.h"

#include "fabric-series.h"
#include "ns3/error-model.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/log.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaPerftest");

namespace
{
/// perftest's defaults: ib_write_bw 5000 x 65536 B, ib_write_lat 1000 x 2 B.
constexpr uint64_t BW_DEFAULT_SIZE = 65536;
constexpr uint64_t BW_DEFAULT_ITERS = 5000;
constexpr uint64_t LAT_DEFAULT_SIZE = 2;
constexpr uint64_t LAT_DEFAULT_ITERS = 1000;
/// Longest run of consecutive messages the peak bandwidth is searched over.
constexpr std::size_t PEAK_WINDOW = 4096;

/**
 * \param samples latency samples (us)
 * \return their statistics
 */
RdmaLatencyStats
Summarize(std::vector<double> samples)
{
    RdmaLatencyStats s;
    if (samples.empty())
    {
        return s;
    }
    std::sort(samples.begin(), samples.end());
    double sum = 0;
    for (double x : samples)
    {
        sum += x;
    }
    s.min = samples.front();
    s.max = samples.back();
    s.typical = samples[samples.size() / 2];
    s.avg = sum / samples.size();
    double var = 0;
    for (double x : samples)
    {
        var += (x - s.avg) * (x - s.avg);
    }
    s.stdev = std::sqrt(var / samples.size());
    s.p99 = NearestRank(samples, 0.99);
    s.p999 = NearestRank(samples, 0.999);
    return s;
}

/**
 * The state of one run: QPs, posting, samples.
 */
class PerftestRun
{
  public:
    /**
     * \param cfg the configuration
     * \param qpsA QPs on host A
     * \param qpsB their peers on host B
     */
    PerftestRun(const RdmaPerftestConfig& cfg,
                std::vector<Ptr<RdmaQueuePair>> qpsA,
                std::vector<Ptr<RdmaQueuePair>> qpsB)
        : m_cfg(cfg)
        , m_qpsA(std::move(qpsA))
        , m_qpsB(std::move(qpsB))
        , m_posted(m_qpsA.size(), 0)
    {
    }

    /// Start the test at time zero.
    void Start()
    {
        if (m_cfg.test == "write_bw")
        {
            for (std::size_t q = 0; q < m_qpsA.size(); ++q)
            {
                m_qpsA[q]->SetCompletionCallback(MakeCallback(&PerftestRun::BwCompletion, this));
                const uint64_t initial = std::min<uint64_t>(m_cfg.txDepth, m_cfg.iterations);
                for (uint64_t i = 0; i < initial; ++i)
                {
                    PostBw(q);
                }
            }
        }
        else
        {
            m_qpsA[0]->SetArrivalCallback(MakeCallback(&PerftestRun::LatArrivalAtA, this));
            m_qpsB[0]->SetArrivalCallback(MakeCallback(&PerftestRun::LatArrivalAtB, this));
            m_qpsA[0]->SetCompletionCallback(MakeCallback(&PerftestRun::LatCompletion, this));
            m_qpsB[0]->SetCompletionCallback(MakeCallback(&PerftestRun::LatCompletion, this));
            m_roundStart = Simulator::Now();
            m_qpsA[0]->PostWrite(m_cfg.size, 0);
        }
    }

    /// \return post times of all messages, in order
    std::vector<double>& Posted()
    {
        return m_tPosted;
    }

    /// \return completion times of all messages, in order
    std::vector<double>& Completed()
    {
        return m_tCompleted;
    }

    /// \return latency samples (us)
    const std::vector<double>& Samples() const
    {
        return m_samples;
    }

    /// \return when the last message completed (write_bw) or arrived back (write_lat)
    Time End() const
    {
        return m_end;
    }

    /// \return the error that ended the test, if any
    const std::string& Error() const
    {
        return m_error;
    }

  private:
    /**
     * \param q index of the QP
     */
    void PostBw(std::size_t q)
    {
        m_tPosted.push_back(Simulator::Now().GetSeconds());
        m_qpsA[q]->PostWrite(m_cfg.size, m_posted[q]++);
    }

    /**
     * \param qp the QP
     * \param c its completion
     */
    void BwCompletion(Ptr<RdmaQueuePair> qp, const RdmaCompletion& c)
    {
        if (!CheckStatus(qp, c))
        {
            return;
        }
        m_tCompleted.push_back(c.completionTime.GetSeconds());
        m_end = std::max(m_end, c.completionTime);
        m_samples.push_back((c.completionTime - c.postTime).GetSeconds() * 1e6);
        const std::size_t q = qp->GetQpn() - m_qpsA[0]->GetQpn();
        if (m_posted[q] < m_cfg.iterations)
        {
            PostBw(q);
        }
    }

    /**
     * \param qp the QP
     * \param c its completion
     */
    void LatCompletion(Ptr<RdmaQueuePair> qp, const RdmaCompletion& c)
    {
        CheckStatus(qp, c);
    }

    /**
     * \param qp the QP at host A
     * \param bytes the message
     */
    void LatArrivalAtA(Ptr<RdmaQueuePair> /* qp */, uint64_t /* bytes */)
    {
        const Time now = Simulator::Now();
        m_end = now;
        m_samples.push_back((now - m_roundStart).GetSeconds() * 1e6 / 2);
        if (m_samples.size() < m_cfg.iterations && m_error.empty())
        {
            m_roundStart = now;
            m_qpsA[0]->PostWrite(m_cfg.size, m_samples.size());
        }
    }

    /**
     * \param qp the QP at host B
     * \param bytes the message
     */
    void LatArrivalAtB(Ptr<RdmaQueuePair> /* qp */, uint64_t /* bytes */)
    {
        if (m_error.empty())
        {
            m_qpsB[0]->PostWrite(m_cfg.size, m_samples.size());
        }
    }

    /**
     * \param qp the QP
     * \param c a completion
     * \return true if it succeeded; otherwise the error is recorded
     */
    bool CheckStatus(Ptr<RdmaQueuePair> qp, const RdmaCompletion& c)
    {
        if (c.status == RdmaCompletionStatus::SUCCESS)
        {
            return true;
        }
        if (m_error.empty())
        {
            std::ostringstream os;
            os << "QP 0x" << std::hex << qp->GetQpn() << std::dec
               << ": transport retry counter exceeded (work request " << c.wrId << ", "
               << "timeout " << qp->GetRetransmissionTimeout().GetMicroSeconds() << " us)";
            m_error = os.str();
        }
        return false;
    }

    const RdmaPerftestConfig& m_cfg;        //!< configuration
    std::vector<Ptr<RdmaQueuePair>> m_qpsA; //!< QPs of host A
    std::vector<Ptr<RdmaQueuePair>> m_qpsB; //!< QPs of host B
    std::vector<uint64_t> m_posted;         //!< writes posted per QP
    std::vector<double> m_tPosted;          //!< post times (s)
    std::vector<double> m_tCompleted;       //!< completion times (s)
    std::vector<double> m_samples;          //!< latency samples (us)
    Time m_roundStart;                      //!< write_lat: start of the round trip
    Time m_end;                             //!< last completion or arrival
    std::string m_error;                    //!< first error
};

} // namespace

std::string
RdmaPerftestConfig::Validate()
{
    if (!FabricHelperRegistration::Find(fabric))
    {
        return "--fabric=" + fabric + ": expected roce or ib";
    }
    if (test != "write_bw" && test != "write_lat")
    {
        return "--test=" + test + ": choose write_bw or write_lat";
    }
    const bool bw = test == "write_bw";
    if (size == 0)
    {
        size = bw ? BW_DEFAULT_SIZE : LAT_DEFAULT_SIZE;
    }
    if (iterations == 0)
    {
        iterations = bw ? BW_DEFAULT_ITERS : LAT_DEFAULT_ITERS;
    }
    if (size > (1ULL << 31))
    {
        return "--size: a message is at most 2G (2^31 bytes, the IBTA limit)";
    }
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        return "--mtu=" + std::to_string(mtu)
               + ": the IBTA path MTU is one of 256, 512, 1024, 2048, 4096";
    }
    if (qps == 0 || qps > 4096)
    {
        return "--qps must be between 1 and 4096";
    }
    if (!bw && qps != 1)
    {
        return "--qps: write_lat uses one QP, as ib_write_lat";
    }
    if (txDepth == 0)
    {
        return "--txDepth must be at least 1";
    }
    if (switches > 64)
    {
        return "--switches must be at most 64";
    }
    return "";
}

RdmaPerftest::RdmaPerftest(const RdmaPerftestConfig& config)
    : m_config(config)
{
}

RdmaPerftestResult
RdmaPerftest::Run()
{
    const RdmaPerftestConfig& cfg = m_config;
    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer switches;
    switches.Create(cfg.switches);

    std::unique_ptr<FabricHelper> helper = FabricHelper::CreateByName(cfg.fabric);
    FabricHelper& fabric = *helper;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(cfg.rate));
    fabric.SetQueuePairAttribute("Mtu", UintegerValue(cfg.mtu));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(switches);
    Ptr<Node> previous = hosts.Get(0);
    for (uint32_t i = 0; i < cfg.switches; ++i)
    {
        fabric.Connect(previous, switches.Get(i));
        previous = switches.Get(i);
    }
    fabric.Connect(previous, hosts.Get(1));
    fabric.ComputeRoutes();

    int64_t stream = 1;
    stream += fabric.AssignStreams(stream);
    if (cfg.lossRate > 0)
    {
        // Every port of the fabric loses frames at random, independently.
        for (const auto& channel : fabric.GetChannels())
        {
            for (std::size_t end = 0; end < 2; ++end)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(cfg.lossRate);
                em->AssignStreams(stream++);
                channel->GetDevice(end)->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
        }
    }
    if (!cfg.pcapPrefix.empty())
    {
        fabric.EnablePcap(cfg.pcapPrefix, hosts, true);
    }

    Ptr<RdmaTransport> ta = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> tb = fabric.GetTransport(hosts.Get(1));
    std::vector<Ptr<RdmaQueuePair>> qpsA;
    std::vector<Ptr<RdmaQueuePair>> qpsB;
    for (uint32_t q = 0; q < cfg.qps; ++q)
    {
        Ptr<RdmaQueuePair> a = ta->CreateQueuePair();
        Ptr<RdmaQueuePair> b = tb->CreateQueuePair();
        ta->ConnectQueuePairs(a, b, tb);
        qpsA.push_back(a);
        qpsB.push_back(b);
    }

    PerftestRun run(cfg, qpsA, qpsB);
    Simulator::ScheduleNow(&PerftestRun::Start, &run);
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named

    RdmaPerftestResult r;
    r.error = run.Error();
    // Not Simulator::Now(): cancelled retransmission timers still advance the clock.
    r.simTime = run.End();
    r.events = Simulator::GetEventCount();
    const bool bw = cfg.test == "write_bw";
    const uint64_t messages = bw ? cfg.iterations * cfg.qps : 2 * cfg.iterations;
    r.expectedBytes = messages * cfg.size;
    for (std::size_t q = 0; q < qpsA.size(); ++q)
    {
        for (const auto& qp : {qpsA[q], qpsB[q]})
        {
            r.packets += qp->GetPacketsSent();
            r.retransmits += qp->GetRetransmissions();
            r.timeouts += qp->GetTimeouts();
            r.naks += qp->GetNaksReceived();
            r.deliveredBytes += qp->GetDeliveredBytes();
        }
    }
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (dev)
            {
                r.drops += dev->GetCounters().TotalDrops();
            }
        }
    }
    r.lat = Summarize(run.Samples());

    const double bits = static_cast<double>(cfg.size) * 8;
    if (bw)
    {
        std::vector<double>& tp = run.Posted();
        std::vector<double>& tc = run.Completed();
        std::sort(tp.begin(), tp.end());
        std::sort(tc.begin(), tc.end());
        const std::size_t n = std::min(tp.size(), tc.size());
        if (n > 0)
        {
            const double elapsed = tc[n - 1] - tp[0];
            r.bwAvgGbps = bits * n / elapsed / 1e9;
            r.msgRateMpps = n / elapsed / 1e6;
            double best = elapsed / n;
            for (std::size_t i = 0; i < n; ++i)
            {
                const std::size_t last = std::min(n, i + PEAK_WINDOW);
                for (std::size_t j = i; j < last; ++j)
                {
                    best = std::min(best, (tc[j] - tp[i]) / (j - i + 1));
                }
            }
            r.bwPeakGbps = bits / best / 1e9;
        }
    }
    else if (!run.Samples().empty())
    {
        const double elapsed = r.simTime.GetSeconds();
        const double delivered = static_cast<double>(run.Samples().size()) * 2;
        r.bwAvgGbps = bits * delivered / elapsed / 1e9;
        r.bwPeakGbps = bits / (r.lat.min * 1e-6) / 1e9;
        r.msgRateMpps = delivered / elapsed / 1e6;
    }
    Simulator::Destroy();
    return r;
}

void
RdmaPerftest::PrintReport(std::ostream& os, const RdmaPerftestResult& r) const
{
    const RdmaPerftestConfig& cfg = m_config;
    const bool bw = cfg.test == "write_bw";
    const char* rule
        = "---------------------------------------------------------------------------------------";
    char line[256];
    const std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(cfg.fabric);
    os << rule << "\n";
    os << (bw ? "                    RDMA_Write BW Test\n"
              : "                    RDMA_Write Latency Test\n");
    std::snprintf(line,
                  sizeof(line),
                  " %-16s: %-14s %-15s: %s\n",
                  "Fabric",
                  fabric->GetDisplayName(),
                  "Link rate",
                  cfg.rate.GetBitRate() % 1000000000 == 0
                      ? (std::to_string(cfg.rate.GetBitRate() / 1000000000) + " Gb/s").c_str()
                      : (std::to_string(cfg.rate.GetBitRate()) + " b/s").c_str());
    os << line;
    std::snprintf(line,
                  sizeof(line),
                  " %-16s: %-14u %-15s: %s\n",
                  "Number of qps",
                  cfg.qps,
                  "Transport type",
                  "IB");
    os << line;
    std::snprintf(line,
                  sizeof(line),
                  " %-16s: %-14s %-15s: %u\n",
                  "Connection type",
                  "RC",
                  "Switches",
                  cfg.switches);
    os << line;
    if (bw)
    {
        std::snprintf(line, sizeof(line), " %-16s: %u\n", "TX depth", cfg.txDepth);
        os << line;
    }
    std::snprintf(line, sizeof(line), " %-16s: %u[B]\n", "Mtu", cfg.mtu);
    os << line;
    std::snprintf(line, sizeof(line), " %-16s: %s\n", "Link type", fabric->GetLinkLayerName());
    os << line;
    if (cfg.lossRate > 0)
    {
        std::snprintf(
            line, sizeof(line), " %-16s: %g per frame per link\n", "Loss rate", cfg.lossRate);
        os << line;
    }
    os << rule << "\n";
    if (bw)
    {
        os << " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n";
        std::snprintf(line,
                      sizeof(line),
                      " %-10llu %-14llu %-18.2f %-20.2f %.6f\n",
                      static_cast<unsigned long long>(cfg.size),
                      static_cast<unsigned long long>(cfg.iterations),
                      r.bwPeakGbps,
                      r.bwAvgGbps,
                      r.msgRateMpps);
        os << line;
    }
    else
    {
        os << " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
              "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n";
        std::snprintf(line,
                      sizeof(line),
                      " %-6llu %-14llu %-14.3f %-12.3f %-18.3f %-14.3f %-15.3f %-22.3f %.3f\n",
                      static_cast<unsigned long long>(cfg.size),
                      static_cast<unsigned long long>(cfg.iterations),
                      r.lat.min,
                      r.lat.max,
                      r.lat.typical,
                      r.lat.avg,
                      r.lat.stdev,
                      r.lat.p99,
                      r.lat.p999);
        os << line;
    }
    os << rule << "\n";
    if (r.retransmits > 0 || r.timeouts > 0 || r.drops > 0)
    {
        std::snprintf(line,
                      sizeof(line),
                      " Transport: %llu packets, %llu retransmitted, %llu timeouts, %llu NAKs, "
                      "%llu frames dropped\n",
                      static_cast<unsigned long long>(r.packets),
                      static_cast<unsigned long long>(r.retransmits),
                      static_cast<unsigned long long>(r.timeouts),
                      static_cast<unsigned long long>(r.naks),
                      static_cast<unsigned long long>(r.drops));
        os << line;
        std::snprintf(line,
                      sizeof(line),
                      " Delivered: %llu of %llu bytes, in order\n",
                      static_cast<unsigned long long>(r.deliveredBytes),
                      static_cast<unsigned long long>(r.expectedBytes));
        os << line;
        os << rule << "\n";
    }
}

std::string
RdmaPerftest::ToJson(const RdmaPerftestResult& r) const
{
    const RdmaPerftestConfig& cfg = m_config;
    nlohmann::ordered_json j;
    j["test"] = cfg.test;
    j["fabric"] = cfg.fabric;
    j["bytes"] = cfg.size;
    j["iterations"] = cfg.iterations;
    j["qps"] = cfg.qps;
    j["rate_gbps"] = static_cast<double>(cfg.rate.GetBitRate()) / 1e9;
    j["mtu"] = cfg.mtu;
    j["switches"] = cfg.switches;
    j["loss_rate"] = cfg.lossRate;
    j["bw_peak_gbps"] = r.bwPeakGbps;
    j["bw_avg_gbps"] = r.bwAvgGbps;
    j["msg_rate_mpps"] = r.msgRateMpps;
    j["lat_us"] = {{"min", r.lat.min},
                   {"typical", r.lat.typical},
                   {"avg", r.lat.avg},
                   {"max", r.lat.max},
                   {"stdev", r.lat.stdev},
                   {"p99", r.lat.p99},
                   {"p999", r.lat.p999}};
    j["transport"] = {{"packets", r.packets},
                      {"retransmits", r.retransmits},
                      {"timeouts", r.timeouts},
                      {"naks", r.naks}};
    j["delivered_bytes"] = r.deliveredBytes;
    j["expected_bytes"] = r.expectedBytes;
    j["drops"] = r.drops;
    j["error"] = r.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.error);
    j["sim"] = {{"events", r.events}, {"sim_time_us", r.simTime.GetSeconds() * 1e6}};
    return j.dump(2) + "\n";
}

} // namespace ns3
