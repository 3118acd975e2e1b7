/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_TUNER_H
#define COLLECTIVE_TUNER_H

#include "ns3/collective-algorithm.h"
#include "ns3/collective-plan.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Picks an algorithm per size, the way NCCL's tuner does, by asking the algorithms.
 *
 * NCCL predicts, for every algorithm that can run a collective, time = latency x steps +
 * bytes / bandwidth, and runs the fastest (src/graph/tuning.cc). The tuner describes the
 * fabric once (CollectiveSystem: alpha, the latency of one step, which is the protocol's step
 * latency plus the NICs', the switches' and the cables' on the longest path; beta, the wire
 * time per payload byte at the NIC rate; the NVLink terms of servers) and asks every
 * registered candidate (CollectiveAlgorithmRegistration: NCCL's own algorithms, ring, tree,
 * direct, and NVLS and NVLSTree where the NVSwitches reduce) that supports the collective and
 * fits the system for its prediction (CollectiveAlgorithm::Predict). Each algorithm's model
 * is documented with its class. Halving-doubling, chain, pairwise, hierarchical and torus run
 * only when named.
 */
class CollectiveTuner
{
  public:
    /**
     * \param alpha latency of one step
     * \param nicRate the NIC rate
     * \param wireEfficiency payload bytes per wire byte at the MTU
     */
    CollectiveTuner(Time alpha, DataRate nicRate, double wireEfficiency);

    /// \return every algorithm name the command line accepts, "auto" included
    static std::vector<std::string> GetAlgorithmNames();

    /**
     * \brief Predict an algorithm's time (its own alpha-beta model).
     * \param name a registered algorithm
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the collective's size
     * \return the predicted time
     */
    Time Predict(const std::string& name,
                 CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes) const;

    /**
     * \brief Servers with an NVLink domain each: their NVLink terms.
     * \param servers servers
     * \param gpusPerServer GPUs per NVLink domain
     * \param nvlinkAlpha latency of one NVLink step
     * \param nvlinkRate a GPU's NVLink rate
     * \param ringEfficiency payload share of NVLink with the ring protocol
     * \param nvlsEfficiency payload share of NVLink with NVLS
     * \param nvls the NVSwitches reduce in the switch
     */
    void SetScaleUp(uint32_t servers,
                    uint32_t gpusPerServer,
                    Time nvlinkAlpha,
                    DataRate nvlinkRate,
                    double ringEfficiency,
                    double nvlsEfficiency,
                    bool nvls);

    /// \return the system the algorithms' models see
    const CollectiveSystem& GetSystem() const;

    /**
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the size
     * \return the fastest candidate's name (ties: the lower registration order, the ring's)
     */
    std::string Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const;

  private:
    CollectiveSystem m_system; //!< what the models see
};

} // namespace ns3

#endif /* COLLECTIVE_TUNER_H */
