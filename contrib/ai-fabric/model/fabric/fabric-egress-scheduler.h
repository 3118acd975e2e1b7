/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_EGRESS_SCHEDULER_H
#define FABRIC_EGRESS_SCHEDULER_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What an egress scheduler asks of its port: whether a traffic class may send the
 *        frame at its head now. The port implements it.
 */
class FabricEgressClasses
{
  public:
    virtual ~FabricEgressClasses() = default;

    /**
     * \brief May the class send its head frame now? The port answers from its queue, its
     *        transport and its link-level flow control, and may act on the question (pull a
     *        frame from its transport into the class, begin or end a wait for credits), so a
     *        scheduler asks in the order it would serve the classes and stops at the first
     *        yes.
     * \param cls a traffic class below the port's count
     * \return true if it may: the port sends that class's frame if it is selected
     */
    virtual bool IsSendable(uint8_t cls) = 0;
};

/**
 * \ingroup ai-fabric
 * \brief The egress scheduler of a port's output queues: which traffic class sends next.
 *        A part of the port (its pointer attribute "Scheduler"), in the shape of ns-3's
 *        traffic-control queue discs.
 *
 * The port keeps one FIFO per class (RoCEv2's 8 priorities, InfiniBand's data VLs), its
 * transport as the source of one class, and its link-level flow control; it asks Select()
 * each time the wire frees, with the classes that may have a frame, and reports the bytes of
 * the frame it then sent (Served()) to schedulers that weigh by bytes. Frames the port sends
 * ahead of all classes (PFC frames, InfiniBand's flow-control and management packets) do not
 * pass through the scheduler. Implementations: FabricStrictPriorityScheduler (RoCEv2's
 * default), IbVlArbiter (IBTA VL arbitration, InfiniBand's default).
 */
class FabricEgressScheduler : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricEgressScheduler();
    ~FabricEgressScheduler() override;

    /**
     * \brief Choose the class that sends next.
     * \param port the port's classes (asked in serving order, IsSendable())
     * \param nClasses the port's traffic classes
     * \param candidates bit mask of the classes that may have a frame: a superset of those
     *        the port would answer yes for (the classes it knows to be empty are left out);
     *        the scheduler asks none outside it
     * \return the class, or -1 if none may send
     */
    virtual int32_t Select(FabricEgressClasses& port, uint32_t nClasses, uint32_t candidates) = 0;

    /**
     * \brief The selected class sent a frame (weighted schedulers count its bytes; the base
     *        class does nothing).
     * \param cls the class Select() returned
     * \param bytes the frame's bytes
     */
    virtual void Served(uint8_t cls, uint32_t bytes);

    /**
     * \return true if this is plain strict priority (FabricStrictPriorityScheduler itself,
     *         not a subclass): Select() asks from the highest candidate down and Served() does
     *         nothing, so a port may run that selection inline, without the virtual calls,
     *         on its per-frame path (the base class: false)
     */
    virtual bool IsPlainStrictPriority() const;

    /**
     * \brief Serve a port (the port that takes this part calls it); aborts if the part
     *        already serves another, or the port is already running (FabricAdoptPart).
     * \param owner the port
     */
    void Adopt(const Object* owner);

  private:
    const Object* m_owner{nullptr}; //!< the port it serves (Adopt())
};

} // namespace ns3

#endif /* FABRIC_EGRESS_SCHEDULER_H */
