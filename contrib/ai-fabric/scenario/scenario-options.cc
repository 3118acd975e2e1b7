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
#include "ns3/global-value.h"
#include "ns3/string.h"

#include <algorithm>
#include <fstream>
#include <sstream>

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

std::string
ScenarioOptions::JoinNames(const std::vector<std::string>& names, const std::string& last)
{
    return Join(names, last);
}

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
            {"protocol",
             "NCCL protocol: auto (the tuner's choice per size, with the algorithm), simple, "
             "ll or ll128 (NVLS and NVLSTree run with simple only)",
             "auto",
             false},
            {"minBytes", "smallest size, K/M/G suffixes (nccl-tests -b)", "1M", false},
            {"maxBytes", "largest size (nccl-tests -e)", "32M", false},
            {"stepFactor", "size multiplier between rows (nccl-tests -f)", "2", false},
            {"iters", "timed iterations per size (nccl-tests -n)", "5", false},
            {"warmup", "untimed iterations per size first (nccl-tests -w)", "1", false},
            {"channels", "channels (NCCL's nChannels), each with its own QPs", "1", false},
            {"pxn",
             "NCCL's PXN: an all-to-all's transfers to another server leave by the NIC "
             "serving the destination's GPU index, relayed over NVLink (NCCL_PXN_DISABLE=0, "
             "NCCL's default); false: by the sender's own NIC",
             "true",
             true},
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
            {"plot",
             "write figures of the results to this directory (created if missing): PNG and "
             "SVG rendered by gnuplot, each with its data file and script",
             "",
             false},
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

namespace
{

/// The flags Parse() took (GetRunFlags()).
nlohmann::ordered_json g_runFlags = nlohmann::ordered_json::object();
/// The program that called Parse().
std::string g_runProgram;

/// Flags that name output files, and --jobs (the same output with any): not the scenario's.
bool
IsOutputFlag(const std::string& name)
{
    return name == "json" || name == "pcap" || name == "plot" || name == "timeline"
           || name == "jobs";
}

/**
 * \param arg an argument ("--name=value", "--name" or "-name...")
 * \param name filled: the name
 * \param value filled: the value (empty if none)
 * \return true if it has a value
 */
bool
SplitArg(std::string arg, std::string& name, std::string& value)
{
    if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0)
    {
        arg = "-" + arg;
    }
    const std::size_t equals = arg.find('=');
    name = arg.substr(std::min<std::size_t>(2, arg.size()), equals - 2);
    value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    return equals != std::string::npos;
}

/**
 * \param program the program
 * \param path a scenario file
 * \param out filled: its flags as "--name=value", in the file's order
 */
void
ReadScenario(const std::string& program, const std::string& path, std::vector<std::string>& out)
{
    const std::string what = "--scenario=" + path;
    if (path.empty())
    {
        FabricCli::Fail(program, "--scenario: expected a JSON file (--scenario=FILE)");
    }
    std::ifstream in(path);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf()))
    {
        FabricCli::Fail(program, what + ": cannot read it");
    }
    nlohmann::ordered_json j;
    try
    {
        j = nlohmann::ordered_json::parse(text.str());
    }
    catch (const nlohmann::json::exception& e)
    {
        std::string why = e.what();
        std::replace(why.begin(), why.end(), '\n', ' ');
        FabricCli::Fail(program, what + ": not JSON (" + why + ")");
    }
    const nlohmann::ordered_json* holder = nullptr;
    if (j.is_object() && j.contains("flags"))
    {
        holder = &j;
    }
    else if (j.is_object() && j.contains("scenario") && j["scenario"].is_object()
             && j["scenario"].contains("flags"))
    {
        holder = &j["scenario"];
    }
    if (!holder || !(*holder)["flags"].is_object())
    {
        FabricCli::Fail(program,
                        what + ": expected an object with a \"flags\" object (or scenario.flags, "
                               "as a --json result holds them)");
    }
    if (holder->contains("program"))
    {
        const nlohmann::ordered_json& p = (*holder)["program"];
        if (!p.is_string() || p.get<std::string>() != program)
        {
            FabricCli::Fail(program,
                            what + ": written for "
                                + (p.is_string() ? p.get<std::string>() : p.dump()) + ", not "
                                + program);
        }
    }
    for (const auto& [name, value] : (*holder)["flags"].items())
    {
        std::string text;
        if (value.is_string())
        {
            text = value.get<std::string>();
        }
        else if (value.is_boolean())
        {
            text = value.get<bool>() ? "true" : "false";
        }
        else if (value.is_number())
        {
            text = value.dump();
        }
        else
        {
            FabricCli::Fail(program,
                            what + ": flag \"" + name
                                + "\": expected a string, a number or a boolean, not "
                                + value.type_name());
        }
        if (name.empty() || name == "scenario" || name.find('=') != std::string::npos
            || name.rfind("-", 0) == 0)
        {
            FabricCli::Fail(program,
                            what + ": flag \"" + name
                                + "\": expected a flag's name without dashes (and not scenario)");
        }
        out.push_back("--" + name + "=" + text);
    }
}

} // namespace

std::vector<std::string>
ScenarioOptions::ExpandScenario(const std::string& program,
                                int argc,
                                char* argv[],
                                std::vector<std::string>* origin)
{
    std::vector<std::string> args;
    args.emplace_back(argc > 0 ? argv[0] : program);
    std::vector<std::string> from(1);
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        const bool hasValue = SplitArg(argv[i], name, value);
        if (name == "scenario" && std::string(argv[i]).rfind("-", 0) == 0)
        {
            const std::string path = hasValue ? value : "";
            ReadScenario(program, path, args);
            from.resize(args.size(), path);
        }
        else
        {
            args.emplace_back(argv[i]);
            from.emplace_back();
        }
    }
    if (origin)
    {
        *origin = from;
    }
    return args;
}

const nlohmann::ordered_json&
ScenarioOptions::GetRunFlags()
{
    return g_runFlags;
}

const std::string&
ScenarioOptions::GetRunProgram()
{
    return g_runProgram;
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
    // A scenario file's flags in its place; its names checked here, to say where they were.
    std::vector<std::string> origin;
    std::vector<std::string> args = ExpandScenario(m_program, argc, argv, &origin);
    for (std::size_t i = 1; i < args.size(); ++i)
    {
        std::string name;
        std::string value;
        SplitArg(args[i], name, value);
        if (!origin[i].empty() && std::find(known.begin(), known.end(), name) == known.end()
            && name.find("::") == std::string::npos)
        {
            StringValue global;
            if (!GlobalValue::GetValueByNameFailSafe(name, global))
            {
                Fail("--scenario=" + origin[i] + ": unknown flag \"" + name + "\" (see --help)");
            }
        }
    }
    std::vector<char*> expanded;
    for (std::string& a : args)
    {
        expanded.push_back(a.data());
    }
    const int n = static_cast<int>(expanded.size());
    expanded.push_back(nullptr);
    FabricCli::CheckKnownOptions(m_program, n, expanded.data(), known, flags);
    CommandLine cmd(m_program);
    cmd.Usage(usage);
    for (Option& o : m_options)
    {
        cmd.AddValue(o.declaration.name,
                     o.declaration.help,
                     MakeBoundCallback(&ScenarioOptions::Store, &o),
                     o.declaration.defaultValue);
    }
    std::string scenario;
    cmd.AddValue("scenario",
                 "read flags from this JSON file, in its place on the command line (later flags "
                 "win): {\"flags\": {\"name\": value, ...}}, or a --json result (its "
                 "scenario.flags: the same run again)",
                 scenario);
    if (m_watchdog)
    {
        FabricWatchdog::AddCommandLine(cmd);
    }
    cmd.Parse(n, expanded.data());
    // What was given, for the JSON outputs (scenario.flags).
    g_runProgram = m_program;
    g_runFlags = nlohmann::ordered_json::object();
    for (std::size_t i = 1; i < args.size(); ++i)
    {
        std::string name;
        std::string value;
        SplitArg(args[i], name, value);
        if (IsOutputFlag(name))
        {
            continue;
        }
        const auto it = m_index.find(name);
        if (it == m_index.end())
        {
            g_runFlags[name] = value; // an attribute, a global value or a watchdog limit
            continue;
        }
        const Option& o = m_options[it->second];
        if (o.declaration.flag)
        {
            g_runFlags[name] = o.value == "true";
        }
        else
        {
            g_runFlags[name] = o.value;
        }
    }
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
