/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_LINK_FLOW_CONTROL_H
#define FABRIC_LINK_FLOW_CONTROL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A port's link-level flow control, as the rest of the simulator sees it: which
 *        traffic classes the peer holds at this port now, how long each has been held, and
 *        the pause frames exchanged. PFC (RoCEv2's RocePfc) holds a class by pause frames;
 *        credits (InfiniBand's per-VL credits, NVLink's) hold it while the peer has granted
 *        too few.
 *
 * A port holds its flow control as a part (RoceNetDevice's pointer attribute "FlowControl")
 * and answers FabricNetDevice::GetLinkFlowControl(); statistics and the stall detector ask
 * through it. The port's per-frame path uses its own flow control's inline state, not this
 * interface.
 */
class FabricLinkFlowControl : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricLinkFlowControl();
    ~FabricLinkFlowControl() override;

    /// \return the traffic classes it controls (priorities, VLs)
    virtual uint32_t GetNClasses() const = 0;

    /// \return true if it holds a class by credits, false if by pause frames
    virtual bool IsCreditBased() const = 0;

    /**
     * \param cls a traffic class
     * \return true while the peer holds it at this port (paused, or not enough credits)
     */
    virtual bool IsHeld(uint8_t cls) const = 0;

    /**
     * \param cls a traffic class
     * \return how long the peer has held it so far, a hold in progress counted up to now
     */
    virtual Time GetHeldTime(uint8_t cls) const = 0;

    /**
     * \param cls a traffic class
     * \return pause frames this port sent for it (pauses and their refreshes; 0 for credits)
     */
    virtual uint64_t GetPausesSent(uint8_t cls) const;

    /**
     * \param cls a traffic class
     * \return pause frames this port received for it (pauses and releases; 0 for credits)
     */
    virtual uint64_t GetPausesReceived(uint8_t cls) const;

    /**
     * \brief Serve an owner (the port or switch that takes this part calls it); aborts if the
     *        part already serves another, or the owner is already running (FabricAdoptPart).
     * \param owner the owner
     */
    void Adopt(const Object* owner);

  private:
    const Object* m_owner{nullptr}; //!< the port it serves (Adopt())
};

} // namespace ns3

#endif /* FABRIC_LINK_FLOW_CONTROL_H */
