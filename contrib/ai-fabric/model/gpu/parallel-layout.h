/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PARALLEL_LAYOUT_H
#define PARALLEL_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How a training job's ranks split the model: tensor (TP), context (CP), data (DP),
 * pipeline (PP) and expert (EP) parallelism, mapped to ranks as Megatron-LM does.
 *
 * Megatron-Core's default order, "tp-cp-ep-dp-pp", makes TP vary fastest: rank r is at
 * tp = r mod TP, cp = (r / TP) mod CP, dp = (r / (TP CP)) mod DP and pp = r / (TP CP DP), so a
 * TP group is TP consecutive ranks, inside one server whenever TP divides its GPUs. The expert
 * layers split the CP x DP ranks of a stage again: EP varies fastest of them (ep = c mod EP,
 * expert data parallel edp = c / EP, c = cp + CP dp), so an EP group is EP ranks TP apart, and
 * EP must divide CP x DP. A group lists its ranks in increasing order.
 */
class ParallelLayout
{
  public:
    /// A rank's place in every dimension.
    struct Coordinates
    {
        uint32_t tp{0};  //!< tensor-parallel index
        uint32_t cp{0};  //!< context-parallel index
        uint32_t dp{0};  //!< data-parallel index
        uint32_t pp{0};  //!< pipeline stage
        uint32_t ep{0};  //!< expert-parallel index
        uint32_t edp{0}; //!< expert-data-parallel index
    };

    /**
     * \brief Lay out a job: DP is what the world size leaves.
     * \param world ranks
     * \param tp tensor-parallel size
     * \param pp pipeline stages
     * \param cp context-parallel size
     * \param ep expert-parallel size
     * \param layout set to the layout
     * \param error set to why not (one line) when it returns false
     * \return true if TP x PP x CP divides the world and EP divides CP x DP
     */
    static bool Make(uint32_t world,
                     uint32_t tp,
                     uint32_t pp,
                     uint32_t cp,
                     uint32_t ep,
                     ParallelLayout& layout,
                     std::string& error);

    /// \return ranks
    uint32_t GetWorldSize() const;
    /// \return TP
    uint32_t GetTp() const;
    /// \return PP
    uint32_t GetPp() const;
    /// \return CP
    uint32_t GetCp() const;
    /// \return DP
    uint32_t GetDp() const;
    /// \return EP
    uint32_t GetEp() const;

    /**
     * \param rank a rank
     * \return its coordinates
     */
    Coordinates Locate(uint32_t rank) const;

    /**
     * \param c coordinates (tp, cp, dp, pp)
     * \return the rank there
     */
    uint32_t RankOf(const Coordinates& c) const;

    /**
     * \param rank a rank
     * \return its tensor-parallel group
     */
    std::vector<uint32_t> TensorGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its context-parallel group
     */
    std::vector<uint32_t> ContextGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its data-parallel group (the dense layers' gradients)
     */
    std::vector<uint32_t> DataGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its data- and context-parallel group: the ranks of its TP index and stage
     *         (Megatron-Core's data-parallel group with context parallelism, over which the
     *         dense layers' gradients are reduced when cp > 1)
     */
    std::vector<uint32_t> DataContextGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its pipeline (one rank per stage)
     */
    std::vector<uint32_t> PipelineGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its expert-parallel group (the MoE all-to-all)
     */
    std::vector<uint32_t> ExpertGroup(uint32_t rank) const;
    /**
     * \param rank a rank
     * \return its expert-data-parallel group (the experts' gradients)
     */
    std::vector<uint32_t> ExpertDataGroup(uint32_t rank) const;

    /**
     * \param gpusPerServer GPUs per server (ranks server by server)
     * \return true if every TP group is inside one server
     */
    bool TensorGroupsInsideServers(uint32_t gpusPerServer) const;

  private:
    /**
     * \param rank a rank
     * \param vary sets one coordinate of a copy of the rank's to i
     * \param size the dimension's size
     * \return the ranks
     */
    template<typename F>
    std::vector<uint32_t> Group(uint32_t rank, F vary, uint32_t size) const;

    uint32_t m_world{1}; //!< ranks
    uint32_t m_tp{1};    //!< TP
    uint32_t m_pp{1};    //!< PP
    uint32_t m_cp{1};    //!< CP
    uint32_t m_dp{1};    //!< DP
    uint32_t m_ep{1};    //!< EP
};

} // namespace ns3

#endif /* PARALLEL_LAYOUT_H */
