/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLINK_CREDIT_FLOW_CONTROL_H
#define NVLINK_CREDIT_FLOW_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-link-flow-control.h"
#include "ns3/fabric-stall-clock.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NVLink's credit-based link-level flow control at one port: the credits its peer
 *        granted (the sender never sends a packet they do not cover), and the receive buffer
 *        whose freed bytes go back to the peer as credits.
 *
 * A part of NvLinkNetDevice (its pointer attribute "FlowControl"). The port asks GetCredits()
 * and spends them on its per-frame path (inline), charges each received packet to the buffer
 * (Occupy()) and frees it when it leaves (Release(): at once at a GPU, when it leaves the
 * switch at a switch port); the part has the port send a credit packet (its credit callback)
 * when the freed bytes reach CreditUpdateBytes, or at the latest after that many bytes' line
 * time. Each port advertises its whole buffer when it starts (Start()). It is the port's
 * FabricLinkFlowControl: one class, held while a data packet waits for credits.
 */
class NvLinkCreditFlowControl : public FabricLinkFlowControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvLinkCreditFlowControl();
    ~NvLinkCreditFlowControl() override;

    /// Send a credit packet: (bytes, absolute: the peer's credit becomes bytes).
    typedef Callback<void, uint32_t, bool> CreditCallback;

    /**
     * \param send how the port sends a credit packet
     */
    void SetCreditCallback(CreditCallback send);

    /// \return the receive buffer (bytes): the credits the port grants
    uint32_t GetBufferBytes() const
    {
        return m_bufferBytes;
    }

    /// \return bytes the peer can still take
    uint64_t GetCredits() const
    {
        return m_credits;
    }

    /**
     * \param bytes a packet's size, covered by the credits
     */
    void Spend(uint32_t bytes)
    {
        m_credits -= bytes;
    }

    /**
     * \brief Track credit stalls: whether a data packet that waits may go now.
     * \param canSend false while a waiting packet has too few credits
     */
    void NoteStall(bool canSend)
    {
        if (canSend == m_stall.IsHeldOpen())
        {
            StallChanged(canSend); // a wait for credits begins or ends
        }
    }

    /**
     * \brief A credit packet arrived.
     * \param bytes its credit
     * \param absolute the credit becomes bytes (initialization) instead of growing by them
     */
    void ReceiveCredit(uint32_t bytes, bool absolute);

    /**
     * \brief Charge a received packet to the buffer.
     * \param bytes its size
     * \return false if the buffer cannot hold it (the sender broke the credits)
     */
    bool Occupy(uint32_t bytes);

    /**
     * \brief A packet left the buffer: its bytes go back to the peer as credits.
     * \param bytes its size
     * \param rate the port's rate (the latest a credit waits is the update's line time)
     */
    void Release(uint32_t bytes, DataRate rate);

    /// The port starts: grant the peer the whole buffer.
    void Start();

    /**
     * \brief The link changed state.
     * \param up true: it retrained (what is free now is the peer's new credit); false: what
     *        was in flight is lost
     */
    void LinkChange(bool up);

    // FabricLinkFlowControl: one class
    uint32_t GetNClasses() const override;
    bool IsCreditBased() const override;
    bool IsHeld(uint8_t cls) const override;
    Time GetHeldTime(uint8_t cls) const override;

  protected:
    void DoDispose() override;

  private:
    /// Return the credits freed but not yet reported.
    void Flush();

    /**
     * \brief A wait for credits begins or ends now.
     * \param canSend true: it ends
     */
    void StallChanged(bool canSend);

    uint32_t m_bufferBytes{0};       //!< receive buffer (attribute)
    uint32_t m_creditUpdateBytes{0}; //!< freed bytes per credit packet (attribute)
    uint64_t m_occupied{0};          //!< receive buffer in use
    uint64_t m_credits{0};           //!< what the peer can still take
    uint64_t m_unreported{0};        //!< freed bytes not yet returned to the peer
    FabricStallClock m_stall;        //!< while and how long a data packet waited for credits
    EventId m_flush;                 //!< returns the unreported credits at the latest
    CreditCallback m_send;           //!< to the port: send a credit packet
};

} // namespace ns3

#endif /* NVLINK_CREDIT_FLOW_CONTROL_H */
