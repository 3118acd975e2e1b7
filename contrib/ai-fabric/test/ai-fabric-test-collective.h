/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef AI_FABRIC_TEST_COLLECTIVE_H
#define AI_FABRIC_TEST_COLLECTIVE_H

#include "ns3/collective-helper.h"
#include "ns3/simulator.h"

namespace ns3
{

/**
 * \brief Run one collective on every rank of a helper's GPUs now, to the end of the
 *        simulation.
 * \param collectives the installed helper (the schedule's connections made)
 * \param schedule the collective
 * \return its time: from the first rank's start to the last rank's end
 */
inline Time
RunCollectiveNow(CollectiveHelper& collectives, Ptr<const CollectiveSchedule> schedule)
{
    Time start;
    Time end;
    collectives.Run(schedule,
                    MakeCallback(+[](Time* s, Time* e, Time a, Time b)
                                 {
                                     *s = a;
                                     *e = b;
                                 })
                        .Bind(&start, &end));
    Simulator::Run();
    return end - start;
}

} // namespace ns3

#endif /* AI_FABRIC_TEST_COLLECTIVE_H */
