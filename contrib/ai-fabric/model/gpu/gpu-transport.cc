/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "gpu-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/nvlink-header.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuTransport");
NS_OBJECT_ENSURE_REGISTERED(GpuTransport);

TypeId
GpuTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::GpuTransport")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<GpuTransport>()
              .AddTraceSource("QpFailed",
                              "A QP's write failed: the transport retry counter was exceeded (the "
                              "peer is unreachable). The transfer never completes: the collective "
                              "stops there (FabricStallDetector reports it).",
                              MakeTraceSourceAccessor(&GpuTransport::m_qpFailedTrace),
                              "ns3::GpuTransport::QpFailedTracedCallback");
    return tid;
}

GpuTransport::GpuTransport()
{
    NS_LOG_FUNCTION(this);
}

GpuTransport::~GpuTransport()
{
    NS_LOG_FUNCTION(this);
}

void
GpuTransport::DoDispose()
{
    m_qps.clear();
    m_nic = nullptr;
    if (m_nvlink)
    {
        m_nvlink->SetReceiveCallback(NvLinkTransport::ReceiveCallback());
        m_nvlink->SetSendCallback(NvLinkTransport::SendCallback());
    }
    m_nvlink = nullptr;
    m_receiveCb = ReceiveCallback();
    m_sendCb = SendCallback();
    Object::DoDispose();
}

void
GpuTransport::Setup(uint32_t rank, uint32_t nRanks, uint32_t nChannels, Ptr<RdmaTransport> nic)
{
    NS_ABORT_MSG_IF(rank >= nRanks || nChannels == 0, "GpuTransport: bad setup");
    m_rank = rank;
    m_nRanks = nRanks;
    m_nChannels = nChannels;
    m_nic = nic;
    m_qps.assign(static_cast<std::size_t>(nRanks) * nChannels, nullptr);
    m_nvGpu.assign(nRanks, -1);
}

void
GpuTransport::SetNvLink(Ptr<NvLinkTransport> nvlink)
{
    NS_ABORT_MSG_IF(m_nvlink, "GpuTransport: rank " << m_rank << " already has its NVLink");
    m_nvlink = nvlink;
    m_nvlink->SetReceiveCallback(MakeCallback(&GpuTransport::NvLinkArrived, this));
    m_nvlink->SetSendCallback(MakeCallback(&GpuTransport::NvLinkSent, this));
}

bool
GpuTransport::IsNvLinkPeer(uint32_t peer) const
{
    return m_nvGpu[peer] >= 0;
}

uint64_t
GpuTransport::GetNvLinkBytesSent() const
{
    return m_nvBytesSent;
}

void
GpuTransport::NvLinkArrived(uint16_t /* src */, uint32_t tag, uint64_t bytes)
{
    m_bytesReceived += bytes;
    if (!m_receiveCb.IsNull())
    {
        m_receiveCb(tag, bytes);
    }
}

void
GpuTransport::NvLinkSent(uint32_t tag)
{
    if (!m_sendCb.IsNull())
    {
        m_sendCb(tag);
    }
}

void
GpuTransport::Connect(Ptr<GpuTransport> a, Ptr<GpuTransport> b, uint32_t channel)
{
    NS_ABORT_MSG_IF(a->m_nRanks != b->m_nRanks || channel >= a->m_nChannels
                        || channel >= b->m_nChannels,
                    "GpuTransport: GPUs of different communicators, or no such channel");
    if (a == b)
    {
        // An NVLS group's transfer to its own rank goes through the switch too.
        NS_ABORT_MSG_IF(!a->m_nvlink, "GpuTransport: rank " << a->m_rank << " to itself");
        a->m_nvGpu[a->m_rank] = a->m_nvlink->GetGpu();
        return;
    }
    if (a->IsConnected(b->m_rank, channel))
    {
        return;
    }
    if (a->m_nvlink && b->m_nvlink && a->m_nvlink->GetDomain() == b->m_nvlink->GetDomain())
    {
        // Same NVLink domain: NVLink, on every channel (the channels share the links).
        a->m_nvGpu[b->m_rank] = b->m_nvlink->GetGpu();
        b->m_nvGpu[a->m_rank] = a->m_nvlink->GetGpu();
        return;
    }
    NS_ABORT_MSG_IF(!a->m_nic || !b->m_nic,
                    "GpuTransport: ranks " << a->m_rank << " and " << b->m_rank
                                           << " are in different NVLink domains and one has no "
                                              "NIC");
    Ptr<RdmaQueuePair> qa = a->m_nic->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->m_nic->CreateQueuePair();
    a->m_nic->ConnectQueuePairs(qa, qb, b->m_nic);
    for (const auto& [gpu, qp, peer] :
         {std::make_tuple(a, qa, b->m_rank), std::make_tuple(b, qb, a->m_rank)})
    {
        qp->SetImmediateCallback(MakeCallback(&GpuTransport::Arrived, PeekPointer(gpu)));
        qp->SetCompletionCallback(MakeCallback(&GpuTransport::Completed, PeekPointer(gpu)));
        gpu->m_qps[static_cast<std::size_t>(peer) * gpu->m_nChannels + channel] = qp;
    }
}

bool
GpuTransport::IsConnected(uint32_t peer, uint32_t channel) const
{
    return m_nvGpu[peer] >= 0
           || m_qps[static_cast<std::size_t>(peer) * m_nChannels + channel] != nullptr;
}

void
GpuTransport::Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag)
{
    if (m_nvGpu[peer] >= 0)
    {
        m_bytesSent += bytes;
        m_nvBytesSent += bytes;
        m_nvlink->Send(static_cast<uint16_t>(m_nvGpu[peer]), bytes, tag);
        return;
    }
    const Ptr<RdmaQueuePair>& qp = m_qps[static_cast<std::size_t>(peer) * m_nChannels + channel];
    NS_ABORT_MSG_IF(!qp,
                    "GpuTransport: rank " << m_rank << " has no connection to rank " << peer
                                          << " on channel " << channel);
    m_bytesSent += bytes;
    qp->PostWriteWithImmediate(bytes, tag, tag);
}

void
GpuTransport::Arrived(Ptr<RdmaQueuePair> /* qp */, uint64_t bytes, uint32_t immediate)
{
    m_bytesReceived += bytes;
    if (!m_receiveCb.IsNull())
    {
        m_receiveCb(immediate, bytes);
    }
}

void
GpuTransport::Completed(Ptr<RdmaQueuePair> qp, const RdmaCompletion& completion)
{
    if (completion.status != RdmaCompletionStatus::SUCCESS)
    {
        // The peer is unreachable: the transfer never completes and the collective stops here.
        NS_LOG_WARN("GpuTransport: rank " << m_rank << ": QP " << qp->GetQpn()
                                          << " failed (transport retry counter exceeded)");
        m_qpFailedTrace(m_rank, qp->GetQpn());
        return;
    }
    if (!m_sendCb.IsNull())
    {
        m_sendCb(static_cast<uint32_t>(completion.wrId));
    }
}

void
GpuTransport::SendNvls(bool multicast,
                       uint32_t peer,
                       uint64_t bytes,
                       uint32_t tag,
                       uint32_t groupSize,
                       uint32_t groupBase)
{
    NS_ABORT_MSG_IF(!m_nvlink || m_rank < groupBase || m_nvlink->GetGpu() != m_rank - groupBase
                        || (!multicast && m_nvGpu[peer] != static_cast<int32_t>(peer - groupBase))
                        || groupSize > 0xFFFF,
                    "GpuTransport: NVLS needs the group's ranks on GPUs 0, 1, ... of one NVLink "
                    "domain (rank "
                        << m_rank << ")");
    m_bytesSent += bytes;
    m_nvBytesSent += bytes;
    m_nvlink->SendNvls(multicast ? NvLinkHeader::NVLS_MULTICAST : NvLinkHeader::NVLS_REDUCE,
                       static_cast<uint16_t>(m_nvGpu[peer]),
                       bytes,
                       tag,
                       static_cast<uint16_t>(groupSize));
}

void
GpuTransport::SetReceiveCallback(ReceiveCallback cb)
{
    m_receiveCb = cb;
}

void
GpuTransport::SetSendCallback(SendCallback cb)
{
    m_sendCb = cb;
}

uint32_t
GpuTransport::GetRank() const
{
    return m_rank;
}

uint64_t
GpuTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
GpuTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

std::vector<Ptr<RdmaQueuePair>>
GpuTransport::GetQueuePairs() const
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
