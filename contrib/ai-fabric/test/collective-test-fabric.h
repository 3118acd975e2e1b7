/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_TEST_FABRIC_H
#define COLLECTIVE_TEST_FABRIC_H

// What the collective tests share: GPUs around one switch, the latency of one hop across it,
// and checks of a run against its plan.

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-channel.h"
#include "ns3/node-container.h"
#include "ns3/packet-gpu-transport.h"
#include "ns3/rdma-headers.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ns3
{
namespace aifabrictest
{

/// One run of a collective on GPUs around one switch (as in test-collective-ring.cc), on the
/// fabric of the given helper (RoCEv2 by default).
template<class Helper = RoceFabricHelper>
class BasicStar
{
  public:
    /**
     * \param n GPUs
     * \param channels channels
     * \param maxQueueBytes limit of every port's queues (bytes); 0 keeps the default
     */
    BasicStar(uint32_t n, uint32_t channels, uint32_t maxQueueBytes = 0)
    {
        if (maxQueueBytes > 0)
        {
            fabric.SetDeviceAttribute("MaxQueueBytes", UintegerValue(maxQueueBytes));
        }
        gpus.Create(n);
        switches.Create(1);
        fabric.InstallHosts(gpus);
        fabric.InstallSwitches(switches);
        for (uint32_t i = 0; i < n; ++i)
        {
            fabric.Connect(gpus.Get(i), switches.Get(0));
        }
        fabric.ComputeRoutes();
        collectives.SetChannels(channels);
        collectives.SetCommunicatorAttribute("StepAccounting", BooleanValue(true));
        collectives.Install(gpus, fabric);
    }

    /**
     * \param plan a plan to run now
     * \return the collective's time (slowest rank)
     */
    Time Run(Ptr<const CollectivePlan> plan)
    {
        collectives.Connect(*plan);
        Simulator::ScheduleNow(
            &CollectiveHelper::Run, &collectives, plan, MakeCallback(&BasicStar::Done, this));
        Simulator::Run();
        return end - start;
    }

    NodeContainer gpus;           //!< GPUs
    NodeContainer switches;       //!< the switch
    Helper fabric;                //!< fabric
    CollectiveHelper collectives; //!< communicators
    Time start;                   //!< start of the run
    Time end;                     //!< end of the run

  private:
    /**
     * \param s start
     * \param e end
     */
    void Done(Time s, Time e)
    {
        start = s;
        end = e;
    }
};

/// A star of RoCEv2 GPUs
using Star = BasicStar<RoceFabricHelper>;

/// \return the switch's default port latency
inline Time
SwitchLatency()
{
    TimeValue v;
    CreateObject<RoceSwitch>()->GetAttribute("PortLatency", v);
    return v.Get();
}

/**
 * \brief Latencies of a transfer of one packet across the star, as in test-collective-ring.cc:
 * the step latency, the NIC's TX latency, two hops (serialization + cable) around the
 * switch's latency, then the NIC's RX latency.
 */
class PathLatency
{
  public:
    /// \param star the fabric
    explicit PathLatency(const Star& star)
        : m_comm(star.collectives.GetCommunicator(0))
        , m_nic(star.fabric.GetTransport(star.gpus.Get(0)))
        , m_rate(star.fabric.GetNic(star.gpus.Get(0))->GetDataRate())
        , m_cable(star.fabric.GetChannels()[0]->GetDelay())
        , m_switch(SwitchLatency())
    {
    }

    /**
     * \param payload bytes of a transfer of one packet
     * \return from the step's start to the packet at the receiver's port
     */
    Time ToPort(uint32_t payload) const
    {
        // A whole write in one packet: WRITE Only with Immediate.
        const uint32_t frame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                               + RethHeader::SIZE + ImmDtHeader::SIZE + payload + IcrcTrailer::SIZE;
        return m_comm->GetStepLatency() + m_nic->GetTxLatency() + Hop(frame) + m_switch
               + Hop(frame);
    }

    /**
     * \param payload bytes of a transfer of one packet
     * \return alpha: from the step's start to the data at the receiving GPU
     */
    Time Alpha(uint32_t payload) const
    {
        return ToPort(payload) + m_nic->GetRxLatency();
    }

    /// \return from the last packet at the receiver's port to its ACK at the sending GPU
    Time AckReturn() const
    {
        const uint32_t ackFrame = RoceNetDevice::ENCAPSULATION_BYTES + BthHeader::SIZE
                                  + AethHeader::SIZE + IcrcTrailer::SIZE;
        return Hop(ackFrame) + m_switch + Hop(ackFrame) + m_nic->GetRxLatency();
    }

    /**
     * \param bytes bytes reduced
     * \return the GPU time of the reduction
     */
    Time Reduction(uint64_t bytes) const
    {
        return m_comm->ReductionTime(bytes);
    }

  private:
    /**
     * \param frameBytes a frame
     * \return its serialization (with preamble and gap) and the cable
     */
    Time Hop(uint32_t frameBytes) const
    {
        return m_rate.CalculateBytesTxTime(frameBytes + RoceNetDevice::ETHERNET_OVERHEAD_BYTES)
               + m_cable;
    }

    Ptr<Communicator> m_comm; //!< a communicator (step latency, reductions)
    Ptr<RdmaTransport> m_nic; //!< a NIC transport (TX and RX latency)
    DataRate m_rate;          //!< line rate
    Time m_cable;             //!< cable delay
    Time m_switch;            //!< switch latency
};

/**
 * \param plan a plan
 * \param rank a rank
 * \param sent true for the bytes it sends, false for those it receives
 * \return the plan's bytes of that rank, by step
 */
inline std::vector<uint64_t>
PlanBytesByStep(const CollectivePlan& plan, uint32_t rank, bool sent)
{
    std::vector<uint64_t> bytes(plan.GetNSteps(), 0);
    for (uint32_t id : sent ? plan.GetSends(rank) : plan.GetReceives(rank))
    {
        bytes[plan.GetTransfer(id).step] += plan.GetTransfer(id).bytes;
    }
    return bytes;
}

/**
 * \brief Every transfer a rank sends at a step depends on exactly the transfers that arrived
 * at it in the previous step on its channel (none at step 0).
 * \param plan a plan
 */
inline void
ExpectStepBarriers(const CollectivePlan& plan)
{
    for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
    {
        const CollectiveTransfer& t = plan.GetTransfer(id);
        std::vector<uint32_t> expected;
        for (uint32_t j = 0; j < id; ++j)
        {
            const CollectiveTransfer& u = plan.GetTransfer(j);
            if (u.dst == t.src && u.channel == t.channel && u.step + 1 == t.step)
            {
                expected.push_back(j);
            }
        }
        std::vector<uint32_t> deps = plan.GetDependencies(id);
        std::sort(deps.begin(), deps.end());
        EXPECT_EQ(deps, expected) << "transfer " << id << ": " << t.src << " -> " << t.dst
                                  << " step " << t.step;
    }
}

/**
 * \brief Every rank sent and received exactly the plan's bytes, step by step, and its NIC's
 * QPs delivered them once, without retransmissions.
 * \param star the fabric after the run
 * \param plan the plan it ran
 */
template<class Helper>
void
ExpectExecutionMatchesPlan(const BasicStar<Helper>& star, const CollectivePlan& plan)
{
    for (uint32_t r = 0; r < plan.GetNRanks(); ++r)
    {
        Ptr<Communicator> comm = star.collectives.GetCommunicator(r);
        EXPECT_FALSE(comm->IsRunning()) << "rank " << r;
        EXPECT_EQ(comm->GetBytesSentByStep(), PlanBytesByStep(plan, r, true)) << "rank " << r;
        EXPECT_EQ(comm->GetBytesReceivedByStep(), PlanBytesByStep(plan, r, false)) << "rank " << r;
        Ptr<PacketGpuTransport> gt
            = DynamicCast<PacketGpuTransport>(star.collectives.GetTransport(r));
        EXPECT_EQ(gt->GetBytesSent(), plan.GetBytesSent(r)); // Simple: no protocol overhead
        EXPECT_EQ(gt->GetBytesReceived(), plan.GetBytesReceived(r));
        uint64_t delivered = 0;
        for (const auto& qp : gt->GetQueuePairs())
        {
            delivered += qp->GetDeliveredBytes();
            EXPECT_EQ(qp->GetRetransmissions(), 0u);
        }
        EXPECT_EQ(delivered, plan.GetBytesReceived(r)) << "rank " << r;
    }
}

} // namespace aifabrictest
} // namespace ns3

#endif /* COLLECTIVE_TEST_FABRIC_H */
