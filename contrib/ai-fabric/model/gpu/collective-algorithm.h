/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_ALGORITHM_H
#define COLLECTIVE_ALGORITHM_H

#include "collective-plan.h"
#include "collective-schedule.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What an algorithm's cost model and configuration know of the system it runs on.
 *
 * CollectiveTuner fills the network and NVLink terms once per run; CollectiveSweep adds the
 * configuration (GPUs per server, NCCL's server-aware ring order, a torus's grid).
 */
struct CollectiveSystem
{
    Time alpha;                  //!< latency of one step across the network
    double beta{0};              //!< seconds per payload byte through a NIC (wire overhead in)
    uint32_t servers{0};         //!< servers with an NVLink domain (0: no NVLink)
    uint32_t gpusPerServer{0};   //!< GPUs per server (per NVLink domain when servers > 0)
    Time nvAlpha;                //!< latency of one NVLink step
    DataRate nvRate;             //!< a GPU's NVLink rate
    double nvRingEfficiency{1};  //!< payload share of NVLink with the ring and tree protocol
    double nvlsEfficiency{1};    //!< payload share of NVLink with NVLS
    bool nvls{false};            //!< the NVSwitches reduce in the switch (NVLS)
    bool serverAwareRing{false}; //!< NCCL's rail-aligned order of rings and trees over servers
    std::string torusDims;       //!< the torus algorithm's grid ("": the squarest 2D grid)
};

/**
 * \ingroup ai-fabric
 * \brief A collective algorithm: each rank's schedule of a collective (CollectiveSchedule),
 * or the plan of every transfer (CollectivePlan) for checks.
 *
 * The base class owns the public entry points and the checks; each algorithm writes
 * Supports() and either DoSchedule(), which makes a schedule that computes each rank's
 * messages from its position (memory O(ranks x channels)), or DoBuild(), which lists every
 * transfer of a channel in a plan (memory O(transfers)), in the shape of ns-3's
 * traffic-control. Ring and tree have schedules; the others are plans. Data of every collective
 * is split evenly over the channels, and each channel's part is moved in pieces of at most
 * the chunk size, which is the unit of pipelining (NCCL moves data in steps of its buffer:
 * 4 MiB / 8 steps = 512 KiB for the Simple protocol).
 */
class CollectiveAlgorithm : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \return the algorithm's name as on the command line ("ring", "tree", ...)
    virtual std::string GetName() const = 0;

    /**
     * \param type a collective
     * \param nRanks ranks
     * \return true if this algorithm can run it
     */
    virtual bool Supports(CollectiveType type, uint32_t nRanks) const = 0;

    /**
     * \brief The algorithm's alpha-beta cost: its predicted time for one collective, the
     *        model `--algo=auto` compares.
     * \param type the collective (supported)
     * \param nRanks ranks
     * \param bytes its size as nccl-tests counts it
     * \param system the network and NVLink terms
     * \return the predicted time
     */
    virtual Time Predict(CollectiveType type,
                         uint32_t nRanks,
                         uint64_t bytes,
                         const CollectiveSystem& system) const = 0;

    /**
     * \brief Can `--algo=auto` consider this algorithm on this system? True in the base
     *        class; NVLS algorithms need NVSwitches that reduce.
     * \param system the system
     * \return true if it may be chosen
     */
    virtual bool FitsSystem(const CollectiveSystem& system) const;

    /**
     * \brief Can this algorithm run with a protocol? Every protocol in the base class; NVLS
     *        and NVLSTree run with Simple only, as in NCCL (its NVLS kernels have no LL or
     *        LL128 form).
     * \param protocol a protocol
     * \return true if it can
     */
    virtual bool SupportsProtocol(NcclProtocol protocol) const;

    /**
     * \brief Does this algorithm pay NCCL's tree latencies per step (hwLat of the tree in
     *        NCCL's tuning model, which differ from the ring's for LL and LL128)? False in the
     *        base class; true for the double binary tree.
     * \return true if its schedules do
     */
    virtual bool UsesTreeLatency() const;

    /**
     * \brief Take the system's configuration (the attributes it implies, such as
     *        GpusPerServer). Nothing in the base class.
     * \param nRanks ranks
     * \param system the system
     */
    virtual void Configure(uint32_t nRanks, const CollectiveSystem& system);

    /**
     * \brief Create a registered algorithm by name for a collective.
     * \param name the name (--algo)
     * \param type the collective
     * \param nRanks ranks
     * \param error set to why not (one line, naming --algo) when it returns nullptr
     * \return the algorithm, or nullptr if the name is unknown or does not run it
     */
    static Ptr<CollectiveAlgorithm> CreateByName(const std::string& name,
                                                 CollectiveType type,
                                                 uint32_t nRanks,
                                                 std::string& error);

    /**
     * \brief Make the schedule of a collective, as every rank runs it.
     * \param type the collective (must be supported)
     * \param nRanks ranks
     * \param bytes the collective's size as nccl-tests counts it
     * \param channels channels (each with its own connections)
     * \param chunkBytes the pipelining unit (bytes)
     * \return the schedule
     */
    Ptr<CollectiveSchedule> Schedule(CollectiveType type,
                                     uint32_t nRanks,
                                     uint64_t bytes,
                                     uint32_t channels,
                                     uint64_t chunkBytes) const;

    /**
     * \brief Build the plan of a collective: every transfer of the schedule, listed (running
     *        the plan runs the schedule).
     * \param type the collective (must be supported)
     * \param nRanks ranks
     * \param bytes the collective's size as nccl-tests counts it
     * \param channels channels (each with its own connections)
     * \param chunkBytes the pipelining unit (bytes)
     * \return the finalized plan
     */
    Ptr<CollectivePlan> Build(CollectiveType type,
                              uint32_t nRanks,
                              uint64_t bytes,
                              uint32_t channels,
                              uint64_t chunkBytes) const;

    /**
     * \brief Split bytes into n parts as even as possible (the first parts one byte larger).
     * \param bytes the total
     * \param n parts
     * \return the parts
     */
    static std::vector<uint64_t> Split(uint64_t bytes, uint64_t n);

    /**
     * \param bytes a part's size
     * \param chunkBytes the pipelining unit
     * \return the number of pieces it is moved in (at least 1)
     */
    static uint64_t Pieces(uint64_t bytes, uint64_t chunkBytes);

  protected:
    /**
     * \brief Make the schedule of a collective (nRanks > 1, bytes > 0, checked). The default
     *        lists every transfer in a plan, channel by channel, with DoBuild().
     * \param type the collective
     * \param nRanks ranks
     * \param bytes the collective's size
     * \param channels channels
     * \param chunkBytes the pipelining unit
     * \return the schedule
     */
    virtual Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                               uint32_t nRanks,
                                               uint64_t bytes,
                                               uint32_t channels,
                                               uint64_t chunkBytes) const;

    /**
     * \brief Add the transfers of one channel to the plan (algorithms without DoSchedule()).
     * \param plan the plan
     * \param channel the channel
     * \param bytes the channel's share of the collective's buffer (its meaning per collective
     *        as in Build())
     * \param chunkBytes the pipelining unit
     */
    virtual void DoBuild(CollectivePlan& plan,
                         uint32_t channel,
                         uint64_t bytes,
                         uint64_t chunkBytes) const;
};

/**
 * \ingroup ai-fabric
 * \brief The algorithms by name and collective, for `--algo=NAME` and `--algo=auto`.
 *
 * An algorithm registers itself with a namespace-scope object in its .cc file:
 *
 * \code
 *   static CollectiveAlgorithmRegistration g_x("NAME", {CollectiveType::ALL_REDUCE},
 *                                              &MyAlgorithm::GetTypeId, true, 100);
 * \endcode
 *
 * The same name may stand for different classes per collective ("ring" broadcast is the
 * chain). `--algo=auto` predicts every candidate that supports the collective and fits the
 * system, and takes the fastest; ties go to the lower order (the ring's is 10).
 */
class CollectiveAlgorithmRegistration
{
  public:
    /// One name for one collective.
    struct Entry
    {
        std::string name;    //!< --algo name
        CollectiveType type; //!< the collective
        TypeId typeId;       //!< the class
        bool autoCandidate;  //!< one of NCCL's algorithms, a candidate of --algo=auto
        uint32_t order;      //!< tie order of --algo=auto, and of listings
    };

    /**
     * \brief Register an algorithm (at static initialization).
     * \param name --algo name
     * \param types the collectives it runs under this name
     * \param typeId its GetTypeId
     * \param autoCandidate --algo=auto may choose it
     * \param order tie order (lower first)
     */
    CollectiveAlgorithmRegistration(const std::string& name,
                                    const std::vector<CollectiveType>& types,
                                    TypeId (*typeId)(),
                                    bool autoCandidate,
                                    uint32_t order);

    /// \return every entry, by order
    static const std::vector<Entry>& List();

    /// \return the registered names, by order, each once
    static std::vector<std::string> Names();

  private:
    /// \return the registry
    static std::vector<Entry>& Registry();
};

/**
 * \ingroup ai-fabric
 * \brief Ring algorithms, as NCCL's ring: all-reduce as a reduce-scatter followed by an
 * all-gather (2(n-1) steps), all-gather and reduce-scatter (n-1 steps).
 *
 * Ranks form a ring in rank order (rank r sends to r+1). The buffer is cut into n parts; at
 * step s rank r sends part (r - s) mod n to its successor: during the reduce-scatter steps
 * the successor reduces it into its own part, during the all-gather steps it keeps it. Each
 * part moves in chunk-sized pieces, and a piece is sent on as soon as it arrived (and was
 * reduced), so the steps pipeline. Moves (n-1)/n of the buffer per rank per phase: the
 * bandwidth-optimal schedule (Patarasuk and Yuan, JPDC 2009).
 *
 * Its schedule gives each rank one send stream (to its successor) and one receive stream
 * (from its predecessor) per channel, with messages in the order (step, piece), as NCCL's
 * primitives run them; it holds the ring order of each channel: O(ranks x channels).
 */
class RingAlgorithm : public CollectiveAlgorithm
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
     * \brief The ranks in ring order for one channel, as NCCL orders its rings on servers of
     *        g GPUs with one NIC each (rail-optimized): inside a server the ring visits every
     *        GPU over NVLink, and it crosses the network once from each server to the next,
     *        between GPUs of the same rail. Servers alternate direction: an even server runs
     *        local GPUs c, c+1, ..., c+g-1 (mod g, c = channel mod g), an odd one the reverse,
     *        so the hop from an even server to the next leaves and lands on rail c+g-1 and the
     *        hop from an odd server on rail c; g channels use every rail once in each
     *        direction. With an odd number of servers the hop from the last server back to
     *        the first changes rail. g of 0 or 1, or n not a multiple of g: ranks in order.
     * \param n ranks
     * \param g GPUs per server
     * \param channel the channel
     * \return the ranks, in ring order
     */
    static std::vector<uint32_t> RingOrder(uint32_t n, uint32_t g, uint32_t channel);

  protected:
    Ptr<CollectiveSchedule> DoSchedule(CollectiveType type,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t channels,
                                       uint64_t chunkBytes) const override;

  private:
    uint32_t m_gpusPerServer{0}; //!< GpusPerServer: NCCL's server-aware ring order
};

} // namespace ns3

#endif /* COLLECTIVE_ALGORITHM_H */
