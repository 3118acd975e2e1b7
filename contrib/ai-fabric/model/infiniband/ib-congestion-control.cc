/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(IbCongestionControl);

TypeId
IbCongestionControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbCongestionControl")
              .SetParent<RdmaCongestionControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbCongestionControl>()
              .AddAttribute("CctiIncrease",
                            "CCTI_Increase: table entries added per BECN. Default 1 (the "
                            "Omni-Path fabric manager's is 5, which throttles 400 Gb/s flows "
                            "far below their share; see the manual).",
                            UintegerValue(1),
                            MakeUintegerAccessor(&IbCongestionControl::m_increase),
                            MakeUintegerChecker<uint32_t>(0, 255))
              .AddAttribute("CctiTimer",
                            "CCTI_Timer: the index drops by one every CctiTimer x 1.024 us "
                            "(0: never). Default 2 (2.048 us; the Omni-Path fabric manager's "
                            "is 10; see the manual).",
                            UintegerValue(2),
                            MakeUintegerAccessor(&IbCongestionControl::m_timerUnits),
                            MakeUintegerChecker<uint32_t>(0, 65535))
              .AddAttribute("CctiMin",
                            "CCTI_Min: the lowest index, a floor under the delay. Default 0.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbCongestionControl::m_min),
                            MakeUintegerChecker<uint32_t>(0, 255))
              .AddAttribute(
                  "Cct",
                  "The congestion control table as OpenSM's cc_cct writes it: "
                  "comma-separated shift:multiplier entries (shift 0-3, multiplier "
                  "0-16383; delay = multiplier / 2^shift packet times). Empty (the "
                  "default): derived from CctMaxDelay, CctEntries and CctPacketBytes.",
                  StringValue(""),
                  MakeStringAccessor(&IbCongestionControl::SetCct, &IbCongestionControl::GetCct),
                  MakeStringChecker())
              .AddAttribute("CctMaxDelay",
                            "Delay of the derived table's last entry (s). Default 8 us, the "
                            "Omni-Path fabric manager's DesiredMaxDelay.",
                            TimeValue(MicroSeconds(8)),
                            MakeTimeAccessor(&IbCongestionControl::m_maxDelay),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("CctEntries",
                            "Entries of the derived table (CCTI_Limit + 1). Default 128, the "
                            "Omni-Path fabric manager's limit of 127.",
                            UintegerValue(128),
                            MakeUintegerAccessor(&IbCongestionControl::m_entries),
                            MakeUintegerChecker<uint32_t>(2, 16384))
              .AddAttribute("CctPacketBytes",
                            "Packet size whose transmission time is the derived table's unit "
                            "(bytes). Default 4122: a 4096-byte payload with LRH, BTH, ICRC "
                            "and VCRC.",
                            UintegerValue(4122),
                            MakeUintegerAccessor(&IbCongestionControl::m_packetBytes),
                            MakeUintegerChecker<uint32_t>(1))
              .AddTraceSource("Ccti",
                              "The congestion control table index.",
                              MakeTraceSourceAccessor(&IbCongestionControl::m_ccti),
                              "ns3::TracedValueCallback::Uint32");
    return tid;
}

IbCongestionControl::IbCongestionControl() = default;

IbCongestionControl::~IbCongestionControl() = default;

void
IbCongestionControl::DoDispose()
{
    m_timer.Cancel();
    RdmaCongestionControl::DoDispose();
}

std::string
IbCongestionControl::ParseCct(const std::string& text, std::vector<CctEntry>& table)
{
    table.clear();
    if (text.empty())
    {
        return "";
    }
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        const std::size_t colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()
            || item.find_first_not_of("0123456789:") != std::string::npos
            || item.find(':', colon + 1) != std::string::npos || colon > 1
            || item.size() - colon - 1 > 5)
        {
            return "CCT entry '" + item + "' is not shift:multiplier";
        }
        const uint32_t shift = std::stoul(item.substr(0, colon));
        const uint32_t multiplier = std::stoul(item.substr(colon + 1));
        if (shift > 3 || multiplier > 16383)
        {
            return "CCT entry '" + item + "' is out of range (shift 0-3, multiplier 0-16383)";
        }
        table.push_back({static_cast<uint8_t>(shift), static_cast<uint16_t>(multiplier)});
    }
    if (table.size() > 16384 || text.back() == ',')
    {
        return "CCT '" + text + "' is malformed";
    }
    return "";
}

void
IbCongestionControl::SetCct(std::string text)
{
    std::vector<CctEntry> table;
    const std::string error = ParseCct(text, table);
    NS_ABORT_MSG_IF(!error.empty(), "IbCongestionControl: " << error);
    m_cctText = text;
    m_cct = table;
}

std::string
IbCongestionControl::GetCct() const
{
    return m_cctText;
}

void
IbCongestionControl::DeriveTable() const
{
    if (!m_cct.empty() || GetLineRate().GetBitRate() == 0)
    {
        return;
    }
    // As Omni-Path's fabric manager builds it: the largest shift whose multiplier for the last
    // entry fits 14 bits, then multipliers linear in the index.
    const double packetTime = GetLineRate().CalculateBytesTxTime(m_packetBytes).GetSeconds();
    double maxMultiplier = m_maxDelay.GetSeconds() / packetTime * 8.0;
    uint8_t shift = 3;
    while (maxMultiplier > 16383.0 && shift > 0)
    {
        maxMultiplier /= 2.0;
        --shift;
    }
    maxMultiplier = std::min(maxMultiplier, 16383.0);
    m_cct.resize(m_entries);
    for (uint32_t i = 0; i < m_entries; ++i)
    {
        m_cct[i].shift = shift;
        m_cct[i].multiplier
            = static_cast<uint16_t>(std::lround(maxMultiplier * i / (m_entries - 1)));
    }
}

uint32_t
IbCongestionControl::GetCcti() const
{
    return m_ccti;
}

uint32_t
IbCongestionControl::GetCctiLimit() const
{
    DeriveTable();
    return m_cct.empty() ? 0 : static_cast<uint32_t>(m_cct.size() - 1);
}

DataRate
IbCongestionControl::RateAt(uint32_t ccti) const
{
    DeriveTable();
    if (m_cct.empty())
    {
        return GetLineRate();
    }
    const CctEntry& e = m_cct[std::min<std::size_t>(ccti, m_cct.size() - 1)];
    const double delay = e.multiplier / static_cast<double>(1u << e.shift); // packet times
    return DataRate(static_cast<uint64_t>(
        std::llround(static_cast<double>(GetLineRate().GetBitRate()) / (1.0 + delay))));
}

uint64_t
IbCongestionControl::GetBecnsReceived() const
{
    return m_becns;
}

void
IbCongestionControl::Apply()
{
    SetRate(RateAt(m_ccti));
    if (m_ccti > Floor() && m_timerUnits > 0 && !m_timer.IsRunning())
    {
        m_timer = Simulator::Schedule(
            NanoSeconds(TIMER_UNIT_NS * m_timerUnits), &IbCongestionControl::TimerExpired, this);
    }
}

uint32_t
IbCongestionControl::Floor() const
{
    return std::min(m_min, GetCctiLimit()); // CCTI_Min beyond the table is its last entry
}

void
IbCongestionControl::TimerExpired()
{
    if (m_ccti > Floor())
    {
        m_ccti = m_ccti - 1;
    }
    Apply();
}

void
IbCongestionControl::OnCongestionNotification()
{
    NS_LOG_FUNCTION(this);
    if (GetLineRate().GetBitRate() == 0)
    {
        return; // not attached to a port
    }
    ++m_becns;
    const uint32_t limit = GetCctiLimit();
    m_ccti = std::min(std::max<uint32_t>(m_ccti + m_increase, Floor()), limit);
    Apply();
}

void
IbCongestionControl::OnPacketSent(uint32_t /* wireBytes */)
{
    if (m_ccti < Floor())
    {
        m_ccti = Floor(); // CCTI_Min holds from the first packet on
        Apply();
    }
}

bool
IbCongestionControl::OnCongestionMarked()
{
    return true; // one BECN for every FECN
}

static RdmaCcRegistration g_ibcc("ibcc",
                                 &IbCongestionControl::GetTypeId,
                                 "ib",
                                 "IB congestion control (IBTA Annex A10): FECN at the switches, "
                                 "BECN and the CCT at the adapters");

} // namespace ns3
