#!/usr/bin/env bash
# Benchmark (not a test) of HumCore's hot loops, built straight from the sources with swiftc -O: the mixing kernel
# (16 loops for 5 minutes, best of 5), and LoopBuffer.quantize checked against the plain conversion it replaces for
# every float in [-1.02, 1.02] (and timed). First, a check: a copy of HumCore with `@_noAllocation` on Mixer.render
# must build, i.e. the compiler finds nothing the audio thread runs that could allocate, lock or touch a reference
# count. Usage: bench/kernel.sh
set -euo pipefail
shopt -s nullglob  # HumCore may have no third level of folders
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp -r Sources/HumCore "$out/HumCore"
sed -i 's/^    public func render(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {$/    @_noAllocation\n&/' \
    "$out/HumCore/Mixer/Mixer.swift"
grep -q '@_noAllocation' "$out/HumCore/Mixer/Mixer.swift" || { echo "Mixer.render not found" >&2; exit 1; }
if swiftc -O -wmo -parse-as-library -package-name hum -module-name HumCore -emit-library -o "$out/libcheck.so" \
    "$out"/HumCore/*.swift "$out"/HumCore/*/*.swift "$out"/HumCore/*/*/*.swift 2>"$out/check.txt"; then
    echo "audio thread: Mixer.render and all it calls pass @_noAllocation (no allocation, lock or reference count)"
else
    grep -E "error" -A6 "$out/check.txt" >&2
    echo "audio thread: Mixer.render fails @_noAllocation (above)" >&2
    exit 1
fi
swiftc -O -wmo -parse-as-library -package-name hum -module-name KernelBench \
    Sources/HumCore/*.swift Sources/HumCore/*/*.swift Sources/HumCore/*/*/*.swift bench/kernel/main.swift -o "$out/kernel"
"$out/kernel"
