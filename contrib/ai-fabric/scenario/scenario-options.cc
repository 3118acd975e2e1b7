/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "scenario-options.h"

#include "fabric-cli.h"
#include "ns3/abort.h"
#include "ns3/collective-algorithm.h"
#include "ns3/command-line.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-watchdog.h"

namespace ns3
{

namespace
{
/**
 * \param names some names
 * \param last the word before the last one ("or")
 * \return "a, b or c"
 */
std::string
Join(const std::vector<std::string>& names, const std::string& last)
{
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        text += (i == 0 ? "" : i + 1 == names.size() ? " " + last + " " : ", ") + names[i];
    }
    return text;
}
} // namespace

ScenarioOptions::ScenarioOptions(std::string program)
    : m_program(std::move(program))
{
}

const std::vector<ScenarioOptions::Declaration>&
ScenarioOptions::Catalogue()
{
    // Built on first use: the fabrics, congestion controls and collective algorithms named
    // in the help have registered themselves by then (static initialization).
    static const std::vector<Declaration> catalogue = []()
    {
        std::vector<std::string> fabrics;
        for (const std::string& name : FabricHelperRegistration::Names())
        {
            fabrics.push_back(name + " (" + FabricHelper::CreateByName(name)->GetDisplayName()
                              + ")");
        }
        const std::vector<std::string> algorithms = CollectiveAlgorithmRegistration::Names();
        return std::vector<Declaration>{
            {"fabric", "the fabric: " + Join(fabrics, "or"), "roce", false},
            {"cc", FabricCli::CongestionControlHelp(), "", false},
            {"dcqcn", "DCQCN congestion control at the NICs (roce only)", "true", true},
            {"ibcc",
             "InfiniBand congestion control: FECN at switches, BECN and CCT at the adapters "
             "(ib only; off by default, as in most deployments)",
             "false",
             true},
            {"preset",
             "DCQCN parameters: connectx (firmware defaults) or paper (SIGCOMM 2015)",
             "connectx",
             false},
            {"collective",
             "allreduce, allgather, reducescatter, broadcast or alltoall",
             "allreduce",
             false},
            {"algo",
             "collective algorithm: auto (the tuner's choice per size, on a fat-tree) or one "
             "that runs the collective: "
                 + Join(algorithms, "or") + " (the manual describes each)",
             "auto",
             false},
            {"minBytes", "smallest size, K/M/G suffixes (nccl-tests -b)", "1M", false},
            {"maxBytes", "largest size (nccl-tests -e)", "32M", false},
            {"stepFactor", "size multiplier between rows (nccl-tests -f)", "2", false},
            {"iters", "timed iterations per size (nccl-tests -n)", "5", false},
            {"warmup", "untimed iterations per size first (nccl-tests -w)", "1", false},
            {"channels", "channels (NCCL's nChannels), each with its own QPs", "1", false},
            {"servers", "servers", "16", false},
            {"radix", "ports per switch", "8", false},
            {"failures",
             "failures to inject: link:A-B@T, switch:S@T, nic:G@T, flap:A-B@T,period=P,"
             "count=N, ber:A-B@T,rate=R, up@T, separated by ';' (or a .json file); the "
             "sweep runs without them first, for the slowdown",
             "",
             false},
            {"mode",
             "the engine: packet (every packet through ports and switches) or flow (each "
             "transfer a flow on the same path, links shared max-min fairly; a one-line "
             "warning where flows converge on a switch port beyond what it models; the manual "
             "gives its error against packet)",
             "packet",
             false},
            {"json", "write the results as JSON to this file", "", false},
            {"pcap", "write a pcap per NIC port with this prefix", "", false},
            {"quiet", "no progress line on stderr", "false", true},
            {"jobs",
             "independent runs at once, each in a child process of its own (1 to 256); the "
             "output is the same as with 1",
             "1",
             false},
        };
    }();
    return catalogue;
}

ScenarioOptions::Option&
ScenarioOptions::Declare(const Declaration& declaration)
{
    NS_ABORT_MSG_IF(m_index.count(declaration.name),
                    "--" << declaration.name << " is declared twice");
    m_index[declaration.name] = m_options.size();
    m_options.push_back({declaration, declaration.defaultValue, false, false});
    return m_options.back();
}

void
ScenarioOptions::Use(const std::string& name)
{
    for (const Declaration& d : Catalogue())
    {
        if (d.name == name)
        {
            Declare(d);
            return;
        }
    }
    NS_ABORT_MSG("--" << name << " is not in the catalogue of shared flags");
}

void
ScenarioOptions::Use(const std::string& name,
                     const std::string& defaultValue,
                     const std::string& note)
{
    Use(name);
    Option& o = m_options.back();
    o.declaration.defaultValue = defaultValue;
    if (!note.empty())
    {
        o.declaration.help += " (" + note + ")";
    }
    o.value = defaultValue;
}

void
ScenarioOptions::UseFabricOption(const std::string& name)
{
    for (const std::string& fabric : FabricHelperRegistration::Names())
    {
        for (const FabricHelper::Option& o : FabricHelper::CreateByName(fabric)->GetOptions())
        {
            if (o.name == name)
            {
                Declare({o.name, o.help, o.defaultValue, o.flag}).fabric = true;
                return;
            }
        }
    }
    NS_ABORT_MSG("--" << name << " is no fabric's option");
}

void
ScenarioOptions::UseFabricOption(const std::string& name, const std::string& defaultValue)
{
    UseFabricOption(name);
    Option& o = m_options.back();
    o.declaration.defaultValue = defaultValue;
    o.value = defaultValue;
}

void
ScenarioOptions::Add(const std::string& name,
                     const std::string& help,
                     const std::string& defaultValue)
{
    Declare({name, help, defaultValue, false});
}

void
ScenarioOptions::AddFlag(const std::string& name, const std::string& help, bool defaultValue)
{
    Declare({name, help, defaultValue ? "true" : "false", true});
}

bool
ScenarioOptions::Store(Option* option, std::string value)
{
    option->given = true;
    if (option->declaration.flag && value.empty())
    {
        // A bare flag toggles, as ns-3's CommandLine does for every bool.
        option->value = option->value == "true" ? "false" : "true";
    }
    else if (option->declaration.flag)
    {
        // FabricCli::CheckKnownOptions let only these through.
        option->value = value == "true" || value == "1" ? "true" : "false";
    }
    else
    {
        option->value = value;
    }
    return true;
}

void
ScenarioOptions::SetWatchdog(bool on)
{
    m_watchdog = on;
}

void
ScenarioOptions::Parse(int argc, char* argv[], const std::string& usage)
{
    std::vector<std::string> known;
    if (m_watchdog)
    {
        known = {"maxEvents", "maxWallTime"};
    }
    std::vector<std::string> flags;
    for (const Option& o : m_options)
    {
        known.push_back(o.declaration.name);
        if (o.declaration.flag)
        {
            flags.push_back(o.declaration.name);
        }
    }
    FabricWatchdog::SetProgramName(m_program);
    FabricCli::CheckKnownOptions(m_program, argc, argv, known, flags);
    CommandLine cmd(m_program);
    cmd.Usage(usage);
    for (Option& o : m_options)
    {
        cmd.AddValue(o.declaration.name,
                     o.declaration.help,
                     MakeBoundCallback(&ScenarioOptions::Store, &o),
                     o.declaration.defaultValue);
    }
    if (m_watchdog)
    {
        FabricWatchdog::AddCommandLine(cmd);
    }
    cmd.Parse(argc, argv);
}

const std::string&
ScenarioOptions::GetProgram() const
{
    return m_program;
}

bool
ScenarioOptions::Has(const std::string& name) const
{
    return m_index.count(name) > 0;
}

const ScenarioOptions::Option&
ScenarioOptions::Find(const std::string& name) const
{
    const auto it = m_index.find(name);
    NS_ABORT_MSG_IF(it == m_index.end(), "--" << name << " was not declared");
    return m_options[it->second];
}

const std::string&
ScenarioOptions::Get(const std::string& name) const
{
    return Find(name).value;
}

bool
ScenarioOptions::GetFlag(const std::string& name) const
{
    const Option& o = Find(name);
    NS_ABORT_MSG_IF(!o.declaration.flag, "--" << name << " is not a boolean flag");
    return o.value == "true";
}

bool
ScenarioOptions::IsGiven(const std::string& name) const
{
    return Find(name).given;
}

void
ScenarioOptions::SetDefault(const std::string& name, const std::string& value)
{
    if (!IsGiven(name))
    {
        Set(name, value);
    }
}

void
ScenarioOptions::Set(const std::string& name, const std::string& value)
{
    Find(name); // declared
    m_options[m_index.at(name)].value = value;
}

void
ScenarioOptions::Fail(const std::string& message) const
{
    FabricCli::Fail(m_program, message);
}

uint32_t
ScenarioOptions::Whole(const std::string& name, uint64_t lo, uint64_t hi) const
{
    return FabricCli::Whole(m_program, name, Get(name), lo, hi);
}

uint64_t
ScenarioOptions::Bytes(const std::string& name) const
{
    return FabricCli::Bytes(m_program, name, Get(name));
}

DataRate
ScenarioOptions::LinkRate(const std::string& name) const
{
    return FabricCli::LinkRate(m_program, name, Get(name));
}

bool
ScenarioOptions::Bool(const std::string& name) const
{
    bool value = false;
    if (!FabricCli::ParseBool(Get(name), value))
    {
        Fail("--" + name + "=" + Get(name) + ": expected true or false");
    }
    return value;
}

std::vector<std::pair<std::string, std::string>>
ScenarioOptions::GetFabricOptions() const
{
    std::vector<std::pair<std::string, std::string>> options;
    for (const Option& o : m_options)
    {
        if (o.fabric)
        {
            options.emplace_back(o.declaration.name, o.value);
        }
    }
    return options;
}

} // namespace ns3
