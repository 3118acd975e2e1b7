/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_ECN_MARKER_H
#define ROCE_ECN_MARKER_H

#include "ns3/fabric-congestion-marker.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief RED-style ECN marking of a RoCEv2 switch port, at dequeue.
 *
 * A forwarded IPv4 frame that is ECN-capable (ECT(0) or ECT(1)) is marked Congestion
 * Experienced on the bytes it leaves in its queue: never at or below Kmin, with probability
 * rising linearly to Pmax at Kmax, always above Kmax. Marking at dequeue lets the mark travel
 * without waiting behind the queue that caused it. The mark rewrites the TOS byte and the
 * IPv4 header checksum of a copy of the frame, as a switch does.
 */
class RoceEcnMarker : public FabricCongestionMarker
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceEcnMarker();
    ~RoceEcnMarker() override;

    bool Mark(Ptr<Packet>& p, const FabricMarkContext& ctx) override;
    bool GetThresholds(uint64_t bitRate, uint32_t& kmin, uint32_t& kmax) const override;
    int64_t AssignStreams(int64_t stream) override;

    /// \param enabled attribute Enabled
    void SetEnabled(bool enabled);
    /// \return attribute Enabled
    bool IsEnabled() const;
    /// \param bytes attribute Kmin (0: derived from the rate)
    void SetKmin(uint32_t bytes);
    /// \return attribute Kmin
    uint32_t GetKmin() const;
    /// \param bytes attribute Kmax (0: derived from the rate)
    void SetKmax(uint32_t bytes);
    /// \return attribute Kmax
    uint32_t GetKmax() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Recompute the thresholds in force if the rate or the attributes changed.
     * \param bitRate the port's rate
     */
    void Update(uint64_t bitRate) const;

    bool m_enabled{true};                     //!< mark at all
    uint32_t m_kminAttr{0};                   //!< Kmin attribute (0: derived)
    uint32_t m_kmaxAttr{0};                   //!< Kmax attribute (0: derived)
    double m_pmax{0.2};                       //!< marking probability at Kmax
    mutable uint32_t m_kmin{0};               //!< Kmin in force
    mutable uint32_t m_kmax{0};               //!< Kmax in force
    mutable uint64_t m_rateKey{~uint64_t(0)}; //!< rate the thresholds were derived for
    mutable uint32_t m_kminKey{0};            //!< Kmin attribute they were derived from
    mutable uint32_t m_kmaxKey{0};            //!< Kmax attribute they were derived from
    Ptr<UniformRandomVariable> m_rng;         //!< marking decisions
};

} // namespace ns3

#endif /* ROCE_ECN_MARKER_H */
