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

# The composition tester side by side: the same generated programs (same seeds) on
# Conveyor and on the toolchain's Dispatch, release builds, one library after the other.
#
#   Scripts/compose.sh [--seconds N | --minutes N] [--first-seed S]
#
# Then Conveyor again for a third of the budget at low thread caps: half of it at a cap of
# 8 (`--thread-cap`), half at a cap of 4 with two reserve threads (`--reserve-limit`).
#
# Fails when Conveyor fails. Dispatch's failures are printed and counted, not fatal: they
# are libdispatch's own faults (README, "What is different from libdispatch on Linux"),
# and the point of running Dispatch is to know that the checker judges GCD, not Conveyor.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

budget=(--seconds 30)
seed=$(( $(date +%s) % 1000000000 ))
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds|--minutes) budget=("$1" "$2"); shift 2 ;;
        --first-seed) seed="$2"; shift 2 ;;
        *) echo "usage: Scripts/compose.sh [--seconds N | --minutes N] [--first-seed S]"; exit 2 ;;
    esac
done

swift build -c release --product conveyor-compose-dispatch >/dev/null || exit 1
swift build -c release --product conveyor-compose >/dev/null || exit 1
bin=$(swift build -c release --show-bin-path)

# libdispatch crashes in its event loop now and then (the pipes and channels): it runs in
# slices of at most 10 s, and a slice that crashes is followed by the next one, seeds
# 1,000,000 further on, until the budget is spent.
case "${budget[0]}" in --minutes) total=$(( ${budget[1]} * 60 )) ;; *) total=${budget[1]} ;; esac
echo "== Dispatch (the toolchain's libdispatch)"
dispatch_status=0
crashes=0
slice_seed=$seed
end=$(( $(date +%s) + total ))
while [ "$(date +%s)" -lt "$end" ]; do
    left=$(( end - $(date +%s) ))
    log=$(mktemp)
    "$bin/conveyor-compose-dispatch" --seconds $(( left < 10 ? left : 10 )) --first-seed "$slice_seed" >"$log" 2>&1
    status=$?
    if [ "$status" -ge 128 ]; then
        crashes=$((crashes + 1))
        echo "libdispatch crashed (status $status) in a slice from seed $slice_seed:"
        # The tester's crash note names the program it hit (Tester/CCompose/crash_note.c).
        grep "^conveyor-compose: crashed" "$log" | head -1
        grep -A4 "^Thread .* crashed:" "$log" | head -5
    else
        grep -v "^composition tester on" "$log"
        [ "$status" -ne 0 ] && dispatch_status=$status
    fi
    rm -f "$log"
    slice_seed=$((slice_seed + 1000000))
done
[ "$crashes" -gt 0 ] && dispatch_status=$((dispatch_status == 0 ? 139 : dispatch_status))
echo "libdispatch: $crashes slices crashed"
echo "== Conveyor"
"$bin/conveyor-compose" "${budget[@]}" --first-seed "$seed"
conveyor_status=$?
# Conveyor only (libdispatch's cap is fixed): the same programs with a pool of at most 8
# threads, so that ordinary programs reach the cap, its hand-offs and reserve threads, as
# only crowds of hundreds do at the full cap; then at 4 threads with two reserve threads
# running at once, where they all wait now and then. A third of the budget.
low_cap_seconds=$(( total / 6 > 5 ? total / 6 : 5 ))
echo "== Conveyor at a thread cap of 8, $low_cap_seconds s"
"$bin/conveyor-compose" --seconds "$low_cap_seconds" --first-seed "$seed" --thread-cap 8
low_cap_status=$?
[ "$conveyor_status" -eq 0 ] && conveyor_status=$low_cap_status
echo "== Conveyor at a thread cap of 4 and 2 reserve threads, $low_cap_seconds s"
"$bin/conveyor-compose" --seconds "$low_cap_seconds" --first-seed "$seed" --thread-cap 4 --reserve-limit 2
low_cap_status=$?
[ "$conveyor_status" -eq 0 ] && conveyor_status=$low_cap_status
# A busy poster that held its thread until its crowd was done, beside three blocks in
# `sync` on a serial queue whose drain was queued, used up a cap of 4 as it would any
# pool's (program 924335014 hung almost every time; at 5 it passes): at a lowered cap it
# computes only until its opener ran, which is what the op checks.
echo "== Conveyor at a thread cap of 4: program 924335014"
"$bin/conveyor-compose" --seed 924335014 --repeat 10 --thread-cap 4 --reserve-limit 2
low_cap_status=$?
[ "$conveyor_status" -eq 0 ] && conveyor_status=$low_cap_status

# As an unprivileged user (run as root: the same programs as nobody, as `setpriv` makes
# them). Without the privilege to lower nice again, a worker that ran background or
# utility work cannot take more important work and leaves the pool (`exitPolite`), a
# path root never takes; program 829656320 hung every time there until the job such a
# worker gives back went to the hand-off queue. That program first, then new ones.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    echo "== Conveyor as nobody: program 829656320, then $low_cap_seconds s"
    "${as_nobody[@]}" "$bin/conveyor-compose" --seed 829656320
    unprivileged_status=$?
    [ "$conveyor_status" -eq 0 ] && conveyor_status=$unprivileged_status
    # Under `nice -n 10` every thread starts at 10 and none may go back to 0: a busy job's
    # post at the cap went to a shared queue behind a more important crowd that waited
    # for it, and hung (program 226507000, C API, cap 4, every time, until such workers
    # kept their posts).
    echo "== Conveyor as nobody under nice -n 10: program 226507000 at a cap of 4"
    nice -n 10 "${as_nobody[@]}" "$bin/conveyor-compose" --seed 226507000 --thread-cap 4 --reserve-limit 2
    unprivileged_status=$?
    [ "$conveyor_status" -eq 0 ] && conveyor_status=$unprivileged_status
    # Four default blocks in `sync` on a background serial queue whose drain waited on the
    # background band held every thread at a cap of 4 (program 182325181, C API, about
    # half of the replays) until a more important `sync` caller raised the drain to its
    # band (Queues/SyncOverride.swift).
    echo "== Conveyor as nobody: program 182325181 at a cap of 4, C API"
    "${as_nobody[@]}" "$bin/conveyor-compose" --api c --seed 182325181 --repeat 10 --thread-cap 4 --reserve-limit 2
    unprivileged_status=$?
    [ "$conveyor_status" -eq 0 ] && conveyor_status=$unprivileged_status
    "${as_nobody[@]}" "$bin/conveyor-compose" --seconds "$low_cap_seconds" --first-seed "$seed"
    unprivileged_status=$?
    [ "$conveyor_status" -eq 0 ] && conveyor_status=$unprivileged_status
else
    echo "== Conveyor as nobody: skipped (not root, or no setpriv); the runs above were unprivileged"
fi

if [ "$dispatch_status" -ne 0 ]; then
    echo "note: libdispatch failed some programs or crashed (status $dispatch_status); see above"
fi
exit "$conveyor_status"
