/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef NVLINK_GPU_PORT_H
#define NVLINK_GPU_PORT_H

#include "ns3/nvlink-net-device.h"

namespace ns3
{

class NvLinkTransport;

/**
 * \ingroup ai-fabric
 * \brief A GPU's NVLink port (its links to one NVSwitch chip): it pulls its data packets from
 *        the GPU's NvLinkTransport when it can send one, tells the transport when each has
 *        left, and hands the packets it receives to the transport (their buffer is freed at
 *        once: the GPU takes them into memory).
 */
class NvLinkGpuPort : public NvLinkNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvLinkGpuPort();
    ~NvLinkGpuPort() override;

    /**
     * \brief Give the port the GPU's NVLink transport.
     * \param transport the transport
     * \param index the port's index among the GPU's ports
     */
    void SetTransport(Ptr<NvLinkTransport> transport, uint32_t index);

    /// \return the GPU's transport
    Ptr<NvLinkTransport> GetTransport() const;

    /// The GPU's transport has data: start sending if idle.
    void DataReady();

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueForTransmit() override;
    void DoTransmitComplete(Ptr<const Packet> p) override;
    bool HasPendingFrames() const override;
    void ReceiveData(Ptr<Packet> p, const NvLinkHeader& h, uint32_t size) override;

  private:
    Ptr<NvLinkTransport> m_transport; //!< the GPU's transport
    uint32_t m_portIndex{0};          //!< its index among the GPU's ports
    NvLinkHeader m_txHeader;          //!< the header of the frame on the wire
    bool m_txData{false};             //!< the frame on the wire is data
};

} // namespace ns3

#endif /* NVLINK_GPU_PORT_H */
