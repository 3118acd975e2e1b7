/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_TRAINING_H
#define AI_FABRIC_TEST_TRAINING_H

// What the training-step tests share (test-training-model.cc, test-training-parallelism.cc):
// their fixture, a small dense model and the FLOPs of a generated step.

#include "ai-fabric-test-fixture.h"
#include "ns3/transformer-model.h"
#include "ns3/workload.h"

namespace ns3
{

/// The training-step tests' fixture.
class TrainingModelTest : public AiFabricTest
{
};

/// A small dense model for generated steps: 8 layers, h 1024, 16 heads (8 KV), SwiGLU 2816.
inline TransformerSpec
SmallModel()
{
    TransformerSpec s;
    s.name = "small";
    s.layers = 8;
    s.hidden = 1024;
    s.ffnHidden = 2816;
    s.heads = 16;
    s.kvHeads = 8;
    s.vocab = 32000;
    s.seqLength = 2048;
    s.gatedMlp = true;
    return s;
}

/// SmallModel() as a mixture of experts: 8 experts of SwiGLU 1408, top 2, every layer.
inline TransformerSpec
SmallMoeModel()
{
    TransformerSpec s = SmallModel();
    s.name = "small-moe";
    s.experts = 8;
    s.topK = 2;
    s.expertFfnHidden = 1408;
    return s;
}

/**
 * \param w a generated step
 * \return the model FLOPs of its compute operations, over every rank
 */
inline double
StepFlops(const Workload& w)
{
    double flops = 0;
    for (const std::vector<WorkloadOp>& ops : w.ops)
    {
        for (const WorkloadOp& op : ops)
        {
            flops += op.flops;
        }
    }
    return flops;
}

} // namespace ns3

#endif /* AI_FABRIC_TEST_TRAINING_H */
