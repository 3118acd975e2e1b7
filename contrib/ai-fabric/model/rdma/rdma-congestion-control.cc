/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaCongestionControl")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddTraceSource("Rate",
                              "The QP's sending rate changed (bit/s).",
                              MakeTraceSourceAccessor(&RdmaCongestionControl::m_rateTrace),
                              "ns3::RdmaCongestionControl::RateTracedCallback")
              .AddTraceSource("Window",
                              "The window changed: old and new window (payload bytes; 0: none).",
                              MakeTraceSourceAccessor(&RdmaCongestionControl::m_windowTrace),
                              "ns3::RdmaCongestionControl::WindowTracedCallback");
    return tid;
}

RdmaCongestionControl::RdmaCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

RdmaCongestionControl::~RdmaCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaCongestionControl::SetLineRate(DataRate lineRate)
{
    m_lineRate = lineRate;
    SetRate(lineRate);
}

DataRate
RdmaCongestionControl::GetLineRate() const
{
    return m_lineRate;
}

DataRate
RdmaCongestionControl::GetRate() const
{
    return m_rate;
}

void
RdmaCongestionControl::DoDispose()
{
    m_rateChanged = Callback<void>();
    Object::DoDispose();
}

void
RdmaCongestionControl::SetRateChangeCallback(Callback<void> cb)
{
    m_rateChanged = cb;
}

Time
RdmaCongestionControl::GetPacingGap(uint32_t wireBytes) const
{
    if (m_lineRate.GetBitRate() == 0 || m_rate >= m_lineRate)
    {
        return Time(0); // not attached to a port yet, or at line rate: the port paces
    }
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0,
                    "RdmaCongestionControl: a rate of zero (congestion control must keep a "
                    "minimum rate)");
    // Integer picoseconds, rounded to the nearest time step (DataRate::CalculateBytesTxTime
    // divides in 128-bit fixed point: 4% of an incast's instructions when called per packet).
    const uint64_t psPerStep = static_cast<uint64_t>(TimeStep(1).GetPicoSeconds());
    const uint64_t bps = m_rate.GetBitRate();
    if (psPerStep == 0 || bps > (1ULL << 44) || wireBytes > (1U << 20))
    {
        return m_rate.CalculateBytesTxTime(wireBytes);
    }
    // bits x 1e12 / rate in ps: at most 2^23 bits x 1e12 < 2^63.
    const uint64_t ps = (uint64_t{wireBytes} * 8 * 1000000000000ULL + bps / 2) / bps;
    return TimeStep((ps + psPerStep / 2) / psPerStep);
}

void
RdmaCongestionControl::SetRate(DataRate rate)
{
    if (rate > m_lineRate)
    {
        rate = m_lineRate;
    }
    if (rate != m_rate)
    {
        const uint64_t old = m_rate.GetBitRate();
        m_rate = rate;
        m_rateTrace(old, rate.GetBitRate());
        if (!m_rateChanged.IsNull())
        {
            m_rateChanged();
        }
    }
}

void
RdmaCongestionControl::SetWindow(uint64_t bytes)
{
    if (bytes != m_window)
    {
        const uint64_t old = m_window;
        m_window = bytes;
        m_windowTrace(old, bytes);
        if (!m_rateChanged.IsNull())
        {
            m_rateChanged();
        }
    }
}

bool
RdmaCongestionControl::WantsRttSamples() const
{
    return false;
}

void
RdmaCongestionControl::OnPacketSent(uint32_t /* wireBytes */)
{
}

void
RdmaCongestionControl::OnAck(const RdmaAckInfo& /* ack */)
{
}

void
RdmaCongestionControl::OnCongestionNotification()
{
}

bool
RdmaCongestionControl::OnCongestionMarked()
{
    return false; // no congestion control: marks are not answered
}

void
RdmaCongestionControl::OnTimeout()
{
}

RdmaCcRegistration::RdmaCcRegistration(const std::string& name,
                                       TypeId (*typeId)(),
                                       const std::string& fabric,
                                       const std::string& description)
{
    std::vector<Entry>& registry = Registry();
    auto it = std::lower_bound(registry.begin(),
                               registry.end(),
                               name,
                               [](const Entry& e, const std::string& n) { return e.name < n; });
    NS_ABORT_MSG_IF(it != registry.end() && it->name == name,
                    "RdmaCcRegistration: '" << name << "' is registered twice");
    registry.insert(it, Entry{name, typeId(), fabric, description});
}

std::vector<RdmaCcRegistration::Entry>&
RdmaCcRegistration::Registry()
{
    static std::vector<Entry> registry;
    return registry;
}

bool
RdmaCcRegistration::Lookup(const std::string& name, Entry& entry)
{
    for (const Entry& e : Registry())
    {
        if (e.name == name)
        {
            entry = e;
            return true;
        }
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name, &tid)
        || !tid.IsChildOf(RdmaCongestionControl::GetTypeId()) || !tid.HasConstructor())
    {
        return false;
    }
    entry = Entry{name, tid, "", ""};
    return true;
}

bool
RdmaCcRegistration::RunsOn(const std::string& name, const std::string& fabric)
{
    Entry e;
    return Lookup(name, e) && (e.fabric.empty() || e.fabric == fabric);
}

std::string
RdmaCcRegistration::Names()
{
    std::string names;
    for (const Entry& e : Registry())
    {
        names += (names.empty() ? "" : ", ") + e.name;
    }
    return names;
}

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCcNone")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaCcNone>();
    return tid;
}

static RdmaCcRegistration g_none("none",
                                 &RdmaCcNone::GetTypeId,
                                 "",
                                 "no congestion control: every QP sends at line rate");

} // namespace ns3
