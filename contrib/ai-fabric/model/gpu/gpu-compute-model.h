/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef GPU_COMPUTE_MODEL_H
#define GPU_COMPUTE_MODEL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The number formats a GPU kernel computes in.
 */
enum class ComputeDataType : uint8_t
{
    FP64, //!< IEEE double (tensor cores where the GPU has them for FP64)
    FP32, //!< IEEE single, without tensor cores
    TF32, //!< tensor cores on FP32 data with a 10-bit mantissa
    BF16, //!< bfloat16 on tensor cores
    FP16, //!< IEEE half on tensor cores
    FP8,  //!< 8-bit floating point on tensor cores (Hopper and later)
};

/// How many data types there are.
constexpr uint32_t COMPUTE_DATA_TYPE_COUNT = 6;

/**
 * \param type a data type
 * \return its name as on the command line ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8")
 */
const char* ComputeDataTypeName(ComputeDataType type);

/**
 * \param name a name as on the command line (any case)
 * \param type set to the data type named
 * \return false if the name is not a data type
 */
bool ParseComputeDataType(const std::string& name, ComputeDataType& type);

/**
 * \param type a data type
 * \return bytes per element (TF32 is stored as FP32: 4)
 */
uint32_t ComputeDataTypeBytes(ComputeDataType type);

/**
 * \ingroup ai-fabric
 * A GPU as its datasheet gives it: peak dense FLOP/s per data type and its memory.
 */
struct GpuSpec
{
    std::string name;        //!< preset name ("h100")
    std::string description; //!< e.g. "NVIDIA H100 SXM5 80 GB"
    std::array<double, COMPUTE_DATA_TYPE_COUNT>
        peakFlops{};               //!< dense FLOP/s by data type (0: none)
    double memoryBandwidth{0};     //!< HBM bytes/s
    double memoryBytes{0};         //!< HBM capacity (bytes)
    std::string source;            //!< the datasheet
    double matmulEfficiency{1};    //!< share of peak a large GEMM reaches, measured
    double memoryEfficiency{1};    //!< share of HBM a streaming kernel reaches, measured
    std::string efficiencySource;  //!< where the efficiencies were measured
    double fp8MatmulEfficiency{0}; //!< share of the FP8 peak a large FP8 GEMM reaches (0: as BF16)
    /// DeepEP's normal dispatch kernel: the bytes/s one GPU lands, by DeepEP's count (every
    /// token it receives, its own included), as measured on it (0: not measured, not costed)
    double deepEpDispatchRate{0};
    double deepEpCombineRate{0}; //!< ... and its combine kernel's
};

/**
 * \ingroup ai-fabric
 * \brief What a GPU kernel costs: the roofline of its GPU.
 *
 * A kernel that does F floating-point operations in data type d and moves B bytes of GPU
 * memory takes max(F / (peak(d) x MatmulEfficiency), B / (HBM x MemoryEfficiency)): bound by
 * the tensor cores or by the memory, whichever is slower. Peaks are dense (without
 * structured sparsity), from NVIDIA's datasheets (GetPreset()). The efficiencies are what a
 * well-tuned large kernel reaches of each peak, measured on each GPU (the preset's, unless the
 * attributes set them); small kernels, launch gaps, and kernels that
 * overlap communication and contend for memory and SMs are not modelled (the manual says
 * what this leaves out).
 */
class GpuComputeModel : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GpuComputeModel();
    ~GpuComputeModel() override;

    /**
     * \param name a preset: "a100", "h100", "h800", "h200", "b200", "gb200"
     * \param spec set to its datasheet figures
     * \return false if there is no such preset
     */
    static bool GetPreset(const std::string& name, GpuSpec& spec);

    /// \return every preset's name
    static std::vector<std::string> GetPresetNames();

    /**
     * \brief Model this GPU (the Gpu attribute does the same by name).
     * \param spec the GPU
     */
    void SetGpu(const GpuSpec& spec);

    /// \return the GPU modelled
    const GpuSpec& GetGpu() const;

    /**
     * \param type a data type
     * \return true if the GPU's tensor or vector units compute in it
     */
    bool Supports(ComputeDataType type) const;

    /**
     * \param type a data type the GPU supports
     * \return the FLOP/s a kernel reaches: peak x MatmulEfficiency
     */
    double GetEffectiveFlops(ComputeDataType type) const;

    /// \return the bytes/s a kernel reaches: HBM x MemoryEfficiency
    double GetEffectiveMemoryBandwidth() const;

    /// \return MatmulEfficiency, or the preset's where it is 0
    double GetMatmulEfficiency() const;
    /// \return MemoryEfficiency, or the preset's where it is 0
    double GetMemoryEfficiency() const;

    /**
     * \brief A kernel's time on the roofline.
     * \param flops floating-point operations (a multiply-add is 2)
     * \param bytes bytes of GPU memory read and written
     * \param type the data type of its arithmetic (one the GPU supports)
     * \return max(flops / effective FLOP/s, bytes / effective bandwidth)
     */
    Time KernelTime(double flops, double bytes, ComputeDataType type) const;

    /**
     * \brief A batch of matrix multiplications C[m x n] = A[m x k] B[k x n].
     * \param m rows of A and C
     * \param n columns of B and C
     * \param k columns of A, rows of B
     * \param type the data type of A, B and C
     * \param batch independent products (1: one GEMM)
     * \return KernelTime(2 m n k batch, (m k + k n + m n) x bytes per element x batch)
     */
    Time MatmulTime(
        uint64_t m, uint64_t n, uint64_t k, ComputeDataType type, uint64_t batch = 1) const;

    /// The kernels of a transformer block (attention or MLP) on one GPU: what each kind costs.
    struct BlockCost
    {
        double gemmFlops{0};    //!< its GEMMs
        double gemmBytes{0};    //!< their weights and activations
        double scoreFlops{0};   //!< attention's QK^T and AV
        double scoreBytes{0};   //!< their Q, K, V and output (and a KV cache read)
        double elementBytes{0}; //!< norms, activation, residual
        /// Elements its FP8 GEMMs' inputs quantize, forward (the activations into each GEMM)
        double quantizedForward{0};
        /// Elements the gradients into its FP8 GEMMs quantize, backward (their outputs')
        double quantizedBackward{0};
        /// Its GEMMs stay in BF16 when the model computes in FP8: a module outside Transformer
        /// Engine (Megatron-Core's output layer and router), which FP8 autocasting leaves alone
        bool highPrecision{false};
    };

    /**
     * Bytes of GPU memory one element quantized to FP8 costs: Transformer Engine's current
     * scaling (Float8CurrentScaling) reads the BF16 tensor once for its amax, then casts it,
     * reading it again and writing FP8 twice, row-wise and column-wise (the transpose that
     * Hopper's FP8 GEMMs need for the weight gradient): 2 + 2 + 1 + 1.
     */
    static constexpr double FP8_QUANTIZE_BYTES = 6;

    /**
     * \brief A block's time: its GEMMs, its score products and its element-wise kernels, each
     *        on its own roofline, one after the other. Attention's score products stay in BF16
     *        when the GEMMs run in FP8 (Transformer Engine's FP8 recipes leave dot-product
     *        attention in BF16 by default), as do the GEMMs of a high-precision block. When the
     *        GEMMs run in FP8, the tensors they take are quantized first, each element costing
     *        FP8_QUANTIZE_BYTES of memory traffic: forward the block's quantizedForward
     *        elements, backward its quantizedBackward.
     * \param b the block
     * \param type the GEMMs' data type
     * \param scale 1 forward, 2 backward (FLOPs and bytes scale alike); a part of a pass
     *        (context parallelism's) scales in proportion
     * \param backward true for the backward pass (which quantizes the gradients)
     * \return its time
     */
    Time BlockTime(const BlockCost& b,
                   ComputeDataType type,
                   double scale = 1,
                   bool backward = false) const;

  private:
    /**
     * \param name a preset's name (the Gpu attribute)
     */
    void SetGpuName(std::string name);
    /// \return the preset's name (the Gpu attribute)
    std::string GetGpuName() const;

    GpuSpec m_gpu;                //!< the GPU
    double m_matmulEfficiency{0}; //!< share of peak FLOP/s reached
    double m_memoryEfficiency{0}; //!< share of HBM bandwidth reached
};

} // namespace ns3

#endif /* GPU_COMPUTE_MODEL_H */
