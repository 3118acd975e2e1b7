/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_HOST_INTERFACE_H
#define ROCE_HOST_INTERFACE_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/rdma-transport.h"

#include <deque>

namespace ns3
{

class Packet;
class RoceNicPort;

/**
 * \ingroup ai-fabric
 * \brief The host side of a RoCEv2 NIC port: the PCIe and memory path that takes received
 *        frames, and the NIC's receive buffer in front of it.
 *
 * A part of RoceNicPort (its pointer attribute "HostInterface"). With
 * Rate 0 (the default) the host keeps up with any rate: frames go to the transport as they
 * arrive and no buffer is modelled. Above 0, RoCEv2 frames wait in a buffer of BufferBytes
 * drained at Rate; with Pfc, the NIC pauses its peer's RDMA priority once the buffer is within
 * its PFC headroom of full (refreshed while it stays there) and releases it XonOffset lower;
 * without, a full buffer drops (QueueFull).
 */
class RoceHostInterface : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceHostInterface();
    ~RoceHostInterface() override;

    /**
     * \brief Serve a NIC port (the port calls it when it takes the part).
     * \param port the port; aborts if the part serves another port or the port is running
     */
    void SetPort(RoceNicPort* port);

    /// \return true if the host's intake is limited (Rate above 0): frames go to Receive()
    bool IsLimited() const
    {
        return m_rate.GetBitRate() > 0;
    }

    /**
     * \brief Take a received RoCEv2 frame for the host: into the buffer, or dropped if full.
     * \param p the frame
     * \param meta its addressing
     */
    void Receive(Ptr<Packet> p, const RdmaPacketMeta& meta);

    /// \return the buffer's high-water mark (bytes)
    uint32_t GetMaxBytes() const
    {
        return m_maxBytes;
    }

  protected:
    void DoDispose() override;

  private:
    /// The host took the frame at the head of the buffer.
    void Drained();

    /// Send (or refresh) the buffer's pause while it stays full.
    void PauseRefresh();

    /// \return the occupancy above which the NIC pauses its peer (bytes)
    uint32_t XoffBytes() const;

    /// A received frame waiting for the host.
    struct RxFrame
    {
        Ptr<Packet> packet;  //!< the frame
        RdmaPacketMeta meta; //!< its addressing
    };

    const Object* m_owner{nullptr};            //!< the port it serves, for FabricAdoptPart()
    RoceNicPort* m_port{nullptr};              //!< the NIC port (it owns this)
    DataRate m_rate;                           //!< host intake (0: unlimited, no buffer)
    uint32_t m_bufferBytes{0};                 //!< receive buffer size
    bool m_pfc{true};                          //!< pause the peer when it fills
    uint32_t m_xonOffset{0};                   //!< XON hysteresis
    uint32_t m_responseQuanta{0};              //!< peer response, for the headroom
    std::deque<RxFrame> m_buffer;              //!< frames waiting for the host
    uint32_t m_bytes{0};                       //!< bytes in it
    uint32_t m_maxBytes{0};                    //!< high-water mark
    bool m_paused{false};                      //!< XOFF sent, not yet released
    mutable uint32_t m_xoff{0};                //!< cached XOFF point
    mutable uint64_t m_xoffRate{~uint64_t(0)}; //!< rate it was computed for
    mutable uint32_t m_xoffBuffer{0};          //!< buffer size it was computed for
    EventId m_drain;                           //!< the host takes the head frame
    EventId m_refresh;                         //!< next XOFF refresh
};

} // namespace ns3

#endif /* ROCE_HOST_INTERFACE_H */
