/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_SWITCH_H
#define FABRIC_SWITCH_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class FabricBufferManager;
class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * \brief The switch base every ai-fabric switch derives from (RoceSwitch, IbSwitch, NvSwitch),
 *        aggregated to its node: what code above the fabrics asks of any switch, through
 *        node->GetObject<FabricSwitch>().
 *
 * A switch adopts its ports (each fabric's AddPort(), which makes them switch ports), forwards
 * what they receive after PortLatency, and may hold a buffer manager (a shared-buffer switch:
 * RoceSwitch's RoceSwitchMmu); a switch whose buffers are its ports' own (InfiniBand's and
 * NVLink's credit-managed input buffers) has none.
 */
class FabricSwitch : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricSwitch();
    ~FabricSwitch() override;

    /// \return the number of ports
    virtual uint32_t GetNPorts() const = 0;

    /**
     * \param i a port number below GetNPorts()
     * \return the port
     */
    virtual Ptr<FabricNetDevice> GetFabricPort(uint32_t i) const = 0;

    /// \return frames forwarded
    uint64_t GetForwardedPackets() const
    {
        return m_forwarded;
    }

    /// \return the port-to-port latency (attribute PortLatency of every switch)
    Time GetPortLatency() const
    {
        return m_latency;
    }

    /// \return the shared buffer's manager, or nullptr for a switch without a shared buffer
    virtual Ptr<FabricBufferManager> GetBufferManager() const;

    /**
     * \return true if a frame may leave before its last bit arrived (its egress starts
     *         PortLatency after its first bit); false (the base class): store and forward
     */
    virtual bool IsCutThrough() const;

  protected:
    Time m_latency;          //!< PortLatency: each switch declares the attribute, its default
    uint64_t m_forwarded{0}; //!< frames forwarded, counted by the switch
};

} // namespace ns3

#endif /* FABRIC_SWITCH_H */
