/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "roce-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-routing.h"
#include "ns3/fault-injector.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-host-interface.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nic-port.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFabricHelper");

RoceFabricHelper::RoceFabricHelper()
{
    SetPortTypes(RoceNicPort::GetTypeId(), RoceSwitchPort::GetTypeId());
    m_switchFactory.SetTypeId(RoceSwitch::GetTypeId());
}

RoceFabricHelper::~RoceFabricHelper() = default;

const char*
RoceFabricHelper::GetFabricName() const
{
    return "roce";
}

const char*
RoceFabricHelper::Name() const
{
    return "RoceFabricHelper";
}

void
RoceFabricHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    m_mmuAttributes.emplace_back(name, value.Copy());
}

void
RoceFabricHelper::SetBaseAddress(Ipv4Address base)
{
    m_base = base;
}

uint32_t
RoceFabricHelper::HostAddress(uint32_t endpoint) const
{
    return m_base.Get() + 1 + endpoint;
}

Ptr<FabricNetDevice>
RoceFabricHelper::CreateHostPort(Ptr<Node> node, uint32_t address, Ptr<RdmaTransport> transport)
{
    Ptr<RoceNicPort> nic = m_nicPortFactory.Create<RoceNicPort>();
    nic->SetIpv4Address(Ipv4Address(address));
    node->AddDevice(nic);
    nic->SetTransport(transport);
    return nic;
}

void
RoceFabricHelper::CreateSwitch(Ptr<Node> node)
{
    Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
    for (const auto& [name, value] : m_mmuAttributes)
    {
        sw->GetBufferManager()->SetAttribute(name, *value);
    }
    node->AggregateObject(sw);
}

Ptr<FabricNetDevice>
RoceFabricHelper::CreateSwitchPort(Ptr<Node> node)
{
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    if (!sw)
    {
        return nullptr;
    }
    Ptr<RoceSwitchPort> port = m_switchPortFactory.Create<RoceSwitchPort>();
    port->SetAddress(Mac48Address::Allocate());
    node->AddDevice(port);
    sw->AddPort(port);
    return port;
}

Ipv4InterfaceContainer
RoceFabricHelper::AssignIpv4(NodeContainer hosts, Ipv4Mask mask)
{
    Ipv4InterfaceContainer interfaces;
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> host = *it;
        Ptr<Ipv4> ipv4 = host->GetObject<Ipv4>();
        NS_ABORT_MSG_IF(!ipv4,
                        "RoceFabricHelper::AssignIpv4: node " << host->GetId()
                                                              << " has no IPv4 stack (install "
                                                                 "one with InternetStackHelper)");
        Ptr<RoceNicPort> nic = GetNic(host);
        int32_t index = ipv4->GetInterfaceForDevice(nic);
        if (index < 0)
        {
            index = static_cast<int32_t>(ipv4->AddInterface(nic));
        }
        ipv4->AddAddress(index, Ipv4InterfaceAddress(nic->GetIpv4Address(), mask));
        ipv4->SetMetric(index, 1);
        ipv4->SetUp(index);
        interfaces.Add(ipv4, index);
    }
    return interfaces;
}

void
RoceFabricHelper::ComputeRoutes()
{
    const FabricRouteTable table = m_customEngine ? m_customEngine->Compute(*m_topology)
                                                  : EcmpRoutingEngine().Compute(*m_topology);
    const FabricTopology::Graph& g = m_topology->GetGraph();
    for (uint32_t v = 0; v < m_topology->GetNVertices(); ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH)
        {
            continue;
        }
        g[v].node->GetObject<RoceSwitch>()->SetRoutes(Ipv4Address(m_base.Get() + 1),
                                                      table.GetSwitchTable(v),
                                                      table.HasClasses() ? table.GetSwitchClasses(v)
                                                                         : std::vector<uint8_t>());
    }
    m_lastRoutes = table;
}

Ptr<RoceNicPort>
RoceFabricHelper::GetNic(Ptr<Node> host) const
{
    return StaticCast<RoceNicPort>(GetHostPort(host));
}

Ipv4Address
RoceFabricHelper::GetAddress(Ptr<Node> host) const
{
    return Ipv4Address(GetHostAddress(host));
}

void
RoceFabricHelper::EnablePcapInternal(std::string prefix,
                                     Ptr<NetDevice> nd,
                                     bool /* promiscuous */,
                                     bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        return;
    }
    PcapHelper pcapHelper;
    const std::string filename
        = explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file
        = pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<RoceNetDevice>(device, "PromiscSniffer", file);
}

uint32_t
RoceFabricHelper::SelectRdmaEgress(Ptr<Node> sw,
                                   Ptr<Node> host,
                                   uint32_t dst,
                                   uint16_t entropy) const
{
    // The frame's 5-tuple: RoCEv2's UDP port, the QP's entropy as the source port.
    return sw->GetObject<RoceSwitch>()->SelectPort(
        GetHostAddress(host), dst, 17, entropy, RoceNetDevice::ROCEV2_UDP_PORT);
}

uint32_t
RoceFabricHelper::SelectEqualCostPort(
    uint32_t switchNode, uint32_t src, uint32_t dst, uint16_t entropy, uint32_t n) const
{
    if (!m_hashSeedRead)
    {
        // The switches' HashSeed attribute, as the factory would give it.
        UintegerValue seed;
        m_switchFactory.Create<RoceSwitch>()->GetAttribute("HashSeed", seed);
        m_hashSeed = static_cast<uint32_t>(seed.Get());
        m_hashSeedRead = true;
    }
    const uint32_t h = RoceSwitch::Hash(RoceSwitch::SeedOf(switchNode, m_hashSeed),
                                        src,
                                        dst,
                                        17,
                                        entropy,
                                        RoceNetDevice::ROCEV2_UDP_PORT);
    return h % n;
}

uint32_t
RoceFabricHelper::GetRdmaOverheadBytes() const
{
    return RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + IcrcTrailer::SIZE
           + RoceNetDevice::ETHERNET_OVERHEAD_BYTES;
}

void
RoceFabricHelper::SetRecoveryDelays(Ptr<FaultInjector> injector) const
{
    // BFD notices a dead link (10 ms x 3, RFC 5880); the routing protocol withdraws it and the
    // switches' ECMP groups shrink (FaultInjector's defaults).
    injector->SetAttribute("DetectionDelay", TimeValue(MilliSeconds(30)));
    injector->SetAttribute("RerouteDelay", TimeValue(MilliSeconds(5)));
}

void
RoceFabricHelper::SetHostRate(Ptr<Node> host, DataRate rate)
{
    GetNic(host)->GetHostInterface()->SetAttribute("Rate", DataRateValue(rate));
}

std::string
RoceFabricHelper::EnableDatelineClass(const NodeContainer& switches, Ptr<Node> host)
{
    // The dateline class is a second lossless priority: the switches re-mark RDMA frames that
    // cross a dateline to DatelineDscp, whose priority the MMU must also hold losslessly.
    const Ptr<NetDevice> nic = GetHostPort(host);
    for (uint32_t i = 0; i < switches.GetN(); ++i)
    {
        Ptr<RoceSwitch> sw = switches.Get(i)->GetObject<RoceSwitch>();
        UintegerValue rdmaDscp;
        nic->GetAttribute("RdmaDscp", rdmaDscp);
        UintegerValue dataDscp;
        sw->GetAttribute("DataDscp", dataDscp);
        if ((rdmaDscp.Get() >> 3) != (dataDscp.Get() >> 3))
        {
            std::ostringstream why;
            why << "datelines re-mark the RDMA priority: the NICs' RdmaDscp (" << rdmaDscp.Get()
                << ") must map to the switches' DataDscp's (" << dataDscp.Get() << ")";
            return why.str();
        }
        UintegerValue dscp;
        sw->GetAttribute("DatelineDscp", dscp);
        TypeId::AttributeInformation info;
        if (!sw->GetBufferManager()->GetInstanceTypeId().LookupAttributeByName("LosslessPriorities",
                                                                               &info))
        {
            return "datelines need a second lossless priority: the switches' buffer manager ("
                   + sw->GetBufferManager()->GetInstanceTypeId().GetName()
                   + ") has no LosslessPriorities";
        }
        UintegerValue mask;
        sw->GetBufferManager()->GetAttribute("LosslessPriorities", mask);
        sw->GetBufferManager()->SetAttribute("LosslessPriorities",
                                             UintegerValue(mask.Get() | (1u << (dscp.Get() >> 3))));
    }
    return "";
}

std::string
RoceFabricHelper::SetSwitchBuffer(uint64_t bytes)
{
    SetMmuAttribute("BufferSize", UintegerValue(bytes));
    return "";
}

std::string
RoceFabricHelper::GetRoutingName() const
{
    return "ecmp";
}

std::vector<FabricHelper::Option>
RoceFabricHelper::GetOptions() const
{
    return {
        {"pfc", "PFC on the RDMA priority (roce only)", "true", true},
        {"ecn", "ECN marking at switch egress (roce only)", "true", true},
        {"kmin", "ECN Kmin bytes, K/M/G suffixes (0: 100 KB per 25 Gb/s of port rate)", "0", false},
        {"kmax", "ECN Kmax bytes, K/M/G suffixes (0: 400 KB per 25 Gb/s of port rate)", "0", false},
        {"pmax", "ECN marking probability at Kmax, in [0, 1]", "0.2", false},
        {"buffer", "switch buffer bytes, K/M/G suffixes (0: 42 MB, the default)", "0", false}};
}

std::string
RoceFabricHelper::SetOption(const std::string& name, const std::string& value)
{
    if (name == "kmin" || name == "kmax" || name == "buffer")
    {
        // Bytes with a K, M or G suffix (powers of 1024); 0 keeps the attribute's default.
        char* end = nullptr;
        uint64_t bytes
            = value.empty() || value[0] == '-' ? 0 : std::strtoull(value.c_str(), &end, 10);
        const std::string suffix = end ? std::string(end) : std::string("?");
        const int shift = suffix.empty()  ? 0
                          : suffix == "K" ? 10
                          : suffix == "M" ? 20
                          : suffix == "G" ? 30
                                          : -1;
        if (value.empty() || end == value.c_str() || shift < 0 || bytes > (UINT32_MAX >> shift))
        {
            return "expected a byte count below 4G (e.g. 42M)";
        }
        bytes <<= shift;
        if (bytes == 0)
        {
            return "";
        }
        if (name == "buffer")
        {
            SetMmuAttribute("BufferSize", UintegerValue(bytes));
        }
        else
        {
            SetPortPartAttribute("Marker", name == "kmin" ? "Kmin" : "Kmax", UintegerValue(bytes));
        }
        return "";
    }
    if (name == "pmax")
    {
        char* end = nullptr;
        const double pmax = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !(pmax >= 0.0 && pmax <= 1.0))
        {
            return "expected a probability in [0, 1]";
        }
        SetPortPartAttribute("Marker", "Pmax", DoubleValue(pmax));
        return "";
    }
    const bool on = value == "true" || value == "1";
    if (!on && value != "false" && value != "0")
    {
        return "expected true or false";
    }
    if (name == "pfc")
    {
        m_pfc = on;
        SetMmuAttribute("PfcEnabled", BooleanValue(on));
        return "";
    }
    if (name == "ecn")
    {
        m_ecn = on;
        SetPortPartAttribute("Marker", "Enabled", BooleanValue(on));
        return "";
    }
    return FabricHelper::SetOption(name, value);
}

uint8_t
RoceFabricHelper::GetRdmaClass(Ptr<Node> host) const
{
    UintegerValue dscp;
    GetHostPort(host)->GetAttribute("RdmaDscp", dscp);
    return static_cast<uint8_t>(dscp.Get() >> 3);
}

bool
RoceFabricHelper::ReadRdmaOpcode(Ptr<const Packet> frame, uint8_t& opcode) const
{
    // The BTH follows the Ethernet, IPv4 and UDP headers of an IPv4 frame (not PFC's).
    constexpr uint32_t offset = RoceNetDevice::ENCAPSULATION_BYTES;
    uint8_t h[offset + 1];
    if (frame->GetSize() <= offset + 1 || frame->CopyData(h, offset + 1) != offset + 1
        || h[12] != 0x08 || h[13] != 0x00)
    {
        return false;
    }
    opcode = h[offset];
    return true;
}

std::string
RoceFabricHelper::DescribeLinkControl(const std::string& congestionControl) const
{
    return std::string("PFC ") + (m_pfc ? "on" : "off") + ", ECN " + (m_ecn ? "on" : "off") + ", "
           + congestionControl;
}

const char*
RoceFabricHelper::GetDisplayName() const
{
    return "RoCEv2";
}

const char*
RoceFabricHelper::GetLinkLayerName() const
{
    return "Ethernet";
}

static FabricHelperRegistration g_roce("roce", [] { return std::make_unique<RoceFabricHelper>(); });

} // namespace ns3
