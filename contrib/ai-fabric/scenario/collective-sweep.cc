/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-sweep.h"

#include "fabric-cli.h"
#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/communicator.h"
#include "ns3/simulator.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <tuple>

namespace ns3
{

namespace
{
/// nccl-tests' default data type: float.
constexpr uint64_t ELEMENT_BYTES = 4;

/**
 * \param type a collective
 * \return nccl-tests' reduction operator column
 */
const char*
RedOp(CollectiveType type)
{
    return (type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER) ? "sum"
                                                                                          : "none";
}
} // namespace

CollectiveSweep::CollectiveSweep(CollectiveHelper& collectives,
                                 const CollectiveTuner& tuner,
                                 const CollectiveSweepConfig& config)
    : m_collectives(collectives)
    , m_tuner(tuner)
    , m_config(config)
{
    NS_ABORT_MSG_IF(config.minBytes > config.maxBytes || config.stepFactor < 2
                        || config.iterations == 0,
                    "CollectiveSweep: bad sweep");
}

std::vector<uint64_t>
CollectiveSweep::GetSizes() const
{
    const uint64_t n = m_collectives.GetNRanks();
    const bool perRank = m_config.type == CollectiveType::ALL_GATHER
                         || m_config.type == CollectiveType::REDUCE_SCATTER
                         || m_config.type == CollectiveType::ALL_TO_ALL;
    const uint64_t unit = ELEMENT_BYTES * (perRank ? n : 1);
    std::vector<uint64_t> sizes;
    for (uint64_t size = m_config.minBytes; size <= m_config.maxBytes;)
    {
        sizes.push_back(size / unit * unit);
        if (size > m_config.maxBytes / m_config.stepFactor)
        {
            break;
        }
        // After a size of zero comes one element (nccl-tests' -b 0 would never grow).
        size = size == 0 ? unit : size * m_config.stepFactor;
    }
    return sizes;
}

CollectiveSweepConfig
CollectiveSweep::FromFlags(const std::string& program,
                           CollectiveType type,
                           const std::string& algorithm,
                           const std::string& minBytes,
                           const std::string& maxBytes,
                           const std::string& stepFactor,
                           const std::string& iters,
                           const std::string& warmup,
                           bool quiet)
{
    CollectiveSweepConfig sweep;
    sweep.type = type;
    sweep.algorithm = algorithm;
    for (const auto& [name, text, bytes] : {std::tie("minBytes", minBytes, sweep.minBytes),
                                            std::tie("maxBytes", maxBytes, sweep.maxBytes)})
    {
        if (!FabricCli::ParseBytes(text, bytes))
        {
            FabricCli::Fail(program,
                            std::string("--") + name + "=" + text
                                + ": expected a size (e.g. 0, 8, 64K, 1G)");
        }
    }
    if (sweep.minBytes > sweep.maxBytes)
    {
        FabricCli::Fail(program,
                        "--minBytes=" + minBytes + " is larger than --maxBytes=" + maxBytes);
    }
    sweep.stepFactor = FabricCli::Whole(program, "stepFactor", stepFactor, 2, 1 << 20);
    sweep.iterations = FabricCli::Whole(program, "iters", iters, 1, 1 << 20);
    sweep.warmup = FabricCli::Whole(program, "warmup", warmup, 0, 1 << 20);
    sweep.progress = !quiet;
    return sweep;
}

void
CollectiveSweep::Schedule()
{
    const uint32_t n = m_collectives.GetNRanks();
    // What the algorithms configure themselves from: the tuner's system and this sweep's
    // servers, ring order and torus grid.
    CollectiveSystem system = m_tuner.GetSystem();
    system.serverAwareRing = m_config.serverAwareRing;
    if (system.gpusPerServer == 0)
    {
        system.gpusPerServer = m_config.gpusPerServer;
    }
    system.torusDims = m_config.torusDims;
    for (uint64_t size : GetSizes())
    {
        CollectiveTuner::Choice choice;
        std::string error;
        NS_ABORT_MSG_IF(!m_tuner.Choose(m_config.type,
                                        n,
                                        size,
                                        m_config.algorithm,
                                        m_config.protocol,
                                        choice,
                                        error,
                                        &system),
                        "CollectiveSweep: " << error);
        const std::string& name = choice.algorithm;
        Ptr<CollectiveAlgorithm> algorithm
            = CollectiveAlgorithm::CreateByName(name, m_config.type, n, error);
        NS_ABORT_MSG_IF(!algorithm, "CollectiveSweep: " << error);
        algorithm->Configure(n, system);
        // NCCL runs small collectives on fewer channels (NVLS has its own channel count, and
        // all-to-all is point-to-point work with one message per peer).
        const bool ncclChannels = name != "nvls" && m_config.type != CollectiveType::ALL_TO_ALL;
        const uint32_t channels
            = ncclChannels ? m_collectives.GetCommunicator(0)->ChannelsFor(
                  size, m_collectives.GetChannels(), name == "ring", choice.protocol)
                           : m_collectives.GetChannels();
        Ptr<CollectiveSchedule> plan = algorithm->Schedule(
            m_config.type, n, size, channels, m_collectives.GetChunkBytes(choice.protocol));
        plan->SetProtocol(choice.protocol);
        m_collectives.Connect(*plan);
        m_plans.push_back(plan);
    }
    m_wallStart = std::chrono::steady_clock::now();
    m_lastProgress = m_wallStart;
    Simulator::ScheduleNow(&CollectiveSweep::Next, this);
    if (m_config.progress)
    {
        Simulator::Schedule(MicroSeconds(PROGRESS_CHECK_US), &CollectiveSweep::ProgressTick, this);
    }
}

void
CollectiveSweep::ProgressTick()
{
    const uint64_t events = Simulator::GetEventCount();
    if (m_done || events == m_tickEvents + 1)
    {
        return; // finished, or nothing but this tick ran since the last: let the run end
    }
    m_tickEvents = events;
    // Between sizes too, a long size reports every PROGRESS_WALL_S seconds of wall time.
    const double since
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_lastProgress).count();
    if (since >= PROGRESS_WALL_S)
    {
        Progress();
    }
    Simulator::Schedule(MicroSeconds(PROGRESS_CHECK_US), &CollectiveSweep::ProgressTick, this);
}

void
CollectiveSweep::Next()
{
    if (m_size >= m_plans.size())
    {
        m_done = true;
        return;
    }
    m_collectives.Run(m_plans[m_size], MakeCallback(&CollectiveSweep::IterationDone, this));
}

void
CollectiveSweep::IterationDone(Time start, Time end)
{
    m_end = end;
    if (m_iteration >= m_config.warmup)
    {
        m_timed += end - start;
    }
    ++m_iteration;
    if (m_iteration == m_config.warmup + m_config.iterations)
    {
        const Ptr<CollectiveSchedule>& plan = m_plans[m_size];
        CollectiveSweepRow row;
        row.bytes = plan->GetBytes();
        // nccl-tests counts the elements of one rank's buffer: the whole buffer for all-reduce
        // and broadcast, one rank's share for all-gather, reduce-scatter and all-to-all.
        const bool perRank = m_config.type == CollectiveType::ALL_GATHER
                             || m_config.type == CollectiveType::REDUCE_SCATTER
                             || m_config.type == CollectiveType::ALL_TO_ALL;
        row.count = row.bytes / ELEMENT_BYTES / (perRank ? plan->GetNRanks() : 1);
        row.algorithm = plan->GetAlgorithm();
        row.protocol = NcclProtocolName(plan->GetProtocol());
        const double seconds = m_timed.GetSeconds() / m_config.iterations;
        row.timeUs = seconds * 1e6;
        row.algbwGBps = seconds > 0 ? row.bytes / seconds / 1e9 : 0;
        row.busbwGBps = row.algbwGBps * BusBandwidthFactor(m_config.type, plan->GetNRanks());
        m_rows.push_back(row);
        ++m_size;
        m_iteration = 0;
        m_timed = Time(0);
        if (m_config.progress)
        {
            Progress();
        }
    }
    Next();
}

void
CollectiveSweep::Progress()
{
    m_lastProgress = std::chrono::steady_clock::now();
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    const double events = static_cast<double>(Simulator::GetEventCount());
    std::fprintf(stderr,
                 "# progress: sim %.3f ms, sizes %zu/%zu, wall %.1f s, %.2f M events/s\n",
                 Simulator::Now().GetSeconds() * 1e3,
                 m_size,
                 m_plans.size(),
                 wall,
                 wall > 0 ? events / wall / 1e6 : 0.0);
}

const std::vector<CollectiveSweepRow>&
CollectiveSweep::GetRows() const
{
    return m_rows;
}

bool
CollectiveSweep::IsDone() const
{
    return m_done;
}

Time
CollectiveSweep::GetEndTime() const
{
    return m_end;
}

void
CollectiveSweep::PrintTable(std::ostream& os,
                            const std::vector<CollectiveSweepRow>& rows,
                            CollectiveType type)
{
    char line[160];
    std::snprintf(line,
                  sizeof(line),
                  "#%12s %13s %9s %7s %10s %8s %8s  %-8s  %s\n",
                  "size",
                  "count",
                  "type",
                  "redop",
                  "time",
                  "algbw",
                  "busbw",
                  "algo",
                  "proto");
    os << line;
    std::snprintf(line,
                  sizeof(line),
                  "#%12s %13s %9s %7s %10s %8s %8s\n",
                  "(B)",
                  "(elements)",
                  "",
                  "",
                  "(us)",
                  "(GB/s)",
                  "(GB/s)");
    os << line;
    for (const CollectiveSweepRow& r : rows)
    {
        std::snprintf(line,
                      sizeof(line),
                      " %12llu %13llu %9s %7s %10.2f %8.2f %8.2f  %-8s  %s\n",
                      static_cast<unsigned long long>(r.bytes),
                      static_cast<unsigned long long>(r.count),
                      "float",
                      RedOp(type),
                      r.timeUs,
                      r.algbwGBps,
                      r.busbwGBps,
                      r.algorithm.c_str(),
                      r.protocol.c_str());
        os << line;
    }
    std::snprintf(line, sizeof(line), "# Avg bus bandwidth    : %g\n", AverageBusBandwidth(rows));
    os << line;
}

double
CollectiveSweep::AverageBusBandwidth(const std::vector<CollectiveSweepRow>& rows)
{
    if (rows.empty())
    {
        return 0;
    }
    double sum = 0;
    for (const CollectiveSweepRow& r : rows)
    {
        sum += r.busbwGBps;
    }
    return sum / rows.size();
}

} // namespace ns3
