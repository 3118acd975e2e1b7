/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The torus of ai-fabric-torus as a topology of the scenario driver: a 2D or 3D torus (or
// mesh) of switches with GPUs attached, or of GPUs with their own routers, built by
// TorusHelper, with per-dimension statistics of the collective's traffic.

#include "collective-scenario.h"
#include "fabric-cli.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-schedule.h"
#include "ns3/communicator.h"
#include "ns3/config.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/torus-helper.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{

/**
 * \param text "XxY" or "XxYxZ"
 * \param dims the sizes
 * \return false if the text is not two or three sizes of 2 to 64 joined by 'x'
 */
bool
ParseDims(const std::string& text, std::vector<uint32_t>& dims)
{
    dims.clear();
    std::size_t start = 0;
    while (true)
    {
        const std::size_t x = text.find('x', start);
        uint64_t v = 0;
        if (!FabricCli::ParseUnsigned(text.substr(start, x - start), v) || v < 2 || v > 64)
        {
            return false;
        }
        dims.push_back(static_cast<uint32_t>(v));
        if (x == std::string::npos)
        {
            break;
        }
        start = x + 1;
    }
    return dims.size() == 2 || dims.size() == 3;
}

/**
 * Per-dimension traffic of the collective: the bytes of transfers between GPUs whose
 * switches differ in one dimension, and the time such transfers were in flight. Counted over
 * the iterations of the last plan run (the largest size).
 */
class DimensionStats
{
  public:
    /**
     * \param rankCoords the switch coordinates of every rank
     */
    explicit DimensionStats(std::vector<std::vector<uint32_t>> rankCoords)
        : m_log(FabricCli::GetRanks() > 1)
        , m_coords(std::move(rankCoords))
        , m_bytes(m_coords[0].size(), 0)
        , m_busy(m_coords[0].size())
        , m_since(m_coords[0].size())
        , m_inFlight(m_coords[0].size(), 0)
    {
    }

    /**
     * \param stats the statistics
     * \param comm the sender's communicator (a raw pointer: a Ptr bound into the
     *        communicator's own trace would hold it for ever, a reference cycle that leaks)
     * \param t a transfer it sent
     */
    static void Sent(DimensionStats* stats, const Communicator* comm, const CollectiveTransfer& t)
    {
        stats->DoSent(comm, t);
    }

    /**
     * \param stats the statistics
     * \param t a transfer that arrived
     */
    static void Arrived(DimensionStats* stats, const CollectiveTransfer& t)
    {
        stats->DoArrived(t);
    }

    /// \return bytes per dimension
    const std::vector<uint64_t>& Bytes() const
    {
        return m_bytes;
    }

    /**
     * \brief Across MPI ranks: every rank's transfers, replayed in the order one process
     *        sees them (the keys of the events they happened in), so that the statistics are
     *        one process's. In one process, nothing.
     */
    void Merge()
    {
        if (!m_log)
        {
            return;
        }
        const FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
        std::vector<uint8_t> mine(m_records.size() * sizeof(Record));
        if (!m_records.empty())
        {
            std::memcpy(mine.data(), m_records.data(), mine.size());
        }
        const std::vector<uint8_t> all = impl->GatherAcrossRanks(mine);
        std::vector<Record> records(all.size() / sizeof(Record));
        if (!records.empty())
        {
            std::memcpy(records.data(), all.data(), records.size() * sizeof(Record));
        }
        std::stable_sort(records.begin(),
                         records.end(),
                         [](const Record& a, const Record& b) {
                             return std::tie(a.ts, a.sched, a.origin, a.seq)
                                    < std::tie(b.ts, b.sched, b.origin, b.seq);
                         });
        m_log = false;
        m_scheduleIndex = UINT32_MAX;
        for (const Record& r : records)
        {
            CollectiveTransfer t;
            t.src = r.src;
            t.dst = r.dst;
            t.bytes = r.bytes;
            if (r.sent)
            {
                Count(r.schedule, t, TimeStep(static_cast<int64_t>(r.ts)));
            }
            else
            {
                Arrive(t, TimeStep(static_cast<int64_t>(r.ts)));
            }
        }
    }

    /// \return busy time per dimension
    const std::vector<Time>& Busy() const
    {
        return m_busy;
    }

  private:
    /**
     * \param comm a rank's communicator
     * \param t a transfer it sent
     */
    void DoSent(const Communicator* comm, const CollectiveTransfer& t)
    {
        Ptr<const CollectiveSchedule> schedule = comm->GetSchedule();
        auto seen = std::find(m_schedules.begin(), m_schedules.end(), schedule);
        const auto index = static_cast<uint32_t>(seen - m_schedules.begin());
        if (seen == m_schedules.end())
        {
            m_schedules.push_back(schedule); // the sweep's sizes come in order on every rank
        }
        if (m_log)
        {
            Log(true, index, t);
            return;
        }
        Count(index, t, Simulator::Now());
    }

    /**
     * \param sent true for a transfer sent, false for one that arrived
     * \param schedule the schedule's index
     * \param t the transfer
     */
    void Log(bool sent, uint32_t schedule, const CollectiveTransfer& t)
    {
        const FabricSimulatorImpl::Key& key = FabricSimulatorImpl::Get()->GetCurrentKey();
        Record r{};
        r.ts = key.ts;
        r.sched = key.sched;
        r.seq = key.seq;
        r.origin = key.origin;
        r.sent = sent ? 1 : 0;
        r.schedule = schedule;
        r.src = t.src;
        r.dst = t.dst;
        r.bytes = t.bytes;
        m_records.push_back(r);
    }

    /**
     * \param schedule the sender's schedule (index)
     * \param t a transfer it sent
     * \param now when
     */
    void Count(uint32_t schedule, const CollectiveTransfer& t, Time now)
    {
        if (schedule != m_scheduleIndex)
        {
            m_scheduleIndex = schedule; // a new size: count it alone
            std::fill(m_bytes.begin(), m_bytes.end(), 0);
            std::fill(m_busy.begin(), m_busy.end(), Time(0));
            std::fill(m_inFlight.begin(), m_inFlight.end(), 0);
        }
        const uint32_t dim = Dimension(t);
        if (dim == NONE || dim == MIXED)
        {
            return; // the same switch, or a path through several dimensions
        }
        m_bytes[dim] += t.bytes;
        if (m_inFlight[dim]++ == 0)
        {
            m_since[dim] = now;
        }
    }

    /// \param t a transfer that arrived
    void DoArrived(const CollectiveTransfer& t)
    {
        if (m_log)
        {
            Log(false, 0, t);
            return;
        }
        Arrive(t, Simulator::Now());
    }

    /**
     * \param t a transfer that arrived
     * \param now when
     */
    void Arrive(const CollectiveTransfer& t, Time now)
    {
        const uint32_t dim = Dimension(t);
        if (dim == NONE || dim == MIXED || m_inFlight[dim] == 0)
        {
            return;
        }
        if (--m_inFlight[dim] == 0)
        {
            m_busy[dim] += now - m_since[dim];
        }
    }

    /// A transfer sent or arrived, with the key of its event (Merge()).
    struct Record
    {
        uint64_t ts;       //!< the event's key
        uint64_t sched;    //!< the event's key
        uint64_t seq;      //!< the event's key
        uint32_t origin;   //!< the event's key
        uint32_t sent;     //!< 1: sent, 0: arrived
        uint32_t schedule; //!< the sender's schedule (index)
        uint32_t src;      //!< the transfer's sender
        uint32_t dst;      //!< its receiver
        uint32_t pad;      //!< zero
        uint64_t bytes;    //!< its bytes
    };

    /**
     * \param t a transfer
     * \return the one dimension its switches differ in (NONE: none, MIXED: several)
     */
    uint32_t Dimension(const CollectiveTransfer& t) const
    {
        uint32_t dim = NONE;
        for (uint32_t d = 0; d < m_coords[0].size(); ++d)
        {
            if (m_coords[t.src][d] != m_coords[t.dst][d])
            {
                dim = dim == NONE ? d : MIXED;
            }
        }
        return dim;
    }

    static constexpr uint32_t NONE = UINT32_MAX;            //!< no dimension
    static constexpr uint32_t MIXED = UINT32_MAX - 1;       //!< several
    bool m_log;                                             //!< across ranks: record, Merge() later
    std::vector<Record> m_records;                          //!< what was recorded
    std::vector<std::vector<uint32_t>> m_coords;            //!< by rank
    std::vector<Ptr<const CollectiveSchedule>> m_schedules; //!< seen, in order
    uint32_t m_scheduleIndex{UINT32_MAX};                   //!< schedule counted
    std::vector<uint64_t> m_bytes;                          //!< by dimension
    std::vector<Time> m_busy;                               //!< by dimension
    std::vector<Time> m_since;                              //!< start of the current busy period
    std::vector<uint32_t> m_inFlight;                       //!< transfers in flight
};

/// A 2D or 3D torus or mesh.
class TorusTopology : public ScenarioTopology
{
  public:
    /// A torus whose flags are not yet checked.
    TorusTopology() = default;

    /// \param other a torus not yet installed
    TorusTopology(const TorusTopology& other)
        : ScenarioTopology(other)
        , m_torus(other.m_torus)
        , m_dims(other.m_dims)
        , m_wrap(other.m_wrap)
        , m_rate(other.m_rate)
        , m_placement(other.m_placement)
        , m_routing(other.m_routing)
        , m_buffer(other.m_buffer)
        , m_stall(other.m_stall)
    {
    }

    void DeclareOptions(ScenarioOptions& o) override
    {
        o.Add("dims", "torus size per dimension: XxY or XxYxZ, each 2-64", "4x4");
        o.Add("wrap", "wrap-around links: true (torus) or false (mesh)", "true");
        o.Add("gpusPerSwitch", "GPUs attached to each switch", "1");
        o.Add("routerInGpu",
              "each switch is its GPU's on-chip router, TPU-pod style (one GPU per switch)",
              "false");
        o.Use("fabric");
        o.Add("linkRate", "rate of every link, e.g. 400Gbps", "400Gbps");
        o.Add("routing",
              "dor (dimension order), shortest (the fabric's own: ECMP, or the subnet "
              "manager's min-hop), or on ib one of the subnet manager's engines: minhop, ftree "
              "or updn",
              "dor");
        o.Add("datelines",
              "dateline classes on each ring (a second VL or lossless priority), so that "
              "dimension-order routing cannot deadlock",
              "true");
        o.Add("placement",
              "rank order: linear (coordinate order), stride (every other switch along X "
              "first: ring neighbours two hops apart) or random (drawn from the RngRun, a "
              "placement unaware of the torus)",
              "linear");
        o.Use("collective");
        o.Use("algo", "torus", "torus: reduce-scatter and all-gather along each dimension");
        o.Add("bufferBytes",
              "switch buffering: the shared buffer of a RoCEv2 switch, or each VL's buffer "
              "of an InfiniBand port (default: the fabric's)",
              "");
        o.Add("stallTime",
              "no progress this long with work outstanding stops the run (e.g. 10ms; 1ns at "
              "least)",
              "10ms");
    }

    void Check(ScenarioOptions& o, FabricHelper& probe) override
    {
        if (!ParseDims(o.Get("dims"), m_dims))
        {
            o.Fail("--dims=" + o.Get("dims") + ": expected XxY or XxYxZ, each from 2 to 64");
        }
        m_wrap = o.Bool("wrap");
        const bool inGpu = o.Bool("routerInGpu");
        const bool datelines = o.Bool("datelines");
        m_routing = o.Get("routing");
        if (m_routing != "dor" && m_routing != "shortest")
        {
            // The fabric's own routing engines, where it has them.
            std::string why = probe.HasOption("routing") ? probe.SetOption("routing", m_routing)
                                                         : "expected dor or shortest";
            if (why.rfind("expected ", 0) == 0 && why != "expected dor or shortest")
            {
                why = "expected dor, shortest, " + why.substr(9); // the fabric's engines
            }
            if (!why.empty())
            {
                o.Fail("--routing=" + m_routing + ": " + why);
            }
        }
        m_placement = o.Get("placement");
        if (!TorusHelper::IsPlacement(m_placement))
        {
            o.Fail("--placement=" + m_placement + ": expected linear, stride or random");
        }
        m_rate = o.LinkRate("linkRate");
        const std::string& stallTime = o.Get("stallTime");
        if (!FabricCli::ParseTime(stallTime, m_stall) || !m_stall.IsStrictlyPositive())
        {
            o.Fail("--stallTime=" + stallTime + ": expected a time such as 10ms");
        }
        if (m_stall < NanoSeconds(1))
        {
            // FabricStallDetector::StallTime takes 1 ns at least (its checker).
            o.Fail("--stallTime=" + stallTime + ": below the stall detector's resolution of 1ns");
        }
        if (!o.Get("bufferBytes").empty())
        {
            m_buffer = o.Bytes("bufferBytes");
            const std::string why = probe.SetSwitchBuffer(m_buffer);
            if (!why.empty())
            {
                o.Fail("--bufferBytes=" + o.Get("bufferBytes") + ": " + why);
            }
        }
        m_torus.SetDimensions(m_dims);
        m_torus.SetWrap(m_wrap);
        m_torus.SetGpusPerSwitch(o.Whole("gpusPerSwitch", 1, 64));
        m_torus.SetRouterInGpu(inGpu);
        m_torus.SetDimensionOrderRouting(m_routing == "dor");
        m_torus.SetDatelines(datelines);
        m_torus.SetRanks(FabricCli::GetRanks());
        const std::string topologyError = m_torus.Check();
        if (!topologyError.empty())
        {
            o.Fail(topologyError);
        }
        Config::SetDefault("ns3::FabricStallDetector::StallTime", TimeValue(m_stall));
    }

    uint32_t GetNGpus() const override
    {
        return m_torus.GetNGpus();
    }

    DataRate GetLinkRate() const override
    {
        return m_rate;
    }

    std::string CheckAlgorithm(const std::string& algo) const override
    {
        if (algo == "nvls" || algo == "nvlstree")
        {
            // In-switch reduction (NVLS) happens in the NVSwitch of a server: a torus has none.
            return "--algo=" + algo +
                   ": NVLS needs NVSwitch servers (ai-fabric-fattree --server); a torus has "
                   "none";
        }
        if (algo == "auto")
        {
            return "--algo=auto: the tuner's cost models are a fat-tree's; on a torus name "
                   "the algorithm (torus, ring, tree, hd, chain, pairwise or direct)";
        }
        return "";
    }

    void ConfigureSweep(CollectiveSweepConfig& sweep) const override
    {
        if (sweep.algorithm != "torus")
        {
            return;
        }
        // The rank grid: the GPUs of a switch, then the torus's dimensions (linear
        // placement: every line of the grid is a ring of neighbours).
        if (m_torus.GetGpusPerSwitch() > 1)
        {
            sweep.torusDims = std::to_string(m_torus.GetGpusPerSwitch()) + "x";
        }
        for (std::size_t d = 0; d < m_dims.size(); ++d)
        {
            sweep.torusDims += (d == 0 ? "" : "x") + std::to_string(m_dims[d]);
        }
    }

    void ConfigureFabric(FabricHelper& fabric) const override
    {
        if (m_buffer > 0)
        {
            fabric.SetSwitchBuffer(m_buffer); // checked in Check()
        }
        if (m_routing != "dor" && m_routing != "shortest")
        {
            fabric.SetOption("routing", m_routing); // checked in Check()
        }
    }

    void Install(FabricHelper& fabric) override
    {
        m_torus.Install(fabric);
    }

    NodeContainer GetRanks() const override
    {
        return m_torus.GetGpus(m_placement,
                               RngSeedManager::GetSeed() * 1000003ULL + RngSeedManager::GetRun());
    }

    Time GetPathLatency(const FabricHelper& fabric) const override
    {
        // The switches of the longest dimension-order path.
        int64_t switchHops = 1;
        for (uint32_t d : m_dims)
        {
            switchHops += m_wrap ? d / 2 : d - 1;
        }
        return fabric.GetSwitchLatency(m_torus.GetSwitches().Get(0)) * switchHops
               + fabric.GetChannels().back()->GetDelay() * (switchHops + 1);
    }

    void Watch(CollectiveHelper& collectives) override
    {
        const NodeContainer gpus = GetRanks();
        const NodeContainer linear = m_torus.GetGpus();
        std::map<uint32_t, uint32_t> indexOfNode;
        for (uint32_t i = 0; i < linear.GetN(); ++i)
        {
            indexOfNode[linear.Get(i)->GetId()] = i;
        }
        std::vector<std::vector<uint32_t>> rankCoords;
        for (uint32_t r = 0; r < gpus.GetN(); ++r)
        {
            const uint32_t i = indexOfNode.at(gpus.Get(r)->GetId());
            rankCoords.push_back(m_torus.GetCoordinates(i / m_torus.GetGpusPerSwitch()));
        }
        m_stats = std::make_unique<DimensionStats>(rankCoords);
        for (uint32_t r = 0; r < gpus.GetN(); ++r)
        {
            Ptr<Communicator> c = collectives.GetCommunicator(r);
            c->TraceConnectWithoutContext(
                "Send",
                MakeBoundCallback(&DimensionStats::Sent,
                                  m_stats.get(),
                                  static_cast<const Communicator*>(PeekPointer(c))));
            c->TraceConnectWithoutContext(
                "Arrival", MakeBoundCallback(&DimensionStats::Arrived, m_stats.get()));
        }
    }

    std::string GetSplit() const override
    {
        return m_torus.GetSplit();
    }

    void PrintHeader(std::ostream& os, const CollectiveScenario& scenario) const override
    {
        os << m_torus.Summary() << "\n";
        os << "# fabric " << scenario.GetOptions().Get("fabric") << ", "
           << m_rate.GetBitRate() / 1e9 << " Gb/s links, " << m_placement << " placement\n";
    }

    void AfterRun(FailureRunOutput& out,
                  std::ostream* os,
                  const CollectiveScenario& scenario) override
    {
        if (m_stats)
        {
            m_stats->Merge(); // across MPI ranks, every rank's transfers (all ranks call it)
        }
        out.extra["dimensions"] = nlohmann::ordered_json::array();
        if (!os)
        {
            return; // the silent baseline
        }
        // Per dimension, over the iterations of the largest size: bytes each rank sent along
        // the dimension, the time the dimension had data in flight, and their ratio
        // (nccl-tests' busbw is the same ratio over the whole collective).
        nlohmann::ordered_json perDimension = nlohmann::ordered_json::array();
        const char* axis[] = {"X", "Y", "Z"};
        if (!out.rows.empty())
        {
            *os << "# per dimension (largest size):\n";
            const uint32_t runs = scenario.GetSweep().warmup + scenario.GetSweep().iterations;
            const uint32_t ranks = m_torus.GetNGpus();
            for (std::size_t d = 0; d < m_dims.size(); ++d)
            {
                const double perRank = static_cast<double>(m_stats->Bytes()[d]) / ranks / runs;
                const double busyUs = m_stats->Busy()[d].GetSeconds() * 1e6 / runs;
                const double busbw = busyUs > 0 ? perRank / busyUs / 1e3 : 0.0;
                char line[160];
                std::snprintf(line,
                              sizeof(line),
                              "#   %s (%u switches): %12.0f B per rank per iteration, busy "
                              "%10.2f us, busbw %7.2f GB/s\n",
                              axis[d],
                              m_dims[d],
                              perRank,
                              busyUs,
                              busbw);
                *os << line;
                perDimension.push_back({{"dimension", axis[d]},
                                        {"size", m_dims[d]},
                                        {"bytes_per_rank", perRank},
                                        {"busy_us", busyUs},
                                        {"busbw_GBps", busbw}});
            }
        }
        out.extra["dimensions"] = perDimension;
    }

    nlohmann::ordered_json GetScenarioJson(const CollectiveScenario& scenario,
                                           const FailureRunOutput& out) const override
    {
        const nlohmann::ordered_json c = scenario.GetCommonJson(out);
        nlohmann::ordered_json j;
        j["fabric"] = c["fabric"];
        j["topology"] = m_wrap ? "torus" : "mesh";
        j["dims"] = m_dims;
        j["gpusPerSwitch"] = m_torus.GetGpusPerSwitch();
        j["routerInGpu"] = m_torus.IsRouterInGpu();
        j["gpus"] = m_torus.GetNGpus();
        j["switches"] = m_torus.GetNSwitches();
        j["switch_links"] = m_torus.GetNSwitchLinks();
        j["linkRate_gbps"] = m_rate.GetBitRate() / 1e9;
        j["routing"] = m_routing;
        j["datelines"] = m_torus.HasDatelines();
        j["placement"] = m_placement;
        j["pfc"] = c["pfc"];
        j["dcqcn"] = c["dcqcn"];
        j["bufferBytes"] = m_buffer;
        j["stallTime_us"] = m_stall.GetSeconds() * 1e6;
        scenario.AddSweepJson(j, out); // the sweep's keys last
        return j;
    }

    std::unique_ptr<ScenarioTopology> Copy() const override
    {
        return std::make_unique<TorusTopology>(*this);
    }

  private:
    TorusHelper m_torus;                     //!< the torus
    std::vector<uint32_t> m_dims;            //!< --dims
    bool m_wrap{true};                       //!< --wrap
    DataRate m_rate;                         //!< --linkRate
    std::string m_placement;                 //!< --placement
    std::string m_routing;                   //!< --routing
    uint64_t m_buffer{0};                    //!< --bufferBytes (0: the fabric's)
    Time m_stall;                            //!< --stallTime
    std::unique_ptr<DimensionStats> m_stats; //!< the run's per-dimension statistics
};

/// ai-fabric-torus's topology
const ScenarioTopologyRegistration g_torus("torus",
                                           []() { return std::make_unique<TorusTopology>(); });

} // namespace

} // namespace ns3
