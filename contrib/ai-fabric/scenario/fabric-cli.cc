/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-cli.h"

#include "fabric-output-file.h"
#include "ns3/config.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/fault-schedule.h"
#include "ns3/global-value.h"
#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#endif
#include "ns3/rdma-congestion-control.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace ns3
{

template<>
bool
CommandLineHelper::UserItemParse<std::string>(const std::string& value, std::string& dest)
{
    dest = value;
    return true;
}

void
FabricCli::Fail(const std::string& program, const std::string& message)
{
    if (IsMainRank()) // every rank reads the same flags: one line, from rank 0
    {
        std::cerr << program << ": " << message << std::endl;
    }
    std::exit(2);
}

void
FabricCli::StartMpi(int* argc, char*** argv)
{
#ifdef NS3_MPI
    // Started by a launcher (Open MPI's mpirun, a PMI/PMIx one such as Slurm's srun, MPICH's).
    bool launched = false;
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    {
        launched = launched || std::getenv(variable) != nullptr;
    }
    if (!launched || MpiInterface::IsEnabled())
    {
        return;
    }
    MpiInterface::Enable(argc, argv);
    // MpiInterface::Enable() chose ns-3's distributed simulator: ai-fabric's runs across ranks.
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    std::atexit(
        []()
        {
            if (MpiInterface::IsEnabled())
            {
                std::fflush(stdout);
                MpiInterface::Disable();
            }
        });
    if (MpiInterface::GetSystemId() != 0)
    {
        // Rank 0 prints the run's tables and writes its files.
        if (!std::freopen("/dev/null", "w", stdout))
        {
            std::perror("/dev/null");
        }
    }
#else
    (void) argc;
    (void) argv;
#endif
}

bool
FabricCli::IsMainRank()
{
#ifdef NS3_MPI
    return !MpiInterface::IsEnabled() || MpiInterface::GetSystemId() == 0;
#else
    return true;
#endif
}

uint32_t
FabricCli::GetRanks()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

namespace
{
/**
 * \brief Is this an ns-3 time, as ns-3.37's Time(std::string) reads it: a decimal number and
 *        an optional unit (s, ms, us, ns, ps, fs, min, h, d, y; none means seconds)? ns-3
 *        aborts on any other unit, so the text is checked here first.
 * \param text the value
 * \return false if ns-3 would not read it, or it does not fit in a Time
 */
bool
IsTime(const std::string& text)
{
    static const std::pair<const char*, double> units[] = {{"s", 1.0},
                                                           {"ms", 1e-3},
                                                           {"us", 1e-6},
                                                           {"ns", 1e-9},
                                                           {"ps", 1e-12},
                                                           {"fs", 1e-15},
                                                           {"min", 60.0},
                                                           {"h", 3600.0},
                                                           {"d", 86400.0},
                                                           {"y", 365.0 * 86400.0}};
    const std::size_t n = text.find_first_not_of("+-0123456789.eE");
    const std::string number = text.substr(0, n);
    const std::string unit = n == std::string::npos ? "s" : text.substr(n);
    if (number.empty())
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(number.c_str(), &end);
    if (errno != 0 || end != number.c_str() + number.size())
    {
        return false;
    }
    for (const auto& [name, scale] : units)
    {
        if (unit == name)
        {
            return std::abs(v * scale) <= Time::Max().GetSeconds();
        }
    }
    return false;
}

/**
 * \brief Would ns-3 parse this text as a value of this checker's type without aborting?
 *        ns-3.37 aborts on a malformed value instead of failing, even in its fail-safe setters
 *        (attribute-helper's DeserializeFromString aborts on what operator>> leaves unread,
 *        Time(std::string) on an unknown unit, TypeId::LookupByName on an unknown name); the
 *        range is then checked by ns-3's own checker.
 * \param checker the attribute's checker
 * \param text the value
 * \return false if the text cannot be a value of that type
 */
bool
IsWellFormed(Ptr<const AttributeChecker> checker, const std::string& text)
{
    const std::string type = checker->GetValueTypeName();
    if (type == "ns3::StringValue")
    {
        return true;
    }
    if (text.empty()
        || std::any_of(text.begin(),
                       text.end(),
                       [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    {
        return false; // ns-3's operator>> would stop at the blank, then abort
    }
    uint64_t u = 0;
    if (type == "ns3::UintegerValue")
    {
        return FabricCli::ParseUnsigned(text, u);
    }
    if (type == "ns3::IntegerValue")
    {
        return FabricCli::ParseUnsigned(text[0] != '-' ? text : text.substr(1), u)
               && u <= static_cast<uint64_t>(INT64_MAX);
    }
    if (type == "ns3::DoubleValue")
    {
        char* end = nullptr;
        errno = 0;
        std::strtod(text.c_str(), &end);
        return errno == 0 && text.find_first_not_of("+-0123456789.eE") == std::string::npos
               && end == text.c_str() + text.size();
    }
    if (type == "ns3::BooleanValue")
    {
        bool b = false;
        return FabricCli::ParseBool(text, b);
    }
    if (type == "ns3::TimeValue")
    {
        return IsTime(text);
    }
    if (type == "ns3::DataRateValue")
    {
        DataRateValue rate;
        return std::isdigit(static_cast<unsigned char>(text[0]))
               && rate.DeserializeFromString(text, MakeDataRateChecker());
    }
    if (type == "ns3::TypeIdValue" || type == "ns3::ObjectFactoryValue")
    {
        TypeId tid;
        return TypeId::LookupByNameFailSafe(text, &tid); // no "[Attribute=...]" part
    }
    // Neither a pointer nor a container can be given as text (ns-3 aborts on them).
    return type != "ns3::PointerValue" && type != "ns3::ObjectPtrContainerValue"
           && type != "ns3::CallbackValue";
}

/**
 * \param checker an attribute's or global value's checker
 * \return what a value of its type looks like, for a message
 */
std::string
ExpectedOf(Ptr<const AttributeChecker> checker)
{
    const std::string type = checker->GetValueTypeName();
    if (type == "ns3::TimeValue")
    {
        return "a time such as 5ns, 1.5us or 2ms";
    }
    if (type == "ns3::DataRateValue")
    {
        return "a rate such as 400Gbps";
    }
    if (type == "ns3::BooleanValue")
    {
        return "true or false";
    }
    if (type == "ns3::UintegerValue" || type == "ns3::IntegerValue" || type == "ns3::DoubleValue")
    {
        return "a number (" + checker->GetUnderlyingTypeInformation() + ")";
    }
    if (type == "ns3::TypeIdValue" || type == "ns3::ObjectFactoryValue")
    {
        return "a TypeId name (--PrintTypeIds lists them)";
    }
    if (type == "ns3::EnumValue")
    {
        return "one of " + checker->GetUnderlyingTypeInformation();
    }
    return "a value of type " + checker->GetUnderlyingTypeInformation();
}

/**
 * \param name a TypeId name
 * \param base the class it must derive from
 * \return true if it names such a class
 */
bool
IsTypeOf(const std::string& name, TypeId base)
{
    TypeId tid;
    return TypeId::LookupByNameFailSafe(name, &tid) && tid.IsChildOf(base) && tid.HasConstructor();
}

/**
 * \param group a group name
 * \return true if some TypeId belongs to it
 */
bool
IsGroup(const std::string& group)
{
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        if (TypeId::GetRegistered(i).GetGroupName() == group)
        {
            return true;
        }
    }
    return false;
}

/**
 * \param name a global value's name
 * \return its checker, or nullptr
 */
Ptr<const AttributeChecker>
GlobalChecker(const std::string& name)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            return (*it)->GetChecker();
        }
    }
    return nullptr;
}

/**
 * \param path "ns3::Type::Attribute"
 * \return the attribute's checker, or nullptr
 */
Ptr<const AttributeChecker>
AttributeCheckerOf(const std::string& path)
{
    const std::size_t colon = path.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (colon == std::string::npos || !TypeId::LookupByNameFailSafe(path.substr(0, colon), &tid)
        || !tid.LookupAttributeByName(path.substr(colon + 2), &info))
    {
        return nullptr;
    }
    return info.checker;
}
} // namespace

void
FabricCli::CheckKnownOptions(const std::string& program,
                             int argc,
                             char** argv,
                             const std::vector<std::string>& known,
                             const std::vector<std::string>& booleans)
{
    // CommandLine's options that take no value, and those that need one.
    static const std::vector<std::string> valueless = {"help",
                                                       "PrintHelp",
                                                       "PrintGlobals",
                                                       "PrintGroups",
                                                       "PrintTypeIds",
                                                       "PrintVersion",
                                                       "version"};
    // ai-fabric's scheduler, which --SchedulerType below (or CommandLine later) overrides.
    FabricWatchdog::UseDefaultScheduler();
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0 && arg.size() > 1)
        {
            arg = "-" + arg; // CommandLine also takes "-name"
        }
        if (arg.rfind("--", 0) != 0)
        {
            Fail(program,
                 "unexpected argument '" + arg + "' (options are --name=value; see --help)");
        }
        const std::size_t equals = arg.find('=');
        const std::string name = arg.substr(2, equals - 2);
        const bool hasValue = equals != std::string::npos;
        const std::string value = hasValue ? arg.substr(equals + 1) : "";
        const bool isFlag = std::find(booleans.begin(), booleans.end(), name) != booleans.end();
        const bool isOwn = std::find(known.begin(), known.end(), name) != known.end();
        const bool isValueless
            = std::find(valueless.begin(), valueless.end(), name) != valueless.end();
        bool flag = false;
        if (isFlag && hasValue && !ParseBool(value, flag))
        {
            Fail(program, "--" + name + "=" + value + ": expected true or false");
        }
        // The watchdog's limits (FabricWatchdog::AddCommandLine), checked here: ns-3 aborts
        // on a malformed attribute value.
        uint64_t events = 0;
        Time wall;
        if (name == "maxEvents" && !ParseUnsigned(value, events))
        {
            Fail(program, "--maxEvents=" + value + ": expected a whole number of events (0: none)");
        }
        if (name == "maxWallTime" && (!ParseTime(value, wall) || wall.IsStrictlyNegative()))
        {
            Fail(program,
                 "--maxWallTime=" + value + ": expected a time with its unit, e.g. 30s or 500ms "
                 "(0s: none)");
        }
        if (isFlag || isValueless)
        {
            continue;
        }
        const bool knownName = isOwn || name == "PrintGroup" || name == "PrintAttributes"
                               || name.find("::") != std::string::npos || GlobalChecker(name);
        if (!knownName)
        {
            Fail(program, "unknown option --" + name + " (see --help)");
        }
        if (value.empty())
        {
            Fail(program,
                 "--" + name + (hasValue ? "=" : "") + ": expected a value (--" + name
                     + "=VALUE; see --help)");
        }
        if (isOwn)
        {
            continue;
        }
        if (name == "PrintAttributes")
        {
            TypeId tid;
            if (!TypeId::LookupByNameFailSafe(value, &tid))
            {
                Fail(program,
                     "--PrintAttributes=" + value + ": no such TypeId (--PrintTypeIds lists them)");
            }
            continue;
        }
        if (name == "PrintGroup")
        {
            if (!IsGroup(value))
            {
                Fail(program,
                     "--PrintGroup=" + value + ": no such group (--PrintGroups lists them)");
            }
            continue;
        }
        // ns-3's own options: check their values here, so that a bad one is one line too.
        if (name.find("::") != std::string::npos)
        {
            Ptr<const AttributeChecker> checker = AttributeCheckerOf(name);
            if (!checker)
            {
                Fail(program, "--" + name + ": no such attribute (see --PrintAttributes=TYPE)");
            }
            if (!IsWellFormed(checker, value)
                || !Config::SetDefaultFailSafe(name, StringValue(value)))
            {
                Fail(program, "--" + name + "=" + value + ": expected " + ExpectedOf(checker));
            }
            continue;
        }
        Ptr<const AttributeChecker> checker = GlobalChecker(name);
        uint64_t seed = 0;
        if (name == "RngSeed" && (!ParseUnsigned(value, seed) || seed == 0 || seed > UINT32_MAX))
        {
            Fail(program, "--RngSeed=" + value + ": expected a whole number from 1 to 4294967295");
        }
        if (name == "SimulatorImplementationType"
            && !IsTypeOf(value, TypeId::LookupByName("ns3::SimulatorImpl")))
        {
            Fail(program,
                 "--SimulatorImplementationType=" + value
                     + ": not a simulator implementation (e.g. ns3::DefaultSimulatorImpl)");
        }
        if (name == "SchedulerType" && !IsTypeOf(value, TypeId::LookupByName("ns3::Scheduler")))
        {
            Fail(program,
                 "--SchedulerType=" + value + ": not a scheduler (e.g. ns3::MapScheduler)");
        }
        if (!IsWellFormed(checker, value) || !GlobalValue::BindFailSafe(name, StringValue(value)))
        {
            Fail(program, "--" + name + "=" + value + ": expected " + ExpectedOf(checker));
        }
    }
}

bool
FabricCli::IsGiven(int argc, char* argv[], const std::string& name)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--" + name || arg.rfind("--" + name + "=", 0) == 0 || arg == "-" + name
            || arg.rfind("-" + name + "=", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

bool
FabricCli::IsWritablePrefix(const std::string& prefix)
{
    return FabricOutputFile::IsWritablePrefix(prefix);
}

bool
FabricCli::ParseBool(const std::string& text, bool& value)
{
    if (text == "true" || text == "1")
    {
        value = true;
        return true;
    }
    if (text == "false" || text == "0")
    {
        value = false;
        return true;
    }
    return false;
}

bool
FabricCli::ParseUnsigned(const std::string& text, uint64_t& value)
{
    if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit))
    {
        return false;
    }
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE)
    {
        return false;
    }
    value = v;
    return true;
}

bool
FabricCli::ParseBytes(const std::string& text, uint64_t& bytes)
{
    if (text.empty())
    {
        return false;
    }
    uint64_t multiplier = 1;
    std::string digits = text;
    switch (text.back())
    {
    case 'K':
    case 'k':
        multiplier = 1ULL << 10;
        break;
    case 'M':
    case 'm':
        multiplier = 1ULL << 20;
        break;
    case 'G':
    case 'g':
        multiplier = 1ULL << 30;
        break;
    default:
        break;
    }
    if (multiplier != 1)
    {
        digits.pop_back();
    }
    uint64_t v = 0;
    if (!ParseUnsigned(digits, v) || v > UINT64_MAX / multiplier)
    {
        return false;
    }
    bytes = v * multiplier;
    return true;
}

bool
FabricCli::ParseRate(const std::string& text, DataRate& rate)
{
    std::string t = text;
    if (!t.empty() && (t.back() == 'K' || t.back() == 'M' || t.back() == 'G'))
    {
        t += "bps";
    }
    DataRateValue value;
    // A bare number would be bit/s to ns-3; a fabric rate always names its unit. ns-3.37
    // aborts on a blank or a stray character, so only digits, a point, letters and '/' pass.
    const bool plain = std::all_of(
        t.begin(),
        t.end(),
        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '/'; });
    if (t.empty() || !plain || !std::isdigit(static_cast<unsigned char>(t[0]))
        || std::isdigit(t.back()) || !value.DeserializeFromString(t, MakeDataRateChecker()))
    {
        return false;
    }
    rate = value.Get();
    return rate.GetBitRate() >= MIN_RATE_BPS && rate.GetBitRate() <= MAX_RATE_BPS;
}

DataRate
FabricCli::LinkRate(const std::string& program, const std::string& name, const std::string& text)
{
    DataRate rate;
    if (!ParseRate(text, rate)) // checks the range too
    {
        Fail(program,
             "--" + name + "=" + text
                 + ": expected a rate from 1Gbps to 100Tbps, such as 400Gbps or 100G");
    }
    return rate;
}

bool
FabricCli::ParseProbability(const std::string& text, double& value)
{
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !(v >= 0.0 && v < 1.0))
    {
        return false;
    }
    value = v;
    return true;
}

bool
FabricCli::ParseTime(const std::string& text, Time& time)
{
    return FaultSchedule::ParseTime(text, time);
}

uint32_t
FabricCli::Whole(const std::string& program,
                 const std::string& name,
                 const std::string& text,
                 uint64_t lo,
                 uint64_t hi)
{
    uint64_t v = 0;
    if (!ParseUnsigned(text, v) || v < lo || v > hi)
    {
        Fail(program,
             "--" + name + "=" + text + ": expected a whole number from " + std::to_string(lo)
                 + " to " + std::to_string(hi));
    }
    return static_cast<uint32_t>(v);
}

uint64_t
FabricCli::Bytes(const std::string& program, const std::string& name, const std::string& text)
{
    uint64_t v = 0;
    if (!ParseBytes(text, v) || v == 0)
    {
        Fail(program, "--" + name + "=" + text + ": expected a positive size (e.g. 8, 64K, 1G)");
    }
    return v;
}

std::string
FabricCli::CongestionControl(const std::string& program,
                             const std::string& cc,
                             const std::string& fabric,
                             bool dcqcn,
                             bool dcqcnGiven,
                             bool ibcc,
                             bool ibccGiven)
{
    auto runsHere
        = [&fabric](const std::string& name) { return RdmaCcRegistration::RunsOn(name, fabric); };
    if (cc.empty())
    {
        // The aliases: --ibcc asks for IB CC, --dcqcn (on by default) for DCQCN where it runs.
        if (ibcc)
        {
            RdmaCcRegistration::Entry e;
            if (!runsHere("ibcc") && RdmaCcRegistration::Lookup("ibcc", e))
            {
                Fail(program,
                     "--ibcc: IB congestion control runs on --fabric=" + e.fabric + " only");
            }
            return "ibcc";
        }
        return dcqcn && runsHere("dcqcn") ? "dcqcn" : "none";
    }
    RdmaCcRegistration::Entry entry;
    if (!RdmaCcRegistration::Lookup(cc, entry))
    {
        Fail(program,
             "--cc=" + cc + ": expected " + RdmaCcRegistration::Names()
                 + " or the TypeId name of an ns3::RdmaCongestionControl");
    }
    if (!entry.fabric.empty() && entry.fabric != fabric)
    {
        Fail(program, "--cc=" + cc + ": runs on --fabric=" + entry.fabric + " only");
    }
    // The aliases, when given where they apply, must say the same.
    if (dcqcnGiven && runsHere("dcqcn") && dcqcn != (cc == "dcqcn"))
    {
        Fail(program,
             std::string("--dcqcn=") + (dcqcn ? "true" : "false") + " contradicts --cc=" + cc);
    }
    if (ibccGiven && runsHere("ibcc") && ibcc != (cc == "ibcc"))
    {
        Fail(program,
             std::string("--ibcc=") + (ibcc ? "true" : "false") + " contradicts --cc=" + cc);
    }
    return cc;
}

std::string
FabricCli::CongestionControlHelp()
{
    return "congestion control at the NICs: " + RdmaCcRegistration::Names()
           + " or a TypeId name (default: dcqcn on roce, none on ib; --dcqcn and --ibcc are "
             "its aliases)";
}

void
FabricCli::CheckFabric(const std::string& program, const std::string& fabric)
{
    if (FabricHelperRegistration::Find(fabric))
    {
        return;
    }
    const std::vector<std::string> names = FabricHelperRegistration::Names();
    std::string expected;
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    Fail(program, "--fabric=" + fabric + ": expected " + expected);
}

void
FabricCli::ApplyFabricOptions(const std::string& program,
                              FabricHelper& fabric,
                              const std::vector<std::pair<std::string, std::string>>& options)
{
    for (const auto& [name, value] : options)
    {
        if (fabric.HasOption(name))
        {
            const std::string why = fabric.SetOption(name, value);
            if (!why.empty())
            {
                Fail(program, "--" + name + "=" + value + ": " + why);
            }
            continue;
        }
        // Another fabric's option: harmless at its default, refused otherwise.
        for (const std::string& other : FabricHelperRegistration::Names())
        {
            for (const FabricHelper::Option& o : FabricHelper::CreateByName(other)->GetOptions())
            {
                if (o.name == name && value != o.defaultValue)
                {
                    Fail(program,
                         "--" + name + "=" + value + ": an option of --fabric=" + other + " only");
                }
            }
        }
    }
}

} // namespace ns3
