#!/usr/bin/env bash
# Benchmark (not a test) of HumCore's hot loops, built straight from the sources with swiftc -O: the mixing kernel
# (16 loops for 5 minutes, best of 5), and LoopBuffer.quantize checked against the plain conversion it replaces for
# every float in [-1.02, 1.02] (and timed). Usage: bench/kernel.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -wmo -parse-as-library -module-name KernelBench \
    Sources/HumCore/*.swift Sources/HumCore/*/*.swift Sources/HumCore/*/*/*.swift bench/kernel/main.swift -o "$out/kernel"
"$out/kernel"
