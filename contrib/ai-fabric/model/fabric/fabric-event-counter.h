/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_EVENT_COUNTER_H
#define FABRIC_EVENT_COUNTER_H

#include "ns3/object.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Events counted by kind: what a FabricEventCounter fills.
 *
 * A kind is the type of the event's implementation, which ns-3's MakeEvent derives from the
 * method (or function) the event calls and its argument types: FabricChannel::Deliver,
 * FabricNetDevice::TransmitComplete, RoceSwitchPort::DelayedEnqueue, ... each have their own.
 * Two methods of one class with the same signature share a kind (see the manual's table).
 */
class FabricEventTally : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// One kind and its counts.
    struct Kind
    {
        const std::type_info* type{nullptr}; //!< the event implementation's type
        uint64_t executed{0};                //!< events taken and run
        uint64_t cancelled{0};               //!< events taken that had been cancelled
    };

    /// \return every kind seen, in order of first appearance
    const std::vector<Kind>& GetKinds() const;

    /// \return events run, all kinds
    uint64_t GetExecuted() const;

    /// \return cancelled events taken from the schedule, all kinds
    uint64_t GetCancelled() const;

    /**
     * \param method a readable kind name as KindName() returns it, e.g.
     *        "ns3::FabricChannel(unsigned int, ns3::Ptr<ns3::Packet>, unsigned int)"; or a
     *        substring of it such as "ns3::FabricChannel"
     * \return events run whose kind name contains it
     */
    uint64_t GetExecuted(const std::string& method) const;

    /**
     * \param type an event implementation's type
     * \return a readable name: "Class(argument types)" for a member function's event, the
     *         demangled type otherwise
     */
    static std::string KindName(const std::type_info* type);

    /**
     * \brief Write a table of the kinds, most frequent first.
     * \param os where
     * \param per divide the counts by this (e.g. data packet-hops); 0 prints counts only
     */
    void Print(std::ostream& os, double per = 0) const;

    /// Forget every count.
    void Reset();

    /**
     * \brief Count one event taken from the schedule.
     * \param type its implementation's type
     * \param cancelled it had been cancelled
     */
    void Count(const std::type_info* type, bool cancelled)
    {
        // The last kind is the likeliest (a packet's events come in runs); then a short scan.
        if (m_last < m_kinds.size() && m_kinds[m_last].type == type)
        {
            ++(cancelled ? m_kinds[m_last].cancelled : m_kinds[m_last].executed);
            return;
        }
        CountSlow(type, cancelled);
    }

  private:
    /**
     * \brief Count an event whose kind is not the last one counted.
     * \param type its implementation's type
     * \param cancelled it had been cancelled
     */
    void CountSlow(const std::type_info* type, bool cancelled);

    std::vector<Kind> m_kinds; //!< the kinds seen
    std::size_t m_last{0};     //!< index of the last kind counted
};

/**
 * \ingroup ai-fabric
 * \brief A scheduler around another (Inner) that counts the events it hands out, by kind.
 *
 * A study and debugging facility: it costs nothing unless chosen as the simulator's
 * scheduler, e.g. for any ai-fabric program
 *
 *     NS_GLOBAL_VALUE="SchedulerType=ns3::FabricEventCounter" ./build/bin/ai-fabric-perftest
 *
 * (the watchdog wraps whatever SchedulerType names). When it is destroyed (at
 * Simulator::Destroy) it prints the table to stderr if Print is true. A test passes its own
 * FabricEventTally (attribute Tally) and reads the counts.
 */
class FabricEventCounter : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricEventCounter();
    ~FabricEventCounter() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// \return the tally this counter fills
    Ptr<FabricEventTally> GetTally() const;

    /// Print the table to stderr (once, and only if Print is true).
    void PrintOnce();

  private:
    /// \return the inner scheduler, made on first use from InnerType
    Scheduler& Inner() const;

    mutable Ptr<Scheduler> m_inner; //!< the scheduler that orders the events
    std::string m_innerType;        //!< its TypeId name
    Ptr<FabricEventTally> m_tally;  //!< where the counts go
    bool m_print{true};             //!< print the table when destroyed
    bool m_printed{false};          //!< the table was printed
};

} // namespace ns3

#endif /* FABRIC_EVENT_COUNTER_H */
