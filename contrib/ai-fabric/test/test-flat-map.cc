/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// FabricFlatMap holds what std::unordered_map holds through any mix of insertions, lookups
// and erasures, including keys that collide and runs that wrap around the end of its array.

#include "ns3/fabric-flat-map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

/// A value with more than one field, as the flow level's NVLS reductions.
struct Value
{
    uint32_t a{0}; //!< a field
    uint32_t b{0}; //!< another
};

// 200,000 random operations on keys from a small range (many collisions, erasures in the
// middle of runs) and from the whole 64-bit range, checked against std::unordered_map after
// each; the table grows from empty and its size follows.
TEST(FabricFlatMapTest, FollowsUnorderedMap)
{
    for (const uint64_t range : {uint64_t{300}, UINT64_MAX - 1})
    {
        std::mt19937_64 rng(11);
        std::uniform_int_distribution<uint64_t> keys(0, range - 1);
        FabricFlatMap<Value> flat;
        std::unordered_map<uint64_t, Value> ref;
        std::vector<uint64_t> held;
        for (uint32_t op = 0; op < 200000; ++op)
        {
            const uint32_t kind = static_cast<uint32_t>(rng() % 3);
            const uint64_t key = kind == 2 && !held.empty() ? held[rng() % held.size()] : keys(rng);
            if (kind == 0)
            {
                Value& v = flat[key];
                Value& r = ref[key];
                ASSERT_EQ(v.a, r.a) << key;
                v.a = r.a = op;
                v.b = r.b = op ^ 0x5a5a;
                held.push_back(key);
            }
            else if (kind == 1)
            {
                const Value* v = flat.Find(key);
                const auto it = ref.find(key);
                ASSERT_EQ(v != nullptr, it != ref.end()) << key;
                if (v)
                {
                    ASSERT_EQ(v->a, it->second.a);
                    ASSERT_EQ(v->b, it->second.b);
                }
            }
            else
            {
                ASSERT_EQ(flat.Erase(key), ref.erase(key) == 1) << key;
            }
            ASSERT_EQ(flat.Size(), ref.size());
        }
        // Everything it still holds can be found, with its value.
        for (const auto& [key, value] : ref)
        {
            const Value* v = flat.Find(key);
            ASSERT_NE(v, nullptr) << key;
            EXPECT_EQ(v->a, value.a);
            EXPECT_EQ(v->b, value.b);
        }
        EXPECT_EQ(flat.Find(range == 300 ? 301 : 0), nullptr);
    }
}

// Erasing every key leaves an empty table whose slots are all free again: the same keys go
// back in and are found (no tombstone is left to lengthen a probe).
TEST(FabricFlatMapTest, EraseLeavesNoTrace)
{
    FabricFlatMap<Value> flat;
    for (uint64_t round = 0; round < 3; ++round)
    {
        for (uint64_t k = 0; k < 1000; ++k)
        {
            flat[k * 64].a = static_cast<uint32_t>(k + round);
        }
        EXPECT_EQ(flat.Size(), 1000u);
        for (uint64_t k = 0; k < 1000; ++k)
        {
            ASSERT_NE(flat.Find(k * 64), nullptr);
            EXPECT_EQ(flat.Find(k * 64)->a, k + round);
            EXPECT_TRUE(flat.Erase(k * 64));
            EXPECT_FALSE(flat.Erase(k * 64));
        }
        EXPECT_EQ(flat.Size(), 0u);
    }
}

} // namespace
