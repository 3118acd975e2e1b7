/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_CONGESTION_CONTROL_H
#define RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

class Packet;

/**
 * \ingroup ai-fabric
 * \brief What one ACK tells the congestion control of its QP (RdmaCongestionControl::OnAck).
 *
 * Filled by the requester's QP for every ACK, or NAK, that acknowledges new packets.
 */
struct RdmaAckInfo
{
    uint32_t ackedPackets{0};  //!< packets newly acknowledged
    uint64_t ackedBytes{0};    //!< payload bytes newly acknowledged
    uint64_t inflightBytes{0}; //!< payload bytes sent and still unacknowledged after this ACK
    /// The round trip of the newest packet this ACK acknowledges: from the start of its
    /// transmission at the QP to this ACK's arrival (NIC timestamps, as TIMELY and Swift use).
    /// Negative when there is no sample: the packet was sent more than once (Karn), or the
    /// algorithm does not ask for samples (WantsRttSamples()).
    Time rtt{-1};
    /// The ACK's BECN bit: the responder saw a congestion-marked data packet (ECN CE, FECN)
    /// since its previous ACK. Set only by responders whose transport has AckEcnEcho on.
    bool ecnEcho{false};
    bool nak{false}; //!< a NAK (PSN sequence error) that acknowledged packets before its PSN
    /// The ACK as it arrived, after its BTH and AETH: in-band telemetry that switches wrote
    /// and the responder echoed (RdmaTelemetryTag) is read from its packet tags.
    const Packet* packet{nullptr};
};

/**
 * \ingroup ai-fabric
 * \brief Per-QP congestion control: a rate and a window that the NIC's QP scheduler obeys.
 *
 * The base class owns the current sending rate, the window, their traces and the contract
 * with the scheduler: after a packet of W wire bytes, the QP may send again W x 8 / rate later
 * (no wait at all while the rate is at least the line rate), and it sends no new packet while
 * its unacknowledged payload bytes reach the window (0: no window). An algorithm (DCQCN, IB
 * CC, HPCC, Swift, ...) derives from it and sets the rate (SetRate()) and the window
 * (SetWindow()) from the events below: every packet sent, every ACK with what it tells
 * (RdmaAckInfo: bytes acknowledged, an RTT sample, ECN echo, telemetry), congestion
 * notifications at both ends and timeouts. Each QP has its own instance.
 *
 * An algorithm is chosen by its TypeId (RdmaTransport's CongestionControl attribute) or, in
 * the programs, by the short name it registers (`--cc=NAME`, RdmaCcRegistration).
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

    /// \return the window in payload bytes; 0: none (only the rate limits)
    uint64_t GetWindow() const
    {
        return m_window;
    }

    /**
     * \param cb called after every change of the current rate or the window (the transport
     *        re-times a QP that waits for its pacing gap, and wakes one the window held)
     */
    void SetRateChangeCallback(Callback<void> cb);

    /**
     * \return true if the algorithm uses RTT samples (RdmaAckInfo::rtt): the QP then keeps
     *         the send time of every packet outstanding. False in the base class.
     */
    virtual bool WantsRttSamples() const;

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
     * \brief An ACK (or a NAK) advanced this QP's oldest unacknowledged PSN.
     * \param ack what it acknowledged and what it carried
     */
    virtual void OnAck(const RdmaAckInfo& ack);

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

    /**
     * TracedCallback signature for window changes.
     * \param oldWindow previous window (bytes; 0: none)
     * \param newWindow new window (bytes; 0: none)
     */
    typedef void (*WindowTracedCallback)(uint64_t oldWindow, uint64_t newWindow);

  protected:
    void DoDispose() override;

    /**
     * \brief Change the current rate (clamped to the line rate) and trace it.
     * \param rate the new rate
     */
    void SetRate(DataRate rate);

    /**
     * \brief Change the window and trace it. A QP with nothing outstanding may always send one
     *        packet, so a window below one MTU still makes progress.
     * \param bytes the new window in payload bytes; 0: none
     */
    void SetWindow(uint64_t bytes);

  private:
    DataRate m_lineRate;                              //!< the port's rate
    DataRate m_rate;                                  //!< current sending rate
    uint64_t m_window{0};                             //!< window in payload bytes; 0: none
    TracedCallback<uint64_t, uint64_t> m_rateTrace;   //!< rate changes
    TracedCallback<uint64_t, uint64_t> m_windowTrace; //!< window changes
    Callback<void> m_rateChanged;                     //!< to the transport
};

/**
 * \ingroup ai-fabric
 * \brief The short names of congestion-control algorithms, for `--cc=NAME`.
 *
 * An algorithm registers itself once, with a namespace-scope object in its .cc file:
 *
 * \code
 *   static RdmaCcRegistration g_myCc("mycc", &MyCc::GetTypeId, "", "my algorithm");
 * \endcode
 *
 * Lookup() also takes any TypeId name of a subclass of RdmaCongestionControl, so an algorithm
 * defined in a user's program is chosen without registering.
 */
class RdmaCcRegistration
{
  public:
    /// One registered algorithm.
    struct Entry
    {
        std::string name;        //!< short name (--cc=NAME)
        TypeId typeId;           //!< its TypeId
        std::string fabric;      //!< the only fabric it runs on ("roce", "ib"), or "" for all
        std::string description; //!< one line for --help
    };

    /**
     * \brief Register an algorithm (at static initialization).
     * \param name short name
     * \param typeId its GetTypeId function
     * \param fabric the only fabric it runs on, or "" for every fabric
     * \param description one line
     */
    RdmaCcRegistration(const std::string& name,
                       TypeId (*typeId)(),
                       const std::string& fabric,
                       const std::string& description);

    /**
     * \param name a registered short name, or a TypeId name of a subclass of
     *        RdmaCongestionControl
     * \param entry set to the algorithm (for a TypeId name: that name, every fabric)
     * \return false if the name is neither
     */
    static bool Lookup(const std::string& name, Entry& entry);

    /**
     * \param name a registered name or a TypeId name
     * \param fabric a fabric's short name
     * \return true if the algorithm exists and runs on that fabric
     */
    static bool RunsOn(const std::string& name, const std::string& fabric);

    /// \return the registered names, separated by ", " (for messages and --help)
    static std::string Names();

  private:
    /// \return the registry
    static std::vector<Entry>& Registry();
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
