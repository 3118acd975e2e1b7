/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_CONGESTION_CONTROL_H
#define RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Per-QP congestion control: a rate limiter that the NIC's QP scheduler obeys.
 *
 * The base class owns the current sending rate, its trace and the contract with the
 * scheduler: after a packet of W wire bytes, the QP may send again W x 8 / rate later (no wait
 * at all while the rate is at least the line rate). An algorithm (DCQCN, IB CC, ...) derives
 * from it and changes the rate from the events below. Each QP has its own instance.
 */
class RdmaCongestionControl : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaCongestionControl();
    ~RdmaCongestionControl() override;

    /**
     * \brief Set the line rate; the current rate starts there.
     * \param lineRate the port's rate
     */
    void SetLineRate(DataRate lineRate);

    /// \return the port's line rate
    DataRate GetLineRate() const;

    /// \return the current sending rate
    DataRate GetRate() const;

    /**
     * \param cb called after every change of the current rate (the transport re-times a QP
     *        that waits for its pacing gap)
     */
    void SetRateChangeCallback(Callback<void> cb);

    /**
     * \brief The pacing gap after a packet.
     * \param wireBytes the packet's bytes on the wire
     * \return how long after the start of this packet the QP may start the next one; zero when
     *         the rate is the line rate (the port's serialization is the only limit)
     */
    Time GetPacingGap(uint32_t wireBytes) const;

    /**
     * \brief A data packet of this QP started transmission.
     * \param wireBytes its bytes on the wire
     */
    virtual void OnPacketSent(uint32_t wireBytes);

    /**
     * \brief An ACK advanced this QP's oldest unacknowledged PSN.
     * \param ackedPackets packets newly acknowledged
     */
    virtual void OnAck(uint32_t ackedPackets);

    /// A congestion notification for this QP arrived (a RoCEv2 CNP or an IB BECN).
    virtual void OnCongestionNotification();

    /**
     * \brief The notification point's side: a data packet for this QP (as responder) arrived
     *        marked with congestion (ECN CE on RoCEv2, FECN on IB).
     * \return true if the QP should send a congestion notification (CNP) to its peer now
     */
    virtual bool OnCongestionMarked();

    /// The retransmission timer of this QP expired.
    virtual void OnTimeout();

    /**
     * TracedCallback signature for rate changes.
     * \param oldRate previous rate (bit/s)
     * \param newRate new rate (bit/s)
     */
    typedef void (*RateTracedCallback)(uint64_t oldRate, uint64_t newRate);

  protected:
    void DoDispose() override;

    /**
     * \brief Change the current rate (clamped to the line rate) and trace it.
     * \param rate the new rate
     */
    void SetRate(DataRate rate);

  private:
    DataRate m_lineRate;                            //!< the port's rate
    DataRate m_rate;                                //!< current sending rate
    TracedCallback<uint64_t, uint64_t> m_rateTrace; //!< rate changes
    Callback<void> m_rateChanged;                   //!< to the transport
};

/**
 * \ingroup ai-fabric
 * \brief No congestion control: every QP may always send at line rate.
 */
class RdmaCcNone : public RdmaCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
};

} // namespace ns3

#endif /* RDMA_CONGESTION_CONTROL_H */
