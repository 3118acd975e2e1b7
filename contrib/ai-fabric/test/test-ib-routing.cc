/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The subnet manager's routing engines: every pair routed by every engine on a 3-tier k-ary
// fat-tree; fat-tree routing spreads destinations evenly over up-links and brings every
// destination down from one core; up-down routing has no cycle of credit dependencies on a
// ring of switches, where min-hop has one.

#include "ai-fabric-test-fixture.h"
#include "ns3/fabric-channel.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-switch.h"
#include "ns3/node-container.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

using namespace ns3;

namespace
{

class IbRoutingTest : public AiFabricTest
{
};

/**
 * \brief Follow the LFTs from one host to another.
 * \param fabric the fabric
 * \param src source host
 * \param dst destination host
 * \param offset added to the destination's base LID (LMC path bits)
 * \return the egress ports crossed, the source's first; empty if a switch has no route or
 *         the walk loops
 */
std::vector<Ptr<FabricNetDevice>>
Walk(const IbFabricHelper& fabric, Ptr<Node> src, Ptr<Node> dst, uint16_t offset = 0)
{
    std::vector<Ptr<FabricNetDevice>> path;
    const uint16_t dlid = fabric.GetLid(dst) + offset;
    Ptr<FabricNetDevice> port = fabric.GetHostPort(src);
    while (path.size() < 16)
    {
        path.push_back(port);
        Ptr<FabricNetDevice> peer = port->GetFabricChannel()->GetPeer(PeekPointer(port));
        Ptr<IbSwitch> sw = peer->GetNode()->GetObject<IbSwitch>();
        if (!sw)
        {
            return peer == fabric.GetHostPort(dst) ? path : std::vector<Ptr<FabricNetDevice>>{};
        }
        if (dlid >= sw->GetLft().size() || sw->GetLft()[dlid] == IbSwitch::NO_PORT)
        {
            return {};
        }
        port = sw->GetPort(sw->GetLft()[dlid]);
    }
    return {};
}

/**
 * \param paths routes as lists of egress ports
 * \return true if the channel dependency graph (an edge from each egress port to the next on
 *         some route) has a cycle
 */
bool
HasCreditLoop(const std::vector<std::vector<Ptr<FabricNetDevice>>>& paths)
{
    std::map<FabricNetDevice*, std::set<FabricNetDevice*>> next;
    for (const auto& path : paths)
    {
        for (std::size_t i = 1; i < path.size(); ++i)
        {
            next[PeekPointer(path[i - 1])].insert(PeekPointer(path[i]));
        }
    }
    std::map<FabricNetDevice*, int> state; // 0 new, 1 on the stack, 2 done
    std::function<bool(FabricNetDevice*)> visit = [&](FabricNetDevice* v)
    {
        state[v] = 1;
        for (FabricNetDevice* u : next[v])
        {
            if (state[u] == 1 || (state[u] == 0 && visit(u)))
            {
                return true;
            }
        }
        state[v] = 2;
        return false;
    };
    for (const auto& [v, out] : next)
    {
        if (state[v] == 0 && visit(v))
        {
            return true;
        }
    }
    return false;
}

} // namespace

// Every engine routes every pair of a 3-tier k = 4 fat-tree (16 hosts) over a shortest path.
TEST_F(IbRoutingTest, EveryEngineRoutesEveryPair)
{
    for (const std::string engine : {"minhop", "ftree", "updn"})
    {
        FatTreeHelper tree;
        tree.SetTiers(3);
        tree.SetRadix(4);
        tree.SetServers(16);
        IbFabricHelper fabric;
        ASSERT_TRUE(fabric.SetRoutingEngine(engine));
        tree.Install(fabric);
        const NodeContainer gpus = tree.GetGpus();
        for (uint32_t s = 0; s < gpus.GetN(); ++s)
        {
            for (uint32_t d = 0; d < gpus.GetN(); ++d)
            {
                if (s == d)
                {
                    continue;
                }
                const auto path = Walk(fabric, gpus.Get(s), gpus.Get(d));
                ASSERT_FALSE(path.empty()) << engine << ": " << s << " -> " << d;
                // Same leaf: 2 hops; same pod: 4; across pods: 6.
                EXPECT_LE(path.size(), 6u) << engine;
            }
        }
        Simulator::Destroy();
    }
    EXPECT_FALSE(IbFabricHelper().SetRoutingEngine("bogus"));
}

// Fat-tree routing (d-mod-k) on a 3-tier k = 4 fat-tree: at every leaf and every aggregation
// switch, the destinations routed up spread evenly over the up-links (counts differ by at
// most one), and all routes to a destination from other pods come down from one core.
TEST_F(IbRoutingTest, FatTreeRoutingSpreadsAndConverges)
{
    FatTreeHelper tree;
    tree.SetTiers(3);
    tree.SetRadix(4);
    tree.SetServers(16);
    IbFabricHelper fabric;
    fabric.SetRoutingEngine("ftree");
    tree.Install(fabric);
    const NodeContainer gpus = tree.GetGpus();
    // Per switch, per up-port: destinations routed through it.
    std::map<Ptr<Node>, std::map<uint16_t, uint32_t>> upCounts;
    for (uint32_t d = 0; d < gpus.GetN(); ++d)
    {
        std::set<Ptr<Node>> cores;
        for (uint32_t s = 0; s < gpus.GetN(); ++s)
        {
            if (s == d)
            {
                continue;
            }
            const auto path = Walk(fabric, gpus.Get(s), gpus.Get(d));
            const uint32_t perPod = tree.GetNLeavesPerPod();
            const bool otherPod = tree.GetLeafOfGpu(s) / perPod != tree.GetLeafOfGpu(d) / perPod;
            ASSERT_EQ(path.size() == 6, otherPod) << s << " -> " << d;
            if (path.size() == 6)
            {
                cores.insert(path[3]->GetNode()); // host, leaf, aggregation, core egress
            }
        }
        EXPECT_EQ(cores.size(), 1u) << "destination " << d;
    }
    // A leaf's up-links lead to aggregation switches, an aggregation switch's to cores.
    std::set<Ptr<Node>> upper;
    std::vector<Ptr<Node>> routed;
    for (uint32_t p = 0; p < tree.GetNPods(); ++p)
    {
        for (uint32_t j = 0; j < tree.GetNAggregationsPerPod(); ++j)
        {
            routed.push_back(tree.GetAggregation(p, j));
            upper.insert(tree.GetAggregation(p, j));
        }
    }
    for (uint32_t i = 0; i < tree.GetNLeaves(); ++i)
    {
        routed.push_back(tree.GetLeaf(i));
    }
    std::set<Ptr<Node>> cores;
    for (uint32_t c = 0; c < tree.GetNCores(); ++c)
    {
        cores.insert(tree.GetCore(c));
    }
    for (Ptr<Node> sw : routed)
    {
        const bool leaf = upper.count(sw) == 0;
        Ptr<IbSwitch> ib = sw->GetObject<IbSwitch>();
        std::map<uint16_t, uint32_t> perPort;
        for (uint32_t d = 0; d < gpus.GetN(); ++d)
        {
            const uint16_t port = ib->GetLft()[fabric.GetLid(gpus.Get(d))];
            Ptr<FabricNetDevice> dev = ib->GetPort(port);
            Ptr<Node> peer = dev->GetFabricChannel()->GetPeer(PeekPointer(dev))->GetNode();
            if ((leaf ? upper : cores).count(peer))
            {
                ++perPort[port];
            }
        }
        ASSERT_EQ(perPort.size(), 2u) << (leaf ? "leaf" : "aggregation");
        EXPECT_EQ(perPort.begin()->second, perPort.rbegin()->second);
    }
}

// LMC 2: every host has four LIDs, every LID of every destination is routed from every host
// by every engine, a destination's LIDs leave a leaf over both of its up-links, and with fat-
// tree routing the four LIDs of a host in another pod take four different paths.
TEST_F(IbRoutingTest, LmcRoutesEveryLidOnItsOwnPath)
{
    for (const std::string engine : {"minhop", "ftree", "updn"})
    {
        FatTreeHelper tree;
        tree.SetTiers(3);
        tree.SetRadix(4);
        tree.SetServers(16);
        IbFabricHelper fabric;
        ASSERT_TRUE(fabric.SetRoutingEngine(engine));
        ASSERT_TRUE(fabric.SetLmc(2));
        tree.Install(fabric);
        EXPECT_FALSE(fabric.SetLmc(1)); // the LIDs are handed out
        const NodeContainer gpus = tree.GetGpus();
        for (uint32_t d = 0; d < gpus.GetN(); ++d)
        {
            EXPECT_EQ(fabric.GetLid(gpus.Get(d)), (d + 1) * 4) << engine;
        }
        const uint32_t perPod = tree.GetNLeavesPerPod();
        for (uint32_t s = 0; s < gpus.GetN(); ++s)
        {
            for (uint32_t d = 0; d < gpus.GetN(); ++d)
            {
                if (tree.GetLeafOfGpu(s) == tree.GetLeafOfGpu(d))
                {
                    continue;
                }
                std::set<Ptr<FabricNetDevice>> leafUps;
                std::set<std::vector<Ptr<FabricNetDevice>>> paths;
                for (uint16_t j = 0; j < 4; ++j)
                {
                    const auto path = Walk(fabric, gpus.Get(s), gpus.Get(d), j);
                    ASSERT_FALSE(path.empty()) << engine << ": " << s << " -> " << d << "." << j;
                    leafUps.insert(path[1]);
                    paths.insert(path);
                }
                EXPECT_EQ(leafUps.size(), 2u) << engine << ": " << s << " -> " << d;
                const bool otherPod
                    = tree.GetLeafOfGpu(s) / perPod != tree.GetLeafOfGpu(d) / perPod;
                if (engine == "ftree" && otherPod)
                {
                    EXPECT_EQ(paths.size(), 4u) << s << " -> " << d;
                }
            }
        }
        Simulator::Destroy();
    }
    IbFabricHelper fabric;
    EXPECT_FALSE(fabric.SetLmc(8));
    EXPECT_TRUE(fabric.SetLmc(7));
}

// A ring of four switches, a host on each: min-hop's shortest paths go round the ring in both
// directions and close a cycle of credit dependencies (a deadlock waiting to happen under
// load); up-down routing's routes have none, and still reach every host.
TEST_F(IbRoutingTest, UpDownHasNoCreditLoopOnARing)
{
    for (const std::string engine : {"minhop", "updn"})
    {
        NodeContainer hosts;
        hosts.Create(4);
        NodeContainer switches;
        switches.Create(4);
        IbFabricHelper fabric;
        fabric.SetRoutingEngine(engine);
        fabric.InstallHosts(hosts);
        fabric.InstallSwitches(switches);
        for (uint32_t i = 0; i < 4; ++i)
        {
            fabric.Connect(hosts.Get(i), switches.Get(i));
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            fabric.Connect(switches.Get(i), switches.Get((i + 1) % 4));
        }
        fabric.ComputeRoutes();
        std::vector<std::vector<Ptr<FabricNetDevice>>> paths;
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (uint32_t d = 0; d < 4; ++d)
            {
                if (s != d)
                {
                    paths.push_back(Walk(fabric, hosts.Get(s), hosts.Get(d)));
                    ASSERT_FALSE(paths.back().empty()) << engine << ": " << s << " -> " << d;
                }
            }
        }
        EXPECT_EQ(HasCreditLoop(paths), engine == "minhop") << engine;
        Simulator::Destroy();
    }
}

// Up-down routing on a 3 x 3 mesh of switches (a host on each): every pair is routed and the
// channel dependency graph has no cycle, on a topology with many equal paths and no natural
// top.
TEST_F(IbRoutingTest, UpDownHasNoCreditLoopOnAMesh)
{
    NodeContainer hosts;
    hosts.Create(9);
    NodeContainer switches;
    switches.Create(9);
    IbFabricHelper fabric;
    fabric.SetRoutingEngine("updn");
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(switches);
    for (uint32_t i = 0; i < 9; ++i)
    {
        fabric.Connect(hosts.Get(i), switches.Get(i));
    }
    for (uint32_t r = 0; r < 3; ++r)
    {
        for (uint32_t c = 0; c < 3; ++c)
        {
            if (c + 1 < 3)
            {
                fabric.Connect(switches.Get(3 * r + c), switches.Get(3 * r + c + 1));
            }
            if (r + 1 < 3)
            {
                fabric.Connect(switches.Get(3 * r + c), switches.Get(3 * (r + 1) + c));
            }
        }
    }
    fabric.ComputeRoutes();
    std::vector<std::vector<Ptr<FabricNetDevice>>> paths;
    for (uint32_t s = 0; s < 9; ++s)
    {
        for (uint32_t d = 0; d < 9; ++d)
        {
            if (s != d)
            {
                paths.push_back(Walk(fabric, hosts.Get(s), hosts.Get(d)));
                ASSERT_FALSE(paths.back().empty()) << s << " -> " << d;
            }
        }
    }
    EXPECT_FALSE(HasCreditLoop(paths));
}
