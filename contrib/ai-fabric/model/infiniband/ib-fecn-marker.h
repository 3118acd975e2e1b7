/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_FECN_MARKER_H
#define IB_FECN_MARKER_H

#include "ns3/fabric-congestion-marker.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand congestion control at a switch port (IBTA Annex A10): marks FECN in the
 *        BTH of packets leaving a congested data VL.
 *
 * A VL is congested when its queue, with the departing packet, holds at least
 * (16 - Threshold)/16 of the port's VL buffer (SwitchCongestionSetting Threshold; the spec
 * leaves the byte value to the switch). Of the eligible packets (at least PacketSize credits;
 * not a victim of the next hop's credits unless VictimMarking), one in MarkingRate + 1 is
 * marked. FECN is one of the BTH bits the ICRC does not cover; the VCRC is computed per hop.
 */
class IbFecnMarker : public FabricCongestionMarker
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbFecnMarker();
    ~IbFecnMarker() override;

    bool Mark(Ptr<Packet>& p, const FabricMarkContext& ctx) override;

    /// \param threshold attribute Threshold (0: off)
    void SetThreshold(uint32_t threshold);
    /// \return attribute Threshold
    uint32_t GetThreshold() const;

  private:
    /// Data VLs a port may have (IBTA: up to 15)
    static constexpr uint32_t MAX_VLS = 15;

    uint32_t m_threshold{0};                     //!< Threshold (0: off)
    uint32_t m_markingRate{0};                   //!< MarkingRate
    uint32_t m_packetSize{0};                    //!< PacketSize (64-byte credits)
    bool m_victimMarking{false};                 //!< VictimMarking
    std::array<uint32_t, MAX_VLS> m_sinceMark{}; //!< eligible packets since the last mark
};

} // namespace ns3

#endif /* IB_FECN_MARKER_H */
