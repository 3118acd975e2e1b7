/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "packet-gpu-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/nvlink-header.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacketGpuTransport");
NS_OBJECT_ENSURE_REGISTERED(PacketGpuTransport);

TypeId
PacketGpuTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PacketGpuTransport")
              .SetParent<GpuTransport>()
              .SetGroupName("AiFabric")
              .AddConstructor<PacketGpuTransport>()
              .AddTraceSource("QpFailed",
                              "A QP's write failed: the transport retry counter was exceeded (the "
                              "peer is unreachable). The transfer never completes: the collective "
                              "stops there (FabricStallDetector reports it).",
                              MakeTraceSourceAccessor(&PacketGpuTransport::m_qpFailedTrace),
                              "ns3::PacketGpuTransport::QpFailedTracedCallback");
    return tid;
}

PacketGpuTransport::PacketGpuTransport()
{
    NS_LOG_FUNCTION(this);
}

PacketGpuTransport::~PacketGpuTransport()
{
    NS_LOG_FUNCTION(this);
}

void
PacketGpuTransport::DoDispose()
{
    m_qps.clear();
    m_nic = nullptr;
    if (m_nvlink)
    {
        m_nvlink->SetReceiveCallback(NvLinkTransport::ReceiveCallback());
        m_nvlink->SetSendCallback(NvLinkTransport::SendCallback());
    }
    m_nvlink = nullptr;
    GpuTransport::DoDispose();
}

void
PacketGpuTransport::Setup(uint32_t rank,
                          uint32_t nRanks,
                          uint32_t nChannels,
                          Ptr<RdmaTransport> nic)
{
    SetIdentity(rank, nRanks, nChannels);
    m_nic = nic;
    m_qps.assign(static_cast<std::size_t>(nRanks) * nChannels, nullptr);
    m_nvGpu.assign(nRanks, -1);
}

void
PacketGpuTransport::SetNvLink(Ptr<NvLinkTransport> nvlink)
{
    NS_ABORT_MSG_IF(m_nvlink, "GpuTransport: rank " << GetRank() << " already has its NVLink");
    m_nvlink = nvlink;
    m_nvlink->SetReceiveCallback(MakeCallback(&PacketGpuTransport::NvLinkArrived, this));
    m_nvlink->SetSendCallback(MakeCallback(&PacketGpuTransport::NvLinkSent, this));
}

bool
PacketGpuTransport::IsNvLinkPeer(uint32_t peer) const
{
    return m_nvGpu[peer] >= 0;
}

void
PacketGpuTransport::NvLinkArrived(uint16_t /* src */, uint32_t tag, uint64_t bytes)
{
    NotifyReceived(tag, bytes);
}

void
PacketGpuTransport::NvLinkSent(uint32_t tag)
{
    NotifySent(tag);
}

void
PacketGpuTransport::DoConnect(Ptr<GpuTransport> peer, uint32_t channel)
{
    Ptr<PacketGpuTransport> b = DynamicCast<PacketGpuTransport>(peer);
    const uint32_t rank = GetRank();
    const uint32_t peerRank = b->GetRank();
    if (b == this)
    {
        // An NVLS group's transfer to its own rank goes through the switch too.
        NS_ABORT_MSG_IF(!m_nvlink, "GpuTransport: rank " << rank << " to itself");
        m_nvGpu[rank] = m_nvlink->GetGpu();
        return;
    }
    if (m_nvlink && b->m_nvlink && m_nvlink->GetDomain() == b->m_nvlink->GetDomain())
    {
        // Same NVLink domain: NVLink, on every channel (the channels share the links).
        m_nvGpu[peerRank] = b->m_nvlink->GetGpu();
        b->m_nvGpu[rank] = m_nvlink->GetGpu();
        return;
    }
    NS_ABORT_MSG_IF(!m_nic || !b->m_nic,
                    "GpuTransport: ranks " << rank << " and " << peerRank
                                           << " are in different NVLink domains and one has no "
                                              "NIC");
    Ptr<RdmaQueuePair> qa = m_nic->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->m_nic->CreateQueuePair();
    m_nic->ConnectQueuePairs(qa, qb, b->m_nic);
    const uint32_t channels = GetNChannels();
    for (const auto& [gpu, qp, other] :
         {std::make_tuple(Ptr<PacketGpuTransport>(this), qa, peerRank),
          std::make_tuple(b, qb, rank)})
    {
        qp->SetImmediateCallback(MakeCallback(&PacketGpuTransport::Arrived, PeekPointer(gpu)));
        qp->SetCompletionCallback(MakeCallback(&PacketGpuTransport::Completed, PeekPointer(gpu)));
        gpu->m_qps[static_cast<std::size_t>(other) * channels + channel] = qp;
    }
}

bool
PacketGpuTransport::IsConnected(uint32_t peer, uint32_t channel) const
{
    return m_nvGpu[peer] >= 0
           || m_qps[static_cast<std::size_t>(peer) * GetNChannels() + channel] != nullptr;
}

void
PacketGpuTransport::Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag)
{
    if (m_nvGpu[peer] >= 0)
    {
        CountSent(bytes, true);
        m_nvlink->Send(static_cast<uint16_t>(m_nvGpu[peer]), bytes, tag, channel);
        return;
    }
    const Ptr<RdmaQueuePair>& qp = m_qps[static_cast<std::size_t>(peer) * GetNChannels() + channel];
    NS_ABORT_MSG_IF(!qp,
                    "GpuTransport: rank " << GetRank() << " has no connection to rank " << peer
                                          << " on channel " << channel);
    CountSent(bytes, false);
    qp->PostWriteWithImmediate(bytes, tag, tag);
}

void
PacketGpuTransport::Arrived(Ptr<RdmaQueuePair> /* qp */, uint64_t bytes, uint32_t immediate)
{
    NotifyReceived(immediate, bytes);
}

void
PacketGpuTransport::Completed(Ptr<RdmaQueuePair> qp, const RdmaCompletion& completion)
{
    if (completion.status != RdmaCompletionStatus::SUCCESS)
    {
        // The peer is unreachable: the transfer never completes and the collective stops here.
        NS_LOG_WARN("GpuTransport: rank " << GetRank() << ": QP " << qp->GetQpn()
                                          << " failed (transport retry counter exceeded)");
        m_qpFailedTrace(GetRank(), qp->GetQpn());
        return;
    }
    NotifySent(static_cast<uint32_t>(completion.wrId));
}

void
PacketGpuTransport::SendNvls(bool multicast,
                             uint32_t peer,
                             uint64_t bytes,
                             uint32_t tag,
                             uint32_t groupSize,
                             uint32_t groupBase)
{
    const uint32_t rank = GetRank();
    NS_ABORT_MSG_IF(!m_nvlink || rank < groupBase || m_nvlink->GetGpu() != rank - groupBase
                        || (!multicast && m_nvGpu[peer] != static_cast<int32_t>(peer - groupBase))
                        || groupSize > 0xFFFF,
                    "GpuTransport: NVLS needs the group's ranks on GPUs 0, 1, ... of one NVLink "
                    "domain (rank "
                        << rank << ")");
    CountSent(bytes, true);
    m_nvlink->SendNvls(multicast ? NvLinkHeader::NVLS_MULTICAST : NvLinkHeader::NVLS_REDUCE,
                       static_cast<uint16_t>(m_nvGpu[peer]),
                       bytes,
                       tag,
                       static_cast<uint16_t>(groupSize));
}

std::vector<Ptr<RdmaQueuePair>>
PacketGpuTransport::GetQueuePairs() const
{
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (const auto& qp : m_qps)
    {
        if (qp)
        {
            qps.push_back(qp);
        }
    }
    return qps;
}

} // namespace ns3
