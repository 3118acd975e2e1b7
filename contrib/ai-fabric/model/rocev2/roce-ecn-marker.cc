/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-ecn-marker.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/frame-bytes-header.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceEcnMarker);

namespace
{
constexpr uint8_t ECN_CE = 0x3;
} // namespace

TypeId
RoceEcnMarker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceEcnMarker")
              .SetParent<FabricCongestionMarker>()
              .SetGroupName("AiFabric")
              .AddConstructor<RoceEcnMarker>()
              .AddAttribute(
                  "Enabled",
                  "Mark ECN-capable frames Congestion Experienced as they leave the "
                  "output queues of a switch port. NIC ports never mark.",
                  BooleanValue(true),
                  MakeBooleanAccessor(&RoceEcnMarker::SetEnabled, &RoceEcnMarker::IsEnabled),
                  MakeBooleanChecker())
              .AddAttribute("Kmin",
                            "Marking threshold Kmin of each output queue (bytes); 0 derives it "
                            "from the port's rate: 100 KB per 25 Gb/s, the setting of the "
                            "HPCC/ns3-rdma simulations of DCQCN (1.6 MB at 400 Gb/s).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RoceEcnMarker::SetKmin, &RoceEcnMarker::GetKmin),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Kmax",
                            "Marking threshold Kmax of each output queue (bytes); 0 derives it "
                            "from the port's rate: 400 KB per 25 Gb/s (HPCC/ns3-rdma).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RoceEcnMarker::SetKmax, &RoceEcnMarker::GetKmax),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Pmax",
                            "Marking probability at Kmax (0..1). Default 0.2 (HPCC/ns3-rdma; "
                            "the DCQCN paper used 0.01 at 40 Gb/s).",
                            DoubleValue(0.2),
                            MakeDoubleAccessor(&RoceEcnMarker::m_pmax),
                            MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

RoceEcnMarker::RoceEcnMarker()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

RoceEcnMarker::~RoceEcnMarker() = default;

void
RoceEcnMarker::DoDispose()
{
    m_rng = nullptr;
    FabricCongestionMarker::DoDispose();
}

int64_t
RoceEcnMarker::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
RoceEcnMarker::Update(uint64_t bitRate) const
{
    if (bitRate == m_rateKey && m_kminAttr == m_kminKey && m_kmaxAttr == m_kmaxKey)
    {
        return;
    }
    m_rateKey = bitRate;
    m_kminKey = m_kminAttr;
    m_kmaxKey = m_kmaxAttr;
    // 100 KB and 400 KB per 25 Gb/s of port rate, unless set.
    const uint64_t per25g = 25000000000ULL;
    m_kmin = m_kminAttr != 0 ? m_kminAttr : static_cast<uint32_t>(100000ULL * bitRate / per25g);
    m_kmax = m_kmaxAttr != 0 ? m_kmaxAttr : static_cast<uint32_t>(400000ULL * bitRate / per25g);
}

bool
RoceEcnMarker::GetThresholds(uint64_t bitRate, uint32_t& kmin, uint32_t& kmax) const
{
    Update(bitRate);
    kmin = m_kmin;
    kmax = m_kmax;
    return true;
}

void
RoceEcnMarker::SetEnabled(bool enabled)
{
    m_enabled = enabled;
    ClearFloor();
}

bool
RoceEcnMarker::IsEnabled() const
{
    return m_enabled;
}

void
RoceEcnMarker::SetKmin(uint32_t bytes)
{
    m_kminAttr = bytes;
    ClearFloor();
}

uint32_t
RoceEcnMarker::GetKmin() const
{
    return m_kminAttr;
}

void
RoceEcnMarker::SetKmax(uint32_t bytes)
{
    m_kmaxAttr = bytes;
    ClearFloor();
}

uint32_t
RoceEcnMarker::GetKmax() const
{
    return m_kmaxAttr;
}

bool
RoceEcnMarker::Mark(Ptr<Packet>& p, const FabricMarkContext& ctx)
{
    Update(ctx.bitRate);
    // Nothing at or below Kmin is marked at this rate (nothing at all when disabled).
    SetFloor(ctx.bitRate, m_enabled ? m_kmin : ~uint32_t(0));
    const uint32_t queued = ctx.queuedBytes;
    if (!m_enabled || queued <= m_kmin)
    {
        return false;
    }
    // Only IPv4 frames that are ECN-capable (ECT(0) or ECT(1)) are marked.
    uint8_t h[16];
    if (p->CopyData(h, sizeof(h)) != sizeof(h) || h[12] != 0x08 || h[13] != 0x00)
    {
        return false;
    }
    const uint8_t ecn = h[15] & 0x3;
    if (ecn == 0 || ecn == ECN_CE)
    {
        return false;
    }
    if (queued <= m_kmax)
    {
        const double prob = m_kmax > m_kmin
                                ? m_pmax * (queued - m_kmin) / static_cast<double>(m_kmax - m_kmin)
                                : m_pmax;
        if (m_rng->GetValue() >= prob)
        {
            return false;
        }
    }
    // Rewrite the TOS on a copy and compute the IPv4 checksum again: the Ethernet and IPv4
    // headers are taken off and written back as bytes.
    const uint32_t ipBytes = 4U * (h[14] & 0x0F);
    const uint32_t prefix = 14 + ipBytes;
    FrameBytesHeader front;
    uint8_t* b = front.Prepare(prefix);
    if (ipBytes < 20 || p->CopyData(b, prefix) != prefix)
    {
        return false;
    }
    uint8_t* ip = b + 14;
    ip[1] = static_cast<uint8_t>(ip[1] | ECN_CE);
    ip[10] = 0;
    ip[11] = 0;
    const uint16_t checksum = FrameBytesHeader::InternetChecksum(ip, ipBytes);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
    Ptr<Packet> q = p->Copy();
    q->RemoveAtStart(prefix);
    q->AddHeader(front);
    p = q;
    NotifyMarked(ctx);
    return true;
}

} // namespace ns3
