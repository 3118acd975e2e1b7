/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "collective-tuner.h"

#include "ns3/abort.h"
#include "ns3/object-factory.h"

#include <cmath>

namespace ns3
{

namespace
{
/// An algorithm name and the class that builds it, per collective.
struct AlgorithmEntry
{
    const char* name;       //!< command-line name
    CollectiveType type;    //!< the collective
    const char* typeIdName; //!< the class
    bool nccl;              //!< one of NCCL's own algorithms: a candidate of --algo=auto
};

/// The algorithms ai-fabric has, by name and collective.
const AlgorithmEntry ALGORITHMS[] = {
    {"ring", CollectiveType::ALL_REDUCE, "ns3::RingAlgorithm", true},
    {"ring", CollectiveType::ALL_GATHER, "ns3::RingAlgorithm", true},
    {"ring", CollectiveType::REDUCE_SCATTER, "ns3::RingAlgorithm", true},
    {"ring", CollectiveType::BROADCAST, "ns3::ChainBroadcastAlgorithm", true}, // NCCL's ring
    {"chain", CollectiveType::BROADCAST, "ns3::ChainBroadcastAlgorithm", false},
    {"tree", CollectiveType::ALL_REDUCE, "ns3::DoubleBinaryTreeAlgorithm", true},
    {"hd", CollectiveType::ALL_REDUCE, "ns3::HalvingDoublingAlgorithm", false},
    {"pairwise", CollectiveType::ALL_TO_ALL, "ns3::PairwiseAllToAllAlgorithm", false},
    {"direct", CollectiveType::ALL_TO_ALL, "ns3::DirectAllToAllAlgorithm", true},
    {"nvls", CollectiveType::ALL_REDUCE, "ns3::NvlsAlgorithm", false},
    {"hier", CollectiveType::ALL_REDUCE, "ns3::HierarchicalAlgorithm", false},
    {"nvlstree", CollectiveType::ALL_REDUCE, "ns3::NvlsTreeAlgorithm", false},
    {"torus", CollectiveType::ALL_REDUCE, "ns3::TorusAllReduceAlgorithm", false},
    {"torus", CollectiveType::ALL_GATHER, "ns3::TorusAllReduceAlgorithm", false},
    {"torus", CollectiveType::REDUCE_SCATTER, "ns3::TorusAllReduceAlgorithm", false},
};

} // namespace

CollectiveTuner::CollectiveTuner(Time alpha, DataRate nicRate, double wireEfficiency)
    : m_alpha(alpha)
    , m_nicRate(nicRate)
    , m_wireEfficiency(wireEfficiency)
{
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
    m_servers = servers;
    m_gpusPerServer = gpusPerServer;
    m_nvAlpha = nvlinkAlpha;
    m_nvRate = nvlinkRate;
    m_nvRingEff = ringEfficiency;
    m_nvlsEff = nvlsEfficiency;
    m_nvls = nvls;
}

std::vector<std::string>
CollectiveTuner::GetAlgorithmNames()
{
    return {"ring",
            "tree",
            "hd",
            "chain",
            "pairwise",
            "direct",
            "hier",
            "nvls",
            "nvlstree",
            "torus",
            "auto"};
}

Ptr<CollectiveAlgorithm>
CollectiveTuner::Create(const std::string& name,
                        CollectiveType type,
                        uint32_t nRanks,
                        std::string& error)
{
    bool known = false;
    for (const AlgorithmEntry& e : ALGORITHMS)
    {
        known = known || name == e.name;
        if (name != e.name || type != e.type)
        {
            continue;
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(e.typeIdName, &tid))
        {
            break;
        }
        ObjectFactory factory(e.typeIdName);
        Ptr<CollectiveAlgorithm> algorithm = factory.Create<CollectiveAlgorithm>();
        if (!algorithm->Supports(type, nRanks))
        {
            error = "--algo=" + name + " does not run " + CollectiveTypeName(type) + " on "
                    + std::to_string(nRanks) + " ranks";
            return nullptr;
        }
        return algorithm;
    }
    error = known ? "--algo=" + name + " does not run " + CollectiveTypeName(type)
                  : "--algo=" + name + ": unknown algorithm";
    return nullptr;
}

Time
CollectiveTuner::Predict(const std::string& name,
                         CollectiveType type,
                         uint32_t nRanks,
                         uint64_t bytes) const
{
    const double n = nRanks;
    const double alpha = m_alpha.GetSeconds();
    const double beta = 8.0 / m_nicRate.GetBitRate() / m_wireEfficiency;
    const double s = static_cast<double>(bytes);
    const double logSteps = std::ceil(std::log2(n));
    double t = 0;
    const bool oneServer = m_servers == 1;
    const double nvAlpha = m_nvAlpha.GetSeconds();
    if (name == "nvls")
    {
        // Two steps (reduce, multicast); S (n + 1) / n each way on every GPU's NVLinks.
        return Seconds(2 * nvAlpha + (n + 1) / n * s * 8.0 / m_nvRate.GetBitRate() / m_nvlsEff);
    }
    if (name == "nvlstree")
    {
        // NVLS reduction and multicast in each server (two NVLink steps), the double binary
        // tree across servers between heads; NVLink carries S (g + 1) / g per GPU, each NIC
        // about 2 S / g.
        const double g = m_gpusPerServer;
        const double serverSteps = std::ceil(std::log2(static_cast<double>(m_servers)));
        const double nvTerm = (g + 1) / g * s * 8.0 / m_nvRate.GetBitRate() / m_nvlsEff;
        const double netTerm = 2 * s / g * beta;
        return Seconds(2 * (serverSteps * alpha + 2 * nvAlpha) + std::max(nvTerm, netTerm));
    }
    if (name == "tree" && m_servers > 0)
    {
        // NCCL's tree on servers: a chain of g GPUs over NVLink in each server, the double
        // binary tree over the servers' heads; up and down.
        const double g = m_gpusPerServer;
        const double serverSteps = std::ceil(std::log2(static_cast<double>(m_servers)));
        if (oneServer)
        {
            return Seconds(2 * (g - 1) * nvAlpha
                           + 2 * s * 8.0 / m_nvRate.GetBitRate() / m_nvRingEff);
        }
        return Seconds(2 * (serverSteps * alpha + (g - 1) * nvAlpha) + 2 * s * beta);
    }
    if (name == "ring" && oneServer && type == CollectiveType::ALL_REDUCE)
    {
        const double nvBeta = 8.0 / m_nvRate.GetBitRate() / m_nvRingEff;
        return Seconds(2 * (n - 1) * nvAlpha + 2 * (n - 1) / n * s * nvBeta);
    }
    if (name == "ring" && type == CollectiveType::ALL_REDUCE)
    {
        t = 2 * (n - 1) * alpha + 2 * (n - 1) / n * s * beta;
    }
    else if (name == "ring" && type == CollectiveType::BROADCAST)
    {
        t = (n - 1) * alpha + s * beta;
    }
    else if (name == "ring")
    {
        t = (n - 1) * alpha + (n - 1) / n * s * beta;
    }
    else if (name == "tree")
    {
        t = 2 * logSteps * alpha + 2 * s * beta;
    }
    else if (name == "hd")
    {
        // Not a power of two: a pre- and a post-step move the whole buffer once each.
        const bool powerOfTwo = (nRanks & (nRanks - 1)) == 0;
        t = 2 * logSteps * alpha + (2 * (n - 1) / n + (powerOfTwo ? 0 : 2)) * s * beta;
    }
    else if (name == "chain")
    {
        t = (n - 1) * alpha + s * beta;
    }
    else if (name == "pairwise")
    {
        t = (n - 1) * alpha + (n - 1) / n * s * beta;
    }
    else if (name == "direct")
    {
        t = alpha + (n - 1) / n * s * beta;
    }
    else
    {
        NS_ABORT_MSG("CollectiveTuner: no model for " << name);
    }
    return Seconds(t);
}

std::string
CollectiveTuner::Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const
{
    std::string best;
    Time bestTime = Time::Max();
    for (const AlgorithmEntry& e : ALGORITHMS)
    {
        std::string error;
        const bool scaleUpCandidate = m_nvls
                                      && ((std::string(e.name) == "nvls" && m_servers == 1)
                                          || (std::string(e.name) == "nvlstree" && m_servers > 1));
        if ((!e.nccl && !scaleUpCandidate) || e.type != type
            || !Create(e.name, type, nRanks, error))
        {
            continue;
        }

        const Time t = Predict(e.name, type, nRanks, bytes);
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
