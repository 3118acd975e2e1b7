/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef IB_VL_ARBITER_H
#define IB_VL_ARBITER_H

#include "ns3/fabric-egress-scheduler.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand's VL arbitration at a port's output (IBTA vol. 1, 7.6.9): a high- and a
 *        low-priority table of VL:weight entries, each served weighted round robin (an entry
 *        sends up to its weight x 64 bytes, finishing the packet it started, then the next
 *        entry has its turn), and a limit of high priority: the high table may send
 *        HighLimit x 4096 bytes while the low table has a packet waiting (255: no limit;
 *        0: one packet). Without tables (the default), the data VLs take turns, one packet
 *        each. A VL without a packet or without the credits for it is passed over.
 *
 * InfiniBand's egress scheduler (IbNetDevice's pointer attribute "Scheduler"); VL15 goes
 * ahead of it, without credits.
 */
class IbVlArbiter : public FabricEgressScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IbVlArbiter();
    ~IbVlArbiter() override;

    int32_t Select(FabricEgressClasses& port, uint32_t nClasses, uint32_t candidates) override;
    void Served(uint8_t cls, uint32_t bytes) override;

    /// \return true for this class itself: a port may run SelectWith() and Served() without
    ///         virtual calls (its per-packet path); a subclass is asked through Select()
    bool IsPlain() const;

    /**
     * \brief VL arbitration itself, for Select() and for a port that runs it inline.
     * \param nClasses the port's data VLs
     * \param candidates bit mask of the VLs that may have a packet (the others are not asked)
     * \param sendable asked for a VL in the arbitration's order: may it send now?
     * \return the VL chosen, or -1
     */
    template<class Sendable>
    int32_t SelectWith(uint32_t nClasses, uint32_t candidates, Sendable&& sendable);

  private:
    /// A table's weights count 64-byte units (IBTA vol. 1, 7.6.9).
    static constexpr uint32_t ENTRY_UNIT_BYTES = 64;

    /// One entry of a VL arbitration table.
    struct Entry
    {
        uint8_t vl;      //!< the VL
        uint32_t weight; //!< 64-byte units per turn (0: skipped)
    };

    /// Where a table's arbitration stands.
    struct Position
    {
        std::size_t index{0}; //!< current entry
        int64_t remaining{0}; //!< bytes the entry may still send this turn
        bool fresh{true};     //!< the entry's turn has not started
    };

    /// Which rule chose the last VL (what Served() counts).
    enum class From
    {
        NONE,        //!< nothing chosen
        TURNS,       //!< no tables: in turn
        HIGH,        //!< the high table, within its limit
        LOW,         //!< the low table
        HIGH_BEYOND, //!< the high table, the low one having nothing
    };

    /**
     * \param text comma-separated VL:weight entries
     * \return the table (aborts on a malformed entry)
     */
    static std::vector<Entry> Parse(const std::string& text);

    /// \param text the high-priority table (attribute setter)
    void SetHighTable(std::string text);
    /// \return the high-priority table's text
    std::string GetHighTable() const;
    /// \param text the low-priority table (attribute setter)
    void SetLowTable(std::string text);
    /// \return the low-priority table's text
    std::string GetLowTable() const;

    /**
     * \brief Find the next entry of a table whose VL may send, weighted round robin.
     * \param port the port's VLs
     * \param nClasses its data VLs
     * \param candidates the VLs that may have a packet
     * \param table the table
     * \param pos its position (advanced past the entries passed over)
     * \return the VL, or -1
     */
    template<class Sendable>
    static int32_t ServeTable(uint32_t nClasses,
                              uint32_t candidates,
                              const std::vector<Entry>& table,
                              Position& pos,
                              Sendable& sendable);

    /**
     * \brief Count a packet sent by the entry a table chose.
     * \param table the table
     * \param pos its position
     * \param bytes the packet's bytes
     */
    static void Charge(const std::vector<Entry>& table, Position& pos, uint32_t bytes);

    std::string m_highText;    //!< HighTable
    std::string m_lowText;     //!< LowTable
    std::vector<Entry> m_high; //!< high-priority table
    std::vector<Entry> m_low;  //!< low-priority table
    Position m_highPos;        //!< high table position
    Position m_lowPos;         //!< low table position
    uint32_t m_highLimit{255}; //!< limit of high priority (4096-byte units)
    uint64_t m_highSent{0};    //!< high-table bytes since a low-table packet
    uint32_t m_next{0};        //!< the VL whose turn is next (no tables)
    From m_from{From::NONE};   //!< what chose the last VL
};

template<class Sendable>
int32_t
IbVlArbiter::ServeTable(uint32_t nClasses,
                        uint32_t candidates,
                        const std::vector<Entry>& table,
                        Position& pos,
                        Sendable& sendable)
{
    for (std::size_t tries = 0; tries < table.size(); ++tries)
    {
        const Entry& entry = table[pos.index];
        if (pos.fresh)
        {
            pos.remaining = static_cast<int64_t>(entry.weight) * ENTRY_UNIT_BYTES;
            pos.fresh = false;
        }
        if (pos.remaining > 0 && entry.vl < nClasses && (candidates & (1U << entry.vl))
            && sendable(entry.vl))
        {
            return entry.vl; // Charge() moves on once its weight is spent
        }
        pos.index = (pos.index + 1) % table.size();
        pos.fresh = true;
    }
    return -1;
}

template<class Sendable>
int32_t
IbVlArbiter::SelectWith(uint32_t nClasses, uint32_t candidates, Sendable&& sendable)
{
    m_from = From::NONE;
    if (m_high.empty() && m_low.empty())
    {
        // No tables: every data VL in turn, one packet each.
        const uint32_t first = m_next < nClasses ? m_next : m_next % nClasses;
        for (uint32_t k = 0; k < nClasses; ++k)
        {
            uint32_t vl = first + k;
            vl = vl >= nClasses ? vl - nClasses : vl;
            if ((candidates & (1U << vl)) && sendable(static_cast<uint8_t>(vl)))
            {
                m_next = vl + 1 == nClasses ? 0 : vl + 1;
                m_from = From::TURNS;
                return static_cast<int32_t>(vl);
            }
        }
        return -1;
    }
    // The high-priority table first, until it has sent its limit (HighLimit x 4096 bytes;
    // 255: no limit) while the low-priority table has a packet. A limit of 0 still lets one
    // high-priority packet go first (IBTA).
    const bool highBounded = m_highLimit != 255;
    if (!highBounded || m_highSent == 0 || m_highSent < uint64_t(m_highLimit) * 4096)
    {
        const int32_t vl = ServeTable(nClasses, candidates, m_high, m_highPos, sendable);
        if (vl >= 0)
        {
            m_from = From::HIGH;
            return vl;
        }
    }
    int32_t vl = ServeTable(nClasses, candidates, m_low, m_lowPos, sendable);
    if (vl >= 0)
    {
        m_from = From::LOW;
        return vl;
    }
    vl = ServeTable(nClasses, candidates, m_high, m_highPos, sendable);
    if (vl >= 0)
    {
        m_from = From::HIGH_BEYOND; // the low table had nothing: the high table may go on
    }
    return vl;
}

} // namespace ns3

#endif /* IB_VL_ARBITER_H */
