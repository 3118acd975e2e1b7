/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "torus-all-reduce-algorithm.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/string.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TorusAllReduceAlgorithm);

TypeId
TorusAllReduceAlgorithm::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::TorusAllReduceAlgorithm")
              .SetParent<CollectiveAlgorithm>()
              .SetGroupName("AiFabric")
              .AddConstructor<TorusAllReduceAlgorithm>()
              .AddAttribute("Dims",
                            "The rank grid, sizes joined by 'x' (\"4x4x4\"), X fastest; their "
                            "product is the number of ranks. Empty (the default): the "
                            "squarest 2D grid of the ranks.",
                            StringValue(""),
                            MakeStringAccessor(&TorusAllReduceAlgorithm::SetDims,
                                               &TorusAllReduceAlgorithm::GetDims),
                            MakeStringChecker())
              .AddAttribute("RotateDimensions",
                            "Channel c starts at dimension c mod k (k dimensions), so that "
                            "channels use every dimension's links at once. Default true.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&TorusAllReduceAlgorithm::m_rotate),
                            MakeBooleanChecker());
    return tid;
}

std::string
TorusAllReduceAlgorithm::GetName() const
{
    return "torus";
}

bool
TorusAllReduceAlgorithm::ParseDims(const std::string& text, std::vector<uint32_t>& dims)
{
    dims.clear();
    if (text.empty())
    {
        return true;
    }
    std::size_t start = 0;
    while (true)
    {
        const std::size_t x = text.find('x', start);
        const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
        if (part.empty() || part.size() > 6
            || part.find_first_not_of("0123456789") != std::string::npos)
        {
            return false;
        }
        const uint32_t v = static_cast<uint32_t>(std::stoul(part));
        if (v == 0)
        {
            return false;
        }
        dims.push_back(v);
        if (x == std::string::npos)
        {
            break;
        }
        start = x + 1;
    }
    return dims.size() <= 4;
}

void
TorusAllReduceAlgorithm::SetDims(std::string text)
{
    std::vector<uint32_t> dims;
    NS_ABORT_MSG_IF(!ParseDims(text, dims),
                    "TorusAllReduceAlgorithm: Dims=" << text << " is not 1 to 4 sizes like 4x4");
    m_dims = dims;
}

std::string
TorusAllReduceAlgorithm::GetDims() const
{
    std::string text;
    for (std::size_t i = 0; i < m_dims.size(); ++i)
    {
        text += (i == 0 ? "" : "x") + std::to_string(m_dims[i]);
    }
    return text;
}

std::vector<uint32_t>
TorusAllReduceAlgorithm::GetShape(uint32_t nRanks) const
{
    std::vector<uint32_t> dims = m_dims;
    if (dims.empty())
    {
        uint32_t a = 1;
        for (uint32_t f = 1; static_cast<uint64_t>(f) * f <= nRanks; ++f)
        {
            if (nRanks % f == 0)
            {
                a = f;
            }
        }
        dims = {nRanks / a, a};
    }
    std::vector<uint32_t> shape;
    for (uint32_t d : dims)
    {
        if (d > 1)
        {
            shape.push_back(d);
        }
    }
    return shape;
}

bool
TorusAllReduceAlgorithm::Supports(CollectiveType type, uint32_t nRanks) const
{
    if (type != CollectiveType::ALL_REDUCE && type != CollectiveType::ALL_GATHER
        && type != CollectiveType::REDUCE_SCATTER)
    {
        return false;
    }
    uint64_t product = 1;
    for (uint32_t d : m_dims)
    {
        product *= d;
    }
    return nRanks >= 2 && (m_dims.empty() || product == nRanks);
}

void
TorusAllReduceAlgorithm::DoBuild(CollectivePlan& plan,
                                 uint32_t channel,
                                 uint64_t bytes,
                                 uint64_t chunkBytes) const
{
    const uint32_t n = plan.GetNRanks();
    const CollectiveType type = plan.GetType();
    const std::vector<uint32_t> shape = GetShape(n);
    const auto k = static_cast<uint32_t>(shape.size());
    // Coordinates of every rank (the first dimension fastest) and the order of dimensions.
    std::vector<std::vector<uint32_t>> coords(n, std::vector<uint32_t>(k));
    for (uint32_t r = 0; r < n; ++r)
    {
        uint32_t rest = r;
        for (uint32_t d = 0; d < k; ++d)
        {
            coords[r][d] = rest % shape[d];
            rest /= shape[d];
        }
    }
    std::vector<uint32_t> order(k);
    for (uint32_t j = 0; j < k; ++j)
    {
        order[j] = ((m_rotate ? channel : 0) + j) % k;
    }
    // Blocks: n atoms of the buffer; level j blocks hold n / (product of the first j
    // dimensions in order) atoms. base[r][j]: first atom of the block rank r holds at level j.
    const std::vector<uint64_t> atoms = Split(bytes, n);
    std::vector<uint64_t> prefix(n + 1, 0);
    for (uint32_t a = 0; a < n; ++a)
    {
        prefix[a + 1] = prefix[a] + atoms[a];
    }
    std::vector<uint32_t> size(k + 1, n);
    for (uint32_t j = 0; j < k; ++j)
    {
        size[j + 1] = size[j] / shape[order[j]];
    }
    std::vector<std::vector<uint32_t>> base(n, std::vector<uint32_t>(k + 1, 0));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t j = 0; j < k; ++j)
        {
            const uint32_t d = order[j];
            // After the ring reduce-scatter, position p holds part (p + 1) mod D.
            base[r][j + 1] = base[r][j] + ((coords[r][d] + 1) % shape[d]) * size[j + 1];
        }
    }
    auto nextInLine = [&](uint32_t r, uint32_t d)
    {
        uint32_t stride = 1;
        for (uint32_t e = 0; e < d; ++e)
        {
            stride *= shape[e];
        }
        const uint32_t c = coords[r][d];
        return r - c * stride + ((c + 1) % shape[d]) * stride;
    };

    // One ring phase along dimension order[j]: D - 1 steps.
    uint32_t step = 0;
    std::vector<std::vector<uint32_t>> last(n); // arrivals at each rank in the last step
    auto phase = [&](uint32_t j, bool reduce)
    {
        const uint32_t d = order[j];
        const uint32_t dimSize = shape[d];
        const uint32_t sub = size[j + 1];
        uint64_t largest = 0;
        for (uint32_t part = 0; part < dimSize; ++part)
        {
            const uint32_t start = base[0][j] + part * sub;
            largest = std::max(largest, prefix[start + sub] - prefix[start]);
        }
        const uint64_t nPieces = Pieces(largest, chunkBytes);
        std::vector<std::vector<uint32_t>> previous(n);
        std::vector<std::vector<uint32_t>> current(n, std::vector<uint32_t>(nPieces));
        for (uint32_t t = 0; t + 1 < dimSize; ++t)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                const uint32_t p = coords[r][d];
                const uint32_t part
                    = reduce ? (p + dimSize - t) % dimSize : (p + 1 + dimSize - t) % dimSize;
                const uint32_t start = base[r][j] + part * sub;
                const std::vector<uint64_t> pieces
                    = Split(prefix[start + sub] - prefix[start], nPieces);
                const uint32_t next = nextInLine(r, d);
                for (uint64_t q = 0; q < nPieces; ++q)
                {
                    // Within the phase, piece by piece as the ring; at its start, after all
                    // of what arrived in the previous phase.
                    const std::vector<uint32_t> deps
                        = t > 0 ? std::vector<uint32_t>{previous[r][q]} : last[r];
                    current[next][q]
                        = plan.AddTransfer(r, next, channel, pieces[q], step, reduce, deps);
                }
            }
            std::swap(previous, current);
            current.assign(n, std::vector<uint32_t>(nPieces));
            ++step;
        }
        last = previous;
    };
    if (type != CollectiveType::ALL_GATHER)
    {
        for (uint32_t j = 0; j < k; ++j)
        {
            phase(j, true);
        }
    }
    if (type != CollectiveType::REDUCE_SCATTER)
    {
        for (uint32_t j = k; j-- > 0;)
        {
            phase(j, false);
        }
    }
}

} // namespace ns3
