/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// ns-3's test.py inside an ns-3 source tree: the TestSuite "ai-fabric" runs every GoogleTest
// case of the module's test program (ai-fabric-test, built beside test-runner), each in its
// own process as ctest runs them standalone, and fails with the case's output when one fails.
// Built only inside an ns-3 tree configured with tests and examples (CMakeLists.txt).

#include "ns3/test.h"

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace ns3
{
namespace
{

/**
 * \param command a shell command
 * \param output set to what it printed (standard output and error)
 * \return its exit status (-1 if it did not exit)
 */
int
Capture(const std::string& command, std::string& output)
{
    output.clear();
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe)
    {
        return -1;
    }
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    {
        output.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/**
 * \param name a GoogleTest case's name
 * \return it as an ns-3 test name ('/' of parameterized cases, which ns-3 refuses, as ':')
 */
std::string
TestName(std::string name)
{
    for (char& c : name)
    {
        c = c == '/' ? ':' : c;
    }
    return name;
}

/// One GoogleTest case, run in its own process.
class GoogleTestCase : public TestCase
{
  public:
    /// \param name the case's full name (Suite.Test, or Prefix/Suite.Test/Param)
    explicit GoogleTestCase(const std::string& name)
        : TestCase(TestName(name))
        , m_name(name)
    {
    }

  private:
    void DoRun() override
    {
        std::string output;
        const int status = Capture(
            std::string("'") + AI_FABRIC_GTEST + "' --gtest_filter='" + m_name + "'", output);
        // The last lines say why it failed.
        const std::size_t tail = output.size() > 3000 ? output.size() - 3000 : 0;
        NS_TEST_ASSERT_MSG_EQ(status, 0, m_name << " failed:\n" << output.substr(tail));
    }

    std::string m_name; //!< the case
};

/// The cases could not be listed: the suite fails with why.
class ListingFailed : public TestCase
{
  public:
    /// \param why what the test program printed
    explicit ListingFailed(const std::string& why)
        : TestCase("list the GoogleTest cases")
        , m_why(why)
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(
            true, false, "cannot list the cases of " << AI_FABRIC_GTEST << ": " << m_why);
    }

    std::string m_why; //!< the program's output
};

/// Every GoogleTest case of the module.
class AiFabricTestSuite : public TestSuite
{
  public:
    AiFabricTestSuite()
        : TestSuite("ai-fabric", UNIT)
    {
    }

  private:
    /// The cases are listed when the suite runs, not when test-runner starts.
    void DoSetup() override
    {
        std::string list;
        const int status
            = Capture(std::string("'") + AI_FABRIC_GTEST + "' --gtest_list_tests", list);
        if (status != 0)
        {
            AddTestCase(new ListingFailed(list), TestCase::QUICK);
            return;
        }
        // "Suite." at the margin, then "  Test" (and "  # GetParam() = ..." comments).
        std::string suite;
        std::size_t start = 0;
        while (start < list.size())
        {
            std::size_t end = list.find('\n', start);
            end = end == std::string::npos ? list.size() : end;
            std::string line = list.substr(start, end - start);
            start = end + 1;
            const std::size_t comment = line.find('#');
            line = line.substr(0, comment);
            while (!line.empty() && line.back() == ' ')
            {
                line.pop_back();
            }
            if (line.empty())
            {
                continue;
            }
            if (line[0] != ' ')
            {
                suite = line;
                continue;
            }
            const std::size_t first = line.find_first_not_of(' ');
            AddTestCase(new GoogleTestCase(suite + line.substr(first)), TestCase::QUICK);
        }
    }
};

/// The suite's one instance
AiFabricTestSuite g_aiFabricTestSuite;

} // namespace
} // namespace ns3
