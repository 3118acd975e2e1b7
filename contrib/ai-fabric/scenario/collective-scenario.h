/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef COLLECTIVE_SCENARIO_H
#define COLLECTIVE_SCENARIO_H

#include "collective-sweep.h"
#include "failure-report.h"
#include "ns3/data-rate.h"
#include "ns3/fault-schedule.h"
#include "ns3/inference-runner.h"
#include "ns3/node-container.h"
#include "ns3/training-workload.h"
#include "ns3/workload.h"
#include "scenario-options.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class WorkloadRunner;

class CollectiveHelper;
class CollectiveScenario;
class CollectiveTuner;
class Communicator;
class FabricHelper;
class FabricOutputFile;

/**
 * \ingroup ai-fabric
 * \brief A topology as a plug-in of the collective scenario driver (CollectiveScenario).
 *
 * The driver owns what every sweep program shares: the fabric and its congestion control, the
 * collective, the sweep, the failures, the output files and the run with its baseline. A
 * topology adds its own flags, builds itself on the fabric, names its ranks, and says what
 * its output adds. It registers itself by name (ScenarioTopologyRegistration), so that a new
 * topology is one source file (see the manual's "Extending ai-fabric").
 *
 * The driver calls, in this order: DeclareOptions(); after parsing, Check(), CheckAlgorithm()
 * and ConfigureSweep(); then per run (a baseline without failures first when failures are
 * given), on a fresh Copy() of the configured topology, ConfigureFabric(), Install(),
 * GetRanks(), GetPathLatency(), ConfigureTuner(), Watch(), PrintHeader() (the run that
 * prints) and after the run AfterRun(); at the end GetScenarioJson() on the configured
 * topology. What a run learns reaches the JSON through the run's output
 * (FailureRunOutput::facts for the "scenario" keys, FailureRunOutput::extra for keys of its
 * own), not through the topology's members.
 */
class ScenarioTopology
{
  public:
    /// A topology is deleted through this interface.
    virtual ~ScenarioTopology() = default;

    /**
     * \brief Declare this topology's flags (ScenarioOptions::Add) and take the shared ones
     *        it uses beyond the driver's (ScenarioOptions::Use, UseFabricOption).
     * \param options the program's flags
     */
    virtual void DeclareOptions(ScenarioOptions& options) = 0;

    /**
     * \brief Check the parsed flags before anything is built; options.Fail() on bad input.
     * \param options the parsed flags
     * \param probe the chosen fabric's helper, with its options applied (it builds nothing)
     */
    virtual void Check(ScenarioOptions& options, FabricHelper& probe) = 0;

    /// \return the number of GPUs (ranks); valid after Check()
    virtual uint32_t GetNGpus() const = 0;

    /// \return the rate of the GPUs' links
    virtual DataRate GetLinkRate() const = 0;

    /**
     * \param algo --algo (not "auto")
     * \return "" if the topology can run it, or why not (one line)
     */
    virtual std::string CheckAlgorithm(const std::string& algo) const;

    /**
     * \brief What the sweep needs to know of the system (servers, the torus's rank grid).
     * \param sweep the sweep's configuration
     */
    virtual void ConfigureSweep(CollectiveSweepConfig& sweep) const;

    /**
     * \brief Refuse, with options.Fail(), what the topology has that the flow engine cannot
     *        run (--mode=flow). None in the base class.
     * \param options the parsed options
     */
    virtual void CheckFlowMode(ScenarioOptions& options) const;

    /**
     * \brief Set the fabric before it is built (buffers, say).
     * \param fabric the fabric's helper
     */
    virtual void ConfigureFabric(FabricHelper& fabric) const;

    /**
     * \brief Build the topology on the fabric (a fresh copy of this object runs each run).
     * \param fabric the fabric's helper
     */
    virtual void Install(FabricHelper& fabric) = 0;

    /// \return the GPUs in rank order; after Install() and FabricHelper::AssignStreams()
    virtual NodeContainer GetRanks() const = 0;

    /// \return the node of each rank's NIC, in rank order (default: the GPU's own)
    virtual NodeContainer GetNicNodes() const;

    /**
     * \param fabric the fabric, built
     * \return the one-way latency of the longest path between two GPUs' NICs: the switches'
     *         port latency and the cables (the tuner's alpha adds the NICs and the protocol)
     */
    virtual Time GetPathLatency(const FabricHelper& fabric) const = 0;

    /**
     * \brief Set the communicators before they are installed (the servers' GPU memory
     *        bandwidth for reductions, say). Nothing in the base class.
     * \param collectives the helper that installs them
     */
    virtual void ConfigureCollectives(CollectiveHelper& collectives) const;

    /**
     * \brief Describe the system to the tuner beyond the fabric (NVLink servers, say).
     * \param tuner the tuner
     * \param comm rank 0's communicator
     */
    virtual void ConfigureTuner(CollectiveTuner& tuner, const Communicator& comm) const;

    /**
     * \brief Connect to the run's traces (per-dimension statistics, say).
     * \param collectives the installed communicators
     */
    virtual void Watch(CollectiveHelper& collectives);

    /**
     * \brief How the nodes are split over the MPI ranks (after Install(); one line).
     * \return the line, or empty if the topology does not say
     */
    virtual std::string GetSplit() const;

    /// \return the GPUs' compute preset (GpuComputeModel; "h100" in the base class)
    virtual std::string GetGpuPreset() const;

    /**
     * \brief Print the lines before the "# collective" line: the topology's summary.
     * \param os the stream
     * \param scenario the driver
     */
    virtual void PrintHeader(std::ostream& os, const CollectiveScenario& scenario) const = 0;

    /**
     * \brief After a run: fill what it adds to the output (FailureRunOutput::extra, written
     *        after the JSON's "scenario"), and print what follows the table (the run that
     *        prints).
     * \param out the run's output
     * \param os the stream, or nullptr for the silent baseline
     * \param scenario the driver
     */
    virtual void AfterRun(FailureRunOutput& out,
                          std::ostream* os,
                          const CollectiveScenario& scenario);

    /**
     * \brief Write the JSON's "scenario" object: the topology's keys and the driver's
     *        (CollectiveScenario::GetCommonJson), in the order the topology chooses.
     * \param scenario the driver
     * \param out the run that counts
     * \return the object
     */
    virtual nlohmann::ordered_json GetScenarioJson(const CollectiveScenario& scenario,
                                                   const FailureRunOutput& out) const = 0;

    /// \return a fresh copy, configured as this one (before Install)
    virtual std::unique_ptr<ScenarioTopology> Copy() const = 0;
};

/**
 * \ingroup ai-fabric
 * \brief Registers a topology with the scenario driver by name, at static initialization:
 *        a namespace-scope object in the topology's source file.
 */
class ScenarioTopologyRegistration
{
  public:
    /// Creates a topology.
    using Factory = std::function<std::unique_ptr<ScenarioTopology>()>;

    /**
     * \param name the name programs use (ai-fabric-fattree runs "fat-tree")
     * \param factory creates it
     */
    ScenarioTopologyRegistration(const std::string& name, Factory factory);

    /**
     * \param name a registered name
     * \return a new topology, or nullptr if none has that name
     */
    static std::unique_ptr<ScenarioTopology> Create(const std::string& name);

    /// \return the registered names, sorted
    static std::vector<std::string> Names();

    /// \return the registered names, sorted, as "a, b, c"
    static std::string JoinedNames();

  private:
    /// \return the registry
    static std::vector<std::pair<std::string, Factory>>& Registry();
};

/**
 * \ingroup ai-fabric
 * \brief The sweep programs' driver: an nccl-tests style sweep of a collective on a
 *        registered topology and fabric, with failures and a baseline, a table on stdout
 *        and a JSON file. ai-fabric-fattree and ai-fabric-torus are this class with their
 *        topology.
 *
 * The flags it declares: --fabric, --cc and --dcqcn (ScenarioOptions::Catalogue), the fabric
 * plug-ins' --pfc (ScenarioOptions::UseFabricOption), --collective, --algo, --minBytes,
 * --maxBytes, --stepFactor, --iters, --warmup, --channels, --failures, --json and --quiet,
 * and --maxEvents and --maxWallTime of the watchdog; the topology declares the rest, and may
 * declare any of these first with its own default.
 */
class CollectiveScenario
{
  public:
    /**
     * \param program the program's name
     * \param topology a registered topology's name, or "" for the one --topology names
     *        (fat-tree by default)
     */
    CollectiveScenario(const std::string& program, const std::string& topology);
    /// Out of line: the output file's type is only declared here.
    ~CollectiveScenario();

    /**
     * \brief The program: parse, check, run, print and write.
     * \param argc argument count
     * \param argv arguments
     * \param usage the program's description for --help
     * \return the exit status: 0, 1 (an output could not be written) or
     *         FailureReport::EXIT_STALLED (a finding stopped the run); bad input exits with 2
     */
    int Main(int argc, char* argv[], const std::string& usage);

    /**
     * \brief Run a workload instead of a sweep (ai-fabric-train): the program takes
     *        --workload=FILE (WorkloadFile's format) or --model=NAME (a TrainingWorkload step,
     *        with --tp, --pp, --microBatch, --globalBatch, --seqLength, --dtype) and
     *        --timeline=FILE, and not the sweep's flags; it prints the step's time and
     *        breakdown. Before Main().
     * \return this
     */
    CollectiveScenario& EnableWorkloads();

    /// \return the flags
    const ScenarioOptions& GetOptions() const;

    /// \return the chosen fabric's helper (options applied; it builds nothing)
    const FabricHelper& GetFabric() const;

    /// \return the congestion control's short name or TypeId
    const std::string& GetCongestionControl() const;

    /// \return the sweep
    const CollectiveSweepConfig& GetSweep() const;

    /// \return the channels
    uint32_t GetChannels() const;

    /**
     * \brief The "scenario" keys every sweep program writes, for the topology to place.
     * \param out the run that counts
     * \return fabric, pfc, ecn, dcqcn, ibcc, preset, collective, algo, channels, protocol,
     * minBytes, maxBytes, stepFactor, iters, warmup, RngRun (those the program has)
     */
    nlohmann::ordered_json GetCommonJson(const FailureRunOutput& out) const;

    /**
     * \brief Add the sweep's "scenario" keys, which every sweep program writes last:
     *        collective, algo, channels, protocol, minBytes, maxBytes, stepFactor, iters,
     *        warmup, RngRun.
     * \param j the "scenario" object
     * \param out the run that counts
     */
    void AddSweepJson(nlohmann::ordered_json& j, const FailureRunOutput& out) const;

  private:
    /**
     * \brief Parse and check everything before building anything.
     * \param argc argument count
     * \param argv arguments
     * \param usage the program's description for --help
     */
    void Configure(int argc, char* argv[], const std::string& usage);

    /**
     * \param inject with the failures
     * \param print the run that prints
     * \return its output
     */
    FailureRunOutput Simulate(bool inject, bool print);

    /**
     * \brief Build the tuner of a run.
     * \param fabric the built fabric
     * \param topology the built topology
     * \param collectives the communicators
     * \return the tuner
     */
    CollectiveTuner MakeTuner(const FabricHelper& fabric,
                              const ScenarioTopology& topology,
                              CollectiveHelper& collectives) const;

    /// Declare the workload mode's flags (EnableWorkloads()).
    void DeclareWorkloadOptions();

    /// \return the flag that names the workload ("--model=llama3-8b", ...)
    std::string WorkloadSource() const;

    /**
     * \brief Configure --serve from the parsed flags and --model's shape; one line and exit
     *        status 2 on bad input.
     * \param model the model, its TP and data type
     */
    void ConfigureServing(const TrainingConfig& model);

    /**
     * \brief Report a serving run: the requests' times to first token and per output token.
     * \param serving the run
     * \param print the run that prints
     * \param out the run's output
     */
    void ReportServing(const InferenceRunner& serving, bool print, FailureRunOutput& out) const;

    /**
     * \brief A serving run as a Chrome/Perfetto trace: a process per instance, a thread per
     *        request, its queueing, prompt, cache transfer and decode.
     * \param os where to write
     * \param serving the run
     */
    static void WriteServingTimeline(std::ostream& os, const InferenceRunner& serving);

    /**
     * \brief Build the --moe workload: every rank dispatches its tokens to their experts,
     *        then combines their outputs, as DeepEP's tests time them; one line and exit
     *        status 2 on bad input.
     * \param gpu the GPUs (DeepEP's copy rates)
     */
    void MakeMoeWorkload(const GpuSpec& gpu);
    /**
     * \brief DeepEP's kernels' copy rates: --deepepRates, or the GPU's measured ones.
     * \param gpu the GPU
     * \return the dispatch's and the combine's bytes/s (0: not costed)
     */
    std::pair<double, double> DeepEpRates(const GpuSpec& gpu);

    /**
     * \brief Read, trace or generate the workload from the parsed flags; one line and exit
     *        status 2 on bad input.
     * \param algo --algo
     */
    void ConfigureWorkload(const std::string& algo);

    /**
     * \brief What a workload run reports: the JSON's "workload" object (with the model's MFU
     *        under --model), and with print the step's lines and the timeline.
     * \param workload the run
     * \param gpus the GPUs
     * \param print the run that prints
     * \param out the run's output
     */
    void ReportWorkload(const WorkloadRunner& workload,
                        uint32_t gpus,
                        bool print,
                        FailureRunOutput& out) const;

    /**
     * \brief Make a workload's schedules: each collective with its own "algo", or --algo, or
     *        where --algo=auto the ring (direct for all-to-all); with the protocol --protocol
     *        names, or the tuner's choice for that algorithm and the communicator's size.
     * \param runner the workload's runner (its groups added), or nullptr
     * \param serving the serving run's runner (its groups added), or nullptr
     * \param collectives the installed communicators
     * \param tuner the run's tuner
     */
    void PrepareWorkload(WorkloadRunner* runner,
                         InferenceRunner* serving,
                         CollectiveHelper& collectives,
                         const CollectiveTuner& tuner);

    /**
     * \brief The JSON output (DESIGN.md section 5): what --json writes and --plot draws.
     * \param base the run without failures (when failures were injected)
     * \param out the run
     * \param wall wall-clock seconds of the program
     * \return the document
     */
    nlohmann::ordered_json MakeJson(const FailureRunOutput& base,
                                    const FailureRunOutput& out,
                                    double wall) const;

    /**
     * \brief Report bad input found once the topology exists: discard the JSON, exit with 2.
     * \param message one line
     */
    [[noreturn]] void FailClean(const std::string& message);

    std::string m_program;                             //!< for messages
    std::string m_topologyName;                        //!< the registered topology
    bool m_anyTopology{false};                         //!< chosen by --topology
    ScenarioOptions m_options;                         //!< the flags
    std::unique_ptr<ScenarioTopology> m_topology;      //!< as configured
    std::unique_ptr<FabricHelper> m_probe;             //!< the chosen fabric, nothing built
    std::string m_cc;                                  //!< congestion control
    CollectiveType m_type{CollectiveType::ALL_REDUCE}; //!< --collective
    CollectiveSweepConfig m_sweep;                     //!< the sweep
    uint32_t m_channels{1};                            //!< --channels
    bool m_flow{false};                                //!< --mode=flow
    std::vector<FaultEvent> m_faults;                  //!< --failures
    std::unique_ptr<FabricOutputFile> m_json;          //!< --json, opened before the runs
    bool m_workloads{false};                           //!< EnableWorkloads()
    std::unique_ptr<Workload> m_workload;              //!< --workload, read and checked
    std::unique_ptr<FabricOutputFile> m_timeline;      //!< --timeline, opened before the runs
    std::unique_ptr<TrainingConfig> m_training;        //!< --model: the step generated
    Ptr<GpuComputeModel> m_trainingGpu;                //!< --model: the GPUs' compute model
    bool m_moe{false};                                 //!< --moe: the dispatch-combine run
    std::unique_ptr<InferenceConfig> m_inference;      //!< --serve: the serving run
};

} // namespace ns3

#endif /* COLLECTIVE_SCENARIO_H */
