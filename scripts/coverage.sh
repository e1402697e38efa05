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
swift build --build-tests --enable-code-coverage --scratch-path "$scratch"
bin=$(swift build --show-bin-path --enable-code-coverage --scratch-path "$scratch")
# swift test sets LLVM_PROFILE_FILE to a pattern in $bin/codecov with the pid in it; the hum processes the CLI
# tests start inherit it, so their profiles land there too.
# Each swift test run empties $bin/codecov first, so each phase's profiles are moved aside before the next.
profiles="$scratch/profiles"
rm -rf "$bin/codecov" "$profiles"
mkdir -p "$profiles"
export HUM_BIN="$bin/hum"
swift test --skip-build --enable-code-coverage --scratch-path "$scratch" \
    --skip 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd' >"$scratch/tests.log" 2>&1 || true
mv "$bin/codecov" "$profiles/1"
swift test --skip-build --enable-code-coverage --scratch-path "$scratch" \
    --filter 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd' >"$scratch/tests-real-time.log" 2>&1 || true
mv "$bin/codecov" "$profiles/2"
grep -h '^✘ Test run\|^✔ Test run' "$scratch/tests.log" "$scratch/tests-real-time.log" >&2 || true
llvm=$(dirname "$(command -v swift)")
# One merge over every profile (thousands: one per hum process the tests start), from a list: through xargs, each
# batch would overwrite the output of the one before.
find "$profiles" -name '*.profraw' >"$scratch/profiles.txt"
"$llvm/llvm-profdata" merge -sparse -f "$scratch/profiles.txt" -o "$scratch/merged.profdata"
"$llvm/llvm-cov" report "$bin/humPackageTests.xctest" -object "$bin/hum" -instr-profile "$scratch/merged.profdata" \
    -ignore-filename-regex '(\.build|Tests|HumTestSupport)/' >"$scratch/report.txt"
# One row per target: the sums of its files' lines and functions (columns of llvm-cov report: regions, missed,
# cover, functions, missed, executed, lines, missed, cover, ...).
echo "| target | lines | line coverage | functions | function coverage |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk '$1 ~ /\.swift$/ {
        split($1, parts, "/"); t = parts[1]
        fn[t] += $5; fnMissed[t] += $6; lines[t] += $8; linesMissed[t] += $9
    }
    END {
        for (t in lines) {
            printf "| %s | %d | %.1f %% | %d | %.1f %% |\n", t, lines[t], 100 * (lines[t] - linesMissed[t]) / lines[t],
                fn[t], 100 * (fn[t] - fnMissed[t]) / fn[t]
        }
    }' "$scratch/report.txt" | sort
grep '^TOTAL' "$scratch/report.txt" | awk '{ printf "| all | %d | %.1f %% | %d | %.1f %% |\n", $8, 100 * ($8 - $9) / $8, $5, 100 * ($5 - $6) / $5 }'
