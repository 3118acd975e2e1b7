/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "server-helper.h"

#include "collective-helper.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/collective-tuner.h"
#include "ns3/communicator.h"
#include "ns3/double.h"
#include "ns3/fabric-channel.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/mac48-address.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/nvlink-gpu-port.h"
#include "ns3/nvlink-transport.h"
#include "ns3/nvswitch-port.h"
#include "ns3/nvswitch.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

namespace
{
/// The presets, with their sources.
const std::vector<ServerPreset>&
Presets()
{
    static const std::vector<ServerPreset> presets = {
        {"dgx-a100",
         8,
         {2, 2, 2, 2, 2, 2},
         DataRate("200Gbps"),
         36,
         DataRate("200Gbps"),
         4,
         16,
         false,
         "DGX A100 user guide: 8 A100, 6 NVSwitch gen2 (36 NVLink3 ports each), 2 NVLinks from "
         "each GPU to each; NVLink3 12 x 25 GB/s per GPU (NVIDIA Ampere architecture); 8 x "
         "ConnectX-6 200 Gb/s HDR; PCIe Gen4 x16",
         "a100"},
        {"dgx-h100",
         8,
         {5, 4, 4, 5},
         DataRate("200Gbps"),
         64,
         DataRate("400Gbps"),
         5,
         16,
         true,
         "DGX H100 user guide and NVIDIA's NVSwitch gen3 blog: 8 H100, 4 NVSwitch gen3 (64 "
         "NVLink4 ports each), 5/4/4/5 NVLinks from each GPU; NVLink4 18 x 25 GB/s per GPU "
         "(NVIDIA Hopper architecture); 8 x ConnectX-7 400 Gb/s; PCIe Gen5 x16; NVLS",
         "h100"},
        {"hgx-h800",
         8,
         {2, 2, 2, 2},
         DataRate("200Gbps"),
         64,
         DataRate("400Gbps"),
         5,
         16,
         true,
         "NVIDIA H800 SXM5 datasheet: NVLink 400 GB/s per GPU (8 NVLink4 links of 25 GB/s a "
         "direction; spread 2/2/2/2 over the HGX board's 4 NVSwitch gen3 chips, an assumption: "
         "the split is not published); one ConnectX-7 400 Gb/s per GPU as in DeepEP's "
         "H800 cluster (deepseek-ai/DeepEP README); PCIe Gen5 x16; NVLS",
         "h800"},
        {"hgx-b200",
         8,
         {9, 9},
         DataRate("400Gbps"),
         72,
         DataRate("400Gbps"),
         5,
         16,
         true,
         "DGX B200 user guide: 8 B200, 2 NVLink switch chips (72 NVLink5 ports each), 9 NVLinks "
         "from each GPU to each; NVLink5 18 x 50 GB/s per GPU (NVIDIA Blackwell architecture); "
         "8 x ConnectX-7 400 Gb/s; PCIe Gen5 x16; NVLS",
         "b200"},
        {"gb200-nvl72",
         72,
         std::vector<uint32_t>(18, 1),
         DataRate("400Gbps"),
         72,
         DataRate("400Gbps"),
         5,
         16,
         true,
         "GB200 NVL72: 72 B200 in one NVLink domain, 9 switch trays of 2 NVLink switch chips "
         "(72 NVLink5 ports each), one NVLink from each GPU to each of the 18 chips; NVLink5 "
         "18 x 50 GB/s per GPU; one ConnectX-7 400 Gb/s per GPU (DGX GB200); PCIe Gen5 x16",
         "gb200"},
    };
    return presets;
}
} // namespace

ServerHelper::ServerHelper()
    : m_delay(NanoSeconds(5))
    , m_parts("ServerHelper", NvLinkGpuPort::GetTypeId())
{
    m_gpuPortFactory.SetTypeId(NvLinkGpuPort::GetTypeId());
    m_switchPortFactory.SetTypeId(NvSwitchPort::GetTypeId());
    m_parts.SetPortTypes(NvLinkGpuPort::GetTypeId(), NvSwitchPort::GetTypeId());
    m_switchFactory.SetTypeId(NvSwitch::GetTypeId());
    m_transportFactory.SetTypeId(NvLinkTransport::GetTypeId());
    SetPreset("dgx-h100");
}

std::vector<std::string>
ServerHelper::PresetNames()
{
    std::vector<std::string> names;
    for (const ServerPreset& p : Presets())
    {
        names.push_back(p.name);
    }
    return names;
}

bool
ServerHelper::GetPreset(const std::string& name, ServerPreset& preset)
{
    for (const ServerPreset& p : Presets())
    {
        if (p.name == name)
        {
            preset = p;
            return true;
        }
    }
    return false;
}

bool
ServerHelper::SetPreset(const std::string& name)
{
    return GetPreset(name, m_server);
}

const ServerPreset&
ServerHelper::GetServer() const
{
    return m_server;
}

void
ServerHelper::SetGpusPerServer(uint32_t gpus)
{
    m_server.gpus = gpus;
}

uint32_t
ServerHelper::GetGpusPerServer() const
{
    return m_server.gpus;
}

void
ServerHelper::SetLinksPerSwitch(std::vector<uint32_t> links)
{
    m_server.links = std::move(links);
}

void
ServerHelper::SetNvLinkRate(DataRate rate)
{
    m_server.linkRate = rate;
}

void
ServerHelper::SetSingleSwitch(bool single)
{
    m_single = single;
}

void
ServerHelper::SetLinkDelay(Time delay)
{
    m_delay = delay;
}

void
ServerHelper::SetPcie(uint32_t generation, uint32_t lanes)
{
    m_server.pcieGeneration = generation;
    m_server.pcieLanes = lanes;
}

DataRate
ServerHelper::GetPcieRate() const
{
    // Transfer rate per lane (GT/s) and line-code efficiency, by generation (PCI-SIG).
    static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
    static const double code[] = {0, 0.8, 0.8, 128.0 / 130, 128.0 / 130, 128.0 / 130, 242.0 / 256};
    const uint32_t g = std::min<uint32_t>(m_server.pcieGeneration, 6);
    return DataRate(static_cast<uint64_t>(m_server.pcieLanes * gts[g] * code[g] * 1e9));
}

void
ServerHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_gpuPortFactory.Set(name, value); // the roles add no attributes of their own
    m_switchPortFactory.Set(name, value);
}

void
ServerHelper::SetPortPartAttribute(const std::string& part,
                                   const std::string& name,
                                   const AttributeValue& value)
{
    m_parts.SetAttribute(part, name, value);
}

void
ServerHelper::SetPortPart(const std::string& part, const std::string& type)
{
    m_parts.SetPart(part, type);
}

void
ServerHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
ServerHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

std::vector<uint32_t>
ServerHelper::EffectiveLinks() const
{
    if (!m_single)
    {
        return m_server.links;
    }
    return {std::accumulate(m_server.links.begin(), m_server.links.end(), 0U)};
}

DataRate
ServerHelper::GetGpuNvLinkRate() const
{
    const uint32_t links = std::accumulate(m_server.links.begin(), m_server.links.end(), 0U);
    return DataRate(m_server.linkRate.GetBitRate() * links);
}

std::string
ServerHelper::Check(uint32_t nGpus) const
{
    const ServerPreset& s = m_server;
    if (s.gpus == 0)
    {
        return "a server needs at least one GPU";
    }
    if (s.gpus > 0xFFFF)
    {
        return "at most 65535 GPUs in one NVLink domain";
    }
    if (s.links.empty() || std::accumulate(s.links.begin(), s.links.end(), 0U) == 0)
    {
        return "a GPU needs at least one NVLink";
    }
    if (s.linkRate.GetBitRate() == 0)
    {
        return "an NVLink rate of zero";
    }
    if (s.links.size() > 255)
    {
        return "at most 255 NVSwitch chips per server";
    }
    if (s.pcieGeneration < 1 || s.pcieGeneration > 6
        || (s.pcieLanes != 1 && s.pcieLanes != 2 && s.pcieLanes != 4 && s.pcieLanes != 8
            && s.pcieLanes != 16))
    {
        return "PCIe generation 1 to 6 with 1, 2, 4, 8 or 16 lanes";
    }
    for (std::size_t c = 0; c < s.links.size(); ++c)
    {
        if (!m_single && static_cast<uint64_t>(s.links[c]) * s.gpus > s.switchPorts)
        {
            return std::to_string(s.gpus) + " GPUs with " + std::to_string(s.links[c])
                   + " NVLinks each need " + std::to_string(s.links[c] * s.gpus)
                   + " ports on NVSwitch " + std::to_string(c) + ", which has "
                   + std::to_string(s.switchPorts);
        }
    }
    if (nGpus % s.gpus != 0)
    {
        return std::to_string(nGpus) + " GPUs do not fill whole servers of "
               + std::to_string(s.gpus);
    }
    return "";
}

void
ServerHelper::Install(NodeContainer gpus)
{
    const std::string error = Check(gpus.GetN());
    NS_ABORT_MSG_IF(!error.empty(), "ServerHelper: " << error);
    const uint32_t perServer = m_server.gpus;
    const std::vector<uint32_t> links = EffectiveLinks();
    for (uint32_t d = 0; d < gpus.GetN() / perServer; ++d)
    {
        // A domain is known by its first GPU's node id: unique in the process, whichever
        // helper built it.
        const uint32_t domain = gpus.Get(d * perServer)->GetId();
        const uint32_t index = GetNDomains();
        std::vector<Ptr<NvLinkTransport>> transports;
        for (uint32_t i = 0; i < perServer; ++i)
        {
            Ptr<Node> gpu = gpus.Get(d * perServer + i);
            NS_ABORT_MSG_IF(gpu->GetObject<NvLinkTransport>(),
                            "ServerHelper: a GPU is already in an NVLink domain");
            Ptr<NvLinkTransport> t = m_transportFactory.Create<NvLinkTransport>();
            t->SetGpu(static_cast<uint16_t>(i));
            t->SetDomain(domain);
            gpu->AggregateObject(t);
            transports.push_back(t);
        }
        NodeContainer chips;
        for (uint32_t c = 0; c < links.size(); ++c)
        {
            if (links[c] == 0)
            {
                continue;
            }
            // On its server's MPI rank (its GPUs').
            Ptr<Node> chip = CreateObject<Node>(gpus.Get(d * perServer)->GetSystemId());
            Ptr<NvSwitch> sw = m_switchFactory.Create<NvSwitch>();
            sw->SetAttribute("Nvls", BooleanValue(m_server.nvls));
            chip->AggregateObject(sw);
            const std::string name
                = "server" + std::to_string(index) + "-nvswitch" + std::to_string(c);
            if (!Names::Find<Node>(name))
            {
                Names::Add(name, chip);
            }
            const DataRate rate(m_server.linkRate.GetBitRate() * links[c]);
            for (uint32_t i = 0; i < perServer; ++i)
            {
                Ptr<NvLinkGpuPort> gpuPort = m_gpuPortFactory.Create<NvLinkGpuPort>();
                m_parts.Configure(gpuPort);
                gpuPort->SetAddress(Mac48Address::Allocate());
                gpuPort->SetAttribute("DataRate", DataRateValue(rate));
                gpus.Get(d * perServer + i)->AddDevice(gpuPort);
                Ptr<NvSwitchPort> swPort = m_switchPortFactory.Create<NvSwitchPort>();
                m_parts.Configure(swPort);
                swPort->SetAddress(Mac48Address::Allocate());
                swPort->SetAttribute("DataRate", DataRateValue(rate));
                chip->AddDevice(swPort);
                const uint32_t port = sw->AddPort(swPort);
                sw->SetRoute(static_cast<uint16_t>(i), port);
                Ptr<FabricChannel> channel = CreateObject<FabricChannel>();
                channel->SetAttribute("Delay", TimeValue(m_delay));
                gpuPort->Attach(channel);
                swPort->Attach(channel);
                transports[i]->AddPort(gpuPort);
            }
            chips.Add(chip);
        }
        m_switches.push_back(chips);
    }
}

uint32_t
ServerHelper::GetNDomains() const
{
    return static_cast<uint32_t>(m_switches.size());
}

NodeContainer
ServerHelper::GetSwitches(uint32_t domain) const
{
    return m_switches.at(domain);
}

NodeContainer
ServerHelper::GetAllSwitches() const
{
    NodeContainer all;
    for (const NodeContainer& c : m_switches)
    {
        all.Add(c);
    }
    return all;
}

void
ServerHelper::ConfigureTuner(CollectiveTuner& tuner, Ptr<Node> gpu, uint32_t servers) const
{
    Ptr<NvLinkTransport> nv = gpu->GetObject<NvLinkTransport>();
    NS_ABORT_MSG_IF(!nv, "ServerHelper::ConfigureTuner: the GPU has no NVLink transport");
    DoubleValue ringEfficiency;
    DoubleValue nvlsEfficiency;
    nv->GetAttribute("ProtocolEfficiency", ringEfficiency);
    nv->GetAttribute("NvlsEfficiency", nvlsEfficiency);
    tuner.SetScaleUp(servers,
                     GetGpusPerServer(),
                     Time(0), // the protocols' NVLink step latencies: SetProtocols()
                     GetGpuNvLinkRate(),
                     ringEfficiency.Get(),
                     nvlsEfficiency.Get(),
                     GetServer().nvls);
}

DataRate
ServerHelper::GetGpuMemoryBandwidth() const
{
    GpuSpec gpu;
    NS_ABORT_MSG_IF(!GpuComputeModel::GetPreset(m_server.gpu, gpu),
                    "ServerHelper: preset " << m_server.name << " names no GPU preset");
    return DataRate(static_cast<uint64_t>(gpu.memoryBandwidth * 8));
}

void
ServerHelper::ConfigureCollectives(CollectiveHelper& collectives) const
{
    // A value given on the command line or with Config::SetDefault wins over the preset's.
    TypeId::AttributeInformation info;
    NS_ABORT_IF(!Communicator::GetTypeId().LookupAttributeByName("ReduceBandwidth", &info));
    const auto* current = dynamic_cast<const DataRateValue*>(PeekPointer(info.initialValue));
    const auto* original
        = dynamic_cast<const DataRateValue*>(PeekPointer(info.originalInitialValue));
    if (current && original && current->Get() != original->Get())
    {
        return;
    }
    collectives.SetCommunicatorAttribute("ReduceBandwidth", DataRateValue(GetGpuMemoryBandwidth()));
}

} // namespace ns3
