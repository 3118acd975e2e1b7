/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "rdma-congestion-control.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class Packet;
class RdmaTransport;
class RdmaCongestionControl;
class BthHeader;

/**
 * \ingroup ai-fabric
 * How a work request ended (a subset of ibv_wc_status).
 */
enum class RdmaCompletionStatus : uint8_t
{
    SUCCESS,        //!< IBV_WC_SUCCESS
    RETRY_EXCEEDED, //!< IBV_WC_RETRY_EXC_ERR: the retry counter ran out
    FLUSHED,        //!< IBV_WC_WR_FLUSH_ERR: the QP entered the error state first
};

/**
 * \ingroup ai-fabric
 * A work completion of an RDMA WRITE at the requester.
 */
struct RdmaCompletion
{
    uint64_t wrId{0};                                           //!< the work request id
    uint64_t bytes{0};                                          //!< message length
    Time postTime;                                              //!< when it was posted
    Time completionTime;                                        //!< when the completion was visible
    RdmaCompletionStatus status{RdmaCompletionStatus::SUCCESS}; //!< outcome
};

/**
 * \ingroup ai-fabric
 * \brief An IBTA Reliable Connected queue pair doing RDMA WRITE, on InfiniBand or RoCEv2.
 *
 * Requester: a posted write becomes visible to the NIC after the transport's TxLatency, is
 * cut into MTU-sized packets (WRITE First/Middle/Last, or Only; the first carries a RETH), and
 * sent in PSN order as the NIC's scheduler and the congestion control allow. ACKs (possibly
 * coalesced) complete work requests in order; a NAK (PSN sequence error) or the expiry of the
 * retransmission timer (4.096 us x 2^LocalAckTimeout) restarts transmission from the oldest
 * unacknowledged PSN (go-back-N). When the timer expires again after RetryCount retries
 * without progress (the RetryCount + 1-th expiry, as the IBTA counts) the QP enters the error
 * state and every outstanding request completes with RETRY_EXCEEDED or
 * FLUSHED, as a verbs QP does.
 *
 * Responder: accepts only the expected PSN, delivers bytes in order exactly once, ACKs every
 * AckInterval packets and on every packet that asks for it (the last of each message), NAKs
 * once per sequence gap, and re-ACKs duplicates so the requester learns its progress.
 *
 * PSNs are 24-bit on the wire; internally they are 64-bit counters, unwrapped on receipt.
 */
class RdmaQueuePair : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /// Completion of a posted write at the requester.
    typedef Callback<void, Ptr<RdmaQueuePair>, const RdmaCompletion&> CompletionCallback;
    /// A whole message arrived at the responder: (QP, bytes), when visible to the application.
    typedef Callback<void, Ptr<RdmaQueuePair>, uint64_t> ArrivalCallback;
    /// A WRITE with Immediate arrived at the responder: (QP, bytes, immediate data).
    typedef Callback<void, Ptr<RdmaQueuePair>, uint64_t, uint32_t> ImmediateCallback;

    /**
     * \brief Set the peer of this QP (both ends must be connected before use).
     * \param remoteAddress the remote NIC's fabric address (IPv4 address or LID)
     * \param remoteQpn the remote QP number
     * \param initialPsn first PSN this side sends
     * \param expectedPsn first PSN expected from the peer (the peer's initial PSN)
     */
    void Connect(uint32_t remoteAddress,
                 uint32_t remoteQpn,
                 uint32_t initialPsn,
                 uint32_t expectedPsn);

    /**
     * \brief Post an RDMA WRITE.
     * \param bytes message length (at most 2^31 bytes, the IBTA limit)
     * \param wrId the work request id returned in the completion
     */
    void PostWrite(uint64_t bytes, uint64_t wrId);

    /**
     * \brief Post an RDMA WRITE with Immediate: the responder's application receives the
     *        32-bit immediate data with the message (its last packet carries an ImmDt header).
     * \param bytes message length (at most 2^31 bytes)
     * \param wrId the work request id returned in the completion
     * \param immediate the immediate data
     */
    void PostWriteWithImmediate(uint64_t bytes, uint64_t wrId, uint32_t immediate);

    /// \param cb called for every requester completion
    void SetCompletionCallback(CompletionCallback cb);
    /// \param cb called for every message that arrives at this QP as responder
    void SetArrivalCallback(ArrivalCallback cb);
    /// \param cb called, besides the arrival callback, for every WRITE with Immediate
    void SetImmediateCallback(ImmediateCallback cb);

    /// \return this QP's number
    uint32_t GetQpn() const;
    /// \return the peer's address
    uint32_t GetRemoteAddress() const;
    /// \return the peer's QP number
    uint32_t GetRemoteQpn() const;
    /// \return flow entropy (UDP source port on RoCEv2) of this QP
    uint16_t GetEntropy() const;
    /// \return true once the QP is in the error state
    bool IsInError() const;
    /// \return this QP's congestion control
    Ptr<RdmaCongestionControl> GetCongestionControl() const;
    /// \return the payload MTU in bytes
    uint32_t GetMtu() const;
    /// \param mtu the payload MTU in bytes: an IBTA path MTU (256, 512, 1024, 2048, 4096)
    void SetMtu(uint32_t mtu);

    /// \return work requests posted and not yet completed
    uint32_t GetOutstandingRequests() const;
    /// \return data packets sent, retransmissions included
    uint64_t GetPacketsSent() const;
    /// \return data packets sent again (go-back-N)
    uint64_t GetRetransmissions() const;
    /// \return retransmission timer expiries
    uint64_t GetTimeouts() const;
    /// \return NAKs received
    uint64_t GetNaksReceived() const;
    /// \return CNPs this QP sent (as notification point, for marked data it received)
    uint64_t GetCnpsSent() const;
    /// \return CNPs this QP received (as reaction point)
    uint64_t GetCnpsReceived() const;
    /// \return bytes delivered in order to this QP as responder
    uint64_t GetDeliveredBytes() const;
    /// \return messages delivered to this QP as responder
    uint64_t GetDeliveredMessages() const;
    /// \return data packets received out of sequence (dropped) or duplicated
    uint64_t GetOutOfSequencePackets() const;

    /// \return the retransmission timeout, 4.096 us x 2^LocalAckTimeout
    Time GetRetransmissionTimeout() const;

    /**
     * TracedCallback signature for a PSN event.
     * \param psn the 24-bit PSN
     */
    typedef void (*PsnTracedCallback)(uint32_t psn);

    /**
     * TracedCallback signature for the error state.
     * \param qp the QP
     */
    typedef void (*ErrorTracedCallback)(Ptr<const RdmaQueuePair> qp);

  protected:
    void DoDispose() override;

  private:
    friend class RdmaTransport;

    /// One posted WRITE.
    struct Wqe
    {
        uint64_t wrId;      //!< work request id
        uint64_t bytes;     //!< message length
        uint64_t firstSeq;  //!< sequence number of its first packet
        uint64_t firstByte; //!< offset of its first byte in the QP's stream of payload
        uint32_t nPackets;  //!< packets it takes
        Time postTime;      //!< when posted
        bool hasImmediate;  //!< a WRITE with Immediate
        uint32_t immediate; //!< its immediate data
    };

    /**
     * \brief Set up by the transport at creation.
     * \param transport the owning transport
     * \param qpn this QP's number
     * \param cc its congestion control
     * \param entropy its flow entropy
     */
    void Setup(Ptr<RdmaTransport> transport,
               uint32_t qpn,
               Ptr<RdmaCongestionControl> cc,
               uint16_t entropy);

    /// \return true if a data packet may be built now (ignoring pacing): one is posted and not
    ///         yet sent, and the congestion control's window (if any) is not full
    bool HasDataToSend() const
    {
        if (m_error || m_sndNxt >= m_seqEnd)
        {
            return false;
        }
        const uint64_t window = m_cc->GetWindow();
        return window == 0 || m_nxtByte <= m_unaByte || m_nxtByte - m_unaByte < window;
    }

    /**
     * \param seq a sequence number in [m_sndUna, m_seqEnd], of the WQE at m_sendQueue[index]
     *        (or index == size for m_seqEnd)
     * \param index that WQE's index
     * \return the offset of the sequence number's first payload byte in the stream
     */
    uint64_t ByteOffset(uint64_t seq, std::size_t index) const
    {
        if (index >= m_sendQueue.size())
        {
            return m_byteEnd;
        }
        const Wqe& w = index == 0 ? m_sendQueue.front() : m_sendQueue[index];
        const uint64_t bytes = (seq - w.firstSeq) * m_mtu;
        return w.firstByte + (bytes < w.bytes ? bytes : w.bytes);
    }

    /**
     * \brief Build the next data packet (BTH [+RETH] + payload + ICRC) and advance.
     * \return the packet
     */
    Ptr<Packet> BuildNextPacket();

    /**
     * \brief Handle a packet for this QP (p starts after the BTH).
     * \param bth its base transport header
     * \param p the rest of the packet
     * \param congestionMarked ECN CE or FECN was set on arrival
     */
    void Receive(const BthHeader& bth, Ptr<Packet> p, bool congestionMarked);

    /**
     * \brief Post a WRITE, with or without immediate data.
     * \param bytes message length
     * \param wrId work request id
     * \param hasImmediate a WRITE with Immediate
     * \param immediate its immediate data
     */
    void Post(uint64_t bytes, uint64_t wrId, bool hasImmediate, uint32_t immediate);

    /**
     * \brief The NIC has fetched a posted WQE (TxLatency after the post).
     * \param wqe the work request
     */
    void Doorbell(Wqe wqe);

    /**
     * \brief Requester side of an ACK or NAK.
     * \param psn the BTH PSN
     * \param nak true for a NAK (PSN sequence error)
     * \param ecnEcho the ACK's BECN bit
     * \param p the ACK after its BTH and AETH
     */
    void ReceiveAck(uint32_t psn, bool nak, bool ecnEcho, const Packet* p);

    /**
     * \brief Responder side of a data packet.
     * \param bth its base transport header
     * \param payloadBytes payload bytes (padding excluded)
     * \param immediate immediate data (WRITE with Immediate only)
     */
    void ReceiveData(const BthHeader& bth, uint32_t payloadBytes, uint32_t immediate);

    /**
     * \brief Send an ACK or NAK for the given sequence number.
     * \param seq the unwrapped PSN acknowledged (for a NAK: the expected PSN)
     * \param nak true for a NAK
     */
    void SendAck(uint64_t seq, bool nak);

    /**
     * \brief Keep a packet's send time for RTT samples, growing the ring as needed.
     * \param seq its sequence number
     */
    void RecordSendTime(uint64_t seq);

    /// Send a congestion notification packet to the peer QP.
    void SendCnp();

    /// Reserved bytes after the BTH of a RoCEv2 CNP
    static constexpr uint32_t CNP_RESERVED_BYTES = 16;

    /**
     * \brief Restart transmission from a sequence number (go-back-N).
     * \param seq the first sequence number to send again
     */
    void Rewind(uint64_t seq);

    /// The retransmission timer expired.
    void RetransmitTimeout();

    /// Move the timer's deadline to one timeout from now, arming it if nothing is pending.
    void RestartTimer();

    /// Enter the error state: flush every outstanding request.
    void EnterError();

    /**
     * \brief Deliver a completion to the application after the transport's RxLatency.
     * \param c the completion
     */
    void Complete(RdmaCompletion c);

    /**
     * \brief Call the completion callback (scheduled by Complete()).
     * \param c the completion
     */
    void NotifyCompletion(RdmaCompletion c);

    /**
     * \brief Call the arrival callback (scheduled RxLatency after the last packet).
     * \param bytes the message length
     * \param hasImmediate the message was a WRITE with Immediate
     * \param immediate its immediate data
     */
    void NotifyArrival(uint64_t bytes, bool hasImmediate, uint32_t immediate);

    /**
     * \param psn a 24-bit PSN from the wire
     * \param reference an unwrapped sequence number near it
     * \return the unwrapped sequence number closest to reference
     */
    static uint64_t Unwrap(uint32_t psn, uint64_t reference);

    Ptr<RdmaTransport> m_transport;  //!< owning transport
    Ptr<RdmaCongestionControl> m_cc; //!< congestion control
    uint32_t m_qpn{0};               //!< local QP number
    uint32_t m_remoteAddress{0};     //!< peer address
    uint32_t m_remoteQpn{0};         //!< peer QP number
    uint16_t m_entropy{0};           //!< flow entropy
    bool m_connected{false};         //!< Connect() called
    bool m_error{false};             //!< in the error state

    // Attributes
    uint32_t m_mtu{4096};          //!< payload bytes per packet
    uint32_t m_ackInterval{1};     //!< responder ACKs every this many packets
    uint8_t m_localAckTimeout{14}; //!< timeout exponent
    uint8_t m_retryCount{7};       //!< retries before error

    // Requester
    std::deque<Wqe> m_sendQueue;       //!< fetched, not yet completed
    std::size_t m_txIndex{0};          //!< index in m_sendQueue of the WQE holding m_sndNxt
    uint64_t m_sndNxt{0};              //!< next sequence number to send
    uint64_t m_sndUna{0};              //!< oldest unacknowledged sequence number
    uint64_t m_sndMax{0};              //!< one past the highest sequence number sent
    uint64_t m_seqEnd{0};              //!< one past the last sequence number posted
    uint64_t m_byteEnd{0};             //!< payload bytes fetched (the stream's end)
    uint64_t m_nxtByte{0};             //!< stream offset of m_sndNxt
    uint64_t m_unaByte{0};             //!< stream offset of m_sndUna
    bool m_rttSamples{false};          //!< the congestion control wants RTT samples
    uint64_t m_rttValidFrom{0};        //!< packets before this were sent twice (Karn)
    std::vector<Time> m_sendTimes;     //!< send time by sequence number mod its size
    uint32_t m_posted{0};              //!< posted, not yet completed (incl. not fetched)
    uint8_t m_retries{0};              //!< consecutive timeouts without progress
    EventId m_rtoEvent;                //!< retransmission timer
    Time m_rtoDeadline;                //!< when the timer expires (it is lazy)
    CompletionCallback m_completionCb; //!< requester completions

    // Responder
    uint64_t m_ePsn{0};              //!< expected sequence number
    uint32_t m_msn{0};               //!< message sequence number
    uint32_t m_unacked{0};           //!< packets accepted since the last ACK
    bool m_ceSinceAck{false};        //!< a congestion-marked packet arrived since the last ACK
    bool m_nakSent{false};           //!< a NAK was sent for the current gap
    bool m_dupAcked{false};          //!< a duplicate was re-ACKed since the last new packet
    uint64_t m_msgBytes{0};          //!< bytes of the message in progress
    ArrivalCallback m_arrivalCb;     //!< responder arrivals
    ImmediateCallback m_immediateCb; //!< responder arrivals with immediate data

    // Counters
    uint64_t m_packetsSent{0};       //!< data packets sent
    uint64_t m_retransmissions{0};   //!< data packets re-sent
    uint64_t m_timeouts{0};          //!< timer expiries
    uint64_t m_naksReceived{0};      //!< NAKs received
    uint64_t m_cnpsSent{0};          //!< CNPs sent
    uint64_t m_cnpsReceived{0};      //!< CNPs received
    uint64_t m_deliveredBytes{0};    //!< in-order payload bytes delivered
    uint64_t m_deliveredMessages{0}; //!< messages delivered
    uint64_t m_outOfSequence{0};     //!< data packets out of sequence or duplicated

    // Traces
    TracedCallback<uint32_t> m_retransmitTrace;            //!< go-back-N from this PSN
    TracedCallback<uint32_t> m_timeoutTrace;               //!< timer expired; oldest unacked PSN
    TracedCallback<uint32_t> m_nakTrace;                   //!< NAK received with this PSN
    TracedCallback<Ptr<const RdmaQueuePair>> m_errorTrace; //!< QP entered the error state
};

} // namespace ns3

#endif /* RDMA_QUEUE_PAIR_H */
