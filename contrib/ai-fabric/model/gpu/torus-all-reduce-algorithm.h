/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef TORUS_ALL_REDUCE_ALGORITHM_H
#define TORUS_ALL_REDUCE_ALGORITHM_H

#include "collective-algorithm.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The multi-dimensional all-reduce of tori: a ring reduce-scatter along each dimension
 * in turn, then a ring all-gather along each dimension in reverse order.
 *
 * Ranks form a grid of Dims (rank = x + X (y + Y z), X fastest, as TorusHelper numbers GPUs);
 * every line of a dimension is a ring in coordinate order, one hop per step on a torus. The
 * buffer is cut into n blocks (Split()). The reduce-scatter along the first dimension leaves
 * each rank 1/X of the buffer reduced over its X line; the one along the second works on that
 * 1/X and leaves 1/(X Y) reduced over the X-Y plane; and so on. The all-gathers retrace the
 * steps. A rank sends 2 (D - 1) / D of what it holds in each dimension of size D: as much in
 * all as the flat ring (2 (n - 1) / n of the buffer), in sum over dimensions 2 (D - 1) steps
 * instead of 2 (n - 1) (the TPU pods' all-reduce; Ying et al., "Image classification at
 * supercomputer scale", 2018; Sack and Gropp, "Collective algorithms for multiported torus
 * networks", 2015).
 *
 * With RotateDimensions, channel c starts at dimension c mod k and goes round (Y-X on the
 * second channel of a 2D torus, ...), so with k channels every dimension's links carry data
 * at every moment. Each ring step moves in pieces of at most the chunk size, pipelined as the
 * flat ring's; between dimensions a rank waits for all of the previous dimension's data (the
 * block it goes on with is reduced only then). All-gather runs only the all-gather half,
 * reduce-scatter only the reduce-scatter half.
 *
 * Its schedule gives each rank, per channel and phase, a send stream to the next rank along
 * the phase's dimension and a receive stream from the previous one; it holds the grid and each
 * channel's order: O(dimensions x channels). A phase along a dimension of size 1 moves
 * nothing; the phase after it waits for the one before it.
 */
class TorusAllReduceAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    std::string GetName() const override;
    bool Supports(CollectiveType type, uint32_t nRanks) const override;
    Time Predict(CollectiveType type,
                 uint32_t nRanks,
                 uint64_t bytes,
                 const CollectiveSystem& system) const override;
    void Configure(uint32_t nRanks, const CollectiveSystem& system) override;

    /**
     * \param nRanks ranks
     * \return the grid the algorithm uses: Dims, or without them the squarest 2D grid
     *         (sizes of 1 left out)
     */
    std::vector<uint32_t> GetShape(uint32_t nRanks) const;

    /**
     * \param text sizes joined by 'x' ("4x4x4"), or empty
     * \param dims the sizes
     * \return false if the text is not 1 to 4 sizes of at least 1
     */
    static bool ParseDims(const std::string& text, std::vector<uint32_t>& dims);

  protected:
    Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t channels,
                                       uint64_t chunkBytes) const override;

  private:
    /// \param text the Dims attribute
    void SetDims(std::string text);
    /// \return the Dims attribute
    std::string GetDims() const;

    std::vector<uint32_t> m_dims; //!< the grid (empty: squarest 2D)
    bool m_rotate{true};          //!< rotate the dimension order per channel
};

} // namespace ns3

#endif /* TORUS_ALL_REDUCE_ALGORITHM_H */
