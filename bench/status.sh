#!/usr/bin/env bash
# Benchmark (not a test): what `hum status` and `hum ctl` cost, for status bars and key bindings.
#  1. `hum status --json`, median of 50 runs (hyperfine when installed, else a loop of our own), with no player,
#     then against a running player; each without a database and with one (the bank is read through the ledger).
#  2. `hum ctl master N -q` (a whole process), median of 50 runs against the player.
#  3. How fast the player applies a request: 500 `master` requests over one connection, each timed from the
#     request written to the reply read (the reply is sent after the change is applied), median, p99 and max.
#  4. `hum status --follow` over SECONDS (default 60): CPU time and wake-ups (voluntary context switches) of a
#     follower with no player, of one showing minutes and of one showing seconds (Waybar's default), while the
#     player runs focus rounds; then the player's own CPU and wake-ups over SECONDS more, with those followers
#     subscribed and one `hum ctl master N -q` a second.
# The player of 1–4 is `hum focus --no-sound` (the timer alone: what is measured is the status path, not audio);
#  5. then, with PulseAudio installed, the CPU of `hum play` with sound, alone and steered (see below).
# Wall times depend on how busy the machine is; the CPU column (user + system, the mean of hyperfine's runs) much
# less so.
# Usage: bench/status.sh [SECONDS]   (needs a release build: make release; HUM_BIN to use another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
hum=$(realpath "${HUM_BIN:-.build/release/hum}")
base=$(mktemp -d /dev/shm/hum-bench-status.XXXXXX)
chmod 700 "$base"
export XDG_RUNTIME_DIR=$base/run XDG_DATA_HOME=$base/data XDG_STATE_HOME=$base/state XDG_CONFIG_HOME=$base/config
mkdir -m 700 "$XDG_RUNTIME_DIR"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$base"
}
trap cleanup EXIT

# The median wall time of 50 runs of a command, in ms.
median_ms() {
    if command -v hyperfine >/dev/null; then
        hyperfine -N --warmup 5 --runs 50 --export-json "$base/h.json" "$*" >/dev/null 2>&1
        python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]
print("%10.2f %10.2f" % (r["median"] * 1000, (r["user"] + r["system"]) * 1000))' "$base/h.json"
    else
        for _ in 1 2 3 4 5; do "$@" >/dev/null; done
        for _ in $(seq 50); do
            start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N)
            echo $(((end - start) / 1000))
        done | sort -n | awk '{ v[NR] = $1 } END { printf "%10.2f %10s\n", (v[25] + v[26]) / 2000, "-" }'
    fi
}

wait_for_player() {
    for _ in $(seq 100); do
        [ "$("$hum" status --template '{pid}')" = "$1" ] && return 0
        sleep 0.05
    done
    echo "the player did not answer" >&2
    exit 1
}

# CPU seconds (user + system) and voluntary context switches of a process so far.
cpu_of() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
wakes_of() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }

echo "hum status: $hum ($(command -v hyperfine >/dev/null && hyperfine --version || echo 'a shell loop'))"
printf '%-58s %10s %10s\n' "command" "median ms" "CPU ms"
printf '%-58s %s\n' "hum status --json, no player, no database" "$(median_ms "$hum" status --json)"
[ -e "$XDG_DATA_HOME/hum/hum.db" ] && { echo "hum status created a database" >&2; exit 1; }
"$hum" ledger adjust +42m --reason bench >/dev/null
printf '%-58s %s\n' "hum status --json, no player, a database" "$(median_ms "$hum" status --json)"

"$hum" focus --no-sound --focus 25m --short-break 5m --rounds 4 >/dev/null 2>&1 &
player=$!
pids+=("$player")
wait_for_player "$player"
printf '%-58s %s\n' "hum status --json, a player, a database" "$(median_ms "$hum" status --json)"
printf '%-58s %s\n' "hum status (the line), a player, a database" "$(median_ms "$hum" status)"
printf '%-58s %s\n' "hum status --waybar, a player, a database" "$(median_ms "$hum" status --waybar)"
printf '%-58s %s\n' "hum ctl master 60 -q, a player, a database" "$(median_ms "$hum" ctl master 60 -q)"
mv "$XDG_DATA_HOME/hum" "$XDG_DATA_HOME/hum-away"
printf '%-58s %s\n' "hum status --json, a player, no database" "$(median_ms "$hum" status --json)"
mv "$XDG_DATA_HOME/hum-away" "$XDG_DATA_HOME/hum"

echo
echo "a request applied by the player (500 'master' requests on one connection, request to reply):"
python3 - "$XDG_RUNTIME_DIR/hum/control.sock" <<'EOF'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
times = []
for i in range(500):
    start = time.perf_counter()
    f.write(json.dumps({"v": 1, "id": i, "cmd": "master", "volume": i % 101}) + "\n")
    f.flush()
    reply = json.loads(f.readline())
    times.append((time.perf_counter() - start) * 1000)
    assert reply["ok"] and reply["id"] == i and reply["status"]["mix"]["master"] == i % 101, reply
times.sort()
print("  median %.3f ms, p99 %.3f ms, max %.3f ms" % (times[250], times[494], times[-1]))
EOF

echo
echo "hum status --follow for ${seconds}s (CPU seconds, voluntary context switches, lines printed):"
mkdir -m 700 "$base/other"
XDG_RUNTIME_DIR=$base/other "$hum" status --follow >"$base/none.out" 2>&1 &
none=$!
pids+=("$none")
"$hum" status --follow --waybar >"$base/waybar.out" 2>&1 &
waybar=$!
pids+=("$waybar")
"$hum" status --follow --template '{phase} {remaining_minutes} min' >"$base/minutes.out" 2>&1 &
minutes=$!
pids+=("$minutes")
"$hum" status --follow --json >"$base/json.out" 2>&1 &
json=$!
pids+=("$json")
sleep 1
declare -A cpu0 wakes0
for p in $none $waybar $minutes $json; do cpu0[$p]=$(cpu_of "$p"); wakes0[$p]=$(wakes_of "$p"); done
sleep "$seconds"
report() {
    printf '  %-56s %6.2f s %6d %6d\n' "$1" "$(awk -v a="$(cpu_of "$2")" -v b="${cpu0[$2]}" 'BEGIN { print a - b }')" \
        "$(($(wakes_of "$2") - ${wakes0[$2]}))" "$(wc -l <"$3")"
}
report "no player (waiting on inotify)" "$none" "$base/none.out"
report "--template '{phase} {remaining_minutes} min' (minutes)" "$minutes" "$base/minutes.out"
report "--waybar (text in seconds, percentage)" "$waybar" "$base/waybar.out"
report "--json (changes only)" "$json" "$base/json.out"

echo
echo "the player for ${seconds}s with those followers subscribed and one 'hum ctl master N -q' a second:"
for p in $player $json; do cpu0[$p]=$(cpu_of "$p"); wakes0[$p]=$(wakes_of "$p"); done
: >"$base/json.out"
for i in $(seq "$seconds"); do
    "$hum" ctl master $((i % 101)) -q
    sleep 1
done
report "the player (hum focus --no-sound)" "$player" /dev/null
report "its --json follower" "$json" "$base/json.out"

# 5. The player with sound: `hum play` of 8 tracks through a PulseAudio null sink for SECONDS (as bench/playback.sh
#    plays them), alone, then with a --follow subscriber and one `hum ctl master N -q` a second. Skipped without
#    PulseAudio, or with SKIP_AUDIO=1.
if [ "${SKIP_AUDIO:-0}" = 1 ] || ! command -v pulseaudio >/dev/null; then exit 0; fi
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
. scripts/pulse-null-sink.sh
start_null_sink
trap 'stop_null_sink_daemon; cleanup' EXIT
dir=$(bench/make-inputs.sh)
play_args=()
for t in "$dir"/t{0..7}.wav; do play_args+=("$t=50"); done
"$hum" render "${play_args[@]}" --for 1s -o "$base/warm.wav" >/dev/null
echo
echo "hum play of 8 tracks into a PulseAudio null sink for ${seconds}s (CPU seconds of the player, loading included):"
/usr/bin/time -f "%U %S" -o "$base/alone.txt" "$hum" play "${play_args[@]}" --for "${seconds}s" --fade 0 >/dev/null 2>&1
/usr/bin/time -f "%U %S" -o "$base/steered.txt" "$hum" play "${play_args[@]}" --for "${seconds}s" --fade 0 \
    >/dev/null 2>&1 &
steered=$!
for _ in $(seq 100); do "$hum" status --template '{pid}' | grep -q . && break; sleep 0.05; done
"$hum" status --follow --json >"$base/steered-follow.out" 2>&1 &
pids+=("$!")
i=0
while kill -0 "$steered" 2>/dev/null; do
    "$hum" ctl master $((50 + i % 50)) -q 2>/dev/null || true
    i=$((i + 1))
    sleep 1
done
wait "$steered" || true
awk '{ printf "  %-56s %6.2f s\n", "alone", $1 + $2 }' "$base/alone.txt"
awk -v n="$i" '{ printf "  %-56s %6.2f s\n", "with a --follow subscriber and " n " hum ctl (one a second)", $1 + $2 }' \
    "$base/steered.txt"
