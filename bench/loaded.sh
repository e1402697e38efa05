#!/usr/bin/env bash
# Benchmark (not a test), run as `bench/playback.sh --loaded [SECONDS]`: the 8-track playback of bench/playback.sh
# for SECONDS (default 600) through ALSA `default` into a PulseAudio null sink (a native stream to the server;
# HUM_AUDIO=alsa plays it through ALSA's pulse plugin), with two `yes > /dev/null` running beside it the whole time,
# so the player's audio thread must keep its deadlines on a machine whose cores are busy. Prints hum's own count of
# the times the server ran dry (the `--verbose` end line), whether the device was lost, hum's CPU and peak RSS, and
# `uptime` before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
[ "$seconds" -ge 10 ] || { echo "bench/playback.sh --loaded: SECONDS is at least 10" >&2; exit 2; }
hum=$(realpath "${HUM_BIN:-.build/release/hum}")
dir=$(bench/make-inputs.sh)
. scripts/pulse-null-sink.sh
start_null_sink
out=/dev/shm/hum-bench-loaded
rm -rf "$out" && mkdir -p "$out"
# The last mix of this run goes to a scratch home, not yours; a runtime directory of its own: no other player.
export XDG_DATA_HOME=$out/data XDG_STATE_HOME=$out/state XDG_CONFIG_HOME=$out/config
pulse="unix:$XDG_RUNTIME_DIR/pulse/native"
runtime=$(mktemp -d /tmp/hum-bench-run.XXXXXX)
chmod 700 "$runtime"
load=()
cleanup() {
    for p in "${load[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$runtime"
    stop_null_sink_daemon
}
trap cleanup EXIT
tracks=("$dir"/t{0..7}.wav)
hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
"$hum" render "${hum_args[@]}" --duration 1s -o "$out/warm.wav" >/dev/null

for _ in 1 2; do
    yes > /dev/null &
    load+=($!)
done
sleep 5  # let the load average feel them
echo "before: $(uptime)"
XDG_RUNTIME_DIR=$runtime PULSE_SERVER=$pulse /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" \
    "$hum" play "${hum_args[@]}" --for "${seconds}s" --fade 0 --verbose 2> "$out/stderr.txt" || true
echo "after:  $(uptime)"
echo
echo "hum's stderr (--verbose):"
sed 's/^/  /' "$out/stderr.txt"
grep -v "^Command" "$out/time.txt" | awk '{
    printf "hum: %.0f s wall, CPU %.2f s (user %.2f, system %.2f), peak RSS %.1f MiB\n", $1, $2 + $3, $2, $3, $4 / 1024 }'
echo "hum: underruns: $(sed -n 's/^hum: audio: \([0-9]*\) underruns\{0,1\} in .*/\1/p' "$out/stderr.txt")"
