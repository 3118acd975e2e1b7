/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef GPU_APPLICATION_H
#define GPU_APPLICATION_H

#include "collective-schedule.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class Communicator;

/**
 * \ingroup ai-fabric
 * One step of a GPU's workload: compute, then a collective.
 */
struct GpuWorkloadStep
{
    Time compute;                             //!< GPU compute before the collective (may be zero)
    Ptr<const CollectiveSchedule> collective; //!< the collective after it (may be null)
};

/**
 * \ingroup ai-fabric
 * \brief One rank's application: runs a workload of compute and collective steps, the shape
 * of a training iteration (forward and backward compute, then gradient collectives).
 *
 * Every rank runs the same steps in the same order, each as soon as its previous step ended
 * on this rank; there is no barrier: ranks synchronise only through the collectives' data, as
 * NCCL ranks do. A GPU's compute can be stretched with ComputeScale to study stragglers.
 */
class GpuApplication : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GpuApplication();
    ~GpuApplication() override;

    /**
     * \param communicator this rank's communicator
     * \param workload the steps of one iteration
     */
    void Setup(Ptr<Communicator> communicator, std::vector<GpuWorkloadStep> workload);

    /// \return steps finished so far (over all iterations)
    uint32_t GetStepsDone() const;

    /// \return when the last step of the last iteration ended (zero until then)
    Time GetFinishTime() const;

    /**
     * TracedCallback signature for a finished step.
     * \param iteration the iteration
     * \param step the step within it
     * \param start when the step started
     * \param end when it ended
     */
    typedef void (*StepTracedCallback)(uint32_t iteration, uint32_t step, Time start, Time end);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Start the current step's compute.
    void RunStep();

    /// The compute of the current step ended: run its collective.
    void ComputeDone();

    /**
     * \param rank this rank
     */
    void CollectiveDone(uint32_t rank);

    /// The current step ended: trace it and move on.
    void StepDone();

    Ptr<Communicator> m_communicator;                           //!< this rank's communicator
    std::vector<GpuWorkloadStep> m_workload;                    //!< one iteration
    uint32_t m_iterations{1};                                   //!< iterations to run
    double m_computeScale{1.0};                                 //!< compute time multiplier
    uint32_t m_iteration{0};                                    //!< current iteration
    uint32_t m_step{0};                                         //!< current step
    uint32_t m_stepsDone{0};                                    //!< steps finished
    Time m_stepStart;                                           //!< start of the current step
    Time m_finish;                                              //!< end of the workload
    bool m_running{false};                                      //!< between start and stop
    EventId m_computeEvent;                                     //!< the compute in progress
    TracedCallback<uint32_t, uint32_t, Time, Time> m_stepTrace; //!< step finished
};

} // namespace ns3

#endif /* GPU_APPLICATION_H */
