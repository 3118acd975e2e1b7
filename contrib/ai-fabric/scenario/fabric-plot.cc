/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-plot.h"

#include "ns3/gnuplot.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

namespace ns3
{

namespace
{

/// Canvas size of the figures (pixels for PNG, points for SVG).
const char* const SIZE = "size 960,600";

/**
 * \param text a title or label
 * \return it quoted for gnuplot (double quotes, backslashes and quotes escaped)
 */
std::string
Quote(const std::string& text)
{
    std::string q = "\"";
    for (char c : text)
    {
        if (c == '"' || c == '\\')
        {
            q += '\\';
        }
        q += c;
    }
    return q + "\"";
}

/**
 * \param j a JSON value
 * \param key a key
 * \return the number at key, or 0 if it is not a number
 */
double
Number(const nlohmann::ordered_json& j, const char* key)
{
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

/**
 * \param j a JSON value
 * \param key a key
 * \return the string at key, or "" if it is not a string
 */
std::string
Text(const nlohmann::ordered_json& j, const char* key)
{
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

/// The run's description for titles, ": 16 GPUs, roce, fat-tree" from the scenario object
/// ("" if it says nothing).
std::string
Describe(const nlohmann::ordered_json& result)
{
    if (!result.contains("scenario") || !result["scenario"].is_object())
    {
        return "";
    }
    const nlohmann::ordered_json& s = result["scenario"];
    std::string d;
    if (s.contains("gpus") && s["gpus"].is_number())
    {
        d += std::to_string(s["gpus"].get<uint64_t>()) + " GPUs";
    }
    for (const char* key : {"server", "topology", "fabric", "mode"})
    {
        const std::string v = Text(s, key);
        if (!v.empty() && v != "none")
        {
            d += (d.empty() ? "" : ", ") + v;
        }
    }
    return d.empty() ? d : ": " + d;
}

/**
 * \brief Write one figure's files and render them.
 * \param dir the directory
 * \param name the files' stem
 * \param plot the figure (its datasets, labels and settings)
 * \param header the data file's first line (what its columns and blocks are)
 * \param inlined the numbers of a figure whose datasets go inline (empty: a data file)
 * \return empty, or why not
 */
std::string
Render(const std::string& dir,
       const std::string& name,
       Gnuplot& plot,
       const std::string& header,
       const std::string& inlined)
{
    const std::string stem = dir + "/" + name;
    std::ofstream script(stem + ".plt");
    std::ofstream data(stem + ".dat");
    if (!script || !data)
    {
        return "cannot write " + stem + ".plt and .dat: " + std::strerror(errno);
    }
    data << "# " << header << "\n" << std::setprecision(17);
    script << std::setprecision(17);
    // The same figure twice: PNG, then SVG (paths relative to dir).
    const std::string png = std::string("pngcairo ") + SIZE + " noenhanced font \"Sans,11\"";
    const std::string svg = std::string("svg ") + SIZE + " noenhanced font \"Sans,11\"";
    if (!inlined.empty())
    {
        // ns-3's 3-D datasets go inline in the script ("-"): the data file holds the same.
        data << inlined;
        for (const auto& [terminal, file] : {std::pair{png, name + ".png"}, {svg, name + ".svg"}})
        {
            plot.SetTerminal(terminal);
            plot.SetOutputFilename(file);
            plot.GenerateOutput(script);
            script << "\n";
        }
    }
    else
    {
        // Both from the one data file.
        plot.SetTerminal(png);
        plot.SetOutputFilename(name + ".png");
        plot.GenerateOutput(script, data, name + ".dat");
        std::ostringstream again;
        script << "\n";
        plot.SetTerminal(svg);
        plot.SetOutputFilename(name + ".svg");
        plot.SetDataFileDatasetIndex(0); // the same blocks
        plot.GenerateOutput(script, again, name + ".dat");
    }
    script.close();
    data.close();
    if (!script || !data)
    {
        return "cannot write " + stem + ".plt and .dat";
    }
    // gnuplot in dir, its messages kept for the error.
    int pipeFd[2];
    if (pipe(pipeFd) != 0)
    {
        return std::string("cannot run gnuplot: ") + std::strerror(errno);
    }
    const pid_t pid = fork();
    if (pid < 0)
    {
        return std::string("cannot run gnuplot: ") + std::strerror(errno);
    }
    if (pid == 0)
    {
        close(pipeFd[0]);
        dup2(pipeFd[1], STDERR_FILENO);
        dup2(pipeFd[1], STDOUT_FILENO);
        if (chdir(dir.c_str()) != 0)
        {
            _exit(126);
        }
        const std::string file = name + ".plt";
        execlp("gnuplot", "gnuplot", file.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(pipeFd[1]);
    std::string messages;
    char buffer[4096];
    ssize_t n;
    while ((n = read(pipeFd[0], buffer, sizeof(buffer))) > 0 || (n < 0 && errno == EINTR))
    {
        if (n > 0)
        {
            messages.append(buffer, static_cast<std::size_t>(n));
        }
    }
    close(pipeFd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        std::string first = messages.substr(0, messages.find('\n'));
        return "gnuplot failed on " + stem + ".plt" + (first.empty() ? "" : ": " + first);
    }
    return "";
}

/**
 * \brief busbw or time against size, one line per algorithm.
 * \param result the document
 * \param key "busbw_GBps" or "time_us"
 * \param plot filled
 * \return false if the document has no such rows
 */
bool
SizeFigure(const nlohmann::ordered_json& result, const char* key, Gnuplot& plot)
{
    if (!result.contains("results") || !result["results"].is_array())
    {
        return false;
    }
    std::vector<std::string> algos;
    std::map<std::string, Gnuplot2dDataset> lines;
    std::string collective;
    for (const nlohmann::ordered_json& row : result["results"])
    {
        const double bytes = Number(row, "bytes");
        const double y = Number(row, key);
        if (bytes <= 0 || y <= 0)
        {
            continue; // not on log axes (0 B, a failed size)
        }
        const std::string algo = Text(row, "algo");
        collective = Text(row, "collective");
        if (!lines.count(algo))
        {
            algos.push_back(algo);
            lines[algo].SetTitle(algo);
            lines[algo].SetStyle(Gnuplot2dDataset::LINES_POINTS);
        }
        lines[algo].Add(bytes, y);
    }
    if (algos.empty())
    {
        return false;
    }
    const bool busbw = std::string(key) == "busbw_GBps";
    plot.SetTitle(collective + (busbw ? " bus bandwidth" : " time") + Describe(result));
    plot.SetLegend("size", busbw ? "busbw (GB/s)" : "time (us)");
    plot.SetExtra(
        "set logscale x 2\nset logscale y 10\nset format x \"%.0b %BB\"\n"
        "set grid\nset key top left");
    for (const std::string& a : algos)
    {
        plot.AddDataset(lines[a]);
    }
    return true;
}

/**
 * \brief Every link's utilization: a row per kind, a column per link, colour the utilization.
 * \param result the document
 * \param plot filled
 * \param inlined filled: its numbers, as the data file holds them
 * \return false if the document has no links
 */
bool
LinkFigure(const nlohmann::ordered_json& result, Gnuplot& plot, std::string& inlined)
{
    if (!result.contains("links") || !result["links"].is_array() || result["links"].empty()
        || !result["links"][0].contains("utilization"))
    {
        return false; // (failure-sweep's "links" are its failed links)
    }
    std::vector<std::string> kinds;
    std::map<std::string, std::vector<double>> rows;
    for (const nlohmann::ordered_json& link : result["links"])
    {
        const std::string kind = FabricPlot::LinkKind(Text(link, "name"));
        if (!rows.count(kind))
        {
            kinds.push_back(kind);
        }
        rows[kind].push_back(Number(link, "utilization"));
    }
    // Squares that about touch along a row (the plot is about 540 points wide).
    std::size_t widest = 1;
    for (const auto& [kind, row] : rows)
    {
        widest = std::max(widest, row.size());
    }
    const double size = std::clamp(80.0 / static_cast<double>(widest), 0.3, 3.0);
    std::ostringstream style;
    style << "with points pointtype 5 pointsize " << size << " palette notitle";
    Gnuplot3dDataset cells;
    cells.SetTitle("");
    cells.SetStyle(style.str());
    std::string tics;
    for (std::size_t k = 0; k < kinds.size(); ++k)
    {
        const std::vector<double>& row = rows[kinds[k]];
        for (std::size_t i = 0; i < row.size(); ++i)
        {
            cells.Add(static_cast<double>(i), static_cast<double>(k), row[i]);
            std::ostringstream line;
            line << std::setprecision(17) << i << " " << k << " " << row[i] << "\n";
            inlined += line.str();
        }
        cells.AddEmptyLine();
        inlined += "\n";
        tics += (k == 0 ? "" : ", ") + Quote(kinds[k] + " (" + std::to_string(row.size()) + ")")
                + " " + std::to_string(k);
    }
    plot.SetTitle("link utilization" + Describe(result));
    plot.SetLegend("link (in node order)", "");
    plot.SetExtra("set view map\nset xrange [-0.5:" + std::to_string(widest - 0.5) + "]\nset ytics (" + tics + ")\nset yrange [-0.5:" +
                  std::to_string(kinds.size() - 0.5) +
                  "]\nset cbrange [0:1]\nset cblabel \"utilization\"\n"
                  "set palette defined (0 \"#f7fbff\", 0.5 \"#6baed6\", 1 \"#08306b\")\n"
                  "unset key\nset lmargin 22");
    plot.AddDataset(cells);
    return true;
}

/**
 * \brief One line per element of series[group] holding key, against series.time_us.
 * \param result the document
 * \param group "ports" or "flows"
 * \param keys the series to draw (each element's), with their line titles' suffixes
 * \param offset draw element i at y + i (for 0/1 states)
 * \param plot filled
 * \param skipZero leave out the elements whose series is all zero
 * \return false if the document holds none
 */
bool
SeriesFigure(const nlohmann::ordered_json& result,
             const char* group,
             const std::vector<std::pair<std::string, std::string>>& keys,
             bool offset,
             Gnuplot& plot,
             bool skipZero = false)
{
    if (!result.contains("series") || !result["series"].is_object())
    {
        return false;
    }
    const nlohmann::ordered_json& s = result["series"];
    if (!s.contains("time_us") || !s.contains(group) || !s[group].is_array())
    {
        return false;
    }
    const nlohmann::ordered_json& time = s["time_us"];
    uint32_t lines = 0;
    uint32_t index = 0;
    for (const nlohmann::ordered_json& e : s[group])
    {
        for (const auto& [key, suffix] : keys)
        {
            if (!e.contains(key) || !e[key].is_array())
            {
                continue;
            }
            if (skipZero
                && std::all_of(e[key].begin(),
                               e[key].end(),
                               [](const nlohmann::ordered_json& v)
                               { return v.is_number() && v.get<double>() == 0; }))
            {
                continue; // a port kept for another measure
            }
            Gnuplot2dDataset line;
            line.SetTitle(Text(e, "name") + suffix);
            line.SetStyle(offset ? Gnuplot2dDataset::STEPS : Gnuplot2dDataset::LINES);
            const nlohmann::ordered_json& v = e[key];
            for (std::size_t i = 0; i < v.size() && i < time.size(); ++i)
            {
                const double y = v[i].get<double>();
                line.Add(time[i].get<double>(), offset ? index + 0.8 * y : y);
            }
            plot.AddDataset(line);
            ++lines;
        }
        ++index;
    }
    if (lines == 0)
    {
        return false;
    }
    plot.SetExtra(std::string("set grid\n")
                  + (lines > 12 ? "unset key" : "set key outside right top"));
    return true;
}

/**
 * \brief The payload received over time, with each failure, its detection and its reroute
 *        marked by a vertical line.
 * \param result the document
 * \param plot filled
 * \return false if the document has no progress series
 */
bool
ProgressFigure(const nlohmann::ordered_json& result, Gnuplot& plot)
{
    if (!result.contains("series") || !result["series"].contains("progress_bytes")
        || !result["series"].contains("time_us"))
    {
        return false;
    }
    const nlohmann::ordered_json& s = result["series"];
    Gnuplot2dDataset line;
    line.SetTitle("payload received");
    line.SetStyle(Gnuplot2dDataset::LINES);
    for (std::size_t i = 0; i < s["time_us"].size() && i < s["progress_bytes"].size(); ++i)
    {
        line.Add(s["time_us"][i].get<double>(), s["progress_bytes"][i].get<double>());
    }
    std::ostringstream marks;
    marks << std::setprecision(17);
    uint32_t n = 0;
    if (result.contains("failures") && result["failures"].is_array())
    {
        for (const nlohmann::ordered_json& f : result["failures"])
        {
            const std::string what = Text(f, "what");
            for (const auto& [key, label, colour] :
                 {std::tuple{"time_us", what, "#d62728"},
                  std::tuple{"detected_us", std::string("detected"), "#ff7f0e"},
                  std::tuple{"rerouted_us", std::string("rerouted"), "#2ca02c"}})
            {
                if (!f.contains(key) || !f[key].is_number())
                {
                    continue;
                }
                const double t = f[key].get<double>();
                ++n;
                marks << "set arrow " << n << " from " << t << ", graph 0 to " << t
                      << ", graph 1 nohead lc rgb \"" << colour << "\" dt 2\n"
                      << "set label " << n << " " << Quote(label) << " at " << t
                      << ", graph 0.97 rotate by 90 right offset -0.8,0 tc rgb \"" << colour
                      << "\"\n";
            }
        }
    }
    plot.SetTitle("progress" + Describe(result));
    plot.SetLegend("time (us)", "payload received by the ranks (bytes)");
    plot.SetExtra("set grid\nset key top left\nset yrange [0:*]\nset format y \"%.1s %cB\"\n"
                  + marks.str());
    plot.AddDataset(line);
    return true;
}

/**
 * \brief Bars, one per row of an array, with the rows' names under them.
 * \param rows the rows
 * \param nameKey the key of a row's name
 * \param value a row's value (a row without one is left out)
 * \param plot filled (its extra settings begin with the bars' tics)
 * \param extra further settings
 * \return false if no row has a value
 */
bool
BarFigure(const nlohmann::ordered_json& rows,
          const char* nameKey,
          const std::function<bool(const nlohmann::ordered_json&, double&)>& value,
          Gnuplot& plot,
          const std::string& extra)
{
    Gnuplot2dDataset bars;
    bars.SetStyle(Gnuplot2dDataset::IMPULSES); // ns-3's styles have no boxes: thick impulses
    bars.SetExtra("linewidth 14 linecolor rgb \"#4a90d9\"");
    std::string tics;
    uint32_t n = 0;
    for (const nlohmann::ordered_json& row : rows)
    {
        double v = 0;
        if (!value(row, v))
        {
            continue;
        }
        bars.Add(n, v);
        tics += (n == 0 ? "" : ", ") + Quote(Text(row, nameKey)) + " " + std::to_string(n);
        ++n;
    }
    if (n == 0)
    {
        return false;
    }
    bars.SetTitle("");
    plot.SetExtra("set xtics rotate by -40 left (" + tics + ")\nset xrange [-0.6:" +
                  std::to_string(n - 0.4) +
                  "]\nset grid ytics\nset xzeroaxis\n"
                  "unset key\nset bmargin 9\n" +
                  extra);
    plot.AddDataset(bars);
    return true;
}

} // namespace

std::string
FabricPlot::LinkKind(const std::string& link)
{
    const std::size_t arrow = link.find("->");
    if (arrow == std::string::npos)
    {
        return "link";
    }
    // A node's kind: its name's last part without digits ("server0-nvswitch3": nvswitch),
    // or its first if that leaves nothing ("torus1-0-2": torus).
    auto parts = [](const std::string& node)
    {
        std::vector<std::string> p;
        std::stringstream in(node);
        std::string part;
        while (std::getline(in, part, '-'))
        {
            p.push_back(part);
        }
        return p;
    };
    auto strip = [](const std::string& s)
    {
        std::string k;
        for (char c : s)
        {
            if (!std::isdigit(static_cast<unsigned char>(c)))
            {
                k += c;
            }
        }
        return k;
    };
    auto kind = [&](const std::vector<std::string>& p)
    {
        for (auto it = p.rbegin(); it != p.rend(); ++it)
        {
            if (!strip(*it).empty())
            {
                return strip(*it);
            }
        }
        return std::string("node");
    };
    const std::vector<std::string> a = parts(link.substr(0, arrow));
    const std::vector<std::string> b = parts(link.substr(arrow + 2));
    const std::string ka = kind(a);
    const std::string kb = kind(b);
    if (ka == "torus" && kb == "torus" && a.size() == b.size())
    {
        // "torus<x>-<y>-<z>": the dimension whose coordinate differs.
        const char* names = "XYZW";
        for (std::size_t d = 0; d < a.size() && d < 4; ++d)
        {
            if (strip(a[d]) == strip(b[d]) && a[d] != b[d])
            {
                return std::string("torus ") + names[d];
            }
        }
    }
    return ka + "->" + kb;
}

std::string
FabricPlot::Prepare(const std::string& dir)
{
    if (dir.empty())
    {
        return "expected a directory (--plot=DIR)";
    }
    struct stat st
    {
    };
    if (stat(dir.c_str(), &st) != 0)
    {
        // Made by Write(), at the end: a run refused before then leaves nothing behind. Its
        // parent must be there to take it.
        const std::size_t slash = dir.find_last_of('/', dir.find_last_not_of('/'));
        const std::string parent = slash == std::string::npos ? "."
                                   : slash == 0               ? "/"
                                                              : dir.substr(0, slash);
        if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        {
            return "cannot create the directory: " + parent + " is not a directory";
        }
        if (access(parent.c_str(), W_OK | X_OK) != 0)
        {
            return "cannot create the directory in " + parent + ": "
                   + std::string(std::strerror(errno));
        }
    }
    else if (!S_ISDIR(st.st_mode))
    {
        return "not a directory";
    }
    else if (access(dir.c_str(), W_OK | X_OK) != 0)
    {
        return "cannot write in the directory: " + std::string(std::strerror(errno));
    }
    // gnuplot on the PATH (Debian's gnuplot-nox).
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    std::string d;
    while (std::getline(dirs, d, ':'))
    {
        if (!d.empty() && access((d + "/gnuplot").c_str(), X_OK) == 0)
        {
            return "";
        }
    }
    return "gnuplot is not installed (Debian: apt-get install gnuplot-nox)";
}

std::string
FabricPlot::Write(const nlohmann::ordered_json& result,
                  const std::string& dir,
                  std::vector<Figure>* figures)
{
    struct Candidate
    {
        std::string name;
        std::string what;
        std::string header;
        std::function<bool(Gnuplot&, std::string&)> build;
    };
    const std::vector<Candidate> candidates = {
        {"busbw",
         "bus bandwidth against size, one line per algorithm",
         "size (B), busbw (GB/s); one block per algorithm, in the order of the key",
         [&](Gnuplot& p, std::string&) { return SizeFigure(result, "busbw_GBps", p); }},
        {"time",
         "time against size, one line per algorithm",
         "size (B), time (us); one block per algorithm, in the order of the key",
         [&](Gnuplot& p, std::string&) { return SizeFigure(result, "time_us", p); }},
        {"links",
         "every link's utilization, a row per kind of link",
         "link (index within its kind), kind (row), utilization; the JSON's links in order",
         [&](Gnuplot& p, std::string& inlined) { return LinkFigure(result, p, inlined); }},
        {"queues",
         "each watched port's queue over time",
         "time (us), queue (bytes); one block per port",
         [&](Gnuplot& p, std::string&)
         {
             p.SetTitle("queues" + Describe(result));
             p.SetLegend("time (us)", "queue (bytes)");
             return SeriesFigure(result, "ports", {{"queue_bytes", ""}}, false, p, true);
         }},
        {"rates",
         "each flow's congestion-control rate and delivered throughput over time",
         "time (us), Gb/s; per flow a block of its rate, then one of its throughput",
         [&](Gnuplot& p, std::string&)
         {
             p.SetTitle("rates" + Describe(result));
             p.SetLegend("time (us)", "Gb/s");
             return SeriesFigure(result,
                                 "flows",
                                 {{"rate_gbps", " rate"}, {"throughput_gbps", " throughput"}},
                                 false,
                                 p);
         }},
        {"paused",
         "the share of each interval the ports most paused by PFC were paused",
         "time (us), share of the interval paused; one block per port",
         [&](Gnuplot& p, std::string&)
         {
             p.SetTitle("PFC pause at the ports most paused" + Describe(result));
             p.SetLegend("time (us)", "share of the interval paused");
             return SeriesFigure(result, "ports", {{"paused", ""}}, false, p, true);
         }},
        {"stalled",
         "the share of each interval the ports most stalled waited for credits",
         "time (us), share of the interval stalled; one block per port",
         [&](Gnuplot& p, std::string&)
         {
             p.SetTitle("credit stalls at the ports most stalled" + Describe(result));
             p.SetLegend("time (us)", "share of the interval stalled for credits");
             return SeriesFigure(result, "ports", {{"stalled", ""}}, false, p, true);
         }},
        {"progress",
         "the payload the ranks received over time, failures, detections and reroutes marked",
         "time (us), payload received by all ranks so far (bytes)",
         [&](Gnuplot& p, std::string&) { return ProgressFigure(result, p); }},
        {"failures",
         "each failed link's slowdown of the collective (failure-sweep)",
         "bar (link's index), slowdown (time with the failure / healthy time)",
         [&](Gnuplot& p, std::string&)
         {
             if (!result.contains("healthy_time_us") || !result.contains("links"))
             {
                 return false;
             }
             std::ostringstream healthy;
             healthy << std::fixed << std::setprecision(1) << Number(result, "healthy_time_us");
             p.SetTitle("slowdown by failed link (healthy: " + healthy.str() + " us)"
                        + Describe(result));
             p.SetLegend("", "time with the failure / healthy time");
             return BarFigure(
                 result["links"],
                 "link",
                 [](const nlohmann::ordered_json& row, double& v)
                 {
                     v = Number(row, "slowdown");
                     return row.contains("slowdown") && row["slowdown"].is_number();
                 },
                 p,
                 "set yrange [0:*]");
         }},
        {"flow-error",
         "each point's busbw error of the flow level against the packet level (flow-check)",
         "bar (point's index), busbw error (%)",
         [&](Gnuplot& p, std::string&)
         {
             if (!result.contains("points") || !result["points"].is_array())
             {
                 return false;
             }
             p.SetTitle("flow level against packet level: busbw error by point");
             p.SetLegend("", "busbw error (%)");
             // The 2% lines in view: at least +-2.5%.
             double span = 2.5;
             for (const nlohmann::ordered_json& row : result["points"])
             {
                 span = std::max(span, 1.1 * std::abs(100 * Number(row, "busbw_error")));
             }
             std::ostringstream range;
             range << "set yrange [" << -span << ":" << span << "]\n";
             return BarFigure(
                 result["points"],
                 "point",
                 [](const nlohmann::ordered_json& row, double& v)
                 {
                     v = 100 * Number(row, "busbw_error");
                     return row.contains("busbw_error") && row["busbw_error"].is_number();
                 },
                 p,
                 range.str()
                     + "set arrow 1 from graph 0, first 2 to graph 1, first 2 nohead dt 2\n"
                 "set arrow 2 from graph 0, first -2 to graph 1, first -2 nohead dt 2\n"
                 "set label 1 \"2%\" at graph 1, first 2 left offset 0.5,0");
         }},
        {"pause",
         "each flow's sender paused (high) or not, over time",
         "time (us), flow index + 0.8 x paused; one block per flow",
         [&](Gnuplot& p, std::string&)
         {
             p.SetTitle("PFC pause at each flow's sender" + Describe(result));
             p.SetLegend("time (us)", "flow");
             return SeriesFigure(result, "flows", {{"paused", ""}}, true, p);
         }},
    };
    struct stat st
    {
    };
    if (stat(dir.c_str(), &st) != 0 && mkdir(dir.c_str(), 0777) != 0)
    {
        return "cannot create the directory: " + std::string(std::strerror(errno));
    }
    for (const Candidate& c : candidates)
    {
        Gnuplot plot;
        std::string inlined;
        if (!c.build(plot, inlined))
        {
            continue;
        }
        const std::string why = Render(dir, c.name, plot, c.header, inlined);
        if (!why.empty())
        {
            return why;
        }
        if (figures)
        {
            figures->push_back({c.name, c.what});
        }
    }
    return "";
}

} // namespace ns3
