/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// RoceScenarioCli: the congestion examples' shared flags, their checks and output files.

#include "fabric-cli.h"
#include "fabric-plot.h"
#include "ns3/fabric-helper.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "roce-flow-scenario.h"

#include <iostream>

namespace ns3
{

RoceScenarioCli::RoceScenarioCli(std::string program, const RoceFlowScenarioConfig& defaults)
    : m_program(std::move(program))
    , m_default(defaults)
{
}

void
RoceScenarioCli::Declare(ScenarioOptions& o) const
{
    const RoceFlowScenarioConfig& d = m_default;
    o.Use("fabric");
    o.Add("rate",
          "every link's rate, e.g. 400Gbps or 100G",
          std::to_string(d.rate.GetBitRate()) + "bps");
    o.Add("mtu", "RDMA path MTU: 256, 512, 1024, 2048 or 4096", std::to_string(d.mtu));
    o.Add("cableMeters",
          "every cable's length in metres (5 ns per metre)",
          std::to_string(d.cable.GetNanoSeconds() / 5));
    o.UseFabricOption("buffer", std::to_string(d.bufferBytes));
    o.UseFabricOption("pfc", d.pfc ? "true" : "false");
    o.UseFabricOption("ecn", d.ecn ? "true" : "false");
    o.Use("dcqcn", d.dcqcn ? "true" : "false", "the example's default is RoCEv2's: off on ib");
    o.Use("preset", d.dcqcnPreset.empty() ? "connectx" : d.dcqcnPreset);
    o.Use("ibcc", d.ibcc ? "true" : "false");
    o.Use("cc");
    o.Add("ccThreshold",
          "IB switch marking threshold 1-15 (15 most aggressive) with --ibcc",
          std::to_string(d.ibccThreshold));
    o.UseFabricOption("kmin", std::to_string(d.ecnKmin));
    o.UseFabricOption("kmax", std::to_string(d.ecnKmax));
    o.UseFabricOption("pmax", d.ecnPmax < 0 ? "0.2" : std::to_string(d.ecnPmax));
    o.Use("json");
    o.Use("plot");
    o.Add("trace", "write a CSV time series (queue, pause state, per-QP rate) to PREFIX.csv", "");
    o.Add("interval",
          "time-series period, e.g. 1us or 500ns",
          std::to_string(d.sampleInterval.IsStrictlyPositive() ? d.sampleInterval.GetNanoSeconds()
                                                               : 1000)
              + "ns");
}

void
RoceScenarioCli::Apply(const ScenarioOptions& o, RoceFlowScenarioConfig& cfg)
{
    const std::string& p = m_program;
    const std::string& fabric = o.Get("fabric");
    FabricCli::CheckFabric(p, fabric);
    cfg.fabric = fabric;
    cfg.rate = o.LinkRate("rate");
    uint64_t v = 0;
    const std::string& mtu = o.Get("mtu");
    if (!FabricCli::ParseUnsigned(mtu, v)
        || (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096))
    {
        o.Fail("--mtu=" + mtu + ": the IBTA path MTU is one of 256, 512, 1024, 2048, 4096");
    }
    cfg.mtu = static_cast<uint32_t>(v);
    const std::string& cable = o.Get("cableMeters");
    if (!FabricCli::ParseUnsigned(cable, v) || v > 100000)
    {
        o.Fail("--cableMeters=" + cable + ": expected whole metres, at most 100000");
    }
    cfg.cable = NanoSeconds(5 * v);
    if (!FabricCli::ParseBytes(o.Get("buffer"), cfg.bufferBytes))
    {
        o.Fail("--buffer=" + o.Get("buffer") + ": expected a byte count (e.g. 42M)");
    }
    cfg.pfc = o.GetFlag("pfc");
    cfg.ecn = o.GetFlag("ecn");
    cfg.dcqcn = o.GetFlag("dcqcn");
    if (!o.IsGiven("dcqcn") && !RdmaCcRegistration::RunsOn("dcqcn", fabric))
    {
        cfg.dcqcn = false; // the example's DCQCN default is RoCEv2's; --ibcc is IB's
    }
    const std::string& preset = o.Get("preset");
    if (RdmaCcDcqcn::GetPreset(preset).empty())
    {
        o.Fail("--preset=" + preset + ": expected connectx or paper");
    }
    cfg.dcqcnPreset = preset;
    cfg.ibcc = o.GetFlag("ibcc");
    if (!o.Get("cc").empty())
    {
        const std::string cc = FabricCli::CongestionControl(
            p, o.Get("cc"), fabric, cfg.dcqcn, o.IsGiven("dcqcn"), cfg.ibcc, o.IsGiven("ibcc"));
        cfg.dcqcn = cc == "dcqcn";
        cfg.ibcc = cc == "ibcc";
        cfg.cc = cfg.dcqcn || cfg.ibcc || cc == "none" ? "" : cc;
    }
    const std::string& threshold = o.Get("ccThreshold");
    if (!FabricCli::ParseUnsigned(threshold, v) || v == 0 || v > 15)
    {
        o.Fail("--ccThreshold=" + threshold + ": expected 1 to 15");
    }
    cfg.ibccThreshold = static_cast<uint32_t>(v);
    uint64_t kmin = 0;
    uint64_t kmax = 0;
    if (!FabricCli::ParseBytes(o.Get("kmin"), kmin) || kmin > UINT32_MAX)
    {
        o.Fail("--kmin=" + o.Get("kmin") + ": expected a byte count (e.g. 5K)");
    }
    if (!FabricCli::ParseBytes(o.Get("kmax"), kmax) || kmax > UINT32_MAX)
    {
        o.Fail("--kmax=" + o.Get("kmax") + ": expected a byte count (e.g. 200K)");
    }
    cfg.ecnKmin = static_cast<uint32_t>(kmin);
    cfg.ecnKmax = static_cast<uint32_t>(kmax);
    const std::string& pmaxText = o.Get("pmax");
    char* end = nullptr;
    const double pmax = std::strtod(pmaxText.c_str(), &end);
    if (pmaxText.empty() || end != pmaxText.c_str() + pmaxText.size()
        || !(pmax >= 0.0 && pmax <= 1.0))
    {
        o.Fail("--pmax=" + pmaxText + ": expected a probability in [0, 1]");
    }
    cfg.ecnPmax = pmax;
    Time interval;
    const std::string& intervalText = o.Get("interval");
    if (!FabricCli::ParseTime(intervalText, interval) || !interval.IsStrictlyPositive())
    {
        o.Fail("--interval=" + intervalText + ": expected a positive time such as 1us");
    }
    m_trace = o.Get("trace");
    m_json = o.Get("json");
    m_plot = o.Get("plot");
    if (!m_trace.empty() || !m_plot.empty() || cfg.sampleInterval.IsStrictlyPositive())
    {
        cfg.sampleInterval = interval; // asked for, or the example samples anyway
    }
    const std::string error = RoceFlowScenario::Check(cfg);
    if (!error.empty())
    {
        o.Fail(error);
    }
    // Both files are checked and created before anything runs, renamed at the end.
    if (!m_trace.empty())
    {
        std::string why;
        if (!m_traceFile.Open(m_trace + ".csv", why))
        {
            o.Fail("--trace=" + m_trace + ": cannot write " + m_trace + ".csv: " + why);
        }
    }
    if (!m_plot.empty())
    {
        const std::string why = FabricPlot::Prepare(m_plot);
        if (!why.empty())
        {
            o.Fail("--plot=" + m_plot + ": " + why);
        }
    }
    if (!m_json.empty())
    {
        m_jsonFile.OpenOrFail(p, "json", m_json);
    }
}

bool
RoceScenarioCli::WantsTrace() const
{
    return !m_trace.empty();
}

bool
RoceScenarioCli::WriteOutputs(const RoceFlowScenarioResult& r, nlohmann::ordered_json head)
{
    std::string error;
    if (m_traceFile.IsOpen())
    {
        RoceFlowScenario::WriteCsv(r, m_traceFile.Stream());
        if (!m_traceFile.Commit(error))
        {
            std::cerr << m_program << ": " << error << std::endl;
            return false;
        }
    }
    if (m_json.empty() && m_plot.empty())
    {
        return true;
    }
    nlohmann::ordered_json j = std::move(head);
    const nlohmann::ordered_json tail = RoceFlowScenario::ToJson(r);
    for (const auto& [key, value] : tail.items())
    {
        j[key] = value;
    }
    if (!m_json.empty() && !m_jsonFile.CommitJson(m_program, j))
    {
        return false;
    }
    if (!m_plot.empty())
    {
        const std::string why = FabricPlot::Write(j, m_plot);
        if (!why.empty())
        {
            std::cerr << m_program << ": --plot=" << m_plot << ": " << why << std::endl;
            return false;
        }
    }
    return true;
}

} // namespace ns3
