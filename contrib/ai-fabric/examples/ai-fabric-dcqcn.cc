/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * DCQCN convergence: flows that share one bottleneck start at staggered times; prints their
 * rates over time, Jain's fairness index over the second half of the run, and the bottleneck
 * queue against the ECN thresholds. Defaults are the SIGCOMM 2015 paper's setting: 40 Gb/s,
 * 1 KB MTU, Kmin 5 KB, Kmax 200 KB, Pmax 1%, the paper's DCQCN parameters.
 *
 *   ./ns3 run "ai-fabric-dcqcn"
 *   ./ns3 run "ai-fabric-dcqcn --preset=connectx --flows=4 --trace=dcqcn"
 */

#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-flow-scenario.h"
#include "ns3/scenario-options.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
/// At most this many rows in the printed rate table.
constexpr int64_t MAX_PRINTED_ROWS = 100000;
/**
 * \param program for messages
 * \param name the option
 * \param text its value
 * \return the time, positive
 */
Time
ParseTime(const std::string& program, const std::string& name, const std::string& text)
{
    Time t;
    if (!FabricCli::ParseTime(text, t) || !t.IsStrictlyPositive())
    {
        FabricCli::Fail(program,
                        "--" + name + "=" + text + ": expected a positive time such as 2ms");
    }
    return t;
}

/**
 * \brief The rate table: each flow's delivered rate and the queue, averaged over every period.
 * \param r the result
 * \param n the flows
 * \param every the period
 * \param end the end of the run
 */
void
PrintRateTable(const RoceFlowScenarioResult& r, uint64_t n, Time every, Time end)
{
    std::cout << "# time(ms)";
    for (uint32_t i = 0; i < n; ++i)
    {
        std::cout << "  f" << i << "(Gb/s)";
    }
    std::cout << "  queue(KB)\n" << std::fixed;
    for (Time t = every; t <= end; t += every)
    {
        const std::vector<double> mean = RoceFlowScenario::MeanThroughput(r, t - every, t);
        double queue = 0;
        uint32_t rows = 0;
        for (const RoceSample& s : r.samples)
        {
            if (s.time > t - every && s.time <= t)
            {
                queue += s.queueBytes[0];
                ++rows;
            }
        }
        std::cout << std::setprecision(2) << std::setw(10) << t.GetSeconds() * 1e3;
        for (double g : mean)
        {
            std::cout << std::setw(10) << g;
        }
        std::cout << std::setprecision(1) << std::setw(11) << (rows ? queue / rows / 1e3 : 0.0)
                  << "\n";
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-dcqcn";
    Time::SetResolution(Time::PS);

    RoceFlowScenarioConfig cfg;
    cfg.rate = DataRate("40Gbps");
    cfg.mtu = 1024;
    cfg.cable = NanoSeconds(10);
    cfg.dcqcn = true;
    cfg.dcqcnPreset = "paper";
    cfg.ecnKmin = 5000;
    cfg.ecnKmax = 200000;
    cfg.ecnPmax = 0.01;
    cfg.sampleInterval = MicroSeconds(10);
    RoceScenarioCli common(program, cfg);

    ScenarioOptions options(program);
    options.Add("flows", "number of flows (each from its own host to one receiver)", "2");
    options.Add("stagger", "time between the flows' starts", "2ms");
    options.Add("duration", "simulated time; fairness is measured over its second half", "40ms");
    options.Add("printEvery", "period of the printed rate table", "2ms");
    common.Declare(options);
    options.Parse(
        argc, argv, "DCQCN convergence: flows sharing one bottleneck, started at staggered times.");

    const std::string& flows = options.Get("flows");
    const std::string& stagger = options.Get("stagger");
    const std::string& duration = options.Get("duration");
    const std::string& printEvery = options.Get("printEvery");
    uint64_t n = 0;
    if (!FabricCli::ParseUnsigned(flows, n) || n < 1 || n > 1024)
    {
        FabricCli::Fail(program, "--flows=" + flows + ": expected a whole number from 1 to 1024");
    }
    const Time gap = ParseTime(program, "stagger", stagger);
    const Time end = ParseTime(program, "duration", duration);
    const Time every = ParseTime(program, "printEvery", printEvery);
    if (end.GetPicoSeconds() / every.GetPicoSeconds() > MAX_PRINTED_ROWS)
    {
        FabricCli::Fail(program,
                        "--printEvery=" + printEvery + ": more than "
                            + std::to_string(MAX_PRINTED_ROWS) + " rows in --duration=" + duration);
    }
    if (gap * static_cast<int64_t>(n - 1) >= end / 2)
    {
        FabricCli::Fail(program,
                        "--stagger=" + stagger + ": the last flow must start in the first half of "
                                                 "--duration=" + duration);
    }
    // Each flow has more to send than the run lasts: it is still sending at the end.
    const uint64_t bytes
        = static_cast<uint64_t>(cfg.rate.GetBitRate() / 8.0 * end.GetSeconds()) + 1;
    cfg.hostSwitch.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        cfg.flows.push_back({i + 1, 0, bytes, gap * static_cast<int64_t>(i)});
    }
    cfg.watchHosts = {0};
    cfg.stopTime = end;
    cfg.messageBytes = 1 << 20;
    common.Apply(options, cfg);

    std::cout << "# " << program << ": " << n << " flows, " << cfg.rate.GetBitRate() / 1e9
              << " Gb/s, "
              << (cfg.ibcc ? std::string("IB CC on")
                           : "DCQCN " + (cfg.dcqcn ? cfg.dcqcnPreset : std::string("off")))
              << ", ECN Kmin " << cfg.ecnKmin << " Kmax " << cfg.ecnKmax << " Pmax " << cfg.ecnPmax
              << ", PFC " << (cfg.pfc ? "on" : "off") << "\n";
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);

    PrintRateTable(r, n, every, end);

    // Fairness and the queue over the second half.
    const std::vector<double> half = RoceFlowScenario::MeanThroughput(r, end / 2, end);
    const double jain = RoceFlowScenario::JainIndex(half);
    // The thresholds in force at the bottleneck (0 in the configuration: derived from the rate).
    const double kmin = r.ports[0].ecnKmin;
    const double kmax = r.ports[0].ecnKmax;
    uint32_t rows = 0;
    uint32_t between = 0;
    double queueSum = 0;
    for (const RoceSample& s : r.samples)
    {
        if (s.time > end / 2)
        {
            ++rows;
            queueSum += s.queueBytes[0];
            between += s.queueBytes[0] >= kmin && s.queueBytes[0] <= kmax;
        }
    }
    const double inBand = rows ? static_cast<double>(between) / rows : 0.0;
    double total = 0;
    for (double g : half)
    {
        total += g;
    }
    std::cout << std::setprecision(3) << "# second half: Jain's fairness index " << jain
              << ", total " << total << " Gb/s, queue between Kmin and Kmax " << inBand * 100
              << "% of the time (mean " << (rows ? queueSum / rows / 1e3 : 0.0) << " KB)\n";
    RoceFlowScenario::Print(r, std::cout);

    nlohmann::ordered_json scenario = {{"program", program},
                                       {"fabric", cfg.fabric},
                                       {"flows", n},
                                       {"stagger_us", gap.GetSeconds() * 1e6},
                                       {"duration_us", end.GetSeconds() * 1e6},
                                       {"rate_gbps", cfg.rate.GetBitRate() / 1e9},
                                       {"mtu", cfg.mtu},
                                       {"pfc", cfg.pfc},
                                       {"ecn", cfg.ecn},
                                       {"dcqcn", cfg.dcqcn},
                                       {"preset", cfg.dcqcnPreset},
                                       {"ibcc", cfg.ibcc},
                                       {"cc_threshold", cfg.ibccThreshold},
                                       {"kmin", kmin},
                                       {"kmax", kmax},
                                       {"pmax", cfg.ecnPmax},
                                       {"RngRun", RngSeedManager::GetRun()}};
    nlohmann::ordered_json summary = {{"jain_second_half", jain},
                                      {"throughput_gbps_second_half", half},
                                      {"total_gbps_second_half", total},
                                      {"queue_in_band_fraction", inBand},
                                      {"queue_mean_bytes", rows ? queueSum / rows : 0.0}};
    return common.WriteOutputs(r, {{"scenario", scenario}, {"summary", summary}}) ? 0 : 1;
}
