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

# Conveyor as the process's libdispatch (README, "Running any program on Conveyor"):
# programs built against the toolchain's own headers, libdispatch, Dispatch, Foundation
# and XCTest, unmodified, run on libdispatch and then under the drop-in library through
# `conveyor-run`. Under the drop-in every one must pass; libdispatch's results are shown
# beside them (its known Linux faults fail there).
#
# Usage: Scripts/drop-in.sh [--seconds N]   (N: the composition tester's budget per API, default 20)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
export SWIFT_BACKTRACE=enable=no

seconds=20
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        *) echo "usage: Scripts/drop-in.sh [--seconds N]"; exit 2 ;;
    esac
done

for product in ConveyorDispatch ConveyorDropIn conveyor-run conveyor-compose-dispatch conveyor-compose conveyor-adoption-probe conveyor-semantics-dispatch; do
    swift build -c release --product "$product" >/dev/null || { echo "building $product failed"; exit 1; }
done
bin=$(swift build -c release --show-bin-path)
python3 Scripts/drop-in-exports.py --check "$bin/libConveyorDispatch.so" || exit 1
run="$bin/conveyor-run"

out=$(mktemp -d)
server_pid=
trap 'rm -rf "$out"; [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null; true' EXIT
toolchain=/opt/swift/usr/lib/swift
runtime=$toolchain/linux
# Against the toolchain's headers and libdispatch, as any C program on this machine.
c_flags=(-fblocks -Wall -Werror -O1 -I "$toolchain" -L "$runtime" -ldispatch -lBlocksRuntime -ldl -Wl,-rpath,"$runtime")
clang "${c_flags[@]}" Tests/DropIn/abi-probe.c -o "$out/abi-probe"
# The same, position-dependent (as GCC builds executables by default on x86-64): the
# executable copies libdispatch's data objects into itself at load time.
clang "${c_flags[@]}" -fno-pic -no-pie Tests/DropIn/abi-probe.c -o "$out/abi-probe-no-pie"
# (Read whole first: under pipefail, `readelf | grep -q` fails when grep stops early and
# readelf is killed by SIGPIPE, which happened in CI.)
relocations=$(readelf -W -r "$out/abi-probe-no-pie")
grep -q "R_X86_64_COPY.*_dispatch_main_q" <<<"$relocations" || [ "$(uname -m)" != x86_64 ] \
    || { echo "abi-probe-no-pie has no copy relocation of _dispatch_main_q: it tests nothing"; exit 1; }
clang "${c_flags[@]}" Tests/DropIn/misuse-probe.c -o "$out/misuse-probe"
clang "${c_flags[@]}" -shared -fPIC Tests/DropIn/early-user.c -o "$out/libearly-user.so"
clang "${c_flags[@]}" Tests/DropIn/signal-probe.c -o "$out/signal-probe"
for test in capi-test data-io-test lifetime-test queue-edges-test no-blocks c-semantics; do clang "${c_flags[@]}" "Tests/CAPI/$test.c" -o "$out/$test"; done
clang "${c_flags[@]}" Examples/C/chapter.c -o "$out/chapter"
clang++ "${c_flags[@]}" Examples/CPlusPlus/chapter.cpp -o "$out/chapter-cpp"
# Swift programs built against the toolchain's Dispatch, Foundation and XCTest.
swiftc -O Tests/DropIn/swift-probe.swift -o "$out/swift-probe"
swiftc -O -parse-as-library Tests/DropIn/async-probe.swift -o "$out/async-probe"
swiftc -O Tests/DropIn/posting-tasks-probe.swift -o "$out/posting-tasks-probe"
swiftc -O Tests/DropIn/xctest-probe.swift -o "$out/xctest-probe" -lXCTest
swiftc -O Tests/DropIn/foundation-probe.swift -o "$out/foundation-probe"
# The foundation probe's URLSession talks to a local HTTP server serving Tests/DropIn; it
# binds a free port (0) and says which.
python3 -u -m http.server 0 --bind 127.0.0.1 --directory Tests/DropIn >"$out/server.log" 2>&1 &
server_pid=$!
port=
for _ in $(seq 100); do
    port=$(grep -oE "port [0-9]+" "$out/server.log" | head -1 | cut -d' ' -f2)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "the local HTTP server for the foundation probe did not start"; cat "$out/server.log"; exit 1; }

failed=0
# Runs a program on libdispatch, then under the drop-in library; the latter must pass.
compare() {
    local name="$1"; shift
    local on_dispatch on_conveyor
    timeout 300 "$@" >"$out/dispatch.log" 2>&1; on_dispatch=$?
    timeout 300 "$run" "$@" >"$out/conveyor.log" 2>&1; on_conveyor=$?
    printf '%-34s libdispatch: %-10s drop-in: %s\n' "$name" \
        "$([ $on_dispatch -eq 0 ] && echo pass || echo "status $on_dispatch")" \
        "$([ $on_conveyor -eq 0 ] && echo pass || echo "FAILED (status $on_conveyor)")"
    grep -E "^(FAIL|info)" "$out/dispatch.log" | sed 's/^/    libdispatch: /' | head -5
    grep -E "^(FAIL|info)" "$out/conveyor.log" | sed 's/^/    drop-in:     /' | head -5
    if [ $on_conveyor -ne 0 ]; then failed=1; tail -20 "$out/conveyor.log"; fi
}

echo "== programs built against the toolchain's libdispatch, Dispatch, Foundation and XCTest"
compare "Tests/DropIn/abi-probe.c" "$out/abi-probe"
compare "Tests/DropIn/abi-probe.c, -no-pie" "$out/abi-probe-no-pie"
compare "Tests/CAPI/capi-test.c" "$out/capi-test"
compare "Tests/CAPI/data-io-test.c" "$out/data-io-test"
compare "Tests/CAPI/queue-edges-test.c" "$out/queue-edges-test"
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=85 compare "Tests/CAPI/lifetime-test.c" "$out/lifetime-test"
compare "Tests/CAPI/no-blocks.c" "$out/no-blocks"
compare "Examples/C/chapter.c" "$out/chapter"
compare "Examples/CPlusPlus/chapter.cpp" "$out/chapter-cpp"
compare "Tests/DropIn/swift-probe.swift" "$out/swift-probe"
compare "Tests/DropIn/async-probe.swift" "$out/async-probe"
compare "Tests/DropIn/posting-tasks-probe.swift" "$out/posting-tasks-probe"
compare "Tests/DropIn/xctest-probe.swift" "$out/xctest-probe"
compare "Tests/DropIn/foundation-probe.swift" "$out/foundation-probe" "$port" Tests/DropIn/foundation-probe.swift

echo "== the semantics probe's libdispatch build, unchanged, under the drop-in library: libdispatch's answers"
# Every answer as on libdispatch, but those Tester/semantics.known records for
# the drop-in run (Conveyor's on purpose, through the C ABI too).
timeout 120 "$bin/conveyor-semantics-dispatch" >"$out/semantics-dispatch.txt" 2>&1
timeout 120 "$run" "$bin/conveyor-semantics-dispatch" >"$out/semantics-drop-in.txt" 2>&1
python3 Scripts/compare-answers.py drop-in Tester/semantics.known "$out/semantics-dispatch.txt" "$out/semantics-drop-in.txt" || failed=1

echo "== the C semantics probe, built against libdispatch, under the drop-in library: libdispatch's answers"
timeout 60 "$out/c-semantics" >"$out/c-semantics-dispatch.txt" 2>&1
timeout 60 "$run" "$out/c-semantics" >"$out/c-semantics-drop-in.txt" 2>&1
python3 Scripts/compare-answers.py drop-in Tests/CAPI/c-semantics.known "$out/c-semantics-dispatch.txt" "$out/c-semantics-drop-in.txt" || failed=1

echo "== the drop-in library refuses what it cannot do, with a message"
expect_refusal() {
    local name="$1" message="$2"; shift 2
    ( timeout 60 "$@" >"$out/refusal.log" 2>&1; exit $? ) 2>/dev/null && { echo "FAIL $name: the program went on"; failed=1; return; }
    if grep -q "$message" "$out/refusal.log"; then echo "ok   $name"; else echo "FAIL $name: no message"; cat "$out/refusal.log"; failed=1; fi
}
expect_refusal "an entry point Conveyor does not provide stops the program, naming it" \
    "dispatch_workloop_create is not provided by Conveyor's drop-in libdispatch" "$run" "$out/misuse-probe" unprovided
expect_refusal "misuse traps with its message in the optimized library (an unbalanced dispatch_group_leave)" \
    "unbalanced call to DispatchGroup.leave()" "$run" "$out/misuse-probe" leave
expect_refusal "loaded by dlopen after libdispatch started: refused" \
    "was loaded after libdispatch" env CONVEYOR_DROP_IN="$bin/libConveyorDropIn.so" "$out/misuse-probe" late

echo "== a program that is not a Swift program keeps its signals' default action (the runtime the library brings installs crash handlers)"
# SWIFT_BACKTRACE=enable=no, set above for the whole script, would hide the handlers.
for signal in SEGV BUS ILL ABRT FPE TRAP QUIT; do
    for mode in plain dispatch; do
        env -u SWIFT_BACKTRACE timeout 60 "$run" "$out/signal-probe" "$signal" "$mode" >"$out/signal.log" 2>&1; status=$?
        expected=$((128 + $(kill -l "$signal")))
        if [ "$status" -eq "$expected" ]; then
            echo "ok   SIG$signal ends a C program ($mode) as without the library (status $status)"
        else
            echo "FAIL SIG$signal under the library: status $status, expected $expected"; cat "$out/signal.log"; failed=1
        fi
    done
done

echo "== a program that links Conveyor's Swift module, under the drop-in library: one runtime, the program's"
"$run" "$bin/conveyor-adoption-probe" one-runtime || { echo "FAIL one runtime per process"; failed=1; }
# A library whose constructor makes a dispatch object on the library's runtime before the
# program starts: the library keeps its own runtime, says so, and the program still works.
LD_PRELOAD="$bin/libConveyorDropIn.so $out/libearly-user.so" timeout 120 "$bin/conveyor-adoption-probe" refused \
    >"$out/refused.log" 2>&1 && grep -q "cannot forward to the program's runtime (code that ran before the program's runtime was handed over" "$out/refused.log" \
    && echo "ok   state made before the program started: refused with a message, two runtimes" \
    || { echo "FAIL the library took a program's runtime after its own had made state"; cat "$out/refused.log"; failed=1; }
echo "== the composition tester's Conveyor build under the drop-in library (Swift API, then C API): one runtime"
"$run" "$bin/conveyor-compose" --seconds "$seconds" || failed=1
"$run" "$bin/conveyor-compose" --seconds "$seconds" --api c || failed=1

echo "== the composition tester's libdispatch build, unchanged, under the drop-in library (Swift API, then C API)"
"$run" "$bin/conveyor-compose-dispatch" --seconds "$seconds" || failed=1
"$run" "$bin/conveyor-compose-dispatch" --seconds "$seconds" --api c || failed=1

[ $failed -eq 0 ] && echo "drop-in library: all passed" || echo "drop-in library: FAILURES above"
exit $failed
