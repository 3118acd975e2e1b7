/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// EcmpRoutingEngine and RoceSwitch forwarding on a two-tier leaf-spine built by
// RoceFabricHelper: ECMP groups, the 5-tuple hash, rerouting around a failed link, and RDMA
// traffic across the spines.

#include "ai-fabric-test-fixture.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// Hosts under each leaf
constexpr uint32_t HOSTS_PER_LEAF = 4;
/// Leaves
constexpr uint32_t LEAVES = 2;
/// Spines
constexpr uint32_t SPINES = 3;
/// IPv4 protocol number of UDP
constexpr uint8_t UDP = 17;

class EcmpRoutingTest : public AiFabricTest
{
  protected:
    /// Build the leaf-spine: host i under leaf i / HOSTS_PER_LEAF, every leaf to every spine.
    void Build()
    {
        m_hosts.Create(HOSTS_PER_LEAF * LEAVES);
        m_leaves.Create(LEAVES);
        m_spines.Create(SPINES);
        m_fabric.InstallHosts(m_hosts);
        m_fabric.InstallSwitches(m_leaves);
        m_fabric.InstallSwitches(m_spines);
        for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
        {
            m_fabric.Connect(m_hosts.Get(h), m_leaves.Get(h / HOSTS_PER_LEAF));
        }
        for (uint32_t l = 0; l < LEAVES; ++l)
        {
            for (uint32_t s = 0; s < SPINES; ++s)
            {
                m_fabric.Connect(m_leaves.Get(l), m_spines.Get(s));
                m_leafSpine[{l, s}] = m_fabric.GetChannels().back();
            }
        }
        m_fabric.ComputeRoutes();
        m_fabric.AssignStreams(1);
    }

    /**
     * \param l leaf index
     * \return its forwarding object
     */
    Ptr<RoceSwitch> Leaf(uint32_t l) const
    {
        return m_leaves.Get(l)->GetObject<RoceSwitch>();
    }

    /**
     * \param s spine index
     * \return its forwarding object
     */
    Ptr<RoceSwitch> Spine(uint32_t s) const
    {
        return m_spines.Get(s)->GetObject<RoceSwitch>();
    }

    /**
     * \param h host index
     * \return its address
     */
    Ipv4Address Address(uint32_t h) const
    {
        return m_fabric.GetAddress(m_hosts.Get(h));
    }

    /**
     * \param sw a switch
     * \param port one of its ports
     * \return the node at the other end of that port's cable
     */
    static Ptr<Node> Neighbour(Ptr<RoceSwitch> sw, uint32_t port)
    {
        Ptr<RoceNetDevice> dev = sw->GetPort(port);
        return dev->GetFabricChannel()->GetPeer(PeekPointer(dev))->GetNode();
    }

    /**
     * \param sw a switch
     * \param ports some of its ports
     * \return the neighbours behind them
     */
    static std::set<Ptr<Node>> Neighbours(Ptr<RoceSwitch> sw, const std::vector<uint32_t>& ports)
    {
        std::set<Ptr<Node>> n;
        for (uint32_t p : ports)
        {
            n.insert(Neighbour(sw, p));
        }
        return n;
    }

    /**
     * \param except a spine to leave out (SPINES for none)
     * \return the spine nodes
     */
    std::set<Ptr<Node>> SpineNodes(uint32_t except = SPINES) const
    {
        std::set<Ptr<Node>> n;
        for (uint32_t s = 0; s < SPINES; ++s)
        {
            if (s != except)
            {
                n.insert(m_spines.Get(s));
            }
        }
        return n;
    }

    /**
     * \param node a node
     * \return the spine index of that node, or SPINES if it is not a spine
     */
    uint32_t SpineIndex(Ptr<Node> node) const
    {
        for (uint32_t s = 0; s < SPINES; ++s)
        {
            if (m_spines.Get(s) == node)
            {
                return s;
            }
        }
        return SPINES;
    }

    /// \return frames dropped anywhere in the fabric, for any reason
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

    /// Outcome of RDMA writes between two hosts
    struct WriteResult
    {
        std::vector<Ptr<RdmaQueuePair>> requesters; //!< QPs on the source
        std::vector<Ptr<RdmaQueuePair>> responders; //!< QPs on the destination
        uint32_t successes{0};                      //!< completions with SUCCESS
        uint64_t dataFrames{0};                     //!< data frames the source sent
        uint64_t ackFrames{0};                      //!< ACK frames the destination sent
    };

    /**
     * \brief Write from one host to another over several QPs and run the simulation.
     * \param src source host index
     * \param dst destination host index
     * \param qps number of QP pairs
     * \param bytes bytes per QP
     * \return what happened
     */
    WriteResult Write(uint32_t src, uint32_t dst, uint32_t qps, uint64_t bytes)
    {
        WriteResult r;
        Ptr<RdmaTransport> ts = m_fabric.GetTransport(m_hosts.Get(src));
        Ptr<RdmaTransport> td = m_fabric.GetTransport(m_hosts.Get(dst));
        for (uint32_t q = 0; q < qps; ++q)
        {
            Ptr<RdmaQueuePair> a = ts->CreateQueuePair();
            Ptr<RdmaQueuePair> b = td->CreateQueuePair();
            ts->ConnectQueuePairs(a, b, td);
            a->SetCompletionCallback(Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&>(
                [&r](Ptr<RdmaQueuePair>, const RdmaCompletion& c)
                { r.successes += c.status == RdmaCompletionStatus::SUCCESS ? 1 : 0; }));
            a->PostWrite(bytes, q);
            r.requesters.push_back(a);
            r.responders.push_back(b);
        }
        // Count frames by their BTH opcode as they start on the wire.
        auto counter = [](uint64_t& n, std::function<bool(uint8_t)> match)
        {
            return Callback<void, Ptr<const Packet>>(
                [&n, match](Ptr<const Packet> p)
                {
                    uint8_t b[RoceNetDevice::ENCAPSULATION_BYTES + 1];
                    p->CopyData(b, sizeof(b));
                    n += match(b[RoceNetDevice::ENCAPSULATION_BYTES]) ? 1 : 0;
                });
        };
        auto isWrite = [](uint8_t op)
        {
            return op == RC_RDMA_WRITE_FIRST || op == RC_RDMA_WRITE_MIDDLE
                   || op == RC_RDMA_WRITE_LAST || op == RC_RDMA_WRITE_ONLY;
        };
        auto isAck = [](uint8_t op) { return op == RC_ACKNOWLEDGE; };
        uint64_t dataFrames = 0;
        uint64_t acks = 0;
        Ptr<RoceNetDevice> srcNic = m_fabric.GetNic(m_hosts.Get(src));
        Ptr<RoceNetDevice> dstNic = m_fabric.GetNic(m_hosts.Get(dst));
        srcNic->TraceConnectWithoutContext("PhyTxBegin", counter(dataFrames, isWrite));
        dstNic->TraceConnectWithoutContext("PhyTxBegin", counter(acks, isAck));
        Simulator::Run();
        r.dataFrames = dataFrames;
        r.ackFrames = acks;
        return r;
    }

    NodeContainer m_hosts;                                                   //!< hosts
    NodeContainer m_leaves;                                                  //!< leaf switches
    NodeContainer m_spines;                                                  //!< spine switches
    RoceFabricHelper m_fabric;                                               //!< the builder
    std::map<std::pair<uint32_t, uint32_t>, Ptr<FabricChannel>> m_leafSpine; //!< (leaf, spine)
};

} // namespace

// Every leaf reaches a host under another leaf through all three spines (one port each) and a
// host of its own through the one port facing it; every spine has one port to each host, the
// one facing the host's leaf. Addresses outside the fabric have no route.
TEST_F(EcmpRoutingTest, LeafSpineGroups)
{
    Build();
    for (uint32_t l = 0; l < LEAVES; ++l)
    {
        EXPECT_EQ(Leaf(l)->GetNPorts(), HOSTS_PER_LEAF + SPINES);
        for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
        {
            const std::vector<uint32_t> route = Leaf(l)->GetRoute(Address(h));
            if (h / HOSTS_PER_LEAF == l)
            {
                ASSERT_EQ(route.size(), 1u) << "leaf " << l << " host " << h;
                EXPECT_EQ(Neighbour(Leaf(l), route[0]), m_hosts.Get(h));
            }
            else
            {
                ASSERT_EQ(route.size(), SPINES) << "leaf " << l << " host " << h;
                EXPECT_EQ(Neighbours(Leaf(l), route), SpineNodes()) << "leaf " << l;
            }
        }
    }
    for (uint32_t s = 0; s < SPINES; ++s)
    {
        EXPECT_EQ(Spine(s)->GetNPorts(), LEAVES);
        for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
        {
            const std::vector<uint32_t> route = Spine(s)->GetRoute(Address(h));
            ASSERT_EQ(route.size(), 1u) << "spine " << s << " host " << h;
            EXPECT_EQ(Neighbour(Spine(s), route[0]), m_leaves.Get(h / HOSTS_PER_LEAF));
        }
    }
    // Past the last host: no route, and SelectPort says so.
    const Ipv4Address outside(Address(m_hosts.GetN() - 1).Get() + 1);
    EXPECT_TRUE(Leaf(0)->GetRoute(outside).empty());
    EXPECT_EQ(Leaf(0)->SelectPort(
                  Address(0).Get(), outside.Get(), UDP, 0xC000, RoceNetDevice::ROCEV2_UDP_PORT),
              Leaf(0)->GetNPorts());
}

// The address just below the first host (the helper's base address, 10.0.0.0) is outside the
// fabric too: it has no route. Run in a child process because a wrong index computation there
// reads far outside the table.
TEST_F(EcmpRoutingTest, NoRouteBelowFirstAddress)
{
    Build();
    const Ipv4Address below(Address(0).Get() - 1);
    EXPECT_EXIT(
        {
            const bool noRoute = Leaf(0)->GetRoute(below).empty();
            const bool noPort
                = Leaf(0)->SelectPort(
                      Address(0).Get(), below.Get(), UDP, 0xC000, RoceNetDevice::ROCEV2_UDP_PORT)
                  == Leaf(0)->GetNPorts();
            std::_Exit(noRoute && noPort ? 0 : 1);
        },
        testing::ExitedWithCode(0),
        "");
}

// SelectPort is a function of the 5-tuple: the same flow always takes the same port, a port of
// its ECMP group; 300 flows that differ only in the UDP source port (RoCEv2 entropy) spread
// over the three spines, each taking 20-50% of them.
TEST_F(EcmpRoutingTest, HashIsDeterministicAndSpreads)
{
    Build();
    const uint32_t flows = 300;
    for (uint32_t l = 0; l < LEAVES; ++l)
    {
        const uint32_t src = Address(l * HOSTS_PER_LEAF).Get();
        const uint32_t dst = Address(((l + 1) % LEAVES) * HOSTS_PER_LEAF + 1).Get();
        const std::vector<uint32_t> group = Leaf(l)->GetRoute(Ipv4Address(dst));
        ASSERT_EQ(group.size(), SPINES);
        std::map<uint32_t, uint32_t> perPort;
        for (uint32_t f = 0; f < flows; ++f)
        {
            const uint16_t srcPort = static_cast<uint16_t>(0xC000 + f);
            const uint32_t port
                = Leaf(l)->SelectPort(src, dst, UDP, srcPort, RoceNetDevice::ROCEV2_UDP_PORT);
            EXPECT_EQ(Leaf(l)->SelectPort(src, dst, UDP, srcPort, RoceNetDevice::ROCEV2_UDP_PORT),
                      port);
            EXPECT_NE(std::find(group.begin(), group.end(), port), group.end());
            ++perPort[port];
        }
        ASSERT_EQ(perPort.size(), SPINES) << "leaf " << l;
        for (const auto& [port, n] : perPort)
        {
            EXPECT_GE(n, flows / 5) << "leaf " << l << " port " << port;
            EXPECT_LE(n, flows / 2) << "leaf " << l << " port " << port;
        }
        // A local destination has one port: every flow takes it.
        const uint32_t local = Address(l * HOSTS_PER_LEAF + 2).Get();
        const std::vector<uint32_t> one = Leaf(l)->GetRoute(Ipv4Address(local));
        ASSERT_EQ(one.size(), 1u);
        for (uint32_t f = 0; f < flows; f += 7)
        {
            EXPECT_EQ(Leaf(l)->SelectPort(src,
                                          local,
                                          UDP,
                                          static_cast<uint16_t>(0xC000 + f),
                                          RoceNetDevice::ROCEV2_UDP_PORT),
                      one[0]);
        }
    }
}

// Switches hash with distinct seeds unless the HashSeed attribute fixes one.
TEST_F(EcmpRoutingTest, HashSeeds)
{
    Build();
    std::set<uint32_t> seeds;
    for (uint32_t l = 0; l < LEAVES; ++l)
    {
        seeds.insert(Leaf(l)->GetHashSeed());
    }
    for (uint32_t s = 0; s < SPINES; ++s)
    {
        seeds.insert(Spine(s)->GetHashSeed());
    }
    EXPECT_EQ(seeds.size(), LEAVES + SPINES);

    Simulator::Destroy();
    RoceFabricHelper fixed;
    fixed.SetSwitchAttribute("HashSeed", UintegerValue(12345));
    NodeContainer switches;
    switches.Create(3);
    fixed.InstallSwitches(switches);
    for (uint32_t i = 0; i < switches.GetN(); ++i)
    {
        EXPECT_EQ(switches.Get(i)->GetObject<RoceSwitch>()->GetHashSeed(), 12345u);
    }
}

// A leaf-spine link goes down and routes are recomputed: that spine leaves the leaf's groups,
// and the other leaf stops using it toward the cut leaf; no flow hashes to the dead port. When
// the link comes back, so does the spine.
TEST_F(EcmpRoutingTest, FailedLinkLeavesGroups)
{
    Build();
    const uint32_t deadSpine = 1;
    m_leafSpine.at({0, deadSpine})->SetLinkUp(false);
    m_fabric.ComputeRoutes();
    for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
    {
        const bool underLeaf0 = h / HOSTS_PER_LEAF == 0;
        // Leaf 0 toward leaf 1's hosts, and leaf 1 toward leaf 0's hosts: two spines left.
        const uint32_t l = underLeaf0 ? 1 : 0;
        const std::vector<uint32_t> route = Leaf(l)->GetRoute(Address(h));
        ASSERT_EQ(route.size(), SPINES - 1) << "leaf " << l << " host " << h;
        EXPECT_EQ(Neighbours(Leaf(l), route), SpineNodes(deadSpine));
        for (uint32_t f = 0; f < 300; ++f)
        {
            const uint32_t port = Leaf(l)->SelectPort(Address(l * HOSTS_PER_LEAF).Get(),
                                                      Address(h).Get(),
                                                      UDP,
                                                      static_cast<uint16_t>(0xC000 + f),
                                                      RoceNetDevice::ROCEV2_UDP_PORT);
            EXPECT_NE(SpineIndex(Neighbour(Leaf(l), port)), deadSpine);
        }
        // Local hosts are unaffected.
        EXPECT_EQ(Leaf(underLeaf0 ? 0 : 1)->GetRoute(Address(h)).size(), 1u);
        // The cut spine still reaches leaf 0's hosts, around through leaf 1.
        const std::vector<uint32_t> viaSpine = Spine(deadSpine)->GetRoute(Address(h));
        ASSERT_EQ(viaSpine.size(), 1u);
        EXPECT_EQ(Neighbour(Spine(deadSpine), viaSpine[0]), m_leaves.Get(1));
    }

    m_leafSpine.at({0, deadSpine})->SetLinkUp(true);
    m_fabric.ComputeRoutes();
    for (uint32_t l = 0; l < LEAVES; ++l)
    {
        const uint32_t remote = ((l + 1) % LEAVES) * HOSTS_PER_LEAF;
        EXPECT_EQ(Neighbours(Leaf(l), Leaf(l)->GetRoute(Address(remote))), SpineNodes());
    }
}

// RDMA writes between hosts under different leaves: every write completes, nothing is dropped
// anywhere, and each frame crosses exactly one spine, the one the leaf's hash picks for its
// QP's entropy (data on the source's leaf, ACKs on the destination's leaf).
TEST_F(EcmpRoutingTest, RdmaWriteAcrossSpines)
{
    Build();
    const uint32_t src = 0;
    const uint32_t dst = HOSTS_PER_LEAF + 1;
    const uint32_t qps = 6;
    const uint64_t bytes = 64 * 1024;
    const WriteResult r = Write(src, dst, qps, bytes);

    EXPECT_EQ(r.successes, qps);
    EXPECT_EQ(TotalDrops(), 0u);
    std::vector<uint64_t> expected(SPINES, 0);
    for (uint32_t q = 0; q < qps; ++q)
    {
        EXPECT_EQ(r.responders[q]->GetDeliveredBytes(), bytes);
        EXPECT_EQ(r.requesters[q]->GetRetransmissions(), 0u);
        EXPECT_EQ(r.responders[q]->GetOutOfSequencePackets(), 0u);
        const uint64_t packets = r.requesters[q]->GetPacketsSent();
        EXPECT_EQ(packets, (bytes + r.requesters[q]->GetMtu() - 1) / r.requesters[q]->GetMtu());
        const uint32_t dataPort = Leaf(0)->SelectPort(Address(src).Get(),
                                                      Address(dst).Get(),
                                                      UDP,
                                                      r.requesters[q]->GetEntropy(),
                                                      RoceNetDevice::ROCEV2_UDP_PORT);
        const uint32_t ackPort = Leaf(1)->SelectPort(Address(dst).Get(),
                                                     Address(src).Get(),
                                                     UDP,
                                                     r.responders[q]->GetEntropy(),
                                                     RoceNetDevice::ROCEV2_UDP_PORT);
        expected[SpineIndex(Neighbour(Leaf(0), dataPort))] += packets;
        expected[SpineIndex(Neighbour(Leaf(1), ackPort))] += packets; // AckInterval 1
    }
    uint64_t viaSpines = 0;
    for (uint32_t s = 0; s < SPINES; ++s)
    {
        EXPECT_EQ(Spine(s)->GetForwardedPackets(), expected[s]) << "spine " << s;
        viaSpines += Spine(s)->GetForwardedPackets();
    }
    EXPECT_EQ(viaSpines, r.dataFrames + r.ackFrames);
    EXPECT_EQ(Leaf(0)->GetForwardedPackets(), r.dataFrames + r.ackFrames);
    EXPECT_EQ(Leaf(1)->GetForwardedPackets(), r.dataFrames + r.ackFrames);
}

// After a leaf-spine link fails and routes are recomputed, writes across the leaves still
// complete with no drops, and the cut spine carries nothing.
TEST_F(EcmpRoutingTest, RdmaWriteAfterRerouting)
{
    Build();
    const uint32_t deadSpine = 2;
    m_leafSpine.at({0, deadSpine})->SetLinkUp(false);
    m_fabric.ComputeRoutes();
    const uint32_t qps = 8;
    const uint64_t bytes = 32 * 1024;
    const WriteResult r = Write(1, HOSTS_PER_LEAF + 2, qps, bytes);
    EXPECT_EQ(r.successes, qps);
    EXPECT_EQ(TotalDrops(), 0u);
    for (uint32_t q = 0; q < qps; ++q)
    {
        EXPECT_EQ(r.responders[q]->GetDeliveredBytes(), bytes);
    }
    EXPECT_EQ(Spine(deadSpine)->GetForwardedPackets(), 0u);
    uint64_t viaSpines = 0;
    for (uint32_t s = 0; s < SPINES; ++s)
    {
        viaSpines += Spine(s)->GetForwardedPackets();
    }
    EXPECT_EQ(viaSpines, r.dataFrames + r.ackFrames);
}
