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
    m_protocols[NCCL_SIMPLE].candidate = true;
    Refresh();
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
    Refresh();
}

void
CollectiveTuner::SetProtocol(NcclProtocol protocol,
                             Time stepLatency,
                             Time nvLinkStepLatency,
                             double efficiency)
{
    NS_ABORT_MSG_IF(efficiency <= 0 || efficiency > 1,
                    "CollectiveTuner: a protocol's efficiency is in (0, 1]");
    ProtocolTerms& terms = m_protocols[protocol];
    terms.candidate = true;
    terms.step = stepLatency;
    terms.nvStep = nvLinkStepLatency;
    terms.efficiency = efficiency;
    Refresh();
}

void
CollectiveTuner::SetTreeLatencies(NcclProtocol protocol, Time stepLatency, Time nvLinkStepLatency)
{
    ProtocolTerms& terms = m_protocols[protocol];
    terms.treeSet = true;
    terms.treeStep = stepLatency;
    terms.treeNvStep = nvLinkStepLatency;
    Refresh();
}

void
CollectiveTuner::SetBaseLatency(NcclProtocol protocol, Time latency)
{
    m_protocols[protocol].base = latency;
}

void
CollectiveTuner::SetProtocols(const Communicator& comm)
{
    for (NcclProtocol p : {NCCL_SIMPLE, NCCL_LL, NCCL_LL128})
    {
        SetProtocol(
            p, comm.GetStepLatency(p), comm.GetNvLinkStepLatency(p), comm.GetProtocolEfficiency(p));
        SetTreeLatencies(p, comm.GetStepLatency(p, true), comm.GetNvLinkStepLatency(p, true));
        SetBaseLatency(p, comm.GetBaseLatency(p));
    }
}

void
CollectiveTuner::Refresh()
{
    for (uint32_t p = 0; p < NCCL_PROTOCOL_COUNT; ++p)
    {
        const ProtocolTerms& terms = m_protocols[p];
        CollectiveSystem& system = m_systems[p];
        system = m_system;
        system.alpha += terms.step;
        system.nvAlpha += terms.nvStep;
        system.beta /= terms.efficiency;
        system.nvRingEfficiency *= terms.efficiency;
        CollectiveSystem& tree = m_treeSystems[p];
        tree = system;
        if (terms.treeSet)
        {
            tree.alpha = m_system.alpha + terms.treeStep;
            tree.nvAlpha = m_system.nvAlpha + terms.treeNvStep;
        }
    }
}

const CollectiveSystem&
CollectiveTuner::GetSystem() const
{
    return m_systems[NCCL_SIMPLE];
}

CollectiveSystem
CollectiveTuner::GetSystem(NcclProtocol protocol) const
{
    return m_systems[protocol];
}

bool
CollectiveTuner::HasProtocol(NcclProtocol protocol) const
{
    return m_protocols[protocol].candidate;
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
    algorithm->Configure(nRanks, GetSystem());
    return algorithm->Predict(type, nRanks, bytes, GetSystem());
}

std::string
CollectiveTuner::Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const
{
    Choice choice;
    std::string error;
    NS_ABORT_MSG_IF(!Choose(type, nRanks, bytes, "auto", "simple", choice, error),
                    "CollectiveTuner: " << error);
    return choice.algorithm;
}

bool
CollectiveTuner::Choose(CollectiveType type,
                        uint32_t nRanks,
                        uint64_t bytes,
                        const std::string& algorithm,
                        const std::string& protocol,
                        Choice& choice,
                        std::string& error,
                        const CollectiveSystem* configuration) const
{
    NcclProtocol only = NCCL_SIMPLE;
    const bool anyProtocol = protocol == "auto";
    if (!anyProtocol && !ParseNcclProtocol(protocol, only))
    {
        error = "--protocol=" + protocol + ": expected auto, simple, ll or ll128";
        return false;
    }
    const bool anyAlgorithm = algorithm == "auto";
    choice = Choice();
    Time best = Time::Max();
    bool found = false;
    for (const CollectiveAlgorithmRegistration::Entry& e : CollectiveAlgorithmRegistration::List())
    {
        if (e.type != type || (anyAlgorithm ? !e.autoCandidate : e.name != algorithm))
        {
            continue;
        }
        std::string why;
        Ptr<CollectiveAlgorithm> candidate
            = CollectiveAlgorithm::CreateByName(e.name, type, nRanks, why);
        if (!candidate || (anyAlgorithm && !candidate->FitsSystem(GetSystem())))
        {
            continue;
        }
        // Ties keep the first: the lower registration order (the ring's), then Simple.
        for (NcclProtocol p : {NCCL_SIMPLE, NCCL_LL128, NCCL_LL})
        {
            if (!candidate->SupportsProtocol(p) || (anyProtocol ? !HasProtocol(p) : p != only))
            {
                continue;
            }
            CollectiveSystem system
                = candidate->UsesTreeLatency() ? m_treeSystems[p] : m_systems[p];
            if (configuration)
            {
                system.serverAwareRing = configuration->serverAwareRing;
                system.torusDims = configuration->torusDims;
                if (system.gpusPerServer == 0)
                {
                    system.gpusPerServer = configuration->gpusPerServer;
                }
            }
            candidate->Configure(nRanks, system);
            const Time t = m_protocols[p].base + candidate->Predict(type, nRanks, bytes, system);
            if (!found || t < best)
            {
                best = t;
                choice.algorithm = e.name;
                choice.protocol = p;
                choice.predicted = t;
                found = true;
            }
        }
    }
    if (!found)
    {
        if (anyAlgorithm && anyProtocol)
        {
            error = std::string("no algorithm runs ") + CollectiveTypeName(type);
        }
        else if (anyAlgorithm)
        {
            error = std::string("--protocol=") + protocol + ": no algorithm that --algo=auto "
                    "considers for " + CollectiveTypeName(type) + " runs with it";
        }
        else
        {
            error = "--algo=" + algorithm + " does not run with --protocol=" + protocol
                    + " (NVLS and NVLSTree run with Simple only, as in NCCL)";
        }
    }
    return found;
}

} // namespace ns3
