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
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

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
 * \param prefix the directory's name before its six random characters
 * \return a fresh temporary directory ("/tmp" if none could be made), the caller's to remove
 */
inline std::string
MakeTempDir(const std::string& prefix)
{
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    const char* dir = mkdtemp(pattern.data());
    EXPECT_NE(dir, nullptr) << pattern;
    return dir ? dir : "/tmp";
}

/**
 * \return the temporary directories TempDir() made in this process and not yet removed
 */
inline std::vector<std::string>&
TempDirs()
{
    static std::vector<std::string> dirs;
    return dirs;
}

/**
 * \param prefix the directory's name before its six random characters
 * \return a fresh temporary directory, removed with all it holds when the process's tests end
 *         (RemoveTempDirs(), from test-main.cc), also after a test that failed before its
 *         own cleanup
 */
inline std::string
TempDir(const std::string& prefix = "ai-fabric-test")
{
    const std::string dir = MakeTempDir(prefix);
    if (dir != "/tmp")
    {
        TempDirs().push_back(dir);
    }
    return dir;
}

/// Remove every directory TempDir() made, with what it holds.
inline void
RemoveTempDirs()
{
    for (const std::string& dir : TempDirs())
    {
        std::error_code ignored; // one already removed by its test
        std::filesystem::remove_all(dir, ignored);
    }
    TempDirs().clear();
}

/**
 * \param command a shell command
 * \return its exit status and output
 */
inline CommandResult
RunCommand(const std::string& command)
{
    const std::string dir = MakeTempDir("ai-fabric-test"); // removed below
    const std::string errFile = dir + "/stderr";
    CommandResult r;
    FILE* pipe = popen((command + " 2>" + errFile).c_str(), "r");
    if (!pipe)
    {
        rmdir(dir.c_str());
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
    std::remove(errFile.c_str()); // nothing of it outlives the call
    rmdir(dir.c_str());
    return r;
}

#ifndef AI_FABRIC_PROGRAM_PREFIX
/// What the build puts before a program's name (inside an ns-3 tree: "ns3.37-")
#define AI_FABRIC_PROGRAM_PREFIX ""
#endif
#ifndef AI_FABRIC_PROGRAM_SUFFIX
/// What the build puts after it (inside an ns-3 tree: the profile, "-default")
#define AI_FABRIC_PROGRAM_SUFFIX ""
#endif

/**
 * \param program an example's name
 * \return the path of its binary
 */
inline std::string
ProgramPath(const std::string& program)
{
    return std::string(AI_FABRIC_BIN_DIR) + "/" + AI_FABRIC_PROGRAM_PREFIX + program
           + AI_FABRIC_PROGRAM_SUFFIX;
}

/**
 * \param program a program's name
 * \return true if it is built: standalone every program is; inside an ns-3 tree the
 *         project's studies (examples/ at its top: failure-sweep, clos-deadlock) are not, as
 *         they are not part of the module
 */
inline bool
IsBuilt(const std::string& program)
{
#ifdef AI_FABRIC_IN_NS3_TREE
    return access(ProgramPath(program).c_str(), X_OK) == 0;
#else
    (void) program;
    return true;
#endif
}

/// Skip a test whose program is not built (inside an ns-3 tree only: see IsBuilt()).
#define AI_FABRIC_REQUIRE_PROGRAM(program)                                        \
    do                                                                            \
    {                                                                             \
        if (!IsBuilt(program))                                                    \
        {                                                                         \
            GTEST_SKIP() << (program) << " is a study of the standalone project"; \
        }                                                                         \
    } while (false)

/**
 * \brief Decode a capture with tshark and return the asked fields of every packet.
 * \param pcap the capture file
 * \param options tshark options before the fields (e.g. a display filter "-Y macc")
 * \param fields the fields, in order
 * \return one row per packet, one string per field (empty when tshark could not decode it);
 *         a failed run fails the calling test
 */
inline std::vector<std::vector<std::string>>
TsharkFields(const std::string& pcap,
             const std::string& options,
             const std::vector<std::string>& fields)
{
    std::string command = "tshark -r " + pcap + " " + options + " -T fields -E separator=,";
    for (const std::string& f : fields)
    {
        command += " -e " + f;
    }
    const CommandResult t = RunCommand(command);
    EXPECT_EQ(t.status, 0) << t.err;
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(t.out);
    std::string line;
    while (std::getline(lines, line))
    {
        std::istringstream in(line);
        std::vector<std::string> row(fields.size());
        for (std::string& value : row)
        {
            std::getline(in, value, ',');
        }
        rows.push_back(row);
    }
    return rows;
}

} // namespace ns3

#endif /* AI_FABRIC_TEST_COMMAND_H */
