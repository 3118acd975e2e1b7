/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-output-file.h"

#include "fabric-cli.h"
#include "ns3/log.h"
#include "scenario-options.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricOutputFile");

namespace
{
/// Temporaries a program may hold at once (--json and --trace).
constexpr int MAX_TEMPORARIES = 8;

/// The temporaries not yet committed, for the exit and signal handlers (async-signal-safe:
/// fixed storage, no allocation).
char g_temporaries[MAX_TEMPORARIES][PATH_MAX];

/// Which slots of g_temporaries hold a name.
volatile std::sig_atomic_t g_used[MAX_TEMPORARIES];

/// Remove every temporary not committed.
void
RemoveTemporaries()
{
    for (int i = 0; i < MAX_TEMPORARIES; ++i)
    {
        if (g_used[i])
        {
            unlink(g_temporaries[i]);
            g_used[i] = 0;
        }
    }
}

/**
 * \param sig a signal that ends the program
 */
void
OnSignal(int sig)
{
    RemoveTemporaries();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

/// Install the exit and signal handlers, once.
void
InstallHandlers()
{
    static bool installed = false;
    if (installed)
    {
        return;
    }
    installed = true;
    std::atexit(&RemoveTemporaries);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
    {
        struct sigaction old;
        if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
        {
            std::signal(sig, &OnSignal);
        }
    }
}

/**
 * \param path a temporary
 * \return its slot, or -1 if all are taken
 */
int
Remember(const std::string& path)
{
    for (int i = 0; i < MAX_TEMPORARIES; ++i)
    {
        if (!g_used[i] && path.size() < PATH_MAX)
        {
            std::memcpy(g_temporaries[i], path.c_str(), path.size() + 1);
            g_used[i] = 1;
            return i;
        }
    }
    return -1;
}

/**
 * \param path a temporary no longer to be removed at exit
 */
void
Forget(const std::string& path)
{
    for (int i = 0; i < MAX_TEMPORARIES; ++i)
    {
        if (g_used[i] && path == g_temporaries[i])
        {
            g_used[i] = 0;
        }
    }
}

/**
 * \param path a file path
 * \return its directory ("." for a bare name)
 */
std::string
DirectoryOf(const std::string& path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos)
    {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

/**
 * \param path the file that could not be created
 * \param err errno
 * \return one line
 */
std::string
CreateError(const std::string& path, int err)
{
    const std::string dir = DirectoryOf(path);
    if (err == ENOENT)
    {
        return "the directory " + dir + " does not exist";
    }
    if (err == ENOTDIR)
    {
        return dir + " is not a directory";
    }
    return "cannot create a file in " + dir + " (" + std::strerror(err) + ")";
}

/**
 * \brief Create a unique file from a mkstemps template (O_EXCL: never through a link).
 * \param pattern the template, "XXXXXX" followed by suffixLength characters; set to the name
 * \param suffixLength characters after "XXXXXX"
 * \return the descriptor, or -1 (errno set)
 */
int
CreateUnique(std::string& pattern, int suffixLength)
{
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = mkostemps(name.data(), suffixLength, O_CLOEXEC);
    if (fd >= 0)
    {
        pattern = name.data();
    }
    return fd;
}
} // namespace

FabricOutputFile::~FabricOutputFile()
{
    Discard();
}

bool
FabricOutputFile::Open(const std::string& path, std::string& error)
{
    NS_LOG_FUNCTION(this << path);
    Discard();
    m_path = path;
    m_data.str("");
    m_data.clear();
    if (path.empty())
    {
        error = "expected a file name";
        return false;
    }
    struct stat st;
    if (path.back() == '/' || (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    {
        error = "is a directory";
        return false;
    }
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    {
        error = "is not a regular file (the file is written to a temporary and renamed)";
        return false;
    }
    InstallHandlers();
    std::string tmp = path + ".XXXXXX.tmp";
    m_fd = CreateUnique(tmp, 4);
    if (m_fd < 0)
    {
        error = CreateError(path, errno);
        return false;
    }
    m_tmp = tmp;
    if (Remember(m_tmp) < 0)
    {
        Discard();
        error = "too many output files";
        return false;
    }
    return true;
}

void
FabricOutputFile::OpenOrFail(const std::string& program,
                             const std::string& option,
                             const std::string& path)
{
    std::string error;
    if (!Open(path, error))
    {
        FabricCli::Fail(program, "--" + option + "=" + path + ": " + error);
    }
}

bool
FabricOutputFile::IsOpen() const
{
    return m_fd >= 0;
}

const std::string&
FabricOutputFile::GetPath() const
{
    return m_path;
}

std::ostream&
FabricOutputFile::Stream()
{
    return m_data;
}

bool
FabricOutputFile::Commit(std::string& error)
{
    NS_LOG_FUNCTION(this);
    if (m_fd < 0)
    {
        error = m_path + ": not open";
        return false;
    }
    const std::string data = m_data.str();
    std::size_t done = 0;
    while (done < data.size())
    {
        const ssize_t n = write(m_fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            error = "could not write " + m_path + " (" + std::strerror(errno) + ")";
            Discard();
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    // mkstemp creates the file 0600; an output file gets the permissions any other would.
    const mode_t mask = umask(0);
    umask(mask);
    if (fchmod(m_fd, 0666 & ~mask) != 0 || fsync(m_fd) != 0)
    {
        error = "could not write " + m_path + " (" + std::strerror(errno) + ")";
        Discard();
        return false;
    }
    const int fd = m_fd;
    m_fd = -1;
    if (close(fd) != 0 || std::rename(m_tmp.c_str(), m_path.c_str()) != 0)
    {
        error = "could not write " + m_path + " (" + std::strerror(errno) + ")";
        unlink(m_tmp.c_str());
        Forget(m_tmp);
        m_tmp.clear();
        return false;
    }
    Forget(m_tmp);
    m_tmp.clear();
    m_data.str("");
    return true;
}

bool
FabricOutputFile::CommitJson(const std::string& program, const nlohmann::ordered_json& j)
{
    if (!j.is_object() || ScenarioOptions::GetRunProgram().empty()
        || (j.contains("scenario") && !j["scenario"].is_object()))
    {
        Stream() << j.dump(2) << "\n";
    }
    else
    {
        // The flags of the run, so that --scenario=THIS_FILE runs it again.
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        if (!j.contains("scenario"))
        {
            out["scenario"] = nlohmann::ordered_json::object();
        }
        for (const auto& [key, value] : j.items())
        {
            out[key] = value;
        }
        out["scenario"]["program"] = ScenarioOptions::GetRunProgram();
        out["scenario"]["flags"] = ScenarioOptions::GetRunFlags();
        Stream() << out.dump(2) << "\n";
    }
    std::string error;
    if (!Commit(error))
    {
        std::cerr << program << ": " << error << std::endl;
        return false;
    }
    return true;
}

void
FabricOutputFile::Discard()
{
    if (m_fd >= 0)
    {
        close(m_fd);
        m_fd = -1;
    }
    if (!m_tmp.empty())
    {
        unlink(m_tmp.c_str());
        Forget(m_tmp);
        m_tmp.clear();
    }
}

bool
FabricOutputFile::IsWritablePrefix(const std::string& prefix)
{
    if (prefix.empty() || prefix.back() == '/')
    {
        return false;
    }
    std::string probe = prefix + "-XXXXXX.probe";
    const int fd = CreateUnique(probe, 6);
    if (fd < 0)
    {
        return false;
    }
    close(fd);
    unlink(probe.c_str());
    return true;
}

void
FabricOutputFile::DisownTemporaries()
{
    for (int i = 0; i < MAX_TEMPORARIES; ++i)
    {
        g_used[i] = 0;
    }
}

} // namespace ns3
