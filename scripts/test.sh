#!/usr/bin/env bash
# Builds hum and runs every test. Starts a PulseAudio daemon with a null sink named `testsink` (paced in real
# time; ALSA `default` reaches it through libasound2-plugins) for the real-time audio tests, and stops it after.
set -euo pipefail
cd "$(dirname "$0")/.."

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/hum-runtime.XXXXXX)}"
chmod 700 "$XDG_RUNTIME_DIR"
started_pulse=0
if command -v pulseaudio >/dev/null; then
    if ! pactl info >/dev/null 2>&1; then
        pulseaudio -n --daemonize=yes --exit-idle-time=-1 --system=no --disallow-exit \
            --load="module-null-sink sink_name=testsink format=float32le rate=48000 channels=2" \
            --load="module-native-protocol-unix" --log-target=stderr 2>/dev/null || true
        for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
        started_pulse=1
    fi
    if pactl info >/dev/null 2>&1; then
        pactl list short sinks | grep -q testsink || pactl load-module module-null-sink sink_name=testsink format=float32le rate=48000 channels=2 >/dev/null
        pactl set-default-sink testsink
        export HUM_TEST_PULSE_SINK=testsink
    else
        echo "warning: PulseAudio did not start; the real-time audio tests will fail" >&2
    fi
fi
cleanup() { if [ "$started_pulse" = 1 ]; then pulseaudio --kill 2>/dev/null || true; fi; }
trap cleanup EXIT

swift build --build-tests
export HUM_BIN="$PWD/.build/debug/hum"
swift test --skip-build
