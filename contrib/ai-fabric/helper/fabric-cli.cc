/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-cli.h"

#include "ns3/global-value.h"
#include "ns3/string.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>

namespace ns3
{

void
FabricCli::Fail(const std::string& program, const std::string& message)
{
    std::cerr << program << ": " << message << std::endl;
    std::exit(2);
}

void
FabricCli::CheckKnownOptions(const std::string& program,
                             int argc,
                             char** argv,
                             const std::vector<std::string>& known)
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
        const std::string name = arg.substr(2, arg.find('=') - 2);
        const bool ok = std::find(known.begin(), known.end(), name) != known.end()
                        || std::find(builtin.begin(), builtin.end(), name) != builtin.end()
                        || name.find("::") != std::string::npos;
        if (ok)
        {
            continue;
        }
        StringValue unused;
        if (!GlobalValue::GetValueByNameFailSafe(name, unused))
        {
            Fail(program, "unknown option --" + name + " (see --help)");
        }
    }
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
    if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))
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

} // namespace ns3
