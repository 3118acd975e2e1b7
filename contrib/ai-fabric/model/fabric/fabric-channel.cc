/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-channel.h"

#include "fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricChannel")
              .SetParent<Channel>()
              .SetGroupName("AiFabric")
              .AddConstructor<FabricChannel>()
              .AddAttribute("Delay",
                            "One-way propagation delay (s). Default 10 ns: a 2 m cable at "
                            "~5 ns/m (signal speed 2e8 m/s).",
                            TimeValue(NanoSeconds(10)),
                            MakeTimeAccessor(&FabricChannel::m_delay),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("LinkState",
                              "The link went down (false) or came up (true).",
                              MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                              "ns3::FabricChannel::LinkStateTracedCallback");
    return tid;
}

FabricChannel::FabricChannel()
{
    NS_LOG_FUNCTION(this);
    Simulator::GetImplementation(); // made now if not yet: it numbers the channels
    if (FabricSimulatorImpl* impl = FabricSimulatorImpl::Get())
    {
        m_id = impl->Register(this);
    }
}

FabricChannel::~FabricChannel()
{
    NS_LOG_FUNCTION(this);
}

void
FabricChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    if (FabricSimulatorImpl* impl = FabricSimulatorImpl::Get())
    {
        impl->Unregister(m_id, this);
    }
    Channel::DoDispose();
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_nDevices >= 2, "FabricChannel: a cable has exactly two ends");
    m_devices[m_nDevices] = device;
    m_nodeIds[m_nDevices] = device->GetNode()->GetId();
    ++m_nDevices;
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    if (m_nDevices == 2 && impl && impl->GetNRanks() > 1)
    {
        const uint32_t rank0 = m_devices[0]->GetNode()->GetSystemId();
        const uint32_t rank1 = m_devices[1]->GetNode()->GetSystemId();
        m_local = {rank0 == impl->GetRank(), rank1 == impl->GetRank()};
        m_split = rank0 != rank1;
        if (m_split && (m_local[0] || m_local[1]))
        {
            m_peerRank = m_local[0] ? rank1 : rank0;
            NS_ABORT_MSG_IF(!m_delay.IsStrictlyPositive(),
                            "FabricChannel: a cable between MPI ranks needs a positive Delay "
                            "(it is the lookahead)");
            impl->BoundLookahead(m_delay);
        }
    }
    else if (m_nDevices == 2)
    {
        NS_ABORT_MSG_IF(m_devices[0]->GetNode()->GetSystemId()
                            != m_devices[1]->GetNode()->GetSystemId(),
                        "FabricChannel: the ends are nodes of different ranks, and the run is "
                        "not on ai-fabric's simulator across MPI ranks");
    }
}

bool
FabricChannel::IsSplit() const
{
    return m_split;
}

uint32_t
FabricChannel::MessageHandler()
{
    static const uint32_t id = FabricSimulatorImpl::RegisterHandler(&FabricChannel::ReceiveMessage);
    return id;
}

namespace
{
/// What a message between ranks carries before the frame.
struct FrameMessage
{
    uint32_t channel; //!< the channel's id
    uint32_t dst;     //!< the receiving end
    uint32_t ticket;  //!< the frame's ticket in its direction
    uint32_t kind;    //!< 0: a frame, 1: the withdrawal of one
    uint64_t sent;    //!< when it was handed over (time steps)
};

/// Registered at load, so in the same order on every rank.
[[maybe_unused]] const uint32_t g_frameHandler = FabricChannel::MessageHandler();
} // namespace

void
FabricChannel::SendRemote(uint32_t dst, Ptr<Packet> p, Time delay, uint32_t ticket)
{
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    const FabricSimulatorImpl::Key key = impl->MakeKey(delay);
    FrameMessage m{
        m_id, dst, ticket, p ? 0U : 1U, static_cast<uint64_t>(Simulator::Now().GetTimeStep())};
    const uint32_t frameBytes = p ? p->GetSerializedSize() : 0;
    std::vector<uint8_t>& buffer = m_sendBuffer;
    buffer.resize(sizeof(m) + frameBytes);
    std::memcpy(buffer.data(), &m, sizeof(m));
    if (p)
    {
        p->Serialize(buffer.data() + sizeof(m), frameBytes);
    }
    impl->Send(m_peerRank,
               key,
               m_nodeIds[dst],
               MessageHandler(),
               buffer.data(),
               static_cast<uint32_t>(buffer.size()));
}

void
FabricChannel::ReceiveMessage(const FabricSimulatorImpl::Key& key,
                              uint32_t context,
                              const uint8_t* data,
                              uint32_t size)
{
    FrameMessage m;
    NS_ABORT_MSG_IF(size < sizeof(m), "FabricChannel: a short message");
    std::memcpy(&m, data, sizeof(m));
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Get();
    auto* channel = static_cast<FabricChannel*>(impl->Lookup(m.channel));
    NS_ABORT_MSG_IF(!channel || m.dst > 1, "FabricChannel: a message for no cable");
    if (m.kind == 1)
    {
        // Before the frame's time (a withdrawal is sent before its first bit leaves).
        channel->m_remoteWithdrawn.push_back(m.ticket);
        return;
    }
    Ptr<Packet> p = Create<Packet>(data + sizeof(m), size - sizeof(m), true);
    impl->ScheduleKeyed(
        key,
        context,
        MakeEvent(&FabricChannel::DeliverRemote, channel, m.dst, p, m.ticket, m.sent));
}

void
FabricChannel::DeliverRemote(uint32_t dst, Ptr<Packet> p, uint32_t ticket, uint64_t sent)
{
    if (!m_remoteWithdrawn.empty())
    {
        auto it = std::find(m_remoteWithdrawn.begin(), m_remoteWithdrawn.end(), ticket);
        if (it != m_remoteWithdrawn.end())
        {
            *it = m_remoteWithdrawn.back();
            m_remoteWithdrawn.pop_back();
            return;
        }
    }
    if (m_changed && m_lastChange >= sent)
    {
        // The link changed after the frame was handed over (a frame handed over after the
        // change at that instant was not sent: the link was down).
        m_devices[dst]->NotifyLostInFlight(p);
        return;
    }
    m_devices[dst]->Receive(p);
}

bool
FabricChannel::Transmit(Ptr<Packet> p, const FabricNetDevice* src, Time txTime, uint32_t* ticket)
{
    NS_LOG_FUNCTION(this << p << src << txTime);
    NS_ASSERT_MSG(m_nDevices == 2, "FabricChannel: transmit on a cable with one end");
    if (!m_up)
    {
        return false;
    }
    const uint32_t dst = (src == PeekPointer(m_devices[0])) ? 1 : 0;
    if (m_split)
    {
        if (ticket)
        {
            *ticket = m_remoteTicket;
        }
        SendRemote(dst, p, txTime + m_delay, m_remoteTicket++);
        return true;
    }
    if (ticket)
    {
        *ticket = m_nextTicket;
    }
    Simulator::ScheduleWithContext(
        m_nodeIds[dst], txTime + m_delay, &FabricChannel::Deliver, this, dst, p, m_nextTicket++);
    return true;
}

void
FabricChannel::Withdraw(uint32_t ticket)
{
    NS_LOG_FUNCTION(this << ticket);
    if (m_split)
    {
        // Ahead of the frame at the other end: it is due no sooner than a Delay from now.
        const uint32_t dst = m_local[0] ? 1 : 0;
        SendRemote(dst, nullptr, m_delay, ticket);
        return;
    }
    m_withdrawn.push_back(ticket);
}

void
FabricChannel::Deliver(uint32_t dst, Ptr<Packet> p, uint32_t ticket)
{
    if (!m_withdrawn.empty())
    {
        auto it = std::find(m_withdrawn.begin(), m_withdrawn.end(), ticket);
        if (it != m_withdrawn.end())
        {
            // Taken back before its first bit left (ScheduleWithContext gives no EventId to
            // cancel): it never was on the cable.
            *it = m_withdrawn.back();
            m_withdrawn.pop_back();
            return;
        }
    }
    // Serial-number order: tickets wrap after 2^32 frames, far more than a cable holds.
    if (static_cast<int32_t>(ticket - m_liveFrom) < 0)
    {
        // The link went down while the packet was on the cable.
        m_devices[dst]->NotifyLostInFlight(p);
        return;
    }
    m_devices[dst]->Receive(p);
}

void
FabricChannel::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    m_liveFrom = m_nextTicket;
    m_lastChange = static_cast<uint64_t>(Simulator::Now().GetTimeStep());
    m_changed = true;
    m_linkStateTrace(up);
    for (uint32_t i = 0; i < m_nDevices; ++i)
    {
        if (m_local[i]) // across ranks, each rank tells its own end
        {
            m_devices[i]->NotifyLinkChange(up);
        }
    }
}

bool
FabricChannel::IsLinkUp() const
{
    return m_up;
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    NS_ASSERT(m_nDevices == 2);
    return (device == PeekPointer(m_devices[0])) ? m_devices[1] : m_devices[0];
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    NS_ASSERT(i < m_nDevices);
    return m_devices[i];
}

} // namespace ns3
