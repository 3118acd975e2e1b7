/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_CREDIT_FLOW_CONTROL_H
#define IB_CREDIT_FLOW_CONTROL_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-link-flow-control.h"
#include "ns3/fabric-stall-clock.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * \brief InfiniBand's credit-based link-level flow control at one port, per data VL (IBTA
 *        vol. 1, 7.9): the blocks sent (FCTBS) against the credit limit the peer granted
 *        (FCCL), and the receive buffer whose freed blocks go back to the peer in
 *        flow-control packets.
 *
 * A part of IbNetDevice (its pointer attribute "FlowControl"). The port asks CanSend() for
 * the packet at the head of a VL and counts what it sends (Sent()), both inline on its
 * per-packet path; it charges each received packet to the VL's buffer (Occupy()) and frees it
 * when the packet leaves (Free(): at once at an adapter, when it leaves the switch at a switch
 * port). The part builds the flow-control packets (an initialization packet per VL when the
 * link trains, an update once CreditUpdateBlocks were freed or FlowControlPeriod after a freed
 * block, one repeat of the last update, probes while a VL waits for credits, answers to a
 * peer that may have lost an update) and has the port send them ahead of data (its send
 * callback); the port hands it the flow-control packets that arrive (Receive()).
 *
 * It is the port's FabricLinkFlowControl: a data VL is held while the packet at its head
 * waits for credits.
 */
class IbCreditFlowControl : public FabricLinkFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbCreditFlowControl();
    ~IbCreditFlowControl() override;

    /// Most data VLs a port may have (VL0-VL14; VL15 is for subnet management)
    static constexpr uint32_t MAX_DATA_VLS = 15;
    /// Bytes per credit block
    static constexpr uint32_t BLOCK_BYTES = 64;
    /// Largest credit limit a 12-bit FCCL can grant beyond what was sent (blocks)
    static constexpr uint32_t MAX_OUTSTANDING_BLOCKS = 2048;

    /**
     * \param bytes packet bytes
     * \return the credit blocks they take (rounded up)
     */
    static uint32_t Blocks(uint32_t bytes)
    {
        return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
    }

    /// Queue a flow-control packet ahead of data, and send it when the wire allows.
    typedef Callback<void, Ptr<Packet>> SendCallback;

    /**
     * \brief Serve a port: the part asks it its rate, cable and link state, and sends through
     *        the callback.
     * \param port the port (it owns this part)
     * \param send how the port sends a flow-control packet
     */
    void SetPort(const FabricNetDevice* port, SendCallback send);

    /**
     * \brief The port starts: its data VLs are known, and each VL's initialization packet
     *        goes out (as when the link trains again, LinkChange()).
     * \param dataVls the port's data VLs (1 to MAX_DATA_VLS)
     */
    void Start(uint32_t dataVls);

    /**
     * \brief The link went up (both ends exchange their limits again) or down (no VL waits
     *        for credits any longer; what was queued is the port's to discard).
     * \param up true if it went up
     */
    void LinkChange(bool up);

    /**
     * \brief Whether the packet at the head of a VL may go: the credits the peer granted
     *        cover its blocks. A VL that may not begins a wait for credits (held, probed
     *        every FlowControlPeriod); one that may ends its wait.
     * \param vl a data VL
     * \param blocks the packet's blocks
     * \return true if it may be sent
     */
    bool CanSend(uint8_t vl, uint32_t blocks)
    {
        Vl& v = m_vls[vl];
        if (v.peerLimit < v.sentBlocks + blocks)
        {
            if (!v.stall.IsHeldOpen())
            {
                BeginWait(vl);
            }
            return false;
        }
        if (v.stall.IsHeldOpen())
        {
            EndWait(vl);
        }
        return true;
    }

    /**
     * \param vl a data VL
     * \param blocks a packet's blocks
     * \return true if the credits granted cover them (no state changes)
     */
    bool HasCredits(uint8_t vl, uint32_t blocks) const
    {
        const Vl& v = m_vls[vl];
        return v.peerLimit >= v.sentBlocks + blocks;
    }

    /**
     * \brief A packet of the VL was sent: its blocks count against the credits.
     * \param vl a data VL
     * \param blocks its blocks
     */
    void Sent(uint8_t vl, uint32_t blocks)
    {
        m_vls[vl].sentBlocks += blocks;
    }

    /**
     * \param vl a data VL
     * \param now the current time
     * \return true if the VL waited for the next hop's credits within the time its buffer
     *         takes to send at line rate (an IB CC victim: credits, not this link, limit it)
     */
    bool IsVictim(uint8_t vl, const Time& now) const
    {
        const Vl& v = m_vls[vl];
        return v.everStalled && now - v.lastStallEnd <= m_victimWindow;
    }

    /**
     * \brief A data packet arrived on a VL: charge its blocks to the VL's buffer.
     * \param vl a data VL below the port's count
     * \param blocks its blocks
     * \return false if they do not fit (the sender broke the credit rule: the packet is
     *         dropped as a CreditViolation, nothing charged)
     */
    bool Occupy(uint8_t vl, uint32_t blocks)
    {
        Vl& v = m_vls[vl];
        v.receivedBlocks += blocks;
        if (v.occupiedBlocks + blocks > m_bufferBlocks)
        {
            return false;
        }
        v.occupiedBlocks += blocks;
        return true;
    }

    /**
     * \brief Blocks of a VL's buffer were freed (the packet left): they are reported to the
     *        peer, at once once CreditUpdateBlocks accumulated, else within FlowControlPeriod.
     * \param vl a data VL
     * \param blocks the blocks freed
     */
    void Free(uint8_t vl, uint32_t blocks);

    /**
     * \brief A flow-control packet arrived: the peer's credit limit, and its count of blocks
     *        sent (those lost on the link return their credits).
     * \param p the packet (IbFlowControlHeader::SIZE bytes)
     * \return false if it names a VL the port does not operate (the port drops it)
     */
    bool Receive(Ptr<const Packet> p);

    /// \return the receive buffer of each data VL (bytes): the credits the port grants
    uint32_t GetBufferBytes() const
    {
        return m_bufferBytes;
    }

    /**
     * \param vl a data VL
     * \return the blocks the peer's credits still cover on it
     */
    uint64_t GetAvailableCredits(uint8_t vl) const;

    /// \return flow-control packets sent
    uint64_t GetPacketsSent() const;

    /// \return the interval of flow-control updates in force (attribute, or derived)
    Time GetFlowControlPeriod() const;

    /// \return blocks freed before an update is sent (CreditUpdateBlocks, or chosen on need)
    uint32_t GetCreditUpdateThreshold() const;

    /**
     * \param vl a data VL
     * \return true while the packet at its head waits for credits
     */
    bool IsStalled(uint8_t vl) const
    {
        return vl < MAX_DATA_VLS && m_vls[vl].stall.IsHeldOpen();
    }

    /**
     * TracedCallback signature of flow-control packets.
     * \param vl the VL
     * \param fccl the credit limit carried (modulo 4096)
     */
    typedef void (*FlowControlTracedCallback)(uint8_t vl, uint16_t fccl);

    // FabricLinkFlowControl: the data VLs
    uint32_t GetNClasses() const override;
    bool IsCreditBased() const override;
    bool IsHeld(uint8_t cls) const override;
    Time GetHeldTime(uint8_t cls) const override;

  protected:
    void DoDispose() override;

  private:
    /// Credit state of one data VL, both directions.
    struct Vl
    {
        uint64_t sentBlocks{0};     //!< FCTBS, not wrapped
        uint64_t peerLimit{0};      //!< the peer's FCCL, unwrapped
        bool limitKnown{false};     //!< an FCCL has arrived
        uint64_t receivedBlocks{0}; //!< ABR, not wrapped
        uint32_t occupiedBlocks{0}; //!< receive buffer in use
        uint32_t unreported{0};     //!< blocks freed since the last FC packet
        bool repeat{false};         //!< the last update is to be sent once more
        Time lastFc;                //!< when the last update was queued
        EventId fcTimer;            //!< next periodic update
        FabricStallClock stall;     //!< while and how long a packet waited for credits
        bool everStalled{false};    //!< a packet ever waited for credits here
        Time lastStallEnd;          //!< when the last wait for credits ended (IB CC victims)
        uint32_t probes{0};         //!< credit probes sent in this wait for credits
        uint64_t peerFctbs{0};      //!< the peer's FCTBS in its last FC packet (unwrapped)
        uint64_t answeredFctbs{0};  //!< the peer's FCTBS last answered with our FCCL
        uint32_t answers{0};        //!< answers sent to that FCTBS
    };

    /// Most credit probes a VL sends in one wait for credits (then it waits for an update)
    static constexpr uint32_t MAX_CREDIT_PROBES = 16;
    /// Most answers a VL sends to the same FCTBS of its peer
    static constexpr uint32_t MAX_PROBE_ANSWERS = 2;

    /**
     * \param bytes the VlBufferBytes attribute (setter: keeps the buffer in blocks)
     */
    void SetBufferBytes(uint32_t bytes);

    /**
     * \brief The packet at the head of a VL begins to wait for credits.
     * \param vl the VL
     */
    void BeginWait(uint8_t vl);

    /**
     * \brief The packet at the head of a VL no longer waits for credits.
     * \param vl the VL
     */
    void EndWait(uint8_t vl);

    /**
     * \brief Send a VL's flow-control packet: its FCTBS and the limit it grants.
     * \param vl the VL
     * \param op IbFlowControlHeader::OP_INIT or OP_NORMAL
     */
    void SendFlowControl(uint8_t vl, uint8_t op);

    /// Send the initialization flow-control packet of every data VL.
    void InitializeCredits();

    /**
     * \brief A VL's update timer: report what is unreported, or repeat the last update once.
     * \param vl the VL
     */
    void FlowControlTimer(uint8_t vl);

    /// Every FlowControlPeriod while a VL waits for credits: probe the peer.
    void CreditProbe();

    const FabricNetDevice* m_port{nullptr};        //!< the port served (it owns this part)
    SendCallback m_send;                           //!< to the port: send a flow-control packet
    uint32_t m_dataVls{0};                         //!< the port's data VLs (Start())
    uint32_t m_bufferBytes{0};                     //!< VlBufferBytes
    uint32_t m_bufferBlocks{0};                    //!< the same, in blocks
    uint32_t m_creditUpdateBlocks{0};              //!< CreditUpdateBlocks (0: chosen on need)
    mutable uint32_t m_autoUpdateBlocks{0};        //!< the threshold chosen on need (0: not yet)
    Time m_fcPeriod;                               //!< FlowControlPeriod (0: derived)
    Time m_victimWindow;                           //!< VlBufferBytes at line rate (Start())
    std::array<Vl, MAX_DATA_VLS> m_vls;            //!< per data VL
    uint64_t m_sent{0};                            //!< flow-control packets sent
    EventId m_creditProbe;                         //!< runs while a data VL waits for credits
    TracedCallback<uint8_t, uint16_t> m_sentTrace; //!< FC packet sent
    TracedCallback<uint8_t, uint16_t> m_receivedTrace; //!< FC packet received
};

} // namespace ns3

#endif /* IB_CREDIT_FLOW_CONTROL_H */
