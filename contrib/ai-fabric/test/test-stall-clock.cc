/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The stall bookkeeping every port shares (FabricStallClock): open-ended holds (credits) and
// timed ones (PFC pauses), exact to the picosecond at any instant.

#include "ns3/fabric-stall-clock.h"

#include <gtest/gtest.h>

using namespace ns3;

// Waits for credits: each counts from its Hold() to its Release(); a second Hold() while
// held changes nothing; the total is exact mid-hold.
TEST(FabricStallClockTest, OpenEndedHolds)
{
    FabricStallClock c;
    EXPECT_EQ(c.GetTotal(NanoSeconds(5)), Time(0));
    EXPECT_FALSE(c.IsHeldOpen());
    EXPECT_TRUE(c.Hold(NanoSeconds(10)));
    EXPECT_FALSE(c.Hold(NanoSeconds(12))); // already held: the start stays
    EXPECT_TRUE(c.IsHeldOpen());
    EXPECT_TRUE(c.IsHeld(Seconds(100)));
    EXPECT_EQ(c.GetStart(), NanoSeconds(10));
    EXPECT_EQ(c.GetTotal(NanoSeconds(25)), NanoSeconds(15));
    EXPECT_TRUE(c.Release(NanoSeconds(30)));
    EXPECT_FALSE(c.Release(NanoSeconds(31)));
    EXPECT_FALSE(c.IsHeld(NanoSeconds(30)));
    EXPECT_EQ(c.GetTotal(NanoSeconds(50)), NanoSeconds(20));
    EXPECT_TRUE(c.Hold(NanoSeconds(60)));
    EXPECT_EQ(c.GetTotal(NanoSeconds(61)), NanoSeconds(21));
    c.Release(NanoSeconds(70));
    EXPECT_EQ(c.GetTotal(NanoSeconds(80)), NanoSeconds(30));
}

// PFC pauses: a pause runs to its end with no event; one received during another replaces
// it (longer or shorter, and a zero-quanta pause ends it now), keeping the start of the
// unbroken pause; a zero-quanta pause with none in progress changes nothing.
TEST(FabricStallClockTest, TimedHolds)
{
    FabricStallClock c;
    EXPECT_FALSE(c.HoldUntil(NanoSeconds(5), NanoSeconds(5)));
    EXPECT_FALSE(c.IsHeld(NanoSeconds(5)));
    EXPECT_TRUE(c.HoldUntil(NanoSeconds(10), NanoSeconds(110)));
    EXPECT_TRUE(c.IsHeld(NanoSeconds(109)));
    EXPECT_FALSE(c.IsHeld(NanoSeconds(110)));
    EXPECT_FALSE(c.IsHeldOpen());
    EXPECT_EQ(c.GetTotal(NanoSeconds(60)), NanoSeconds(50));
    EXPECT_EQ(c.GetTotal(NanoSeconds(500)), NanoSeconds(100));
    // Extended at 50 to 250: one unbroken pause from 10.
    EXPECT_FALSE(c.HoldUntil(NanoSeconds(50), NanoSeconds(250)));
    EXPECT_EQ(c.GetStart(), NanoSeconds(10));
    EXPECT_EQ(c.GetTotal(NanoSeconds(300)), NanoSeconds(240));
    // A new pause after it ended: a new start, the first one's 240 ns kept.
    EXPECT_TRUE(c.HoldUntil(NanoSeconds(400), NanoSeconds(500)));
    EXPECT_EQ(c.GetStart(), NanoSeconds(400));
    // Resumed (zero quanta) at 420.
    EXPECT_FALSE(c.HoldUntil(NanoSeconds(420), NanoSeconds(420)));
    EXPECT_FALSE(c.IsHeld(NanoSeconds(420)));
    EXPECT_EQ(c.GetTotal(NanoSeconds(1000)), NanoSeconds(260));
    // A link that goes down ends a pause in progress.
    c.HoldUntil(NanoSeconds(2000), NanoSeconds(3000));
    EXPECT_TRUE(c.Release(NanoSeconds(2100)));
    EXPECT_EQ(c.GetTotal(NanoSeconds(5000)), NanoSeconds(360));
}
