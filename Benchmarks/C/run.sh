#!/usr/bin/env bash
##===----------------------------------------------------------------------===##
#
# This source file is part of the Conveyor open source project
#
# Copyright (c) 2026 the Conveyor project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0
#
##===----------------------------------------------------------------------===##

# The C API side by side: Benchmarks/C/capi-bench.c built against libdispatch (the
# toolchain's headers and libdispatch.so) and against Conveyor (Sources/CConveyorDispatch
# and libConveyorDispatch, release), each run in its own process, the two taking turns
# for three rounds; prints the medians and the ratio libdispatch / Conveyor (> 1:
# Conveyor faster). `--quick` for a smoke run (one round, a tenth of the sizes).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product ConveyorDispatch >&2
lib="$(swift build -c release --show-bin-path)"
runtime=/opt/swift/usr/lib/swift/linux
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
clang -fblocks -O2 Benchmarks/C/capi-bench.c -o "$out/bench-libdispatch" \
    -I /opt/swift/usr/lib/swift -L "$runtime" -ldispatch -lBlocksRuntime -Wl,-rpath,"$runtime"
clang -fblocks -O2 Benchmarks/C/capi-bench.c -o "$out/bench-conveyor" \
    -I Sources/CConveyorDispatch/include -L "$lib" -lConveyorDispatch -Wl,-rpath,"$lib" \
    -L "$runtime" -lBlocksRuntime -Wl,-rpath,"$runtime"
# The two processes take turns, `rounds` times each (a shared machine's slow spell then
# falls on both sides, not on one); each prints its median of five runs per workload, and
# the table shows the median over the rounds, the ratio of those medians, and the range
# of the per-round ratios.
rounds=3
[ "${1:-}" = "--quick" ] && rounds=1
for round in $(seq "$rounds"); do
    "$out/bench-libdispatch" "$@" > "$out/libdispatch.$round"
    "$out/bench-conveyor" "$@" > "$out/conveyor.$round"
done
printf '%-22s %10s %14s %14s %8s  %s\n' workload ops "libdispatch" "Conveyor" ratio "(per round)"
python3 - "$out" "$rounds" <<'PY'
import statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(side):
    table = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{side}.{r}"):
            name, n, ns, ok = line.split()
            table.setdefault(name, []).append((int(n), float(ns), ok))
    return table
lib, cnv = load("libdispatch"), load("conveyor")
failed = False
for name in lib:
    d, c = [s[1] for s in lib[name]], [s[1] for s in cnv[name]]
    per_round = [x / y for x, y in zip(d, c)]
    dm, cm = statistics.median(d), statistics.median(c)
    checks = {s[2] for s in lib[name]} | {s[2] for s in cnv[name]}
    note = "" if checks == {"ok"} else "  check failed"
    failed |= bool(note)
    print(f"{name:<22} {lib[name][0][0]:>10} {dm:>11.1f} ns {cm:>11.1f} ns {dm / cm:>7.2f}x  "
          f"({min(per_round):.2f}-{max(per_round):.2f}x){note}")
sys.exit(1 if failed else 0)
PY
