/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// The GPU compute model: datasheet peaks, the roofline's two bounds and where they cross,
// a GEMM's FLOPs and bytes, the data types each GPU has.

#include "ai-fabric-test-fixture.h"
#include "ns3/collective-helper.h"
#include "ns3/communicator.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/node-container.h"
#include "ns3/server-helper.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class GpuComputeModelTest : public AiFabricTest
{
};

/**
 * \param gpu a preset
 * \param matmul MatmulEfficiency
 * \param memory MemoryEfficiency
 * \return the model
 */
Ptr<GpuComputeModel>
Model(const std::string& gpu, double matmul, double memory)
{
    Ptr<GpuComputeModel> m = CreateObject<GpuComputeModel>();
    m->SetAttribute("Gpu", StringValue(gpu));
    m->SetAttribute("MatmulEfficiency", DoubleValue(matmul));
    m->SetAttribute("MemoryEfficiency", DoubleValue(memory));
    return m;
}

} // namespace

// The presets carry their datasheets' dense peaks and HBM.
TEST_F(GpuComputeModelTest, PresetsAreTheDatasheets)
{
    EXPECT_EQ(GpuComputeModel::GetPresetNames(),
              (std::vector<std::string>{"a100", "h100", "h800", "h200", "b200", "gb200"}));
    GpuSpec s;
    ASSERT_TRUE(GpuComputeModel::GetPreset("H100", s));
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::BF16)], 989.4e12);
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::FP8)], 1978.9e12);
    EXPECT_DOUBLE_EQ(s.memoryBandwidth, 3.35e12);
    ASSERT_TRUE(GpuComputeModel::GetPreset("a100", s));
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::FP16)], 312e12);
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::FP8)], 0);
    EXPECT_DOUBLE_EQ(s.memoryBandwidth, 2039e9);
    ASSERT_TRUE(GpuComputeModel::GetPreset("h200", s));
    EXPECT_DOUBLE_EQ(s.memoryBandwidth, 4.8e12);
    EXPECT_DOUBLE_EQ(s.memoryBytes, 141e9);
    ASSERT_TRUE(GpuComputeModel::GetPreset("b200", s));
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::BF16)], 2.25e15);
    ASSERT_TRUE(GpuComputeModel::GetPreset("gb200", s));
    EXPECT_DOUBLE_EQ(s.peakFlops[static_cast<int>(ComputeDataType::FP8)], 5e15);
    EXPECT_FALSE(GpuComputeModel::GetPreset("v100", s));

    Ptr<GpuComputeModel> a100 = Model("a100", 1, 1);
    EXPECT_FALSE(a100->Supports(ComputeDataType::FP8));
    EXPECT_TRUE(a100->Supports(ComputeDataType::TF32));
    // The default: an H100 at its measured efficiencies (a large BF16 GEMM 794.5 of 989.4
    // TFLOP/s, Triad 2.97 of 3.35 TB/s).
    Ptr<GpuComputeModel> h100 = CreateObject<GpuComputeModel>();
    EXPECT_EQ(h100->GetGpu().name, "h100");
    EXPECT_DOUBLE_EQ(h100->GetMatmulEfficiency(), 0.803);
    EXPECT_DOUBLE_EQ(h100->GetMemoryEfficiency(), 0.887);
    EXPECT_NEAR(h100->GetEffectiveFlops(ComputeDataType::BF16), 794.5e12, 0.1e12);
    EXPECT_NEAR(h100->GetEffectiveMemoryBandwidth(), 2.97e12, 0.005e12);
    // FP8 at its own measured share (1,402.6 of 1,978.9 TFLOP/s).
    EXPECT_NEAR(h100->GetEffectiveFlops(ComputeDataType::FP8), 1402.6e12, 0.5e12);
    EXPECT_DOUBLE_EQ(a100->GetMatmulEfficiency(), 1.0); // set
    EXPECT_DOUBLE_EQ(Model("a100", 0, 0)->GetMatmulEfficiency(), 0.869);
}

// A kernel is bound by whichever of compute and memory is slower; the two bounds cross at the
// arithmetic intensity peak FLOP/s / bandwidth (at the efficiencies).
TEST_F(GpuComputeModelTest, KernelTimeIsTheRoofline)
{
    Ptr<GpuComputeModel> h100 = Model("h100", 0.5, 0.8);
    // Compute bound: 1e12 FLOP at 494.7 TFLOP/s (half of BF16's peak).
    EXPECT_NEAR(
        h100->KernelTime(1e12, 1e6, ComputeDataType::BF16).GetSeconds(), 1e12 / 494.7e12, 1e-12);
    // Memory bound: 1 GB at 2.68 TB/s.
    EXPECT_NEAR(
        h100->KernelTime(1e6, 1e9, ComputeDataType::BF16).GetSeconds(), 1e9 / 2.68e12, 1e-12);
    // At the ridge both bounds are equal.
    const double ridge = 494.7e12 / 2.68e12; // FLOP per byte
    const double bytes = 1e9;
    EXPECT_NEAR(h100->KernelTime(ridge * bytes, bytes, ComputeDataType::BF16).GetSeconds(),
                bytes / 2.68e12,
                1e-12);
    // Pure data movement, and nothing at all.
    EXPECT_NEAR(
        h100->KernelTime(0, 3.35e9, ComputeDataType::FP32).GetSeconds(), 3.35e9 / 2.68e12, 1e-12);
    EXPECT_EQ(h100->KernelTime(0, 0, ComputeDataType::FP32), Time(0));
    // FP8's peak is about twice BF16's (1,978.9 TFLOP/s).
    EXPECT_NEAR(h100->KernelTime(1e12, 0, ComputeDataType::FP8).GetSeconds(),
                1e12 / (1978.9e12 * 0.5),
                1e-12);
}

// A GEMM does 2mnk FLOPs and moves A, B and C once: a large square BF16 GEMM is compute
// bound, a matrix-vector product (n = 1) memory bound.
TEST_F(GpuComputeModelTest, MatmulFlopsAndBytes)
{
    Ptr<GpuComputeModel> a100 = Model("a100", 0.8, 0.9);
    const uint64_t n = 8192;
    const double flops = 2.0 * n * n * n;
    EXPECT_NEAR(a100->MatmulTime(n, n, n, ComputeDataType::BF16).GetSeconds(),
                flops / (312e12 * 0.8),
                1e-12);
    // GEMV: 2 n^2 FLOPs over (n^2 + 2n) x 2 bytes.
    const double bytes = (static_cast<double>(n) * n + 2.0 * n) * 2;
    EXPECT_NEAR(a100->MatmulTime(n, 1, n, ComputeDataType::BF16).GetSeconds(),
                bytes / (2039e9 * 0.9),
                1e-12);
    // A batch is that many products (each time rounded to the simulator's picoseconds).
    EXPECT_NEAR(a100->MatmulTime(1024, 1024, 1024, ComputeDataType::FP16, 8).GetSeconds(),
                8 * a100->MatmulTime(1024, 1024, 1024, ComputeDataType::FP16).GetSeconds(),
                8e-12);
    EXPECT_EQ(ComputeDataTypeBytes(ComputeDataType::TF32), 4u);
    EXPECT_EQ(ComputeDataTypeBytes(ComputeDataType::FP8), 1u);
    ComputeDataType t = ComputeDataType::FP32;
    EXPECT_TRUE(ParseComputeDataType("BF16", t));
    EXPECT_EQ(t, ComputeDataType::BF16);
    EXPECT_FALSE(ParseComputeDataType("int8", t));
}

// A block in FP8 pays for quantizing its GEMMs' inputs (forward) and the gradients into them
// (backward), 6 bytes an element; its score products run in BF16; a high-precision block (the
// output layer) runs its GEMMs in BF16 and quantizes nothing; BF16 quantizes nothing.
TEST_F(GpuComputeModelTest, Fp8BlocksQuantizeTheirGemmInputs)
{
    Ptr<GpuComputeModel> h100 = Model("h100", 0.5, 0.8);
    const double hbm = 3.35e12 * 0.8;
    GpuComputeModel::BlockCost b;
    b.gemmFlops = 1e12;
    b.scoreFlops = 1e11;
    b.elementBytes = 1e8;
    b.quantizedForward = 1e8;
    b.quantizedBackward = 3e8;
    const double gemm = 1e12 / (1978.9e12 * 0.5);
    const double scores = 1e11 / (989.4e12 * 0.5);
    const double elements = 1e8 / hbm;
    EXPECT_EQ(GpuComputeModel::FP8_QUANTIZE_BYTES, 6.0);
    EXPECT_NEAR(h100->BlockTime(b, ComputeDataType::FP8).GetSeconds(),
                gemm + scores + elements + 6 * 1e8 / hbm,
                1e-11);
    // Backward: twice the work, and the gradients' 3e8 elements quantized once; half a
    // backward pass (a part of context parallelism's two) half of them.
    EXPECT_NEAR(h100->BlockTime(b, ComputeDataType::FP8, 2, true).GetSeconds(),
                2 * (gemm + scores + elements) + 6 * 3e8 / hbm,
                1e-11);
    EXPECT_NEAR(h100->BlockTime(b, ComputeDataType::FP8, 1, true).GetSeconds(),
                gemm + scores + elements + 6 * 1.5e8 / hbm,
                1e-11);
    // BF16: the GEMMs at BF16's peak, nothing quantized.
    const double bf16 = 1e12 / (989.4e12 * 0.5) + scores + elements;
    EXPECT_NEAR(h100->BlockTime(b, ComputeDataType::BF16, 2, true).GetSeconds(), 2 * bf16, 1e-11);
    b.highPrecision = true;
    EXPECT_NEAR(h100->BlockTime(b, ComputeDataType::FP8).GetSeconds(), bf16, 1e-11);
}

// A data type the GPU lacks, or a preset that does not exist, aborts with one message.
TEST_F(GpuComputeModelTest, BadInputAborts)
{
    Ptr<GpuComputeModel> a100 = Model("a100", 0.8, 0.9);
    EXPECT_DEATH(a100->KernelTime(1e9, 0, ComputeDataType::FP8), "does not compute in fp8");
    EXPECT_DEATH(Model("v100", 0.8, 0.9), "no GPU preset 'v100'");
}

// A server preset names its GPU, and its communicators reduce at that GPU's HBM bandwidth
// unless the attribute was given.
TEST_F(GpuComputeModelTest, ServersReduceAtTheirGpusBandwidth)
{
    ServerHelper server;
    for (const auto& [preset, bytesPerSecond] :
         std::vector<std::pair<std::string, double>>{{"dgx-a100", 2039e9},
                                                     {"dgx-h100", 3.35e12},
                                                     {"hgx-b200", 7.7e12},
                                                     {"gb200-nvl72", 8e12}})
    {
        ASSERT_TRUE(server.SetPreset(preset));
        EXPECT_EQ(server.GetGpuMemoryBandwidth().GetBitRate(),
                  static_cast<uint64_t>(bytesPerSecond * 8))
            << preset;
    }
    ASSERT_TRUE(server.SetPreset("dgx-a100"));
    NodeContainer gpus;
    gpus.Create(2);
    CollectiveHelper collectives;
    server.ConfigureCollectives(collectives);
    collectives.Install(gpus);
    EXPECT_EQ(collectives.GetCommunicator(1)->GetReduceBandwidth(), DataRate("16312Gbps"));
}
