/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-switch.h"

#include "ib-headers.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbSwitch");
NS_OBJECT_ENSURE_REGISTERED(IbSwitch);

TypeId
IbSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::IbSwitch")
              .SetParent<FabricSwitch>()
              .SetGroupName("AiFabric")
              .AddConstructor<IbSwitch>()
              .AddAttribute("PortLatency",
                            "Port-to-port latency (s). Default 130 ns: Quantum-class HDR "
                            "InfiniBand switches.",
                            TimeValue(NanoSeconds(130)),
                            MakeTimeAccessor(&IbSwitch::m_latency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("CutThrough",
                            "Cut-through forwarding: a packet's last bit leaves PortLatency "
                            "after it arrived. Off: store and forward, the packet is queued "
                            "at its output PortLatency after its last bit arrived. Default "
                            "true, as InfiniBand switches forward.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&IbSwitch::m_cutThrough),
                            MakeBooleanChecker());
    return tid;
}

IbSwitch::IbSwitch()
{
    NS_LOG_FUNCTION(this);
}

IbSwitch::~IbSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
IbSwitch::DoDispose()
{
    m_ports.clear();
    FabricSwitch::DoDispose();
}

uint32_t
IbSwitch::AddPort(Ptr<IbSwitchPort> port)
{
    const auto index = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(port->GetIfIndex() != index,
                    "IbSwitch: port " << index << " has interface index " << port->GetIfIndex()
                                      << "; a switch node holds only its ports, in order");
    m_ports.push_back(port);
    port->AttachToSwitch(MakeCallback(&IbSwitch::Forward, this),
                         MakeCallback(&IbSwitch::Departed, this));
    return index;
}

uint32_t
IbSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<IbSwitchPort>
IbSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

void
IbSwitch::SetLft(std::vector<uint16_t> lft, std::vector<uint8_t> datelineClasses)
{
    NS_ABORT_MSG_IF(!datelineClasses.empty() && datelineClasses.size() != lft.size(),
                    "IbSwitch: " << datelineClasses.size() << " dateline classes for " << lft.size()
                                 << " LIDs");
    m_classes = std::move(datelineClasses);
    for (uint16_t port : lft)
    {
        NS_ABORT_MSG_IF(port != NO_PORT && port >= m_ports.size(),
                        "IbSwitch: LFT names port " << port << " of " << m_ports.size());
    }
    m_lft = std::move(lft);
}

const std::vector<uint16_t>&
IbSwitch::GetLft() const
{
    return m_lft;
}

Ptr<FabricNetDevice>
IbSwitch::GetFabricPort(uint32_t i) const
{
    return m_ports.at(i);
}

void
IbSwitch::Forward(Ptr<IbSwitchPort> in, Ptr<Packet> p, uint8_t vl)
{
    uint8_t h[4];
    p->CopyData(h, sizeof(h));
    const uint16_t dlid = static_cast<uint16_t>((h[2] << 8) | h[3]);
    const uint16_t out = dlid < m_lft.size() ? m_lft[dlid] : NO_PORT;
    const auto ingress = static_cast<uint16_t>(in->GetIfIndex());
    if (out == NO_PORT)
    {
        in->CountDrop(p, FabricDropReason::NO_ROUTE);
        in->ReleaseBlocks(vl, p->GetSize());
        return;
    }
    Time delay = m_latency;
    if (m_cutThrough)
    {
        // The output would have started PortLatency after the first bit: its last bit leaves
        // PortLatency after this packet's last bit arrived (now).
        const Time serialization = FabricBytesTxTime(in->GetDataRate(), p->GetSize());
        delay = m_latency > serialization ? m_latency - serialization : Time(0);
    }
    // The output VL is the output port's SL-to-VL entry for the packet's SL (VL15 stays).
    uint8_t outVl = vl;
    if (vl != IbNetDevice::MANAGEMENT_VL)
    {
        outVl = m_ports[out]->VlOfSl(static_cast<uint8_t>(h[1] >> 4));
        if (!m_classes.empty() && m_classes[dlid] != 0)
        {
            outVl = static_cast<uint8_t>((outVl + 1) % m_ports[out]->GetDataVls());
        }
        if (outVl != vl)
        {
            p = p->Copy(); // other holders (traces) keep the packet as it arrived
            LrhHeader lrh;
            p->RemoveHeader(lrh);
            lrh.SetVl(outVl);
            p->AddHeader(lrh);
        }
    }
    ++m_forwarded;
    m_ports[out]->EnqueueAfter(delay, p, outVl, ingress, vl);
}

void
IbSwitch::Departed(uint16_t ingress, uint8_t vl, uint32_t bytes)
{
    m_ports[ingress]->ReleaseBlocks(vl, bytes);
}

bool
IbSwitch::IsCutThrough() const
{
    return m_cutThrough;
}

} // namespace ns3
