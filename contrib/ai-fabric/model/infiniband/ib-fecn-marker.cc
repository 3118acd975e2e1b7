/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-fecn-marker.h"

#include "ib-headers.h"
#include "ns3/boolean.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IbFecnMarker);

namespace
{
constexpr uint32_t CREDIT_BYTES = 64; // IBTA's flow-control block
} // namespace

TypeId
IbFecnMarker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbFecnMarker")
              .SetParent<FabricCongestionMarker>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbFecnMarker>()
              .AddAttribute(
                  "Threshold",
                  "IBTA Annex A10 SwitchCongestionSetting Threshold, 0-15: 0 (the "
                  "default) marks nothing; t > 0 marks FECN on packets leaving a data "
                  "VL whose queue holds at least (16 - t)/16 of the port's "
                  "VlBufferBytes (the spec leaves the byte value to the switch; 15 is "
                  "the most aggressive).",
                  UintegerValue(0),
                  MakeUintegerAccessor(&IbFecnMarker::SetThreshold, &IbFecnMarker::GetThreshold),
                  MakeUintegerChecker<uint32_t>(0, 15))
              .AddAttribute("MarkingRate",
                            "Marking_Rate: packets left unmarked between two FECN marks of a "
                            "congested VL (0, the default and the Omni-Path fabric manager's: "
                            "every packet).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbFecnMarker::m_markingRate),
                            MakeUintegerChecker<uint32_t>(0, 65535))
              .AddAttribute("PacketSize",
                            "Packet_Size: packets shorter than this many 64-byte credits are "
                            "never marked (0, the default and the Omni-Path fabric manager's: "
                            "all packets).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&IbFecnMarker::m_packetSize),
                            MakeUintegerChecker<uint32_t>(0, 255))
              .AddAttribute("VictimMarking",
                            "Victim_Mask bit of the port: also mark when the VL is a victim "
                            "(its packet waited for the next hop's credits), not the root of "
                            "the congestion. Default false.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&IbFecnMarker::m_victimMarking),
                            MakeBooleanChecker());
    return tid;
}

IbFecnMarker::IbFecnMarker() = default;

IbFecnMarker::~IbFecnMarker() = default;

void
IbFecnMarker::SetThreshold(uint32_t threshold)
{
    m_threshold = threshold;
    ClearFloor();
}

uint32_t
IbFecnMarker::GetThreshold() const
{
    return m_threshold;
}

bool
IbFecnMarker::Mark(Ptr<Packet>& p, const FabricMarkContext& ctx)
{
    if (m_threshold == 0)
    {
        SetFloor(ctx.bitRate, ~uint32_t(0)); // off: ports need not ask
        return false;
    }
    const uint64_t withPacket = uint64_t{ctx.queuedBytes} + ctx.frameBytes;
    if (ctx.cls >= MAX_VLS || withPacket * 16 < uint64_t{16 - m_threshold} * ctx.classBufferBytes
        || (ctx.victim && !m_victimMarking)
        || (ctx.frameBytes + CREDIT_BYTES - 1) / CREDIT_BYTES < m_packetSize)
    {
        return false;
    }
    uint32_t& since = m_sinceMark[ctx.cls];
    if (since < m_markingRate)
    {
        ++since;
        return false;
    }
    since = 0;
    // Other holders (traces) may keep the packet as it arrived: mark a copy.
    Ptr<Packet> q = p->Copy();
    LrhHeader lrh;
    q->RemoveHeader(lrh);
    BthHeader bth;
    q->RemoveHeader(bth);
    bth.SetFecn(true);
    q->AddHeader(bth);
    q->AddHeader(lrh);
    p = q;
    NotifyMarked(ctx);
    return true;
}

} // namespace ns3
