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

# Sourced by the real-package scripts (grdb-observation.sh, nimble-polling.sh): one XCTest
# run of a variant, and the one rule that decides what counts against Conveyor.
#
# The rule: the Conveyor variant fails the script when a test fails on it that neither
# failed on the toolchain's Dispatch in the same invocation nor is listed as known (a test
# that fails on Dispatch itself, or whose outcome depends on timing on a loaded machine
# whatever library runs it), and when it hangs or crashes in a test, unless Dispatch hung
# or crashed in that same test in the same invocation (the known list covers failures
# only). Dispatch's own failures are printed and never counted: they say nothing about
# Conveyor.

# xctest_sync_test_files SOURCE-DIR DEST-DIR [FILE...]
# Copies a package's test files from its resolved checkout (SOURCE-DIR) into a test
# target of the build folder (DEST-DIR): the FILEs named, or every .swift file of
# SOURCE-DIR. Unchanged files keep their time stamps, so that a second run does not
# rebuild; files not copied (a placeholder, a file upstream dropped) are removed.

xctest_sync_test_files() {
    local source_dir=$1 dest=$2 file
    shift 2
    local files=("$@")
    if [ ${#files[@]} -eq 0 ]; then
        for file in "$source_dir"/*.swift; do files+=("${file##*/}"); done
    fi
    for file in "${files[@]}"; do
        cmp -s "$source_dir/$file" "$dest/$file" || cp "$source_dir/$file" "$dest/$file"
    done
    for file in "$dest"/*; do
        [[ " ${files[*]} " == *" ${file##*/} "* ]] || rm "$file"
    done
}

# xctest_run VARIANT RUN DIR LOGS TIMEOUT [SWIFT-TEST-ARGUMENTS...]
# Runs `swift test --skip-build` in DIR, killed as hung after TIMEOUT seconds. Keeps the
# output in LOGS/VARIANT-RUN.log and lists the failed tests ("Class.test") in
# LOGS/VARIANT-RUN.failed, plus "HUNG <test>" for a run that was killed in <test>, or
# "CRASHED <test>" for one that ended without XCTest's summary (the tests after <test>
# never ran). Prints one line with the counts.
# VARIANT OnDropIn runs DIR's tests under `$XCTEST_DROP_IN_LAUNCHER` (conveyor-run; see
# xctest_drop_in_launcher): DIR is then the Dispatch variant's package, no import switched.

xctest_run() {
    local variant=$1 run=$2 dir=$3 logs=$4 timeout_seconds=$5
    shift 5
    local log="$logs/$variant-$run.log" failed_list="$logs/$variant-$run.failed"
    local started status=0 passed failed last note=""
    started=$(date +%s)
    # The drop-in variant runs the Dispatch variant's package, unmodified, with the whole
    # `swift test` (SwiftPM and the test runner it starts) on Conveyor's drop-in library.
    local launcher=()
    [ "$variant" = OnDropIn ] && launcher=("$XCTEST_DROP_IN_LAUNCHER")
    (cd "$dir" && timeout -k 10 "$timeout_seconds" "${launcher[@]}" swift test --skip-build "$@") > "$log" 2>&1 || status=$?
    { grep -E "^Test Case '.*' failed \(" "$log" || true; } \
        | sed -E "s/^Test Case '([^']+)' failed.*/\1/" | sort -u > "$failed_list"
    passed=$(grep -cE "^Test Case '.*' passed \(" "$log" || true)
    failed=$(wc -l < "$failed_list")
    last=$({ grep -E "^Test Case '.*' started" "$log" || true; } | tail -1 | cut -d"'" -f2)
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        note=" (killed after $timeout_seconds s: hung in ${last:-?})"
        echo "HUNG ${last:-?}" >> "$failed_list"
    elif [ "$status" != 0 ] && { [ "$failed" = 0 ] || ! grep -qE "^Test Suite '(All|Selected) tests' (passed|failed)" "$log"; }; then
        # Only the top suite's end says the run finished: every test class prints its own
        # "Executed N tests", so a crash after a finished class with a failure has one.
        note=" (exit status $status in ${last:-?}: $(grep -m1 -E "Fatal error|Program crashed" "$log" || true))"
        echo "CRASHED ${last:-?}" >> "$failed_list"
    fi
    echo "$variant run $run: $passed passed, $failed failed in $(( $(date +%s) - started )) s$note"
}

# xctest_judge LOGS [KNOWN...]
# Applies the rule above to every LOGS/OnDispatch-*.failed and LOGS/OnConveyor-*.failed,
# and to LOGS/OnDropIn-*.failed (the Dispatch variant under the drop-in library) alike.
# Each KNOWN entry is "Class.test: why". Prints what failed where; returns 1 when a
# failure counts against Conveyor.
xctest_judge() {
    local logs=$1
    shift
    local known=("$@") test why status=0
    cat "$logs"/OnDispatch-*.failed 2> /dev/null | sort -u > "$logs/dispatch-failed" || true
    while read -r test; do
        [ -n "$test" ] || continue
        why=$(xctest_known_reason "$test" "${known[@]}")
        echo "  failed on Dispatch (not counted against Conveyor): $test${why:+ (known: $why)}"
    done < "$logs/dispatch-failed"
    local variant name
    for variant in OnConveyor OnDropIn; do
        ls "$logs"/$variant-*.log > /dev/null 2>&1 || continue
        name=Conveyor; [ "$variant" = OnDropIn ] && name="the drop-in library"
        cat "$logs"/$variant-*.failed 2> /dev/null | sort -u > "$logs/$variant-all.failed-list" || true
        while read -r test; do
            [ -n "$test" ] || continue
            why=$(xctest_known_reason "$test" "${known[@]}")
            if [ -n "$why" ]; then
                echo "  failed on $name, known: $test ($why)"
            elif grep -qxF "$test" "$logs/dispatch-failed"; then
                echo "  failed on $name, also on Dispatch in this invocation: $test"
            else
                echo "  FAILED on $name only: $test"
                { grep -hF "error: ${test#* }" "$logs"/$variant-*.log | head -3 | sed 's/^/    /'; } || true
                status=1
            fi
        done < "$logs/$variant-all.failed-list"
    done
    if [ "$status" = 0 ]; then
        echo "Conveyor failed no test that passed on Dispatch"
    else
        echo "Conveyor failed where Dispatch did not (logs in $logs)"
    fi
    return $status
}

# Prints why TEST is known when it is listed in the KNOWN entries that follow it.
xctest_known_reason() {
    local test=$1 entry
    shift
    for entry in "$@"; do
        if [ "${entry%%:*}" = "$test" ]; then
            echo "${entry#*: }"
            return
        fi
    done
}

# Builds the drop-in library and its launcher in the Conveyor package at ROOT (release) and
# prints the launcher's path.
xctest_drop_in_launcher() {
    local root=$1
    (cd "$root" && swift build -c release --product ConveyorDropIn > /dev/null && swift build -c release --product conveyor-run > /dev/null) || return 1
    echo "$(cd "$root" && swift build -c release --show-bin-path)/conveyor-run"
}
