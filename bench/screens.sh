#!/usr/bin/env bash
# Benchmark (not a test), run as `bench/playback.sh --screens [SECONDS]`: what each screen costs while the 8-track
# playback of bench/playback.sh plays for SECONDS (default 60) through ALSA `default` into a PulseAudio null sink.
#   line:  `hum play … --for Ns --fade 0` in tmux (80x24): player and one-line screen in one process.
#   full:  `hum daemon … --for Ns --fade 0`, with `hum ui` attached in tmux (80x24): the full screen's process apart.
#   focus: the same, with focus rounds counting down (`hum focus --no-sound` is not used: the rounds run on the
#          playing mix, started off a terminal so they go to the player), so the clock ticks every second.
#   alone: `hum daemon … --for Ns --fade 0` with no screen attached: what `full` adds to the player is read against it.
# For each: CPU (user + system) of each process over the run, and the wake-ups of its event loop: the voluntary
# context switches of its main thread (the loop's thread), read from /proc just before the player ends; peak RSS
# (VmHWM, /usr/bin/time's maximum); and the memory each process holds then (/proc/PID/smaps_rollup): RSS, PSS (its
# shared pages divided among the processes that map them) and private (the pages only it holds: what it adds).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
hum=$(realpath "${HUM_BIN:-.build/release/hum}")
dir=$(bench/make-inputs.sh)
. scripts/pulse-null-sink.sh
start_null_sink
out=/dev/shm/hum-bench-screens
rm -rf "$out" && mkdir -p "$out"
# The rounds and the last mix of these runs go to a scratch home, not yours.
export XDG_DATA_HOME=$out/data XDG_STATE_HOME=$out/state XDG_CONFIG_HOME=$out/config
session=hum-bench-$$
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    stop_null_sink_daemon
}
trap cleanup EXIT
tracks=("$dir"/t{0..7}.wav)
hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
"$hum" render "${hum_args[@]}" --duration 1s -o "$out/warm.wav" >/dev/null
pulse="unix:$XDG_RUNTIME_DIR/pulse/native"

# switches PID: the voluntary context switches of the process's main thread so far.
switches() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/task/$1/status" 2>/dev/null || echo 0; }
# rollup NAME PID: "NAME rss pss private" in kB, from /proc/PID/smaps_rollup.
rollup() {
    awk -v n="$1" '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } /^Private_(Clean|Dirty):/ { v += $2 }
        END { print n, r + 0, p + 0, v + 0 }' "/proc/$2/smaps_rollup" 2>/dev/null || echo "$1 0 0 0"
}
# pidfile FILE: waits for a pid written to FILE and prints it.
pidfile() { for _ in $(seq 100); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.1; done; echo 0; }

# A runtime directory of its own per run: its own control socket, no other player.
runtime() { local r; r=$(mktemp -d /tmp/hum-bench-run.XXXXXX); chmod 700 "$r"; echo "$r"; }

line() {
    local r; r=$(runtime)
    tmux new-session -d -s "$session" -x 80 -y 24 \
        "env XDG_RUNTIME_DIR=$r PULSE_SERVER=$pulse /usr/bin/time -f 'line-screen %e %U %S %M' -o $out/line.txt \
         bash -c 'echo \$\$ > $out/line.pid; exec $hum play ${hum_args[*]} --for ${seconds}s --fade 0'; sleep 1"
    local pid; pid=$(pidfile "$out/line.pid")
    sleep $((seconds - 2))
    echo "line-screen $(switches "$pid")" >> "$out/switches.txt"
    rollup line-screen "$pid" >> "$out/rollup.txt"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    tmux kill-session -t "$session" 2>/dev/null || true
    rm -rf "$r"
}

full() {
    local name=$1 focus=$2 attach=${3:-yes} r; r=$(runtime)
    XDG_RUNTIME_DIR=$r PULSE_SERVER=$pulse /usr/bin/time -f "$name-player %e %U %S %M" -o "$out/$name-player.txt" \
        "$hum" daemon "${hum_args[@]}" --for "${seconds}s" --fade 0 >/dev/null 2>&1 &
    local timer=$! player=0
    # /usr/bin/time forks the player: its child is the process to read.
    for _ in $(seq 50); do player=$(pgrep -P "$timer" || true); [ -n "$player" ] && break; sleep 0.1; done
    for _ in $(seq 100); do XDG_RUNTIME_DIR=$r "$hum" status 2>/dev/null | grep -q '^playing' && break; sleep 0.1; done
    if [ "$focus" = yes ]; then
        XDG_RUNTIME_DIR=$r "$hum" focus --focus 25m --quiet </dev/null >/dev/null 2>&1
    fi
    local ui=0
    if [ "$attach" = yes ]; then
        tmux new-session -d -s "$session" -x 80 -y 24 \
            "env XDG_RUNTIME_DIR=$r /usr/bin/time -f '$name-screen %e %U %S %M' -o $out/$name-screen.txt \
             bash -c 'echo \$\$ > $out/$name.pid; exec $hum ui'; sleep 1"
        ui=$(pidfile "$out/$name.pid")
    fi
    sleep $((seconds - 3))
    if [ "$attach" = yes ]; then
        echo "$name-screen $(switches "$ui")" >> "$out/switches.txt"
        rollup "$name-screen" "$ui" >> "$out/rollup.txt"
        cp "/proc/$ui/smaps" "$out/$name-screen.smaps" 2>/dev/null || true
    fi
    echo "$name-player $(switches "$player")" >> "$out/switches.txt"
    rollup "$name-player" "$player" >> "$out/rollup.txt"
    wait "$timer" || true
    while [ "$ui" != 0 ] && kill -0 "$ui" 2>/dev/null; do sleep 0.2; done
    tmux kill-session -t "$session" 2>/dev/null || true
    rm -rf "$r"
}

line
full alone no no
full full no
full focus yes

# The players' pids are the children of their /usr/bin/time; the screens' pids come from their files.
cat "$out"/line.txt "$out"/alone-player.txt "$out"/{full,focus}-{player,screen}.txt | grep -v "^Command" |
    sort -k1,1 > "$out/cpu.txt"
sort -k1,1 "$out/switches.txt" > "$out/wake.txt"
sort -k1,1 "$out/rollup.txt" > "$out/held.txt"
join "$out/cpu.txt" "$out/wake.txt" | join - "$out/held.txt" | awk -v s="$seconds" '
  BEGIN { printf "%-14s %7s %11s %10s %9s %8s %8s %9s\n", "process", "cpu s", "% of a core", "wakes/min",
          "peak MiB", "RSS MiB", "PSS MiB", "priv MiB" }
  { printf "%-14s %7.2f %10.2f%% %10.0f %9.1f %8.1f %8.1f %9.1f\n", $1, $3 + $4, 100 * ($3 + $4) / s,
          $6 * 60 / s, $5 / 1024, $7 / 1024, $8 / 1024, $9 / 1024 }'
echo "(the full screen's /proc/PID/smaps at the end: $out/full-screen.smaps)"
