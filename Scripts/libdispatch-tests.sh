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

# libdispatch's own portable test suite (swift-corelibs-libdispatch, tests/), unchanged,
# built against the toolchain's headers and libdispatch, run on libdispatch and then under
# Conveyor's drop-in library (LD_PRELOAD of libConveyorDropIn.so), one test at a time.
#
#   Scripts/libdispatch-tests.sh [SOURCE]
#
# SOURCE: a git directory, a checkout, or a URL (default $LIBDISPATCH_SOURCE, else
# https://github.com/swiftlang/swift-corelibs-libdispatch.git). Nothing of libdispatch is
# committed here: tests/, private/ and cmake/ are taken from SOURCE at run time. When the
# source cannot be had (no network), the suite is skipped with a line saying why: exit 0.
#
# As upstream's tests/CMakeLists.txt: every test is linked with the bsdtests harness
# (bsdtests.c, dispatch_test.c) and run as `bsdtestharness TEST` with ctest's timeouts,
# NOLEAKS=1, in the tests' build directory; `private/` serves <dispatch/private.h>; the
# config header is generated from cmake/config.h.in. On Linux the harness only spawns the
# test and fails it on a nonzero status or a signal, without naming the signal: a small
# shell shim between harness and test records the test's status (and puts the drop-in
# library in the test's LD_PRELOAD). Tests built with LENIENT_DEADLINES=1, as for the
# Swift toolchain's libdispatch (ENABLE_SWIFT).
#
# Prints a table: test, upstream's set (linux: run by upstream's CI on Linux; extended:
# EXTENDED_TEST_SUITE, "usually pass"), result on libdispatch, result under the drop-in
# (pass / FAIL and the first failing line / crash and signal / timeout / does not build).
# Fails (exit 1) when a test of the linux set passes on libdispatch but not under the
# drop-in library; the extended set's differences are shown, not fatal.
#
# Environment: CONVEYOR_DROP_IN (the library, default .build/release/libConveyorDropIn.so),
# LIBDISPATCH_TESTS_EXTENDED=0 (the linux set only), LIBDISPATCH_TESTS_ONLY="sema apply"
# (those tests only), LIBDISPATCH_TESTS_TIMEOUT (seconds, default upstream's 120).
# Builds and logs in .build-libdispatch-tests/ (remade on each run).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

source_arg="${1:-${LIBDISPATCH_SOURCE:-https://github.com/swiftlang/swift-corelibs-libdispatch.git}}"
drop_in="${CONVEYOR_DROP_IN:-$PWD/.build/release/libConveyorDropIn.so}"
default_timeout="${LIBDISPATCH_TESTS_TIMEOUT:-120}"
toolchain=/opt/swift/usr/lib/swift
runtime=$toolchain/linux
work="$PWD/.build-libdispatch-tests"
started=$(date +%s)

skip() { echo "libdispatch-tests: SKIPPED, libdispatch's test suite was not run: $*"; exit 0; }
die() { echo "libdispatch-tests: $*" >&2; exit 1; }

[ -f "$drop_in" ] || die "$drop_in not found (build it with \`swift build -c release --product ConveyorDropIn\`, or set CONVEYOR_DROP_IN)"
[ -f "$runtime/libdispatch.so" ] && [ -f "$toolchain/dispatch/dispatch.h" ] || die "the toolchain's libdispatch is not at $toolchain"
command -v clang >/dev/null && command -v clang++ >/dev/null || die "clang not found"

[ -d "$work" ] && chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"
mkdir -p "$work/src" "$work/tests" "$work/bin" "$work/obj" "$work/logs" "$work/tmp" "$work/config"

# ---- the source: tests/, private/ and cmake/ of swift-corelibs-libdispatch
parts=(tests private cmake)
if [ -d "$source_arg/tests" ] && [ -d "$source_arg/private" ]; then
    for part in "${parts[@]}"; do cp -R "$source_arg/$part" "$work/src/" || skip "cannot copy $source_arg/$part"; done
    described="checkout $source_arg$(git -C "$source_arg" rev-parse --short HEAD 2>/dev/null | sed 's/^/ at /')"
elif git --git-dir="$source_arg" rev-parse -q --verify 'HEAD^{commit}' >/dev/null 2>&1; then
    git --git-dir="$source_arg" archive HEAD "${parts[@]}" | tar -x -C "$work/src" \
        || skip "cannot export tests/, private/, cmake/ from the git directory $source_arg"
    described="git directory $source_arg at $(git --git-dir="$source_arg" rev-parse --short HEAD)"
elif [ -e "$source_arg" ]; then
    skip "$source_arg is neither a checkout of swift-corelibs-libdispatch nor a git directory"
else
    command -v git >/dev/null || skip "git is not installed, so $source_arg cannot be cloned"
    if ! GIT_TERMINAL_PROMPT=0 timeout 300 git clone --quiet --depth 1 --no-tags "$source_arg" "$work/clone" >"$work/logs/clone.log" 2>&1; then
        why=$(grep -m1 -E '^(fatal|error):' "$work/logs/clone.log" || grep -v '^\s*$' "$work/logs/clone.log" | tail -1)
        skip "cannot clone $source_arg (${why:-git clone failed})"
    fi
    for part in "${parts[@]}"; do cp -R "$work/clone/$part" "$work/src/" || skip "the clone of $source_arg has no $part/"; done
    described="$source_arg at $(git -C "$work/clone" rev-parse --short HEAD)"
fi
src="$work/src"
[ -f "$src/tests/CMakeLists.txt" ] && [ -f "$src/tests/bsdtestharness.c" ] && [ -f "$src/cmake/config.h.in" ] \
    || skip "$source_arg does not have libdispatch's tests/ (tests/CMakeLists.txt, tests/bsdtestharness.c) and cmake/config.h.in"
echo "libdispatch's tests from $described"
echo "built against $toolchain (headers) and $runtime/libdispatch.so; drop-in library: $drop_in"

# ---- the config header, as upstream's CMake makes it from cmake/config.h.in. The tests
# read only HAVE_POSIX_SPAWNP and HAVE_PTHREAD_{SET,GET}{NAME,_NAME}_NP: those are probed
# (as check_symbol_exists does); the rest take their values for Linux, or 0.
have_symbol() { # SYMBOL HEADER: declared by HEADER and linkable
    printf '#define _GNU_SOURCE 1\n#include <%s>\nint main(int argc, char **argv) { (void)argv;\n#ifndef %s\n  return ((int *)(&%s))[argc];\n#else\n  (void)argc; return 0;\n#endif\n}\n' \
        "$2" "$1" "$1" >"$work/config/probe.c"
    clang -w "$work/config/probe.c" -o "$work/config/probe" -lpthread >/dev/null 2>&1
}
declare -A config=([DISPATCH_USE_INTERNAL_WORKQUEUE]=1 [DISPATCH_USE_THREAD_LOCAL_STORAGE]=1
    [HAVE_DECL_CLOCK_MONOTONIC]=1 [HAVE_DECL_CLOCK_REALTIME]=1 [HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME]=1
    [HAVE_DLFCN_H]=1 [HAVE_FCNTL_H]=1 [HAVE_INTTYPES_H]=1 [HAVE_MEMORY_H]=1 [HAVE_NORETURN_BUILTIN_TRAP]=1
    [HAVE_POSIX_FADVISE]=1 [HAVE_STDINT_H]=1 [HAVE_STDLIB_H]=1 [HAVE_STRINGS_H]=1 [HAVE_STRING_H]=1
    [HAVE_SYSCONF]=1 [HAVE_SYS_STAT_H]=1 [HAVE_SYS_TYPES_H]=1 [USE_POSIX_SEM]=1 [_GNU_SOURCE]=1)
have_symbol posix_spawnp spawn.h && config[HAVE_POSIX_SPAWNP]=1
for function in pthread_setname_np pthread_getname_np pthread_set_name_np pthread_get_name_np; do
    upper=$(echo "$function" | tr '[:lower:]' '[:upper:]')
    have_symbol "$function" pthread.h && config[HAVE_$upper]=1
done
mkdir -p "$work/config/config"
while IFS= read -r line; do
    if [[ $line =~ ^#cmakedefine01[[:space:]]+([A-Za-z0-9_]+) ]]; then
        echo "#define ${BASH_REMATCH[1]} ${config[${BASH_REMATCH[1]}]:-0}"
    elif [[ $line =~ ^#cmakedefine[[:space:]]+([A-Za-z0-9_]+) ]]; then
        if [ -n "${config[${BASH_REMATCH[1]}]:-}" ]; then echo "#define ${BASH_REMATCH[1]}"; else echo "/* #undef ${BASH_REMATCH[1]} */"; fi
    else
        echo "${line//\$\{PROJECT_VERSION\}/0}"
    fi
done <"$src/cmake/config.h.in" >"$work/config/config/config_ac.h"

# ---- the tests, as tests/CMakeLists.txt has them for Linux: name, set, source, options
# (extra compile and link flags; timeout=N is ctest's TIMEOUT, default 120 s).
tests=(
    "dispatch_apply linux dispatch_apply.c"
    "dispatch_api linux dispatch_api.c"
    "dispatch_debug linux dispatch_debug.c"
    "dispatch_queue_finalizer linux dispatch_queue_finalizer.c"
    "dispatch_overcommit linux dispatch_overcommit.c"
    "dispatch_context_for_key linux dispatch_context_for_key.c"
    "dispatch_after linux dispatch_after.c"
    "dispatch_timer linux dispatch_timer.c"
    "dispatch_timer_short linux dispatch_timer_short.c -lm"
    "dispatch_timer_timeout linux dispatch_timer_timeout.c"
    "dispatch_sema linux dispatch_sema.c"
    "dispatch_timer_bit31 linux dispatch_timer_bit31.c"
    "dispatch_timer_bit63 linux dispatch_timer_bit63.c"
    "dispatch_timer_set_time linux dispatch_timer_set_time.c"
    "dispatch_data linux dispatch_data.c"
    "dispatch_io_muxed linux dispatch_io_muxed.c"
    "dispatch_io_net linux dispatch_io_net.c"
    "dispatch_io_pipe linux dispatch_io_pipe.c timeout=15"
    "dispatch_io_pipe_close linux dispatch_io_pipe_close.c timeout=5"
    "dispatch_select linux dispatch_select.c"
    "dispatch_c99 linux dispatch_c99.c -std=gnu99"
    "dispatch_plusplus linux dispatch_plusplus.cpp"
    "dispatch_workqueue linux dispatch_workqueue.c"
    "dispatch_priority extended dispatch_priority.c"
    "dispatch_concur extended dispatch_concur.c"
    "dispatch_group extended dispatch_group.c -lm"
    "dispatch_read extended dispatch_read.c"
    "dispatch_read2 extended dispatch_read2.c"
    "dispatch_starfish extended dispatch_starfish.c"
    "dispatch_suspend_timer extended dispatch_suspend_timer.c"
    "dispatch_pingpong extended dispatch_pingpong.c"
    "dispatch_drift extended dispatch_drift.c"
    "dispatch_readsync extended dispatch_readsync.c"
    "dispatch_cascade extended dispatch_cascade.c"
    "dispatch_io extended dispatch_io.c"
    "dispatch_priority2 extended dispatch_priority.c -DUSE_SET_TARGET_QUEUE=1"
)
# dispatch_thread_name only where pthread names can be set and read (as upstream).
if [ -n "${config[HAVE_PTHREAD_SETNAME_NP]:-}${config[HAVE_PTHREAD_SET_NAME_NP]:-}" ] \
    && [ -n "${config[HAVE_PTHREAD_GETNAME_NP]:-}${config[HAVE_PTHREAD_GET_NAME_NP]:-}" ]; then
    tests=("${tests[@]:0:20}" "dispatch_thread_name linux dispatch_thread_name.c" "${tests[@]:20}")
fi
# Upstream's list may have moved on since this table was written: say so.
known=" ${tests[*]} "
for name in $(sed 's/#.*//' "$src/tests/CMakeLists.txt" | tr -s ' \t()' '\n' | grep -xE '[a-z0-9_]+' | sort -u); do
    if [ -f "$src/tests/dispatch_$name.c" ] && [[ $known != *" dispatch_$name "* ]] \
        && [[ " deadname proc vm vnode test " != *" $name "* ]]; then
        echo "note: tests/CMakeLists.txt names '$name', which this script does not run"
    fi
done
echo "not built on Linux by upstream (Apple-only or CoreFoundation): deadname proc vm vnode cf_main sync_on_main transform cffd"

# ---- building: the harness library, bsdtestharness, then each test (one at a time).
cflags=(-fblocks -g -Wall -Wno-deprecated-declarations -DHAVE_CONFIG_H -D_GNU_SOURCE=1 -DDISPATCH_USE_DTRACE=0
    -DLENIENT_DEADLINES=1 -I"$work/tests" -I"$src/tests" -I"$work/config" -isystem "$toolchain/Block" -I"$toolchain")
ldflags=(-L"$runtime" -Wl,-rpath,"$runtime" -ldispatch -lBlocksRuntime -lpthread -lrt)
ln -s "$src/private" "$work/tests/dispatch"     # <dispatch/private.h>, as upstream's symlink
for file in bsdtests dispatch_test; do
    clang -std=gnu11 "${cflags[@]}" -c "$src/tests/$file.c" -o "$work/obj/$file.o" >"$work/logs/$file.build.log" 2>&1 \
        || { cat "$work/logs/$file.build.log"; die "the harness library ($file.c) does not build"; }
done
harness_objects=("$work/obj/bsdtests.o" "$work/obj/dispatch_test.o")
clang -std=gnu11 "${cflags[@]}" "$src/tests/bsdtestharness.c" "${harness_objects[@]}" "${ldflags[@]}" \
    -o "$work/bin/bsdtestharness" >"$work/logs/bsdtestharness.build.log" 2>&1 \
    || { cat "$work/logs/bsdtestharness.build.log"; die "bsdtestharness does not build"; }

# Between the harness and the test: the test's LD_PRELOAD, and its status (the harness
# sees the same verdict: a signal N becomes status 128+N, a failure either way).
cat >"$work/bin/run-test" <<'EOF'
#!/bin/sh
if [ -n "${LIBDISPATCH_TEST_PRELOAD:-}" ]; then
    LD_PRELOAD="$LIBDISPATCH_TEST_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"; export LD_PRELOAD
fi
"$@"
status=$?
echo "$status" >"$LIBDISPATCH_TEST_STATUS"
exit "$status"
EOF
chmod +x "$work/bin/run-test"

declare -A built_ok build_error set_of timeout_of
selected=()
for entry in "${tests[@]}"; do
    read -r name set source options <<<"$entry"
    if [ -n "${LIBDISPATCH_TESTS_ONLY:-}" ] && [[ " $LIBDISPATCH_TESTS_ONLY " != *" ${name#dispatch_} "* && " $LIBDISPATCH_TESTS_ONLY " != *" $name "* ]]; then continue; fi
    [ "$set" = extended ] && [ "${LIBDISPATCH_TESTS_EXTENDED:-1}" = 0 ] && continue
    selected+=("$name"); set_of[$name]=$set; timeout_of[$name]=$default_timeout
    extra=()
    for option in $options; do
        case "$option" in timeout=*) timeout_of[$name]=${option#timeout=} ;; *) extra+=("$option") ;; esac
    done
    if [ ! -f "$src/tests/$source" ]; then build_error[$name]="no tests/$source"; continue; fi
    case "$source" in
        *.cpp) compiler=(clang++) ;;
        *) compiler=(clang); [[ " ${extra[*]} " == *" -std="* ]] || compiler+=(-std=gnu11) ;;
    esac
    if "${compiler[@]}" "${cflags[@]}" "${extra[@]}" "$src/tests/$source" "${harness_objects[@]}" "${ldflags[@]}" \
        -o "$work/bin/$name" >"$work/logs/$name.build.log" 2>&1; then
        built_ok[$name]=1
    else
        build_error[$name]=$(grep -m1 -E 'error:' "$work/logs/$name.build.log" | sed "s|$src/||g")
        [ -n "${build_error[$name]}" ] || build_error[$name]="see $work/logs/$name.build.log"
    fi
done
[ ${#selected[@]} -gt 0 ] || die "no test selected (LIBDISPATCH_TESTS_ONLY=${LIBDISPATCH_TESTS_ONLY:-})"

# ---- running. Sets `result` for NAME under MODE (libdispatch or drop-in).
signal_name() { local n; n=$(kill -l "$1" 2>/dev/null) && echo "SIG$n" || echo "signal $1"; }
run() {
    local name=$1 mode=$2 limit=${timeout_of[$1]} preload="" log status_file rc status begin elapsed line
    [ "$mode" = drop-in ] && preload=$drop_in
    log="$work/logs/$name.$mode.log"; status_file="$work/logs/$name.$mode.status"
    local before; before=$(ls -d /tmp/dispatchtest_* 2>/dev/null)
    begin=$(date +%s%N)
    (cd "$work/tests" && exec env SWIFT_BACKTRACE=enable=no NOLEAKS=1 TMPDIR="$work/tmp" \
        LIBDISPATCH_TEST_PRELOAD="$preload" LIBDISPATCH_TEST_STATUS="$status_file" \
        timeout -k 10 "$limit" "$work/bin/bsdtestharness" "$work/bin/run-test" "$work/bin/$name") </dev/null >"$log" 2>&1
    rc=$?
    # dispatch_io writes under /tmp whatever TMPDIR says, and leaves a mode-0 directory
    # there when it fails: remove what this run left.
    for leftover in /tmp/dispatchtest_*; do
        [ -e "$leftover" ] && ! grep -qxF "$leftover" <<<"$before" && { chmod -R u+rwx "$leftover"; rm -rf "$leftover"; }
    done
    elapsed=$(( ($(date +%s%N) - begin) / 1000000 ))
    times[$name.$mode]=$(printf '%d.%01d' $((elapsed / 1000)) $((elapsed % 1000 / 100)))
    status=$(cat "$status_file" 2>/dev/null)
    # The first failing check, without the harness's own "Process exited" verdict.
    line=$(grep '^\[FAIL\]' "$log" | grep -v 'Process exited' | head -1)
    if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $elapsed -ge $((limit * 1000)) ]; }; then
        result="timeout (${limit} s)"
    elif [ $rc -eq 0 ]; then
        result="pass"
    elif [ -n "$status" ] && [ "$status" -gt 128 ] && [ "$status" -le 192 ]; then
        result="crash $(signal_name $((status - 128)))"
        local why; why=$(grep -m1 -E '^Conveyor: |Fatal error|Assertion .* failed|BUG IN ' "$log" | sed -E 's/^.*Fatal error: //')
        [ -n "$line" ] && result+=" after $line"
        [ -n "$why" ] && result+=": $why"
    elif [ -n "$line" ]; then
        result="FAIL $line"
    elif [ -n "$status" ]; then
        result="FAIL exit status $status: $(grep -v -E '^\[|^\s|^$' "$log" | head -1)"
    else
        result="FAIL (harness status $rc): $(grep -v -E '^\[|^\s|^$' "$log" | head -1)"
    fi
}

declare -A results times
count=${#selected[@]}; index=0
echo "running ${count} tests, one at a time, on libdispatch then under the drop-in library"
for name in "${selected[@]}"; do
    index=$((index + 1))
    if [ -z "${built_ok[$name]:-}" ]; then
        results[$name.libdispatch]="does not build: ${build_error[$name]}"; results[$name.drop-in]="does not build"
        printf '  [%2d/%d] %-26s does not build\n' $index "$count" "$name"
        continue
    fi
    for mode in libdispatch drop-in; do run "$name" "$mode"; results[$name.$mode]=$result; done
    printf '  [%2d/%d] %-26s libdispatch: %-8s (%5s s)   drop-in: %-8s (%5s s)\n' $index "$count" "$name" \
        "${results[$name.libdispatch]%% *}" "${times[$name.libdispatch]}" "${results[$name.drop-in]%% *}" "${times[$name.drop-in]}"
done

# ---- the table, then what differs.
cut_to() { local text=$1 width=$2; [ ${#text} -le "$width" ] && echo "$text" || echo "${text:0:$((width - 1))}…"; }
echo
printf '%-26s %-9s %-45s %s\n' "test" "set" "libdispatch" "drop-in (Conveyor)"
printf '%-26s %-9s %-45s %s\n' "----" "---" "-----------" "------------------"
for name in "${selected[@]}"; do
    printf '%-26s %-9s %-45s %s\n' "$name" "${set_of[$name]}" "$(cut_to "${results[$name.libdispatch]}" 45)" \
        "$(cut_to "${results[$name.drop-in]}" 90)"
done

failed=0; passes=0; drop_in_passes=0; regressions=()
for name in "${selected[@]}"; do
    [ "${results[$name.libdispatch]}" = pass ] && passes=$((passes + 1))
    [ "${results[$name.drop-in]}" = pass ] && drop_in_passes=$((drop_in_passes + 1))
    if [ "${results[$name.libdispatch]}" = pass ] && [ "${results[$name.drop-in]}" != pass ]; then
        regressions+=("$name")
        [ "${set_of[$name]}" = linux ] && failed=1
    fi
done
for name in "${selected[@]}"; do
    [ -n "${built_ok[$name]:-}" ] && [ "${results[$name.drop-in]}" != pass ] || continue
    log="$work/logs/$name.drop-in.log"
    echo
    if [[ " ${regressions[*]} " == *" $name "* ]]; then
        echo "== $name passes on libdispatch, not under the drop-in library ($log):"
    else
        echo "== $name fails under the drop-in library, and on libdispatch: ${results[$name.libdispatch]} ($log):"
    fi
    # The test's own output (the harness's verdict, last, left out).
    sed -e '/^\[BEGIN\] Process exited/,$d' -e '/^$/d' "$log" >"$work/logs/$name.drop-in.test-output"
    if grep -q -E '^\[FAIL\]|^Conveyor: |Fatal error' "$work/logs/$name.drop-in.test-output"; then
        grep -B3 -A1 -m3 -E '^\[FAIL\]|^Conveyor: |Fatal error' "$work/logs/$name.drop-in.test-output" | head -20
    else
        tail -6 "$work/logs/$name.drop-in.test-output"
    fi
done
if [ "$(id -u)" = 0 ] && [ -n "${built_ok[dispatch_io]:-}" ]; then
    echo
    echo "note: run as root, dispatch_io's write to a directory of mode 0 succeeds, so its check for EACCES fails on both."
fi
echo
echo "passed: libdispatch ${passes}/${count}, drop-in ${drop_in_passes}/${count}; $(( $(date +%s) - started )) s in all; logs in $work/logs"
if [ $failed -ne 0 ]; then
    echo "libdispatch-tests: FAILED: a test of upstream's Linux set passes on libdispatch but not under the drop-in library"
fi
exit $failed
