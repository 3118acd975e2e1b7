/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-transport.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "rdma-congestion-control.h"
#include "rdma-headers.h"
#include "rdma-queue-pair.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaTransport")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RdmaTransport>()
              .AddAttribute("TxLatency",
                            "Time from posting a work request to its first packet being ready "
                            "for the wire (s): doorbell, WQE fetch and DMA read over PCIe. "
                            "Default 250 ns: half of the ~0.5 us adapter latency of "
                            "ConnectX-class NICs.",
                            TimeValue(NanoSeconds(250)),
                            MakeTimeAccessor(&RdmaTransport::m_txLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("RxLatency",
                            "Time from a packet's arrival at the port to its data or completion "
                            "being visible to the application (s): DMA write and CQE. Default "
                            "250 ns, the other half of the adapter latency.",
                            TimeValue(NanoSeconds(250)),
                            MakeTimeAccessor(&RdmaTransport::m_rxLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("PcieRate",
                            "Data rate of the PCIe link between the GPU (or host memory) and "
                            "the NIC, per direction (bit/s): with GPUDirect RDMA the NIC reads "
                            "every packet it sends from GPU memory no faster. 0 (the default): "
                            "not limited. ServerHelper::GetPcieRate gives a server's.",
                            DataRateValue(DataRate(0)),
                            MakeDataRateAccessor(&RdmaTransport::m_pcieRate),
                            MakeDataRateChecker())
              .AddAttribute("CongestionControl",
                            "Congestion control of the QPs created from now on (a subclass of "
                            "ns3::RdmaCongestionControl).",
                            TypeIdValue(RdmaCcNone::GetTypeId()),
                            MakeTypeIdAccessor(&RdmaTransport::m_ccType),
                            MakeTypeIdChecker())
              .AddAttribute("AckEcnEcho",
                            "The responder sets BECN on the ACK that follows a data packet "
                            "marked with congestion (ECN CE, FECN), for algorithms that read "
                            "the echo per ACK (RdmaAckInfo::ecnEcho; IBTA allows BECN on an "
                            "ACK). Default false: RoCEv2 NICs notify by CNP only.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&RdmaTransport::m_ackEcnEcho),
                            MakeBooleanChecker());
    return tid;
}

RdmaTransport::RdmaTransport()
{
    NS_LOG_FUNCTION(this);
    m_qpFactory.SetTypeId(RdmaQueuePair::GetTypeId());
    m_psnRng = CreateObject<UniformRandomVariable>();
}

RdmaTransport::~RdmaTransport()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& pacing : m_pacing)
    {
        pacing.event.Cancel();
    }
    m_pacing.clear();
    m_pcieEvent.Cancel();
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    m_psnRng = nullptr;
    m_sendControl = SendCallback();
    m_dataReady = Callback<void>();
    Object::DoDispose();
}

Ptr<RdmaQueuePair>
RdmaTransport::CreateQueuePair()
{
    NS_LOG_FUNCTION(this);
    Ptr<RdmaQueuePair> qp = m_qpFactory.Create<RdmaQueuePair>();
    const uint32_t qpn = FIRST_QPN + static_cast<uint32_t>(m_qps.size());
    NS_ABORT_MSG_IF(qpn > 0xFFFFFF, "RdmaTransport: QP numbers are 24-bit");
    ObjectFactory ccFactory;
    ccFactory.SetTypeId(m_ccType);
    for (const auto& [name, value] : m_ccAttributes)
    {
        ccFactory.Set(name, *value);
    }
    Ptr<RdmaCongestionControl> cc = ccFactory.Create<RdmaCongestionControl>();
    cc->SetLineRate(m_lineRate);
    qp->Setup(this, qpn, cc, EntropyOf(m_address, qpn));
    cc->SetRateChangeCallback(
        MakeCallback(&RdmaTransport::RateChanged, this).Bind(static_cast<uint32_t>(m_qps.size())));
    m_qps.push_back(qp);
    m_scheduled.push_back(0);
    m_pacing.emplace_back();
    return qp;
}

uint16_t
RdmaTransport::EntropyOf(uint32_t address, uint32_t qpn)
{
    // RoCEv2 UDP source port from the QP's identity, in the dynamic port range 0xC000-0xFFFF
    // (IANA 49152-65535), so that ECMP spreads QPs deterministically.
    uint32_t h = (address * 2654435761U) ^ (qpn * 2246822519U);
    h ^= h >> 15;
    h *= 2246822507U;
    h ^= h >> 13;
    return static_cast<uint16_t>(0xC000 | (h & 0x3FFF));
}

std::size_t
RdmaTransport::IndexOf(uint32_t qpn) const
{
    if (qpn < FIRST_QPN || qpn - FIRST_QPN >= m_qps.size())
    {
        return m_qps.size();
    }
    return qpn - FIRST_QPN;
}

Ptr<RdmaQueuePair>
RdmaTransport::GetQueuePair(uint32_t qpn) const
{
    const std::size_t i = IndexOf(qpn);
    return i < m_qps.size() ? m_qps[i] : nullptr;
}

uint32_t
RdmaTransport::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size());
}

void
RdmaTransport::SetQueuePairAttribute(const std::string& name, const AttributeValue& value)
{
    m_qpFactory.Set(name, value);
}

void
RdmaTransport::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

void
RdmaTransport::ConnectQueuePairs(Ptr<RdmaQueuePair> local,
                                 Ptr<RdmaQueuePair> remote,
                                 Ptr<RdmaTransport> remoteTransport)
{
    NS_LOG_FUNCTION(this << local << remote);
    const uint32_t psnLocal = m_psnRng->GetInteger(0, RDMA_PSN_MASK);
    const uint32_t psnRemote = m_psnRng->GetInteger(0, RDMA_PSN_MASK);
    local->Connect(remoteTransport->GetAddress(), remote->GetQpn(), psnLocal, psnRemote);
    remote->Connect(m_address, local->GetQpn(), psnRemote, psnLocal);
}

void
RdmaTransport::SetAddress(uint32_t address)
{
    m_address = address;
}

uint32_t
RdmaTransport::GetAddress() const
{
    return m_address;
}

Time
RdmaTransport::GetTxLatency() const
{
    return m_txLatency;
}

Time
RdmaTransport::GetRxLatency() const
{
    return m_rxLatency;
}

int64_t
RdmaTransport::AssignStreams(int64_t stream)
{
    m_psnRng->SetStream(stream);
    return 1;
}

void
RdmaTransport::SetCnpOpcode(uint8_t opcode)
{
    m_cnpOpcode = opcode;
}

uint8_t
RdmaTransport::GetCnpOpcode() const
{
    return m_cnpOpcode;
}

void
RdmaTransport::AttachPort(DataRate lineRate,
                          uint32_t encapsulationBytes,
                          SendCallback sendControl,
                          Callback<void> dataReady)
{
    NS_LOG_FUNCTION(this << lineRate << encapsulationBytes);
    m_lineRate = lineRate;
    m_encapsulationBytes = encapsulationBytes;
    m_sendControl = sendControl;
    m_dataReady = dataReady;
    for (auto& qp : m_qps)
    {
        qp->GetCongestionControl()->SetLineRate(lineRate);
    }
}

void
RdmaTransport::NotifyDataReady(RdmaQueuePair* qp)
{
    const std::size_t i = IndexOf(qp->GetQpn());
    NS_ASSERT(i < m_qps.size());
    if (m_scheduled[i] || !qp->HasDataToSend())
    {
        return;
    }
    m_scheduled[i] = 1;
    // A QP that ran out of data mid-gap (a rate below the line rate) still waits for it.
    const Pacing& pacing = m_pacing[i];
    if (pacing.lastWire > 0)
    {
        const Time ready
            = pacing.lastStart + qp->GetCongestionControl()->GetPacingGap(pacing.lastWire);
        const Time now = Simulator::Now();
        if (ready > now)
        {
            m_pacing[i].event
                = Simulator::Schedule(ready - now, &RdmaTransport::PacingDone, this, i);
            return;
        }
    }
    const bool wasEmpty = m_ready.empty();
    m_ready.push_back(static_cast<uint32_t>(i));
    if (wasEmpty && !m_dataReady.IsNull())
    {
        m_dataReady();
    }
}

void
RdmaTransport::PcieDone()
{
    if (!m_ready.empty() && !m_dataReady.IsNull())
    {
        m_dataReady(); // the port may take the next packet
    }
}

void
RdmaTransport::PacingDone(uint32_t index)
{
    m_scheduled[index] = 0;
    NotifyDataReady(PeekPointer(m_qps[index]));
}

void
RdmaTransport::RateChanged(uint32_t index)
{
    Pacing& pacing = m_pacing[index];
    if (!pacing.event.IsRunning())
    {
        NotifyDataReady(PeekPointer(m_qps[index])); // a wider window may let it send
        return;
    }
    const Time gap = m_qps[index]->GetCongestionControl()->GetPacingGap(pacing.lastWire);
    const Time now = Simulator::Now();
    const Time when = std::max(pacing.lastStart + gap, now);
    pacing.event.Cancel();
    pacing.event = Simulator::Schedule(when - now, &RdmaTransport::PacingDone, this, index);
}

bool
RdmaTransport::HasReadyData() const
{
    return !m_ready.empty();
}

Ptr<Packet>
RdmaTransport::DequeueData(RdmaPacketMeta& meta)
{
    if (m_pcieRate.GetBitRate() > 0 && !m_ready.empty() && Simulator::Now() < m_pcieFree)
    {
        // The NIC is still reading the last packet from GPU memory over PCIe.
        if (!m_pcieEvent.IsRunning())
        {
            m_pcieEvent = Simulator::Schedule(
                m_pcieFree - Simulator::Now(), &RdmaTransport::PcieDone, this);
        }
        return nullptr;
    }
    while (!m_ready.empty())
    {
        const uint32_t i = m_ready.front();
        m_ready.pop_front();
        RdmaQueuePair* qp = PeekPointer(m_qps[i]);
        if (!qp->HasDataToSend())
        {
            m_scheduled[i] = 0; // completed, rewound past its data, or in error meanwhile
            continue;
        }
        Ptr<Packet> p = qp->BuildNextPacket();
        if (m_pcieRate.GetBitRate() > 0)
        {
            m_pcieFree = std::max(m_pcieFree, Simulator::Now())
                         + FabricBytesTxTime(m_pcieRate, p->GetSize());
        }
        meta.srcAddress = m_address;
        meta.dstAddress = qp->GetRemoteAddress();
        meta.entropy = qp->GetEntropy();
        meta.congestionMarked = false;
        meta.control = false;
        const uint32_t wireBytes = p->GetSize() + m_encapsulationBytes;
        Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
        cc->OnPacketSent(wireBytes);
        Pacing& pacing = m_pacing[i];
        pacing.lastStart = Simulator::Now();
        pacing.lastWire = wireBytes;
        if (!qp->HasDataToSend())
        {
            m_scheduled[i] = 0;
            return p;
        }
        const Time gap = cc->GetPacingGap(wireBytes);
        if (gap.IsStrictlyPositive())
        {
            pacing.event = Simulator::Schedule(gap, &RdmaTransport::PacingDone, this, i);
        }
        else
        {
            m_ready.push_back(i);
        }
        return p;
    }
    return nullptr;
}

void
RdmaTransport::SendControl(Ptr<Packet> p, const RdmaQueuePair* qp)
{
    NS_ASSERT_MSG(!m_sendControl.IsNull(), "RdmaTransport: no port attached");
    RdmaPacketMeta meta;
    meta.srcAddress = m_address;
    meta.dstAddress = qp->GetRemoteAddress();
    meta.entropy = qp->GetEntropy();
    meta.control = true;
    m_sendControl(p, meta);
}

bool
RdmaTransport::Receive(Ptr<Packet> p, const RdmaPacketMeta& meta)
{
    BthHeader bth;
    p->RemoveHeader(bth);
    const std::size_t i = IndexOf(bth.GetDestQp());
    if (i >= m_qps.size())
    {
        NS_LOG_LOGIC("no QP " << bth.GetDestQp() << " on this NIC");
        return false;
    }
    m_qps[i]->Receive(bth, p, meta.congestionMarked);
    return true;
}

} // namespace ns3
