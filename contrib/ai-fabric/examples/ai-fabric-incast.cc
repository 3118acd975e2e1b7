/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * Incast: N senders write to one receiver through one switch or a leaf-spine, with PFC,
 * ECN marking and DCQCN each on or off. Reports drops, pause frames, ECN marks and CNPs, the
 * bottleneck's queue and utilization, and every flow's completion time.
 *
 *   ./ns3 run "ai-fabric-incast --senders=8 --pfc=true --dcqcn=false"
 *   ./ns3 run "ai-fabric-incast --pfc=false --json=lossy.json"
 *   ./ns3 run "ai-fabric-incast --dcqcn=true --topology=leafspine --trace=incast"
 */

#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-helper.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-flow-scenario.h"
#include "ns3/scenario-options.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-incast";
    Time::SetResolution(Time::PS);

    RoceFlowScenarioConfig cfg;
    cfg.rate = DataRate("400Gbps");
    RoceScenarioCli common(program, cfg);

    ScenarioOptions options(program);
    options.Add("senders", "number of senders", "8");
    options.Add("bytes", "bytes each sender writes, K/M/G suffixes", "16M");
    options.Add("topology",
                "switch (every host on one switch) or leafspine (receiver on leaf 0, senders "
                "spread over the leaves, every leaf linked to every spine)",
                "switch");
    options.Add("leaves", "leaf switches (leafspine)", "2");
    options.Add("spines", "spine switches (leafspine)", "2");
    common.Declare(options);
    options.Parse(
        argc, argv, "Incast: N senders write to one receiver; PFC, ECN and DCQCN on or off.");

    const std::string& senders = options.Get("senders");
    const std::string& bytes = options.Get("bytes");
    const std::string& topology = options.Get("topology");
    uint64_t n = 0;
    if (!FabricCli::ParseUnsigned(senders, n) || n == 0 || n > 4096)
    {
        options.Fail("--senders=" + senders + ": expected a whole number from 1 to 4096");
    }
    uint64_t flowBytes = 0;
    if (!FabricCli::ParseBytes(bytes, flowBytes) || flowBytes == 0)
    {
        options.Fail("--bytes=" + bytes + ": expected a positive byte count (e.g. 4M)");
    }
    // --leaves and --spines are checked whatever the topology, and refused where they do not
    // apply: a value that is silently ignored is a mistake the user never sees.
    uint64_t nLeaves = options.Whole("leaves", 2, 256);
    uint64_t nSpines = options.Whole("spines", 1, 256);
    if (topology == "switch")
    {
        if (options.IsGiven("leaves") || options.IsGiven("spines"))
        {
            FabricCli::Fail(program, "--leaves and --spines apply to --topology=leafspine");
        }
        nLeaves = 1;
        nSpines = 0;
    }
    else if (topology != "leafspine")
    {
        FabricCli::Fail(program, "--topology=" + topology + ": expected switch or leafspine");
    }

    // Host 0 receives; sender i is host i + 1, on leaf (i + 1) mod leaves.
    cfg.switches = static_cast<uint32_t>(nLeaves + nSpines);
    cfg.hostSwitch.push_back(0);
    for (uint32_t i = 1; i <= n; ++i)
    {
        cfg.hostSwitch.push_back(static_cast<uint32_t>(i % nLeaves));
        cfg.flows.push_back({i, 0, flowBytes, Time(0)});
    }
    for (uint32_t l = 0; l < nLeaves && nSpines > 0; ++l)
    {
        for (uint32_t s = 0; s < nSpines; ++s)
        {
            cfg.trunks.emplace_back(l, static_cast<uint32_t>(nLeaves + s));
        }
    }
    cfg.watchHosts = {0};
    common.Apply(options, cfg);

    std::cout << "# " << program << ": " << n << " to 1, " << topology << ", "
              << cfg.rate.GetBitRate() / 1e9 << " Gb/s, ";
    const std::unique_ptr<FabricHelper> fabric = FabricHelper::CreateByName(cfg.fabric);
    fabric->ApplyOptions(
        {{"pfc", cfg.pfc ? "true" : "false"}, {"ecn", cfg.ecn ? "true" : "false"}});
    std::cout << fabric->DescribeLinkControl(
        cfg.ibcc ? std::string("IB CC on")
                 : "DCQCN " + (cfg.dcqcn ? cfg.dcqcnPreset : std::string("off")))
              << "\n";
    const RoceFlowScenarioResult r = RoceFlowScenario::Run(cfg);
    RoceFlowScenario::Print(r, std::cout);
    Time last;
    uint64_t delivered = 0;
    bool allDone = true;
    for (const RoceFlowResult& f : r.flows)
    {
        delivered += f.delivered;
        allDone = allDone && f.done;
        last = std::max(last, f.finish);
    }
    const double goodput
        = last.IsStrictlyPositive() ? delivered * 8.0 / last.GetSeconds() / 1e9 : 0;
    std::cout << "# bottleneck goodput: " << goodput << " Gb/s; last flow done at "
              << last.GetSeconds() * 1e6
              << " us; every byte delivered: " << (allDone ? "yes" : "no") << "\n";

    nlohmann::ordered_json scenario = {{"program", program},
                                       {"fabric", cfg.fabric},
                                       {"topology", topology},
                                       {"senders", n},
                                       {"bytes", flowBytes},
                                       {"leaves", nLeaves},
                                       {"spines", nSpines},
                                       {"rate_gbps", cfg.rate.GetBitRate() / 1e9},
                                       {"mtu", cfg.mtu},
                                       {"pfc", cfg.pfc},
                                       {"ecn", cfg.ecn},
                                       {"dcqcn", cfg.dcqcn},
                                       {"preset", cfg.dcqcnPreset},
                                       {"ibcc", cfg.ibcc},
                                       {"cc_threshold", cfg.ibccThreshold},
                                       {"RngRun", RngSeedManager::GetRun()}};
    nlohmann::ordered_json summary = {{"goodput_gbps", goodput},
                                      {"last_finish_us", last.GetSeconds() * 1e6},
                                      {"all_delivered", allDone},
                                      {"bottleneck_utilization", r.ports[0].utilization}};
    if (!common.WriteOutputs(r, {{"scenario", scenario}, {"summary", summary}}))
    {
        return 1;
    }
    return allDone ? 0 : 1;
}
