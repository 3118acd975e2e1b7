/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_CC_DCQCN_H
#define RDMA_CC_DCQCN_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "rdma-congestion-control.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DCQCN (Zhu et al., SIGCOMM 2015): the reaction point (sender) and the notification
 *        point (receiver) of one QP.
 *
 * Notification point: a data packet that arrives ECN-marked (CE) makes the QP send a CNP to
 * its peer, at most one per CnpInterval.
 *
 * Reaction point, with current rate Rc, target rate Rt and congestion estimate alpha:
 * - on a CNP (at most one rate cut per RateReducePeriod; a CNP inside the period cuts at its
 *   end): alpha <- (1 - g) alpha + g, then Rt <- Rc (always with ClampTargetRate, as the
 *   paper; otherwise at the first cut and when the timer raised the rate since the last cut,
 *   as ConnectX), Rc <- max(Rc (1 - alpha / 2), MinRate), and both increase counters and the
 *   timers restart;
 * - every AlphaPeriod without a CNP: alpha <- (1 - g) alpha (computed when next needed: the
 *   decay has no events of its own);
 * - a rate increase event every IncreasePeriod (timer stage T) and every ByteCounter bytes
 *   sent (byte stage BC): while max(T, BC) < F, fast recovery Rc <- (Rt + Rc) / 2; once
 *   min(T, BC) > F, hyper increase Rt += (min(T, BC) - F) R_HAI; otherwise additive increase
 *   Rt += R_AI; in both, then Rc <- (Rt + Rc) / 2. Rates never exceed the line rate.
 * A QP at line rate runs no timers; the first CNP starts them, and they stop again once Rc
 * and Rt are back at the line rate. A QP that sent nothing for a whole IncreasePeriod parks
 * its timer until its next packet (a simplification: the NIC's timer would keep raising the
 * rate of an idle QP).
 *
 * The defaults are ConnectX firmware's; GetPreset("paper") gives the paper's parameters.
 */
class RdmaCcDcqcn : public RdmaCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaCcDcqcn();
    ~RdmaCcDcqcn() override;

    void OnPacketSent(uint32_t wireBytes) override;
    void OnCongestionNotification() override;
    bool OnCongestionMarked() override;

    /// \return the congestion estimate alpha as of now (0..1)
    double GetAlpha() const;

    /// \return the target rate Rt
    DataRate GetTargetRate() const;

    /// \return rate cuts made so far
    uint64_t GetRateCuts() const;

    /**
     * \brief The attribute values of a named parameter set.
     * \param name "paper" (SIGCOMM 2015, 40 GbE) or "connectx" (ConnectX firmware defaults)
     * \return (attribute name, value) pairs of ns3::RdmaCcDcqcn; empty for an unknown name
     */
    static std::vector<std::pair<std::string, std::string>> GetPreset(const std::string& name);

    /**
     * TracedCallback signature for alpha updates at a rate cut.
     * \param alpha the new alpha
     */
    typedef void (*AlphaTracedCallback)(double alpha);

  protected:
    void DoDispose() override;

  private:
    /// Bring alpha's timer-driven decay up to now.
    void DecayAlpha();
    /// Cut the rate (a CNP, or the end of a rate-reduce period with a CNP pending).
    void Cut();
    /// The rate-increase timer fired.
    void IncreaseTimer();
    /// One rate increase event.
    void Increase();
    /// Stop the timers once both rates are back at the line rate.
    void MaybeIdle();

    // Attributes
    double m_g{0};                       //!< alpha gain
    double m_initialAlpha{1};            //!< alpha at the first CNP
    Time m_alphaPeriod;                  //!< alpha decay period (K)
    Time m_increasePeriod;               //!< rate-increase timer (T)
    uint64_t m_byteCounter{0};           //!< bytes per byte-counter event (B)
    uint32_t m_fastRecovery{0};          //!< F
    DataRate m_rai;                      //!< additive increase step
    DataRate m_rhai;                     //!< hyper increase step
    DataRate m_minRate;                  //!< the rate never falls below this
    Time m_rateReducePeriod;             //!< at most one cut per this time (0: every CNP)
    Time m_cnpInterval;                  //!< NP: at most one CNP per this time
    bool m_clampTargetRate{false};       //!< Rt <- Rc at every cut
    bool m_clampAfterTimeIncrease{true}; //!< Rt <- Rc at a cut after a timer increase

    // Reaction point state
    bool m_active{false};         //!< below line rate, timers running
    double m_alpha{0};            //!< congestion estimate at m_alphaTime
    Time m_alphaTime;             //!< when alpha was last brought up to date
    bool m_alphaValid{false};     //!< a CNP has set alpha
    double m_rc{0};               //!< current rate (bit/s)
    double m_rt{0};               //!< target rate (bit/s)
    uint32_t m_timerStage{0};     //!< T
    uint32_t m_byteStage{0};      //!< BC
    uint64_t m_bytes{0};          //!< bytes since the last byte-counter event
    Time m_lastCut;               //!< when the rate was last cut
    bool m_cutDone{false};        //!< a cut happened (m_lastCut valid)
    uint64_t m_cuts{0};           //!< rate cuts
    bool m_timerIncreased{false}; //!< the timer raised the rate since the last cut
    bool m_sentThisPeriod{false}; //!< a packet left since the last timer event
    EventId m_increaseEvent;      //!< rate-increase timer
    EventId m_cutEvent;           //!< a cut deferred to the end of a rate-reduce period

    // Notification point state
    Time m_lastCnp;        //!< when this QP last asked for a CNP
    bool m_cnpSent{false}; //!< m_lastCnp valid

    TracedCallback<double> m_alphaTrace; //!< alpha at each cut
};

} // namespace ns3

#endif /* RDMA_CC_DCQCN_H */
