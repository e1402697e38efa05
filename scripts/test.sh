#!/usr/bin/env bash
# Builds hum and runs every test. The real-time audio tests play through ALSA `default` into a PulseAudio null
# sink that this script starts (and stops after); without it the run fails rather than skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pulse-null-sink.sh
if ! start_null_sink; then
    echo "error: PulseAudio with a null sink could not be started; the real-time audio tests need it" >&2
    exit 1
fi
trap stop_null_sink_daemon EXIT
export HUM_TEST_PULSE_SINK=testsink

# The house style first (seconds): 'make format' fixes what this reports.
swift format lint --strict --recursive --configuration .swift-format Sources Tests bench

# The commit `hum --version` names, in a gitignored Swift file (scripts/stamp-commit.sh says why).
scripts/stamp-commit.sh

# Arrows point down only: a target that imports one it does not declare in Package.swift fails the build
# (docs/architecture.md draws the targets).
swift build --build-tests --explicit-target-dependency-import-check error
export HUM_BIN="$PWD/.build/debug/hum"
# Everything but the real-time audio tests first, in parallel; then the real-time ones on their own, so the
# ledger's many-process tests do not compete with audio that must keep pace with the clock.
swift test --skip-build --skip 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd'
swift test --skip-build --filter 'PlaybackEndToEnd|FocusEndToEnd|TerminalEndToEnd'
