/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_CONGESTION_CONTROL_H
#define IB_CONGESTION_CONTROL_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/rdma-congestion-control.h"
#include "ns3/traced-value.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand congestion control at a channel adapter (IBTA Annex A10), per QP.
 *
 * The reaction point keeps a congestion control table index (CCTI). Every BECN (a CNP sent
 * back by the destination for a FECN-marked packet) adds CctiIncrease, up to the table's last
 * index; every CctiTimer x 1.024 us the index drops by one, down to CctiMin. The table entry at
 * the index is an inter-packet delay: after a packet of transmission time T the QP waits
 * T x multiplier / 2^shift before the next one starts, so the QP sends at
 * line rate / (1 + multiplier / 2^shift). The notification point returns one BECN for every
 * FECN-marked data packet. Switches mark FECN (IbNetDevice's Cc* attributes).
 *
 * With the Cct attribute empty (the default) the table is derived as Intel's Omni-Path fabric
 * manager derives it for the same scheme: CctEntries entries with shift 3 (less if the last
 * multiplier would not fit 14 bits) whose delays grow
 * linearly from 0 to CctMaxDelay for a packet of CctPacketBytes at the line rate.
 *
 * This is QP-based control (CACongestionSetting Port_Control bit 0 clear); SL-based control,
 * the Trigger_Threshold event log and the congestion-control MADs are not modelled: the
 * settings are attributes instead of values a subnet manager writes.
 */
class IbCongestionControl : public RdmaCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbCongestionControl();
    ~IbCongestionControl() override;

    /// One CCT entry: the inter-packet delay is multiplier / 2^shift packet times.
    struct CctEntry
    {
        uint8_t shift{0};       //!< 2 bits
        uint16_t multiplier{0}; //!< 14 bits
    };

    /// The unit of CctiTimer (IBTA Annex A10): 1.024 us.
    static constexpr int64_t TIMER_UNIT_NS = 1024;

    /**
     * \brief Parse a table in OpenSM's cc_cct form: comma-separated shift:multiplier entries.
     * \param text the table
     * \param[out] table the entries
     * \return an empty string, or what is wrong with the text
     */
    static std::string ParseCct(const std::string& text, std::vector<CctEntry>& table);

    /// \return the current table index
    uint32_t GetCcti() const;

    /// \return the largest index (the table's size - 1)
    uint32_t GetCctiLimit() const;

    /**
     * \param ccti an index
     * \return the rate the table gives at that index (line rate / (1 + delay))
     */
    DataRate RateAt(uint32_t ccti) const;

    /// \return BECNs received
    uint64_t GetBecnsReceived() const;

    void OnPacketSent(uint32_t wireBytes) override;
    void OnCongestionNotification() override;
    bool OnCongestionMarked() override;

  protected:
    void DoDispose() override;

  private:
    /// \param text the table (attribute setter; aborts on a malformed table)
    void SetCct(std::string text);
    /// \return the table's text
    std::string GetCct() const;

    /// Derive the table from CctMaxDelay, CctEntries and CctPacketBytes at the line rate.
    void DeriveTable() const;

    /// \return the lowest index: CctiMin, or the table's last index if that is lower
    uint32_t Floor() const;

    /// Apply the current index to the rate.
    void Apply();

    /// The CCTI timer expired: one step down, and run again while above the minimum.
    void TimerExpired();

    std::string m_cctText;               //!< Cct attribute
    mutable std::vector<CctEntry> m_cct; //!< the table (empty: not derived yet)
    Time m_maxDelay;                     //!< CctMaxDelay
    uint32_t m_entries{128};             //!< CctEntries
    uint32_t m_packetBytes{0};           //!< CctPacketBytes
    uint32_t m_increase{1};              //!< CctiIncrease
    uint32_t m_timerUnits{0};            //!< CctiTimer (1.024 us units)
    uint32_t m_min{0};                   //!< CctiMin
    TracedValue<uint32_t> m_ccti{0};     //!< current index
    EventId m_timer;                     //!< CCTI timer
    uint64_t m_becns{0};                 //!< BECNs received
};

} // namespace ns3

#endif /* IB_CONGESTION_CONTROL_H */
