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

# Usage: Scripts/c-api.sh [release|debug] (default release: the harness then also asserts
# that dispatch_async_f allocates nothing).
# Builds libConveyorDispatch and, with the toolchain's clang, the C API's test harness
# (Tests/CAPI: capi-test.c, data-io-test.c, lifetime-test.c, queue-edges-test.c, no-blocks.c) and the C and C++ examples (Examples/C, Examples/CPlusPlus); runs them all,
# and compares the C semantics probe's answers (Tests/CAPI/c-semantics.c) with libdispatch's.
# Each program needs only the include path, the link flag (and -fblocks with the
# BlocksRuntime for block forms), as README "C and C++" says.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
config="${1:-release}"
# The headers are Conveyor's own text: no line copied from the toolchain's libdispatch headers.
python3 Scripts/c-api-headers-check.py
# ... and they declare every function, object and typedef of libdispatch's with its type.
python3 Scripts/c-api-signatures.py
swift build -c "$config" --product ConveyorDispatch
lib="$(swift build -c "$config" --show-bin-path)"
include=Sources/CConveyorDispatch/include
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
runtime=/opt/swift/usr/lib/swift/linux
flags=(-I "$include" -L "$lib" -lConveyorDispatch -Wl,-rpath,"$lib" -L "$runtime" -lBlocksRuntime -Wl,-rpath,"$runtime")
release=(); [ "$config" = release ] && release=(-DCONVEYOR_RELEASE)
clang -fblocks -Wall -Werror -O1 "${release[@]}" Tests/CAPI/capi-test.c -o "$out/capi-test" "${flags[@]}"
clang -fblocks -Wall -Werror -O1 Tests/CAPI/data-io-test.c -o "$out/data-io-test" "${flags[@]}"
clang -fblocks -Wall -Werror -O1 Tests/CAPI/lifetime-test.c -o "$out/lifetime-test" "${flags[@]}"
clang -fblocks -Wall -Werror -O1 Tests/CAPI/queue-edges-test.c -o "$out/queue-edges-test" "${flags[@]}"
clang -fblocks -Wall -Werror -O1 Examples/C/chapter.c -o "$out/chapter" "${flags[@]}"
clang++ -fblocks -Wall -Werror -O1 Examples/CPlusPlus/chapter.cpp -o "$out/chapter-cpp" "${flags[@]}"
# Without blocks: GCC if installed (its C front end has no blocks), else clang without -fblocks.
no_blocks_cc=clang; command -v gcc >/dev/null && no_blocks_cc=gcc
"$no_blocks_cc" -Wall -Werror -O1 Tests/CAPI/no-blocks.c -o "$out/no-blocks" -I "$include" -L "$lib" -lConveyorDispatch -Wl,-rpath,"$lib"
# The C++ example uses only the _f forms, so G++ (no blocks either) builds it too.
no_blocks_cxx=clang++; command -v g++ >/dev/null && no_blocks_cxx=g++
"$no_blocks_cxx" -Wall -Werror -O1 Examples/CPlusPlus/chapter.cpp -o "$out/chapter-cpp-no-blocks" -I "$include" -L "$lib" -lConveyorDispatch -Wl,-rpath,"$lib"
echo "== Tests/CAPI/capi-test.c"; timeout 120 "$out/capi-test"
echo "== Tests/CAPI/data-io-test.c"; timeout 120 "$out/data-io-test"
echo "== Tests/CAPI/queue-edges-test.c"; timeout 120 "$out/queue-edges-test"
# With a malloc that reuses freed memory at once and fills it with a pattern, a read of a
# freed handle crashes or sees garbage (each scenario runs in its own child process).
echo "== Tests/CAPI/lifetime-test.c"
SWIFT_BACKTRACE=enable=no GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=85 timeout 300 "$out/lifetime-test"
echo "== Tests/CAPI/no-blocks.c ($no_blocks_cc)"; timeout 60 "$out/no-blocks"
echo "== Examples/C/chapter.c"; timeout 60 "$out/chapter"
echo "== Examples/CPlusPlus/chapter.cpp"; timeout 60 "$out/chapter-cpp"
echo "== Examples/CPlusPlus/chapter.cpp ($no_blocks_cxx, no blocks)"; timeout 60 "$out/chapter-cpp-no-blocks"
# The C semantics probe, built against Conveyor's headers and against the toolchain's
# libdispatch: Conveyor's answers must be libdispatch's (Tests/CAPI/c-semantics.known
# lists the differences on purpose).
toolchain=/opt/swift/usr/lib/swift
clang -fblocks -Wall -Werror -O1 Tests/CAPI/c-semantics.c -o "$out/c-semantics" "${flags[@]}"
clang -fblocks -Wall -Werror -O1 Tests/CAPI/c-semantics.c -o "$out/c-semantics-dispatch" -I "$toolchain" \
    -L "$runtime" -ldispatch -lBlocksRuntime -Wl,-rpath,"$runtime"
echo "== Tests/CAPI/c-semantics.c, against libdispatch's answers"
timeout 60 "$out/c-semantics-dispatch" >"$out/c-semantics-dispatch.txt"
timeout 60 "$out/c-semantics" >"$out/c-semantics.txt"
python3 Scripts/compare-answers.py switched Tests/CAPI/c-semantics.known "$out/c-semantics-dispatch.txt" "$out/c-semantics.txt"
