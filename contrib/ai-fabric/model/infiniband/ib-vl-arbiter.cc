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

#include <sstream>

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
    std::vector<Entry> table;
    std::istringstream is(text);
    std::string item;
    while (std::getline(is, item, ','))
    {
        const std::size_t colon = item.find(':');
        const auto isNumber = [](const std::string& t) {
            return !t.empty() && t.size() <= 3
                   && t.find_first_not_of("0123456789") == std::string::npos;
        };
        NS_ABORT_MSG_IF(colon == std::string::npos || !isNumber(item.substr(0, colon))
                            || !isNumber(item.substr(colon + 1)),
                        "IbVlArbiter: VL arbitration entry '" << item << "' is not VL:weight");
        const unsigned long vl = std::stoul(item.substr(0, colon));
        const unsigned long weight = std::stoul(item.substr(colon + 1));
        NS_ABORT_MSG_IF(vl >= IbCreditFlowControl::MAX_DATA_VLS || weight > 255,
                        "IbVlArbiter: VL arbitration entry '"
                            << item << "' needs a data VL (0-14) and a weight of 0-255");
        table.push_back({static_cast<uint8_t>(vl), static_cast<uint32_t>(weight)});
    }
    return table;
}

int32_t
IbVlArbiter::ServeTable(FabricEgressClasses& port,
                        uint32_t nClasses,
                        uint32_t candidates,
                        const std::vector<Entry>& table,
                        Position& pos)
{
    for (std::size_t tries = 0; tries < table.size(); ++tries)
    {
        const Entry& entry = table[pos.index];
        if (pos.fresh)
        {
            pos.remaining = static_cast<int64_t>(entry.weight) * IbCreditFlowControl::BLOCK_BYTES;
            pos.fresh = false;
        }
        if (pos.remaining > 0 && entry.vl < nClasses && (candidates & (1U << entry.vl))
            && port.IsSendable(entry.vl))
        {
            return entry.vl; // Charge() moves on once its weight is spent
        }
        pos.index = (pos.index + 1) % table.size();
        pos.fresh = true;
    }
    return -1;
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
    m_from = From::NONE;
    if (m_high.empty() && m_low.empty())
    {
        // No tables: every data VL in turn, one packet each.
        for (uint32_t k = 0; k < nClasses; ++k)
        {
            const auto vl = static_cast<uint8_t>((m_next + k) % nClasses);
            if ((candidates & (1U << vl)) && port.IsSendable(vl))
            {
                m_next = (vl + 1) % nClasses;
                m_from = From::TURNS;
                return vl;
            }
        }
        return -1;
    }
    // The high-priority table first, until it has sent its limit (HighLimit x 4096 bytes;
    // 255: no limit) while the low-priority table has a packet. A limit of 0 still lets one
    // high-priority packet go first (IBTA).
    const bool highBounded = m_highLimit != 255;
    if (!highBounded || m_highSent == 0 || m_highSent < uint64_t(m_highLimit) * 4096)
    {
        const int32_t vl = ServeTable(port, nClasses, candidates, m_high, m_highPos);
        if (vl >= 0)
        {
            m_from = From::HIGH;
            return vl;
        }
    }
    int32_t vl = ServeTable(port, nClasses, candidates, m_low, m_lowPos);
    if (vl >= 0)
    {
        m_from = From::LOW;
        return vl;
    }
    vl = ServeTable(port, nClasses, candidates, m_high, m_highPos);
    if (vl >= 0)
    {
        m_from = From::HIGH_BEYOND; // the low table had nothing: the high table may go on
    }
    return vl;
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
