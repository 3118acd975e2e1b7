/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "workload.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace ns3
{

std::vector<uint32_t>
Workload::GroupRanks(uint32_t group) const
{
    if (group == 0)
    {
        std::vector<uint32_t> all(nRanks);
        std::iota(all.begin(), all.end(), 0);
        return all;
    }
    return groups.at(group);
}

bool
Workload::Check(std::string& error) const
{
    if (nRanks == 0 || ops.size() != nRanks)
    {
        error = "the workload has " + std::to_string(ops.size()) + " ranks' operations for "
                + std::to_string(nRanks) + " ranks";
        return false;
    }
    if (groups.size() != groupNames.size() || groups.empty())
    {
        error = "the workload's communicators have no names";
        return false;
    }
    // Each communicator's ranks, sorted; the communicators of each rank.
    std::vector<std::vector<uint32_t>> members(groups.size());
    std::vector<std::vector<uint32_t>> memberOf(nRanks);
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        std::vector<uint32_t> ranks = GroupRanks(g);
        if (ranks.empty())
        {
            error = "communicator " + groupNames[g] + " has no ranks";
            return false;
        }
        for (uint32_t r : ranks)
        {
            if (r >= nRanks)
            {
                error = "communicator " + groupNames[g] + " names rank " + std::to_string(r)
                        + " of " + std::to_string(nRanks);
                return false;
            }
        }
        std::sort(ranks.begin(), ranks.end());
        const auto twice = std::adjacent_find(ranks.begin(), ranks.end());
        if (twice != ranks.end())
        {
            error = "communicator " + groupNames[g] + " names rank " + std::to_string(*twice)
                    + " twice";
            return false;
        }
        for (uint32_t r : ranks)
        {
            memberOf[r].push_back(g);
        }
        members[g] = std::move(ranks);
    }
    // What every member of a communicator must list alike, and the sends and receives of
    // each (src, dst) pair.
    using Call = std::tuple<CollectiveType, uint64_t, std::string, uint32_t, bool>;
    std::vector<std::vector<Call>> first(groups.size());
    std::vector<int64_t> firstRank(groups.size(), -1);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> sends;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> recvs;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::vector<std::vector<Call>> calls(groups.size());
        for (uint32_t i = 0; i < ops[r].size(); ++i)
        {
            const WorkloadOp& op = ops[r][i];
            const std::string where = "rank " + std::to_string(r) + " operation "
                                      + (op.name.empty() ? std::to_string(i) : "'" + op.name + "'");
            for (uint32_t d : op.deps)
            {
                if (d >= i)
                {
                    error = where + " depends on an operation not listed before it";
                    return false;
                }
            }
            switch (op.kind)
            {
            case WorkloadOpKind::COMPUTE:
                if (op.duration.IsStrictlyNegative())
                {
                    error = where + " has a negative time";
                    return false;
                }
                break;
            case WorkloadOpKind::COLLECTIVE:
                if (op.group >= groups.size()
                    || !std::binary_search(members[op.group].begin(), members[op.group].end(), r))
                {
                    error = where + " runs on a communicator rank " + std::to_string(r)
                            + " is not in";
                    return false;
                }
                if (op.moe > 0
                    && (op.moe > moe.size() || op.collective != CollectiveType::ALL_TO_ALL
                        || !moe[op.moe - 1].routing
                        || moe[op.moe - 1].routing->GetNRanks() != members[op.group].size()))
                {
                    error = where + " moves the tokens of a mixture-of-experts layer not routed "
                                    "over its communicator";
                    return false;
                }
                calls[op.group].emplace_back(
                    op.collective, op.bytes, op.algorithm, op.moe, op.combine);
                break;
            case WorkloadOpKind::SEND:
            case WorkloadOpKind::RECV:
                if (op.peer >= nRanks || op.peer == r)
                {
                    error = where + " names peer " + std::to_string(op.peer);
                    return false;
                }
                if (op.kind == WorkloadOpKind::SEND)
                {
                    sends[{r, op.peer}].push_back(op.bytes);
                }
                else
                {
                    recvs[{op.peer, r}].push_back(op.bytes);
                }
                break;
            }
        }
        for (uint32_t g : memberOf[r])
        {
            if (firstRank[g] < 0)
            {
                firstRank[g] = r;
                first[g] = calls[g];
            }
            else if (calls[g] != first[g])
            {
                error = "ranks " + std::to_string(firstRank[g]) + " and " + std::to_string(r)
                        + " list different collectives on communicator " + groupNames[g];
                return false;
            }
        }
    }
    for (const auto& [pair, sizes] : sends)
    {
        const auto it = recvs.find(pair);
        if (it == recvs.end() || it->second != sizes)
        {
            error = "rank " + std::to_string(pair.first) + "'s sends to rank "
                    + std::to_string(pair.second) + " do not match its receives from it";
            return false;
        }
    }
    for (const auto& [pair, sizes] : recvs)
    {
        if (sends.find(pair) == sends.end())
        {
            error = "rank " + std::to_string(pair.second) + " receives from rank "
                    + std::to_string(pair.first) + ", which sends it nothing";
            return false;
        }
    }
    return CheckProgress(error);
}

bool
Workload::CheckProgress(std::string& error) const
{
    // Run the workload without time: an operation ends once its dependencies have, the
    // operations before it on its stream have, and (a collective) every member of its
    // communicator has reached it, or (a receive) its send has ended. A send ends without its
    // receiver (the data waits at the peer). Whatever is left can never end.
    struct Stream
    {
        std::vector<uint32_t> ops; //!< in order
        std::size_t next{0};       //!< the first not ended
    };
    std::vector<std::vector<Stream>> streams(nRanks);
    std::vector<std::map<std::tuple<int, uint32_t, uint32_t>, uint32_t>> streamOf(nRanks);
    // Per communicator: how many collectives each member has ended (by rank).
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sent; // (src, dst) -> sends ended
    std::vector<std::vector<uint8_t>> ended(nRanks);
    uint64_t left = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        ended[r].assign(ops[r].size(), 0);
        left += ops[r].size();
        for (uint32_t i = 0; i < ops[r].size(); ++i)
        {
            const WorkloadOp& op = ops[r][i];
            const int kind = static_cast<int>(op.kind);
            const uint32_t key = op.kind == WorkloadOpKind::COLLECTIVE ? op.group : op.peer;
            const auto k = std::make_tuple(op.kind == WorkloadOpKind::COMPUTE ? 0 : kind,
                                           op.kind == WorkloadOpKind::COMPUTE ? 0 : key,
                                           0U);
            auto [it, added] = streamOf[r].emplace(k, static_cast<uint32_t>(streams[r].size()));
            if (added)
            {
                streams[r].emplace_back();
            }
            streams[r][it->second].ops.push_back(i);
        }
    }
    // Collective number of each op on its communicator's stream (its position there).
    auto ready = [&](uint32_t r, uint32_t i)
    {
        for (uint32_t d : ops[r][i].deps)
        {
            if (!ended[r][d])
            {
                return false;
            }
        }
        return true;
    };
    bool progress = true;
    while (left > 0 && progress)
    {
        progress = false;
        for (uint32_t r = 0; r < nRanks; ++r)
        {
            for (Stream& st : streams[r])
            {
                while (st.next < st.ops.size())
                {
                    const uint32_t i = st.ops[st.next];
                    const WorkloadOp& op = ops[r][i];
                    if (!ready(r, i))
                    {
                        break;
                    }
                    if (op.kind == WorkloadOpKind::RECV && sent[{op.peer, r}] <= st.next)
                    {
                        break; // its send has not ended
                    }
                    if (op.kind == WorkloadOpKind::COLLECTIVE)
                    {
                        // Every member must be at this collective, ready; then all end it.
                        bool all = true;
                        const std::vector<uint32_t> members = GroupRanks(op.group);
                        for (uint32_t m : members)
                        {
                            const Stream& ms = streams[m][streamOf[m].at(
                                {static_cast<int>(op.kind), op.group, 0U})];
                            all = all && ms.next == st.next && ms.next < ms.ops.size()
                                  && ready(m, ms.ops[ms.next]);
                        }
                        if (!all)
                        {
                            break;
                        }
                        for (uint32_t m : members)
                        {
                            Stream& ms = streams[m][streamOf[m].at(
                                {static_cast<int>(op.kind), op.group, 0U})];
                            ended[m][ms.ops[ms.next]] = 1;
                            ++ms.next;
                            --left;
                        }
                        progress = true;
                        continue;
                    }
                    if (op.kind == WorkloadOpKind::SEND)
                    {
                        ++sent[{r, op.peer}];
                    }
                    ended[r][i] = 1;
                    ++st.next;
                    --left;
                    progress = true;
                }
            }
        }
    }
    if (left == 0)
    {
        return true;
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (uint32_t i = 0; i < ops[r].size(); ++i)
        {
            if (!ended[r][i])
            {
                error = "the workload cannot finish: rank " + std::to_string(r) + " operation '"
                        + (ops[r][i].name.empty() ? std::to_string(i) : ops[r][i].name)
                        + "' waits forever (for a peer, or a collective its communicator's other "
                          "members reach only after it)";
                return false;
            }
        }
    }
    return true;
}

} // namespace ns3
