/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "chakra-trace.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <queue>
#include <unordered_map>

namespace ns3
{

namespace
{

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
    Wire w(data, size);
    while (!w.AtEnd())
    {
        uint32_t field = 0;
        uint32_t type = 0;
        uint64_t bits = 0;
        const uint8_t* bytes = nullptr;
        uint64_t length = 0;
        if (!w.Field(field, type, bits, bytes, length))
        {
            return false;
        }
        if (field == 1 && type == LENGTH)
        {
            name.assign(reinterpret_cast<const char*>(bytes), length);
        }
        else if ((field == 29 || field == 31) && type == LENGTH) // string_val, bytes_val
        {
            value.isString = true;
            value.text.assign(reinterpret_cast<const char*>(bytes), length);
        }
        else if (field == 3 && type == FIXED64) // double_val
        {
            std::memcpy(&value.number, &bits, 8);
            value.bits = static_cast<uint64_t>(value.number);
        }
        else if (field == 5 && type == FIXED32) // float_val
        {
            float f = 0;
            const auto b32 = static_cast<uint32_t>(bits);
            std::memcpy(&f, &b32, 4);
            value.number = f;
            value.bits = static_cast<uint64_t>(f);
        }
        else if ((field == 15 || field == 17) && type == VARINT) // sint32, sint64: zigzag
        {
            const auto v = static_cast<int64_t>((bits >> 1) ^ (~(bits & 1) + 1));
            value.bits = static_cast<uint64_t>(v);
            value.number = static_cast<double>(v);
        }
        else if ((field == 7 || field == 9) && type == VARINT) // int32, int64
        {
            value.bits = bits;
            value.number = static_cast<double>(static_cast<int64_t>(bits));
        }
        else if ((field == 11 || field == 13 || field == 27) && type == VARINT) // uint, bool
        {
            value.bits = bits;
            value.number = static_cast<double>(bits);
        }
        // Lists and fixed integers are not used by the reader.
    }
    return true;
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
    Wire w(data, size);
    while (!w.AtEnd())
    {
        uint32_t field = 0;
        uint32_t type = 0;
        uint64_t bits = 0;
        const uint8_t* bytes = nullptr;
        uint64_t length = 0;
        if (!w.Field(field, type, bits, bytes, length))
        {
            return false;
        }
        if (field == 1 && type == VARINT)
        {
            node.id = bits;
        }
        else if (field == 2 && type == LENGTH)
        {
            node.name.assign(reinterpret_cast<const char*>(bytes), length);
        }
        else if (field == 3 && type == VARINT)
        {
            node.type = static_cast<uint32_t>(bits);
        }
        else if ((field == 4 || field == 5) && type == VARINT)
        {
            node.deps.push_back(bits);
        }
        else if ((field == 4 || field == 5) && type == LENGTH) // packed
        {
            Wire packed(bytes, length);
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
        else if (field == 7 && type == VARINT)
        {
            node.durationMicros = bits;
        }
        else if (field == 10 && type == LENGTH)
        {
            std::string name;
            ChakraTrace::Value value;
            if (!ParseAttribute(bytes, length, name, value))
            {
                return false;
            }
            node.attrs[name] = value;
        }
    }
    return true;
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
            Wire m(bytes, length);
            while (!m.AtEnd())
            {
                uint32_t field = 0;
                uint32_t type = 0;
                uint64_t bits = 0;
                const uint8_t* b = nullptr;
                uint64_t l = 0;
                if (!m.Field(field, type, bits, b, l))
                {
                    error = path + " is not a Chakra trace: its metadata is malformed";
                    return false;
                }
                if (field == 2 && type == LENGTH)
                {
                    std::string name;
                    Value value;
                    if (!ParseAttribute(b, l, name, value))
                    {
                        error = path + " is not a Chakra trace: its metadata is malformed";
                        return false;
                    }
                    metadata[name] = value;
                }
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
    Workload w;
    w.nRanks = nRanks;
    w.ops.assign(nRanks, {});
    uint64_t dropped = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::map<std::string, Value> metadata;
        std::vector<Node> nodes;
        if (!ReadFile(prefix + "." + std::to_string(r) + ".et", metadata, nodes, error)
            || !ToOps(nodes, r, nRanks, gpu, w.ops[r], error, dropped))
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
