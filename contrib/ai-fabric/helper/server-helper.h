/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef SERVER_HELPER_H
#define SERVER_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-port-parts.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <string>
#include <vector>

namespace ns3
{

class CollectiveTuner;

class NvLinkTransport;
class NvSwitch;
class CollectiveHelper;

/**
 * \ingroup ai-fabric
 * A server's scale-up domain: its GPUs, NVSwitch chips and NVLinks, and its NICs.
 */
struct ServerPreset
{
    std::string name;              //!< preset name ("dgx-h100", ...)
    uint32_t gpus{8};              //!< GPUs in one NVLink domain
    std::vector<uint32_t> links{}; //!< NVLinks from each GPU to each NVSwitch chip
    DataRate linkRate{"200Gbps"};  //!< one NVLink's data rate, per direction
    uint32_t switchPorts{64};      //!< NVLink ports of one NVSwitch chip
    DataRate nicRate{"400Gbps"};   //!< each GPU's NIC
    uint32_t pcieGeneration{5};    //!< GPU-NIC PCIe generation
    uint32_t pcieLanes{16};        //!< GPU-NIC PCIe lanes
    bool nvls{false};              //!< NVSwitch in-switch reduction and multicast
    std::string sources;           //!< where the values come from
    std::string gpu;               //!< the GPU's compute preset (GpuComputeModel::GetPreset)
};

/**
 * \ingroup ai-fabric
 * \brief Builds the scale-up domains of GPU servers: NVSwitch chips (ns-3 Nodes with an
 *        NvSwitch), NVLink ports (NvLinkNetDevice) and an NvLinkTransport on every GPU.
 *
 * A preset (SetPreset: "dgx-a100", "dgx-h100", "hgx-h800", "hgx-b200", "gb200-nvl72") gives the
 * GPUs per domain, the NVLinks from each GPU to each chip (DGX H100: four chips, 5/4/4/5), the
 * NVLink rate and the NIC rate; every value can be overridden. The NVLinks between one GPU and one
 * chip are one port of their summed rate at each end. SetSingleSwitch() replaces the chips
 * by one logical switch whose port to each GPU has all its links.
 *
 * Install() takes the GPUs in rank order, server-major (as FatTreeHelper numbers them), and
 * puts each run of GetGpusPerServer() GPUs in one domain: domain d holds ranks
 * d x gpus .. d x gpus + gpus - 1, as GPUs 0 .. gpus - 1 of the domain. Every chip links to
 * every GPU of its domain, so every GPU reaches every other over every chip. Chips are named
 * "server<d>-nvswitch<c>" (d counts this helper's domains; a name already taken is left to
 * its node). A chip reduces and multicasts in the switch (NvSwitch's Nvls) if the preset has
 * NVLS.
 */
class ServerHelper
{
  public:
    ServerHelper();

    /// \return the preset names
    static std::vector<std::string> PresetNames();

    /**
     * \param name a preset name
     * \param[out] preset its values
     * \return false if there is no such preset
     */
    static bool GetPreset(const std::string& name, ServerPreset& preset);

    /**
     * \param name a preset name
     * \return false (and no change) if there is no such preset
     */
    bool SetPreset(const std::string& name);

    /// \return the values in force
    const ServerPreset& GetServer() const;

    /// \param gpus GPUs per NVLink domain (override)
    void SetGpusPerServer(uint32_t gpus);

    /// \return GPUs per NVLink domain
    uint32_t GetGpusPerServer() const;

    /// \param links NVLinks from each GPU to each chip, one entry per chip (override)
    void SetLinksPerSwitch(std::vector<uint32_t> links);

    /// \param rate one NVLink's data rate per direction (override)
    void SetNvLinkRate(DataRate rate);

    /// \param single true: one logical NVSwitch with all of a GPU's links to it
    void SetSingleSwitch(bool single);

    /// \param delay one-way delay of an NVLink (default 5 ns, one metre)
    void SetLinkDelay(Time delay);

    /**
     * \param generation PCIe generation of the GPU-NIC link (1 to 6, override)
     * \param lanes its lanes (1, 2, 4, 8 or 16)
     */
    void SetPcie(uint32_t generation, uint32_t lanes);

    /**
     * \return the GPU-NIC PCIe data rate per direction: lanes x transfer rate x line-code
     *         efficiency (Gen1-2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT 242/256); Gen4 x16 252
     *         Gb/s (31.5 GB/s), Gen5 x16 504 Gb/s (63 GB/s)
     */
    DataRate GetPcieRate() const;

    /**
     * \param name attribute of ns3::NvLinkNetDevice
     * \param value its value
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of a part of every NVLink port (its pointer attribute, e.g.
     *        "FlowControl": BufferBytes, CreditUpdateBytes); see FabricPortParts.
     * \param part the port's pointer attribute
     * \param name an attribute of the part
     * \param value its value
     */
    void SetPortPartAttribute(const std::string& part,
                              const std::string& name,
                              const AttributeValue& value);

    /**
     * \brief Give every NVLink port a part of another type (see FabricPortParts).
     * \param part the port's pointer attribute
     * \param type the TypeId name of the part
     */
    void SetPortPart(const std::string& part, const std::string& type);

    /**
     * \param name attribute of ns3::NvSwitch
     * \param value its value
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param name attribute of ns3::NvLinkTransport
     * \param value its value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param nGpus GPUs to be installed
     * \return an empty string, or what makes the configuration impossible (one line)
     */
    std::string Check(uint32_t nGpus) const;

    /**
     * \brief Build the domains over the GPUs (aborts if Check() is not empty).
     * \param gpus the GPUs, in rank order
     */
    void Install(NodeContainer gpus);

    /// \return the number of domains installed
    uint32_t GetNDomains() const;

    /**
     * \param domain a domain
     * \return its NVSwitch chips
     */
    NodeContainer GetSwitches(uint32_t domain) const;

    /// \return every NVSwitch chip
    NodeContainer GetAllSwitches() const;

    /// \return the NVLink per-direction rate of one GPU (all its links)
    DataRate GetGpuNvLinkRate() const;

    /// \return the HBM bandwidth of the preset's GPU (GpuComputeModel's preset of that name)
    DataRate GetGpuMemoryBandwidth() const;

    /**
     * \brief Give the communicators the servers' GPU memory bandwidth for reductions
     *        (Communicator::ReduceBandwidth), unless it was set away from its default (with
     *        Config::SetDefault or --ns3::Communicator::ReduceBandwidth).
     * \param collectives the helper that installs them
     */
    void ConfigureCollectives(CollectiveHelper& collectives) const;

    /**
     * \brief Give a tuner the servers' NVLink model (CollectiveTuner::SetScaleUp()): the
     *        domain's rate per GPU, the NVLink transport's ring and NVLS efficiencies (read
     *        from an installed GPU) and whether the switches reduce (NVLS).
     * \param tuner the tuner
     * \param gpu a GPU of the installed servers
     * \param servers the servers
     *
     * The protocols' NVLink step latencies come from CollectiveTuner::SetProtocols().
     */
    void ConfigureTuner(CollectiveTuner& tuner, Ptr<Node> gpu, uint32_t servers) const;

  private:
    /// \return NVLinks per chip in force (one chip with all links if single)
    std::vector<uint32_t> EffectiveLinks() const;

    ServerPreset m_server;                 //!< values in force
    bool m_single{false};                  //!< one logical switch
    Time m_delay;                          //!< NVLink delay
    ObjectFactory m_gpuPortFactory;        //!< NvLinkGpuPort
    ObjectFactory m_switchPortFactory;     //!< NvSwitchPort
    FabricPortParts m_parts;               //!< parts of the NvLinkNetDevices
    ObjectFactory m_switchFactory;         //!< NvSwitch
    ObjectFactory m_transportFactory;      //!< NvLinkTransport
    std::vector<NodeContainer> m_switches; //!< by domain
};

} // namespace ns3

#endif /* SERVER_HELPER_H */
