/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_COMMAND_H
#define AI_FABRIC_TEST_COMMAND_H

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace ns3
{

/// What a program printed and how it ended.
struct CommandResult
{
    int status{-1};  //!< exit status
    std::string out; //!< standard output
    std::string err; //!< standard error
};

/**
 * \param path a file
 * \return its contents
 */
inline std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

/**
 * \return a fresh temporary directory
 */
inline std::string
TempDir()
{
    char pattern[] = "/tmp/ai-fabric-test-XXXXXX";
    const char* dir = mkdtemp(pattern);
    EXPECT_NE(dir, nullptr);
    return dir ? dir : "/tmp";
}

/**
 * \param command a shell command
 * \return its exit status and output
 */
inline CommandResult
RunCommand(const std::string& command)
{
    const std::string dir = TempDir();
    const std::string errFile = dir + "/stderr";
    CommandResult r;
    FILE* pipe = popen((command + " 2>" + errFile).c_str(), "r");
    if (!pipe)
    {
        return r;
    }
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    {
        r.out.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = ReadFile(errFile);
    return r;
}

/**
 * \param program an example's name
 * \return the path of its binary
 */
inline std::string
ProgramPath(const std::string& program)
{
    return std::string(AI_FABRIC_BIN_DIR) + "/" + program;
}

} // namespace ns3

#endif /* AI_FABRIC_TEST_COMMAND_H */
