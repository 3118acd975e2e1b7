/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// DCQCN's reaction and notification points, one event at a time, against the algorithm's
// formulas (Zhu et al., SIGCOMM 2015).

#include "ai-fabric-test-fixture.h"
#include "ns3/double.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

class DcqcnTest : public AiFabricTest
{
  protected:
    /**
     * \param preset a preset name
     * \param line the line rate
     * \return a DCQCN instance with the preset's attributes, attached to a port
     */
    static Ptr<RdmaCcDcqcn> Make(const std::string& preset, DataRate line)
    {
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        for (const auto& [name, value] : RdmaCcDcqcn::GetPreset(preset))
        {
            cc->SetAttribute(name, StringValue(value));
        }
        cc->SetLineRate(line);
        return cc;
    }
};

/// Run the simulator up to t.
void
RunUntil(Time t)
{
    Simulator::Stop(t - Simulator::Now());
    Simulator::Run();
}

/**
 * \brief The QP sends a 1-byte packet every microsecond until a time (so that its rate-increase
 *        timer keeps running; 1 byte leaves the byte counter's stage alone).
 * \param cc its congestion control
 * \param until the last packet's time
 */
void
KeepSending(Ptr<RdmaCcDcqcn> cc, Time until)
{
    for (Time t = Simulator::Now(); t <= until; t += MicroSeconds(1))
    {
        Simulator::Schedule(t - Simulator::Now(), &RdmaCcDcqcn::OnPacketSent, cc, 1);
    }
}

} // namespace

// The first CNP: alpha starts at 1 and is updated first, so the rate halves; the target is the
// rate before the cut.
TEST_F(DcqcnTest, FirstCnpHalvesTheRate)
{
    const DataRate line("40Gbps");
    Ptr<RdmaCcDcqcn> cc = Make("paper", line);
    EXPECT_EQ(cc->GetRate(), line);
    cc->OnCongestionNotification();
    const double g = 1.0 / 256;
    const double alpha = (1 - g) * 1.0 + g;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_EQ(cc->GetRate().GetBitRate(), static_cast<uint64_t>(40e9 * (1 - alpha / 2)));
    EXPECT_EQ(cc->GetTargetRate(), line);
    EXPECT_EQ(cc->GetRateCuts(), 1u);
}

// Alpha decays by (1 - g) per AlphaPeriod without a CNP; the next cut uses the decayed alpha,
// updated with the new CNP.
TEST_F(DcqcnTest, AlphaDecaysBetweenCnps)
{
    Ptr<RdmaCcDcqcn> cc = Make("paper", DataRate("40Gbps"));
    const double g = 1.0 / 256;
    Simulator::Schedule(Time(0), &RdmaCcDcqcn::OnCongestionNotification, cc);
    KeepSending(cc, MicroSeconds(200));
    RunUntil(MicroSeconds(3 * 55 + 10)); // three alpha periods
    const double a1 = (1 - g) + g;
    EXPECT_NEAR(cc->GetAlpha(), a1 * std::pow(1 - g, 3), 1e-12);
    const double rcBefore = static_cast<double>(cc->GetRate().GetBitRate());
    cc->OnCongestionNotification();
    const double a2 = (1 - g) * a1 * std::pow(1 - g, 3) + g;
    EXPECT_NEAR(cc->GetAlpha(), a2, 1e-12);
    EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), rcBefore * (1 - a2 / 2), 1.0);
    EXPECT_NEAR(static_cast<double>(cc->GetTargetRate().GetBitRate()), rcBefore, 1.0);
}

// Timer events: F of them are fast recovery (Rc halves its distance to Rt, Rt fixed), then
// additive increase (Rt += R_AI); with the byte counter also past F, hyper increase.
TEST_F(DcqcnTest, IncreaseStagesFollowTheTimerAndByteCounter)
{
    const DataRate line("40Gbps");
    Ptr<RdmaCcDcqcn> cc = Make("paper", line);
    Simulator::Schedule(Time(0), &RdmaCcDcqcn::OnCongestionNotification, cc);
    KeepSending(cc, MicroSeconds(1000));
    RunUntil(NanoSeconds(1));
    double rt = 40e9;
    double rc = static_cast<double>(cc->GetRate().GetBitRate());
    // Five timer events (F = 5): fast recovery.
    for (int i = 1; i <= 5; ++i)
    {
        RunUntil(MicroSeconds(55 * i) + NanoSeconds(1));
        rc = (rt + rc) / 2;
        EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), rc, 2.0) << i;
        EXPECT_EQ(cc->GetTargetRate(), line);
    }
    // Sixth: additive increase, but Rt is already the line rate, so it stays there.
    RunUntil(MicroSeconds(55 * 6) + NanoSeconds(1));
    rc = (rt + rc) / 2;
    EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), rc, 2.0);

    // A second CNP lowers Rt to the current rate; then additive and hyper increase move it.
    cc->OnCongestionNotification();
    rt = rc;
    const double alpha = cc->GetAlpha();
    rc = rc * (1 - alpha / 2);
    EXPECT_NEAR(static_cast<double>(cc->GetTargetRate().GetBitRate()), rt, 2.0);
    const Time t0 = Simulator::Now();
    // Six byte-counter events (10 MB each): BC = 6 > F, timer T = 0: max(T, BC) >= F and
    // min(T, BC) = 0 <= F: additive increase for the sixth.
    for (int i = 1; i <= 6; ++i)
    {
        cc->OnPacketSent(10000000);
        if (i >= 5)
        {
            rt += 40e6; // additive (BC = 5: max not < F; BC = 6: min still 0)
        }
        rc = (rt + rc) / 2;
        EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), rc, 4.0) << i;
    }
    // Six timer events: T = 1..6, BC = 6. While T <= F: additive; T = 6: hyper with
    // i = min(T, BC) - F = 1.
    for (int i = 1; i <= 6; ++i)
    {
        RunUntil(t0 + MicroSeconds(55 * i) + NanoSeconds(1));
        rt += i < 6 ? 40e6 : 1 * 400e6;
        rt = std::min(rt, 40e9);
        rc = std::min((rt + rc) / 2, 40e9);
        EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), rc, 8.0) << i;
    }
}

// ConnectX: at most one cut per RateReducePeriod; a CNP inside the period cuts at its end.
TEST_F(DcqcnTest, RateReducePeriodDefersCuts)
{
    Ptr<RdmaCcDcqcn> cc = Make("connectx", DataRate("400Gbps"));
    Simulator::Schedule(Time(0), &RdmaCcDcqcn::OnCongestionNotification, cc);
    Simulator::Schedule(MicroSeconds(1), &RdmaCcDcqcn::OnCongestionNotification, cc);
    Simulator::Schedule(MicroSeconds(2), &RdmaCcDcqcn::OnCongestionNotification, cc);
    RunUntil(MicroSeconds(3));
    EXPECT_EQ(cc->GetRateCuts(), 1u);
    RunUntil(MicroSeconds(4) + NanoSeconds(1));
    EXPECT_EQ(cc->GetRateCuts(), 2u); // the two CNPs inside the period: one cut at its end
}

// The rate never falls below MinRate.
TEST_F(DcqcnTest, MinRateHolds)
{
    Ptr<RdmaCcDcqcn> cc = Make("paper", DataRate("40Gbps"));
    cc->SetAttribute("MinRate", DataRateValue(DataRate("1Gbps")));
    for (int i = 0; i < 20; ++i)
    {
        cc->OnCongestionNotification();
    }
    EXPECT_EQ(cc->GetRate(), DataRate("1Gbps"));
}

// Back at the line rate the QP runs no timers: the simulation ends by itself (the QP sends
// for 5 ms; recovery to 40 Gb/s takes about 2 ms of timer events).
TEST_F(DcqcnTest, RecoveredQpRunsNoTimers)
{
    Ptr<RdmaCcDcqcn> cc = Make("paper", DataRate("40Gbps"));
    Simulator::Schedule(Time(0), &RdmaCcDcqcn::OnCongestionNotification, cc);
    KeepSending(cc, MilliSeconds(5));
    Simulator::Run(); // would never return if the increase timer kept running
    EXPECT_EQ(cc->GetRate(), DataRate("40Gbps"));
    EXPECT_EQ(cc->GetTargetRate(), DataRate("40Gbps"));
}

// A QP that stops sending parks its timer after one idle period, and its next packet starts
// it again: the rate waits, it does not creep up while the QP is idle.
TEST_F(DcqcnTest, IdleQpParksItsTimer)
{
    Ptr<RdmaCcDcqcn> cc = Make("paper", DataRate("40Gbps"));
    Simulator::Schedule(Time(0), &RdmaCcDcqcn::OnCongestionNotification, cc);
    Simulator::Run(); // one timer event (the cut's period), then parked: Run returns
    EXPECT_EQ(Simulator::Now(), MicroSeconds(55));
    const DataRate parked = cc->GetRate();
    EXPECT_LT(parked, DataRate("40Gbps"));
    // Much later, the QP sends again: the timer runs from then on.
    Simulator::Schedule(MilliSeconds(10) - Simulator::Now(), &RdmaCcDcqcn::OnPacketSent, cc, 1);
    RunUntil(MilliSeconds(10) + MicroSeconds(1));
    EXPECT_EQ(cc->GetRate(), parked);
    KeepSending(cc, MilliSeconds(10) + MicroSeconds(60));
    RunUntil(MilliSeconds(10) + MicroSeconds(56));
    EXPECT_GT(cc->GetRate(), parked);
}

// The notification point asks for at most one CNP per CnpInterval.
TEST_F(DcqcnTest, NotificationPointPacesCnps)
{
    Ptr<RdmaCcDcqcn> cc = Make("paper", DataRate("40Gbps")); // 50 us
    std::vector<bool> answers;
    for (uint32_t us : {0, 10, 49, 50, 60, 100})
    {
        Simulator::Schedule(MicroSeconds(us),
                            [cc, &answers]() { answers.push_back(cc->OnCongestionMarked()); });
    }
    Simulator::Run();
    EXPECT_EQ(answers, (std::vector<bool>{true, false, false, true, false, true}));
    // Without congestion control, marks are never answered.
    EXPECT_FALSE(CreateObject<RdmaCcNone>()->OnCongestionMarked());
}

// Both presets exist and set every attribute; an unknown name has none.
TEST_F(DcqcnTest, Presets)
{
    for (const std::string name : {"paper", "connectx"})
    {
        const auto preset = RdmaCcDcqcn::GetPreset(name);
        EXPECT_EQ(preset.size(), 13u) << name;
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        for (const auto& [attr, value] : preset)
        {
            EXPECT_TRUE(cc->SetAttributeFailSafe(attr, StringValue(value))) << name << " " << attr;
        }
    }
    EXPECT_TRUE(RdmaCcDcqcn::GetPreset("bogus").empty());
    // The class defaults are ConnectX's.
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    for (const auto& [attr, value] : RdmaCcDcqcn::GetPreset("connectx"))
    {
        StringValue v;
        cc->GetAttribute(attr, v);
        Ptr<RdmaCcDcqcn> other = CreateObject<RdmaCcDcqcn>();
        other->SetAttribute(attr, StringValue(value));
        StringValue w;
        other->GetAttribute(attr, w);
        EXPECT_EQ(v.Get(), w.Get()) << attr;
    }
}
