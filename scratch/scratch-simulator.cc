/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// A starting point for your own programs: every scratch/*.cc is built and runnable as
// `./ns3 run <name>`. This one sends one RDMA WRITE between two hosts through a switch and
// prints when it completed.

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-fabric-helper.h"

#include <iostream>

using namespace ns3;

namespace
{

/**
 * \param qp the QP
 * \param c its completion
 */
void
Completed(Ptr<RdmaQueuePair> qp, const RdmaCompletion& c)
{
    std::cout << "QP 0x" << std::hex << qp->GetQpn() << std::dec << ": " << c.bytes
              << " bytes written in " << (c.completionTime - c.postTime).GetMicroSeconds() << " us"
              << std::endl;
}

} // namespace

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    uint64_t bytes = 1 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "message size (bytes)", bytes);
    cmd.Parse(argc, argv);

    NodeContainer hosts;
    hosts.Create(2);
    NodeContainer switches;
    switches.Create(1);
    RoceFabricHelper fabric;
    fabric.SetDeviceAttribute("DataRate", StringValue("400Gb/s"));
    fabric.InstallHosts(hosts);
    fabric.InstallSwitches(switches);
    fabric.Connect(hosts.Get(0), switches.Get(0));
    fabric.Connect(switches.Get(0), hosts.Get(1));
    fabric.ComputeRoutes();

    Ptr<RdmaTransport> a = fabric.GetTransport(hosts.Get(0));
    Ptr<RdmaTransport> b = fabric.GetTransport(hosts.Get(1));
    Ptr<RdmaQueuePair> qpA = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qpB = b->CreateQueuePair();
    a->ConnectQueuePairs(qpA, qpB, b);
    qpA->SetCompletionCallback(MakeCallback(&Completed));
    qpA->PostWrite(bytes, 1);

    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
