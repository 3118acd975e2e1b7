/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "rdma-queue-pair.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "rdma-congestion-control.h"
#include "rdma-headers.h"
#include "rdma-transport.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

namespace
{
/// The IBTA's largest message: 2^31 bytes.
constexpr uint64_t MAX_MESSAGE_BYTES = 1ULL << 31;
/// Timeout unit of the IBTA Local ACK Timeout: 4.096 us.
constexpr int64_t ACK_TIMEOUT_UNIT_NS = 4096;
} // namespace

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaQueuePair")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<RdmaQueuePair>()
              .AddAttribute("Mtu",
                            "Payload bytes per packet (IBTA path MTU: 256, 512, 1024, 2048 or "
                            "4096). Default 4096, the largest IBTA MTU and what RoCE NICs use "
                            "on 9000-byte Ethernet.",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&RdmaQueuePair::m_mtu),
                            MakeUintegerChecker<uint32_t>(256, 4096))
              .AddAttribute("AckInterval",
                            "The responder ACKs every this many in-order packets (packets), and "
                            "always on a packet with AckReq set (the last of each message). "
                            "Default 1: an ACK per packet, as the HPCC ns-3 RDMA simulator does.",
                            UintegerValue(1),
                            MakeUintegerAccessor(&RdmaQueuePair::m_ackInterval),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("LocalAckTimeout",
                            "Retransmission timeout exponent n: timeout = 4.096 us x 2^n "
                            "(IBTA Local ACK Timeout). Default 14 (67.1 ms), perftest's default.",
                            UintegerValue(14),
                            MakeUintegerAccessor(&RdmaQueuePair::m_localAckTimeout),
                            MakeUintegerChecker<uint8_t>(1, 31))
              .AddAttribute("RetryCount",
                            "Retransmission timeouts without progress before the QP enters the "
                            "error state (IBTA retry_cnt, 0..7). Default 7, as perftest and NCCL.",
                            UintegerValue(7),
                            MakeUintegerAccessor(&RdmaQueuePair::m_retryCount),
                            MakeUintegerChecker<uint8_t>(0, 7))
              .AddTraceSource("Retransmit",
                              "Go-back-N: transmission restarts from this PSN.",
                              MakeTraceSourceAccessor(&RdmaQueuePair::m_retransmitTrace),
                              "ns3::RdmaQueuePair::PsnTracedCallback")
              .AddTraceSource("Timeout",
                              "The retransmission timer expired; the oldest unacknowledged PSN.",
                              MakeTraceSourceAccessor(&RdmaQueuePair::m_timeoutTrace),
                              "ns3::RdmaQueuePair::PsnTracedCallback")
              .AddTraceSource("Nak",
                              "A NAK (PSN sequence error) arrived with this PSN.",
                              MakeTraceSourceAccessor(&RdmaQueuePair::m_nakTrace),
                              "ns3::RdmaQueuePair::PsnTracedCallback")
              .AddTraceSource("Error",
                              "The QP entered the error state (retry counter exceeded).",
                              MakeTraceSourceAccessor(&RdmaQueuePair::m_errorTrace),
                              "ns3::RdmaQueuePair::ErrorTracedCallback");
    return tid;
}

RdmaQueuePair::RdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

RdmaQueuePair::~RdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaQueuePair::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_rtoEvent.Cancel();
    m_transport = nullptr;
    if (m_cc)
    {
        m_cc->Dispose(); // its timers and its callback into the transport go with the QP
    }
    m_cc = nullptr;
    m_completionCb = CompletionCallback();
    m_arrivalCb = ArrivalCallback();
    m_immediateCb = ImmediateCallback();
    Object::DoDispose();
}

void
RdmaQueuePair::Setup(Ptr<RdmaTransport> transport,
                     uint32_t qpn,
                     Ptr<RdmaCongestionControl> cc,
                     uint16_t entropy)
{
    m_transport = transport;
    m_qpn = qpn;
    m_cc = cc;
    m_entropy = entropy;
    m_rttSamples = cc->WantsRttSamples();
}

void
RdmaQueuePair::Connect(uint32_t remoteAddress,
                       uint32_t remoteQpn,
                       uint32_t initialPsn,
                       uint32_t expectedPsn)
{
    NS_LOG_FUNCTION(this << remoteAddress << remoteQpn << initialPsn << expectedPsn);
    NS_ABORT_MSG_IF(m_connected, "RdmaQueuePair " << m_qpn << " is already connected");
    m_remoteAddress = remoteAddress;
    m_remoteQpn = remoteQpn;
    // Internal sequence numbers start at the 24-bit PSN, so (seq & mask) is the wire PSN.
    m_sndNxt = m_sndUna = m_sndMax = m_seqEnd = initialPsn & RDMA_PSN_MASK;
    m_ePsn = expectedPsn & RDMA_PSN_MASK;
    m_connected = true;
}

void
RdmaQueuePair::PostWrite(uint64_t bytes, uint64_t wrId)
{
    Post(bytes, wrId, false, 0);
}

void
RdmaQueuePair::PostWriteWithImmediate(uint64_t bytes, uint64_t wrId, uint32_t immediate)
{
    Post(bytes, wrId, true, immediate);
}

void
RdmaQueuePair::Post(uint64_t bytes, uint64_t wrId, bool hasImmediate, uint32_t immediate)
{
    NS_LOG_FUNCTION(this << bytes << wrId << hasImmediate << immediate);
    NS_ABORT_MSG_IF(!m_connected, "RdmaQueuePair " << m_qpn << ": PostWrite before Connect");
    NS_ABORT_MSG_IF(bytes > MAX_MESSAGE_BYTES,
                    "RdmaQueuePair: a message is at most 2^31 bytes (IBTA); got " << bytes);
    const uint32_t nPackets = bytes == 0 ? 1 : static_cast<uint32_t>((bytes + m_mtu - 1) / m_mtu);
    Wqe wqe{wrId, bytes, 0, 0, nPackets, Simulator::Now(), hasImmediate, immediate};
    ++m_posted;
    Simulator::Schedule(m_transport->GetTxLatency(), &RdmaQueuePair::Doorbell, this, wqe);
}

void
RdmaQueuePair::Doorbell(Wqe wqe)
{
    NS_LOG_FUNCTION(this << wqe.wrId);
    if (m_error)
    {
        --m_posted;
        Complete({wqe.wrId, wqe.bytes, wqe.postTime, Time(0), RdmaCompletionStatus::FLUSHED});
        return;
    }
    wqe.firstSeq = m_seqEnd;
    wqe.firstByte = m_byteEnd;
    m_seqEnd += wqe.nPackets;
    m_byteEnd += wqe.bytes;
    m_sendQueue.push_back(wqe);
    m_transport->NotifyDataReady(this);
}

void
RdmaQueuePair::RecordSendTime(uint64_t seq)
{
    const uint64_t outstanding = seq + 1 - m_sndUna;
    if (outstanding > m_sendTimes.size())
    {
        // Grow to the next power of two, moving the outstanding packets' times.
        std::size_t size = std::max<std::size_t>(64, m_sendTimes.size());
        while (size < outstanding)
        {
            size *= 2;
        }
        std::vector<Time> times(size);
        for (uint64_t q = m_sndUna; q < seq && !m_sendTimes.empty(); ++q)
        {
            times[q & (size - 1)] = m_sendTimes[q & (m_sendTimes.size() - 1)];
        }
        m_sendTimes.swap(times);
    }
    m_sendTimes[seq & (m_sendTimes.size() - 1)] = Simulator::Now();
}

Ptr<Packet>
RdmaQueuePair::BuildNextPacket()
{
    NS_ASSERT(HasDataToSend() && m_txIndex < m_sendQueue.size());
    const Wqe& wqe = m_sendQueue[m_txIndex];
    NS_ASSERT(m_sndNxt >= wqe.firstSeq && m_sndNxt < wqe.firstSeq + wqe.nPackets);
    const uint32_t k = static_cast<uint32_t>(m_sndNxt - wqe.firstSeq);
    const bool first = (k == 0);
    const bool last = (k + 1 == wqe.nPackets);
    const uint32_t payload
        = last ? static_cast<uint32_t>(wqe.bytes - static_cast<uint64_t>(k) * m_mtu) : m_mtu;
    const uint8_t pad = (4 - (payload & 3)) & 3;

    Ptr<Packet> p = Create<Packet>(payload + pad);
    const bool immediate = last && wqe.hasImmediate;
    if (immediate)
    {
        ImmDtHeader immDt; // after the RETH on a WRITE Only (IBTA 9.2: BTH, RETH, ImmDt)
        immDt.SetData(wqe.immediate);
        p->AddHeader(immDt);
    }
    if (first)
    {
        RethHeader reth;
        reth.SetVirtualAddress(0);
        reth.SetRemoteKey(m_remoteQpn);
        reth.SetDmaLength(static_cast<uint32_t>(wqe.bytes));
        p->AddHeader(reth);
    }
    BthHeader bth;
    uint8_t opcode = RC_RDMA_WRITE_MIDDLE;
    if (first && last)
    {
        opcode = immediate ? RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : RC_RDMA_WRITE_ONLY;
    }
    else if (first)
    {
        opcode = RC_RDMA_WRITE_FIRST;
    }
    else if (last)
    {
        opcode = immediate ? RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : RC_RDMA_WRITE_LAST;
    }
    bth.SetOpcode(opcode);
    bth.SetPadCount(pad);
    bth.SetDestQp(m_remoteQpn);
    bth.SetAckRequest(last);
    bth.SetPsn(static_cast<uint32_t>(m_sndNxt));
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());

    const bool wasIdle = m_sndUna == m_sndMax; // nothing outstanding before this packet
    if (m_sndNxt < m_sndMax)
    {
        ++m_retransmissions;
    }
    if (m_rttSamples)
    {
        RecordSendTime(m_sndNxt);
    }
    ++m_packetsSent;
    m_nxtByte += payload;
    ++m_sndNxt;
    if (m_sndNxt > m_sndMax)
    {
        m_sndMax = m_sndNxt;
    }
    if (last)
    {
        ++m_txIndex;
    }
    if (wasIdle)
    {
        RestartTimer(); // the timeout counts from the first packet outstanding
    }
    return p;
}

void
RdmaQueuePair::Receive(const BthHeader& bth, Ptr<Packet> p, bool congestionMarked)
{
    const uint8_t opcode = bth.GetOpcode();
    switch (opcode)
    {
    case RC_ACKNOWLEDGE:
    {
        AethHeader aeth;
        p->RemoveHeader(aeth);
        ReceiveAck(bth.GetPsn(), aeth.IsNak(), bth.GetBecn(), PeekPointer(p));
        break;
    }
    case IB_CNP:
    case ROCE_CNP:
        ++m_cnpsReceived;
        m_cc->OnCongestionNotification();
        break;
    case RC_RDMA_WRITE_FIRST:
    case RC_RDMA_WRITE_MIDDLE:
    case RC_RDMA_WRITE_LAST:
    case RC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
    case RC_RDMA_WRITE_ONLY:
    case RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
    {
        if (opcode == RC_RDMA_WRITE_FIRST || opcode == RC_RDMA_WRITE_ONLY
            || opcode == RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
        {
            RethHeader reth;
            p->RemoveHeader(reth);
        }
        uint32_t immediate = 0;
        if (opcode == RC_RDMA_WRITE_LAST_WITH_IMMEDIATE
            || opcode == RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
        {
            ImmDtHeader immDt;
            p->RemoveHeader(immDt);
            immediate = immDt.GetData();
        }
        const uint32_t bytes = p->GetSize() - IcrcTrailer::SIZE - bth.GetPadCount();
        m_ceSinceAck = m_ceSinceAck || congestionMarked;
        ReceiveData(bth, bytes, immediate);
        if (congestionMarked && m_cc->OnCongestionMarked())
        {
            SendCnp();
        }
        break;
    }
    default:
        NS_LOG_WARN("QP " << m_qpn << ": unsupported opcode " << static_cast<uint32_t>(opcode));
        break;
    }
}

uint64_t
RdmaQueuePair::Unwrap(uint32_t psn, uint64_t reference)
{
    // Signed 24-bit distance from the reference's PSN.
    int32_t diff
        = static_cast<int32_t>(((psn - static_cast<uint32_t>(reference)) & 0xFFFFFF) << 8) >> 8;
    return reference + static_cast<int64_t>(diff);
}

void
RdmaQueuePair::ReceiveAck(uint32_t psn, bool nak, bool ecnEcho, const Packet* p)
{
    if (m_error)
    {
        return;
    }
    // A NAK carries the expected PSN (everything before it was received);
    // an ACK carries the last PSN received in order.
    const uint64_t seq = Unwrap(psn, m_sndUna);
    const uint64_t newUna = nak ? seq : seq + 1;
    NS_LOG_FUNCTION(this << psn << nak << newUna);
    if (newUna > m_sndMax || newUna < m_sndUna)
    {
        NS_LOG_LOGIC("QP " << m_qpn << ": stale or bogus ACK for PSN " << psn);
        return;
    }
    if (newUna > m_sndUna)
    {
        RdmaAckInfo info;
        info.ackedPackets = static_cast<uint32_t>(newUna - m_sndUna);
        info.ecnEcho = ecnEcho;
        info.nak = nak;
        info.packet = p;
        if (m_rttSamples && newUna - 1 >= m_rttValidFrom)
        {
            info.rtt = Simulator::Now() - m_sendTimes[(newUna - 1) & (m_sendTimes.size() - 1)];
        }
        const uint64_t oldUnaByte = m_unaByte;
        m_sndUna = newUna;
        m_retries = 0;
        while (!m_sendQueue.empty()
               && m_sendQueue.front().firstSeq + m_sendQueue.front().nPackets <= m_sndUna)
        {
            const Wqe& done = m_sendQueue.front();
            --m_posted;
            Complete(
                {done.wrId, done.bytes, done.postTime, Time(0), RdmaCompletionStatus::SUCCESS});
            m_sendQueue.pop_front();
            // After a rewind m_txIndex may point into the completed WQE itself; then
            // m_sndNxt < m_sndUna and the Rewind() below repositions it.
            if (m_txIndex > 0)
            {
                --m_txIndex;
            }
        }
        m_unaByte = ByteOffset(m_sndUna, 0);
        info.ackedBytes = m_unaByte - oldUnaByte;
        info.inflightBytes = m_nxtByte > m_unaByte ? m_nxtByte - m_unaByte : 0;
        m_cc->OnAck(info);
        RestartTimer();
        if (m_cc->GetWindow() > 0)
        {
            m_transport->NotifyDataReady(this); // the window may have opened
        }
    }
    if (nak)
    {
        ++m_naksReceived;
        m_nakTrace(psn);
    }
    // One rewind at most: a NAK restarts from its PSN; an ACK beyond what a rewind already
    // resent skips ahead. (Two rewinds could let the port send the same packet twice.)
    if ((nak && m_sndNxt > newUna) || m_sndNxt < m_sndUna)
    {
        Rewind(m_sndUna);
    }
}

void
RdmaQueuePair::Rewind(uint64_t seq)
{
    NS_LOG_FUNCTION(this << seq);
    m_sndNxt = seq;
    m_txIndex = 0;
    while (m_txIndex < m_sendQueue.size()
           && m_sendQueue[m_txIndex].firstSeq + m_sendQueue[m_txIndex].nPackets <= seq)
    {
        ++m_txIndex;
    }
    m_nxtByte = ByteOffset(seq, m_txIndex);
    m_rttValidFrom = std::max(m_rttValidFrom, m_sndMax); // resent packets give no sample
    if (seq < m_sndMax)
    {
        m_retransmitTrace(static_cast<uint32_t>(seq & RDMA_PSN_MASK));
    }
    m_transport->NotifyDataReady(this);
}

void
RdmaQueuePair::RestartTimer()
{
    // The timer is lazy: progress only moves the deadline, and the one pending event
    // reschedules itself when it finds the deadline later than now. Cancelling and
    // scheduling on every ACK would leave one dead event per ACK in the scheduler for a
    // whole timeout (67 ms at the default: hundreds of thousands at 400 Gb/s).
    m_rtoDeadline = Simulator::Now() + GetRetransmissionTimeout();
    if (m_sndUna < m_sndMax && !m_rtoEvent.IsRunning())
    {
        m_rtoEvent = Simulator::Schedule(
            GetRetransmissionTimeout(), &RdmaQueuePair::RetransmitTimeout, this);
    }
}

void
RdmaQueuePair::RetransmitTimeout()
{
    NS_LOG_FUNCTION(this << m_sndUna);
    if (m_sndUna >= m_sndMax)
    {
        return; // nothing outstanding; the next packet sent arms the timer again
    }
    const Time now = Simulator::Now();
    if (now < m_rtoDeadline)
    {
        m_rtoEvent
            = Simulator::Schedule(m_rtoDeadline - now, &RdmaQueuePair::RetransmitTimeout, this);
        return;
    }
    ++m_timeouts;
    m_timeoutTrace(static_cast<uint32_t>(m_sndUna & RDMA_PSN_MASK));
    if (m_retries >= m_retryCount)
    {
        EnterError();
        return;
    }
    ++m_retries;
    m_cc->OnTimeout();
    Rewind(m_sndUna);
    RestartTimer();
}

void
RdmaQueuePair::EnterError()
{
    NS_LOG_FUNCTION(this);
    m_error = true;
    m_rtoEvent.Cancel();
    bool first = true;
    for (const Wqe& w : m_sendQueue)
    {
        --m_posted;
        Complete({w.wrId,
                  w.bytes,
                  w.postTime,
                  Time(0),
                  first ? RdmaCompletionStatus::RETRY_EXCEEDED : RdmaCompletionStatus::FLUSHED});
        first = false;
    }
    m_sendQueue.clear();
    m_txIndex = 0;
    m_errorTrace(this);
}

void
RdmaQueuePair::Complete(RdmaCompletion c)
{
    if (m_completionCb.IsNull())
    {
        return;
    }
    const Time delay = m_transport->GetRxLatency();
    c.completionTime = Simulator::Now() + delay;
    Simulator::Schedule(delay, &RdmaQueuePair::NotifyCompletion, this, c);
}

void
RdmaQueuePair::NotifyCompletion(RdmaCompletion c)
{
    if (!m_completionCb.IsNull())
    {
        m_completionCb(this, c);
    }
}

void
RdmaQueuePair::NotifyArrival(uint64_t bytes, bool hasImmediate, uint32_t immediate)
{
    if (!m_arrivalCb.IsNull())
    {
        m_arrivalCb(this, bytes);
    }
    if (hasImmediate && !m_immediateCb.IsNull())
    {
        m_immediateCb(this, bytes, immediate);
    }
}

void
RdmaQueuePair::SetImmediateCallback(ImmediateCallback cb)
{
    m_immediateCb = cb;
}

void
RdmaQueuePair::ReceiveData(const BthHeader& bth, uint32_t payloadBytes, uint32_t immediate)
{
    const uint64_t seq = Unwrap(bth.GetPsn(), m_ePsn);
    const uint8_t opcode = bth.GetOpcode();
    if (seq == m_ePsn)
    {
        ++m_ePsn;
        m_nakSent = false;
        m_dupAcked = false;
        m_deliveredBytes += payloadBytes;
        m_msgBytes += payloadBytes;
        const bool hasImmediate = opcode == RC_RDMA_WRITE_LAST_WITH_IMMEDIATE
                                  || opcode == RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
        if (hasImmediate || opcode == RC_RDMA_WRITE_LAST || opcode == RC_RDMA_WRITE_ONLY)
        {
            m_msn = (m_msn + 1) & RDMA_PSN_MASK;
            ++m_deliveredMessages;
            if (!m_arrivalCb.IsNull() || (hasImmediate && !m_immediateCb.IsNull()))
            {
                Simulator::Schedule(m_transport->GetRxLatency(),
                                    &RdmaQueuePair::NotifyArrival,
                                    this,
                                    m_msgBytes,
                                    hasImmediate,
                                    immediate);
            }
            m_msgBytes = 0;
        }
        ++m_unacked;
        if (bth.GetAckRequest() || m_unacked >= m_ackInterval)
        {
            SendAck(m_ePsn - 1, false);
        }
    }
    else if (seq > m_ePsn)
    {
        ++m_outOfSequence;
        if (!m_nakSent)
        {
            m_nakSent = true;
            SendAck(m_ePsn, true);
        }
    }
    else
    {
        ++m_outOfSequence;
        if (bth.GetAckRequest() || !m_dupAcked)
        {
            m_dupAcked = true;
            SendAck(m_ePsn - 1, false);
        }
    }
}

void
RdmaQueuePair::SendCnp()
{
    // CNP: BTH with the port's CNP opcode (0x81 on RoCEv2, Annex A17; 0x80 on InfiniBand,
    // Annex A10), the peer's QP and BECN set, then 16 reserved bytes and the ICRC.
    Ptr<Packet> p = Create<Packet>(CNP_RESERVED_BYTES);
    BthHeader bth;
    bth.SetOpcode(m_transport->GetCnpOpcode());
    bth.SetDestQp(m_remoteQpn);
    bth.SetBecn(true);
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());
    ++m_cnpsSent;
    m_transport->SendControl(p, this);
}

void
RdmaQueuePair::SendAck(uint64_t seq, bool nak)
{
    m_unacked = 0;
    const bool ecnEcho = m_ceSinceAck && m_transport->GetAckEcnEcho();
    m_ceSinceAck = false;
    Ptr<Packet> p = Create<Packet>();
    AethHeader aeth;
    aeth.SetSyndrome(nak ? AethHeader::SYNDROME_NAK_PSN_SEQ_ERROR : AethHeader::SYNDROME_ACK);
    aeth.SetMsn(m_msn);
    p->AddHeader(aeth);
    BthHeader bth;
    bth.SetOpcode(RC_ACKNOWLEDGE);
    bth.SetDestQp(m_remoteQpn);
    bth.SetPsn(static_cast<uint32_t>(seq));
    bth.SetBecn(ecnEcho);
    p->AddHeader(bth);
    p->AddTrailer(IcrcTrailer());
    m_transport->SendControl(p, this);
}

void
RdmaQueuePair::SetCompletionCallback(CompletionCallback cb)
{
    m_completionCb = cb;
}

void
RdmaQueuePair::SetArrivalCallback(ArrivalCallback cb)
{
    m_arrivalCb = cb;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetRemoteAddress() const
{
    return m_remoteAddress;
}

uint32_t
RdmaQueuePair::GetRemoteQpn() const
{
    return m_remoteQpn;
}

uint16_t
RdmaQueuePair::GetEntropy() const
{
    return m_entropy;
}

bool
RdmaQueuePair::IsInError() const
{
    return m_error;
}

Ptr<RdmaCongestionControl>
RdmaQueuePair::GetCongestionControl() const
{
    return m_cc;
}

void
RdmaQueuePair::SetMtu(uint32_t mtu)
{
    NS_ABORT_MSG_IF(mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096,
                    "RdmaQueuePair: Mtu " << mtu
                                          << " is not an IBTA path MTU (256, 512, 1024, 2048, "
                                             "4096)");
    m_mtu = mtu;
}

uint32_t
RdmaQueuePair::GetMtu() const
{
    return m_mtu;
}

uint32_t
RdmaQueuePair::GetOutstandingRequests() const
{
    return m_posted;
}

uint64_t
RdmaQueuePair::GetPacketsSent() const
{
    return m_packetsSent;
}

uint64_t
RdmaQueuePair::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
RdmaQueuePair::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
RdmaQueuePair::GetNaksReceived() const
{
    return m_naksReceived;
}

uint64_t
RdmaQueuePair::GetCnpsSent() const
{
    return m_cnpsSent;
}

uint64_t
RdmaQueuePair::GetCnpsReceived() const
{
    return m_cnpsReceived;
}

uint64_t
RdmaQueuePair::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

uint64_t
RdmaQueuePair::GetDeliveredMessages() const
{
    return m_deliveredMessages;
}

uint64_t
RdmaQueuePair::GetOutOfSequencePackets() const
{
    return m_outOfSequence;
}

Time
RdmaQueuePair::GetRetransmissionTimeout() const
{
    return NanoSeconds(ACK_TIMEOUT_UNIT_NS << m_localAckTimeout);
}

} // namespace ns3
