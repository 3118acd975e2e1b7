/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Communicators over groups of ranks (ncclCommSplit): collectives of disjoint groups run at
// once as each would alone, overlapping groups (tensor- and data-parallel) run beside each
// other and beside every rank's communicator, each on its own channels and tags, with exact
// byte accounting.

#include "ai-fabric-test-fixture.h"
#include "ns3/boolean.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective-helper.h"
#include "ns3/communicator.h"
#include "ns3/gpu-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

class CommunicatorGroupsTest : public AiFabricTest
{
};

/// GPUs around one RoCEv2 switch, with groups added before the communicators are installed.
struct GroupStar
{
    /**
     * \param n GPUs
     * \param groups the groups' ranks
     */
    GroupStar(uint32_t n, const std::vector<std::vector<uint32_t>>& groups)
    {
        gpus.Create(n);
        switches.Create(1);
        fabric.InstallHosts(gpus);
        fabric.InstallSwitches(switches);
        for (uint32_t i = 0; i < n; ++i)
        {
            fabric.Connect(gpus.Get(i), switches.Get(0));
        }
        fabric.ComputeRoutes();
        collectives.SetChannels(2);
        collectives.SetCommunicatorAttribute("StepAccounting", BooleanValue(true));
        for (const std::vector<uint32_t>& g : groups)
        {
            ids.push_back(collectives.AddGroup(g));
        }
        collectives.Install(gpus, fabric);
    }

    /**
     * \brief Start a ring all-reduce on every rank of a group now.
     * \param group the group (0: every rank)
     * \param bytes its size
     * \return the schedule
     */
    Ptr<CollectiveSchedule> Start(uint32_t group, uint64_t bytes)
    {
        const uint32_t size = static_cast<uint32_t>(collectives.GetGroupRanks(group).size());
        Ptr<CollectiveSchedule> s = CreateObject<RingAlgorithm>()->Schedule(
            CollectiveType::ALL_REDUCE, size, bytes, 2, 512 * 1024);
        collectives.Connect(*s, group);
        for (uint32_t r = 0; r < size; ++r)
        {
            collectives.GetGroupCommunicator(group, r)->Run(
                s, MakeBoundCallback(&GroupStar::Done, this, group));
        }
        return s;
    }

    /**
     * \param star the fabric
     * \param group the group whose rank finished
     * \param rank the rank
     */
    static void Done(GroupStar* star, uint32_t group, uint32_t /* rank */)
    {
        ++star->done[group];
        star->end[group] = Simulator::Now();
    }

    NodeContainer gpus;                //!< GPUs
    NodeContainer switches;            //!< the switch
    RoceFabricHelper fabric;           //!< fabric
    CollectiveHelper collectives;      //!< communicators
    std::vector<uint32_t> ids;         //!< the groups' ids
    std::map<uint32_t, uint32_t> done; //!< ranks done, by group
    std::map<uint32_t, Time> end;      //!< last rank's end, by group
};

} // namespace

// Two disjoint groups of 4 run an all-reduce each, at once: on a non-blocking switch each takes
// exactly the time a 4-GPU communicator takes alone, and every rank receives the ring's bytes.
TEST_F(CommunicatorGroupsTest, DisjointGroupsRunAsAlone)
{
    const uint64_t bytes = 4 << 20;
    Time alone;
    {
        GroupStar star(4, {});
        EXPECT_EQ(star.collectives.GetSlots(), 1u);
        star.Start(0, bytes);
        Simulator::Run();
        EXPECT_EQ(star.done[0], 4u);
        alone = star.end[0];
        Simulator::Destroy();
    }
    GroupStar star(8, {{0, 1, 2, 3}, {4, 5, 6, 7}});
    EXPECT_EQ(star.ids, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(star.collectives.GetSlots(), 2u); // disjoint groups share slot 1
    Ptr<CollectiveSchedule> s = star.Start(1, bytes);
    star.Start(2, bytes);
    Simulator::Run();
    for (uint32_t g : {1u, 2u})
    {
        EXPECT_EQ(star.done[g], 4u);
        EXPECT_EQ(star.end[g], alone) << g;
        for (uint32_t r = 0; r < 4; ++r)
        {
            Ptr<Communicator> c = star.collectives.GetGroupCommunicator(g, r);
            uint64_t received = 0;
            for (uint64_t b : c->GetBytesReceivedByStep())
            {
                received += b;
            }
            EXPECT_EQ(received, s->GetBytesReceived(r)) << g << " " << r;
            EXPECT_EQ(c->GetGlobalRank(r), star.collectives.GetGroupRanks(g)[r]);
        }
    }
    // Every rank's communicator took no part.
    EXPECT_EQ(star.collectives.GetCommunicator(0)->GetBytesReceivedByStep().size(), 0u);
}

// Tensor-parallel pairs and data-parallel pairs on 4 GPUs, and every rank's communicator, all
// at once: three slots (2 tag bits), each collective completes with its own bytes.
TEST_F(CommunicatorGroupsTest, OverlappingGroupsRunBesideEachOther)
{
    GroupStar star(4, {{0, 1}, {2, 3}, {0, 2}, {1, 3}});
    EXPECT_EQ(star.collectives.GetSlots(), 3u);
    std::map<uint32_t, Ptr<CollectiveSchedule>> schedules;
    schedules[0] = star.Start(0, 1 << 20);
    for (uint32_t g = 1; g <= 4; ++g)
    {
        schedules[g] = star.Start(g, (g + 1) << 18);
    }
    Simulator::Run();
    EXPECT_EQ(star.done[0], 4u);
    for (uint32_t g = 1; g <= 4; ++g)
    {
        EXPECT_EQ(star.done[g], 2u) << g;
        for (uint32_t r = 0; r < 2; ++r)
        {
            uint64_t received = 0;
            for (uint64_t b : star.collectives.GetGroupCommunicator(g, r)->GetBytesReceivedByStep())
            {
                received += b;
            }
            EXPECT_EQ(received, schedules[g]->GetBytesReceived(r)) << g << " " << r;
        }
    }
    // The transports carried every communicator's bytes: the sum of all three kinds.
    uint64_t sent = 0;
    uint64_t planned = 0;
    for (uint32_t r = 0; r < 4; ++r)
    {
        sent += star.collectives.GetTransport(r)->GetBytesSent();
        planned += schedules[0]->GetBytesSent(r);
    }
    for (uint32_t g = 1; g <= 4; ++g)
    {
        for (uint32_t r = 0; r < 2; ++r)
        {
            planned += schedules[g]->GetBytesSent(r);
        }
    }
    EXPECT_EQ(sent, planned);
}

// Bad groups abort with one line.
TEST_F(CommunicatorGroupsTest, BadGroups)
{
    CollectiveHelper collectives;
    EXPECT_DEATH(collectives.AddGroup({}), "an empty group");
    EXPECT_DEATH(collectives.AddGroup({1, 2, 1}), "names a rank twice");
    EXPECT_DEATH({ GroupStar star(4, {{0, 5}}); }, "a group names rank 5 of 4");
}
