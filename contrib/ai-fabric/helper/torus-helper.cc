/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "torus-helper.h"

#include "fabric-helper.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-channel.h"
#include "ns3/ib-net-device.h"
#include "ns3/names.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/roce-switch.h"
#include "ns3/torus-routing.h"
#include "ns3/uinteger.h"

#include <random>
#include <sstream>

namespace ns3
{

namespace
{
/**
 * \param name a name
 * \param node the node to give it, unless it is taken
 */
void
NameNode(const std::string& name, Ptr<Node> node)
{
    if (!Names::Find<Object>(name))
    {
        Names::Add(name, node);
    }
}
} // namespace

TorusHelper::TorusHelper() = default;

void
TorusHelper::SetDimensions(std::vector<uint32_t> dims)
{
    m_dims = std::move(dims);
    m_rates.assign(m_dims.size(), DataRate(0));
}

void
TorusHelper::SetWrap(bool wrap)
{
    m_wrap = wrap;
}

void
TorusHelper::SetGpusPerSwitch(uint32_t gpus)
{
    m_gpusPerSwitch = gpus;
}

void
TorusHelper::SetDimensionRate(uint32_t dimension, DataRate rate)
{
    NS_ABORT_MSG_IF(dimension >= m_dims.size(), "TorusHelper: no dimension " << dimension);
    m_rates.resize(m_dims.size(), DataRate(0));
    m_rates[dimension] = rate;
}

void
TorusHelper::SetDimensionOrderRouting(bool dor)
{
    m_dor = dor;
}

void
TorusHelper::SetDatelines(bool datelines)
{
    m_datelines = datelines;
}

void
TorusHelper::SetRouterInGpu(bool inGpu)
{
    m_routerInGpu = inGpu;
}

bool
TorusHelper::IsDimensionOrderRouting() const
{
    return m_dor;
}

bool
TorusHelper::HasDatelines() const
{
    return m_dor && m_wrap && m_datelines;
}

bool
TorusHelper::IsRouterInGpu() const
{
    return m_routerInGpu;
}

std::string
TorusHelper::Check() const
{
    if (m_dims.size() < 2 || m_dims.size() > 3)
    {
        return "a torus has 2 or 3 dimensions, not " + std::to_string(m_dims.size());
    }
    uint64_t switches = 1;
    for (uint32_t d : m_dims)
    {
        if (d < 2)
        {
            return "every dimension of a torus needs at least 2 switches";
        }
        switches *= d;
    }
    if (m_gpusPerSwitch == 0)
    {
        return "a torus needs at least one GPU per switch";
    }
    if (m_ranks > switches)
    {
        return "cannot split a torus of " + std::to_string(switches) + " switches over "
               + std::to_string(m_ranks) + " MPI ranks: each rank holds whole switches, at "
               "least one";
    }
    if (switches * m_gpusPerSwitch > (1u << 20))
    {
        return "a torus of more than 2^20 GPUs";
    }
    if (m_routerInGpu && m_gpusPerSwitch != 1)
    {
        return "a GPU with its own router is alone at its coordinate (one GPU per switch)";
    }
    return "";
}

const std::vector<uint32_t>&
TorusHelper::GetDimensions() const
{
    return m_dims;
}

uint32_t
TorusHelper::GetNSwitches() const
{
    uint32_t n = 1;
    for (uint32_t d : m_dims)
    {
        n *= d;
    }
    return n;
}

uint32_t
TorusHelper::GetNGpus() const
{
    return GetNSwitches() * m_gpusPerSwitch;
}

uint32_t
TorusHelper::GetGpusPerSwitch() const
{
    return m_gpusPerSwitch;
}

uint32_t
TorusHelper::GetNSwitchLinks() const
{
    uint32_t links = 0;
    for (uint32_t d : m_dims)
    {
        // Per line of the dimension: d - 1 links, plus the wrap-around if it is a new pair.
        const uint32_t perLine = d - 1 + (m_wrap && d > 2 ? 1 : 0);
        links += perLine * (GetNSwitches() / d);
    }
    return links;
}

uint32_t
TorusHelper::GetIndex(const std::vector<uint32_t>& coords) const
{
    NS_ABORT_MSG_IF(coords.size() != m_dims.size(), "TorusHelper: coordinates of another rank");
    uint32_t index = 0;
    for (std::size_t d = m_dims.size(); d-- > 0;)
    {
        NS_ABORT_MSG_IF(coords[d] >= m_dims[d], "TorusHelper: coordinate out of the torus");
        index = index * m_dims[d] + coords[d];
    }
    return index;
}

std::vector<uint32_t>
TorusHelper::GetCoordinates(uint32_t index) const
{
    std::vector<uint32_t> coords(m_dims.size());
    for (std::size_t d = 0; d < m_dims.size(); ++d)
    {
        coords[d] = index % m_dims[d];
        index /= m_dims[d];
    }
    return coords;
}

Ptr<Node>
TorusHelper::GetSwitch(const std::vector<uint32_t>& coords) const
{
    return m_switches.Get(GetIndex(coords));
}

Ptr<Node>
TorusHelper::GetGpu(const std::vector<uint32_t>& coords, uint32_t local) const
{
    NS_ABORT_MSG_IF(local >= m_gpusPerSwitch, "TorusHelper: no GPU " << local << " there");
    return m_gpus.Get(GetIndex(coords) * m_gpusPerSwitch + local);
}

NodeContainer
TorusHelper::GetGpus() const
{
    return m_gpus;
}

bool
TorusHelper::IsPlacement(const std::string& placement)
{
    return placement == "linear" || placement == "stride" || placement == "random";
}

NodeContainer
TorusHelper::GetGpus(const std::string& placement, uint64_t seed) const
{
    NS_ABORT_MSG_IF(!IsPlacement(placement), "TorusHelper: no placement " << placement);
    if (placement == "linear")
    {
        return m_gpus;
    }
    std::vector<Ptr<Node>> order;
    if (placement == "stride")
    {
        const uint32_t lines = GetNSwitches() / m_dims[0];
        for (uint32_t parity = 0; parity < 2; ++parity)
        {
            for (uint32_t line = 0; line < lines; ++line)
            {
                for (uint32_t x = parity; x < m_dims[0]; x += 2)
                {
                    const uint32_t index = x + m_dims[0] * line;
                    for (uint32_t g = 0; g < m_gpusPerSwitch; ++g)
                    {
                        order.push_back(m_gpus.Get(index * m_gpusPerSwitch + g));
                    }
                }
            }
        }
    }
    else
    {
        order.assign(m_gpus.Begin(), m_gpus.End());
        std::mt19937_64 rng(seed);
        for (std::size_t i = order.size(); i > 1; --i)
        {
            std::swap(order[i - 1], order[rng() % i]); // Fisher-Yates, the same everywhere
        }
    }
    NodeContainer gpus;
    for (const Ptr<Node>& n : order)
    {
        gpus.Add(n);
    }
    return gpus;
}

NodeContainer
TorusHelper::GetSwitches() const
{
    return m_switches;
}

void
TorusHelper::SetRanks(uint32_t ranks)
{
    NS_ABORT_MSG_IF(ranks == 0 || m_switches.GetN() > 0,
                    "TorusHelper: at least one rank, set before Install()");
    m_ranks = ranks;
}

std::string
TorusHelper::GetSplit() const
{
    std::vector<uint32_t> switches(m_ranks, 0);
    for (uint32_t i = 0; i < m_switches.GetN(); ++i)
    {
        ++switches[m_switches.Get(i)->GetSystemId()];
    }
    std::string line = "split over " + std::to_string(m_ranks)
                       + " MPI ranks (switches in blocks of their index, GPUs with their "
                         "switch):";
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        line += (r == 0 ? " " : "; ") + std::string("rank ") + std::to_string(r) + " "
                + std::to_string(switches[r]) + " switches, "
                + std::to_string(switches[r] * m_gpusPerSwitch) + " GPUs";
    }
    return line;
}

void
TorusHelper::Install(FabricHelper& fabric)
{
    const std::string error = Check();
    NS_ABORT_MSG_IF(!error.empty(), "TorusHelper: " << error);
    NS_ABORT_MSG_IF(m_switches.GetN() > 0, "TorusHelper: installed twice");
    m_rates.resize(m_dims.size(), DataRate(0));
    const uint32_t nSwitches = GetNSwitches();
    // First the GPUs, so rank r gets host address r + 1; each on its switch's MPI rank.
    auto rankOf = [this, nSwitches](uint32_t i)
    { return static_cast<uint32_t>(static_cast<uint64_t>(i) * m_ranks / nSwitches); };
    for (uint32_t g = 0; g < nSwitches * m_gpusPerSwitch; ++g)
    {
        m_gpus.Add(CreateObject<Node>(rankOf(g / m_gpusPerSwitch)));
    }
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        m_switches.Add(CreateObject<Node>(rankOf(i)));
    }
    fabric.InstallHosts(m_gpus);
    fabric.InstallSwitches(m_switches);
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        std::ostringstream name;
        name << "torus";
        const std::vector<uint32_t> c = GetCoordinates(i);
        for (std::size_t d = 0; d < c.size(); ++d)
        {
            name << (d == 0 ? "" : "-") << c[d];
        }
        NameNode(name.str(), m_switches.Get(i));
        for (uint32_t g = 0; g < m_gpusPerSwitch; ++g)
        {
            const uint32_t rank = i * m_gpusPerSwitch + g;
            NameNode("gpu" + std::to_string(rank), m_gpus.Get(rank));
            const NetDeviceContainer ports = fabric.Connect(m_gpus.Get(rank), m_switches.Get(i));
            if (m_routerInGpu)
            {
                // On the chip: as fast as the router's torus links together, no cable.
                uint64_t bps = 0;
                for (std::size_t d = 0; d < m_dims.size(); ++d)
                {
                    const uint64_t r = m_rates[d].GetBitRate() > 0
                                           ? m_rates[d].GetBitRate()
                                           : StaticCast<FabricNetDevice>(ports.Get(0))
                                                 ->GetDataRate()
                                                 .GetBitRate();
                    bps += r
                           * (m_dims[d] == 2
                                  ? 1
                                  : 2); // two ports a dimension (a mesh edge leaves one idle)
                }
                ports.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate(bps)));
                ports.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate(bps)));
                StaticCast<FabricNetDevice>(ports.Get(0))
                    ->GetFabricChannel()
                    ->SetAttribute("Delay", TimeValue(Time(0)));
            }
        }
    }
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        const std::vector<uint32_t> c = GetCoordinates(i);
        for (std::size_t d = 0; d < m_dims.size(); ++d)
        {
            const bool last = c[d] + 1 == m_dims[d];
            if (last && (!m_wrap || m_dims[d] == 2))
            {
                continue; // a mesh's edge, or the pair a size-2 dimension already linked
            }
            std::vector<uint32_t> next = c;
            next[d] = (c[d] + 1) % m_dims[d];
            const NetDeviceContainer ports = fabric.Connect(m_switches.Get(i), GetSwitch(next));
            if (m_rates[d].GetBitRate() > 0)
            {
                ports.Get(0)->SetAttribute("DataRate", DataRateValue(m_rates[d]));
                ports.Get(1)->SetAttribute("DataRate", DataRateValue(m_rates[d]));
            }
        }
    }
    if (m_dor)
    {
        Ptr<DimensionOrderRoutingEngine> engine = CreateObject<DimensionOrderRoutingEngine>();
        std::vector<Ptr<Node>> switches(m_switches.Begin(), m_switches.End());
        engine->SetGeometry(m_dims, m_wrap, switches);
        engine->SetAttribute("Datelines", BooleanValue(HasDatelines()));
        fabric.UseRoutingEngine(engine);
    }
    if (HasDatelines())
    {
        // The dateline class is a second VL on InfiniBand and a second lossless priority on
        // RoCEv2 switches; a setting that would leave it without effect is refused.
        const std::string why = fabric.EnableDatelineClass(m_switches, m_gpus.Get(0));
        NS_ABORT_MSG_IF(!why.empty(), "TorusHelper: " << why);
    }
    fabric.ComputeRoutes();
}

std::string
TorusHelper::Summary() const
{
    std::ostringstream s;
    s << (m_wrap ? "torus " : "mesh ");
    for (std::size_t d = 0; d < m_dims.size(); ++d)
    {
        s << (d == 0 ? "" : "x") << m_dims[d];
    }
    s << ": " << GetNGpus() << " GPUs (" << m_gpusPerSwitch << " per switch), " << GetNSwitches()
      << (m_routerInGpu ? " on-GPU routers, " : " switches, ") << GetNSwitchLinks()
      << " switch links, " << (m_dor ? "dimension-order routing" : "the fabric's routing")
      << (HasDatelines() ? " with datelines" : "");
    return s.str();
}

} // namespace ns3
