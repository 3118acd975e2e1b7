/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "gpu-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuTransport");
NS_OBJECT_ENSURE_REGISTERED(GpuTransport);

TypeId
GpuTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpuTransport").SetParent<Object>().SetGroupName("AiFabric");
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
    m_listener = nullptr;
    m_receiveCb = ReceiveCallback();
    m_sendCb = SendCallback();
    Object::DoDispose();
}

void
GpuTransport::SetIdentity(uint32_t rank, uint32_t nRanks, uint32_t nChannels)
{
    NS_ABORT_MSG_IF(rank >= nRanks || nChannels == 0, "GpuTransport: bad setup");
    m_rank = rank;
    m_nRanks = nRanks;
    m_nChannels = nChannels;
}

void
GpuTransport::Connect(Ptr<GpuTransport> a, Ptr<GpuTransport> b, uint32_t channel)
{
    NS_ABORT_MSG_IF(a->m_nRanks != b->m_nRanks || channel >= a->m_nChannels
                        || channel >= b->m_nChannels,
                    "GpuTransport: GPUs of different communicators, or no such channel");
    NS_ABORT_MSG_IF(a->GetInstanceTypeId() != b->GetInstanceTypeId(),
                    "GpuTransport: ranks " << a->m_rank << " and " << b->m_rank
                                           << " run on different engines");
    if (a != b && a->IsConnected(b->m_rank, channel))
    {
        return;
    }
    a->DoConnect(b, channel);
}

void
GpuTransport::CountSent(uint64_t bytes, bool nvlink)
{
    m_bytesSent += bytes;
    m_nvBytesSent += nvlink ? bytes : 0;
}

void
GpuTransport::NotifyReceived(uint32_t tag, uint64_t bytes)
{
    m_bytesReceived += bytes;
    if (m_listener)
    {
        m_listener->TransportReceived(tag, bytes);
    }
    else if (!m_receiveCb.IsNull())
    {
        m_receiveCb(tag, bytes);
    }
}

void
GpuTransport::NotifySent(uint32_t tag)
{
    if (m_listener)
    {
        m_listener->TransportSent(tag);
    }
    else if (!m_sendCb.IsNull())
    {
        m_sendCb(tag);
    }
}

void
GpuTransport::SetReceiveCallback(ReceiveCallback cb)
{
    if (m_listener)
    {
        // The listener keeps the completions, as a callback.
        m_sendCb = MakeCallback(&Listener::TransportSent, m_listener);
        m_listener = nullptr;
    }
    m_receiveCb = cb;
}

void
GpuTransport::SetSendCallback(SendCallback cb)
{
    if (m_listener)
    {
        // The listener keeps the arrivals, as a callback.
        m_receiveCb = MakeCallback(&Listener::TransportReceived, m_listener);
        m_listener = nullptr;
    }
    m_sendCb = cb;
}

void
GpuTransport::SetListener(Listener* listener)
{
    m_receiveCb = ReceiveCallback();
    m_sendCb = SendCallback();
    m_listener = listener;
}

void
GpuTransport::ClearListener(const Listener* listener)
{
    if (m_listener == listener)
    {
        m_listener = nullptr;
    }
}

uint32_t
GpuTransport::GetRank() const
{
    return m_rank;
}

uint32_t
GpuTransport::GetNRanks() const
{
    return m_nRanks;
}

uint32_t
GpuTransport::GetNChannels() const
{
    return m_nChannels;
}

uint64_t
GpuTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
GpuTransport::GetNvLinkBytesSent() const
{
    return m_nvBytesSent;
}

uint64_t
GpuTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
