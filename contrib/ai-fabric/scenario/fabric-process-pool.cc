/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-process-pool.h"

#include "fabric-output-file.h"
#include "ns3/abort.h"
#include "ns3/log.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricProcessPool");

namespace
{
/// How often the parent looks at the clock while no child writes (ms), for the time limit.
constexpr int POLL_MS = 1000;

/// A child alive, as the parent sees it.
struct Running
{
    std::size_t index{0};                        //!< its run
    pid_t pid{-1};                               //!< its process
    int out{-1};                                 //!< its standard output (-1: closed)
    int err{-1};                                 //!< its standard error (-1: closed)
    std::chrono::steady_clock::time_point start; //!< when it was forked
    FabricProcessPool::Outcome outcome;          //!< what it wrote so far
};

/**
 * \param fd a pipe to read from
 * \param into appended with what it held
 * \return false at the end of the file (or on an error other than EINTR)
 */
bool
Drain(int fd, std::string& into)
{
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0)
    {
        into.append(buffer, static_cast<std::size_t>(n));
        return true;
    }
    return n < 0 && errno == EINTR;
}

/// Flush everything this process buffered for its output (before a fork, or an _exit).
void
FlushAll()
{
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
    std::fflush(nullptr);
}

/**
 * \param fd a descriptor to close, set to -1 (nothing if it is -1 already)
 */
void
CloseFd(int& fd)
{
    if (fd >= 0)
    {
        close(fd);
        fd = -1;
    }
}

/**
 * \brief Reap a child whose pipes are closed and complete its outcome.
 * \param r the child
 */
void
Reap(Running& r)
{
    int status = 0;
    struct rusage usage;
    std::memset(&usage, 0, sizeof(usage));
    while (wait4(r.pid, &status, 0, &usage) < 0 && errno == EINTR)
    {
    }
    r.outcome.status = status;
    r.outcome.wallS
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
    r.outcome.peakRssMb = usage.ru_maxrss / 1024.0; // Linux reports kilobytes
    r.outcome.cpuS = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                     + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

/**
 * \brief Start a child for a run.
 * \param index the run
 * \param child what the child does
 * \param running the children alive, appended with this one
 * \param finished set to the outcome if the child could not be started
 */
void
Start(std::size_t index,
      const FabricProcessPool::Child& child,
      std::vector<Running>& running,
      std::map<std::size_t, FabricProcessPool::Outcome>& finished)
{
    int out[2];
    int err[2];
    if (pipe2(out, O_CLOEXEC) != 0)
    {
        finished[index].startError = std::strerror(errno);
        return;
    }
    if (pipe2(err, O_CLOEXEC) != 0)
    {
        finished[index].startError = std::strerror(errno);
        close(out[0]);
        close(out[1]);
        return;
    }
    FlushAll(); // or the child would write what the parent buffered
    const pid_t parent = getpid();
    Running r;
    r.index = index;
    r.start = std::chrono::steady_clock::now();
    r.pid = fork();
    if (r.pid < 0)
    {
        finished[index].startError = std::strerror(errno);
        for (int fd : {out[0], out[1], err[0], err[1]})
        {
            close(fd);
        }
        return;
    }
    if (r.pid == 0)
    {
        // Die with the parent; if it died before this line, do not run at all.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
        {
            _exit(127);
        }
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        for (int fd : {out[0], out[1], err[0], err[1]})
        {
            close(fd);
        }
        for (Running& sibling : running)
        {
            CloseFd(sibling.out);
            CloseFd(sibling.err);
        }
        FabricOutputFile::DisownTemporaries();
        int status = 0;
        try
        {
            status = child(index);
        }
        catch (...)
        {
            // As the same exception would end a serial run: terminate() reports it. It must
            // not unwind into the parent's frames, which this process shares.
            std::terminate();
        }
        FlushAll();
        _exit(status);
    }
    close(out[1]);
    close(err[1]);
    r.out = out[0];
    r.err = err[0];
    running.push_back(r);
}

} // namespace

FabricProcessPool::FabricProcessPool(uint32_t jobs)
    : m_jobs(jobs)
{
    NS_LOG_FUNCTION(this << jobs);
    NS_ABORT_MSG_IF(jobs < 1 || jobs > MAX_JOBS, "FabricProcessPool: jobs " << jobs);
}

uint32_t
FabricProcessPool::GetJobs() const
{
    return m_jobs;
}

void
FabricProcessPool::SetTimeLimit(double seconds)
{
    m_timeLimitS = seconds;
}

std::size_t
FabricProcessPool::Run(std::size_t n, const Child& child, const Done& done)
{
    NS_LOG_FUNCTION(this << n);
    std::vector<Running> running;
    std::map<std::size_t, Outcome> finished; // ended, waiting for the runs before them
    std::size_t next = 0;
    std::size_t delivered = 0;
    bool stop = false;
    while (delivered < n && !stop)
    {
        // Deliver first: a run after one that stops the pool does not start.
        auto ready = finished.find(delivered);
        if (ready != finished.end())
        {
            stop = !done(delivered, ready->second);
            finished.erase(ready);
            ++delivered;
            continue;
        }
        if (running.size() < m_jobs && next < n)
        {
            Start(next++, child, running, finished);
            continue;
        }
        std::vector<struct pollfd> fds;
        for (const Running& r : running)
        {
            fds.push_back({r.out, POLLIN, 0});
            fds.push_back({r.err, POLLIN, 0});
        }
        if (poll(fds.data(), fds.size(), POLL_MS) < 0 && errno != EINTR)
        {
            NS_FATAL_ERROR("FabricProcessPool: poll: " << std::strerror(errno));
        }
        for (std::size_t c = 0; c < running.size(); ++c)
        {
            Running& r = running[c];
            if (r.out >= 0 && (fds[2 * c].revents & (POLLIN | POLLHUP | POLLERR))
                && !Drain(r.out, r.outcome.out))
            {
                CloseFd(r.out);
            }
            if (r.err >= 0 && (fds[2 * c + 1].revents & (POLLIN | POLLHUP | POLLERR))
                && !Drain(r.err, r.outcome.err))
            {
                CloseFd(r.err);
            }
            const double elapsed
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
            if (!r.outcome.killed && m_timeLimitS > 0 && elapsed > m_timeLimitS)
            {
                kill(r.pid, SIGKILL);
                r.outcome.killed = true;
            }
        }
        for (auto r = running.begin(); r != running.end();)
        {
            if (r->out < 0 && r->err < 0)
            {
                Reap(*r);
                finished[r->index] = r->outcome;
                r = running.erase(r);
            }
            else
            {
                ++r;
            }
        }
    }
    for (Running& r : running)
    {
        kill(r.pid, SIGKILL);
        CloseFd(r.out);
        CloseFd(r.err);
        Reap(r);
    }
    return delivered;
}

} // namespace ns3
