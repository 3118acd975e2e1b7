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
    // position[g][rank]: the rank's index in communicator g, or -1.
    std::vector<std::vector<int64_t>> position(groups.size(), std::vector<int64_t>(nRanks, -1));
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        const std::vector<uint32_t> ranks = GroupRanks(g);
        if (ranks.empty())
        {
            error = "communicator " + groupNames[g] + " has no ranks";
            return false;
        }
        for (uint32_t i = 0; i < ranks.size(); ++i)
        {
            if (ranks[i] >= nRanks)
            {
                error = "communicator " + groupNames[g] + " names rank " + std::to_string(ranks[i])
                        + " of " + std::to_string(nRanks);
                return false;
            }
            if (position[g][ranks[i]] >= 0)
            {
                error = "communicator " + groupNames[g] + " names rank " + std::to_string(ranks[i])
                        + " twice";
                return false;
            }
            position[g][ranks[i]] = i;
        }
    }
    // What every member of a communicator must list alike, and the sends and receives of
    // each (src, dst) pair.
    using Call = std::tuple<CollectiveType, uint64_t, std::string>;
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
                if (op.group >= groups.size() || position[op.group][r] < 0)
                {
                    error = where + " runs on a communicator rank " + std::to_string(r)
                            + " is not in";
                    return false;
                }
                calls[op.group].emplace_back(op.collective, op.bytes, op.algorithm);
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
        for (uint32_t g = 0; g < groups.size(); ++g)
        {
            if (position[g][r] < 0)
            {
                continue;
            }
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
    return true;
}

} // namespace ns3
