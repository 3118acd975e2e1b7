/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "nvlink-transport.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"
#include "nvlink-gpu-port.h"
#include "nvlink-header.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkTransport");
NS_OBJECT_ENSURE_REGISTERED(NvLinkTransport);

TypeId
NvLinkTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NvLinkTransport")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<NvLinkTransport>()
              .AddAttribute("TransferUnit",
                            "Payload bytes per simulated NVLink packet (1 to 2^24). Default 65536: "
                            "NVLink moves 256-byte flits, far too many events for a 1 GB "
                            "collective; a 64 KiB unit keeps the event count near a 4 KB-MTU "
                            "fabric's per byte / 16, at the cost of latency granularity (each "
                            "packet is stored and forwarded whole at a switch).",
                            UintegerValue(65536),
                            MakeUintegerAccessor(&NvLinkTransport::m_unit),
                            MakeUintegerChecker<uint32_t>(1, 1u << 24))
              .AddAttribute("ProtocolEfficiency",
                            "Fraction of NVLink's data rate that carries payload under NCCL's "
                            "Simple protocol (0-1]. Default 0.818: calibrated on one DGX H100, "
                            "ring all-reduce of 1 GB, busbw 365-370 GB/s (nccl-tests issue 212; "
                            "the validation case dgx-h100-ring-busbw).",
                            DoubleValue(0.818),
                            MakeDoubleAccessor(&NvLinkTransport::m_efficiency),
                            MakeDoubleChecker<double>(0.01, 1.0))
              .AddAttribute("NvlsEfficiency",
                            "Fraction of NVLink's data rate that carries payload in NVLS "
                            "reductions and multicasts (NCCL's NVLS kernels: multimem loads and "
                            "stores by a few SMs, the switches' reduction engines) (0-1]. "
                            "Default 0.70: calibrated on one DGX H100, NVLS all-reduce of 1 GB, "
                            "busbw ~480 GB/s (nccl-tests issue 212; the validation case "
                            "dgx-h100-nvls-busbw).",
                            DoubleValue(0.70),
                            MakeDoubleAccessor(&NvLinkTransport::m_nvlsEfficiency),
                            MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

NvLinkTransport::NvLinkTransport()
{
    NS_LOG_FUNCTION(this);
}

NvLinkTransport::~NvLinkTransport()
{
    NS_LOG_FUNCTION(this);
}

void
NvLinkTransport::DoDispose()
{
    m_ports.clear();
    m_receiveCb = ReceiveCallback();
    m_sendCb = SendCallback();
    Object::DoDispose();
}

void
NvLinkTransport::SetGpu(uint16_t gpu)
{
    m_gpu = gpu;
}

uint16_t
NvLinkTransport::GetGpu() const
{
    return m_gpu;
}

void
NvLinkTransport::SetDomain(uint32_t domain)
{
    m_domain = domain;
}

uint32_t
NvLinkTransport::GetDomain() const
{
    return m_domain;
}

void
NvLinkTransport::AddPort(Ptr<NvLinkGpuPort> port)
{
    NS_ABORT_MSG_IF(!m_nvlsActive.empty() || !m_active.empty(),
                    "NvLinkTransport: a port added while messages are being sent");
    NS_ABORT_MSG_IF(m_ports.size() >= 255, "NvLinkTransport: at most 255 NVLink ports");
    const uint32_t largest = std::max(WireBytes(m_unit, false), WireBytes(m_unit, true));
    NS_ABORT_MSG_IF(largest > port->GetBufferBytes(),
                    "NvLinkTransport: a packet of " << largest
                                                    << " bytes does not fit the port's buffer of "
                                                    << port->GetBufferBytes() << " bytes");
    port->SetTransport(this, static_cast<uint32_t>(m_ports.size()));
    m_ports.push_back(port);
    m_pattern.clear(); // rebuilt for the new set of ports
}

const std::vector<Ptr<NvLinkGpuPort>>&
NvLinkTransport::GetPorts() const
{
    return m_ports;
}

uint32_t
NvLinkTransport::WireBytes(uint32_t payload, bool nvls) const
{
    const double efficiency = nvls ? m_nvlsEfficiency : m_efficiency;
    return NvLinkHeader::SIZE
           + static_cast<uint32_t>(std::ceil(static_cast<double>(payload) / efficiency));
}

uint16_t
NvLinkTransport::NewSlot()
{
    if (!m_freeSlots.empty())
    {
        const uint16_t slot = m_freeSlots.back();
        m_freeSlots.pop_back();
        return slot;
    }
    NS_ABORT_MSG_IF(m_out.size() > 0xFFFF, "NvLinkTransport: more than 65536 messages");
    m_out.emplace_back();
    return static_cast<uint16_t>(m_out.size() - 1);
}

void
NvLinkTransport::Send(uint16_t dstGpu, uint64_t bytes, uint32_t tag, uint32_t queue)
{
    // A message of zero bytes (a collective's empty part) is one header-only packet.
    NS_ABORT_MSG_IF(m_ports.empty(), "NvLinkTransport: GPU " << m_gpu << " has no NVLink port");
    NS_ABORT_MSG_IF((bytes + m_unit - 1) / m_unit > UINT32_MAX,
                    "NvLinkTransport: a message of more than 2^32 packets");
    const uint16_t slot = NewSlot();
    Outgoing& out = m_out[slot];
    out = Outgoing{};
    out.dst = dstGpu;
    out.tag = tag;
    out.bytes = bytes;
    out.type = NvLinkHeader::DATA;
    if (queue != NO_QUEUE)
    {
        out.queue = (static_cast<uint64_t>(dstGpu) << 32) | queue;
        Queue& q = m_queues[out.queue];
        if (q.busy)
        {
            q.waiting.push_back(slot); // after the queue's message taking turns
            return;
        }
        q.busy = true;
    }
    m_active.push_back(slot);
    for (const auto& port : m_ports)
    {
        port->DataReady();
    }
}

void
NvLinkTransport::SendNvls(
    uint8_t type, uint16_t dstGpu, uint64_t bytes, uint32_t tag, uint16_t groupSize)
{
    NS_ABORT_MSG_IF(bytes == 0, "NvLinkTransport: a message of zero bytes");
    NS_ABORT_MSG_IF(m_ports.empty(), "NvLinkTransport: GPU " << m_gpu << " has no NVLink port");
    NS_ABORT_MSG_IF(type != NvLinkHeader::NVLS_REDUCE && type != NvLinkHeader::NVLS_MULTICAST,
                    "NvLinkTransport: not an NVLS type");
    NS_ABORT_MSG_IF((bytes + m_unit - 1) / m_unit > UINT32_MAX,
                    "NvLinkTransport: a message of more than 2^32 packets");
    if (m_pattern.empty())
    {
        BuildPattern();
    }
    const uint16_t slot = NewSlot();
    Outgoing& out = m_out[slot];
    out = Outgoing{};
    out.dst = dstGpu;
    out.tag = tag;
    out.bytes = bytes;
    out.type = type;
    out.groupSize = groupSize;
    // Every GPU starts a message's packets at the same place in the turn order, from its tag
    // (mixed, so that short messages do not all use the order's first places).
    uint32_t h = tag * 2654435761U;
    h ^= h >> 15;
    h *= 2246822507U;
    h ^= h >> 13;
    out.base = h % static_cast<uint32_t>(m_pattern.size());
    out.nextNvls.resize(m_ports.size());
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        out.nextNvls[p] = NextForPort(p, 0, out.base);
    }
    m_nvlsActive.push_back(slot);
    for (const auto& port : m_ports)
    {
        port->DataReady();
    }
}

void
NvLinkTransport::BuildPattern()
{
    // Smooth weighted round robin over the ports, weights their rates in units of the slowest:
    // DGX H100's 5/4/4/5 links give a turn order of 18 packets.
    uint64_t unit = UINT64_MAX;
    for (const auto& port : m_ports)
    {
        unit = std::min(unit, port->GetDataRate().GetBitRate());
    }
    std::vector<int64_t> weight;
    int64_t total = 0;
    for (const auto& port : m_ports)
    {
        weight.push_back(static_cast<int64_t>(
            std::llround(port->GetDataRate().GetBitRate() / double(unit) * 4)));
        total += weight.back();
    }
    // Reduce by the common divisor so that the turn order is as short as possible.
    int64_t g = 0;
    for (int64_t w : weight)
    {
        g = std::gcd(g, w);
    }
    total = 0;
    for (int64_t& w : weight)
    {
        w /= g;
        total += w;
    }
    std::vector<int64_t> current(m_ports.size(), 0);
    m_positions.assign(m_ports.size(), {});
    for (int64_t i = 0; i < total; ++i)
    {
        std::size_t best = 0;
        for (std::size_t p = 0; p < m_ports.size(); ++p)
        {
            current[p] += weight[p];
            if (current[p] > current[best])
            {
                best = p;
            }
        }
        current[best] -= total;
        m_pattern.push_back(static_cast<uint8_t>(best));
        m_positions[best].push_back(static_cast<uint32_t>(i));
    }
}

uint32_t
NvLinkTransport::NextForPort(uint32_t port, uint32_t from, uint32_t base) const
{
    // Packet k goes through the port at place (k + base) mod length of the turn order.
    const std::vector<uint32_t>& pos = m_positions[port];
    if (pos.empty())
    {
        return UINT32_MAX;
    }
    const auto length = static_cast<uint32_t>(m_pattern.size());
    const uint32_t j = from + base;
    const uint32_t period = j / length;
    const uint32_t offset = j % length;
    for (uint32_t q : pos)
    {
        if (q >= offset)
        {
            return period * length + q - base;
        }
    }
    return (period + 1) * length + pos.front() - base;
}

bool
NvLinkTransport::HasData() const
{
    return !m_active.empty() || !m_nvlsActive.empty();
}

bool
NvLinkTransport::MakePacket(
    uint16_t slot, uint32_t index, uint64_t credits, Ptr<Packet>& p, NvLinkHeader& h)
{
    Outgoing& out = m_out[slot];
    const uint64_t offset = static_cast<uint64_t>(index) * m_unit;
    const auto payload = static_cast<uint32_t>(std::min<uint64_t>(m_unit, out.bytes - offset));
    const uint32_t wire = WireBytes(payload, out.type != NvLinkHeader::DATA);
    if (wire > credits)
    {
        return false;
    }
    h.type = static_cast<NvLinkHeader::Type>(out.type);
    h.srcGpu = m_gpu;
    h.dstGpu = out.dst;
    h.slot = slot;
    h.bytes = payload;
    h.tag = out.tag;
    h.messageBytes = out.bytes;
    h.index = index;
    h.groupSize = out.groupSize;
    p = Create<Packet>(wire - NvLinkHeader::SIZE);
    p->AddHeader(h);
    out.packetized += payload;
    return true;
}

Ptr<Packet>
NvLinkTransport::Dequeue(uint32_t port, uint64_t credits, bool& creditBlocked, NvLinkHeader& header)
{
    creditBlocked = false;
    Ptr<Packet> p;
    // NVLS messages first, oldest first (NCCL's NVLS kernels work through their chunks in
    // order, so that each reduction completes as soon as possible): the first message with a
    // packet left for this port. Their packets are bound to a port.
    // Multicasts before contributions: a piece's store follows its reduction at once, which
    // completes the piece and lets the next contribution start.
    for (uint8_t pass = 0; pass < 2; ++pass)
    {
        const uint8_t wanted = pass == 0 ? NvLinkHeader::NVLS_MULTICAST : NvLinkHeader::NVLS_REDUCE;
        for (auto it = m_nvlsActive.begin(); it != m_nvlsActive.end(); ++it)
        {
            const uint16_t slot = *it;
            Outgoing& out = m_out[slot];
            if (out.type != wanted)
            {
                continue;
            }
            const uint64_t packets = (out.bytes + m_unit - 1) / m_unit;
            const uint32_t index = out.nextNvls[port];
            if (index >= packets)
            {
                continue; // nothing left for this port in this message
            }
            if (!MakePacket(slot, index, credits, p, header))
            {
                creditBlocked = true;
                return nullptr;
            }
            out.nextNvls[port] = NextForPort(port, index + 1, out.base);
            if (out.packetized == out.bytes)
            {
                m_nvlsActive.erase(it); // every packet handed to a port
            }
            return p;
        }
    }
    if (m_active.empty())
    {
        return nullptr;
    }
    const uint16_t slot = m_active.front();
    Outgoing& out = m_out[slot];
    if (!MakePacket(slot, out.nextUnicast, credits, p, header))
    {
        creditBlocked = true;
        return nullptr;
    }
    ++out.nextUnicast;
    m_active.pop_front();
    if (out.packetized < out.bytes)
    {
        m_active.push_back(slot); // the next message's turn
    }
    else if (out.queue != UINT64_MAX)
    {
        // Its queue's next message takes turns from now on.
        Queue& q = m_queues[out.queue];
        if (q.waiting.empty())
        {
            q.busy = false;
        }
        else
        {
            m_active.push_back(q.waiting.front());
            q.waiting.pop_front();
        }
    }
    return p;
}

void
NvLinkTransport::Sent(const NvLinkHeader& h)
{
    Outgoing& out = m_out[h.slot];
    out.sent += h.bytes;
    m_bytesSent += h.bytes;
    if (out.sent == out.bytes)
    {
        const uint32_t tag = out.tag;
        m_freeSlots.push_back(h.slot);
        if (!m_sendCb.IsNull())
        {
            m_sendCb(tag);
        }
    }
}

void
NvLinkTransport::Receive(const NvLinkHeader& h)
{
    m_bytesReceived += h.bytes;
    if (h.bytes == h.messageBytes)
    {
        if (!m_receiveCb.IsNull())
        {
            m_receiveCb(h.srcGpu, h.tag, h.messageBytes); // a one-packet message
        }
        return;
    }
    if (h.srcGpu >= m_partial.size())
    {
        m_partial.resize(h.srcGpu + 1);
    }
    auto [it, fresh] = m_partial[h.srcGpu].try_emplace(h.tag, 0);
    it->second += h.bytes;
    if (it->second == h.messageBytes)
    {
        m_partial[h.srcGpu].erase(it);
        if (!m_receiveCb.IsNull())
        {
            m_receiveCb(h.srcGpu, h.tag, h.messageBytes);
        }
    }
}

void
NvLinkTransport::SetReceiveCallback(ReceiveCallback cb)
{
    m_receiveCb = cb;
}

void
NvLinkTransport::SetSendCallback(SendCallback cb)
{
    m_sendCb = cb;
}

uint64_t
NvLinkTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
NvLinkTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
