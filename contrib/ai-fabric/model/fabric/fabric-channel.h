/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_CHANNEL_H
#define FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex cable between exactly two FabricNetDevice ports.
 *
 * Each direction carries one packet at a time (the sending port's transmit state machine
 * guarantees it); a packet handed over by a port reaches the peer port after its serialization
 * time plus the propagation Delay, in the peer node's context. A link can be taken down and
 * brought back up: packets sent while it is down are lost, and so are packets that were on the
 * cable when it went down.
 *
 * In a run across MPI ranks (FabricSimulatorImpl), a cable whose ends are nodes of different
 * ranks carries each frame as a message to the other rank, sent when the frame is handed over,
 * for the time its last bit arrives: the cable's Delay bounds the lookahead (a cable between
 * ranks needs a positive Delay). The frame runs there in the order it would have had in one
 * process. A link change is made on both ranks (each tells only its own end); a frame is lost
 * if the link changed after it was sent, as in one process.
 */
class FabricChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricChannel();
    ~FabricChannel() override;

    /**
     * \brief Attach a port; a channel takes exactly two.
     * \param device the port
     */
    void Attach(Ptr<FabricNetDevice> device);

    /**
     * \brief Send a packet from one end to the other.
     * \param p the packet (the frame as the receiving port will see it)
     * \param src the sending port
     * \param txTime the packet's serialization time at the sender
     * \param ticket if not null, set to the frame's ticket on this cable (for Withdraw())
     * \return false if the link is down (the packet is lost)
     */
    bool Transmit(Ptr<Packet> p,
                  const FabricNetDevice* src,
                  Time txTime,
                  uint32_t* ticket = nullptr);

    /**
     * \brief Take back a frame put on the cable whose first bit has not left yet (a PFC pause
     * arrived for a frame a switch had chosen ahead): it is not delivered, and nothing counts
     * it at the far end.
     * \param ticket the frame's ticket, from Transmit()
     */
    void Withdraw(uint32_t ticket);

    /**
     * \brief Take the link down or bring it up; both ports are told.
     * \param up the new state
     */
    void SetLinkUp(bool up);

    /// \return true if the link is up
    bool IsLinkUp() const;

    /// \return the one-way propagation delay
    Time GetDelay() const;

    /**
     * \param device one end of this channel
     * \return the other end
     */
    Ptr<FabricNetDevice> GetPeer(const FabricNetDevice* device) const;

    /// \return true if the two ends are nodes of different MPI ranks
    bool IsSplit() const;

    /// \return the id of the channels' messages between ranks (registered at load)
    static uint32_t MessageHandler();

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

    /**
     * TracedCallback signature for link state changes.
     * \param up the new state
     */
    typedef void (*LinkStateTracedCallback)(bool up);

  protected:
    void DoDispose() override;

  private:
    /**
     * Deliver a packet at the receiving end unless it was withdrawn or the link changed state
     * meanwhile.
     * \param dst index of the receiving end
     * \param p the packet
     * \param ticket the frame's ticket (tickets count up per cable; a frame whose ticket is
     *        older than the last link change was on the cable when it changed)
     */
    void Deliver(uint32_t dst, Ptr<Packet> p, uint32_t ticket);

    /**
     * \brief The handler of messages from the other rank (FabricSimulatorImpl::Handler).
     * \param key the frame's key
     * \param context the receiving node
     * \param data the message
     * \param size its size
     */
    static void ReceiveMessage(const FabricSimulatorImpl::Key& key,
                               uint32_t context,
                               const uint8_t* data,
                               uint32_t size);

    /**
     * \brief Send a frame, or the withdrawal of one, to the other rank.
     * \param dst the receiving end
     * \param p the frame (nullptr: a withdrawal)
     * \param delay when it is due, from now
     * \param ticket the frame's ticket in this direction
     */
    void SendRemote(uint32_t dst, Ptr<Packet> p, Time delay, uint32_t ticket);

    /**
     * \brief Deliver a frame that came from the other rank.
     * \param dst the receiving end
     * \param p the frame
     * \param ticket its ticket in its direction
     * \param sent when it was handed over (time steps)
     */
    void DeliverRemote(uint32_t dst, Ptr<Packet> p, uint32_t ticket, uint64_t sent);

    std::array<Ptr<FabricNetDevice>, 2> m_devices; //!< the two ends
    std::array<uint32_t, 2> m_nodeIds{0, 0};       //!< node ids of the two ends (contexts)
    uint32_t m_nDevices{0};                        //!< ends attached so far
    Time m_delay;                                  //!< propagation delay
    bool m_up{true};                               //!< link state
    uint32_t m_nextTicket{0};                      //!< ticket of the next frame sent
    uint32_t m_liveFrom{0};                        //!< first ticket since the last link change
    std::vector<uint32_t> m_withdrawn;             //!< tickets withdrawn, not yet due
    TracedCallback<bool> m_linkStateTrace;         //!< fired on every state change
    uint32_t m_id{0};                              //!< order of creation (names it across ranks)
    bool m_split{false};                           //!< the ends are on different ranks
    std::array<bool, 2> m_local{true, true};       //!< end i is this rank's
    uint32_t m_peerRank{0};                        //!< the other end's rank (split)
    uint32_t m_remoteTicket{0};                    //!< next ticket of frames sent across
    std::vector<uint32_t> m_remoteWithdrawn;       //!< tickets from across withdrawn
    uint64_t m_lastChange{0};                      //!< time of the last link change (steps)
    bool m_changed{false};                         //!< the link changed at least once
    std::vector<uint8_t> m_sendBuffer;             //!< a message being made
};

} // namespace ns3

#endif /* FABRIC_CHANNEL_H */
