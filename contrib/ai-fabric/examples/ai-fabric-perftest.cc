/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * perftest's ib_write_bw and ib_write_lat on a simulated RoCEv2 fabric: two hosts, back to
 * back or through a chain of switches.
 *
 *   ./ns3 run "ai-fabric-perftest --test=write_bw --size=1M --iters=1000"
 *   ./ns3 run "ai-fabric-perftest --test=write_lat --switches=2 --json=lat.json"
 *   ./ns3 run "ai-fabric-perftest --lossRate=0.001 --pcap=run"
 */

#include "ns3/command-line.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/nstime.h"
#include "ns3/rdma-perftest.h"
#include "ns3/scenario-options.h"

#include <cstdio>
#include <fstream>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-perftest";
    // Picosecond resolution: serialization at 400 Gb/s is 20 ps per byte.
    Time::SetResolution(Time::PS);
    ScenarioOptions options(program);
    options.Use("fabric");
    options.Add("test", "write_bw or write_lat", "write_bw");
    options.Add(
        "size", "message bytes, K/M/G suffixes (default 65536 for write_bw, 2 for write_lat)", "");
    options.Add("iters", "messages per QP (default 5000 for write_bw, 1000 for write_lat)", "");
    options.Add("qps", "queue pairs (write_bw)", "1");
    options.Add("txDepth", "outstanding writes per QP (write_bw), as perftest -t", "128");
    options.Add("rate", "link rate, e.g. 400Gbps or 400G", "400Gbps");
    options.Add("mtu", "IBTA path MTU: 256, 512, 1024, 2048 or 4096", "4096");
    options.Add("switches", "switches between the two hosts (0: back to back)", "1");
    options.Add("lossRate", "probability that a link loses a frame, in [0, 1)", "0");
    options.Use("json");
    options.Use("pcap");
    options.Parse(argc,
                  argv,
                  "RDMA WRITE bandwidth or latency between two hosts, as perftest's ib_write_bw "
                  "and ib_write_lat.");
    const std::string fabric = options.Get("fabric");
    const std::string test = options.Get("test");
    const std::string size = options.Get("size");
    const std::string iters = options.Get("iters");
    const std::string qps = options.Get("qps");
    const std::string txDepth = options.Get("txDepth");
    const std::string rate = options.Get("rate");
    const std::string mtu = options.Get("mtu");
    const std::string switches = options.Get("switches");
    const std::string lossRate = options.Get("lossRate");
    const std::string json = options.Get("json");
    const std::string pcap = options.Get("pcap");

    RdmaPerftestConfig cfg;
    cfg.fabric = fabric;
    cfg.test = test;
    uint64_t value = 0;
    if (!size.empty())
    {
        if (!FabricCli::ParseBytes(size, value) || value == 0)
        {
            FabricCli::Fail(program,
                            "--size=" + size
                                + ": expected a positive byte count (e.g. 4096, 64K, 1M)");
        }
        cfg.size = value;
    }
    if (!iters.empty())
    {
        if (!FabricCli::ParseUnsigned(iters, value) || value == 0)
        {
            FabricCli::Fail(program, "--iters=" + iters + ": expected a positive whole number");
        }
        cfg.iterations = value;
    }
    if (!FabricCli::ParseUnsigned(qps, value) || value == 0 || value > UINT32_MAX)
    {
        FabricCli::Fail(program, "--qps=" + qps + ": expected a positive whole number");
    }
    cfg.qps = static_cast<uint32_t>(value);
    if (!FabricCli::ParseUnsigned(txDepth, value) || value == 0 || value > UINT32_MAX)
    {
        FabricCli::Fail(program, "--txDepth=" + txDepth + ": expected a positive whole number");
    }
    cfg.txDepth = static_cast<uint32_t>(value);
    cfg.rate = FabricCli::LinkRate(program, "rate", rate);
    if (!FabricCli::ParseUnsigned(mtu, value) || value > UINT32_MAX)
    {
        FabricCli::Fail(
            program, "--mtu=" + mtu + ": the IBTA path MTU is one of 256, 512, 1024, 2048, 4096");
    }
    cfg.mtu = static_cast<uint32_t>(value);
    if (!FabricCli::ParseUnsigned(switches, value) || value > UINT32_MAX)
    {
        FabricCli::Fail(program, "--switches=" + switches + ": expected a whole number");
    }
    cfg.switches = static_cast<uint32_t>(value);
    if (!FabricCli::ParseProbability(lossRate, cfg.lossRate))
    {
        FabricCli::Fail(program, "--lossRate=" + lossRate + ": expected a probability in [0, 1)");
    }
    if (!pcap.empty() && !FabricCli::IsWritablePrefix(pcap))
    {
        FabricCli::Fail(program, "--pcap=" + pcap + ": cannot write files with this prefix");
    }
    cfg.pcapPrefix = pcap;
    const std::string error = cfg.Validate();
    if (!error.empty())
    {
        FabricCli::Fail(program, error);
    }
    // Open the JSON file before running, so that a bad path fails fast and nothing is
    // half-written; write it to a temporary name and rename it at the end.
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(program, "json", json);
    }

    RdmaPerftest perftest(cfg);
    const RdmaPerftestResult result = perftest.Run();
    perftest.PrintReport(std::cout, result);
    if (!json.empty())
    {
        // With the run's flags added (scenario.flags), as every program's JSON.
        if (!jsonFile.CommitJson(program, nlohmann::ordered_json::parse(perftest.ToJson(result))))
        {
            return 1;
        }
    }
    if (!result.error.empty())
    {
        // The run could not complete (a queue pair out of retries): a named finding, as in
        // every program.
        std::cerr << program << ": " << result.error << std::endl;
        return 3;
    }
    return 0;
}
