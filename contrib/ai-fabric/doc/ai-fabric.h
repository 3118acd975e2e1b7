/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_DOC_H
#define AI_FABRIC_DOC_H

/**
 * \defgroup ai-fabric AI datacenter fabrics
 *
 * Packet-level models of the fabrics that connect AI accelerators: the full-duplex channel
 * and port base every fabric shares (FabricChannel, FabricNetDevice), the IBTA RC transport
 * (RdmaTransport, RdmaQueuePair) with pluggable congestion control (RdmaCongestionControl,
 * RdmaCcDcqcn, IbCongestionControl), RoCEv2 over lossless Ethernet (RoceNetDevice, RoceSwitch,
 * RoceSwitchMmu: PFC, ECN), InfiniBand with per-VL credits (IbNetDevice, IbSwitch, subnet
 * manager routing), NVLink and NVSwitch (NvLinkNetDevice, NvSwitch, NvLinkTransport), GPUs
 * running NCCL-like collectives (GpuApplication, Communicator, CollectiveAlgorithm and its
 * registered algorithms), failures and their detection (FaultInjector, FabricStallDetector,
 * FabricWatchdog), and the helpers that build fat-trees and tori on any registered fabric
 * (FabricHelper and its plug-ins RoceFabricHelper and IbFabricHelper, FatTreeHelper,
 * TorusHelper, CollectiveSweep).
 *
 * The module's manual is doc/ai-fabric.rst.
 */

/**
 * \defgroup ai-fabric-tests Tests of the ai-fabric module
 * \ingroup ai-fabric
 *
 * GoogleTest suites, one file per concern (test/test-*.cc), run by ctest in the standalone
 * build.
 */

#endif /* AI_FABRIC_DOC_H */
