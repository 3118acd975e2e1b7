/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef ROCE_SWITCH_MMU_H
#define ROCE_SWITCH_MMU_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-buffer-manager.h"
#include "ns3/fabric-net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The memory management unit of a shared-buffer Ethernet switch, with priority flow
 * control (IEEE 802.1Qbb).
 *
 * Every frame is accounted to its ingress port and priority from its arrival until it leaves
 * its egress port. The buffer is split, as SONiC configures Broadcom and NVIDIA switches, into
 * a reserved minimum per (port, priority), a PFC headroom per (port, lossless priority), and
 * a shared pool. A queue may use the shared pool up to a dynamic threshold, alpha times the
 * shared pool still free (Choudhury and Hahne's dynamic threshold).
 *
 * Lossless priorities: when a queue passes its threshold the switch sends a PFC pause (XOFF)
 * out of the ingress port for that priority, refreshes it while the queue stays above, and
 * releases it (XON, zero quanta) once its headroom is empty and the queue has fallen
 * XonOffset below the threshold. A lossless frame that does not fit under the threshold goes
 * into the queue's own headroom (and pauses the link); the headroom is sized for the worst
 * case of what is still in flight after a pause: a frame in progress at each end, the
 * cable's round trip, and the peer's response time. It is counted apart from the shared pool,
 * so a paused queue's in-flight bytes never lower other queues' thresholds. A lossless frame
 * beyond the headroom is dropped with the reason HEADROOM_EXCEEDED: with a correct headroom
 * that never happens, and ai-fabric's tests fail on it. Lossy priorities (and every
 * priority when PFC is off) are dropped at the threshold.
 */
class RoceSwitchMmu : public FabricBufferManager
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitchMmu();
    ~RoceSwitchMmu() override;

    /// Number of priorities
    static constexpr uint32_t N_PRIORITIES = 8;

    /**
     * \param pause how to send a PFC frame out of a port
     */
    void SetPauseCallback(PauseCallback pause) override;

    /// Add a port (ports are numbered in the order they are added).
    void AddPort() override;

    /**
     * \brief Describe a port's link, for its headroom.
     * \param port the port
     * \param bitRate its rate (bit/s)
     * \param cableDelay its cable's one-way delay
     */
    void SetPortLink(uint32_t port, uint64_t bitRate, Time cableDelay) override;

    /**
     * \brief A frame arrived: admit it to the buffer or drop it.
     * \param port ingress port
     * \param priority its priority
     * \param bytes its size
     * \param reason set to why, when it is dropped
     * \return true if admitted
     */
    bool Admit(uint32_t port, uint8_t priority, uint32_t bytes, FabricDropReason& reason) override;

    /**
     * \brief A frame left its egress port: free its bytes.
     * \param port its ingress port
     * \param priority its priority
     * \param bytes its size
     */
    void Release(uint32_t port, uint8_t priority, uint32_t bytes) override;

    /**
     * \brief A frame will leave its egress port at \p at (a frame a switch port chose ahead,
     * see RoceSwitchPort::EnqueueAfter()): free its bytes then. Without an event: the MMU
     * catches up with the releases due whenever it is consulted (Admit(), the getters, its
     * refresh timer), which is exact for every decision it takes; a release that may resume
     * a paused queue (XON) is an event at \p at.
     * \param at when its first bit leaves (now or later)
     * \param port its ingress port
     * \param priority its priority
     * \param bytes its size
     */
    void ReleaseAt(Time at, uint32_t port, uint8_t priority, uint32_t bytes) override;

    /**
     * \brief A release announced with ReleaseAt() will not happen then: a PFC pause took the
     * frame back before its first bit left. It stays charged until it leaves.
     * \param at the time given to ReleaseAt()
     * \param port its ingress port
     * \param priority its priority
     * \param bytes its size
     */
    void CancelRelease(Time at, uint32_t port, uint8_t priority, uint32_t bytes) override;

    /**
     * \param priority a priority
     * \return true if it is lossless (and PFC is on)
     */
    bool IsLossless(uint8_t priority) const override;

    /**
     * \param port a port
     * \return its headroom per lossless priority (bytes)
     */
    uint32_t GetHeadroom(uint32_t port) const;

    /**
     * \param port a port
     * \param priority a priority
     * \return bytes held for that ingress queue now
     */
    uint32_t GetBytes(uint32_t port, uint8_t priority) const override;

    /**
     * \param port a port
     * \param priority a priority
     * \return the queue's current dynamic threshold (bytes)
     */
    uint32_t GetThreshold(uint32_t port, uint8_t priority) const;

    /// \return bytes of the shared pool in use
    uint64_t GetSharedUsed() const;

    /// \return PFC pause frames (XOFF and refreshes) this switch sent
    uint64_t GetPausesSent() const override;

    /// \return the pause time of an XOFF (quanta)
    uint16_t GetPauseQuanta() const;

    /**
     * TracedCallback signature for pause state changes.
     * \param port the ingress port
     * \param priority the priority
     * \param paused true at XOFF, false at XON
     */
    typedef void (*PauseTracedCallback)(uint32_t port, uint8_t priority, bool paused);

  protected:
    void DoDispose() override;

  private:
    /// One ingress queue: (port, priority).
    struct Queue
    {
        uint32_t bytes{0};    //!< bytes held, headroom included
        uint32_t headroom{0}; //!< of which in the headroom (lossless only)
        bool paused{false};   //!< XOFF sent and not yet released
        EventId refresh;      //!< next XOFF refresh
    };

    /**
     * \param port a port
     * \param priority a priority
     * \return its queue
     */
    Queue& At(uint32_t port, uint8_t priority);

    /**
     * \param port a port
     * \param priority a priority
     * \param paused XOFF (true) or XON (false)
     */
    void SetPaused(uint32_t port, uint8_t priority, bool paused);

    /**
     * \brief Re-send the XOFF of a paused queue before it expires, or release it.
     * \param port a port
     * \param priority a priority
     */
    void Refresh(uint32_t port, uint8_t priority);

    /// \return bytes of the shared pool (buffer less reserved and headroom), cached
    uint64_t SharedPool() const;

    /// \return the dynamic threshold of every queue now (GetThreshold() without catching up)
    uint32_t Threshold() const;

    /// A release due at a time (ReleaseAt())
    struct DueRelease
    {
        Time at;          //!< when
        uint32_t port;    //!< ingress port
        uint8_t priority; //!< priority
        uint32_t bytes;   //!< size

        /// \param o another \return true if this is due later (a min-heap on time)
        bool operator<(const DueRelease& o) const
        {
            return at > o.at;
        }
    };

    /// \brief Apply the releases due by now, in time order.
    void CatchUp();

    /**
     * \brief A release due as an event, for a paused queue.
     * \param port its ingress port
     * \param priority its priority
     * \param bytes its size
     */
    void ReleaseEvent(uint32_t port, uint8_t priority, uint32_t bytes);

    /**
     * \brief A queue was paused: its releases due later become events (one may resume it).
     * \param port a port
     * \param priority a priority
     */
    void ScheduleDue(uint32_t port, uint8_t priority);

    /**
     * \param q a queue
     * \return whether a paused queue may be released now
     */
    bool MayRelease(const Queue& q) const;

    /**
     * \param bytes a queue's bytes
     * \return how many of them come from the shared pool
     */
    uint64_t SharedPart(uint32_t bytes) const;

    // Attributes
    uint64_t m_bufferBytes{0};    //!< the whole buffer
    uint32_t m_reservedBytes{0};  //!< reserved minimum per (port, priority)
    double m_alpha{1.0};          //!< dynamic threshold factor
    uint32_t m_headroomBytes{0};  //!< headroom override (0: computed)
    uint32_t m_responseQuanta{0}; //!< peer response time (quanta)
    uint32_t m_maxFrameBytes{0};  //!< largest frame on the wire
    uint32_t m_xonOffset{0};      //!< XON hysteresis (bytes)
    uint16_t m_pauseQuanta{0};    //!< pause time of an XOFF
    uint8_t m_losslessMask{0};    //!< lossless priorities
    bool m_pfcEnabled{true};      //!< PFC on

    uint32_t m_nPorts{0};                //!< ports
    std::vector<Queue> m_queues;         //!< by port x 8 + priority
    std::vector<uint32_t> m_headroom;    //!< by port
    std::vector<uint64_t> m_portRate;    //!< by port (bit/s)
    uint64_t m_sharedUsed{0};            //!< shared pool in use (headroom not included)
    mutable uint64_t m_sharedPool{0};    //!< cached SharedPool()
    mutable uint64_t m_poolKey{0};       //!< the inputs the cache was computed from
    mutable bool m_poolValid{false};     //!< the cache holds a value
    uint64_t m_pausesSent{0};            //!< PFC frames sent
    std::vector<DueRelease> m_due;       //!< releases due later, a min-heap on time
    std::vector<DueRelease> m_cancelled; //!< release events to skip (frames taken back)
    PauseCallback m_pause;               //!< sends PFC frames
    TracedCallback<uint32_t, uint8_t, bool> m_pauseTrace; //!< XOFF / XON
};

} // namespace ns3

#endif /* ROCE_SWITCH_MMU_H */
