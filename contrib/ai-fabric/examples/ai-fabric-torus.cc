/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * A 2D or 3D torus (or mesh) of switches with GPUs attached, or of GPUs with their own
 * routers (TPU-pod style), on a RoCEv2 or InfiniBand fabric, runs an nccl-tests style sweep of
 * a collective. Dimension-order routing with dateline classes by default; without datelines
 * the rings of a torus can deadlock, and the stall detector then stops the run, names the
 * cycle of blocked queues and exits with status 3.
 *
 *   ./ns3 run ai-fabric-torus
 *   ./ns3 run "ai-fabric-torus --dims=4x4x4 --maxBytes=8M"
 *   ./ns3 run "ai-fabric-torus --datelines=false --placement=random --bufferBytes=256K"
 *   ./ns3 run "ai-fabric-torus --fabric=ib --routerInGpu=true --json=torus.json"
 */

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/collective-schedule.h"
#include "ns3/collective-sweep.h"
#include "ns3/collective-tuner.h"
#include "ns3/command-line.h"
#include "ns3/communicator.h"
#include "ns3/config.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-stall-detector.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/failure-report.h"
#include "ns3/fault-injector.h"
#include "ns3/fault-schedule.h"
#include "ns3/names.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/torus-helper.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

using namespace ns3;

namespace
{
const std::string PROGRAM = "ai-fabric-torus";

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
        : m_coords(std::move(rankCoords))
        , m_bytes(m_coords[0].size(), 0)
        , m_busy(m_coords[0].size())
        , m_since(m_coords[0].size())
        , m_inFlight(m_coords[0].size(), 0)
    {
    }

    /**
     * \param comm a rank's communicator
     * \param t a transfer it sent
     */
    void Sent(const Communicator* comm, const CollectiveTransfer& t)
    {
        Ptr<const CollectiveSchedule> schedule = comm->GetSchedule();
        if (schedule != m_schedule)
        {
            m_schedule = schedule; // a new size: count it alone
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
            m_since[dim] = Simulator::Now();
        }
    }

    /// \param t a transfer that arrived
    void Arrived(const CollectiveTransfer& t)
    {
        const uint32_t dim = Dimension(t);
        if (dim == NONE || dim == MIXED || m_inFlight[dim] == 0)
        {
            return;
        }
        if (--m_inFlight[dim] == 0)
        {
            m_busy[dim] += Simulator::Now() - m_since[dim];
        }
    }

    /// \return bytes per dimension
    const std::vector<uint64_t>& Bytes() const
    {
        return m_bytes;
    }

    /// \return busy time per dimension
    const std::vector<Time>& Busy() const
    {
        return m_busy;
    }

  private:
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

    static constexpr uint32_t NONE = UINT32_MAX;      //!< no dimension
    static constexpr uint32_t MIXED = UINT32_MAX - 1; //!< several
    std::vector<std::vector<uint32_t>> m_coords;      //!< by rank
    Ptr<const CollectiveSchedule> m_schedule;         //!< schedule counted
    std::vector<uint64_t> m_bytes;                    //!< by dimension
    std::vector<Time> m_busy;                         //!< by dimension
    std::vector<Time> m_since;                        //!< start of the current busy period
    std::vector<uint32_t> m_inFlight;                 //!< transfers in flight
};

/**
 * \param stats the statistics
 * \param comm the sender's communicator (a raw pointer: a Ptr bound into the communicator's
 *        own trace would hold it for ever, a reference cycle that leaks)
 * \param t the transfer
 */
void
TransferSent(DimensionStats* stats, const Communicator* comm, const CollectiveTransfer& t)
{
    stats->Sent(comm, t);
}

/**
 * \param stats the statistics
 * \param t the transfer
 */
void
TransferArrived(DimensionStats* stats, const CollectiveTransfer& t)
{
    stats->Arrived(t);
}
} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    const auto wallStart = std::chrono::steady_clock::now();

    std::string dimsText = "4x4";
    std::string wrap = "true";
    std::string gpusPerSwitch = "1";
    std::string routerInGpu = "false";
    std::string fabricName = "roce";
    std::string linkRate = "400Gbps";
    std::string routing = "dor";
    std::string datelines = "true";
    std::string placement = "linear";
    std::string collective = "allreduce";
    std::string algo = "torus";
    std::string minBytes = "1M";
    std::string maxBytes = "32M";
    std::string stepFactor = "2";
    std::string iters = "5";
    std::string warmup = "1";
    std::string channels = "1";
    std::string bufferBytes;
    std::string stallTime = "10ms";
    std::string failures;
    std::string json;
    bool quiet = false;
    bool pfc = true;
    bool dcqcn = true;
    std::string cc;

    FabricCli::CheckKnownOptions(
        PROGRAM,
        argc,
        argv,
        {"maxEvents", "maxWallTime", "dims",      "wrap",       "gpusPerSwitch", "routerInGpu",
         "fabric",    "linkRate",    "routing",   "datelines",  "placement",     "collective",
         "algo",      "minBytes",    "maxBytes",  "stepFactor", "iters",         "warmup",
         "channels",  "bufferBytes", "stallTime", "failures",   "json",          "quiet",
         "pfc",       "dcqcn",       "cc"},
        {"quiet", "pfc", "dcqcn"});
    CommandLine cmd(__FILE__);
    cmd.Usage("An nccl-tests style sweep of a collective on a 2D or 3D torus.");
    cmd.AddValue("dims", "torus size per dimension: XxY or XxYxZ, each 2-64", dimsText);
    cmd.AddValue("wrap", "wrap-around links: true (torus) or false (mesh)", wrap);
    cmd.AddValue("gpusPerSwitch", "GPUs attached to each switch", gpusPerSwitch);
    cmd.AddValue("routerInGpu",
                 "each switch is its GPU's on-chip router, TPU-pod style (one GPU per switch)",
                 routerInGpu);
    cmd.AddValue("fabric", "roce (RoCEv2, PFC) or ib (InfiniBand, credits)", fabricName);
    cmd.AddValue("linkRate", "rate of every link, e.g. 400Gbps", linkRate);
    cmd.AddValue("routing",
                 "dor (dimension order) or shortest (the fabric's own: ECMP, or the subnet "
                 "manager's min-hop)",
                 routing);
    cmd.AddValue("datelines",
                 "dateline classes on each ring (a second VL or lossless priority), so that "
                 "dimension-order routing cannot deadlock",
                 datelines);
    cmd.AddValue("placement",
                 "rank order: linear (coordinate order), stride (every other switch along X "
                 "first: ring neighbours two hops apart) or random (drawn from the RngRun, a "
                 "placement unaware of the torus)",
                 placement);
    cmd.AddValue(
        "collective", "allreduce, allgather, reducescatter, broadcast or alltoall", collective);
    cmd.AddValue("algo",
                 "torus (reduce-scatter and all-gather along each dimension in turn), ring, "
                 "tree, hd, chain, pairwise or direct",
                 algo);
    cmd.AddValue("minBytes", "smallest size, K/M/G suffixes (nccl-tests -b)", minBytes);
    cmd.AddValue("maxBytes", "largest size (nccl-tests -e)", maxBytes);
    cmd.AddValue("stepFactor", "size multiplier between rows (nccl-tests -f)", stepFactor);
    cmd.AddValue("iters", "timed iterations per size (nccl-tests -n)", iters);
    cmd.AddValue("warmup", "untimed iterations per size first (nccl-tests -w)", warmup);
    cmd.AddValue("channels", "channels (NCCL's nChannels), each with its own QPs", channels);
    cmd.AddValue("bufferBytes",
                 "switch buffering: the shared buffer of a RoCEv2 switch, or each VL's buffer "
                 "of an InfiniBand port (default: the fabric's)",
                 bufferBytes);
    cmd.AddValue("stallTime",
                 "no progress this long with work outstanding stops the run (e.g. 10ms; 1ns at "
                 "least)",
                 stallTime);
    cmd.AddValue("failures",
                 "failures to inject: link:A-B@T, switch:S@T, nic:G@T, flap:A-B@T,period=P,"
                 "count=N, ber:A-B@T,rate=R, up@T, separated by ';' (or a .json file); the "
                 "sweep runs without them first, for the slowdown",
                 failures);
    cmd.AddValue("json", "write the results as JSON to this file", json);
    cmd.AddValue("quiet", "no progress line on stderr", quiet);
    cmd.AddValue("pfc", "PFC on the RDMA priorities (roce only)", pfc);
    cmd.AddValue("dcqcn", "DCQCN congestion control at the NICs (roce only)", dcqcn);
    cmd.AddValue("cc", FabricCli::CongestionControlHelp(), cc);
    FabricWatchdog::AddCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Check everything before building anything.
    std::vector<uint32_t> dims;
    if (!ParseDims(dimsText, dims))
    {
        FabricCli::Fail(PROGRAM,
                        "--dims=" + dimsText + ": expected XxY or XxYxZ, each from 2 to 64");
    }
    FabricCli::CheckFabric(PROGRAM, fabricName);
    // The fabrics' own options, checked on a helper that builds nothing.
    const std::vector<std::pair<std::string, std::string>> fabricOptions
        = {{"pfc", pfc ? "true" : "false"}};
    const std::unique_ptr<FabricHelper> probe = FabricHelper::CreateByName(fabricName);
    FabricCli::ApplyFabricOptions(PROGRAM, *probe, fabricOptions);
    const std::string ccName = FabricCli::CongestionControl(
        PROGRAM, cc, fabricName, dcqcn, FabricCli::IsGiven(argc, argv, "dcqcn"), false, false);
    dcqcn = ccName == "dcqcn";
    bool wrapOn = true;
    if (!FabricCli::ParseBool(wrap, wrapOn))
    {
        FabricCli::Fail(PROGRAM, "--wrap=" + wrap + ": expected true or false");
    }
    bool inGpu = false;
    if (!FabricCli::ParseBool(routerInGpu, inGpu))
    {
        FabricCli::Fail(PROGRAM, "--routerInGpu=" + routerInGpu + ": expected true or false");
    }
    bool datelinesOn = true;
    if (!FabricCli::ParseBool(datelines, datelinesOn))
    {
        FabricCli::Fail(PROGRAM, "--datelines=" + datelines + ": expected true or false");
    }
    if (routing != "dor" && routing != "shortest")
    {
        FabricCli::Fail(PROGRAM, "--routing=" + routing + ": expected dor or shortest");
    }
    if (!TorusHelper::IsPlacement(placement))
    {
        FabricCli::Fail(PROGRAM,
                        "--placement=" + placement + ": expected linear, stride or random");
    }
    DataRate rate;
    rate = FabricCli::LinkRate(PROGRAM, "linkRate", linkRate);
    Time stall;
    if (!FabricCli::ParseTime(stallTime, stall) || !stall.IsStrictlyPositive())
    {
        FabricCli::Fail(PROGRAM, "--stallTime=" + stallTime + ": expected a time such as 10ms");
    }
    if (stall < NanoSeconds(1))
    {
        // FabricStallDetector::StallTime takes 1 ns at least (its checker).
        FabricCli::Fail(
            PROGRAM, "--stallTime=" + stallTime + ": below the stall detector's resolution of 1ns");
    }
    std::vector<FaultEvent> faultEvents;
    if (!failures.empty())
    {
        std::string error;
        if (!FaultSchedule::Read(failures, faultEvents, error))
        {
            FabricCli::Fail(PROGRAM, "--failures=" + failures + ": " + error);
        }
    }
    uint64_t buffer = 0;
    if (!bufferBytes.empty())
    {
        buffer = FabricCli::Bytes(PROGRAM, "bufferBytes", bufferBytes);
        const std::string why = probe->SetSwitchBuffer(buffer);
        if (!why.empty())
        {
            FabricCli::Fail(PROGRAM, "--bufferBytes=" + bufferBytes + ": " + why);
        }
    }
    TorusHelper torus;
    torus.SetDimensions(dims);
    torus.SetWrap(wrapOn);
    torus.SetGpusPerSwitch(FabricCli::Whole(PROGRAM, "gpusPerSwitch", gpusPerSwitch, 1, 64));
    torus.SetRouterInGpu(inGpu);
    torus.SetDimensionOrderRouting(routing == "dor");
    torus.SetDatelines(datelinesOn);
    const std::string topologyError = torus.Check();
    if (!topologyError.empty())
    {
        FabricCli::Fail(PROGRAM, topologyError);
    }
    CollectiveType type;
    if (!ParseCollectiveType(collective, type))
    {
        FabricCli::Fail(PROGRAM,
                        "--collective=" + collective +
                            ": choose allreduce, allgather, reducescatter, broadcast or "
                            "alltoall");
    }
    const uint32_t ranks = torus.GetNGpus();
    if (algo == "nvls" || algo == "nvlstree")
    {
        // In-switch reduction (NVLS) happens in the NVSwitch of a server: a torus has none.
        FabricCli::Fail(PROGRAM,
                        "--algo=" + algo +
                            ": NVLS needs NVSwitch servers (ai-fabric-fattree --server); a "
                            "torus has none");
    }
    {
        std::string error;
        if (!CollectiveAlgorithm::CreateByName(algo, type, ranks, error))
        {
            FabricCli::Fail(PROGRAM, error);
        }
    }
    CollectiveSweepConfig sweep = CollectiveSweep::FromFlags(
        PROGRAM, type, algo, minBytes, maxBytes, stepFactor, iters, warmup, quiet);
    if (algo == "torus")
    {
        // The rank grid: the GPUs of a switch, then the torus's dimensions (linear
        // placement: every line of the grid is a ring of neighbours).
        if (torus.GetGpusPerSwitch() > 1)
        {
            sweep.torusDims = std::to_string(torus.GetGpusPerSwitch()) + "x";
        }
        for (std::size_t d = 0; d < dims.size(); ++d)
        {
            sweep.torusDims += (d == 0 ? "" : "x") + std::to_string(dims[d]);
        }
    }
    const uint32_t nChannels = FabricCli::Whole(PROGRAM, "channels", channels, 1, 64);
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(PROGRAM, "json", json);
    }

    Config::SetDefault("ns3::FabricStallDetector::StallTime", TimeValue(stall));

    // Bad input found once the topology exists: nothing half-written is left behind.
    auto FailClean = [&](const std::string& message)
    {
        jsonFile.Discard();
        FabricCli::Fail(PROGRAM, message);
    };

    // One run of the sweep, with or without the failures; the program runs it without them
    // first when failures are given, for the slowdown.
    nlohmann::ordered_json perDimension = nlohmann::ordered_json::array();
    auto simulate = [&](bool inject, bool print) -> FailureRunOutput
    {
        TorusHelper t = torus;
        // Build.
        std::unique_ptr<FabricHelper> helper = FabricHelper::CreateByName(fabricName);
        FabricCli::ApplyFabricOptions(PROGRAM, *helper, fabricOptions);
        if (buffer > 0)
        {
            helper->SetSwitchBuffer(buffer); // checked above
        }
        FabricHelper& fabric = *helper;
        fabric.SetDeviceAttribute("DataRate", DataRateValue(rate));
        fabric.SetCongestionControl(ccName); // checked by FabricCli::CongestionControl
        t.Install(fabric);
        const int64_t streams = fabric.AssignStreams(1);
        const NodeContainer gpus = t.GetGpus(
            placement, RngSeedManager::GetSeed() * 1000003ULL + RngSeedManager::GetRun());
        CollectiveHelper collectives;
        collectives.SetChannels(nChannels);
        collectives.Install(gpus, fabric);

        // The tuner's alpha: protocol step latency + both NICs + the switches of the longest
        // dimension-order path + its cables; beta from the goodput at the MTU.
        Ptr<Communicator> comm = collectives.GetCommunicator(0);
        Ptr<RdmaTransport> nic = fabric.GetTransport(t.GetGpus().Get(0));
        const Time portLatency = fabric.GetSwitchLatency(t.GetSwitches().Get(0));
        int64_t switchHops = 1;
        for (uint32_t d : dims)
        {
            switchHops += wrapOn ? d / 2 : d - 1;
        }
        const Time alpha = comm->GetStepLatency() + nic->GetTxLatency() + nic->GetRxLatency()
                           + portLatency * switchHops
                           + fabric.GetChannels().back()->GetDelay() * (switchHops + 1);
        CollectiveTuner tuner(alpha, rate, fabric.GetRdmaWireEfficiency(4096));
        CollectiveSweepConfig runConfig = sweep;
        runConfig.progress = sweep.progress && print; // the baseline run is silent
        CollectiveSweep runner(collectives, tuner, runConfig);
        runner.Schedule();

        FailureWatch watch;
        {
            std::string error;
            if (!FailureReport::Arm(fabric,
                                    gpus,
                                    MakeCallback(&CollectiveSweep::IsDone, &runner),
                                    faultEvents,
                                    inject,
                                    1 + streams,
                                    watch,
                                    error))
            {
                FailClean("--failures=" + failures + ": " + error);
            }
        }

        std::vector<std::vector<uint32_t>> rankCoords;
        for (uint32_t r = 0; r < ranks; ++r)
        {
            for (uint32_t i = 0; i < ranks; ++i)
            {
                if (t.GetGpus().Get(i) == gpus.Get(r))
                {
                    rankCoords.push_back(t.GetCoordinates(i / t.GetGpusPerSwitch()));
                    break;
                }
            }
        }
        DimensionStats dimStats(rankCoords);
        for (uint32_t r = 0; r < ranks; ++r)
        {
            Ptr<Communicator> c = collectives.GetCommunicator(r);
            c->TraceConnectWithoutContext(
                "Send",
                MakeBoundCallback(
                    &TransferSent, &dimStats, static_cast<const Communicator*>(PeekPointer(c))));
            c->TraceConnectWithoutContext("Arrival",
                                          MakeBoundCallback(&TransferArrived, &dimStats));
        }

        if (print)
        {
            std::cout << t.Summary() << "\n";
            std::cout << "# fabric " << fabricName << ", " << rate.GetBitRate() / 1e9
                      << " Gb/s links, " << placement << " placement\n";
            std::cout << "# collective " << collective << ", algo " << algo << ", " << ranks
                      << " ranks, " << nChannels << " channel(s), protocol "
                      << NcclProtocolName(comm->GetProtocol()) << ", " << sweep.warmup
                      << " warm-up + " << sweep.iterations << " timed iterations per size\n";
            std::cout.flush();
        }

        Simulator::Run();
        FailureRunOutput out;
        FailureReport::Collect(watch, out);
        out.simTime = runner.IsDone() ? runner.GetEndTime() : Simulator::Now();
        out.events = Simulator::GetEventCount();
        out.rows = runner.GetRows();
        out.protocol = NcclProtocolName(comm->GetProtocol());
        if (!print)
        {
            Simulator::Destroy();
            Names::Clear();
            return out;
        }
        CollectiveSweep::PrintTable(std::cout, out.rows, type);
        // Per dimension, over the iterations of the largest size: bytes each rank sent along the
        // dimension, the time the dimension had data in flight, and their ratio (nccl-tests'
        // busbw is the same ratio over the whole collective).
        const char* axis[] = {"X", "Y", "Z"};
        if (!out.rows.empty())
        {
            std::cout << "# per dimension (largest size):\n";
            const uint32_t runs = sweep.warmup + sweep.iterations;
            for (std::size_t d = 0; d < dims.size(); ++d)
            {
                const double perRank = static_cast<double>(dimStats.Bytes()[d]) / ranks / runs;
                const double busyUs = dimStats.Busy()[d].GetSeconds() * 1e6 / runs;
                const double busbw = busyUs > 0 ? perRank / busyUs / 1e3 : 0.0;
                char line[160];
                std::snprintf(
                    line,
                    sizeof(line),
                    "#   %s (%u switches): %12.0f B per rank per iteration, busy %10.2f us, "
                    "busbw %7.2f GB/s\n",
                    axis[d],
                    dims[d],
                    perRank,
                    busyUs,
                    busbw);
                std::cout << line;
                perDimension.push_back({{"dimension", axis[d]},
                                        {"size", dims[d]},
                                        {"bytes_per_rank", perRank},
                                        {"busy_us", busyUs},
                                        {"busbw_GBps", busbw}});
            }
        }
        out.totals = FabricStatsHelper::Totals();
        out.links = FabricStatsHelper::Links(out.simTime);
        Simulator::Destroy();
        Names::Clear();
        return out;
    };

    FailureRunOutput base;
    const FailureRunOutput out
        = FailureReport::RunWithBaseline(simulate, faultEvents, FailClean, base);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    FailureReport::Finish(PROGRAM, base, out, !faultEvents.empty(), quiet, wall);
    if (!json.empty())
    {
        nlohmann::ordered_json j;
        j["scenario"] = {{"fabric", fabricName},
                         {"topology", wrapOn ? "torus" : "mesh"},
                         {"dims", dims},
                         {"gpusPerSwitch", torus.GetGpusPerSwitch()},
                         {"routerInGpu", inGpu},
                         {"gpus", ranks},
                         {"switches", torus.GetNSwitches()},
                         {"switch_links", torus.GetNSwitchLinks()},
                         {"linkRate_gbps", rate.GetBitRate() / 1e9},
                         {"routing", routing},
                         {"datelines", torus.HasDatelines()},
                         {"placement", placement},
                         {"pfc", pfc && probe->HasOption("pfc")},
                         {"dcqcn", dcqcn},
                         {"bufferBytes", buffer},
                         {"stallTime_us", stall.GetSeconds() * 1e6},
                         {"collective", collective},
                         {"algo", algo},
                         {"channels", nChannels},
                         {"protocol", out.protocol},
                         {"minBytes", sweep.minBytes},
                         {"maxBytes", sweep.maxBytes},
                         {"stepFactor", sweep.stepFactor},
                         {"iters", sweep.iterations},
                         {"warmup", sweep.warmup},
                         {"RngRun", RngSeedManager::GetRun()}};
        j["dimensions"] = perDimension;
        if (!dcqcn && ccName != "none")
        {
            j["scenario"]["cc"] = ccName; // an algorithm beyond the dcqcn key
        }
        FailureReport::AddRunJson(j, collective, base, out, !faultEvents.empty(), wall);
        jsonFile.Stream() << j.dump(2) << "\n";
        std::string writeError;
        if (!jsonFile.Commit(writeError))
        {
            std::cerr << PROGRAM << ": " << writeError << std::endl;
            return 1;
        }
    }
    return out.finding.empty() ? 0 : FailureReport::EXIT_STALLED;
}
