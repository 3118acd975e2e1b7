/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fault-schedule.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>

namespace ns3
{

namespace
{
/// Latest time a failure may take (s): 1e6 s (11.6 days), well inside ns-3's int64 picoseconds
constexpr double MAX_FAILURE_SECONDS = 1e6;

/**
 * \param text a probability written as a decimal or in exponent form
 * \param v the value
 * \return false unless it is in (0, 1)
 */
bool
ParseRate(const std::string& text, double& v)
{
    if (text.empty() || text.find_first_not_of("0123456789.eE-+") != std::string::npos)
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    v = std::strtod(text.c_str(), &end);
    return errno == 0 && end == text.c_str() + text.size() && v > 0 && v < 1;
}

/**
 * \param what the kind's word
 * \param e the event to fill
 * \return false if the word is unknown
 */
bool
KindOf(const std::string& what, FaultEvent& e)
{
    if (what == "link")
    {
        e.kind = FaultEvent::Kind::LINK_DOWN;
    }
    else if (what == "switch")
    {
        e.kind = FaultEvent::Kind::SWITCH_DOWN;
    }
    else if (what == "nic")
    {
        e.kind = FaultEvent::Kind::NIC_DOWN;
    }
    else if (what == "flap")
    {
        e.kind = FaultEvent::Kind::FLAP;
        e.count = 2;
    }
    else if (what == "ber")
    {
        e.kind = FaultEvent::Kind::BER;
    }
    else
    {
        return false;
    }
    return true;
}

/**
 * \param e a down event
 * \return its repair
 */
FaultEvent::Kind
RepairOf(const FaultEvent& e)
{
    switch (e.kind)
    {
    case FaultEvent::Kind::SWITCH_DOWN:
        return FaultEvent::Kind::SWITCH_UP;
    case FaultEvent::Kind::NIC_DOWN:
        return FaultEvent::Kind::NIC_UP;
    case FaultEvent::Kind::BER:
        return FaultEvent::Kind::BER_CLEAR;
    default:
        return FaultEvent::Kind::LINK_UP;
    }
}

/**
 * \param e an event whose kind, target and time are set
 * \param key an option's name
 * \param value its value
 * \param error set on failure
 * \return false if the option does not apply or its value is malformed
 */
bool
SetOption(FaultEvent& e, const std::string& key, const std::string& value, std::string& error)
{
    if (key == "period" && e.kind == FaultEvent::Kind::FLAP)
    {
        if (!FaultSchedule::ParseTime(value, e.period) || !e.period.IsStrictlyPositive())
        {
            error = "period=" + value + ": expected a time such as 1ms";
            return false;
        }
        return true;
    }
    if (key == "count" && e.kind == FaultEvent::Kind::FLAP)
    {
        if (value.empty() || value.size() > 6
            || value.find_first_not_of("0123456789") != std::string::npos || std::stoul(value) == 0)
        {
            error = "count=" + value + ": expected a whole number of state changes";
            return false;
        }
        e.count = static_cast<uint32_t>(std::stoul(value));
        return true;
    }
    if (key == "rate" && e.kind == FaultEvent::Kind::BER)
    {
        if (!ParseRate(value, e.rate))
        {
            error = "rate=" + value + ": expected a bit error rate between 0 and 1, e.g. 1e-7";
            return false;
        }
        return true;
    }
    error = "'" + key + "' is not an option of this failure";
    return false;
}

/**
 * \param e a parsed event
 * \param error set on failure
 * \return false if a required option is missing
 */
bool
Complete(const FaultEvent& e, std::string& error)
{
    if (e.kind == FaultEvent::Kind::FLAP && !e.period.IsStrictlyPositive())
    {
        error = "a flap needs period=<time>";
        return false;
    }
    // The last change must fit ns-3's time (int64 picoseconds: about 106 days); checked in
    // seconds, before any Time arithmetic can overflow.
    if (e.kind == FaultEvent::Kind::FLAP
        && e.at.GetSeconds() + e.period.GetSeconds() * (e.count - 1) > MAX_FAILURE_SECONDS)
    {
        char message[160];
        std::snprintf(message,
                      sizeof(message),
                      "the last of %u changes, at %g s, is beyond %g s (ns-3's time holds "
                      "about 106 days)",
                      e.count,
                      e.at.GetSeconds() + e.period.GetSeconds() * (e.count - 1),
                      MAX_FAILURE_SECONDS);
        error = message;
        return false;
    }
    if (e.kind == FaultEvent::Kind::BER && e.rate <= 0)
    {
        error = "a bit-error link needs rate=<probability>";
        return false;
    }
    if ((e.kind == FaultEvent::Kind::LINK_DOWN || e.kind == FaultEvent::Kind::FLAP
         || e.kind == FaultEvent::Kind::BER)
        && e.target.find('-') == std::string::npos)
    {
        error = "'" + e.target + "' is not a cable: expected <node>-<node>";
        return false;
    }
    return true;
}
} // namespace

const char*
FaultKindName(FaultEvent::Kind kind)
{
    switch (kind)
    {
    case FaultEvent::Kind::LINK_DOWN:
        return "link down";
    case FaultEvent::Kind::LINK_UP:
        return "link up";
    case FaultEvent::Kind::SWITCH_DOWN:
        return "switch down";
    case FaultEvent::Kind::SWITCH_UP:
        return "switch up";
    case FaultEvent::Kind::NIC_DOWN:
        return "nic down";
    case FaultEvent::Kind::NIC_UP:
        return "nic up";
    case FaultEvent::Kind::FLAP:
        return "link flap";
    case FaultEvent::Kind::BER:
        return "bit errors";
    case FaultEvent::Kind::BER_CLEAR:
        return "bit errors cleared";
    }
    return "?";
}

bool
FaultSchedule::ParseTime(const std::string& text, Time& t)
{
    static const std::pair<const char*, double> units[]
        = {{"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"s", 1.0}};
    for (const auto& [unit, scale] : units)
    {
        const std::string u(unit);
        if (text.size() <= u.size() || text.compare(text.size() - u.size(), u.size(), u) != 0)
        {
            continue;
        }
        const std::string number = text.substr(0, text.size() - u.size());
        if (number.find_first_not_of("0123456789.") != std::string::npos)
        {
            return false;
        }
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(number.c_str(), &end);
        if (errno != 0 || end != number.c_str() + number.size() || !(v >= 0)
            || v * scale > MAX_FAILURE_SECONDS)
        {
            return false;
        }
        t = Seconds(v * scale);
        return true;
    }
    return false;
}

bool
FaultSchedule::Parse(const std::string& text, std::vector<FaultEvent>& events, std::string& error)
{
    events.clear();
    std::size_t start = 0;
    while (start <= text.size())
    {
        std::size_t end = text.find(';', start);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        // Blanks around a failure are the separator's ("link:a-b@1ms; link:c-d@2ms").
        const std::size_t first = text.find_first_not_of(" \t", start);
        const std::size_t last = text.find_last_not_of(" \t", end == 0 ? 0 : end - 1);
        const std::string item = first < end && last != std::string::npos && last >= first
                                     ? text.substr(first, last - first + 1)
                                     : std::string();
        start = end + 1;
        if (item.empty())
        {
            error = "empty failure in '" + text + "'";
            return false;
        }
        const std::size_t at = item.find('@');
        if (at == std::string::npos)
        {
            error = "'" + item + "': expected <what>:<target>@<time> or up@<time>";
            return false;
        }
        const std::size_t comma = item.find(',', at);
        const std::string head = item.substr(0, at);
        const std::string when
            = item.substr(at + 1, comma == std::string::npos ? std::string::npos : comma - at - 1);
        FaultEvent e;
        if (head == "up")
        {
            if (events.empty() || events.back().kind == FaultEvent::Kind::FLAP
                || events.back().kind == FaultEvent::Kind::LINK_UP
                || events.back().kind == FaultEvent::Kind::SWITCH_UP
                || events.back().kind == FaultEvent::Kind::NIC_UP
                || events.back().kind == FaultEvent::Kind::BER_CLEAR)
            {
                error = "'" + item + "': up@ follows a link, switch, nic or ber failure";
                return false;
            }
            e.kind = RepairOf(events.back());
            e.target = events.back().target;
        }
        else
        {
            const std::size_t colon = head.find(':');
            if (colon == std::string::npos || !KindOf(head.substr(0, colon), e))
            {
                error = "'" + item + "': expected link:, switch:, nic:, flap: or ber:";
                return false;
            }
            e.target = head.substr(colon + 1);
            if (e.target.empty())
            {
                error = "'" + item + "': no target";
                return false;
            }
        }
        if (!FaultSchedule::ParseTime(when, e.at))
        {
            error = "'" + item + "': '" + when + "' is not a time (e.g. 2ms, 500us)";
            return false;
        }
        for (std::size_t o = comma; o != std::string::npos;)
        {
            const std::size_t next = item.find(',', o + 1);
            const std::string option
                = item.substr(o + 1, next == std::string::npos ? std::string::npos : next - o - 1);
            const std::size_t eq = option.find('=');
            std::string why;
            if (eq == std::string::npos
                || !SetOption(e, option.substr(0, eq), option.substr(eq + 1), why))
            {
                error = "'" + item + "': " + (why.empty() ? "expected key=value" : why);
                return false;
            }
            o = next;
        }
        std::string why;
        if (!Complete(e, why))
        {
            error = "'" + item + "': " + why;
            return false;
        }
        if (head == "up" && e.at <= events.back().at)
        {
            error = "'" + item + "': the repair comes before the failure";
            return false;
        }
        events.push_back(e);
    }
    return true;
}

bool
FaultSchedule::ParseJsonFile(const std::string& path,
                             std::vector<FaultEvent>& events,
                             std::string& error)
{
    events.clear();
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    {
        error = path + ": is a directory";
        return false;
    }
    std::ifstream in(path);
    if (!in)
    {
        error = path + ": cannot read this file";
        return false;
    }
    nlohmann::json j;
    try
    {
        // The whole file is one JSON value: parse() refuses what follows it ("[...] junk").
        j = nlohmann::json::parse(in);
    }
    catch (const nlohmann::json::exception&)
    {
        error = path + ": not JSON (one array of failures, and nothing after it)";
        return false;
    }
    if (!j.is_array())
    {
        error = path + ": expected an array of failures";
        return false;
    }
    for (std::size_t i = 0; i < j.size(); ++i)
    {
        const nlohmann::json& f = j[i];
        const std::string where = path + ": failure " + std::to_string(i);
        if (!f.is_object() || !f.contains("what") || !f["what"].is_string() || !f.contains("target")
            || !f["target"].is_string() || !f.contains("at") || !f["at"].is_string())
        {
            error = where + ": expected {\"what\", \"target\", \"at\"} strings";
            return false;
        }
        for (const auto& [key, value] : f.items())
        {
            if (key != "what" && key != "target" && key != "at" && key != "up" && key != "period"
                && key != "count" && key != "rate")
            {
                error = where + ": unknown key \"" + key + "\"";
                return false;
            }
        }
        FaultEvent e;
        if (!KindOf(f["what"].get<std::string>(), e))
        {
            error = where + ": \"what\" is link, switch, nic, flap or ber";
            return false;
        }
        e.target = f["target"].get<std::string>();
        if (!FaultSchedule::ParseTime(f["at"].get<std::string>(), e.at))
        {
            error = where + ": \"at\" is not a time (e.g. 2ms)";
            return false;
        }
        std::string why;
        for (const char* key : {"period", "count", "rate"})
        {
            if (!f.contains(key))
            {
                continue;
            }
            const nlohmann::json& v = f[key];
            const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
            if (!SetOption(e, key, value, why))
            {
                error = where + ": " + why;
                return false;
            }
        }
        if (!Complete(e, why))
        {
            error = where + ": " + why;
            return false;
        }
        events.push_back(e);
        if (f.contains("up"))
        {
            FaultEvent up;
            up.kind = RepairOf(e);
            up.target = e.target;
            if (!f["up"].is_string() || !FaultSchedule::ParseTime(f["up"].get<std::string>(), up.at)
                || up.at <= e.at || e.kind == FaultEvent::Kind::FLAP)
            {
                error = where + ": \"up\" is a time after \"at\" (not for a flap)";
                return false;
            }
            events.push_back(up);
        }
    }
    return true;
}

bool
FaultSchedule::Read(const std::string& spec, std::vector<FaultEvent>& events, std::string& error)
{
    const std::string suffix = ".json";
    if (spec.size() > suffix.size()
        && spec.compare(spec.size() - suffix.size(), suffix.size(), suffix) == 0)
    {
        return ParseJsonFile(spec, events, error);
    }
    return Parse(spec, events, error);
}

Time
FaultSchedule::LastChange(const std::vector<FaultEvent>& events)
{
    Time last(0);
    for (const FaultEvent& e : events)
    {
        Time t = e.at;
        if (e.kind == FaultEvent::Kind::FLAP && e.count > 1)
        {
            t += e.period * static_cast<int64_t>(e.count - 1);
        }
        last = std::max(last, t);
    }
    return last;
}

} // namespace ns3
