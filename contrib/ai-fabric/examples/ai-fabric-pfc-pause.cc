/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

/**
 * \file
 * \ingroup ai-fabric
 * PFC pause arithmetic: a switch sends one 802.1Qbb pause of N quanta to a NIC that has data
 * to send; the NIC's first data frame leaves when the pause expires. Prints the measured
 * pause beside IEEE 802.1Qbb's N x 512 bit times at the link rate.
 *
 *   ./ns3 run "ai-fabric-pfc-pause --quanta=65535 --rate=400Gbps"
 */

#include "ns3/command-line.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-output-file.h"
#include "ns3/fabric-watchdog.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc.h"
#include "ns3/roce-switch.h"
#include "ns3/scenario-options.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
Time g_pauseArrived;    //!< when the NIC received the pause
Time g_firstData;       //!< when its first data frame started
bool g_dataSeen{false}; //!< g_firstData is set

/**
 * \param priority the paused priority
 * \param quanta its pause time
 */
void
PauseArrived(uint8_t /* priority */, uint16_t /* quanta */)
{
    g_pauseArrived = Simulator::Now();
}

/**
 * \param p a frame the NIC started to send
 */
void
FrameSent(Ptr<const Packet> p)
{
    uint8_t h[14];
    if (!g_dataSeen && p->CopyData(h, sizeof(h)) == sizeof(h) && h[12] == 0x08 && h[13] == 0x00)
    {
        g_dataSeen = true;
        g_firstData = Simulator::Now();
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    const std::string program = "ai-fabric-pfc-pause";
    Time::SetResolution(Time::PS);
    ScenarioOptions options(program);
    options.Add("quanta", "pause time in quanta of 512 bit times, 1 to 65535", "65535");
    options.Add("rate", "link rate, e.g. 400Gbps or 100G", "400Gbps");
    options.Use("json");
    options.Parse(argc,
                  argv,
                  "One PFC pause of N quanta: how long it holds a sender, against N x 512 / rate.");
    const std::string quanta = options.Get("quanta");
    const std::string rate = options.Get("rate");
    const std::string json = options.Get("json");

    uint64_t n = 0;
    if (!FabricCli::ParseUnsigned(quanta, n) || n == 0 || n > PfcHeader::MAX_QUANTA)
    {
        FabricCli::Fail(program,
                        "--quanta=" + quanta + ": expected a whole number from 1 to 65535");
    }
    DataRate r;
    r = FabricCli::LinkRate(program, "rate", rate);
    // Checked and created before anything runs; renamed over the target at the end.
    FabricOutputFile jsonFile;
    if (!json.empty())
    {
        jsonFile.OpenOrFail(program, "json", json);
    }

    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer sw;
    sw.Create(1);
    RoceFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(r));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(sw);
    fabric.Connect(hosts.Get(0), sw.Get(0));
    fabric.Connect(sw.Get(0), hosts.Get(1));
    fabric.ComputeRoutes();
    Ptr<RoceNetDevice> nic = fabric.GetNic(hosts.Get(0));
    Ptr<RoceNetDevice> port = sw.Get(0)->GetObject<RoceSwitch>()->GetPort(0);
    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    a->ConnectQueuePairs(qa, qb, b);
    // The NIC's data is ready 1 ps after the pause has arrived, so that what holds it is the
    // pause alone, however short (the default TxLatency of 250 ns would hide a short pause).
    const Time arrival
        = r.CalculateBytesTxTime(PfcHeader::SIZE + 14 + RoceNetDevice::ETHERNET_OVERHEAD_BYTES)
          + fabric.GetChannels()[0]->GetDelay();
    a->SetAttribute("TxLatency", TimeValue(arrival + PicoSeconds(1)));
    UintegerValue dscp;
    nic->GetAttribute("RdmaDscp", dscp);
    const auto priority = static_cast<uint8_t>(dscp.Get() >> 3);
    // The switch pauses the NIC's RDMA priority at t = 0, when the NIC posts a write.
    Simulator::Schedule(Time(0), &RoceNetDevice::SendPfc, port, priority, static_cast<uint16_t>(n));
    Simulator::Schedule(Time(0), &RdmaQueuePair::PostWrite, qa, 1000, 1);
    nic->GetPfc()->TraceConnectWithoutContext("Received", MakeCallback(&PauseArrived));
    nic->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&FrameSent));
    FabricWatchdog::RunOrExit(); // a run that would not end: exit 3, named

    const double measured = (g_firstData - g_pauseArrived).GetPicoSeconds() / 1e6;
    const double formula = n * 512.0 / r.GetBitRate() * 1e6;
    std::cout << std::fixed << std::setprecision(6) << "# " << program << ": " << n << " quanta at "
              << r.GetBitRate() / 1e9 << " Gb/s\n"
              << "pause held the sender " << measured << " us; N x 512 / R = " << formula
              << " us\n";
    Simulator::Destroy();
    if (!json.empty())
    {
        nlohmann::ordered_json j = {{"quanta", n},
                                    {"rate_gbps", r.GetBitRate() / 1e9},
                                    {"pause_us", measured},
                                    {"formula_us", formula}};
        if (!jsonFile.CommitJson(program, j))
        {
            return 1;
        }
    }
    return g_dataSeen ? 0 : 1;
}
