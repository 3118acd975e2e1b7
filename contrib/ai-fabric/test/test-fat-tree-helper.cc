/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FatTreeHelper: which parameters it refuses, the sizes and the wiring of 2-tier leaf-spines
// (non-blocking and oversubscribed), 3-tier k-ary fat-trees (Al-Fares et al., SIGCOMM 2008) and
// rail-optimized attachment, the ECMP routes that result, the bisection bandwidth against a
// max-flow computed on the built graph, and an RDMA write across pods.

#include "ai-fabric-test-fixture.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/names.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Parameters of one fat-tree
struct TreeParams
{
    uint32_t tiers{2};         //!< 2 or 3
    uint32_t servers{1};       //!< servers
    uint32_t gpusPerServer{1}; //!< GPUs per server
    uint32_t radix{8};         //!< k
    uint32_t down{1};          //!< oversubscription, host side
    uint32_t up{1};            //!< oversubscription, uplink side
    bool rail{false};          //!< rail-optimized
};

/**
 * \param p parameters
 * \return a helper set to them
 */
FatTreeHelper
MakeTree(const TreeParams& p)
{
    FatTreeHelper tree;
    tree.SetTiers(p.tiers);
    tree.SetServers(p.servers);
    tree.SetGpusPerServer(p.gpusPerServer);
    tree.SetRadix(p.radix);
    tree.SetOversubscription(p.down, p.up);
    tree.SetRailOptimized(p.rail);
    return tree;
}

class FatTreeHelperTest : public AiFabricTest
{
  protected:
    /**
     * \brief Build the fat-tree on the fixture's fabric helper.
     * \param p parameters
     */
    void Build(const TreeParams& p)
    {
        m_tree = MakeTree(p);
        ASSERT_EQ(m_tree.Check(), "");
        m_tree.Install(m_fabric);
    }

    /**
     * \param node a switch node
     * \return its forwarding object
     */
    static Ptr<RoceSwitch> Sw(Ptr<Node> node)
    {
        return node->GetObject<RoceSwitch>();
    }

    /**
     * \param port a port or NIC
     * \return the node at the other end of its cable
     */
    static Ptr<Node> Peer(Ptr<RoceNetDevice> port)
    {
        return port->GetFabricChannel()->GetPeer(PeekPointer(port))->GetNode();
    }

    /**
     * \param sw a switch node
     * \param ports some of its ports
     * \return the nodes behind them
     */
    static std::set<Ptr<Node>> Neighbours(Ptr<Node> sw, const std::vector<uint32_t>& ports)
    {
        std::set<Ptr<Node>> n;
        for (uint32_t p : ports)
        {
            n.insert(Peer(Sw(sw)->GetPort(p)));
        }
        return n;
    }

    /**
     * \param sw a switch node
     * \return the nodes behind all its ports
     */
    static std::set<Ptr<Node>> AllNeighbours(Ptr<Node> sw)
    {
        std::vector<uint32_t> ports(Sw(sw)->GetNPorts());
        for (uint32_t p = 0; p < ports.size(); ++p)
        {
            ports[p] = p;
        }
        return Neighbours(sw, ports);
    }

    /**
     * \param sw a switch node
     * \param rank a GPU rank
     * \return the switch's ECMP group toward that GPU
     */
    std::vector<uint32_t> Route(Ptr<Node> sw, uint32_t rank) const
    {
        return Sw(sw)->GetRoute(m_fabric.GetAddress(m_tree.GetGpuByRank(rank)));
    }

    /// \return the spine nodes
    std::set<Ptr<Node>> Spines() const
    {
        std::set<Ptr<Node>> n;
        for (uint32_t j = 0; j < m_tree.GetNSpines(); ++j)
        {
            n.insert(m_tree.GetSpine(j));
        }
        return n;
    }

    /**
     * \param pod a pod
     * \return its aggregation switches
     */
    std::set<Ptr<Node>> Aggregations(uint32_t pod) const
    {
        std::set<Ptr<Node>> n;
        for (uint32_t i = 0; i < m_tree.GetNAggregationsPerPod(); ++i)
        {
            n.insert(m_tree.GetAggregation(pod, i));
        }
        return n;
    }

    /**
     * \param rank a GPU rank
     * \return the pod of its leaf
     */
    uint32_t PodOfGpu(uint32_t rank) const
    {
        return m_tree.GetPodOfLeaf(m_tree.GetLeafOfGpu(rank));
    }

    /// \return frames dropped anywhere, for any reason
    static uint64_t TotalDrops()
    {
        uint64_t drops = 0;
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(node->GetDevice(d));
                if (dev)
                {
                    drops += dev->GetCounters().TotalDrops();
                }
            }
        }
        return drops;
    }

    /**
     * \brief Maximum flow, in links, from half A to half B of the GPUs on the built graph,
     *        with the halves as FatTreeHelper::GetBisectionBandwidth() documents them (the
     *        first floor(N/2) GPUs in leaf order): Boost's push-relabel, independent of the
     *        helper's formula.
     * \param tree an installed fat-tree
     * \param fabric the fabric it is built on
     * \return the flow in units of one link's rate
     */
    static long MaxFlowBetweenHalves(const FatTreeHelper& tree, const RoceFabricHelper& fabric)
    {
        using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
        using Net = boost::adjacency_list<
            boost::vecS,
            boost::vecS,
            boost::directedS,
            boost::no_property,
            boost::property<
                boost::edge_capacity_t,
                long,
                boost::property<boost::edge_residual_capacity_t,
                                long,
                                boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
        const FabricTopology& topo = *fabric.GetTopology();
        const FabricTopology::Graph& g = topo.GetGraph();
        const uint32_t nv = topo.GetNVertices();
        Net net(nv + 2);
        const uint32_t source = nv;
        const uint32_t sink = nv + 1;
        auto capacity = boost::get(boost::edge_capacity, net);
        auto reverse = boost::get(boost::edge_reverse, net);
        auto arc = [&](uint32_t u, uint32_t v, long c)
        {
            auto e = boost::add_edge(u, v, net).first;
            auto r = boost::add_edge(v, u, net).first;
            capacity[e] = c;
            capacity[r] = 0;
            reverse[e] = r;
            reverse[r] = e;
        };
        for (auto [it, end] = boost::edges(g); it != end; ++it)
        {
            const auto u = static_cast<uint32_t>(boost::source(*it, g));
            const auto v = static_cast<uint32_t>(boost::target(*it, g));
            arc(u, v, 1); // full duplex: one link's rate each way
            arc(v, u, 1);
        }
        // GPUs in leaf order (within a leaf, GPUs are interchangeable).
        std::vector<std::vector<uint32_t>> byLeaf(tree.GetNLeaves());
        for (uint32_t r = 0; r < tree.GetNGpus(); ++r)
        {
            byLeaf[tree.GetLeafOfGpu(r)].push_back(r);
        }
        std::map<Ptr<Node>, uint32_t> vertexOf;
        for (uint32_t v = 0; v < nv; ++v)
        {
            vertexOf[g[v].node] = v;
        }
        const long big = static_cast<long>(tree.GetNGpus()) + 1;
        uint32_t placed = 0;
        for (const auto& gpus : byLeaf)
        {
            for (uint32_t r : gpus)
            {
                const uint32_t v = vertexOf.at(tree.GetGpuByRank(r));
                if (placed++ < tree.GetNGpus() / 2)
                {
                    arc(source, v, big);
                }
                else
                {
                    arc(v, sink, big);
                }
            }
        }
        return boost::push_relabel_max_flow(net, source, sink);
    }

    FatTreeHelper m_tree;      //!< the fat-tree
    RoceFabricHelper m_fabric; //!< the fabric it is built on
};

} // namespace

// Parameters that cannot be built are refused with one line that names the constraint and its
// numbers; the limits themselves are accepted.
TEST_F(FatTreeHelperTest, CheckRefusesWhatCannotBeBuilt)
{
    struct Case
    {
        TreeParams p;                   //!< parameters
        std::vector<std::string> words; //!< what the message must contain
    };

    const uint32_t k = 8;
    const uint32_t maxTwoTier = k * (k / 2);              // k leaves under a spine
    const uint32_t maxThreeTier = 4 * (4 / 2) * (4 / 2);  // k=4: k pods x k/2 leaves x k/2
    const uint32_t railGroups = k / 3;                    // 3 rails per group, k spine ports
    const uint32_t railMaxServers = railGroups * (k / 2); // a group holds down servers
    const std::vector<Case> refused = {
        {{4, 16, 1, k, 1, 1, false}, {"tiers", "2 or 3", "4"}},
        {{1, 16, 1, k, 1, 1, false}, {"tiers", "1"}},
        {{2, 0, 1, k, 1, 1, false}, {"servers", "0"}},
        {{2, 4, 0, k, 1, 1, false}, {"gpusPerServer", "0"}},
        {{2, 4, 1, 1, 1, 1, false}, {"radix", "1"}},
        {{2, 4, 1, 70000, 1, 1, false}, {"radix", "70000"}},
        {{2, 4, 1, k, 0, 1, false}, {"oversubscription", "0:1"}},
        {{2, 4, 1, k, 2, 1, false}, {"oversubscription 2:1", "radix 8", "multiple of 3"}},
        {{2, 4, 1, 7, 1, 1, false}, {"oversubscription 1:1", "radix 7", "multiple of 2"}},
        {{3, 4, 1, 9, 2, 1, false}, {"3-tier", "even radix", "9"}},
        {{2, maxTwoTier + 1, 1, k, 1, 1, false},
         {"radix 8", "4 down-links", std::to_string(maxTwoTier), std::to_string(maxTwoTier + 1)}},
        {{2, 11, 3, k, 1, 1, false}, {std::to_string(maxTwoTier), "33"}},
        {{3, maxThreeTier + 1, 1, 4, 1, 1, false},
         {"radix 4", "3 tiers", std::to_string(maxThreeTier), std::to_string(maxThreeTier + 1)}},
        {{2, 4, k + 1, k, 1, 1, true}, {"rail-optimized", "gpusPerServer", "radix 8", "9"}},
        {{3, 4, k, k, 1, 1, true}, {"rail-optimized", "k/2 = 4", "8"}},
        {{2, railMaxServers + 1, 3, k, 1, 1, true},
         {"rail-optimized", std::to_string(railMaxServers), std::to_string(railMaxServers + 1)}},
    };
    for (const Case& c : refused)
    {
        const std::string why = MakeTree(c.p).Check();
        ASSERT_FALSE(why.empty()) << "tiers " << c.p.tiers << " servers " << c.p.servers;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        for (const std::string& w : c.words)
        {
            EXPECT_NE(why.find(w), std::string::npos) << "'" << w << "' not in: " << why;
        }
        EXPECT_NE(MakeTree(c.p).Summary().find("cannot be built: " + why), std::string::npos);
    }

    const std::vector<TreeParams> accepted = {
        {2, maxTwoTier, 1, k, 1, 1, false},    // every spine port used
        {3, maxThreeTier, 1, 4, 1, 1, false},  // Al-Fares' k^3/4
        {2, 4, 1, k, 6, 2, false},             // 6:2 is 3:1: 6 down, 2 up
        {2, 2, 1, 2, 1, 1, false},             // the smallest switch
        {2, railMaxServers, 3, k, 1, 1, true}, // two groups of three rails
        {3, 1, 4, k, 1, 1, true},              // a pod holds one group of four rails
        {2, 5, 4, k, 1, 1, false},             // servers' GPUs spread over leaves
        {3, 3, 1, 6, 2, 1, false},             // 3-tier oversubscribed: 4 down, 2 up
    };
    for (const TreeParams& p : accepted)
    {
        EXPECT_EQ(MakeTree(p).Check(), "") << "tiers " << p.tiers << " servers " << p.servers;
    }
    FatTreeHelper reduced = MakeTree({2, 4, 1, k, 6, 2, false});
    EXPECT_EQ(reduced.GetNLeafDownLinks(), k * 3 / 4);
    EXPECT_EQ(reduced.GetNLeafUpLinks(), k / 4);
}

// Install() refuses parameters that Check() refuses.
TEST_F(FatTreeHelperTest, InstallAbortsWhenCheckFails)
{
    FatTreeHelper tree = MakeTree({2, 100, 1, 8, 1, 1, false});
    ASSERT_NE(tree.Check(), "");
    EXPECT_DEATH(tree.Install(m_fabric), "FatTreeHelper");
}

// 2-tier non-blocking, k = 8, 16 GPUs: 4 host ports and 4 uplinks per leaf, 4 leaves, 4 spines;
// a leaf reaches a GPU of another leaf through every spine and its own GPUs through one port;
// a spine has one port toward each GPU, the one facing its leaf. GPU addresses follow ranks.
TEST_F(FatTreeHelperTest, TwoTierNonBlocking)
{
    const uint32_t k = 8;
    const uint32_t gpus = 16;
    Build({2, gpus, 1, k, 1, 1, false});
    const uint32_t down = k / 2;
    const uint32_t leaves = gpus / down;
    const uint32_t spines = k / 2;
    ASSERT_EQ(m_tree.GetNGpus(), gpus);
    ASSERT_EQ(m_tree.GetNLeaves(), leaves);
    ASSERT_EQ(m_tree.GetNSpines(), spines);
    EXPECT_EQ(m_tree.GetNPods(), 0u);
    EXPECT_EQ(m_tree.GetNAggregations(), 0u);
    EXPECT_EQ(m_tree.GetNCores(), 0u);
    EXPECT_EQ(m_tree.GetNSwitches(), leaves + spines);
    EXPECT_EQ(m_tree.GetNLinks(), gpus + leaves * spines);
    EXPECT_EQ(m_fabric.GetTopology()->GetNLinks(), m_tree.GetNLinks());
    EXPECT_EQ(m_fabric.GetChannels().size(), m_tree.GetNLinks());
    EXPECT_EQ(m_tree.GetGpus().GetN(), gpus);

    const uint32_t first = m_fabric.GetAddress(m_tree.GetGpuByRank(0)).Get();
    EXPECT_EQ(Ipv4Address(first), Ipv4Address("10.0.0.1"));
    for (uint32_t r = 0; r < gpus; ++r)
    {
        EXPECT_EQ(m_tree.GetGpuByRank(r), m_tree.GetGpus().Get(r));
        EXPECT_EQ(m_tree.GetGpu(r, 0), m_tree.GetGpuByRank(r));
        EXPECT_EQ(m_fabric.GetAddress(m_tree.GetGpuByRank(r)).Get(), first + r);
        EXPECT_EQ(m_tree.GetLeafOfGpu(r), r / down);
        EXPECT_EQ(Peer(m_fabric.GetNic(m_tree.GetGpuByRank(r))), m_tree.GetLeaf(r / down));
    }
    for (uint32_t l = 0; l < leaves; ++l)
    {
        EXPECT_EQ(Sw(m_tree.GetLeaf(l))->GetNPorts(), k);
        for (uint32_t r = 0; r < gpus; ++r)
        {
            const std::vector<uint32_t> route = Route(m_tree.GetLeaf(l), r);
            if (m_tree.GetLeafOfGpu(r) == l)
            {
                ASSERT_EQ(route.size(), 1u) << "leaf " << l << " gpu " << r;
                EXPECT_EQ(Neighbours(m_tree.GetLeaf(l), route),
                          std::set<Ptr<Node>>{m_tree.GetGpuByRank(r)});
            }
            else
            {
                ASSERT_EQ(route.size(), spines) << "leaf " << l << " gpu " << r;
                EXPECT_EQ(Neighbours(m_tree.GetLeaf(l), route), Spines());
            }
        }
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        EXPECT_EQ(Sw(m_tree.GetSpine(s))->GetNPorts(), leaves);
        for (uint32_t r = 0; r < gpus; ++r)
        {
            const std::vector<uint32_t> route = Route(m_tree.GetSpine(s), r);
            ASSERT_EQ(route.size(), 1u);
            EXPECT_EQ(Neighbours(m_tree.GetSpine(s), route),
                      std::set<Ptr<Node>>{m_tree.GetLeaf(r / down)});
        }
    }

    const DataRate rate = m_fabric.GetNic(m_tree.GetGpuByRank(0))->GetDataRate();
    EXPECT_EQ(m_tree.GetLinkRate(), rate);
    EXPECT_EQ(m_tree.GetBisectionBandwidth().GetBitRate(), gpus / 2 * rate.GetBitRate());
    EXPECT_EQ(MaxFlowBetweenHalves(m_tree, m_fabric), static_cast<long>(gpus / 2));

    // Names in topology terms.
    EXPECT_EQ(Names::Find<Node>("gpu" + std::to_string(gpus - 1)), m_tree.GetGpuByRank(gpus - 1));
    EXPECT_EQ(Names::Find<Node>("leaf" + std::to_string(leaves - 1)), m_tree.GetLeaf(leaves - 1));
    EXPECT_EQ(Names::Find<Node>("spine" + std::to_string(spines - 1)), m_tree.GetSpine(spines - 1));

    // One summary line with the sizes and the bisection bandwidth.
    const std::string summary = m_tree.Summary();
    EXPECT_EQ(summary.find('\n'), std::string::npos);
    for (const std::string& w :
         {std::string("2-tier"),
          std::to_string(gpus) + " GPUs (" + std::to_string(gpus) + " servers x 1)",
          std::to_string(leaves) + " leaves",
          std::to_string(spines) + " spines",
          std::to_string(gpus + leaves * spines) + " links"})
    {
        EXPECT_NE(summary.find(w), std::string::npos) << "'" << w << "' not in: " << summary;
    }
    // 8 x 400 Gb/s (the DataRate default) = 3.2 Tb/s
    ASSERT_EQ(rate, DataRate("400Gb/s"));
    EXPECT_NE(summary.find("bisection 3.20 Tb/s"), std::string::npos) << summary;
}

// 2-tier at 3:1 (k = 8: 6 host ports, 2 uplinks): 2 spines, routes across leaves over both;
// the bisection is the leaves' uplinks on one side: (N/2) x up/down links.
TEST_F(FatTreeHelperTest, TwoTierOversubscribed)
{
    const uint32_t k = 8;
    const uint32_t down = k * 3 / 4;
    const uint32_t up = k / 4;
    const uint32_t gpus = 4 * down;
    Build({2, gpus, 1, k, 3, 1, false});
    ASSERT_EQ(m_tree.GetNLeafDownLinks(), down);
    ASSERT_EQ(m_tree.GetNLeafUpLinks(), up);
    ASSERT_EQ(m_tree.GetNLeaves(), gpus / down);
    ASSERT_EQ(m_tree.GetNSpines(), up);
    EXPECT_EQ(m_tree.GetNLinks(), gpus + m_tree.GetNLeaves() * up);
    for (uint32_t l = 0; l < m_tree.GetNLeaves(); ++l)
    {
        EXPECT_EQ(Sw(m_tree.GetLeaf(l))->GetNPorts(), k);
        const uint32_t remote = ((l + 1) % m_tree.GetNLeaves()) * down;
        const std::vector<uint32_t> route = Route(m_tree.GetLeaf(l), remote);
        ASSERT_EQ(route.size(), up);
        EXPECT_EQ(Neighbours(m_tree.GetLeaf(l), route), Spines());
    }
    const uint64_t rate = m_tree.GetLinkRate().GetBitRate();
    EXPECT_EQ(m_tree.GetBisectionBandwidth().GetBitRate(), gpus / 2 * up / down * rate);
    EXPECT_EQ(MaxFlowBetweenHalves(m_tree, m_fabric), static_cast<long>(gpus / 2 * up / down));

    // 4:1 over 4 full leaves (k = 10: 8 down, 2 up): a quarter of the non-blocking figure.
    FatTreeHelper quarter = MakeTree({2, 32, 1, 10, 4, 1, false});
    ASSERT_EQ(quarter.Check(), "");
    EXPECT_EQ(quarter.GetBisectionBandwidth().GetBitRate() * 4,
              quarter.GetNGpus() / 2 * quarter.GetLinkRate().GetBitRate());
}

// 3-tier k = 4, full (k^3/4 = 16 GPUs): 4 pods of 2 leaves and 2 aggregation switches, 4 cores;
// aggregation switch j of every pod on cores j*k/2 .. j*k/2 + k/2 - 1; routes over k/2 ports
// going up, one port going down; every switch reaches every GPU.
TEST_F(FatTreeHelperTest, ThreeTierFull)
{
    const uint32_t k = 4;
    const uint32_t half = k / 2;
    const uint32_t gpus = k * k * k / 4;
    Build({3, gpus, 1, k, 1, 1, false});
    ASSERT_EQ(m_tree.GetNPods(), k);
    ASSERT_EQ(m_tree.GetNLeaves(), k * half);
    ASSERT_EQ(m_tree.GetNLeavesPerPod(), half);
    ASSERT_EQ(m_tree.GetNAggregationsPerPod(), half);
    ASSERT_EQ(m_tree.GetNAggregations(), k * half);
    ASSERT_EQ(m_tree.GetNCores(), half * half);
    EXPECT_EQ(m_tree.GetNSpines(), 0u);
    EXPECT_EQ(m_tree.GetNSwitches(), 5 * k * k / 4);
    const uint64_t links = gpus + m_tree.GetNLeaves() * half + m_tree.GetNAggregations() * half;
    EXPECT_EQ(m_tree.GetNLinks(), links);
    EXPECT_EQ(m_fabric.GetTopology()->GetNLinks(), links);

    // Wiring.
    for (uint32_t l = 0; l < m_tree.GetNLeaves(); ++l)
    {
        EXPECT_EQ(m_tree.GetPodOfLeaf(l), l / half);
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t j = 0; j < half; ++j)
        {
            Ptr<Node> agg = m_tree.GetAggregation(p, j);
            EXPECT_EQ(Sw(agg)->GetNPorts(), k);
            std::set<Ptr<Node>> expected;
            for (uint32_t l = p * half; l < (p + 1) * half; ++l)
            {
                expected.insert(m_tree.GetLeaf(l));
            }
            for (uint32_t c = j * half; c < (j + 1) * half; ++c)
            {
                expected.insert(m_tree.GetCore(c));
            }
            EXPECT_EQ(AllNeighbours(agg), expected) << "pod " << p << " agg " << j;
        }
    }
    for (uint32_t c = 0; c < m_tree.GetNCores(); ++c)
    {
        EXPECT_EQ(Sw(m_tree.GetCore(c))->GetNPorts(), k);
    }

    // Routes.
    for (uint32_t l = 0; l < m_tree.GetNLeaves(); ++l)
    {
        Ptr<Node> leaf = m_tree.GetLeaf(l);
        for (uint32_t r = 0; r < gpus; ++r)
        {
            const std::vector<uint32_t> route = Route(leaf, r);
            if (m_tree.GetLeafOfGpu(r) == l)
            {
                EXPECT_EQ(route.size(), 1u);
            }
            else
            {
                ASSERT_EQ(route.size(), half) << "leaf " << l << " gpu " << r;
                EXPECT_EQ(Neighbours(leaf, route), Aggregations(m_tree.GetPodOfLeaf(l)));
            }
        }
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t j = 0; j < half; ++j)
        {
            Ptr<Node> agg = m_tree.GetAggregation(p, j);
            for (uint32_t r = 0; r < gpus; ++r)
            {
                const std::vector<uint32_t> route = Route(agg, r);
                if (PodOfGpu(r) == p)
                {
                    ASSERT_EQ(route.size(), 1u);
                    EXPECT_EQ(Neighbours(agg, route),
                              std::set<Ptr<Node>>{m_tree.GetLeaf(m_tree.GetLeafOfGpu(r))});
                }
                else
                {
                    ASSERT_EQ(route.size(), half) << "pod " << p << " agg " << j << " gpu " << r;
                }
            }
        }
    }
    for (uint32_t c = 0; c < m_tree.GetNCores(); ++c)
    {
        for (uint32_t r = 0; r < gpus; ++r)
        {
            const std::vector<uint32_t> route = Route(m_tree.GetCore(c), r);
            ASSERT_EQ(route.size(), 1u) << "core " << c << " gpu " << r;
            EXPECT_EQ(Neighbours(m_tree.GetCore(c), route),
                      std::set<Ptr<Node>>{m_tree.GetAggregation(PodOfGpu(r), c / half)});
        }
    }

    EXPECT_EQ(m_tree.GetBisectionBandwidth().GetBitRate(),
              gpus / 2 * m_tree.GetLinkRate().GetBitRate());
    EXPECT_EQ(MaxFlowBetweenHalves(m_tree, m_fabric), static_cast<long>(gpus / 2));
    EXPECT_EQ(Names::Find<Node>("pod1-agg0"), m_tree.GetAggregation(1, 0));
    EXPECT_EQ(Names::Find<Node>("core3"), m_tree.GetCore(3));
    const std::string summary = m_tree.Summary();
    for (const std::string& w : {std::string("3-tier"),
                                 std::to_string(m_tree.GetNLeaves()) + " leaves",
                                 std::to_string(m_tree.GetNAggregations()) + " aggregation",
                                 std::to_string(m_tree.GetNCores()) + " core",
                                 std::to_string(links) + " links"})
    {
        EXPECT_NE(summary.find(w), std::string::npos) << "'" << w << "' not in: " << summary;
    }
}

// Rail-optimized, 4 servers x 4 GPUs, k = 8: one group of 4 servers, 4 rail leaves; local GPU i
// of every server is on leaf i. With 6 servers there are two groups, the second half full.
TEST_F(FatTreeHelperTest, RailOptimized)
{
    const uint32_t k = 8;
    const uint32_t down = k / 2;
    const uint32_t servers = 4;
    const uint32_t local = 4;
    Build({2, servers, local, k, 1, 1, true});
    ASSERT_EQ(m_tree.GetNLeaves(), local);
    for (uint32_t s = 0; s < servers; ++s)
    {
        for (uint32_t i = 0; i < local; ++i)
        {
            const uint32_t rank = s * local + i;
            EXPECT_EQ(m_tree.GetGpu(s, i), m_tree.GetGpuByRank(rank));
            EXPECT_EQ(m_tree.GetLeafOfGpu(rank), i) << "server " << s << " gpu " << i;
            EXPECT_EQ(Peer(m_fabric.GetNic(m_tree.GetGpu(s, i))), m_tree.GetLeaf(i));
            // Same rail: one hop through the leaf; another rail: through the spines.
            const uint32_t sameRail = ((s + 1) % servers) * local + i;
            EXPECT_EQ(Route(m_tree.GetLeaf(i), sameRail).size(), 1u);
            const uint32_t otherRail = s * local + (i + 1) % local;
            EXPECT_EQ(Route(m_tree.GetLeaf(i), otherRail).size(), m_tree.GetNSpines());
        }
    }
    EXPECT_EQ(MaxFlowBetweenHalves(m_tree, m_fabric) * m_tree.GetLinkRate().GetBitRate(),
              m_tree.GetBisectionBandwidth().GetBitRate());

    // Two groups, the second with 2 of its 4 servers: leaf g * local + i holds GPU i of the
    // servers of group g.
    FatTreeHelper partial = MakeTree({2, 6, local, k, 1, 1, true});
    ASSERT_EQ(partial.Check(), "");
    ASSERT_EQ(partial.GetNLeaves(), 2 * local);
    for (uint32_t s = 0; s < 6; ++s)
    {
        for (uint32_t i = 0; i < local; ++i)
        {
            EXPECT_EQ(partial.GetLeafOfGpu(s * local + i), (s / down) * local + i);
        }
    }
}

// Four NICs for eight GPUs (rail-optimized, 4 servers, k = 8): NIC j of a server sits on its
// GPU 2j and serves GPUs 2j and 2j + 1 (NCCL's GPU pair under one PCIe switch); the tree has
// 4 rails, one host link per NIC, and the odd GPUs' nodes have no NIC. The bisection counts
// NICs. A count that does not divide the GPUs is refused.
TEST_F(FatTreeHelperTest, NicsSharedByGpus)
{
    FatTreeHelper tree = MakeTree({2, 4, 8, 8, 1, 1, true});
    tree.SetNicsPerServer(4);
    ASSERT_EQ(tree.Check(), "");
    EXPECT_EQ(tree.GetNGpus(), 32u);
    EXPECT_EQ(tree.GetNicsPerServer(), 4u);
    EXPECT_EQ(tree.GetNLeaves(), 4u);
    EXPECT_EQ(tree.GetNLinks(), 16u + 4 * 4); // 16 NIC links, 4 uplinks per leaf
    EXPECT_NE(tree.Summary().find("4 servers x 8, 4 NICs each"), std::string::npos)
        << tree.Summary();
    tree.Install(m_fabric);
    ASSERT_EQ(tree.GetNics().GetN(), 16u);
    for (uint32_t r = 0; r < 32; ++r)
    {
        const uint32_t server = r / 8;
        const uint32_t nic = (r % 8) / 2;
        EXPECT_EQ(tree.GetNicNode(r), tree.GetGpu(server, 2 * nic)) << r;
        EXPECT_EQ(tree.GetLeafOfGpu(r), nic) << r;
        EXPECT_EQ(Peer(m_fabric.GetNic(tree.GetNicNode(r))), tree.GetLeaf(nic)) << r;
        EXPECT_EQ(tree.GetGpuByRank(r)->GetNDevices(), r % 2 == 0 ? 1u : 0u) << r;
    }
    EXPECT_EQ(tree.GetBisectionBandwidth().GetBitRate(), 8 * tree.GetLinkRate().GetBitRate());
    FatTreeHelper bad = MakeTree({2, 4, 8, 8, 1, 1, true});
    bad.SetNicsPerServer(3);
    EXPECT_EQ(bad.Check(),
              "nicsPerServer 3 must divide gpusPerServer 8 (each NIC serves the same number of "
              "GPUs)");
}

// The helper's bisection formula equals a max-flow computed by Boost on the built graph, for
// trees with partly filled leaves and pods, an odd GPU count, oversubscription in 2 and 3
// tiers, and rail groups; leaf port counts match the placement.
TEST_F(FatTreeHelperTest, BisectionMatchesMaxFlow)
{
    const std::vector<TreeParams> trees = {
        {2, 16, 1, 8, 1, 1, false},  // non-blocking
        {2, 15, 1, 8, 3, 1, false},  // 3:1, last leaf partly filled, odd N
        {2, 10, 1, 8, 1, 1, false},  // 3 leaves, the last with 2 GPUs
        {2, 32, 1, 10, 4, 1, false}, // 4:1
        {2, 5, 3, 8, 1, 1, false},   // servers straddle leaves
        {3, 16, 1, 4, 1, 1, false},  // full k=4
        {3, 12, 1, 4, 1, 1, false},  // 3 pods
        {3, 30, 1, 6, 2, 1, false},  // 2:1, 8 leaves in 3 pods of 3
        {3, 50, 1, 8, 3, 1, false},  // 3:1
        {2, 6, 4, 8, 1, 1, true},    // rail, partial second group
        {3, 20, 2, 8, 1, 1, true},   // rail, 2 groups per pod, 3 pods
        {3, 7, 3, 8, 3, 1, true},    // rail 3:1, one group of 3 rails per pod
    };
    for (const TreeParams& p : trees)
    {
        RoceFabricHelper fabric;
        FatTreeHelper tree = MakeTree(p);
        ASSERT_EQ(tree.Check(), "");
        const DataRate before = tree.GetBisectionBandwidth();
        tree.Install(fabric);
        const std::string what = tree.Summary();
        EXPECT_EQ(tree.GetBisectionBandwidth(), before) << what;
        EXPECT_EQ(MaxFlowBetweenHalves(tree, fabric) * tree.GetLinkRate().GetBitRate(),
                  tree.GetBisectionBandwidth().GetBitRate())
            << what;
        EXPECT_EQ(fabric.GetTopology()->GetNLinks(), tree.GetNLinks()) << what;
        std::vector<uint32_t> onLeaf(tree.GetNLeaves(), 0);
        for (uint32_t r = 0; r < tree.GetNGpus(); ++r)
        {
            ++onLeaf[tree.GetLeafOfGpu(r)];
            EXPECT_EQ(Peer(fabric.GetNic(tree.GetGpuByRank(r))), tree.GetLeaf(tree.GetLeafOfGpu(r)))
                << what;
        }
        for (uint32_t l = 0; l < tree.GetNLeaves(); ++l)
        {
            EXPECT_LE(onLeaf[l], tree.GetNLeafDownLinks()) << what;
            EXPECT_GT(onLeaf[l], 0u) << what;
            EXPECT_EQ(Sw(tree.GetLeaf(l))->GetNPorts(), onLeaf[l] + tree.GetNLeafUpLinks()) << what;
        }
        Simulator::Destroy();
        Names::Clear();
    }
}

// The link rate: SetLinkRate() reaches every port; otherwise the fabric's DataRate is read back.
TEST_F(FatTreeHelperTest, LinkRate)
{
    m_tree = MakeTree({2, 8, 1, 8, 1, 1, false});
    m_tree.SetLinkRate(DataRate("100Gb/s"));
    m_tree.Install(m_fabric);
    EXPECT_EQ(m_fabric.GetNic(m_tree.GetGpuByRank(0))->GetDataRate(), DataRate("100Gb/s"));
    EXPECT_EQ(Sw(m_tree.GetSpine(0))->GetPort(0)->GetDataRate(), DataRate("100Gb/s"));
    EXPECT_EQ(m_tree.GetBisectionBandwidth().GetBitRate(),
              m_tree.GetNGpus() / 2 * DataRate("100Gb/s").GetBitRate());
    Simulator::Destroy();
    Names::Clear();

    RoceFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate("200Gb/s")));
    FatTreeHelper tree = MakeTree({2, 8, 1, 8, 1, 1, false});
    tree.Install(fabric);
    EXPECT_EQ(tree.GetLinkRate(), DataRate("200Gb/s"));
}

// An RDMA write between GPUs in different pods of a k = 4 3-tier completes with nothing dropped;
// every frame crosses exactly one core switch and two aggregation switches.
TEST_F(FatTreeHelperTest, RdmaWriteAcrossPods)
{
    const uint32_t k = 4;
    Build({3, k * k * k / 4, 1, k, 1, 1, false});
    m_fabric.AssignStreams(1);
    const uint32_t src = 0;
    const uint32_t dst = m_tree.GetNGpus() - 1;
    ASSERT_NE(PodOfGpu(src), PodOfGpu(dst));

    const uint32_t qps = 4;
    const uint64_t bytes = 64 * 1024;
    Ptr<RdmaTransport> ts = m_fabric.GetTransport(m_tree.GetGpuByRank(src));
    Ptr<RdmaTransport> td = m_fabric.GetTransport(m_tree.GetGpuByRank(dst));
    uint32_t successes = 0;
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t q = 0; q < qps; ++q)
    {
        Ptr<RdmaQueuePair> a = ts->CreateQueuePair();
        Ptr<RdmaQueuePair> b = td->CreateQueuePair();
        ts->ConnectQueuePairs(a, b, td);
        a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
            [&successes](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
            { successes += c.status == RdmaCompletionStatus::SUCCESS ? 1 : 0; }));
        a->PostWrite(bytes, q);
        responders.push_back(b);
    }
    uint64_t frames = 0; // every frame either NIC starts on the wire: data and ACKs
    auto count = Callback<void, Ptr<const Packet>>([&frames](Ptr<const Packet>) { ++frames; });
    m_fabric.GetNic(m_tree.GetGpuByRank(src))->TraceConnectWithoutContext("PhyTxBegin", count);
    m_fabric.GetNic(m_tree.GetGpuByRank(dst))->TraceConnectWithoutContext("PhyTxBegin", count);
    Simulator::Run();

    EXPECT_EQ(successes, qps);
    EXPECT_EQ(TotalDrops(), 0u);
    for (const auto& b : responders)
    {
        EXPECT_EQ(b->GetDeliveredBytes(), bytes);
    }
    ASSERT_GT(frames, 0u);
    uint64_t viaCores = 0;
    for (uint32_t c = 0; c < m_tree.GetNCores(); ++c)
    {
        viaCores += Sw(m_tree.GetCore(c))->GetForwardedPackets();
    }
    uint64_t viaAggregations = 0;
    for (uint32_t p = 0; p < m_tree.GetNPods(); ++p)
    {
        for (uint32_t j = 0; j < m_tree.GetNAggregationsPerPod(); ++j)
        {
            viaAggregations += Sw(m_tree.GetAggregation(p, j))->GetForwardedPackets();
        }
    }
    EXPECT_EQ(viaCores, frames);
    EXPECT_EQ(viaAggregations, 2 * frames);
}
