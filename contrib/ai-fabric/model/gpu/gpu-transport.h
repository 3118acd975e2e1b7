/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef GPU_TRANSPORT_H
#define GPU_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How a GPU moves bytes to another rank: the collective algorithms see this, not a
 *        fabric, and not the engine under it.
 *
 * Two engines implement it. PacketGpuTransport moves every byte as packets through the
 * fabric's ports and switches (RC queue pairs on the NIC, NVLink ports); FlowGpuTransport makes
 * each transfer a flow on the same path, sharing links max-min fairly with the other flows
 * (FlowNetwork). The communicator, the algorithms and the tuner cannot tell them apart.
 *
 * A transfer carries a tag, handed to the receiver on arrival and to the sender on
 * completion.
 */
class GpuTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GpuTransport();
    ~GpuTransport() override;

    /// A transfer arrived: (tag, bytes).
    typedef Callback<void, uint32_t, uint64_t> ReceiveCallback;
    /// A transfer this GPU sent completed (acknowledged): (tag).
    typedef Callback<void, uint32_t> SendCallback;

    /**
     * \brief Who the transport tells of arrivals and completions, called directly: a
     *        callback costs two more dependent loads per message (its implementation and its
     *        function object, each a heap object of its own), and at scale each is a cache
     *        miss. A communicator is its transport's listener (Communicator::Setup()).
     */
    class Listener
    {
      public:
        virtual ~Listener() = default;
        /**
         * \param tag a transfer that arrived
         * \param bytes its bytes
         */
        virtual void TransportReceived(uint32_t tag, uint64_t bytes) = 0;
        /// \param tag a transfer this GPU sent that completed
        virtual void TransportSent(uint32_t tag) = 0;
    };

    /**
     * \brief Open the connection of a channel between two GPUs of one engine and communicator.
     * \param a one GPU
     * \param b the other
     * \param channel the channel
     */
    static void Connect(Ptr<GpuTransport> a, Ptr<GpuTransport> b, uint32_t channel);

    /**
     * \param peer a rank
     * \return true if this GPU reaches it over NVLink (same domain, connection open)
     */
    virtual bool IsNvLinkPeer(uint32_t peer) const = 0;

    /**
     * \param peer a rank
     * \param channel a channel
     * \return true if that connection is open
     */
    virtual bool IsConnected(uint32_t peer, uint32_t channel) const = 0;

    /**
     * \brief Write bytes to a peer.
     * \param peer the receiving rank
     * \param channel the channel
     * \param bytes bytes on the wire (payload after the protocol's overhead)
     * \param tag the transfer's tag, handed to the receiver
     */
    virtual void Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag) = 0;

    /**
     * \brief Send through the NVSwitch's NVLS engines (every rank of the communicator must be
     *        GPU rank of one NVLink domain): a contribution to the reduction delivered to peer,
     *        or a multicast to every rank.
     * \param multicast true: a multicast; false: a reduction contribution
     * \param peer the reduction's destination rank (ignored for a multicast)
     * \param bytes bytes
     * \param tag the transfer group's tag
     * \param groupSize ranks taking part
     * \param groupBase the group's first rank: ranks groupBase .. groupBase + groupSize - 1
     *        are GPUs 0 .. groupSize - 1 of this GPU's NVLink domain
     */
    virtual void SendNvls(bool multicast,
                          uint32_t peer,
                          uint64_t bytes,
                          uint32_t tag,
                          uint32_t groupSize,
                          uint32_t groupBase = 0)
        = 0;

    /// \param cb called for every arrival (the listener's completions become a callback)
    void SetReceiveCallback(ReceiveCallback cb);
    /// \param cb called for every completed send (the listener's arrivals become a callback)
    void SetSendCallback(SendCallback cb);
    /**
     * \brief Tell a listener of every arrival and completed send, instead of the callbacks
     *        (it clears them).
     * \param listener the listener (not owned: it outlives the transport's use, or is
     *        cleared with ClearListener())
     */
    void SetListener(Listener* listener);
    /// \param listener if it is the listener, tell none from now on
    void ClearListener(const Listener* listener);

    /// \return this GPU's rank
    uint32_t GetRank() const;
    /// \return ranks in the communicator
    uint32_t GetNRanks() const;
    /// \return channels
    uint32_t GetNChannels() const;
    /// \return bytes written to peers so far
    uint64_t GetBytesSent() const;
    /// \return bytes written to peers over NVLink so far
    uint64_t GetNvLinkBytesSent() const;
    /// \return bytes that arrived from peers so far
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

    /**
     * \param rank this GPU's rank
     * \param nRanks ranks in the communicator
     * \param nChannels channels
     */
    void SetIdentity(uint32_t rank, uint32_t nRanks, uint32_t nChannels);

    /**
     * \brief Open this GPU's side and the peer's of a connection (Connect() checked both are
     *        of one communicator and engine, distinct or an NVLS self-connection).
     * \param peer the other GPU (may be this one: an NVLS group's own rank)
     * \param channel the channel
     */
    virtual void DoConnect(Ptr<GpuTransport> peer, uint32_t channel) = 0;

    /**
     * \param bytes bytes handed to the engine
     * \param nvlink true if over NVLink
     */
    void CountSent(uint64_t bytes, bool nvlink);

    /**
     * \param tag a transfer that arrived
     * \param bytes its bytes
     */
    void NotifyReceived(uint32_t tag, uint64_t bytes);

    /// \param tag a transfer this GPU sent that completed
    void NotifySent(uint32_t tag);

  private:
    uint32_t m_rank{0};            //!< this GPU's rank
    uint32_t m_nRanks{0};          //!< ranks
    uint32_t m_nChannels{0};       //!< channels
    Listener* m_listener{nullptr}; //!< SetListener()
    ReceiveCallback m_receiveCb;   //!< arrivals
    SendCallback m_sendCb;         //!< completions
    uint64_t m_bytesSent{0};       //!< bytes written
    uint64_t m_nvBytesSent{0};     //!< bytes written over NVLink
    uint64_t m_bytesReceived{0};   //!< bytes arrived
};

} // namespace ns3

#endif /* GPU_TRANSPORT_H */
