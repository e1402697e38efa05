#!/usr/bin/env bash
# Benchmark (not a test): what the desktop's controls cost a playing hum. The playback of bench/playback.sh (8 looped
# tracks for 60 s through ALSA `default` into a PulseAudio null sink), run four ways: with no session bus; on a
# private session bus (hum publishes itself as an MPRIS player) with no client; with `playerctl --follow` attached
# (as a status bar or a desktop panel follows a player: signals only); and with a client that reads Position every
# second as well (the most a panel's progress bar asks). Prints hum's CPU time (user + system) as a share of one core
# over the run, and its peak RSS.
# Usage: bench/mpris.sh [SECONDS]   (default 60; needs a release build: make release)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
hum=$(realpath "${HUM_BIN:-.build/release/hum}")
dir=$(bench/make-inputs.sh)
. scripts/pulse-null-sink.sh
start_null_sink
out=/dev/shm/hum-bench-mpris
rm -rf "$out" && mkdir -p "$out"
bus_pid=
cleanup() {
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
    stop_null_sink_daemon
}
trap cleanup EXIT
cat > "$out/bus.conf" <<CONF
<busconfig>
  <type>session</type>
  <listen>unix:path=$out/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
dbus-daemon --config-file="$out/bus.conf" --nofork 2>/dev/null &
bus_pid=$!
for _ in $(seq 50); do [ -S "$out/bus" ] && break; sleep 0.1; done
bus="unix:path=$out/bus"

tracks=("$dir"/t{0..7}.wav)
hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
"$hum" render "${hum_args[@]}" --duration 1s -o "$out/warm.wav" >/dev/null

# play NAME BUS-ADDRESS CLIENT: hum for $seconds, with CLIENT (none, follow, position) started once it plays.
play() {
    local name=$1 address=$2 client=$3
    # A runtime directory of its own: no bus there, no other player's control socket.
    local runtime; runtime=$(mktemp -d /tmp/hum-bench-run.XXXXXX)
    env -u DBUS_SESSION_BUS_ADDRESS ${address:+DBUS_SESSION_BUS_ADDRESS=$address} XDG_RUNTIME_DIR="$runtime" \
        PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse/native" \
        /usr/bin/time -f "$name %e %U %S %M" -o "$out/$name.txt" \
        "$hum" play "${hum_args[@]}" --for "${seconds}s" --fade 0 &
    local player=$!
    local pids=()
    if [ "$client" != none ]; then
        for _ in $(seq 100); do
            DBUS_SESSION_BUS_ADDRESS=$address timeout 2 playerctl -p hum status >/dev/null 2>&1 && break
            sleep 0.1
        done
        DBUS_SESSION_BUS_ADDRESS=$address playerctl -p hum --follow metadata >/dev/null 2>&1 &
        pids+=($!)
        if [ "$client" = position ]; then
            (while sleep 1; do DBUS_SESSION_BUS_ADDRESS=$address timeout 2 playerctl -p hum position >/dev/null 2>&1; done) &
            pids+=($!)
        fi
    fi
    wait "$player" || true
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$runtime"
}

play no-bus "" none
play bus "$bus" none
play follow "$bus" follow
play position "$bus" position

cat "$out"/{no-bus,bus,follow,position}.txt | grep -v "^Command" | awk -v s="$seconds" '
  BEGIN { printf "%-9s %8s %12s %12s\n", "hum", "cpu s", "% of a core", "peak RSS MB" }
  { printf "%-9s %8.2f %11.2f%% %12.1f\n", $1, $3 + $4, 100 * ($3 + $4) / s, $5 / 1024 }'
