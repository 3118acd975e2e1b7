/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "chakra-trace.h"

#include "ns3/abort.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <queue>
#include <unordered_map>

namespace ns3
{

namespace
{

/**
 * \param text a name from a file
 * \return it with control characters as '?', so that a message stays one line
 */
std::string
Printable(std::string text)
{
    for (char& c : text)
    {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        {
            c = '?';
        }
    }
    return text;
}

/// Protobuf's wire types.
enum WireType : uint32_t
{
    VARINT = 0,
    FIXED64 = 1,
    LENGTH = 2,
    FIXED32 = 5,
};

/// A cursor over bytes of protobuf's wire format.
class Wire
{
  public:
    /**
     * \param data first byte
     * \param size bytes
     */
    Wire(const uint8_t* data, std::size_t size)
        : m_data(data)
        , m_size(size)
    {
    }

    /// \return true when every byte is read
    bool AtEnd() const
    {
        return m_pos >= m_size;
    }

    /**
     * \param value set to the varint read
     * \return false if the bytes end inside it or it is longer than 10 bytes
     */
    bool Varint(uint64_t& value)
    {
        value = 0;
        for (uint32_t shift = 0; shift < 70; shift += 7)
        {
            if (m_pos >= m_size)
            {
                return false;
            }
            const uint8_t b = m_data[m_pos++];
            value |= static_cast<uint64_t>(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * \param n bytes
     * \param out set to where they start
     * \return false if fewer are left
     */
    bool Bytes(uint64_t n, const uint8_t*& out)
    {
        if (n > m_size - m_pos)
        {
            return false;
        }
        out = m_data + m_pos;
        m_pos += n;
        return true;
    }

    /**
     * \brief Read a field's key and its value (a varint or fixed value's bits, or a
     *        length-delimited value's bytes).
     * \param field set to the field number
     * \param type set to the wire type
     * \param bits set to a varint's or fixed value's bits
     * \param bytes set to a length-delimited value's first byte
     * \param length set to its length
     * \return false if the bytes are not protobuf's wire format
     */
    bool Field(
        uint32_t& field, uint32_t& type, uint64_t& bits, const uint8_t*& bytes, uint64_t& length)
    {
        uint64_t key = 0;
        if (!Varint(key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
        {
            return false;
        }
        field = static_cast<uint32_t>(key >> 3);
        type = static_cast<uint32_t>(key & 7);
        switch (type)
        {
        case VARINT:
            return Varint(bits);
        case FIXED64:
            if (!Bytes(8, bytes))
            {
                return false;
            }
            std::memcpy(&bits, bytes, 8);
            return true;
        case FIXED32:
        {
            uint32_t v = 0;
            if (!Bytes(4, bytes))
            {
                return false;
            }
            std::memcpy(&v, bytes, 4);
            bits = v;
            return true;
        }
        case LENGTH:
            return Varint(length) && Bytes(length, bytes);
        default:
            return false;
        }
    }

  private:
    const uint8_t* m_data; //!< the bytes
    std::size_t m_size;    //!< how many
    std::size_t m_pos{0};  //!< the next one
};

/// A field of a message: (field number, wire type, varint or fixed bits, bytes, length).
struct WireField
{
    uint32_t field{0};             //!< its number
    uint32_t type{0};              //!< its wire type
    uint64_t bits{0};              //!< a varint's or fixed value's bits
    const uint8_t* bytes{nullptr}; //!< a length-delimited value's first byte
    uint64_t length{0};            //!< its length
};

/**
 * \param data a message's bytes
 * \param size how many
 * \param visit called for each field; false stops the walk
 * \return false if the bytes are not protobuf's wire format or visit stopped
 */
template<typename F>
bool
ForEachField(const uint8_t* data, std::size_t size, F visit)
{
    Wire w(data, size);
    while (!w.AtEnd())
    {
        WireField f;
        if (!w.Field(f.field, f.type, f.bits, f.bytes, f.length) || !visit(f))
        {
            return false;
        }
    }
    return true;
}

/**
 * \param data an AttributeProto's bytes
 * \param size how many
 * \param name set to its name
 * \param value set to its value
 * \return false if it is malformed
 */
bool
ParseAttribute(const uint8_t* data, std::size_t size, std::string& name, ChakraTrace::Value& value)
{
    return ForEachField(
        data,
        size,
        [&name, &value](const WireField& f)
        {
            const auto text
                = [&f]() { return std::string(reinterpret_cast<const char*>(f.bytes), f.length); };
            if (f.field == 1 && f.type == LENGTH)
            {
                name = text();
            }
            else if ((f.field == 29 || f.field == 31) && f.type == LENGTH) // string_val, bytes_val
            {
                value.isString = true;
                value.text = text();
            }
            else if (f.field == 3 && f.type == FIXED64) // double_val
            {
                std::memcpy(&value.number, &f.bits, 8);
                value.bits = static_cast<uint64_t>(value.number);
            }
            else if (f.field == 5 && f.type == FIXED32) // float_val
            {
                float v = 0;
                const auto b32 = static_cast<uint32_t>(f.bits);
                std::memcpy(&v, &b32, 4);
                value.number = v;
                value.bits = static_cast<uint64_t>(v);
            }
            else if ((f.field == 15 || f.field == 17) && f.type == VARINT) // sint32, sint64: zigzag
            {
                const auto v = static_cast<int64_t>((f.bits >> 1) ^ (~(f.bits & 1) + 1));
                value.bits = static_cast<uint64_t>(v);
                value.number = static_cast<double>(v);
            }
            else if ((f.field == 7 || f.field == 9) && f.type == VARINT) // int32, int64
            {
                value.bits = f.bits;
                value.number = static_cast<double>(static_cast<int64_t>(f.bits));
            }
            else if ((f.field == 11 || f.field == 13 || f.field == 27)
                     && f.type == VARINT) // uint, bool
            {
                value.bits = f.bits;
                value.number = static_cast<double>(f.bits);
            }
            // Lists and fixed integers are not used by the reader.
            return true;
        });
}

/**
 * \param data a Node's bytes
 * \param size how many
 * \param node set to the node
 * \return false if it is malformed
 */
bool
ParseNode(const uint8_t* data, std::size_t size, ChakraTrace::Node& node)
{
    return ForEachField(data,
                        size,
                        [&node](const WireField& f)
                        {
                            if (f.field == 1 && f.type == VARINT)
                            {
                                node.id = f.bits;
                            }
                            else if (f.field == 2 && f.type == LENGTH)
                            {
                                node.name.assign(reinterpret_cast<const char*>(f.bytes), f.length);
                            }
                            else if (f.field == 3 && f.type == VARINT)
                            {
                                node.type = static_cast<uint32_t>(f.bits);
                            }
                            else if ((f.field == 4 || f.field == 5) && f.type == VARINT)
                            {
                                node.deps.push_back(f.bits);
                            }
                            else if ((f.field == 4 || f.field == 5) && f.type == LENGTH) // packed
                            {
                                Wire packed(f.bytes, f.length);
                                while (!packed.AtEnd())
                                {
                                    uint64_t dep = 0;
                                    if (!packed.Varint(dep))
                                    {
                                        return false;
                                    }
                                    node.deps.push_back(dep);
                                }
                            }
                            else if (f.field == 7 && f.type == VARINT)
                            {
                                node.durationMicros = f.bits;
                            }
                            else if (f.field == 10 && f.type == LENGTH)
                            {
                                std::string name;
                                ChakraTrace::Value value;
                                if (!ParseAttribute(f.bytes, f.length, name, value))
                                {
                                    return false;
                                }
                                node.attrs[name] = value;
                            }
                            return true;
                        });
}

/**
 * \param node a node
 * \param name an attribute
 * \param value set to its value
 * \return false if the node has no such numeric attribute
 */
bool
Number(const ChakraTrace::Node& node, const std::string& name, uint64_t& value)
{
    const auto it = node.attrs.find(name);
    if (it == node.attrs.end() || it->second.isString)
    {
        return false;
    }
    value = it->second.bits;
    return true;
}

} // namespace

bool
ChakraTrace::ReadFile(const std::string& path,
                      std::map<std::string, Value>& metadata,
                      std::vector<Node>& nodes,
                      std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        error = "cannot read " + path;
        return false;
    }
    const std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    Wire w(data.data(), data.size());
    metadata.clear();
    nodes.clear();
    bool first = true;
    while (!w.AtEnd())
    {
        uint64_t length = 0;
        const uint8_t* bytes = nullptr;
        if (!w.Varint(length) || !w.Bytes(length, bytes))
        {
            error = path + " is not a Chakra trace: a message runs past the end of the file";
            return false;
        }
        if (first)
        {
            // GlobalMetadata: version = 1, attr = 2.
            const bool ok = ForEachField(bytes,
                                         length,
                                         [&metadata](const WireField& f)
                                         {
                                             if (f.field != 2 || f.type != LENGTH)
                                             {
                                                 return true;
                                             }
                                             std::string name;
                                             Value value;
                                             if (!ParseAttribute(f.bytes, f.length, name, value))
                                             {
                                                 return false;
                                             }
                                             metadata[name] = value;
                                             return true;
                                         });
            if (!ok)
            {
                error = path + " is not a Chakra trace: its metadata is malformed";
                return false;
            }
            first = false;
            continue;
        }
        Node node;
        if (!ParseNode(bytes, length, node))
        {
            error = path + " is not a Chakra trace: node " + std::to_string(nodes.size())
                    + " is malformed";
            return false;
        }
        nodes.push_back(std::move(node));
    }
    if (first)
    {
        error = path + " is not a Chakra trace: it is empty";
        return false;
    }
    return true;
}

bool
ChakraTrace::ToOps(const std::vector<Node>& nodes,
                   uint32_t rank,
                   uint32_t nRanks,
                   const GpuComputeModel& gpu,
                   std::vector<WorkloadOp>& ops,
                   std::string& error,
                   uint64_t& dropped)
{
    return ToOps(nodes, rank, nRanks, gpu, Groups(), ops, error, dropped);
}

bool
ChakraTrace::ToOps(const std::vector<Node>& nodes,
                   uint32_t rank,
                   uint32_t nRanks,
                   const GpuComputeModel& gpu,
                   const Groups& groups,
                   std::vector<WorkloadOp>& ops,
                   std::string& error,
                   uint64_t& dropped)
{
    dropped = 0;
    const std::string where = "rank " + std::to_string(rank) + " node ";
    std::unordered_map<uint64_t, uint32_t> index; // id -> position in nodes
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (!index.emplace(nodes[i].id, i).second)
        {
            error = where + std::to_string(nodes[i].id) + " appears twice";
            return false;
        }
    }
    // Dependency order, by id where free (Kahn's algorithm on a min-heap of ids).
    std::vector<uint32_t> waiting(nodes.size(), 0);
    std::vector<std::vector<uint32_t>> dependents(nodes.size());
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        for (uint64_t d : nodes[i].deps)
        {
            const auto it = index.find(d);
            if (it == index.end() || d >= nodes[i].id)
            {
                // A node the trace does not hold (a profiler's root), the node itself, or one
                // recorded after it: real traces have all three; none orders anything.
                ++dropped;
                continue;
            }
            ++waiting[i];
            dependents[it->second].push_back(i);
        }
    }
    std::priority_queue<std::pair<uint64_t, uint32_t>,
                        std::vector<std::pair<uint64_t, uint32_t>>,
                        std::greater<>>
        ready;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (waiting[i] == 0)
        {
            ready.emplace(nodes[i].id, i);
        }
    }
    std::vector<uint32_t> position(nodes.size(), 0);
    ops.clear();
    while (!ready.empty())
    {
        const uint32_t i = ready.top().second;
        ready.pop();
        const Node& n = nodes[i];
        WorkloadOp op;
        op.name = n.name.empty() ? "node" + std::to_string(n.id) : n.name;
        for (uint64_t d : n.deps)
        {
            const auto it = index.find(d);
            if (it != index.end() && d < n.id)
            {
                op.deps.push_back(position[it->second]);
            }
        }
        const std::string at = where + std::to_string(n.id);
        uint64_t value = 0;
        const bool cpu = Number(n, "is_cpu_op", value) && value != 0;
        op.kind = WorkloadOpKind::COMPUTE;
        switch (n.type)
        {
        case COMP_NODE:
            if (cpu)
            {
                break; // the host's: ordering only
            }
            if (Number(n, "num_ops", value) && value > 0)
            {
                uint64_t bytes = 0;
                Number(n, "tensor_size", bytes);
                op.flops = static_cast<double>(value);
                op.duration
                    = gpu.KernelTime(op.flops, static_cast<double>(bytes), ComputeDataType::BF16);
            }
            else
            {
                op.duration = MicroSeconds(static_cast<int64_t>(n.durationMicros));
            }
            break;
        case MEM_LOAD_NODE:
        case MEM_STORE_NODE:
            if (Number(n, "tensor_size", value))
            {
                op.duration = gpu.KernelTime(0, static_cast<double>(value), ComputeDataType::BF16);
            }
            break;
        case COMM_COLL_NODE:
        {
            uint64_t size = 0;
            uint64_t kind = 0;
            if (cpu || !Number(n, "comm_size", size) || !Number(n, "comm_type", kind))
            {
                break; // the host's side of the call
            }
            static const std::map<uint64_t, CollectiveType> types{
                {0, CollectiveType::ALL_REDUCE},
                {2, CollectiveType::ALL_GATHER},
                {5, CollectiveType::BROADCAST},
                {6, CollectiveType::ALL_TO_ALL},
                {7, CollectiveType::REDUCE_SCATTER},
                {8, CollectiveType::REDUCE_SCATTER},
                {9, CollectiveType::ALL_REDUCE}};
            const auto t = types.find(kind);
            if (t == types.end())
            {
                error = at + ": collective type " + std::to_string(kind)
                        + " (reduce, gather or scatter) is not modelled";
                return false;
            }
            op.kind = WorkloadOpKind::COLLECTIVE;
            op.collective = t->second;
            op.bytes = kind == 9 ? 0 : size; // a barrier moves nothing
            const auto pg = n.attrs.find("pg_name");
            if (pg != n.attrs.end())
            {
                const std::string name
                    = pg->second.isString ? pg->second.text
                                          : std::to_string(static_cast<int64_t>(pg->second.bits));
                if (!name.empty() && name != "0") // "" and "0": every rank
                {
                    const auto g = groups.find(name);
                    if (g == groups.end())
                    {
                        error = at + ": process group \"" + Printable(name)
                                + "\" (pg_name) is not one of "
                                + (groups.empty()
                                       ? std::string("the communicator groups: give "
                                                     "--commGroups=FILE")
                                       : std::to_string(groups.size()) + " communicator groups");
                        return false;
                    }
                    const std::vector<uint32_t>& members = g->second.second;
                    if (std::find(members.begin(), members.end(), rank) == members.end())
                    {
                        error = at + ": rank " + std::to_string(rank)
                                + " is not in its process group \"" + Printable(name) + "\"";
                        return false;
                    }
                    op.group = g->second.first;
                }
            }
            break;
        }
        case COMM_SEND_NODE:
        case COMM_RECV_NODE:
        {
            const bool send = n.type == COMM_SEND_NODE;
            uint64_t peer = 0;
            uint64_t size = 0;
            if (!Number(n, send ? "comm_dst" : "comm_src", peer) || !Number(n, "comm_size", size))
            {
                error = at + ": a " + (send ? "send" : "receive") + " needs "
                        + (send ? "comm_dst" : "comm_src") + " and comm_size";
                return false;
            }
            if (peer >= nRanks)
            {
                error = at + ": peer " + std::to_string(peer) + " is not a rank of the "
                        + std::to_string(nRanks);
                return false;
            }
            op.kind = send ? WorkloadOpKind::SEND : WorkloadOpKind::RECV;
            op.peer = static_cast<uint32_t>(peer);
            op.bytes = size;
            break;
        }
        default:
            break; // metadata and others: ordering only
        }
        position[i] = static_cast<uint32_t>(ops.size());
        ops.push_back(std::move(op));
        for (uint32_t j : dependents[i])
        {
            if (--waiting[j] == 0)
            {
                ready.emplace(nodes[j].id, j);
            }
        }
    }
    if (ops.size() != nodes.size())
    {
        error = "rank " + std::to_string(rank) + "'s trace has a cycle of dependencies";
        return false;
    }
    return true;
}

bool
ChakraTrace::Read(const std::string& prefix,
                  uint32_t nRanks,
                  const GpuComputeModel& gpu,
                  Workload& workload,
                  std::string& error)
{
    return Read(prefix, nRanks, gpu, Groups(), workload, error);
}

bool
ChakraTrace::ReadCommGroups(const std::string& path,
                            uint32_t nRanks,
                            Groups& groups,
                            std::string& error)
{
    std::ifstream in(path);
    if (!in)
    {
        error = "cannot read it";
        return false;
    }
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.empty())
    {
        error = "expected a JSON object of group names to ranks, e.g. {\"1\": [0, 1]}";
        return false;
    }
    Groups read;
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& name = it.key();
        const std::string where = "group \"" + Printable(name) + "\"";
        if (name.empty() || name == "0")
        {
            error = where + " is every rank (PyTorch's default group); name the others";
            return false;
        }
        if (!it.value().is_array() || it.value().empty())
        {
            error = where + ": expected a list of ranks";
            return false;
        }
        std::vector<uint32_t> ranks;
        for (const nlohmann::json& r : it.value())
        {
            if (!r.is_number_unsigned() || r.get<uint64_t>() >= nRanks)
            {
                error = where + ": " + r.dump() + " is not a rank of the " + std::to_string(nRanks);
                return false;
            }
            const auto rank = r.get<uint32_t>();
            if (std::find(ranks.begin(), ranks.end(), rank) != ranks.end())
            {
                error = where + " names rank " + std::to_string(rank) + " twice";
                return false;
            }
            ranks.push_back(rank);
        }
        read[name] = {0, ranks};
    }
    uint32_t index = 1;
    for (auto& [name, group] : read)
    {
        group.first = index++;
    }
    groups = std::move(read);
    return true;
}

bool
ChakraTrace::Read(const std::string& prefix,
                  uint32_t nRanks,
                  const GpuComputeModel& gpu,
                  const Groups& groups,
                  Workload& workload,
                  std::string& error)
{
    Workload w;
    w.nRanks = nRanks;
    w.ops.assign(nRanks, {});
    for (const auto& [name, group] : groups)
    {
        NS_ABORT_MSG_IF(group.first != w.groups.size(), "ChakraTrace: groups out of order");
        w.groupNames.push_back("pg " + name);
        w.groups.push_back(group.second);
    }
    uint64_t dropped = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::map<std::string, Value> metadata;
        std::vector<Node> nodes;
        if (!ReadFile(prefix + "." + std::to_string(r) + ".et", metadata, nodes, error)
            || !ToOps(nodes, r, nRanks, gpu, groups, w.ops[r], error, dropped))
        {
            return false;
        }
    }
    if (!w.Check(error))
    {
        return false;
    }
    workload = std::move(w);
    return true;
}

} // namespace ns3
