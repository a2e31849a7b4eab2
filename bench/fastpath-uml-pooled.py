#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# usage: bench/fastpath-uml-pooled.py RAW  (a raw.txt of bench/fastpath-uml.sh)
# readdir-cold pooled over all mounts of all boots: median with / without and a
# two-sided permutation test of the difference of medians (10000 shuffles)
import sys, random, statistics as st, collections as C
random.seed(1)
v = C.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith('RAW '): continue
    f = dict(kv.split('=', 1) for kv in line.split()[1:])
    if f['op'] in ('readdir-cold', 'mount'):
        v[(f['mount'], f['dir'], f['op'], f['kernel'])].append(float(f['ns']))
for m, d, op in sorted({k[:3] for k in v}):
    w, o = v[(m, d, op, 'with')], v[(m, d, op, 'without')]
    obs = st.median(w) - st.median(o); pool = w + o; n = len(w); hits = 0
    for _ in range(10000):
        random.shuffle(pool)
        if abs(st.median(pool[:n]) - st.median(pool[n:])) >= abs(obs): hits += 1
    print("%s %s %s: n=%d+%d median without %.0f with %.0f ratio %.2f p=%.3f" % (m, d, op, len(o), n, st.median(o), st.median(w), st.median(w) / st.median(o), hits / 10000))
