/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLINK_TRANSPORT_H
#define NVLINK_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/fabric-fifo.h"
#include "ns3/nvlink-gpu-port.h"
#include "ns3/object.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class NvLinkHeader;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief A GPU's side of NVLink: messages to GPUs of the same NVLink domain, cut into
 *        packets of TransferUnit bytes and sprayed over the GPU's NVLink ports.
 *
 * Every port that may send (it has credits) takes the next packet: the messages in progress
 * take turns, one packet each, so several messages share the links and each message spreads
 * over all the GPU's NVSwitch chips in proportion to their bandwidth, as NVLink hardware
 * sprays a GPU's traffic. The receiver counts each message's bytes (packets of one message may
 * arrive out of order over different chips) and reports it whole. A message is complete at
 * the sender when its last byte has left the GPU (NVLink writes are posted: no end-to-end
 * acknowledgement); the links are lossless.
 *
 * ProtocolEfficiency is the fraction of NVLink's data rate that carries payload under NCCL's
 * protocol (its copies, flags and flit overheads, which are not modelled one by one): each
 * packet carries payload / ProtocolEfficiency bytes on the wire.
 */
class NvLinkTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvLinkTransport();
    ~NvLinkTransport() override;

    /// A message arrived whole: (source GPU, tag, bytes).
    typedef Callback<void, uint16_t, uint32_t, uint64_t> ReceiveCallback;
    /// A message this GPU sent has left it: (tag).
    typedef Callback<void, uint32_t> SendCallback;

    /// \param gpu this GPU's index in its NVLink domain
    void SetGpu(uint16_t gpu);

    /// \return this GPU's index in its NVLink domain
    uint16_t GetGpu() const;

    /// \param domain the NVLink domain this GPU belongs to (GPUs talk over NVLink within one)
    void SetDomain(uint32_t domain);

    /// \return the NVLink domain
    uint32_t GetDomain() const;

    /**
     * \brief Add one of the GPU's NVLink ports (it pulls its packets from this transport).
     * \param port the port
     */
    void AddPort(Ptr<NvLinkGpuPort> port);

    /// \return the GPU's NVLink ports
    const std::vector<Ptr<NvLinkGpuPort>>& GetPorts() const;

    /// No queue: a message that takes turns with every other at once.
    static constexpr uint32_t NO_QUEUE = UINT32_MAX;

    /**
     * \brief Send a message to a GPU of the domain.
     *
     * Messages to one GPU on one queue (a GPU transport's channel: one thread block copying
     * its steps one after another) leave in order: the next takes its turns once the last
     * packet of the one before is handed to a port, as a queue pair sends its messages.
     * Messages of different queues or GPUs take turns packet by packet.
     * \param dstGpu its index in the domain
     * \param bytes payload bytes (0: one header-only packet)
     * \param tag handed to the receiver and to the send callback
     * \param queue its queue to dstGpu (NO_QUEUE: none, it starts at once)
     */
    void Send(uint16_t dstGpu, uint64_t bytes, uint32_t tag, uint32_t queue = NO_QUEUE);

    /**
     * \brief Send a message through the NVSwitch chips' NVLS engines: an NVLS_REDUCE
     *        contribution to the reduction for dstGpu, which the chips deliver once all
     *        groupSize GPUs have contributed, or an NVLS_MULTICAST the chips copy to GPUs
     *        0 .. groupSize - 1 (this one included). Packet i of a message goes through the
     *        chip the same on every GPU (the GPU's ports in turn, weighted by their rates), so
     *        that the contributions of one packet meet at one chip.
     * \param type NvLinkHeader::NVLS_REDUCE or NVLS_MULTICAST
     * \param dstGpu the reduction's destination (ignored for a multicast)
     * \param bytes payload bytes (at least 1)
     * \param tag handed to the receivers and to the send callback
     * \param groupSize GPUs taking part (the domain's first groupSize GPUs)
     */
    void SendNvls(uint8_t type, uint16_t dstGpu, uint64_t bytes, uint32_t tag, uint16_t groupSize);

    /// \param cb called for every message that arrived whole
    void SetReceiveCallback(ReceiveCallback cb);

    /// \param cb called for every message sent
    void SetSendCallback(SendCallback cb);

    /// \return true if a message still has bytes to hand to a port
    bool HasData() const;

    /**
     * \brief A port asks for its next packet.
     * \param port the port's index among the GPU's ports
     * \param credits bytes the port may send (the next packet must fit)
     * \param[out] creditBlocked true if a packet for this port waits for credits
     * \param[out] header the packet's header, if a packet is returned (the port keeps it for
     *             Sent(), rather than reading the packet's bytes again at its end)
     * \return the packet, or nullptr if none is waiting or it does not fit
     */
    Ptr<Packet> Dequeue(uint32_t port, uint64_t credits, bool& creditBlocked, NvLinkHeader& header);

    /**
     * \brief A port finished sending a data packet of this GPU.
     * \param h its header
     */
    void Sent(const NvLinkHeader& h);

    /**
     * \brief A port received a data packet for this GPU.
     * \param h its header
     */
    void Receive(const NvLinkHeader& h);

    /// \return payload bytes sent so far
    uint64_t GetBytesSent() const;

    /// \return payload bytes received so far
    uint64_t GetBytesReceived() const;

    /**
     * \param payload payload bytes of a packet
     * \param nvls an NVLS packet (NvlsEfficiency) or not (ProtocolEfficiency)
     * \return its bytes on the wire (header and the protocol's overhead included)
     */
    uint32_t WireBytes(uint32_t payload, bool nvls = false) const;

  protected:
    void DoDispose() override;

  private:
    /// A message being sent.
    struct Outgoing
    {
        uint16_t dst{0};                //!< destination GPU
        uint32_t tag{0};                //!< tag
        uint64_t bytes{0};              //!< payload
        uint64_t packetized{0};         //!< bytes handed to ports
        uint64_t sent{0};               //!< bytes that left the GPU
        uint8_t type{0};                //!< NvLinkHeader type of its packets
        uint16_t groupSize{0};          //!< NVLS group
        uint32_t nextUnicast{0};        //!< next packet index (unicast: any port)
        std::vector<uint32_t> nextNvls; //!< NVLS: next packet index of each port
        uint32_t base{0};               //!< NVLS: where its packets start in the turn order
        uint64_t queue{UINT64_MAX};     //!< its (destination, queue) key; UINT64_MAX: none
    };

    /// The messages of one (destination, queue) after the one taking turns.
    struct Queue
    {
        bool busy{false};             //!< a message of the queue is taking turns
        FabricFifo<uint16_t> waiting; //!< slots waiting for it, oldest first
    };

    /**
     * \param slot a message
     * \param index a packet index
     * \param credits bytes the port may send
     * \param[out] p the packet, if it fits
     * \param[out] h its header, if it fits
     * \return false if it does not fit
     */
    bool MakePacket(
        uint16_t slot, uint32_t index, uint64_t credits, Ptr<Packet>& p, NvLinkHeader& h);

    /**
     * \param port a port
     * \param from a packet index
     * \param base the message's start in the turn order
     * \return the first packet index at or after from that goes through the port (NVLS)
     */
    uint32_t NextForPort(uint32_t port, uint32_t from, uint32_t base) const;

    /// Build the ports' weighted turn order (NVLS), from their rates.
    void BuildPattern();

    /// \return a free message slot
    uint16_t NewSlot();

    uint16_t m_gpu{0};                              //!< index in the domain
    uint32_t m_domain{0};                           //!< NVLink domain
    uint32_t m_unit{0};                             //!< TransferUnit
    double m_efficiency{1.0};                       //!< ProtocolEfficiency
    double m_nvlsEfficiency{1.0};                   //!< NvlsEfficiency
    std::vector<Ptr<NvLinkGpuPort>> m_ports;        //!< the GPU's NVLink ports
    std::vector<Outgoing> m_out;                    //!< by slot
    std::vector<uint16_t> m_freeSlots;              //!< slots to reuse
    std::deque<uint16_t> m_active;                  //!< unicast slots with bytes to packetize
    std::deque<uint16_t> m_nvlsActive;              //!< NVLS slots with bytes to packetize
    std::unordered_map<uint64_t, Queue> m_queues;   //!< by (destination, queue)
    std::vector<uint8_t> m_pattern;                 //!< port of each packet index mod its length
    std::vector<std::vector<uint32_t>> m_positions; //!< by port: its places in m_pattern
    std::vector<std::unordered_map<uint32_t, uint64_t>> m_partial; //!< by source GPU: tag -> bytes
    ReceiveCallback m_receiveCb;                                   //!< arrivals
    SendCallback m_sendCb;                                         //!< completions
    uint64_t m_bytesSent{0};                                       //!< payload sent
    uint64_t m_bytesReceived{0};                                   //!< payload received
};

} // namespace ns3

#endif /* NVLINK_TRANSPORT_H */
