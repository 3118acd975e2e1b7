/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_TUNER_H
#define COLLECTIVE_TUNER_H

#include "ns3/collective-algorithm.h"
#include "ns3/collective-plan.h"
#include "ns3/communicator.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Picks an algorithm and a protocol per size, the way NCCL's tuner does, by asking the
 * algorithms.
 *
 * NCCL predicts, for every algorithm and protocol that can run a collective, time = latency x
 * steps + bytes / bandwidth, and runs the fastest pair (src/graph/tuning.cc). The tuner
 * describes the fabric once (CollectiveSystem: alpha, the latency of one step, which is the
 * NICs', the switches' and the cables' on the longest path; beta, the wire time per payload
 * byte at the NIC rate; the NVLink terms of servers), and each protocol's terms (SetProtocols:
 * the latency it adds to a network step and to an NVLink step, and its payload efficiency,
 * which divides the bandwidths), and asks every registered candidate
 * (CollectiveAlgorithmRegistration: NCCL's own algorithms, ring, tree, direct, and NVLS and
 * NVLSTree where the NVSwitches reduce) that supports the collective, fits the system and runs
 * with the protocol for its prediction (CollectiveAlgorithm::Predict). Each algorithm's model
 * is documented with its class. Halving-doubling, chain, pairwise, hierarchical and torus run
 * only when named. Without SetProtocols() the tuner knows Simple alone, with no latency of its
 * own.
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

    /**
     * \brief A protocol's terms (and the protocol becomes a candidate).
     * \param protocol the protocol
     * \param stepLatency latency it adds to every network step
     * \param nvLinkStepLatency latency it adds to every NVLink step
     * \param efficiency payload bytes per byte it sends
     */
    void SetProtocol(NcclProtocol protocol,
                     Time stepLatency,
                     Time nvLinkStepLatency,
                     double efficiency);

    /**
     * \brief A protocol's step latencies in a tree (CollectiveAlgorithm::UsesTreeLatency());
     *        the ring's unless set.
     * \param protocol the protocol
     * \param stepLatency latency it adds to every network step of a tree
     * \param nvLinkStepLatency latency it adds to every NVLink step of a tree
     */
    void SetTreeLatencies(NcclProtocol protocol, Time stepLatency, Time nvLinkStepLatency);

    /**
     * \brief A protocol's latency once per collective (0 unless set).
     * \param protocol the protocol
     * \param latency the latency
     */
    void SetBaseLatency(NcclProtocol protocol, Time latency);

    /**
     * \brief Every protocol's terms, as a communicator has them.
     * \param comm the communicator (its step latencies and efficiencies)
     */
    void SetProtocols(const Communicator& comm);

    /// \return the system the algorithms' models see with Simple
    const CollectiveSystem& GetSystem() const;

    /**
     * \param protocol a protocol
     * \return the system the algorithms' models see with it (its latencies added, its
     *         efficiency applied to the bandwidths)
     */
    CollectiveSystem GetSystem(NcclProtocol protocol) const;

    /**
     * \param protocol a protocol
     * \return true if it is a candidate (SetProtocol()); Simple always is
     */
    bool HasProtocol(NcclProtocol protocol) const;

    /// What the tuner runs a collective of one size with.
    struct Choice
    {
        std::string algorithm;              //!< the algorithm's name
        NcclProtocol protocol{NCCL_SIMPLE}; //!< the protocol
        Time predicted;                     //!< the prediction that chose them
    };

    /**
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the size
     * \return the fastest candidate's name, with Simple (ties: the lower registration order,
     *         the ring's)
     */
    std::string Choose(CollectiveType type, uint32_t nRanks, uint64_t bytes) const;

    /**
     * \brief The fastest pair of algorithm and protocol.
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the size
     * \param algorithm "auto", or the algorithm to choose a protocol for
     * \param protocol "auto", or the protocol to choose an algorithm for ("simple", "ll",
     *        "ll128")
     * \param choice set to the choice
     * \param error set to why nothing can run it (one line) when it returns false
     * \param configuration the sweep's configuration to add to the system (its ring order,
     *        torus grid, and GPUs per server where the tuner has none), or nullptr
     * \return true if a pair runs it
     */
    bool Choose(CollectiveType type,
                uint32_t nRanks,
                uint64_t bytes,
                const std::string& algorithm,
                const std::string& protocol,
                Choice& choice,
                std::string& error,
                const CollectiveSystem* configuration = nullptr) const;

  private:
    /// A protocol's terms.
    struct ProtocolTerms
    {
        bool candidate{false}; //!< SetProtocol() was called (Simple: always)
        Time step;             //!< latency added to a network step
        Time nvStep;           //!< latency added to an NVLink step
        bool treeSet{false};   //!< SetTreeLatencies() was called
        Time treeStep;         //!< latency added to a network step of a tree
        Time treeNvStep;       //!< latency added to an NVLink step of a tree
        Time base;             //!< latency once per collective
        double efficiency{1};  //!< payload bytes per byte sent
    };

    /// Make m_systems from m_system and m_protocols.
    void Refresh();

    CollectiveSystem m_system;                           //!< the fabric, without a protocol
    ProtocolTerms m_protocols[NCCL_PROTOCOL_COUNT]{};    //!< by protocol
    CollectiveSystem m_systems[NCCL_PROTOCOL_COUNT];     //!< what the models see, by protocol
    CollectiveSystem m_treeSystems[NCCL_PROTOCOL_COUNT]; //!< what a tree's model sees
};

} // namespace ns3

#endif /* COLLECTIVE_TUNER_H */
