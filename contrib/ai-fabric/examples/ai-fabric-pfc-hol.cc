/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * PFC head-of-line blocking (congestion spreading). Two switches joined by one link. On
 * switch 0: a victim sender V and --senders incast senders A; on switch 1: the victim's
 * receiver W, the incast receiver R and --local more incast senders B. The incast
 * oversubscribes R's port, switch 1 pauses the inter-switch link, and V, whose own path
 * (V -> W) has no bottleneck, waits behind the pauses. With DCQCN the incast senders slow
 * down instead and V gets its share back.
 *
 * Defaults are the DCQCN paper's setting (40 Gb/s, 1 KB MTU, Kmin 5 KB, Kmax 200 KB, Pmax
 * 1%, the paper's DCQCN parameters), one incast flow crossing the link and seven local ones.
 *
 *   ./ns3 run "ai-fabric-pfc-hol"                 # PFC alone
 *   ./ns3 run "ai-fabric-pfc-hol --dcqcn=true"    # PFC and DCQCN
 */

#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-flow-scenario.h"
#include "ns3/scenario-options.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-pfc-hol";
    Time::SetResolution(Time::PS);

    // The DCQCN paper's setting: 40 Gb/s, 1 KB MTU, its ECN thresholds and parameters.
    RoceFlowScenarioConfig cfg;
    cfg.rate = DataRate("40Gbps");
    cfg.mtu = 1024;
    cfg.ecnKmin = 5000;
    cfg.ecnKmax = 200000;
    cfg.ecnPmax = 0.01;
    cfg.dcqcnPreset = "paper";
    cfg.sampleInterval = MicroSeconds(10);
    RoceScenarioCli common(program, cfg);

    ScenarioOptions options(program);
    options.Add(
        "senders", "incast senders on the victim's switch (their flows cross the link)", "1");
    options.Add("local", "incast senders on the receiver's switch", "7");
    options.Add("duration", "simulated time; throughput is measured over its second half", "20ms");
    common.Declare(options);
    options.Parse(argc,
                  argv,
                  "PFC head-of-line blocking: a victim flow slowed by pauses from an incast it "
                  "does not take part in.");

    const std::string& senders = options.Get("senders");
    const std::string& local = options.Get("local");
    const std::string& duration = options.Get("duration");
    uint64_t k = 0;
    uint64_t m = 0;
    if (!FabricCli::ParseUnsigned(senders, k) || k == 0 || k > 1024)
    {
        FabricCli::Fail(program,
                        "--senders=" + senders + ": expected a whole number from 1 to 1024");
    }
    if (!FabricCli::ParseUnsigned(local, m) || m == 0 || m > 1024)
    {
        FabricCli::Fail(program, "--local=" + local + ": expected a whole number from 1 to 1024");
    }
    Time end;
    if (!FabricCli::ParseTime(duration, end) || !end.IsStrictlyPositive())
    {
        FabricCli::Fail(program,
                        "--duration=" + duration + ": expected a positive time such as 10ms");
    }

    // Hosts: V = 0 and A = 1..k on switch 0; W = k + 1, R = k + 2 and B on switch 1.
    const auto victim = 0U;
    const auto w = static_cast<uint32_t>(k + 1);
    const auto receiver = static_cast<uint32_t>(k + 2);
    cfg.switches = 2;
    cfg.trunks = {{0, 1}};
    cfg.hostSwitch.assign(k + 1, 0);
    cfg.hostSwitch.resize(k + 3 + m, 1);
    const uint64_t bytes
        = static_cast<uint64_t>(cfg.rate.GetBitRate() / 8.0 * end.GetSeconds()) + 1;
    cfg.flows.push_back({victim, w, bytes, Time(0)});
    for (uint32_t i = 0; i < k; ++i)
    {
        cfg.flows.push_back({1 + i, receiver, bytes, Time(0)});
    }
    for (uint32_t j = 0; j < m; ++j)
    {
        cfg.flows.push_back({receiver + 1 + j, receiver, bytes, Time(0)});
    }
    cfg.watchHosts = {receiver, w};
    cfg.stopTime = end;
    common.Apply(options, cfg);

    std::cout << "# " << program << ": victim + " << k << " incast senders on switch 0, " << m
              << " on switch 1, " << cfg.rate.GetBitRate() / 1e9 << " Gb/s, PFC "
              << (cfg.pfc ? "on" : "off") << ", "
              << (cfg.ibcc ? std::string("IB CC on")
                           : "DCQCN " + (cfg.dcqcn ? cfg.dcqcnPreset : std::string("off")))
              << "\n";
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    RoceFlowScenario::Print(r, std::cout);

    const std::vector<double> half = RoceFlowScenario::MeanThroughput(r, end / 2, end);
    // Max-min fair share: R's port is split among k + m incast flows, and the link between the
    // switches carries the k that cross it plus the victim, which takes the rest.
    const double payload // goodput per line byte
        = FabricHelper::CreateByName(cfg.fabric)->GetRdmaWireEfficiency(cfg.mtu);
    const double line = cfg.rate.GetBitRate() / 1e9 * payload;
    const double fair = line - line * k / static_cast<double>(k + m);
    double incast = 0;
    for (std::size_t i = 1; i < half.size(); ++i)
    {
        incast += half[i];
    }
    std::cout << std::fixed << std::setprecision(2) << "# second half: victim " << half[0]
              << " Gb/s (max-min fair share " << fair << " Gb/s, " << half[0] / fair * 100
              << "%), incast total " << incast << " Gb/s\n";

    nlohmann::ordered_json scenario = {{"program", program},
                                       {"fabric", cfg.fabric},
                                       {"senders", k},
                                       {"local", m},
                                       {"duration_us", end.GetSeconds() * 1e6},
                                       {"rate_gbps", cfg.rate.GetBitRate() / 1e9},
                                       {"mtu", cfg.mtu},
                                       {"pfc", cfg.pfc},
                                       {"ecn", cfg.ecn},
                                       {"dcqcn", cfg.dcqcn},
                                       {"preset", cfg.dcqcnPreset},
                                       {"ibcc", cfg.ibcc},
                                       {"cc_threshold", cfg.ibccThreshold},
                                       {"RngRun", RngSeedManager::GetRun()}};
    nlohmann::ordered_json summary = {{"victim_gbps", half[0]},
                                      {"victim_fair_gbps", fair},
                                      {"victim_fraction_of_fair", half[0] / fair},
                                      {"incast_gbps", incast}};
    return common.WriteOutputs(r, {{"scenario", scenario}, {"summary", summary}}) ? 0 : 1;
}
