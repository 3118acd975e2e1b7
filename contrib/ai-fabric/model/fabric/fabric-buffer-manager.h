/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_BUFFER_MANAGER_H
#define FABRIC_BUFFER_MANAGER_H

#include "fabric-net-device.h"
#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A switch's buffer manager: the part of a shared-buffer switch that admits each
 *        arriving frame against the buffer, accounts it to its ingress queue (port, traffic
 *        class) until it leaves, and pauses the ingress link's traffic class when a lossless
 *        queue fills (link-level flow control, sent through the switch's pause callback).
 *
 * A switch holds it as its pointer attribute "BufferManager" (RoceSwitch: RoceSwitchMmu, a
 * Broadcom-style dynamic-threshold MMU with PFC headroom). The switch calls it on the
 * per-frame path: Admit() at arrival, IsLossless() to choose how the frame is queued, and
 * ReleaseAt() (or Release()) when it leaves.
 */
class FabricBufferManager : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricBufferManager();
    ~FabricBufferManager() override;

    /// Send a link-level pause out of a port: (port, traffic class, quanta; 0 = release).
    typedef Callback<void, uint32_t, uint8_t, uint16_t> PauseCallback;

    /**
     * \param pause how the switch sends a pause out of a port
     */
    virtual void SetPauseCallback(PauseCallback pause) = 0;

    /// Add a port (ports are numbered in the order they are added).
    virtual void AddPort() = 0;

    /**
     * \brief Describe a port's link, for what it must hold in flight (PFC headroom).
     * \param port the port
     * \param bitRate its rate (bit/s)
     * \param cableDelay its cable's one-way delay
     */
    virtual void SetPortLink(uint32_t port, uint64_t bitRate, Time cableDelay) = 0;

    /**
     * \brief A frame arrived: admit it to the buffer or drop it.
     * \param port ingress port
     * \param cls its traffic class
     * \param bytes its size
     * \param reason set to why, when it is dropped
     * \return true if admitted
     */
    virtual bool Admit(uint32_t port, uint8_t cls, uint32_t bytes, FabricDropReason& reason) = 0;

    /**
     * \brief A frame left its egress port (or was dropped there): free its bytes now.
     * \param port its ingress port
     * \param cls its traffic class at the ingress
     * \param bytes its size
     */
    virtual void Release(uint32_t port, uint8_t cls, uint32_t bytes) = 0;

    /**
     * \brief A frame will leave its egress port at \p at (a frame chosen ahead of its start):
     *        free its bytes then.
     * \param at when its first bit leaves (now or later)
     * \param port its ingress port
     * \param cls its traffic class at the ingress
     * \param bytes its size
     */
    virtual void ReleaseAt(Time at, uint32_t port, uint8_t cls, uint32_t bytes) = 0;

    /**
     * \brief A release announced with ReleaseAt() will not happen then (the frame was taken
     *        back before its first bit left); it stays charged until it leaves.
     * \param at the time given to ReleaseAt()
     * \param port its ingress port
     * \param cls its traffic class at the ingress
     * \param bytes its size
     */
    virtual void CancelRelease(Time at, uint32_t port, uint8_t cls, uint32_t bytes) = 0;

    /**
     * \param cls a traffic class
     * \return true if the buffer keeps it lossless (pauses its ingress instead of dropping)
     */
    virtual bool IsLossless(uint8_t cls) const = 0;

    /**
     * \param port a port
     * \param cls a traffic class
     * \return bytes held for that ingress queue now
     */
    virtual uint32_t GetBytes(uint32_t port, uint8_t cls) const = 0;

    /// \return pause frames (pauses and their refreshes) the buffer had the switch send
    virtual uint64_t GetPausesSent() const = 0;

    /**
     * \brief Serve an owner (the port or switch that takes this part calls it); aborts if the
     *        part already serves another, or the owner is already running (FabricAdoptPart).
     * \param owner the owner
     */
    void Adopt(const Object* owner);

  private:
    const Object* m_owner{nullptr}; //!< the switch it serves (Adopt())
};

} // namespace ns3

#endif /* FABRIC_BUFFER_MANAGER_H */
