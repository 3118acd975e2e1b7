/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-vl-arbiter.h"

#include "ib-credit-flow-control.h"
#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbVlArbiter");
NS_OBJECT_ENSURE_REGISTERED(IbVlArbiter);

TypeId
IbVlArbiter::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbVlArbiter")
              .SetParent<FabricEgressScheduler>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbVlArbiter>()
              .AddAttribute(
                  "HighTable",
                  "High-priority VL arbitration table: comma-separated VL:weight "
                  "entries, weights 0-255 in 64-byte units (IBTA vol. 1, 7.6.9). "
                  "Empty (the default) with an empty low table: every data VL in "
                  "turn, one packet each.",
                  StringValue(""),
                  MakeStringAccessor(&IbVlArbiter::SetHighTable, &IbVlArbiter::GetHighTable),
                  MakeStringChecker())
              .AddAttribute(
                  "LowTable",
                  "Low-priority VL arbitration table, as HighTable.",
                  StringValue(""),
                  MakeStringAccessor(&IbVlArbiter::SetLowTable, &IbVlArbiter::GetLowTable),
                  MakeStringChecker())
              .AddAttribute("HighLimit",
                            "Limit of high priority: 4096-byte units the high table may send "
                            "while the low table has a packet waiting (0-255; 255: no limit, "
                            "the default).",
                            UintegerValue(255),
                            MakeUintegerAccessor(&IbVlArbiter::m_highLimit),
                            MakeUintegerChecker<uint32_t>(0, 255));
    return tid;
}

IbVlArbiter::IbVlArbiter() = default;

IbVlArbiter::~IbVlArbiter() = default;

void
IbVlArbiter::SetHighTable(std::string text)
{
    m_high = Parse(text);
    m_highText = text;
    m_highPos = Position();
}

std::string
IbVlArbiter::GetHighTable() const
{
    return m_highText;
}

void
IbVlArbiter::SetLowTable(std::string text)
{
    m_low = Parse(text);
    m_lowText = text;
    m_lowPos = Position();
}

std::string
IbVlArbiter::GetLowTable() const
{
    return m_lowText;
}

std::vector<IbVlArbiter::Entry>
IbVlArbiter::Parse(const std::string& text)
{
    const auto trim = [](const std::string& t)
    {
        const std::size_t first = t.find_first_not_of(" \t");
        return first == std::string::npos ? std::string()
                                          : t.substr(first, t.find_last_not_of(" \t") - first + 1);
    };
    const auto isNumber = [](const std::string& t) {
        return !t.empty() && t.size() <= 3
               && t.find_first_not_of("0123456789") == std::string::npos;
    };
    std::vector<Entry> table;
    if (trim(text).empty())
    {
        return table; // no table
    }
    std::size_t start = 0;
    while (true)
    {
        // Entries are separated by commas, each "VL:weight", spaces around either allowed.
        const std::size_t comma = text.find(',', start);
        const std::string item = trim(text.substr(start, comma - start));
        NS_ABORT_MSG_IF(item.empty(),
                        "IbVlArbiter: VL arbitration table '" << text << "' has an empty entry");
        const std::size_t colon = item.find(':');
        const std::string vlText = colon == std::string::npos ? "" : trim(item.substr(0, colon));
        const std::string weightText
            = colon == std::string::npos ? "" : trim(item.substr(colon + 1));
        NS_ABORT_MSG_IF(!isNumber(vlText) || !isNumber(weightText),
                        "IbVlArbiter: VL arbitration entry '" << item << "' is not VL:weight");
        const unsigned long vl = std::stoul(vlText);
        const unsigned long weight = std::stoul(weightText);
        NS_ABORT_MSG_IF(vl >= IbCreditFlowControl::MAX_DATA_VLS || weight > 255,
                        "IbVlArbiter: VL arbitration entry '"
                            << item << "' needs a data VL (0-14) and a weight of 0-255");
        table.push_back({static_cast<uint8_t>(vl), static_cast<uint32_t>(weight)});
        if (comma == std::string::npos)
        {
            return table;
        }
        start = comma + 1;
    }
}

void
IbVlArbiter::Charge(const std::vector<Entry>& table, Position& pos, uint32_t bytes)
{
    pos.remaining -= bytes;
    if (pos.remaining <= 0)
    {
        pos.index = (pos.index + 1) % table.size();
        pos.fresh = true;
    }
}

int32_t
IbVlArbiter::Select(FabricEgressClasses& port, uint32_t nClasses, uint32_t candidates)
{
    return SelectWith(nClasses, candidates, [&port](uint8_t vl) { return port.IsSendable(vl); });
}

bool
IbVlArbiter::IsPlain() const
{
    return GetInstanceTypeId() == IbVlArbiter::GetTypeId();
}

void
IbVlArbiter::Served(uint8_t /* cls */, uint32_t bytes)
{
    switch (m_from)
    {
    case From::HIGH:
        Charge(m_high, m_highPos, bytes);
        m_highSent += bytes;
        break;
    case From::LOW:
        Charge(m_low, m_lowPos, bytes);
        m_highSent = 0;
        break;
    case From::HIGH_BEYOND:
        Charge(m_high, m_highPos, bytes);
        break;
    case From::TURNS:
    case From::NONE:
        break;
    }
    m_from = From::NONE;
}

} // namespace ns3
