/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "gpu-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuTransport");
NS_OBJECT_ENSURE_REGISTERED(GpuTransport);

TypeId
GpuTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpuTransport")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<GpuTransport>();
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
}

void
GpuTransport::Connect(Ptr<GpuTransport> a, Ptr<GpuTransport> b, uint32_t channel)
{
    NS_ABORT_MSG_IF(a->m_nRanks != b->m_nRanks || channel >= a->m_nChannels
                        || channel >= b->m_nChannels,
                    "GpuTransport: GPUs of different communicators, or no such channel");
    if (a->IsConnected(b->m_rank, channel))
    {
        return;
    }
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
    return m_qps[static_cast<std::size_t>(peer) * m_nChannels + channel] != nullptr;
}

void
GpuTransport::Send(uint32_t peer, uint32_t channel, uint64_t bytes, uint32_t tag)
{
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
    NS_ABORT_MSG_IF(completion.status != RdmaCompletionStatus::SUCCESS,
                    "GpuTransport: rank " << m_rank << ": QP 0x" << std::hex << qp->GetQpn()
                                          << std::dec
                                          << " failed (transport retry counter exceeded)");
    if (!m_sendCb.IsNull())
    {
        m_sendCb(static_cast<uint32_t>(completion.wrId));
    }
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
