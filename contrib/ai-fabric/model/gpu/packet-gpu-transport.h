/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef PACKET_GPU_TRANSPORT_H
#define PACKET_GPU_TRANSPORT_H

#include "gpu-transport.h"
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
 * \brief The packet engine under the GPU transport: every byte moves as packets.
 *
 * Each (peer, channel) pair has its own RC queue pair on the GPU's NIC, so that ECMP spreads
 * channels over paths, as NCCL opens one connection per peer per channel. A transfer is an
 * RDMA WRITE with Immediate whose immediate data is the transfer's tag: the receiving GPU
 * learns which transfer arrived from it, as NCCL's network transport does. Peers in the same
 * NVLink domain are reached over NVLink (NvLinkTransport), every channel sharing its ports.
 */
class PacketGpuTransport : public GpuTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PacketGpuTransport();
    ~PacketGpuTransport() override;

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

    bool IsNvLinkPeer(uint32_t peer) const override;
    bool IsConnected(uint32_t peer, uint32_t channel) const override;
    void Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag) override;
    void SendNvls(bool multicast,
                  uint32_t peer,
                  uint64_t bytes,
                  uint32_t tag,
                  uint32_t groupSize,
                  uint32_t groupBase = 0) override;

    /// \return the queue pairs this GPU opened, one per connection
    std::vector<Ptr<RdmaQueuePair>> GetQueuePairs() const;

  protected:
    void DoDispose() override;
    void DoConnect(Ptr<GpuTransport> peer, uint32_t channel) override;

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

    Ptr<RdmaTransport> m_nic;              //!< NIC transport
    Ptr<NvLinkTransport> m_nvlink;         //!< NVLink transport (none: NIC only)
    std::vector<int32_t> m_nvGpu;          //!< by rank: its GPU index over NVLink, or -1
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< by peer x channels + channel
    TracedCallback<uint32_t, uint32_t> m_qpFailedTrace; //!< (rank, QPN) of a failed QP
};

} // namespace ns3

#endif /* PACKET_GPU_TRANSPORT_H */
