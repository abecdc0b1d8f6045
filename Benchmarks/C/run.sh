#!/usr/bin/env bash
# The C API side by side: Benchmarks/C/capi-bench.c built against libdispatch (the
# toolchain's headers and libdispatch.so) and against Conveyor (Sources/CConveyorDispatch
# and libConveyorDispatch, release), each run in its own process; prints the medians and
# the ratio libdispatch / Conveyor (> 1: Conveyor faster). `--quick` for a smoke run.
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
"$out/bench-libdispatch" "$@" > "$out/libdispatch.txt"
"$out/bench-conveyor" "$@" > "$out/conveyor.txt"
printf '%-22s %10s %14s %14s %8s\n' workload ops "libdispatch" "Conveyor" ratio
join <(sort "$out/libdispatch.txt") <(sort "$out/conveyor.txt") | sort -k1,1 | while read -r name n d dok n2 c cok; do
    ratio=$(awk -v d="$d" -v c="$c" 'BEGIN { printf "%.2f", d / c }')
    printf '%-22s %10s %11s ns %11s ns %7sx%s\n' "$name" "$n" "$d" "$c" "$ratio" \
        "$([ "$dok $cok" = "ok ok" ] || echo "  check: libdispatch $dok, Conveyor $cok")"
    [ "$dok $cok" = "ok ok" ] || exit 1
done
