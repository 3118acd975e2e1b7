/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_CONGESTION_MARKER_H
#define FABRIC_CONGESTION_MARKER_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class Packet;

/**
 * \ingroup ai-fabric
 * What a switch port knows of a forwarded frame as it leaves its queue: all a marker may
 * base its decision on.
 */
struct FabricMarkContext
{
    uint64_t bitRate{0};          //!< the port's rate (bit/s)
    uint32_t queuedBytes{0};      //!< bytes the frame leaves behind in its class's queue
    uint32_t frameBytes{0};       //!< the frame's bytes, as captured
    uint32_t classBufferBytes{0}; //!< the class's buffer at the port (InfiniBand's VL
                                  //!< buffer); 0 where the port has none of its own
    uint8_t cls{0};               //!< the traffic class it leaves in (priority, VL)
    bool victim{false};           //!< the class waited for the next hop's credits just before
};

/**
 * \ingroup ai-fabric
 * \brief A switch port's congestion marker: the part that decides whether a forwarded frame
 *        leaving an output queue carries a congestion mark (ECN CE on RoCEv2, FECN on
 *        InfiniBand), and writes it.
 *
 * A port holds its marker as the pointer attribute "Marker" and calls Mark() for each
 * forwarded frame as it leaves an output queue (marking at dequeue). A marker writes its
 * fabric's frame format: the port's own marker (RoceEcnMarker, IbFecnMarker) is the one to
 * configure or replace with one that writes the same headers. The base counts the marks
 * and fires the "Mark" trace source (NotifyMarked()).
 */
class FabricCongestionMarker : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FabricCongestionMarker();
    ~FabricCongestionMarker() override;

    /**
     * \brief Decide on a departing forwarded frame and mark it.
     * \param p the frame; replaced by a marked copy when marked (other holders, traces
     *        among them, may keep the frame as it was)
     * \param ctx what the port knows of the frame and its queue
     * \return true if the frame was marked
     */
    virtual bool Mark(Ptr<Packet>& p, const FabricMarkContext& ctx) = 0;

    /**
     * \brief The queue lengths between which the marker marks (RED-style ECN).
     * \param bitRate the port's rate (bit/s), for thresholds derived from it
     * \param kmin set to the lower threshold (bytes)
     * \param kmax set to the upper threshold (bytes)
     * \return false (both 0) if the marker marks by another rule
     */
    virtual bool GetThresholds(uint64_t bitRate, uint32_t& kmin, uint32_t& kmax) const;

    /**
     * \brief Use fixed random streams for the marker's decisions.
     * \param stream first stream index
     * \return the number of streams used (0 for a deterministic marker)
     */
    virtual int64_t AssignStreams(int64_t stream);

    /**
     * \brief The shortcut a port takes before it fills a context and calls Mark(): a marker
     *        that has said it leaves alone every frame that leaves at most a floor of bytes
     *        behind at a rate (SetFloor()) is not called for those.
     * \param bitRate the port's rate
     * \param queuedBytes bytes the frame leaves behind in its queue
     * \return false if Mark() would surely leave the frame alone
     */
    bool MayMark(uint64_t bitRate, uint32_t queuedBytes) const
    {
        return bitRate != m_floorRate || queuedBytes > m_floor;
    }

    /**
     * \brief Serve an owner (the port or switch that takes this part calls it); aborts if the
     *        part already serves another, or the owner is already running (FabricAdoptPart).
     * \param owner the owner
     */
    void Adopt(const Object* owner);

    /// \return the frames this marker marked
    uint64_t GetMarks() const
    {
        return m_marks;
    }

    /**
     * TracedCallback signature for marks.
     * \param cls the traffic class of the marked frame
     * \param bytes bytes it left in its queue
     */
    typedef void (*MarkTracedCallback)(uint8_t cls, uint32_t bytes);

  protected:
    /**
     * \brief Count a mark and fire the trace source; a marker calls it for every mark.
     * \param ctx the frame's context
     */
    void NotifyMarked(const FabricMarkContext& ctx)
    {
        ++m_marks;
        m_markTrace(ctx.cls, ctx.queuedBytes);
    }

    /**
     * \brief Promise that Mark() leaves alone, at this rate, every frame that leaves at most
     *        \p floor bytes behind, until ClearFloor().
     * \param bitRate the port's rate the promise holds for
     * \param floor the bytes
     */
    void SetFloor(uint64_t bitRate, uint32_t floor)
    {
        m_floorRate = bitRate;
        m_floor = floor;
    }

    /// Withdraw the promise of SetFloor() (a setting it rests on changed).
    void ClearFloor()
    {
        m_floorRate = ~uint64_t(0);
    }

  private:
    uint64_t m_floorRate{~uint64_t(0)};            //!< rate SetFloor() holds for (all ones: none)
    uint32_t m_floor{0};                           //!< bytes at or below which Mark() is not needed
    const Object* m_owner{nullptr};                //!< the port it serves (Adopt())
    uint64_t m_marks{0};                           //!< frames marked
    TracedCallback<uint8_t, uint32_t> m_markTrace; //!< a frame was marked
};

} // namespace ns3

#endif /* FABRIC_CONGESTION_MARKER_H */
