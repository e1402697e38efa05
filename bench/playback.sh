#!/usr/bin/env bash
# Benchmark (not a test): SECONDS of real-time playback of 8 looped tracks into a PulseAudio null sink, for hum (the
# device `default`: a native stream to the server; HUM_AUDIO=alsa plays it through ALSA's pulse plugin), for 8
# `play … repeat` processes of sox and for ffmpeg mixing live (both through ALSA `default`), one after the other in
# one run. Prints for each tool:
#   - CPU time (user + system, all processes of the tool, loading included) and its share of one core;
#   - wake-ups a second: the voluntary context switches of every thread of every process of the tool (from
#     /proc/PID/task/*/status), counted over the steady part of the run (from 3 s after the start to 1 s before
#     the end, so loading and finishing are left out), in total and per thread (threads of the same name summed,
#     so sox's 8 processes show as one row per thread name);
#   - peak RSS: VmHWM of each process read 1 s before its end (sox: the largest of its 8 processes).
# Usage: bench/playback.sh [SECONDS]   (default 60, at least 10; needs a release build: make release)
#        hum's caches (loudness, and the loops it maps: $XDG_CACHE_HOME/hum) are warmed first by a 1 s render, as
#        after the first play of the same sounds. bench/playback.sh --cold [SECONDS]: hum plays with empty caches
#        instead (a fresh XDG_CACHE_HOME, no warming render): the first play ever, decoding and storing every loop.
#        bench/playback.sh --screens [SECONDS]: the same 8-track playback seen through each screen, in tmux at
#        80x24: the one-line screen of `hum play`, and the full screen (`hum ui`) attached to a player (`hum daemon`),
#        without and with focus rounds counting down. Prints the CPU of the screen's process and the player's, and
#        the wake-ups of each one's event loop (its main thread's voluntary context switches over the run).
#        bench/playback.sh --loaded [SECONDS]: hum alone plays the 8 tracks for SECONDS (default 600) beside two
#        `yes > /dev/null` (HUM_LOADED_IO=1: and a file-system load); prints the underruns hum counted and when (its
#        `--verbose` end line), its CPU and peak RSS, `uptime` before and after, and the CPU time a hypervisor took
#        from the machine (steal) over the run and around each underrun (bench/loaded.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --screens ]; then
    shift
    exec bench/screens.sh "$@"
fi
if [ "${1:-}" = --loaded ]; then
    shift
    exec bench/loaded.sh "$@"
fi
cold=
if [ "${1:-}" = --cold ]; then
    shift
    cold=$(mktemp -d)
fi
seconds=${1:-60}
[ "$seconds" -ge 10 ] || { echo "bench/playback.sh: SECONDS is at least 10" >&2; exit 2; }
hum=${HUM_BIN:-.build/release/hum}
dir=$(bench/make-inputs.sh)
. scripts/pulse-null-sink.sh
start_null_sink
trap 'stop_null_sink_daemon; [ -z "$cold" ] || rm -rf "$cold"' EXIT
tracks=("$dir"/t{0..7}.wav)
out=/dev/shm/hum-bench-out
rm -rf "$out" && mkdir -p "$out"

# descendants PID…: the processes below the given ones (children, grandchildren, …), one pid a line.
descendants() {
    local p c
    for p in "$@"; do
        for c in $(pgrep -P "$p" || true); do
            echo "$c"
            descendants "$c"
        done
    done
}

# threads PID…: one line per thread of each process: "pid tid name voluntary-switches".
threads() {
    local p t
    for p in "$@"; do
        for t in /proc/"$p"/task/*; do
            [ -r "$t/status" ] || continue
            awk -v p="$p" -v t="${t##*/}" '
                /^Name:/ { $1 = ""; name = substr($0, 2); gsub(/ /, "_", name) }
                /^voluntary_ctxt_switches/ { print p, t, name, $2 }' "$t/status" 2>/dev/null || true
        done
    done
}

# peak PID…: the largest VmHWM of the given processes, in kB.
peak() {
    local p
    for p in "$@"; do awk '/^VmHWM/ { print $2 }' "/proc/$p/status" 2>/dev/null || true; done |
        sort -n | tail -1
}

# watch TOOL COMM PID…: samples the threads of TOOL's processes named COMM (below the given pids) 3 s after the
# start and 1 s before the end, and their peak RSS then.
watch() {
    local tool=$1 comm=$2 procs
    shift 2
    sleep 3
    procs=$(descendants "$@" | while read -r p; do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$comm" ] && echo "$p"
    done || true)
    # shellcheck disable=SC2086
    threads $procs > "$out/$tool-before.txt"
    date +%s.%N > "$out/$tool-t0"
    sleep $((seconds - 4))
    # shellcheck disable=SC2086
    threads $procs > "$out/$tool-after.txt"
    date +%s.%N > "$out/$tool-t1"
    # shellcheck disable=SC2086
    echo "$tool $(peak $procs)" > "$out/$tool-peak.txt"
}

hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
# hum (its caches are warmed first, as they would be after the first play of the same files; --cold: empty)
if [ -n "$cold" ]; then
    export XDG_CACHE_HOME=$cold
    echo "hum plays with empty caches (XDG_CACHE_HOME=$cold)"
else
    "$hum" render "${hum_args[@]}" --duration 1s -o "$out/warm.wav" >/dev/null
fi
/usr/bin/time -f "hum %e %U %S %M" -o "$out/play-hum.txt" "$hum" play "${hum_args[@]}" --for "${seconds}s" --fade 0 &
watch hum "$(basename "$hum" | cut -c1-15)" $!
wait

# sox: one `play` per track, looping, all at once
: > "$out/play-sox.txt"
pids=()
for t in "${tracks[@]}"; do
    /usr/bin/time -a -f "sox %e %U %S %M" -o "$out/play-sox.txt" timeout -s INT "$seconds" play -q "$t" repeat 9999 2>/dev/null &
    pids+=($!)
done
watch sox play "${pids[@]}"
wait

# ffmpeg: all tracks looped and mixed live to ALSA default
ff_inputs=(); for t in "${tracks[@]}"; do ff_inputs+=(-re -stream_loop -1 -i "$t"); done
/usr/bin/time -f "ffmpeg %e %U %S %M" -o "$out/play-ffmpeg.txt" ffmpeg -nostdin -loglevel error "${ff_inputs[@]}" \
    -filter_complex "amix=inputs=8:normalize=0" -t "$seconds" -ar 48000 -ac 2 -f alsa default &
watch ffmpeg ffmpeg $!
wait || true

# The wake-ups of each tool's threads over its steady window: per thread name, and in total.
for tool in hum sox ffmpeg; do
    span=$(echo "$(cat "$out/$tool-t1") - $(cat "$out/$tool-t0")" | bc -l)
    awk -v tool="$tool" -v span="$span" '
        FNR == NR { before[$1 " " $2] = $4; next }
        ($1 " " $2) in before { w[$3] += $4 - before[$1 " " $2]; n[$3]++ }
        END { for (name in w) printf "%s %s %d %.1f\n", tool, name, n[name], w[name] / span }
    ' "$out/$tool-before.txt" "$out/$tool-after.txt"
done | sort -k1,1 -k4,4nr > "$out/wakeups.txt"

cat "$out"/play-{hum,sox,ffmpeg}.txt | grep -v "^Command" > "$out/cpu.txt"
cat "$out"/{hum,sox,ffmpeg}-peak.txt > "$out/peak.txt"
awk -v s="$seconds" '
  FILENAME ~ /cpu/ { cpu[$1] += $3 + $4; next }
  FILENAME ~ /peak/ { rss[$1] = $2; next }
  { wake[$1] += $4 }
  END {
    printf "%-7s %8s %12s %12s %14s\n", "tool", "cpu s", "% of a core", "wake-ups/s", "peak RSS MiB"
    split("hum sox ffmpeg", order, " ")
    for (i = 1; i <= 3; i++) { t = order[i]
      printf "%-7s %8.2f %11.2f%% %12.1f %14.1f\n", t, cpu[t], 100 * cpu[t] / s, wake[t], rss[t] / 1024 }
  }' "$out/cpu.txt" "$out/peak.txt" "$out/wakeups.txt"
echo
echo "wake-ups a second per thread (threads of one name summed over the tool's processes):"
awk '{ printf "  %-7s %-16s %3d thread(s) %8.1f/s\n", $1, $2, $3, $4 }' "$out/wakeups.txt"
