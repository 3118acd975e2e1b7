/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "workload-file.h"

#include "ns3/collective-algorithm.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <unordered_map>

namespace ns3
{

namespace
{

/// Largest workload this format takes.
constexpr uint64_t MAX_RANKS = 1 << 20;
/// Longest compute operation (us): about 11.6 days, well inside a Time of picoseconds.
constexpr double MAX_COMPUTE_US = 1e12;

/**
 * \param v a JSON value
 * \param value set to it as a whole number
 * \return false if it is not a non-negative whole number
 */
bool
Whole(const nlohmann::json& v, uint64_t& value)
{
    if (v.is_number_unsigned())
    {
        value = v.get<uint64_t>();
        return true;
    }
    if (v.is_number_integer() && v.get<int64_t>() >= 0)
    {
        value = static_cast<uint64_t>(v.get<int64_t>());
        return true;
    }
    if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < 1.8e19
        && v.get<double>() == static_cast<double>(static_cast<uint64_t>(v.get<double>())))
    {
        value = static_cast<uint64_t>(v.get<double>());
        return true;
    }
    return false;
}

/**
 * \param v a JSON value
 * \param value set to it
 * \return false if it is not a finite non-negative number
 */
bool
NonNegative(const nlohmann::json& v, double& value)
{
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e300)
    {
        return false;
    }
    value = v.get<double>();
    return true;
}

/// What an operation names for its communicators: kind -> group id of each rank (0: none).
using KindIndex = std::map<std::string, std::vector<uint32_t>>;

/**
 * \param j an operation
 * \param rank its rank
 * \param index its index
 * \param names the rank's earlier operations' names
 * \param kinds the communicator kinds
 * \param workload the workload (its groups)
 * \param gpu the compute model
 * \param op set to the operation
 * \param error set to one line when it returns false
 * \return false if the operation is malformed
 */
bool
ParseOp(const nlohmann::json& j,
        uint32_t rank,
        uint32_t index,
        const std::map<std::string, uint32_t>& names,
        const KindIndex& kinds,
        const Workload& workload,
        const GpuComputeModel& gpu,
        WorkloadOp& op,
        std::string& error)
{
    const std::string where = "rank " + std::to_string(rank) + " operation "
                              + (j.is_object() && j.contains("name") && j["name"].is_string()
                                     ? "'" + j["name"].get<std::string>() + "'"
                                     : std::to_string(index));
    if (!j.is_object())
    {
        error = where + ": expected an object";
        return false;
    }
    static const std::set<std::string> known{"name",
                                             "deps",
                                             "compute_us",
                                             "flops",
                                             "bytes",
                                             "dtype",
                                             "collective",
                                             "comm",
                                             "algo",
                                             "send",
                                             "recv"};
    for (const auto& [key, value] : j.items())
    {
        if (!known.count(key))
        {
            error = where + ": unknown key \"" + key + "\"";
            return false;
        }
    }
    op = WorkloadOp();
    if (j.contains("name"))
    {
        if (!j["name"].is_string() || j["name"].get<std::string>().empty())
        {
            error = where + ": \"name\" must be a non-empty string";
            return false;
        }
        op.name = j["name"].get<std::string>();
    }
    if (op.name.empty())
    {
        op.name = "op" + std::to_string(index);
    }
    if (j.contains("deps"))
    {
        if (!j["deps"].is_array())
        {
            error = where + ": \"deps\" must be a list of names";
            return false;
        }
        for (const nlohmann::json& d : j["deps"])
        {
            const auto it = d.is_string() ? names.find(d.get<std::string>()) : names.end();
            if (it == names.end())
            {
                error = where + ": \"deps\" names " + d.dump() + ", not an operation before it";
                return false;
            }
            op.deps.push_back(it->second);
        }
    }
    int what = 0;
    for (const char* key : {"compute_us", "flops", "collective", "send", "recv"})
    {
        what += j.contains(key) ? 1 : 0;
    }
    if (what != 1)
    {
        error = where + ": needs one of \"compute_us\", \"flops\", \"collective\", \"send\", "
                        "\"recv\"";
        return false;
    }
    uint64_t bytes = 0;
    if (j.contains("bytes") && !Whole(j["bytes"], bytes))
    {
        error = where + ": \"bytes\" must be a whole number of bytes";
        return false;
    }
    op.bytes = bytes;
    if (j.contains("compute_us"))
    {
        double us = 0;
        if (!NonNegative(j["compute_us"], us))
        {
            error = where + ": \"compute_us\" must be a number of microseconds, at least 0";
            return false;
        }
        if (us > MAX_COMPUTE_US)
        {
            error = where + ": \"compute_us\" is more than a simulation holds (1e12 us)";
            return false;
        }
        op.kind = WorkloadOpKind::COMPUTE;
        op.duration = Seconds(us * 1e-6);
        op.bytes = 0;
        return true;
    }
    if (j.contains("flops"))
    {
        double flops = 0;
        if (!NonNegative(j["flops"], flops))
        {
            error = where + ": \"flops\" must be a number, at least 0";
            return false;
        }
        ComputeDataType type = ComputeDataType::BF16;
        if (j.contains("dtype")
            && (!j["dtype"].is_string()
                || !ParseComputeDataType(j["dtype"].get<std::string>(), type)))
        {
            error = where + ": \"dtype\" must be fp64, fp32, tf32, bf16, fp16 or fp8";
            return false;
        }
        if (!gpu.Supports(type))
        {
            error = where + ": the " + gpu.GetGpu().name + " does not compute in "
                    + ComputeDataTypeName(type);
            return false;
        }
        const double seconds
            = std::max(flops / gpu.GetEffectiveFlops(type),
                       static_cast<double>(bytes) / gpu.GetEffectiveMemoryBandwidth());
        if (seconds > MAX_COMPUTE_US * 1e-6)
        {
            error = where + ": its \"flops\" and \"bytes\" take more than a simulation holds "
                            "(1e12 us)";
            return false;
        }
        op.kind = WorkloadOpKind::COMPUTE;
        op.flops = flops;
        op.duration = gpu.KernelTime(flops, static_cast<double>(bytes), type);
        op.bytes = 0;
        return true;
    }
    if (j.contains("collective"))
    {
        if (!j["collective"].is_string()
            || !ParseCollectiveType(j["collective"].get<std::string>(), op.collective))
        {
            error = where + ": \"collective\" must be allreduce, allgather, reducescatter, "
                            "broadcast or alltoall";
            return false;
        }
        const std::string comm = j.contains("comm") && j["comm"].is_string()
                                     ? j["comm"].get<std::string>()
                                     : std::string("all");
        if (j.contains("comm") && !j["comm"].is_string())
        {
            error = where + ": \"comm\" must be a communicator kind's name";
            return false;
        }
        if (comm != "all")
        {
            const auto it = kinds.find(comm);
            if (it == kinds.end())
            {
                error = where + ": no communicator kind \"" + comm + "\"";
                return false;
            }
            if (it->second[rank] == 0)
            {
                error = where + ": no group of \"" + comm + "\" holds rank " + std::to_string(rank);
                return false;
            }
            op.group = it->second[rank];
        }
        op.kind = WorkloadOpKind::COLLECTIVE;
        if (j.contains("algo"))
        {
            if (!j["algo"].is_string())
            {
                error = where + ": \"algo\" must be an algorithm's name";
                return false;
            }
            op.algorithm = j["algo"].get<std::string>();
            std::string why;
            const auto size = static_cast<uint32_t>(workload.GroupRanks(op.group).size());
            if (!CollectiveAlgorithm::CreateByName(op.algorithm, op.collective, size, why))
            {
                error = where + ": " + why;
                return false;
            }
        }
        return true;
    }
    const bool send = j.contains("send");
    uint64_t peer = 0;
    if (!Whole(j[send ? "send" : "recv"], peer) || peer >= workload.nRanks)
    {
        error = where + ": \"" + (send ? "send" : "recv") + "\" must be a rank of the "
                + std::to_string(workload.nRanks);
        return false;
    }
    op.kind = send ? WorkloadOpKind::SEND : WorkloadOpKind::RECV;
    op.peer = static_cast<uint32_t>(peer);
    return true;
}

} // namespace

bool
WorkloadFile::Read(const std::string& path, Workload& workload, std::string& error)
{
    std::ifstream in(path);
    if (!in)
    {
        error = "cannot read " + path;
        return false;
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const nlohmann::json::exception&)
    {
        error = path + " is not JSON";
        return false;
    }
    return Parse(j, workload, error);
}

bool
WorkloadFile::Parse(const nlohmann::json& j, Workload& workload, std::string& error)
{
    if (!j.is_object())
    {
        error = "a workload is an object with \"ranks\" and \"default\" or \"rank_ops\"";
        return false;
    }
    for (const auto& [key, value] : j.items())
    {
        if (key != "ranks" && key != "gpu" && key != "communicators" && key != "default"
            && key != "rank_ops")
        {
            error = "unknown key \"" + key + "\"";
            return false;
        }
    }
    uint64_t ranks = 0;
    if (!j.contains("ranks") || !Whole(j["ranks"], ranks) || ranks == 0 || ranks > MAX_RANKS)
    {
        error = "\"ranks\" must be a number of ranks from 1 to " + std::to_string(MAX_RANKS);
        return false;
    }
    Workload w;
    w.nRanks = static_cast<uint32_t>(ranks);
    Ptr<GpuComputeModel> gpu = CreateObject<GpuComputeModel>();
    if (j.contains("gpu"))
    {
        GpuSpec spec;
        if (!j["gpu"].is_string() || !GpuComputeModel::GetPreset(j["gpu"].get<std::string>(), spec))
        {
            error = "\"gpu\" must be a100, h100, h800, h200, b200 or gb200";
            return false;
        }
        gpu->SetAttribute("Gpu", StringValue(spec.name));
    }
    KindIndex kinds;
    if (j.contains("communicators"))
    {
        if (!j["communicators"].is_object())
        {
            error = "\"communicators\" must map kinds to lists of groups of ranks";
            return false;
        }
        for (const auto& [kind, groups] : j["communicators"].items())
        {
            if (kind == "all" || !groups.is_array() || groups.empty())
            {
                error = "communicator kind \"" + kind + "\": "
                        + (kind == "all" ? std::string("\"all\" is every rank's")
                                         : std::string("expected a list of groups of ranks"));
                return false;
            }
            std::vector<uint32_t>& of = kinds[kind];
            of.assign(w.nRanks, 0);
            for (std::size_t g = 0; g < groups.size(); ++g)
            {
                const std::string name = kind + "[" + std::to_string(g) + "]";
                if (!groups[g].is_array() || groups[g].empty())
                {
                    error = "communicator " + name + ": expected a list of ranks";
                    return false;
                }
                std::vector<uint32_t> members;
                for (const nlohmann::json& r : groups[g])
                {
                    uint64_t rank = 0;
                    if (!Whole(r, rank) || rank >= w.nRanks)
                    {
                        error = "communicator " + name + " names " + r.dump() + ", not a rank of "
                                + "the " + std::to_string(w.nRanks);
                        return false;
                    }
                    if (of[rank] != 0)
                    {
                        error = "rank " + std::to_string(rank) + " is in two groups of \"" + kind
                                + "\"";
                        return false;
                    }
                    members.push_back(static_cast<uint32_t>(rank));
                    of[rank] = static_cast<uint32_t>(w.groups.size());
                }
                w.groupNames.push_back(name);
                w.groups.push_back(members);
            }
        }
    }
    std::map<uint32_t, const nlohmann::json*> lists;
    if (j.contains("rank_ops"))
    {
        if (!j["rank_ops"].is_object())
        {
            error = "\"rank_ops\" must map ranks to lists of operations";
            return false;
        }
        for (const auto& [key, list] : j["rank_ops"].items())
        {
            uint64_t rank = 0;
            const bool digits = !key.empty() && key.size() < 8
                                && key.find_first_not_of("0123456789") == std::string::npos
                                && (key.size() == 1 || key[0] != '0');
            if (!digits || (rank = std::stoull(key)) >= w.nRanks || !list.is_array())
            {
                error = "\"rank_ops\": \"" + key + "\" must be a rank with a list of operations";
                return false;
            }
            lists[static_cast<uint32_t>(rank)] = &list;
        }
    }
    const nlohmann::json* fallback = nullptr;
    if (j.contains("default"))
    {
        if (!j["default"].is_array())
        {
            error = "\"default\" must be a list of operations";
            return false;
        }
        fallback = &j["default"];
    }
    w.ops.assign(w.nRanks, {});
    for (uint32_t r = 0; r < w.nRanks; ++r)
    {
        const auto it = lists.find(r);
        const nlohmann::json* list = it != lists.end() ? it->second : fallback;
        if (!list)
        {
            error = "rank " + std::to_string(r) + " has no operations (no \"default\")";
            return false;
        }
        std::map<std::string, uint32_t> names;
        for (uint32_t i = 0; i < list->size(); ++i)
        {
            WorkloadOp op;
            if (!ParseOp((*list)[i], r, i, names, kinds, w, *gpu, op, error))
            {
                return false;
            }
            if (!names.emplace(op.name, i).second)
            {
                error = "rank " + std::to_string(r) + " has two operations named '" + op.name + "'";
                return false;
            }
            w.ops[r].push_back(op);
        }
    }
    if (!w.Check(error))
    {
        return false;
    }
    workload = std::move(w);
    return true;
}

namespace
{

/**
 * \param t a time
 * \return it in microseconds
 */
double
Us(Time t)
{
    return t.GetSeconds() * 1e6;
}

/// A kind's totals over the ranks.
struct KindTotals
{
    uint64_t ops{0}; //!< operations
    Time time;       //!< their time
    Time exposed;    //!< their exposed time
};

/// Totals by name, in the order names first appear.
class TotalsTable
{
  public:
    /**
     * \param name a kind or a communicator
     * \return its totals (new ones are zero)
     */
    KindTotals& Of(const std::string& name)
    {
        const auto [it, added] = m_index.emplace(name, m_rows.size());
        if (added)
        {
            m_rows.emplace_back(name, KindTotals());
        }
        return m_rows[it->second].second;
    }

    /// \return the rows
    const std::vector<std::pair<std::string, KindTotals>>& Rows() const
    {
        return m_rows;
    }

  private:
    std::vector<std::pair<std::string, KindTotals>> m_rows; //!< in first-seen order
    std::unordered_map<std::string, std::size_t> m_index;   //!< name -> place in m_rows
};

/// A run's totals over the ranks.
struct RunTotals
{
    TotalsTable kinds;         //!< by kind (WorkloadRunner::KindName())
    TotalsTable communicators; //!< by communicator (CommunicatorName(), compute left out)
    uint32_t slowest{0};       //!< the rank that ended last
};

/**
 * \param runner a run
 * \return every kind's and every communicator's totals, each rank summarized once
 */
RunTotals
Totals(const WorkloadRunner& runner)
{
    const Workload& w = runner.GetWorkload();
    RunTotals totals;
    Time last(-1);
    for (uint32_t r = 0; r < w.nRanks; ++r)
    {
        const auto& recs = runner.GetRecords()[r];
        for (uint32_t i = 0; i < w.ops[r].size(); ++i)
        {
            const WorkloadOp& op = w.ops[r][i];
            const Time took
                = recs[i].end.IsStrictlyNegative() ? Time(0) : recs[i].end - recs[i].start;
            KindTotals& kind = totals.kinds.Of(WorkloadRunner::KindName(op));
            ++kind.ops;
            kind.time += took;
            if (op.kind != WorkloadOpKind::COMPUTE)
            {
                KindTotals& comm = totals.communicators.Of(WorkloadRunner::CommunicatorName(w, op));
                ++comm.ops;
                comm.time += took;
            }
        }
        const WorkloadRunner::Breakdown b = runner.Summarize(r);
        for (const auto& [kind, e] : b.exposed)
        {
            totals.kinds.Of(kind).exposed += e;
        }
        for (const auto& [name, e] : b.exposedByCommunicator)
        {
            totals.communicators.Of(name).exposed += e;
        }
        if (b.end > last)
        {
            last = b.end;
            totals.slowest = r;
        }
    }
    return totals;
}

} // namespace

void
WorkloadFile::Print(std::ostream& os, const WorkloadRunner& runner)
{
    const Workload& w = runner.GetWorkload();
    const RunTotals totals = Totals(runner);
    const uint32_t slowest = totals.slowest;
    const WorkloadRunner::Breakdown b = runner.Summarize(slowest);
    char line[200];
    std::snprintf(line,
                  sizeof(line),
                  "# workload: %u ranks, %zu group(s)\n# step time: %.2f us (rank %u last)%s\n",
                  w.nRanks,
                  w.groups.size() - 1,
                  Us(runner.GetEndTime()),
                  slowest,
                  runner.IsDone() ? "" : " (not finished)");
    os << line;
    os << "# rank " << slowest << ":";
    std::snprintf(line, sizeof(line), " compute %.2f us", Us(b.compute));
    os << line;
    for (const auto& [kind, t] : b.exposed)
    {
        std::snprintf(line, sizeof(line), ", exposed %s %.2f us", kind.c_str(), Us(t));
        os << line;
    }
    std::snprintf(line, sizeof(line), ", idle %.2f us\n", Us(b.idle));
    os << line;
    std::snprintf(line,
                  sizeof(line),
                  "#%13s %10s %16s %18s\n",
                  "kind",
                  "ops/rank",
                  "time/rank (us)",
                  "exposed/rank (us)");
    os << line;
    for (const auto& [kind, t] : totals.kinds.Rows())
    {
        std::snprintf(line,
                      sizeof(line),
                      " %13s %10.2f %16.2f %18.2f\n",
                      kind.c_str(),
                      static_cast<double>(t.ops) / w.nRanks,
                      Us(t.time) / w.nRanks,
                      Us(t.exposed) / w.nRanks);
        os << line;
    }
    // The same communication by communicator: which parallelism's traffic it was (a name
    // longer than the column widens its row; the JSON has them all).
    const auto& communicators = totals.communicators.Rows();
    if (!communicators.empty())
    {
        std::snprintf(line,
                      sizeof(line),
                      "#%13s %10s %16s %18s\n",
                      "communicator",
                      "ops/rank",
                      "time/rank (us)",
                      "exposed/rank (us)");
        os << line;
    }
    for (const auto& [name, t] : communicators)
    {
        os << " " << std::setw(13) << name;
        std::snprintf(line,
                      sizeof(line),
                      " %10.2f %16.2f %18.2f\n",
                      static_cast<double>(t.ops) / w.nRanks,
                      Us(t.time) / w.nRanks,
                      Us(t.exposed) / w.nRanks);
        os << line;
    }
}

nlohmann::ordered_json
WorkloadFile::ToJson(const WorkloadRunner& runner)
{
    const Workload& w = runner.GetWorkload();
    const RunTotals totals = Totals(runner);
    nlohmann::ordered_json j;
    j["ranks"] = w.nRanks;
    j["finished"] = runner.IsDone();
    j["step_us"] = Us(runner.GetEndTime());
    j["slowest_rank"] = totals.slowest;
    // A table's rows, each named under key, its means per rank.
    auto rows = [&w](const TotalsTable& table, const char* key)
    {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& [name, t] : table.Rows())
        {
            out.push_back({{key, name},
                           {"ops_per_rank", static_cast<double>(t.ops) / w.nRanks},
                           {"time_us_per_rank", Us(t.time) / w.nRanks},
                           {"exposed_us_per_rank", Us(t.exposed) / w.nRanks}});
        }
        return out;
    };
    j["kinds"] = rows(totals.kinds, "kind");
    j["communicators"] = rows(totals.communicators, "communicator");
    j["per_rank"] = nlohmann::ordered_json::array();
    for (uint32_t r = 0; r < w.nRanks; ++r)
    {
        const WorkloadRunner::Breakdown b = runner.Summarize(r);
        nlohmann::ordered_json exposed = nlohmann::ordered_json::object();
        for (const auto& [kind, t] : b.exposed)
        {
            exposed[kind] = Us(t);
        }
        nlohmann::ordered_json byCommunicator = nlohmann::ordered_json::object();
        for (const auto& [name, t] : b.exposedByCommunicator)
        {
            byCommunicator[name] = Us(t);
        }
        j["per_rank"].push_back({{"rank", r},
                                 {"end_us", Us(b.end)},
                                 {"compute_us", Us(b.compute)},
                                 {"exposed_us", exposed},
                                 {"exposed_us_by_communicator", byCommunicator},
                                 {"idle_us", Us(b.idle)}});
    }
    return j;
}

void
WorkloadFile::WriteTimeline(std::ostream& os, const WorkloadRunner& runner)
{
    const Workload& w = runner.GetWorkload();
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    for (uint32_t r = 0; r < w.nRanks; ++r)
    {
        events.push_back({{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", r},
                          {"args", {{"name", "rank " + std::to_string(r)}}}});
        std::map<std::string, uint32_t> threads; // stream name -> tid
        const auto& recs = runner.GetRecords()[r];
        for (uint32_t i = 0; i < w.ops[r].size(); ++i)
        {
            const WorkloadOp& op = w.ops[r][i];
            std::string stream;
            switch (op.kind)
            {
            case WorkloadOpKind::COMPUTE:
                stream = "compute";
                break;
            case WorkloadOpKind::COLLECTIVE:
                stream = w.groupNames[op.group];
                break;
            case WorkloadOpKind::SEND:
                stream = "send to " + std::to_string(op.peer);
                break;
            case WorkloadOpKind::RECV:
                stream = "recv from " + std::to_string(op.peer);
                break;
            }
            auto [it, added] = threads.emplace(stream, static_cast<uint32_t>(threads.size()));
            if (added)
            {
                events.push_back({{"name", "thread_name"},
                                  {"ph", "M"},
                                  {"pid", r},
                                  {"tid", it->second},
                                  {"args", {{"name", stream}}}});
            }
            if (recs[i].end.IsStrictlyNegative())
            {
                continue;
            }
            nlohmann::ordered_json e = {{"name", op.name},
                                        {"cat", WorkloadRunner::KindName(op)},
                                        {"ph", "X"},
                                        {"ts", Us(recs[i].start)},
                                        {"dur", Us(recs[i].end - recs[i].start)},
                                        {"pid", r},
                                        {"tid", it->second}};
            if (op.kind != WorkloadOpKind::COMPUTE)
            {
                e["args"] = {{"bytes", op.bytes}};
            }
            events.push_back(e);
        }
    }
    nlohmann::ordered_json doc;
    doc["traceEvents"] = events;
    doc["displayTimeUnit"] = "ns";
    os << doc.dump(1) << "\n";
}

} // namespace ns3
