/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_PROGRAMS_H
#define AI_FABRIC_TEST_PROGRAMS_H

// The project's programs for the tests that run all of them, and the checks they share.

#include "ai-fabric-test-command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// A program and one of its whole-number options.
struct Program
{
    std::string name;    //!< the binary
    std::string numeric; //!< an option that takes a whole number
    bool json;           //!< takes --json
};

/**
 * \param all programs
 * \return those that are built (IsBuilt())
 */
inline std::vector<Program>
Built(const std::vector<Program>& all)
{
    std::vector<Program> built;
    for (const Program& p : all)
    {
        if (IsBuilt(p.name))
        {
            built.push_back(p);
        }
    }
    return built;
}

/// Every program of the project (that is built: see IsBuilt()).
inline const std::vector<Program> PROGRAMS = Built({{"ai-fabric-fattree", "servers", true},
                                                    {"ai-fabric-torus", "channels", true},
                                                    {"ai-fabric-sweep", "channels", true},
                                                    {"ai-fabric-perftest", "qps", true},
                                                    {"ai-fabric-incast", "senders", true},
                                                    {"ai-fabric-dcqcn", "flows", true},
                                                    {"ai-fabric-pfc-hol", "local", true},
                                                    {"ai-fabric-pfc-pause", "quanta", true},
                                                    {"ai-fabric-ib-credits", "messages", true},
                                                    {"ai-fabric-hop-benchmark", "switches", false},
                                                    {"ai-fabric-scale-benchmark", "servers", true},
                                                    {"failure-sweep", "servers", true},
                                                    {"flow-check", "jobs", true},
                                                    {"clos-deadlock", "bufferBytes", true}});

/**
 * \param dir a directory
 * \return the names in it (without . and ..)
 */
inline std::set<std::string>
ListDir(const std::string& dir)
{
    std::set<std::string> names;
    DIR* d = opendir(dir.c_str());
    if (!d)
    {
        return names;
    }
    while (const dirent* e = readdir(d))
    {
        const std::string n = e->d_name;
        if (n != "." && n != "..")
        {
            names.insert(n);
        }
    }
    closedir(d);
    return names;
}

/**
 * \brief Run a program and expect it to refuse its input in one line with exit status 2,
 *        leaving the directory as it was.
 * \param program the binary
 * \param args its arguments (shell words)
 * \param dir a directory the run must leave unchanged (may be empty)
 * \param contains text the line must hold (may be empty)
 */
inline void
ExpectRefused(const std::string& program,
              const std::string& args,
              const std::string& dir = "",
              const std::string& contains = "")
{
    const std::set<std::string> before = dir.empty() ? std::set<std::string>() : ListDir(dir);
    const CommandResult r = RunCommand(ProgramPath(program) + " " + args + " </dev/null");
    const std::string what = program + " " + args + "\n" + r.err;
    EXPECT_EQ(r.status, 2) << what;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what;
    EXPECT_EQ(r.err.rfind(program + ": ", 0), 0U) << what;
    if (!contains.empty())
    {
        EXPECT_NE(r.err.find(contains), std::string::npos) << what;
    }
    if (!dir.empty())
    {
        EXPECT_EQ(ListDir(dir), before) << what;
    }
}

/**
 * \param path a file to create
 * \param text its contents
 */
inline void
WriteText(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

} // namespace ns3

#endif /* AI_FABRIC_TEST_PROGRAMS_H */
