#! /usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The module's examples that ns-3's test.py runs inside an ns-3 source tree (configured with
# --enable-examples --enable-tests), each a small run of a few seconds at most. Each tuple is
# (example and its arguments, run it (a Python condition), run it under valgrind).

cpp_examples = [
    ("ai-fabric-perftest --iters=200", "True", "False"),
    ("ai-fabric-perftest --test=write_lat --iters=100", "True", "False"),
    ("ai-fabric-fattree --servers=2 --maxBytes=4M --quiet", "True", "False"),
    ("ai-fabric-fattree --server=none --servers=8 --radix=4 --maxBytes=4M --quiet", "True", "False"),
    ("ai-fabric-fattree --fabric=ib --server=none --servers=8 --radix=4 --maxBytes=4M --quiet",
     "True", "False"),
    ("ai-fabric-torus --dims=4x4 --maxBytes=4M --quiet", "True", "False"),
    ("ai-fabric-sweep --topology=torus --dims=2x2x2 --maxBytes=2M --quiet", "True", "False"),
    ("ai-fabric-incast --senders=4 --bytes=1M", "True", "False"),
    ("ai-fabric-dcqcn --duration=4ms --stagger=1ms --printEvery=1ms", "True", "False"),
    ("ai-fabric-pfc-hol --duration=2ms", "True", "False"),
    ("ai-fabric-pfc-pause", "True", "False"),
    ("ai-fabric-ib-credits --messages=200", "True", "False"),
    ("ai-fabric-hop-benchmark --megabytes=4", "True", "False"),
]

python_examples = []
