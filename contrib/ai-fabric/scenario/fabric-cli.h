/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_CLI_H
#define FABRIC_CLI_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FabricHelper;

namespace CommandLineHelper
{
/**
 * \brief A string option takes its whole value.
 *
 * ns-3.37 reads a string option with operator>>, which stops at the first blank: "--json=a b"
 * silently wrote to "a", "--minBytes=1 M" ran 1 byte and a failure list with a blank after a
 * ';' lost the next failure. Every ai-fabric program includes this header before it declares
 * its options, so they take the value as given and their own parsers judge it.
 * \param [in] value the option's value
 * \param [out] dest the string to set
 * \return true
 */
template<>
bool UserItemParse<std::string>(const std::string& value, std::string& dest);
} // namespace CommandLineHelper

/**
 * \ingroup ai-fabric
 * \brief Command-line checks shared by ai-fabric's programs.
 *
 * ns-3's CommandLine parses typed values itself and, on a bad one, prints the whole help and
 * exits with status 1. ai-fabric's programs take their options as strings, check them here,
 * and report a mistake as one line on stderr with exit status 2.
 */
class FabricCli
{
  public:
    /// The slowest link rate the programs take: 1 Gb/s (RC's timeouts and the models'
    /// defaults are a datacenter's; on slower links a queue pair times out before a frame is
    /// serialized).
    static constexpr uint64_t MIN_RATE_BPS = 1000000000ULL;
    /// The fastest: 100 Tb/s.
    static constexpr uint64_t MAX_RATE_BPS = 100000000000000ULL;

    /**
     * \brief Report a usage error and exit with status 2.
     * \param program the program's name
     * \param message what is wrong (one line)
     */
    [[noreturn]] static void Fail(const std::string& program, const std::string& message);

    /**
     * \brief Join the MPI run this process was started in (by mpirun, srun, or ./ns3 run --np),
     *        if the build has ns-3's mpi module: MPI is started, ai-fabric's simulator runs
     *        across the ranks, ranks other than 0 print nothing on stdout, and MPI is finished
     *        at exit. Otherwise nothing.
     * \param argc the program's argc
     * \param argv the program's argv
     */
    static void StartMpi(int* argc, char*** argv);

    /// \return true unless this is an MPI rank other than 0 (which writes no output)
    static bool IsMainRank();

    /// \return the number of MPI ranks of the run (1 without MPI)
    static uint32_t GetRanks();

    /**
     * \brief Refuse options the program does not know, before ns-3's CommandLine sees them.
     *
     * Accepted besides the program's own options: ns-3's global values (--RngRun, --RngSeed,
     * ...), attribute paths (--ns3::Type::Attribute=...) and CommandLine's help options. Every
     * option but a flag needs a value (--name=value); ns-3's own are checked here by the type
     * of their value (ns-3.37 aborts on a malformed number, time, rate or type name, even in
     * its fail-safe setters), --RngSeed must be at least 1, --SimulatorImplementationType and
     * --SchedulerType must name such a class, --PrintAttributes a TypeId and --PrintGroup a
     * group that exists.
     *
     * It first makes ai-fabric's scheduler (FabricWatchdog::DEFAULT_SCHEDULER) ns-3's
     * SchedulerType; --SchedulerType, checked and bound here, still changes it.
     * \param program the program's name
     * \param argc argument count
     * \param argv arguments
     * \param known the program's own option names (without "--")
     * \param booleans those of them that are flags: bare, or =true, =false, =1, =0
     */
    static void CheckKnownOptions(const std::string& program,
                                  int argc,
                                  char** argv,
                                  const std::vector<std::string>& known,
                                  const std::vector<std::string>& booleans = {});

    /**
     * \param argc the program's argc
     * \param argv the program's argv
     * \param name an option's name (without dashes)
     * \return true if the command line gives it (--name, --name=..., -name or -name=...)
     */
    static bool IsGiven(int argc, char* argv[], const std::string& name);

    /**
     * \brief Can files named "<prefix>-..." be created (as pcap files are)? Probed with a
     *        uniquely named file (FabricOutputFile::IsWritablePrefix): never through a link.
     * \param prefix a file name prefix
     * \return false if its directory does not exist or cannot be written
     */
    static bool IsWritablePrefix(const std::string& prefix);

    /**
     * \brief Parse a boolean: true, false, 1 or 0.
     * \param text the text
     * \param value the result
     * \return false if the text is none of them
     */
    static bool ParseBool(const std::string& text, bool& value);

    /**
     * \brief Parse a byte count: digits with an optional K, M or G suffix (powers of 1024,
     *        as nccl-tests' -b and -e).
     * \param text the text
     * \param bytes the result
     * \return false if the text is not a byte count
     */
    static bool ParseBytes(const std::string& text, uint64_t& bytes);

    /**
     * \brief Parse a positive whole number.
     * \param text the text
     * \param value the result
     * \return false if the text is not a whole number
     */
    static bool ParseUnsigned(const std::string& text, uint64_t& value);

    /**
     * \param program the program's name
     * \param name the flag
     * \param text its value
     * \param lo smallest value
     * \param hi largest value
     * \return the value; exits with status 2 if it is not a whole number in [lo, hi]
     */
    static uint32_t Whole(const std::string& program,
                          const std::string& name,
                          const std::string& text,
                          uint64_t lo,
                          uint64_t hi);

    /**
     * \param program the program's name
     * \param name the flag
     * \param text its value
     * \return the byte count; exits with status 2 if it is not a positive one
     */
    static uint64_t Bytes(const std::string& program,
                          const std::string& name,
                          const std::string& text);

    /**
     * \brief Parse a rate: an ns-3 DataRate ("400Gbps", "400Gb/s") or a number with a K, M or
     *        G suffix meaning bit/s ("400G"). A bare number ("400") is refused: it would be
     *        400 bit/s.
     * \param text the text
     * \param rate the result
     * \return false if the text is not a rate with a unit from MIN_RATE_BPS to MAX_RATE_BPS
     */
    static bool ParseRate(const std::string& text, DataRate& rate);

    /**
     * \brief A link rate option: ParseRate() from MIN_RATE_BPS to MAX_RATE_BPS.
     *
     * Slower links break the models' time scales rather than run slowly: a 4 KiB packet at
     * 300 kb/s outlasts the IBTA Local ACK Timeout (67.1 ms), so the sender's QP retries and
     * gives up, and a PFC pause of 65535 quanta at 1 bit/s (33.5 million s) overflows ns-3's
     * picosecond Time (9.2 million s).
     * \param program the program's name
     * \param name the flag
     * \param text its value
     * \return the rate; exits with status 2 if it is not a rate in that range
     */
    static DataRate LinkRate(const std::string& program,
                             const std::string& name,
                             const std::string& text);

    /**
     * \brief Parse a probability in [0, 1).
     * \param text the text
     * \param value the result
     * \return false if the text is not a number in [0, 1)
     */
    static bool ParseProbability(const std::string& text, double& value);

    /**
     * \brief Parse a time: a non-negative decimal number and a unit, s, ms, us or ns
     *        ("2ms", "0.5us").
     * \param text the text
     * \param time the result
     * \return false if the text is not such a time
     */
    static bool ParseTime(const std::string& text, Time& time);

    /**
     * \brief The congestion control a program runs: `--cc=NAME`, or, when --cc is not given,
     *        its aliases --dcqcn (RoCEv2: dcqcn or none) and --ibcc (InfiniBand: ibcc or
     *        none).
     * \param program the program's name
     * \param cc --cc's value ("" when not given)
     * \param fabric --fabric's value (roce or ib)
     * \param dcqcn --dcqcn's value
     * \param dcqcnGiven --dcqcn is on the command line
     * \param ibcc --ibcc's value
     * \param ibccGiven --ibcc is on the command line
     * \return the algorithm's name (RdmaCcRegistration); exits with status 2 if it is
     *         unknown, made for the other fabric, or contradicted by a given --dcqcn or --ibcc
     */
    static std::string CongestionControl(const std::string& program,
                                         const std::string& cc,
                                         const std::string& fabric,
                                         bool dcqcn,
                                         bool dcqcnGiven,
                                         bool ibcc,
                                         bool ibccGiven);

    /// The help line of --cc, with the registered names.
    static std::string CongestionControlHelp();

    /**
     * \brief Check --fabric against the registered fabrics (FabricHelperRegistration).
     * \param program the program's name
     * \param fabric --fabric's value
     */
    static void CheckFabric(const std::string& program, const std::string& fabric);

    /**
     * \brief Apply a program's fabric options (FabricHelper::GetOptions of the fabrics it
     *        offers) to the chosen fabric's helper. An option the fabric has is set, and a bad
     *        value refused; one it does not have is ignored at its default and refused with
     *        any other value (it would have no effect). Exits with status 2 on a refusal.
     * \param program the program's name
     * \param fabric the chosen fabric's helper
     * \param options each option's name and value
     */
    static void ApplyFabricOptions(const std::string& program,
                                   FabricHelper& fabric,
                                   const std::vector<std::pair<std::string, std::string>>& options);
};

} // namespace ns3

#endif /* FABRIC_CLI_H */
