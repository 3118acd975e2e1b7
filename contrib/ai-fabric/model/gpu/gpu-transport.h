/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef GPU_TRANSPORT_H
#define GPU_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class NvLinkTransport;
class RdmaQueuePair;
class RdmaTransport;
struct RdmaCompletion;

/**
 * \ingroup ai-fabric
 * \brief How a GPU moves bytes to another rank: the collective algorithms see this, not a
 * fabric.
 *
 * Each (peer, channel) pair has its own RC queue pair on the GPU's NIC, so that ECMP spreads
 * channels over paths, as NCCL opens one connection per peer per channel. A transfer is an
 * RDMA WRITE with Immediate whose immediate data is the transfer's tag: the receiving GPU
 * learns which transfer arrived from it, as NCCL's network transport does. (The NVLink path
 * for peers in the same NVLink domain comes with the scale-up model.)
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
     * TracedCallback signature for a failed QP.
     * \param rank this GPU's rank
     * \param qpn the QP's number
     */
    typedef void (*QpFailedTracedCallback)(uint32_t rank, uint32_t qpn);

    /**
     * \param rank this GPU's rank
     * \param nRanks ranks in the communicator
     * \param nChannels channels
     * \param nic the RDMA transport of this GPU's NIC
     */
    void Setup(uint32_t rank, uint32_t nRanks, uint32_t nChannels, Ptr<RdmaTransport> nic);

    /**
     * \brief Give this GPU its NVLink transport: peers in the same NVLink domain are then
     *        reached over NVLink, all others through the NIC.
     * \param nvlink the GPU's NVLink transport
     */
    void SetNvLink(Ptr<NvLinkTransport> nvlink);

    /**
     * \param peer a rank
     * \return true if this GPU reaches it over NVLink (same domain, connection open)
     */
    bool IsNvLinkPeer(uint32_t peer) const;

    /// \return bytes written to peers over NVLink so far
    uint64_t GetNvLinkBytesSent() const;

    /**
     * \brief Open the connection of a channel between two GPUs (a QP on each NIC).
     * \param a one GPU
     * \param b the other
     * \param channel the channel
     */
    static void Connect(Ptr<GpuTransport> a, Ptr<GpuTransport> b, uint32_t channel);

    /**
     * \param peer a rank
     * \param channel a channel
     * \return true if that connection is open
     */
    bool IsConnected(uint32_t peer, uint32_t channel) const;

    /**
     * \brief Write bytes to a peer.
     * \param peer the receiving rank
     * \param channel the channel
     * \param bytes bytes on the wire (payload after the protocol's overhead)
     * \param tag the transfer's tag, handed to the receiver
     */
    void Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag);

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
    void SendNvls(bool multicast,
                  uint32_t peer,
                  uint64_t bytes,
                  uint32_t tag,
                  uint32_t groupSize,
                  uint32_t groupBase = 0);

    /// \param cb called for every arrival
    void SetReceiveCallback(ReceiveCallback cb);
    /// \param cb called for every completed send
    void SetSendCallback(SendCallback cb);

    /// \return this GPU's rank
    uint32_t GetRank() const;
    /// \return bytes written to peers so far
    uint64_t GetBytesSent() const;
    /// \return bytes that arrived from peers so far
    uint64_t GetBytesReceived() const;
    /// \return the queue pairs this GPU opened, one per connection
    std::vector<Ptr<RdmaQueuePair>> GetQueuePairs() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \param qp the QP
     * \param bytes message length
     * \param immediate the tag
     */
    void Arrived(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint32_t immediate);

    /**
     * \param qp the QP
     * \param completion the completion
     */
    void Completed(Ptr<RdmaQueuePair> qp, const RdmaCompletion& completion);

    /**
     * \param src source GPU in the domain
     * \param tag the transfer's tag
     * \param bytes its bytes
     */
    void NvLinkArrived(uint16_t src, uint32_t tag, uint64_t bytes);

    /// \param tag a transfer sent over NVLink that left this GPU
    void NvLinkSent(uint32_t tag);

    uint32_t m_rank{0};                    //!< this GPU's rank
    uint32_t m_nRanks{0};                  //!< ranks
    uint32_t m_nChannels{0};               //!< channels
    Ptr<RdmaTransport> m_nic;              //!< NIC transport
    Ptr<NvLinkTransport> m_nvlink;         //!< NVLink transport (none: NIC only)
    std::vector<int32_t> m_nvGpu;          //!< by rank: its GPU index over NVLink, or -1
    uint64_t m_nvBytesSent{0};             //!< bytes written over NVLink
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< by peer x channels + channel
    ReceiveCallback m_receiveCb;           //!< arrivals
    SendCallback m_sendCb;                 //!< completions
    TracedCallback<uint32_t, uint32_t> m_qpFailedTrace; //!< (rank, QPN) of a failed QP
    uint64_t m_bytesSent{0};                            //!< bytes written
    uint64_t m_bytesReceived{0};                        //!< bytes arrived
};

} // namespace ns3

#endif /* GPU_TRANSPORT_H */
