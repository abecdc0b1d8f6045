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

echo "== Dispatch (the toolchain's libdispatch)"
"$bin/conveyor-compose-dispatch" "${budget[@]}" --first-seed "$seed"
dispatch_status=$?
echo "== Conveyor"
"$bin/conveyor-compose" "${budget[@]}" --first-seed "$seed"
conveyor_status=$?

if [ "$dispatch_status" -ne 0 ]; then
    echo "note: libdispatch failed some programs (status $dispatch_status); see the seeds above"
fi
exit "$conveyor_status"
