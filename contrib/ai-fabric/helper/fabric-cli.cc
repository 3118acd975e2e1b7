/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-cli.h"

#include "fabric-output-file.h"
#include "ns3/config.h"
#include "ns3/fault-schedule.h"
#include "ns3/global-value.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cerrno>
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
    std::cerr << program << ": " << message << std::endl;
    std::exit(2);
}

namespace
{
/**
 * \brief Would ns-3 parse this text as a value of this checker's type? (ns-3.37 aborts on a
 * malformed number instead of failing, even in its fail-safe setters.)
 * \param checker the attribute's checker
 * \param text the value
 * \return false if the text cannot be a value of that type
 */
bool
IsWellFormed(Ptr<const AttributeChecker> checker, const std::string& text)
{
    const std::string type = checker->GetValueTypeName();
    uint64_t u = 0;
    if (type == "ns3::UintegerValue")
    {
        return FabricCli::ParseUnsigned(text, u);
    }
    if (type == "ns3::IntegerValue")
    {
        return FabricCli::ParseUnsigned(text.empty() || text[0] != '-' ? text : text.substr(1), u);
    }
    if (type == "ns3::DoubleValue")
    {
        char* end = nullptr;
        std::strtod(text.c_str(), &end);
        return !text.empty() && end == text.c_str() + text.size();
    }
    if (type == "ns3::BooleanValue")
    {
        bool b = false;
        return FabricCli::ParseBool(text, b);
    }
    return true;
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
    static const std::vector<std::string> builtin = {"help",
                                                     "PrintHelp",
                                                     "PrintGlobals",
                                                     "PrintGroups",
                                                     "PrintGroup",
                                                     "PrintTypeIds",
                                                     "PrintAttributes",
                                                     "PrintVersion",
                                                     "version"};
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
        bool flag = false;
        if (std::find(booleans.begin(), booleans.end(), name) != booleans.end() && hasValue
            && !ParseBool(value, flag))
        {
            Fail(program, "--" + name + "=" + value + ": expected true or false");
        }
        if (std::find(known.begin(), known.end(), name) != known.end()
            || std::find(builtin.begin(), builtin.end(), name) != builtin.end())
        {
            continue;
        }
        // ns-3's own options: check their values here, so that a bad one is one line too.
        if (name.find("::") != std::string::npos)
        {
            Ptr<const AttributeChecker> checker = AttributeCheckerOf(name);
            if (!checker || !hasValue || !IsWellFormed(checker, value)
                || !Config::SetDefaultFailSafe(name, StringValue(value)))
            {
                Fail(program, "--" + name + ": no such attribute, or a bad value '" + value + "'");
            }
            continue;
        }
        Ptr<const AttributeChecker> checker = GlobalChecker(name);
        if (!checker)
        {
            Fail(program, "unknown option --" + name + " (see --help)");
        }
        if (!hasValue || !IsWellFormed(checker, value)
            || !GlobalValue::BindFailSafe(name, StringValue(value)))
        {
            Fail(program, "--" + name + "=" + value + ": not a valid value");
        }
    }
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
    // A bare number would be bit/s to ns-3; a fabric rate always names its unit.
    if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])) || std::isdigit(t.back())
        || !value.DeserializeFromString(t, MakeDataRateChecker()))
    {
        return false;
    }
    rate = value.Get();
    return rate.GetBitRate() > 0;
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

} // namespace ns3
