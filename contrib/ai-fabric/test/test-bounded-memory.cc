/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Bounded memory: a time series that would outgrow its bound is refused up front (a run of
// known length) or decimated (a run until its flows finish), so every run ends within 2 GB of
// address space.

#include "ai-fabric-test-command.h"
#include "ai-fabric-test-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

class BoundedMemoryTest : public AiFabricTest
{
};

/**
 * \param command a program and its arguments
 * \return how it ended with at most 2 GiB of address space
 */
CommandResult
Within2GiB(const std::string& command)
{
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer reserves terabytes of address space for its shadow: no limit here (the
    // release run checks the bound).
    return RunCommand(command);
#else
    return RunCommand("bash -c 'ulimit -v 2097152; exec " + command + "'");
#endif
}

// The audit's run grew to several GB and never ended: now one line and exit 2, at once.
TEST_F(BoundedMemoryTest, TimeSeriesOfKnownLengthAreRefused)
{
    for (const std::string args :
         {"ai-fabric-dcqcn --duration=2ms --stagger=0.5ms --printEvery=1ms --interval=0.001ns",
          "ai-fabric-dcqcn --duration=2ms --stagger=0.5ms --printEvery=0.001ns",
          "ai-fabric-pfc-hol --interval=0.001ns"})
    {
        const CommandResult r = Within2GiB(ProgramPath("") + args);
        EXPECT_EQ(r.status, 2) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

// A run until the flows finish samples every 1 ns: its series is merged and thinned as it
// grows, the run ends within 2 GiB, and its CSV still spans the whole run in time order.
TEST_F(BoundedMemoryTest, TimeSeriesOfUnknownLengthAreDecimated)
{
    const std::string dir = TempDir();
    const CommandResult r
        = Within2GiB(ProgramPath("ai-fabric-incast")
                     + " --senders=8 --bytes=8M --interval=1ns --trace=" + dir + "/t");
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream csv(ReadFile(dir + "/t.csv"));
    std::string line;
    std::getline(csv, line); // header
    double previous = -1;
    double last = 0;
    uint64_t rows = 0;
    while (std::getline(csv, line))
    {
        previous = last;
        last = std::stod(line.substr(0, line.find(',')));
        EXPECT_GT(last, previous);
        ++rows;
    }
    // 8 x 8 MiB through one 400 Gb/s port take about 1.34 ms: 1.34 million samples at 1 ns,
    // more than the bound of 25 M values holds at 26 values each (961,538): the series was
    // merged once and sampled every 2 ns after.
    EXPECT_LT(rows, 25000000u / 26);
    EXPECT_GT(rows, 400000u);
    EXPECT_GT(last, 1300.0);                     // the series reaches the end of the run (us)
    EXPECT_NEAR(last - previous, 0.002, 0.0005); // every 2 ns at the end
}

} // namespace
