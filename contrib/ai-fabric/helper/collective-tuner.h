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
 * \brief Names algorithms and picks one per size, the way NCCL's tuner does.
 *
 * Only NCCL's own algorithms are candidates of "auto": ring and double binary tree for
 * all-reduce, ring for all-gather, reduce-scatter and broadcast, direct for all-to-all.
 * Halving-doubling, chain and pairwise run only when named.
 *
 * NCCL predicts, for every algorithm that can run a collective, time = latency x steps +
 * bytes / bandwidth, and runs the fastest (src/graph/tuning.cc). The tuner does the same with
 * an alpha-beta model of this fabric: alpha is the latency of one step (the protocol's step
 * latency plus the NICs', the switches' and the cables' on the longest path), beta the wire
 * time per payload byte at the NIC rate. Per algorithm (n ranks, S bytes):
 *
 * - ring all-reduce 2(n-1) alpha + 2(n-1)/n S beta; ring all-gather and reduce-scatter
 *   (n-1) alpha + (n-1)/n S beta;
 * - double binary tree all-reduce 2 ceil(log2 n) alpha + 2 S beta;
 * - halving-doubling all-reduce 2 ceil(log2 n) alpha + 2(n-1)/n S beta, plus 2 S beta when n
 *   is not a power of two (the extra ranks' pre- and post-steps move the whole buffer);
 * - chain broadcast (n-1) alpha + S beta;
 * - pairwise all-to-all (n-1) alpha + (n-1)/n S beta; direct all-to-all
 *   alpha + (n-1)/n S beta.
 */
class CollectiveTuner
{
  public:
    /**
     * \param alpha latency of one step
     * \param nicRate the NIC rate
     * \param wireEfficiency payload bytes per byte of line time (e.g. 4096 / 4178)
     */
    CollectiveTuner(Time alpha, DataRate nicRate, double wireEfficiency);

    /// \return every algorithm name the command line accepts, "auto" included
    static std::vector<std::string> GetAlgorithmNames();

    /**
     * \brief The algorithm of a name for a collective.
     * \param name an algorithm name ("ring", "tree", "hd", "chain", "pairwise", "direct")
     * \param type the collective
     * \param nRanks ranks
     * \param error set to one line when there is no such algorithm for the collective
     * \return the algorithm, or nullptr
     */
    static Ptr<CollectiveAlgorithm> Create(const std::string& name,
                                           CollectiveType type,
                                           uint32_t nRanks,
                                           std::string& error);

    /**
     * \param name an algorithm
     * \param type the collective
     * \param nRanks ranks
     * \param bytes size
     * \return the model's time for it
     */
    Time Predict(const std::string& name,
                 CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes) const;

    /**
     * \brief Servers with NVLink domains (ServerHelper): the ring and the tree then follow
     *        NCCL's server-aware orders (the tree: a chain over NVLink in each server, the
     *        double binary tree over the servers), and NVLS joins the candidates of an
     *        all-reduce inside one NVLS server.
     * \param servers servers
     * \param gpusPerServer GPUs per NVLink domain
     * \param nvlinkAlpha latency of one NVLink step
     * \param nvlinkRate a GPU's NVLink rate
     * \param ringEfficiency payload share of NVLink under the ring's protocol
     * \param nvlsEfficiency payload share of NVLink under NVLS
     * \param nvls the NVSwitches reduce in the switch
     */
    void SetScaleUp(uint32_t servers,
                    uint32_t gpusPerServer,
                    Time nvlinkAlpha,
                    DataRate nvlinkRate,
                    double ringEfficiency,
                    double nvlsEfficiency,
                    bool nvls);

    /**
     * \brief The fastest algorithm by the model.
     * \param type the collective
     * \param nRanks ranks
     * \param bytes size
     * \return its name
     */
    std::string Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const;

  private:
    Time m_alpha;                //!< latency per step
    DataRate m_nicRate;          //!< NIC rate
    double m_wireEfficiency;     //!< payload per wire byte
    uint32_t m_servers{0};       //!< servers with NVLink (0: none)
    uint32_t m_gpusPerServer{0}; //!< GPUs per NVLink domain
    Time m_nvAlpha;              //!< NVLink step latency
    DataRate m_nvRate;           //!< a GPU's NVLink rate
    double m_nvRingEff{1};       //!< ring payload share on NVLink
    double m_nvlsEff{1};         //!< NVLS payload share
    bool m_nvls{false};          //!< NVSwitch reduction
};

} // namespace ns3

#endif /* COLLECTIVE_TUNER_H */
