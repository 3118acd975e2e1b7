/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef SCENARIO_OPTIONS_H
#define SCENARIO_OPTIONS_H

#include "ns3/data-rate.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A program's command-line flags, each declared once.
 *
 * The flags more than one program takes (--fabric, --cc, --collective, --minBytes, --json,
 * ...) are declared in one catalogue (Catalogue()), and a program takes them by name with
 * Use(), with its own default where it needs one. A fabric's own settings (--pfc, --ecn,
 * --routing, ...) are declared by the fabric plug-in (FabricHelper::GetOptions) and taken with
 * UseFabricOption(). A flag only one program (or one topology) has is declared there with
 * Add() or AddFlag(). Parse() then refuses unknown options (FabricCli::CheckKnownOptions),
 * gives every flag to ns-3's CommandLine (in declaration order, for --help), and adds the
 * watchdog's --maxEvents and --maxWallTime (FabricWatchdog::AddCommandLine) unless the
 * program runs without the watchdog (SetWatchdog).
 *
 * Every value is kept as text; a flag (a boolean) as "true" or "false" whatever form it was
 * given in (=true, =false, =1, =0, or bare, which toggles it as ns-3's CommandLine toggles a
 * bool: --quiet is true, --pfc false). The typed getters check a value and end the program
 * with one line on stderr and exit status 2 if it is bad.
 */
class ScenarioOptions
{
  public:
    /// A flag's declaration.
    struct Declaration
    {
        std::string name;         //!< without dashes
        std::string help;         //!< one line for --help
        std::string defaultValue; //!< its value when not given
        bool flag{false};         //!< a boolean
    };

    /// \param program the program's name, for messages
    explicit ScenarioOptions(std::string program);

    /// \return the flags several programs share
    static const std::vector<Declaration>& Catalogue();

    /**
     * \brief Take a flag from the catalogue with its default.
     * \param name its name
     */
    void Use(const std::string& name);

    /**
     * \brief Take a flag from the catalogue with this program's default.
     * \param name its name
     * \param defaultValue the default
     * \param note said after the catalogue's help (how the default is chosen, say)
     */
    void Use(const std::string& name,
             const std::string& defaultValue,
             const std::string& note = "");

    /**
     * \brief Take a fabric's own setting (FabricHelper::GetOptions of a registered fabric),
     *        with its help and default.
     * \param name its name
     */
    void UseFabricOption(const std::string& name);

    /**
     * \brief Take a fabric's own setting with this program's default.
     * \param name its name
     * \param defaultValue the default
     */
    void UseFabricOption(const std::string& name, const std::string& defaultValue);

    /**
     * \brief Declare a flag of this program alone.
     * \param name its name
     * \param help one line for --help
     * \param defaultValue its value when not given
     */
    void Add(const std::string& name, const std::string& help, const std::string& defaultValue);

    /**
     * \param names some names
     * \param last the word before the last one ("or")
     * \return "a, b or c"
     */
    static std::string JoinNames(const std::vector<std::string>& names, const std::string& last);

    /**
     * \brief Declare a boolean flag of this program alone.
     * \param name its name
     * \param help one line for --help
     * \param defaultValue its value when not given
     */
    void AddFlag(const std::string& name, const std::string& help, bool defaultValue);

    /**
     * \brief Whether the program takes the watchdog's --maxEvents and --maxWallTime (it does
     *        unless told otherwise: every run under FabricWatchdog does).
     * \param on take them
     */
    void SetWatchdog(bool on);

    /**
     * \brief Check and parse the command line; exits with status 2 on an unknown or malformed
     *        option (ns-3's own, --ns3::Type::Attribute and global values, pass), and with
     *        ns-3's status 0 after --help.
     * \param argc argument count
     * \param argv arguments
     * \param usage the program's one-paragraph description
     */
    void Parse(int argc, char* argv[], const std::string& usage);

    /**
     * \brief The command line with each --scenario=FILE replaced by the flags FILE holds,
     *        where it stood (so flags after it win, as a flag given twice does): a JSON
     *        object whose "flags" object (or whose "scenario" object's "flags", as a --json
     *        result holds them) maps flag names, without dashes, to strings, numbers or
     *        booleans; a "program" beside "flags" must name this program. Ends the program
     *        with one line and exit status 2 if FILE cannot be read or is not such a file.
     * \param program the program's name, for messages
     * \param argc the arguments' count
     * \param argv the arguments (argv[0] the program)
     * \param origin if not null, filled: for each argument returned, the scenario file it
     *        came from (empty: the command line)
     * \return the arguments, argv[0] first
     */
    static std::vector<std::string> ExpandScenario(const std::string& program,
                                                   int argc,
                                                   char* argv[],
                                                   std::vector<std::string>* origin = nullptr);

    /**
     * \brief The flags the run was given (on the command line or in a scenario file), as
     *        Parse() took them: every flag given but those naming output files (--json,
     *        --pcap, --plot, --timeline) and --jobs (the same output with any), in the order given,
     * each once with its last value; booleans as JSON booleans, the rest as strings. Written into
     * every JSON output as scenario.flags (FabricOutputFile::CommitJson()), so
     * --scenario=RESULT.json runs the same scenario again. \return an object (empty before Parse())
     */
    static const nlohmann::ordered_json& GetRunFlags();

    /// \return the program that called Parse() (empty before)
    static const std::string& GetRunProgram();

    /// \return the program's name
    const std::string& GetProgram() const;

    /**
     * \param name a flag's name
     * \return true if the program declared it
     */
    bool Has(const std::string& name) const;

    /**
     * \param name a declared flag
     * \return its value (text)
     */
    const std::string& Get(const std::string& name) const;

    /**
     * \param name a declared boolean flag
     * \return its value
     */
    bool GetFlag(const std::string& name) const;

    /**
     * \param name a declared flag
     * \return true if the command line gave it
     */
    bool IsGiven(const std::string& name) const;

    /**
     * \brief Give a flag that was not on the command line a value that depends on others
     *        (a server preset's GPU count, say).
     * \param name a declared flag
     * \param value the value
     */
    void SetDefault(const std::string& name, const std::string& value);

    /**
     * \brief Replace a flag's value (an empty one that means "choose for me", say).
     * \param name a declared flag
     * \param value the value
     */
    void Set(const std::string& name, const std::string& value);

    /**
     * \brief Report bad input and exit with status 2.
     * \param message one line
     */
    [[noreturn]] void Fail(const std::string& message) const;

    /**
     * \param name a declared flag
     * \param lo smallest value
     * \param hi largest value
     * \return its value; fails unless a whole number in [lo, hi]
     */
    uint32_t Whole(const std::string& name, uint64_t lo, uint64_t hi) const;

    /**
     * \param name a declared flag
     * \return its value; fails unless a positive byte count (K/M/G suffixes)
     */
    uint64_t Bytes(const std::string& name) const;

    /**
     * \param name a declared flag
     * \return its value; fails unless a link rate (FabricCli::LinkRate)
     */
    DataRate LinkRate(const std::string& name) const;

    /**
     * \param name a declared flag whose value is true or false (not necessarily a boolean
     *        flag: one whose default depends on others is text)
     * \return its value; fails unless true, false, 1 or 0
     */
    bool Bool(const std::string& name) const;

    /// \return the names and values of the fabric settings taken (UseFabricOption)
    std::vector<std::pair<std::string, std::string>> GetFabricOptions() const;

  private:
    /// A declared flag and its value.
    struct Option
    {
        Declaration declaration; //!< its declaration
        std::string value;       //!< its value
        bool given{false};       //!< on the command line
        bool fabric{false};      //!< a fabric's setting
    };

    /**
     * \param declaration a flag to declare
     * \return the flag
     */
    Option& Declare(const Declaration& declaration);

    /**
     * \param name a declared flag
     * \return the flag (aborts if not declared: a programming error)
     */
    const Option& Find(const std::string& name) const;

    /**
     * \brief Store a value from the command line.
     * \param option the flag
     * \param value its text ("" for a bare boolean)
     * \return true
     */
    static bool Store(Option* option, std::string value);

    std::string m_program;                      //!< for messages
    std::deque<Option> m_options;               //!< in declaration order (stable addresses)
    std::map<std::string, std::size_t> m_index; //!< name to position
    bool m_watchdog{true};                      //!< takes --maxEvents and --maxWallTime
};

} // namespace ns3

#endif /* SCENARIO_OPTIONS_H */
