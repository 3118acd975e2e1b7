/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "gpu-compute-model.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <algorithm>
#include <cctype>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuComputeModel");
NS_OBJECT_ENSURE_REGISTERED(GpuComputeModel);

namespace
{

/// 1e12.
constexpr double TERA = 1e12;

/**
 * \param fp64 dense FP64 (tensor cores where the GPU has them) TFLOP/s
 * \param fp32 FP32 TFLOP/s
 * \param tf32 dense TF32 TFLOP/s
 * \param bf16 dense BF16 (and FP16) TFLOP/s
 * \param fp8 dense FP8 TFLOP/s (0: none)
 * \return FLOP/s by data type
 */
std::array<double, COMPUTE_DATA_TYPE_COUNT>
Peaks(double fp64, double fp32, double tf32, double bf16, double fp8)
{
    return {fp64 * TERA, fp32 * TERA, tf32 * TERA, bf16 * TERA, bf16 * TERA, fp8 * TERA};
}

/// The presets, from NVIDIA's datasheets (dense figures: without structured sparsity).
const std::vector<GpuSpec>&
Presets()
{
    static const std::vector<GpuSpec> presets{
        {"a100",
         "NVIDIA A100 SXM4 80 GB",
         Peaks(19.5, 19.5, 156, 312, 0),
         2039e9,
         80e9,
         "NVIDIA A100 Tensor Core GPU datasheet: FP64 Tensor Core 19.5 TFLOPS, FP32 19.5, TF32 "
         "156, BF16/FP16 312 (dense), HBM2e 2,039 GB/s, 80 GB",
         0.869,
         0.834,
         "MAMF: A100 SXM BF16 271.2 of 312 TFLOP/s; Azure ND A100 v4: Triad 1.70 of 2.039 TB/s"},
        {"h100",
         "NVIDIA H100 SXM5 80 GB",
         Peaks(66.9, 66.9, 494.7, 989.4, 1978.9),
         3.35e12,
         80e9,
         "NVIDIA H100 Tensor Core GPU datasheet (SXM): FP64 Tensor Core 66.9 TFLOPS, FP32 66.9, "
         "TF32 494.7, BF16/FP16 989.4, FP8 1,978.9 (dense), HBM3 3.35 TB/s, 80 GB",
         0.803,
         0.887,
         "MAMF: H100 SXM BF16 794.5 of 989 TFLOP/s; Azure ND H100 v5: Triad 2.97 of 3.35 TB/s; "
         "MAMF: FP8 e4m3 1,402.6 of 1,978.9 TFLOP/s",
         0.709},
        {"h800",
         "NVIDIA H800 SXM5 80 GB",
         Peaks(1, 66.9, 494.7, 989.4, 1978.9),
         3.35e12,
         80e9,
         "NVIDIA H800 Tensor Core GPU datasheet (SXM): the H100's die and Tensor Core peaks "
         "(TF32 494.7, BF16/FP16 989.4, FP8 1,978.9 dense), FP64 1 TFLOPS, HBM3 3.35 TB/s, "
         "80 GB; NVLink 400 GB/s",
         0.803,
         0.887,
         "the H100's (the same silicon and memory): MAMF H100 SXM BF16 794.5 of 989 TFLOP/s, "
         "FP8 1,402.6 of 1,978.9; Azure ND H100 v5 Triad 2.97 of 3.35 TB/s",
         0.709,
         // DeepEP's intranode normal kernels on 8 H800 (EP 8, 24 SMs): dispatch 153 GB/s,
         // combine 158 GB/s (deepseek-ai/DeepEP, docs/legacy.md's table).
         153e9,
         158e9},
        {"h200",
         "NVIDIA H200 SXM 141 GB",
         Peaks(66.9, 66.9, 494.7, 989.4, 1978.9),
         4.8e12,
         141e9,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM): the H100's compute, HBM3e 4.8 TB/s, "
         "141 GB",
         0.803,
         0.865,
         "MAMF: H200 BF16 as H100 (794.5 of 989 TFLOP/s); Azure NDv5 H200: Triad 4.15 of 4.8 TB/s; "
         "MAMF: FP8 e4m3 1,453.4 of 1,978.9 TFLOP/s",
         0.734},
        {"b200",
         "NVIDIA B200 (HGX B200) 180 GB",
         Peaks(37, 75, 1100, 2250, 4500),
         7.7e12,
         180e9,
         "NVIDIA HGX B200 datasheet, per GPU: FP64 37 TFLOPS, FP32 75, TF32 1.1 PFLOPS, "
         "BF16/FP16 2.25, FP8 4.5 (dense), HBM3e 7.7 TB/s, 180 GB",
         0.776,
         0.887,
         "MAMF: B200 SXM BF16 1,745 of 2,250 TFLOP/s; memory: no public measurement found, the "
         "H100's share"},
        {"gb200",
         "NVIDIA Blackwell GPU of a GB200 (NVL72) 186 GB",
         Peaks(40, 80, 1250, 2500, 5000),
         8e12,
         186e9,
         "NVIDIA GB200 NVL72 datasheet, per GPU (rack / 72): FP64 40 TFLOPS, FP32 80, TF32 "
         "1.25 PFLOPS, BF16/FP16 2.5, FP8 5 (dense), HBM3e 8 TB/s, 186 GB",
         0.776,
         0.887,
         "no public measurement found: the B200's matmul share and the H100's memory share"},
    };
    return presets;
}

/**
 * \param text a string
 * \return it in lower case
 */
std::string
Lower(std::string text)
{
    std::transform(text.begin(),
                   text.end(),
                   text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

} // namespace

const char*
ComputeDataTypeName(ComputeDataType type)
{
    switch (type)
    {
    case ComputeDataType::FP64:
        return "fp64";
    case ComputeDataType::FP32:
        return "fp32";
    case ComputeDataType::TF32:
        return "tf32";
    case ComputeDataType::BF16:
        return "bf16";
    case ComputeDataType::FP16:
        return "fp16";
    case ComputeDataType::FP8:
        return "fp8";
    }
    return "unknown";
}

bool
ParseComputeDataType(const std::string& name, ComputeDataType& type)
{
    const std::string lower = Lower(name);
    for (uint32_t i = 0; i < COMPUTE_DATA_TYPE_COUNT; ++i)
    {
        const auto candidate = static_cast<ComputeDataType>(i);
        if (lower == ComputeDataTypeName(candidate))
        {
            type = candidate;
            return true;
        }
    }
    return false;
}

uint32_t
ComputeDataTypeBytes(ComputeDataType type)
{
    switch (type)
    {
    case ComputeDataType::FP64:
        return 8;
    case ComputeDataType::FP32:
    case ComputeDataType::TF32:
        return 4;
    case ComputeDataType::BF16:
    case ComputeDataType::FP16:
        return 2;
    case ComputeDataType::FP8:
        return 1;
    }
    return 4;
}

TypeId
GpuComputeModel::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::GpuComputeModel")
              .SetParent<Object>()
              .SetGroupName("AiFabric")
              .AddConstructor<GpuComputeModel>()
              .AddAttribute(
                  "Gpu",
                  "The GPU: a100, h100 (default), h800, h200, b200 or gb200, with its "
                  "datasheet's dense peak FLOP/s per data type and HBM bandwidth.",
                  StringValue("h100"),
                  MakeStringAccessor(&GpuComputeModel::SetGpuName, &GpuComputeModel::GetGpuName),
                  MakeStringChecker())
              .AddAttribute("MatmulEfficiency",
                            "Share of the peak dense FLOP/s a large matrix multiplication "
                            "reaches; 0 (the default): the GPU preset's, measured (A100 0.869, "
                            "H100 and H200 0.803, B200 and GB200 0.776; the manual gives the "
                            "sources).",
                            DoubleValue(0),
                            MakeDoubleAccessor(&GpuComputeModel::m_matmulEfficiency),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("MemoryEfficiency",
                            "Share of the HBM bandwidth a memory-bound kernel reaches; 0 (the "
                            "default): the GPU preset's, measured (A100 0.834, H100 0.887, "
                            "H200 0.865; B200 and GB200 the H100's; the manual gives the "
                            "sources).",
                            DoubleValue(0),
                            MakeDoubleAccessor(&GpuComputeModel::m_memoryEfficiency),
                            MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

GpuComputeModel::GpuComputeModel()
{
    NS_LOG_FUNCTION(this);
    GetPreset("h100", m_gpu);
}

GpuComputeModel::~GpuComputeModel()
{
    NS_LOG_FUNCTION(this);
}

bool
GpuComputeModel::GetPreset(const std::string& name, GpuSpec& spec)
{
    const std::string lower = Lower(name);
    for (const GpuSpec& preset : Presets())
    {
        if (preset.name == lower)
        {
            spec = preset;
            return true;
        }
    }
    return false;
}

std::vector<std::string>
GpuComputeModel::GetPresetNames()
{
    std::vector<std::string> names;
    for (const GpuSpec& preset : Presets())
    {
        names.push_back(preset.name);
    }
    return names;
}

void
GpuComputeModel::SetGpu(const GpuSpec& spec)
{
    NS_ABORT_MSG_IF(spec.memoryBandwidth <= 0, "GpuComputeModel: a GPU needs a memory bandwidth");
    m_gpu = spec;
}

const GpuSpec&
GpuComputeModel::GetGpu() const
{
    return m_gpu;
}

void
GpuComputeModel::SetGpuName(std::string name)
{
    GpuSpec spec;
    NS_ABORT_MSG_IF(!GetPreset(name, spec),
                    "GpuComputeModel: no GPU preset '" << name
                                                       << "' (a100, h100, h800, h200, b200, "
                                                       << "gb200)");
    SetGpu(spec);
}

std::string
GpuComputeModel::GetGpuName() const
{
    return m_gpu.name;
}

bool
GpuComputeModel::Supports(ComputeDataType type) const
{
    return m_gpu.peakFlops[static_cast<uint32_t>(type)] > 0;
}

double
GpuComputeModel::GetEffectiveFlops(ComputeDataType type) const
{
    NS_ABORT_MSG_IF(!Supports(type),
                    "GpuComputeModel: the " << m_gpu.description << " does not compute in "
                                            << ComputeDataTypeName(type));
    const bool fp8
        = type == ComputeDataType::FP8 && m_matmulEfficiency <= 0 && m_gpu.fp8MatmulEfficiency > 0;
    return m_gpu.peakFlops[static_cast<uint32_t>(type)]
           * (fp8 ? m_gpu.fp8MatmulEfficiency : GetMatmulEfficiency());
}

double
GpuComputeModel::GetEffectiveMemoryBandwidth() const
{
    return m_gpu.memoryBandwidth * GetMemoryEfficiency();
}

double
GpuComputeModel::GetMatmulEfficiency() const
{
    return m_matmulEfficiency > 0 ? m_matmulEfficiency : m_gpu.matmulEfficiency;
}

double
GpuComputeModel::GetMemoryEfficiency() const
{
    return m_memoryEfficiency > 0 ? m_memoryEfficiency : m_gpu.memoryEfficiency;
}

Time
GpuComputeModel::KernelTime(double flops, double bytes, ComputeDataType type) const
{
    NS_ABORT_MSG_IF(flops < 0 || bytes < 0, "GpuComputeModel: negative work");
    const double compute = flops > 0 ? flops / GetEffectiveFlops(type) : 0;
    const double memory = bytes / GetEffectiveMemoryBandwidth();
    return Seconds(std::max(compute, memory));
}

Time
GpuComputeModel::MatmulTime(
    uint64_t m, uint64_t n, uint64_t k, ComputeDataType type, uint64_t batch) const
{
    const double b = static_cast<double>(batch);
    const double flops = 2.0 * m * n * k * b;
    const double elements
        = (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n)
          * b;
    return KernelTime(flops, elements * ComputeDataTypeBytes(type), type);
}

Time
GpuComputeModel::BlockTime(const BlockCost& b,
                           ComputeDataType type,
                           double scale,
                           bool backward) const
{
    const bool fp8 = type == ComputeDataType::FP8;
    const ComputeDataType scores = fp8 ? ComputeDataType::BF16 : type;
    const ComputeDataType gemms = fp8 && b.highPrecision ? ComputeDataType::BF16 : type;
    Time t = KernelTime(scale * b.gemmFlops, scale * b.gemmBytes, gemms)
             + KernelTime(scale * b.scoreFlops, scale * b.scoreBytes, scores)
             + KernelTime(0, scale * b.elementBytes, type);
    if (gemms == ComputeDataType::FP8)
    {
        // The pass's share of its quantized elements: scale is 2 for a whole backward pass.
        const double quantized
            = backward ? scale / 2 * b.quantizedBackward : scale * b.quantizedForward;
        t += KernelTime(0, FP8_QUANTIZE_BYTES * quantized, type);
    }
    return t;
}

} // namespace ns3
