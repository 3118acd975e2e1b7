/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-tuner.h"

#include "ns3/abort.h"

namespace ns3
{

CollectiveTuner::CollectiveTuner(Time alpha, DataRate nicRate, double wireEfficiency)
{
    m_system.alpha = alpha;
    m_system.beta = 8.0 / nicRate.GetBitRate() / wireEfficiency;
}

void
CollectiveTuner::SetScaleUp(uint32_t servers,
                            uint32_t gpusPerServer,
                            Time nvlinkAlpha,
                            DataRate nvlinkRate,
                            double ringEfficiency,
                            double nvlsEfficiency,
                            bool nvls)
{
    m_system.servers = servers;
    m_system.gpusPerServer = gpusPerServer;
    m_system.nvAlpha = nvlinkAlpha;
    m_system.nvRate = nvlinkRate;
    m_system.nvRingEfficiency = ringEfficiency;
    m_system.nvlsEfficiency = nvlsEfficiency;
    m_system.nvls = nvls;
}

const CollectiveSystem&
CollectiveTuner::GetSystem() const
{
    return m_system;
}

std::vector<std::string>
CollectiveTuner::GetAlgorithmNames()
{
    std::vector<std::string> names = CollectiveAlgorithmRegistration::Names();
    names.emplace_back("auto");
    return names;
}

Time
CollectiveTuner::Predict(const std::string& name,
                         CollectiveType type,
                         uint32_t nRanks,
                         uint64_t bytes) const
{
    std::string error;
    Ptr<CollectiveAlgorithm> algorithm
        = CollectiveAlgorithm::CreateByName(name, type, nRanks, error);
    NS_ABORT_MSG_IF(!algorithm, "CollectiveTuner: " << error);
    algorithm->Configure(nRanks, m_system);
    return algorithm->Predict(type, nRanks, bytes, m_system);
}

std::string
CollectiveTuner::Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const
{
    std::string best;
    Time bestTime = Time::Max();
    for (const CollectiveAlgorithmRegistration::Entry& e : CollectiveAlgorithmRegistration::List())
    {
        if (!e.autoCandidate || e.type != type)
        {
            continue;
        }
        std::string error;
        Ptr<CollectiveAlgorithm> algorithm
            = CollectiveAlgorithm::CreateByName(e.name, type, nRanks, error);
        if (!algorithm || !algorithm->FitsSystem(m_system))
        {
            continue;
        }
        algorithm->Configure(nRanks, m_system);
        const Time t = algorithm->Predict(type, nRanks, bytes, m_system);
        if (t < bestTime) // ties keep the first, the ring
        {
            best = e.name;
            bestTime = t;
        }
    }
    NS_ABORT_MSG_IF(best.empty(), "CollectiveTuner: no algorithm for " << CollectiveTypeName(type));
    return best;
}

} // namespace ns3
