/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-cc-dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcDcqcn");
NS_OBJECT_ENSURE_REGISTERED(RdmaCcDcqcn);

TypeId
RdmaCcDcqcn::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaCcDcqcn")
              .SetParent<RdmaCongestionControl>()
              .SetGroupName("AiFabric")
              .AddConstructor<RdmaCcDcqcn>()
              .AddAttribute("G",
                            "Gain g of the congestion estimate alpha (dimensionless). Default "
                            "5/1024: ConnectX firmware's dce_tcp_g register reads 1019 (of "
                            "1024), the weight it keeps of the old alpha (the paper: 1/256).",
                            DoubleValue(5.0 / 1024.0),
                            MakeDoubleAccessor(&RdmaCcDcqcn::m_g),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("InitialAlpha",
                            "Alpha before the first CNP (dimensionless). Default 1, as in the "
                            "paper.",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&RdmaCcDcqcn::m_initialAlpha),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("AlphaPeriod",
                            "Alpha decays by (1 - g) every period without a CNP (s). Default "
                            "1 us: ConnectX's dce_tcp_rtt (the paper: 55 us).",
                            TimeValue(MicroSeconds(1)),
                            MakeTimeAccessor(&RdmaCcDcqcn::m_alphaPeriod),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("IncreasePeriod",
                            "Rate-increase timer T (s). Default 300 us: ConnectX's "
                            "rpg_time_reset (the paper: 55 us).",
                            TimeValue(MicroSeconds(300)),
                            MakeTimeAccessor(&RdmaCcDcqcn::m_increasePeriod),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("ByteCounter",
                            "Bytes sent per byte-counter increase event B (bytes). Default "
                            "32767: ConnectX's rpg_byte_reset (the paper: 10 MB).",
                            UintegerValue(32767),
                            MakeUintegerAccessor(&RdmaCcDcqcn::m_byteCounter),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("FastRecoverySteps",
                            "F: increase events of fast recovery before additive increase. "
                            "Default 1: ConnectX's rpg_threshold (the paper: 5).",
                            UintegerValue(1),
                            MakeUintegerAccessor(&RdmaCcDcqcn::m_fastRecovery),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("AdditiveIncrease",
                            "R_AI, the target-rate step of additive increase (bit/s). Default "
                            "5 Mb/s: ConnectX's rpg_ai_rate (the paper: 40 Mb/s).",
                            DataRateValue(DataRate("5Mbps")),
                            MakeDataRateAccessor(&RdmaCcDcqcn::m_rai),
                            MakeDataRateChecker())
              .AddAttribute("HyperIncrease",
                            "R_HAI, the target-rate step of hyper increase (bit/s). Default "
                            "50 Mb/s: ConnectX's rpg_hai_rate.",
                            DataRateValue(DataRate("50Mbps")),
                            MakeDataRateAccessor(&RdmaCcDcqcn::m_rhai),
                            MakeDataRateChecker())
              .AddAttribute("MinRate",
                            "The rate never falls below this (bit/s; 1 bit/s at the least). "
                            "Default 1 Mb/s: ConnectX's rpg_min_rate.",
                            DataRateValue(DataRate("1Mbps")),
                            MakeDataRateAccessor(&RdmaCcDcqcn::m_minRate),
                            MakeDataRateChecker())
              .AddAttribute("RateReducePeriod",
                            "At most one rate cut per period; a CNP inside it cuts at its end "
                            "(s); 0 cuts at every CNP, as the paper. Default 4 us: ConnectX's "
                            "rate_reduce_monitor_period.",
                            TimeValue(MicroSeconds(4)),
                            MakeTimeAccessor(&RdmaCcDcqcn::m_rateReducePeriod),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("ClampTargetRate",
                            "At every rate cut, the target rate becomes the current rate "
                            "(Rt <- Rc), as in the paper. Default false: ConnectX's "
                            "rp_clamp_tgt_rate (0).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&RdmaCcDcqcn::m_clampTargetRate),
                            MakeBooleanChecker())
              .AddAttribute("ClampTargetRateAfterTimeIncrease",
                            "With ClampTargetRate off, a cut still sets Rt <- Rc when the "
                            "rate-increase timer raised the rate since the last cut. Default "
                            "true: ConnectX's rp_clamp_tgt_rate_ati (1).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&RdmaCcDcqcn::m_clampAfterTimeIncrease),
                            MakeBooleanChecker())
              .AddAttribute("CnpInterval",
                            "Notification point: at most one CNP per QP per interval (s). "
                            "Default 4 us: ConnectX's min_time_between_cnps (the paper: 50 us).",
                            TimeValue(MicroSeconds(4)),
                            MakeTimeAccessor(&RdmaCcDcqcn::m_cnpInterval),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("Alpha",
                              "Alpha after the update of a rate cut.",
                              MakeTraceSourceAccessor(&RdmaCcDcqcn::m_alphaTrace),
                              "ns3::RdmaCcDcqcn::AlphaTracedCallback");
    return tid;
}

std::vector<std::pair<std::string, std::string>>
RdmaCcDcqcn::GetPreset(const std::string& name)
{
    if (name == "connectx")
    {
        return {{"G", "0.0048828125"},
                {"InitialAlpha", "1"},
                {"AlphaPeriod", "1us"},
                {"IncreasePeriod", "300us"},
                {"ByteCounter", "32767"},
                {"FastRecoverySteps", "1"},
                {"AdditiveIncrease", "5Mbps"},
                {"HyperIncrease", "50Mbps"},
                {"MinRate", "1Mbps"},
                {"RateReducePeriod", "4us"},
                {"ClampTargetRate", "false"},
                {"ClampTargetRateAfterTimeIncrease", "true"},
                {"CnpInterval", "4us"}};
    }
    if (name == "paper")
    {
        // SIGCOMM 2015, 40 GbE. The paper gives no R_HAI: 10 x R_AI, ConnectX's ratio.
        return {{"G", "0.00390625"},
                {"InitialAlpha", "1"},
                {"AlphaPeriod", "55us"},
                {"IncreasePeriod", "55us"},
                {"ByteCounter", "10000000"},
                {"FastRecoverySteps", "5"},
                {"AdditiveIncrease", "40Mbps"},
                {"HyperIncrease", "400Mbps"},
                {"MinRate", "1Mbps"},
                {"RateReducePeriod", "0s"},
                {"ClampTargetRate", "true"},
                {"ClampTargetRateAfterTimeIncrease", "true"},
                {"CnpInterval", "50us"}};
    }
    return {};
}

RdmaCcDcqcn::RdmaCcDcqcn()
{
    NS_LOG_FUNCTION(this);
}

RdmaCcDcqcn::~RdmaCcDcqcn()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaCcDcqcn::DoDispose()
{
    m_increaseEvent.Cancel();
    m_cutEvent.Cancel();
    RdmaCongestionControl::DoDispose();
}

double
RdmaCcDcqcn::GetAlpha() const
{
    if (!m_alphaValid)
    {
        return m_initialAlpha;
    }
    const int64_t periods
        = (Simulator::Now() - m_alphaTime).GetTimeStep() / m_alphaPeriod.GetTimeStep();
    return m_alpha * std::pow(1.0 - m_g, static_cast<double>(periods));
}

DataRate
RdmaCcDcqcn::GetTargetRate() const
{
    return m_active ? DataRate(static_cast<uint64_t>(m_rt)) : GetLineRate();
}

uint64_t
RdmaCcDcqcn::GetRateCuts() const
{
    return m_cuts;
}

void
RdmaCcDcqcn::DecayAlpha()
{
    // The alpha timer restarts at every CNP and fires every AlphaPeriod after it: count its
    // expiries since then, and keep the phase.
    const int64_t periods
        = (Simulator::Now() - m_alphaTime).GetTimeStep() / m_alphaPeriod.GetTimeStep();
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_g, static_cast<double>(periods));
        m_alphaTime += m_alphaPeriod * periods;
    }
}

bool
RdmaCcDcqcn::OnCongestionMarked()
{
    const Time now = Simulator::Now();
    if (m_cnpSent && now - m_lastCnp < m_cnpInterval)
    {
        return false;
    }
    m_cnpSent = true;
    m_lastCnp = now;
    return true;
}

void
RdmaCcDcqcn::OnCongestionNotification()
{
    NS_LOG_FUNCTION(this);
    if (GetLineRate().GetBitRate() == 0)
    {
        return; // not attached to a port
    }
    if (m_cutEvent.IsRunning())
    {
        return; // a cut is already due at the end of this rate-reduce period
    }
    const Time now = Simulator::Now();
    if (m_cutDone && !m_rateReducePeriod.IsZero() && now < m_lastCut + m_rateReducePeriod)
    {
        m_cutEvent
            = Simulator::Schedule(m_lastCut + m_rateReducePeriod - now, &RdmaCcDcqcn::Cut, this);
        return;
    }
    Cut();
}

void
RdmaCcDcqcn::Cut()
{
    const Time now = Simulator::Now();
    if (!m_active)
    {
        m_active = true;
        m_rc = static_cast<double>(GetRate().GetBitRate());
        m_rt = m_rc;
    }
    if (m_alphaValid)
    {
        DecayAlpha();
    }
    else
    {
        m_alpha = m_initialAlpha;
        m_alphaValid = true;
    }
    // Alpha first, with this CNP folded in (ConnectX computes alpha from cnp_received), then
    // the cut; with the paper's small g the order changes alpha by at most g.
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_alphaTime = now; // the alpha timer restarts
    m_alphaTrace(m_alpha);
    if (m_clampTargetRate || (m_clampAfterTimeIncrease && m_timerIncreased) || m_cuts == 0)
    {
        m_rt = m_rc;
    }
    m_timerIncreased = false;
    // The rate never reaches zero, whatever MinRate says: 1 bit/s at the least.
    m_rc = std::max(
        {m_rc * (1.0 - m_alpha / 2.0), static_cast<double>(m_minRate.GetBitRate()), 1.0});
    SetRate(DataRate(static_cast<uint64_t>(m_rc)));
    ++m_cuts;
    m_cutDone = true;
    m_lastCut = now;
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
    m_increaseEvent.Cancel();
    m_increaseEvent = Simulator::Schedule(m_increasePeriod, &RdmaCcDcqcn::IncreaseTimer, this);
    m_sentThisPeriod = false;
}

void
RdmaCcDcqcn::OnPacketSent(uint32_t wireBytes)
{
    if (!m_active)
    {
        return;
    }
    m_sentThisPeriod = true;
    if (!m_increaseEvent.IsRunning())
    {
        // The QP was idle and its timer parked: the timer runs again from now.
        m_increaseEvent = Simulator::Schedule(m_increasePeriod, &RdmaCcDcqcn::IncreaseTimer, this);
    }
    m_bytes += wireBytes;
    if (m_bytes >= m_byteCounter)
    {
        m_bytes -= m_byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
RdmaCcDcqcn::IncreaseTimer()
{
    ++m_timerStage;
    m_timerIncreased = true;
    Increase();
    // A QP that sent nothing for a whole period parks its timer until it sends again, so
    // that an idle QP does not tick (and keep a simulation alive) until it reaches line rate.
    if (m_active && m_sentThisPeriod)
    {
        m_increaseEvent = Simulator::Schedule(m_increasePeriod, &RdmaCcDcqcn::IncreaseTimer, this);
    }
    m_sentThisPeriod = false;
}

void
RdmaCcDcqcn::Increase()
{
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    const uint32_t lo = std::min(m_timerStage, m_byteStage);
    const uint32_t hi = std::max(m_timerStage, m_byteStage);
    if (hi < m_fastRecovery)
    {
        // fast recovery: Rt unchanged
    }
    else if (lo > m_fastRecovery)
    {
        m_rt += static_cast<double>(lo - m_fastRecovery) * m_rhai.GetBitRate();
    }
    else
    {
        m_rt += static_cast<double>(m_rai.GetBitRate());
    }
    m_rt = std::min(m_rt, line);
    m_rc = std::min((m_rt + m_rc) / 2.0, line);
    SetRate(DataRate(static_cast<uint64_t>(m_rc)));
    MaybeIdle();
}

void
RdmaCcDcqcn::MaybeIdle()
{
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    // Within 1 bit/s of the line rate counts as there (halving the gap never closes it).
    if (m_rt >= line && m_rc >= line - 1.0)
    {
        m_rc = line;
        SetRate(GetLineRate());
        m_active = false;
        m_increaseEvent.Cancel();
    }
}

static RdmaCcRegistration g_dcqcn("dcqcn",
                                  &RdmaCcDcqcn::GetTypeId,
                                  "roce",
                                  "DCQCN (SIGCOMM 2015): rate cut on CNPs, recovery by timer "
                                  "and byte counter");

} // namespace ns3
