#!/usr/bin/env bash
# Measures line coverage per target with the toolchain's llvm-cov: runs every test (the real-time ones through a
# PulseAudio null sink, as scripts/test.sh does) in an instrumented build of its own (.build/coverage, so the
# normal build is untouched), then prints a table of line and function coverage per target, for docs/COVERAGE.md.
# The binary the CLI tests run is the instrumented one too, so what the end-to-end tests exercise is counted.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pulse-null-sink.sh
start_null_sink || { echo "error: PulseAudio with a null sink could not be started" >&2; exit 1; }
trap stop_null_sink_daemon EXIT
export HUM_TEST_PULSE_SINK=testsink
scratch=.build/coverage
export LLVM_PROFILE_FILE="$PWD/$scratch/profiles/hum-%p-%m.profraw"
rm -rf "$scratch/profiles"
mkdir -p "$scratch/profiles"
swift build --build-tests --enable-code-coverage --scratch-path "$scratch"
bin=$(swift build --show-bin-path --enable-code-coverage --scratch-path "$scratch")
export HUM_BIN="$bin/hum"
swift test --skip-build --enable-code-coverage --scratch-path "$scratch" \
    --skip 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd' >/dev/null || true
swift test --skip-build --enable-code-coverage --scratch-path "$scratch" \
    --filter 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd' >/dev/null || true
llvm=$(dirname "$(command -v swift)")
"$llvm/llvm-profdata" merge -sparse "$scratch"/profiles/*.profraw "$bin"/codecov/*.profdata -o "$scratch/merged.profdata" 2>/dev/null ||
    "$llvm/llvm-profdata" merge -sparse "$scratch"/profiles/*.profraw -o "$scratch/merged.profdata"
"$llvm/llvm-cov" report "$bin/humPackageTests.xctest" -object "$bin/hum" -instr-profile "$scratch/merged.profdata" \
    -ignore-filename-regex '(\.build|Tests)/' >"$scratch/report.txt"
# One row per target: the sums of its files' lines and functions.
awk '
    /^Sources\// {
        split($1, parts, "/"); target = parts[2]
        # Columns: Regions Missed Cover Functions Missed Executed Lines Missed Cover ...
        fn[target] += $5; fnMissed[target] += $6; lines[target] += $8; linesMissed[target] += $9
    }
    END {
        printf "| target | lines | line coverage | functions | function coverage |\n| --- | --- | --- | --- | --- |\n"
        n = asorti(lines, names)
        for (i = 1; i <= n; i++) {
            t = names[i]
            printf "| %s | %d | %.1f %% | %d | %.1f %% |\n", t, lines[t], 100 * (lines[t] - linesMissed[t]) / lines[t], fn[t], 100 * (fn[t] - fnMissed[t]) / fn[t]
        }
    }' "$scratch/report.txt"
