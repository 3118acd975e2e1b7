/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_TX_TIME_H
#define FABRIC_TX_TIME_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The time \p bytes take at \p rate, in whole time steps: the value
 * DataRate::CalculateBytesTxTime() gives, computed in integers.
 *
 * ns-3 divides in 128-bit fixed point (int64x64_t), some 550 instructions a call; the fabric
 * asks for a serialization or buffer-drain time on nearly every packet (a switch's cut-through
 * delay, a credit flush, a GPU's reduction time), which made the division 5 % of a 256-GPU
 * ring's instructions. Here the time is bytes x 8 x 10^12 / rate picoseconds rounded to the
 * nearest, in 64-bit integers up to 2 MiB and 128-bit beyond. For the picosecond resolution
 * that ai-fabric's programs use, every value is ns-3's: the one case the two could round
 * apart, a time exactly half-way between two picoseconds, is handed to ns-3 (its fixed point
 * decides which way), as is any other resolution. Beyond 512 MiB ns-3's 32-bit bit count
 * overflows; this function does not.
 *
 * \param rate the rate (not zero)
 * \param bytes the bytes
 * \return the time, rounded to the nearest picosecond
 */
inline Time
FabricBytesTxTime(const DataRate& rate, uint64_t bytes)
{
    constexpr uint64_t BIT_PS_PER_BYTE = 8000000000000ULL; // 8 bits x 10^12 ps per second
    const uint64_t bps = rate.GetBitRate();
    if (Time::GetResolution() != Time::PS || bps == 0)
    {
        return rate.CalculateBytesTxTime(static_cast<uint32_t>(bytes));
    }
    uint64_t quotient;
    uint64_t remainder;
    if (bytes < (1ULL << 21)) // bytes x 8e12 < 2^64
    {
        const uint64_t numerator = bytes * BIT_PS_PER_BYTE;
        quotient = numerator / bps;
        remainder = numerator % bps;
    }
    else
    {
        const unsigned __int128 numerator = static_cast<unsigned __int128>(bytes) * BIT_PS_PER_BYTE;
        quotient = static_cast<uint64_t>(numerator / bps);
        remainder = static_cast<uint64_t>(numerator % bps);
    }
    if (2 * static_cast<unsigned __int128>(remainder) == bps && bytes <= UINT32_MAX / 8)
    {
        return rate.CalculateBytesTxTime(static_cast<uint32_t>(bytes)); // a tie: as ns-3 rounds
    }
    return TimeStep(static_cast<int64_t>(
        quotient + (2 * static_cast<unsigned __int128>(remainder) > bps ? 1 : 0)));
}

} // namespace ns3

#endif // FABRIC_TX_TIME_H
