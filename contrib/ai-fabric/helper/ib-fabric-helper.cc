/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "ib-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fault-injector.h"
#include "ns3/ib-congestion-control.h"
#include "ns3/ib-headers.h"
#include "ns3/ib-nic-port.h"
#include "ns3/ib-routing.h"
#include "ns3/ib-switch-port.h"
#include "ns3/ib-switch.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/rdma-headers.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbFabricHelper");

namespace
{
/// pcap link type of ERF records (Endace Extensible Record Format)
constexpr uint32_t DLT_ERF = 197;
/// ERF record type of an InfiniBand data packet (LRH first)
constexpr uint8_t ERF_TYPE_INFINIBAND = 21;
/// Bytes of an ERF record header
constexpr uint32_t ERF_HEADER_BYTES = 16;

/**
 * \brief Write a data packet as an ERF record: a 16-byte ERF header, then the packet from its
 *        LRH to its VCRC. Flow-control packets are left out: Wireshark reads past the 6 bytes
 *        of a link packet (ERF type 25) and reports it malformed.
 * \param file the capture
 * \param p a packet sent or received
 */
void
IbPcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> p)
{
    const uint32_t size = p->GetSize();
    if (size == IbFlowControlHeader::SIZE)
    {
        return;
    }
    const Time now = Simulator::Now();
    uint8_t h[ERF_HEADER_BYTES] = {};
    // Timestamp: little-endian 64-bit fixed point, seconds above, binary fraction below.
    const uint64_t seconds = static_cast<uint64_t>(now.GetSeconds());
    const uint64_t fraction
        = static_cast<uint64_t>((now - Seconds(seconds)).GetSeconds() * 4294967296.0);
    const uint64_t ts = (seconds << 32) | (fraction & 0xFFFFFFFFULL);
    for (uint32_t i = 0; i < 8; ++i)
    {
        h[i] = static_cast<uint8_t>(ts >> (8 * i));
    }
    h[8] = ERF_TYPE_INFINIBAND;
    h[9] = 0x04; // flags: varying record length (no padding)
    const uint32_t rlen = ERF_HEADER_BYTES + size;
    h[10] = static_cast<uint8_t>(rlen >> 8);
    h[11] = static_cast<uint8_t>(rlen);
    h[14] = static_cast<uint8_t>(size >> 8); // wire length
    h[15] = static_cast<uint8_t>(size);
    Ptr<Packet> record = Create<Packet>(h, ERF_HEADER_BYTES);
    record->AddAtEnd(p->Copy());
    file->Write(now, record);
}
} // namespace

IbFabricHelper::IbFabricHelper()
{
    SetPortTypes(IbNicPort::GetTypeId(), IbSwitchPort::GetTypeId());
    m_switchFactory.SetTypeId(IbSwitch::GetTypeId());
}

IbFabricHelper::~IbFabricHelper() = default;

const char*
IbFabricHelper::GetFabricName() const
{
    return "ib";
}

void
IbFabricHelper::PrepareCongestionControl(const RdmaCcRegistration::Entry& cc)
{
    if (cc.typeId == IbCongestionControl::GetTypeId())
    {
        SetPortPartAttribute("Marker", "Threshold", UintegerValue(8));
    }
}

const char*
IbFabricHelper::Name() const
{
    return "IbFabricHelper";
}

uint32_t
IbFabricHelper::HostAddress(uint32_t endpoint) const
{
    const uint32_t lids = 1u << m_lmc;
    NS_ABORT_MSG_IF((endpoint + 2) * lids - 1 > MAX_UNICAST_LID,
                    "IbFabricHelper: more hosts than unicast LIDs (" << MAX_UNICAST_LID << ") for "
                                                                     << lids << " LIDs each");
    return (endpoint + 1) * lids; // base LID; the block of LID 0 is reserved
}

Ptr<FabricNetDevice>
IbFabricHelper::CreateHostPort(Ptr<Node> node, uint32_t address, Ptr<RdmaTransport> transport)
{
    Ptr<IbNicPort> nic = m_nicPortFactory.Create<IbNicPort>();
    nic->SetLid(static_cast<uint16_t>(address));
    nic->SetLmc(m_lmc);
    m_hostsInstalled = true;
    node->AddDevice(nic);
    nic->SetTransport(transport);
    return nic;
}

void
IbFabricHelper::CreateSwitch(Ptr<Node> node)
{
    node->AggregateObject(m_switchFactory.Create<IbSwitch>());
}

Ptr<FabricNetDevice>
IbFabricHelper::CreateSwitchPort(Ptr<Node> node)
{
    Ptr<IbSwitch> sw = node->GetObject<IbSwitch>();
    if (!sw)
    {
        return nullptr;
    }
    Ptr<IbSwitchPort> port = m_switchPortFactory.Create<IbSwitchPort>();
    port->SetAddress(Mac48Address::Allocate());
    node->AddDevice(port);
    sw->AddPort(port);
    return port;
}

bool
IbFabricHelper::SetRoutingEngine(const std::string& name)
{
    if (name != "minhop" && name != "ftree" && name != "updn")
    {
        return false;
    }
    m_engine = name;
    return true;
}

bool
IbFabricHelper::SetLmc(uint32_t lmc)
{
    if (lmc > 7 || m_hostsInstalled)
    {
        return false;
    }
    m_lmc = lmc;
    return true;
}

uint32_t
IbFabricHelper::GetLmc() const
{
    return m_lmc;
}

std::string
IbFabricHelper::GetRoutingEngine() const
{
    return m_engine;
}

void
IbFabricHelper::ComputeRoutes()
{
    Ptr<FabricRoutingEngine> engine = m_customEngine;
    if (engine)
    {
        NS_ABORT_MSG_IF(m_lmc > 0, "IbFabricHelper: an LMC needs one of the SM's engines");
    }
    else if (m_engine == "ftree")
    {
        engine = CreateObject<IbFatTreeRoutingEngine>();
    }
    else if (m_engine == "updn")
    {
        engine = CreateObject<IbUpDownRoutingEngine>();
    }
    else
    {
        engine = CreateObject<IbMinHopRoutingEngine>();
    }
    if (!m_customEngine)
    {
        engine->SetAttribute("Lmc", UintegerValue(m_lmc));
    }
    const FabricRouteTable table = engine->Compute(*m_topology);
    const uint32_t lids = 1u << m_lmc;
    const FabricTopology::Graph& g = m_topology->GetGraph();
    const uint32_t nEndpoints = m_topology->GetNEndpoints();
    for (uint32_t v = 0; v < m_topology->GetNVertices(); ++v)
    {
        if (g[v].kind != FabricTopology::Kind::SWITCH)
        {
            continue;
        }
        std::vector<uint16_t> lft((nEndpoints + 1) * lids, IbSwitch::NO_PORT);
        std::vector<uint8_t> classes;
        const std::vector<uint8_t> byEndpoint
            = table.HasClasses() ? table.GetSwitchClasses(v) : std::vector<uint8_t>();
        if (!byEndpoint.empty())
        {
            classes.assign(lft.size(), 0);
        }
        for (uint32_t ep = 0; ep < nEndpoints; ++ep)
        {
            const std::vector<uint32_t>& ports = table.GetPorts(v, ep); // one per LID
            for (uint32_t j = 0; j < ports.size() && j < lids; ++j)
            {
                lft[HostAddress(ep) + j] = static_cast<uint16_t>(ports[j]);
                if (!classes.empty())
                {
                    classes[HostAddress(ep) + j] = byEndpoint[ep];
                }
            }
        }
        g[v].node->GetObject<IbSwitch>()->SetLft(std::move(lft), std::move(classes));
    }
    m_lastRoutes = table;
}

Ptr<IbNicPort>
IbFabricHelper::GetNic(Ptr<Node> host) const
{
    return StaticCast<IbNicPort>(GetHostPort(host));
}

uint16_t
IbFabricHelper::GetLid(Ptr<Node> host) const
{
    return static_cast<uint16_t>(GetHostAddress(host));
}

void
IbFabricHelper::EnablePcapInternal(std::string prefix,
                                   Ptr<NetDevice> nd,
                                   bool /* promiscuous */,
                                   bool explicitFilename)
{
    Ptr<IbNetDevice> device = nd->GetObject<IbNetDevice>();
    if (!device)
    {
        return;
    }
    PcapHelper pcapHelper;
    const std::string filename
        = explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file = pcapHelper.CreateFile(
        filename, std::ios::out, static_cast<PcapHelper::DataLinkType>(DLT_ERF));
    device->TraceConnectWithoutContext("PromiscSniffer", MakeBoundCallback(&IbPcapSink, file));
}

uint32_t
IbFabricHelper::SelectRdmaEgress(Ptr<Node> sw, Ptr<Node> host, uint32_t dst, uint16_t entropy) const
{
    // The DLID as the sender's port writes it (IbNicPort: the QP's path bits under an LMC).
    Ptr<IbNicPort> nic = DynamicCast<IbNicPort>(GetHostPort(host));
    uint32_t dlid = dst;
    BooleanValue pathBits;
    nic->GetAttribute("PathBitsFromQp", pathBits);
    if (nic->GetLmc() > 0 && pathBits.Get())
    {
        dlid |= entropy & ((1U << nic->GetLmc()) - 1);
    }
    Ptr<IbSwitch> ib = sw->GetObject<IbSwitch>();
    const std::vector<uint16_t>& lft = ib->GetLft();
    const uint16_t out = dlid < lft.size() ? lft[dlid] : IbSwitch::NO_PORT;
    return out == IbSwitch::NO_PORT ? ib->GetNPorts() : out;
}

uint32_t
IbFabricHelper::GetRdmaOverheadBytes() const
{
    return IbNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE + IcrcTrailer::SIZE
           + IbNetDevice::TRAILER_BYTES;
}

void
IbFabricHelper::SetRecoveryDelays(Ptr<FaultInjector> injector) const
{
    // The switch's trap reaches the subnet manager in about 1 ms; its heavy sweep and the LFT
    // upload take 50 ms (an assumption; see the manual's failures section).
    injector->SetAttribute("DetectionDelay", TimeValue(MilliSeconds(1)));
    injector->SetAttribute("RerouteDelay", TimeValue(MilliSeconds(50)));
}

void
IbFabricHelper::SetHostRate(Ptr<Node> /* host */, DataRate /* rate */)
{
    // The adapters model no host-side receive buffer: the PCIe link limits the sending side
    // only (RdmaTransport's PcieRate).
}

std::string
IbFabricHelper::EnableDatelineClass(const NodeContainer& /* switches */, Ptr<Node> host)
{
    // The dateline class is a second data VL, which every port already has when DataVls >= 2.
    Ptr<IbNicPort> nic = GetNic(host);
    if (nic->GetDataVls() < 2)
    {
        return "datelines need 2 data VLs (DataVls is " + std::to_string(nic->GetDataVls()) + ")";
    }
    return "";
}

std::string
IbFabricHelper::SetSwitchBuffer(uint64_t bytes)
{
    if (bytes % IbNetDevice::BLOCK_BYTES != 0 || bytes < 4096 + 64
        || bytes > 2048 * IbNetDevice::BLOCK_BYTES)
    {
        return "an InfiniBand VL buffer is a multiple of 64 bytes from 4160 (one 4 KB-MTU "
               "packet) to 128K";
    }
    SetPortPartAttribute("FlowControl", "VlBufferBytes", UintegerValue(bytes));
    return "";
}

std::string
IbFabricHelper::GetRoutingName() const
{
    return m_engine;
}

std::vector<FabricHelper::Option>
IbFabricHelper::GetOptions() const
{
    return {{"routing",
             "InfiniBand subnet manager routing engine: minhop, ftree or updn (ib only)",
             "minhop",
             false},
            {"lmc",
             "InfiniBand LID mask control 0-7: 2^lmc LIDs per host, each routed on its own "
             "path, QPs spread over them (ib only)",
             "0",
             false}};
}

std::string
IbFabricHelper::SetOption(const std::string& name, const std::string& value)
{
    if (name == "routing")
    {
        return SetRoutingEngine(value) ? "" : "expected minhop, ftree or updn";
    }
    if (name == "lmc")
    {
        const bool digit = value.size() == 1 && value[0] >= '0' && value[0] <= '7';
        return digit && SetLmc(static_cast<uint32_t>(value[0] - '0')) ? "" : "expected 0 to 7";
    }
    return FabricHelper::SetOption(name, value);
}

uint8_t
IbFabricHelper::GetRdmaClass(Ptr<Node> host) const
{
    Ptr<IbNicPort> nic = GetNic(host);
    UintegerValue sl;
    nic->GetAttribute("Sl", sl);
    return nic->VlOfSl(static_cast<uint8_t>(sl.Get()));
}

bool
IbFabricHelper::ReadRdmaOpcode(Ptr<const Packet> frame, uint8_t& opcode) const
{
    // The BTH follows the LRH; flow-control packets are shorter.
    constexpr uint32_t offset = IbNetDevice::ENCAPSULATION_BYTES;
    uint8_t h[offset + 1];
    if (frame->GetSize() <= offset + 1 || frame->CopyData(h, offset + 1) != offset + 1)
    {
        return false;
    }
    opcode = h[offset];
    return true;
}

std::string
IbFabricHelper::DescribeLinkControl(const std::string& /* congestionControl */) const
{
    return "InfiniBand (credit-based flow control)";
}

const char*
IbFabricHelper::GetDisplayName() const
{
    return "InfiniBand";
}

const char*
IbFabricHelper::GetLinkLayerName() const
{
    return "IB";
}

static FabricHelperRegistration g_ib("ib", [] { return std::make_unique<IbFabricHelper>(); });

} // namespace ns3
