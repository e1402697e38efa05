#!/usr/bin/env bash
# Benchmark (not a test), run as `bench/playback.sh --loaded [SECONDS]`: the 8-track playback of bench/playback.sh
# for SECONDS (default 600) through ALSA `default` into a PulseAudio null sink (a native stream to the server;
# HUM_AUDIO=alsa plays it through ALSA's pulse plugin), with two `yes > /dev/null` running beside it the whole time,
# so the player's audio thread must keep its deadlines on a machine whose cores are busy. Prints hum's own count of
# the times the server ran dry and when (the `--verbose` end line, times from the start of the audio), whether the
# device was lost, hum's CPU and peak RSS, `uptime` before and after, how the server's threads are scheduled (and
# the nice of the server's autogroup, /proc/PID/autogroup), and
# the CPU time the hypervisor took from this machine while it wanted to run (steal, from /proc/stat: on a virtual
# machine, every CPU of it can stop for tens of milliseconds at once, whatever runs at real-time priority inside;
# docs/PERFORMANCE.md), in all, at its worst second, and around each underrun.
#   HUM_LOADED_IO=1  adds a file-system load beside the two `yes` (copies of /usr/include with `sync`, `find /`, and
#                    200 MB written with fsync, in a loop, in a scratch folder under TMPDIR): what made a virtual
#                    machine's steal, and the underruns, several times larger in docs/PERFORMANCE.md.
#   HUM_LOADED_SERVER_RT=1  puts the server's main thread at SCHED_RR 5, as its I/O thread is (chrt; needs the
#                    privilege). Not how a desktop runs it: that thread, which carries every request and every write
#                    of a client, waited 35-80 ms for a CPU in docs/PERFORMANCE.md's runs; this leaves only the
#                    client and the machine to be late.
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
scratch=""
load=()
cleanup() {
    for p in "${load[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$runtime"
    [ -z "$scratch" ] || rm -rf "$scratch"
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
if [ "${HUM_LOADED_IO:-0}" = 1 ]; then
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/hum-bench-io.XXXXXX")
    # Each loop in a session of its own, so the cleanup ends it and what it runs (kill -- -PID).
    setsid bash -c "while :; do cp -r /usr/include '$scratch/copy'; sync; rm -rf '$scratch/copy'; done" \
        >/dev/null 2>&1 &
    load+=($!)
    setsid bash -c "while :; do find / -xdev >/dev/null 2>&1; dd if=/dev/zero of='$scratch/dd' bs=1M count=200 \
        conv=fsync 2>/dev/null; done" >/dev/null 2>&1 &
    load+=($!)
fi
sleep 5  # let the load average feel them
echo "before: $(uptime)"
[ "${HUM_LOADED_IO:-0}" = 1 ] && echo "load: two \`yes\` and the file-system load (HUM_LOADED_IO=1)" ||
    echo "load: two \`yes\`"
server=$(cat "$XDG_RUNTIME_DIR/pulse/pid" 2>/dev/null || pgrep -o -x pulseaudio || true)
if [ "${HUM_LOADED_SERVER_RT:-0}" = 1 ]; then
    [ -n "$server" ] && chrt -r -p 5 "$server" ||
        { echo "bench/playback.sh --loaded: cannot put the server's main thread at SCHED_RR" >&2; exit 1; }
    echo "the server's main thread: SCHED_RR 5 (HUM_LOADED_SERVER_RT=1, not a desktop's setting)"
fi
if [ -n "$server" ]; then
    echo "the sound server's threads (class, real-time priority, nice):"
    ps -L -o comm=,cls=,rtprio=,ni= -p "$server" | awk '{ printf "  %-16s %s %s %s\n", $1, $2, $3, $4 }'
    echo "  its autogroup: $(cat "/proc/$server/autogroup" 2>/dev/null || echo none)"
fi
tick=$(getconf CLK_TCK)
# Steal each second: the 8th value of /proc/stat's `cpu` line, all CPUs summed, in clock ticks.
start=$(date +%s.%N)
(while :; do echo "$(date +%s.%N) $(awk '/^cpu /{ print $9 }' /proc/stat)"; sleep 1; done) > "$out/steal.txt" &
sampler=$!
XDG_RUNTIME_DIR=$runtime PULSE_SERVER=$pulse /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" \
    "$hum" play "${hum_args[@]}" --for "${seconds}s" --fade 0 --verbose 2> "$out/stderr.txt" || true
kill "$sampler" 2>/dev/null || true
echo "after:  $(uptime)"
echo
echo "hum's stderr (--verbose):"
sed 's/^/  /' "$out/stderr.txt"
grep -v "^Command" "$out/time.txt" | awk '{
    printf "hum: %.0f s wall, CPU %.2f s (user %.2f, system %.2f), peak RSS %.1f MiB\n", $1, $2 + $3, $2, $3, $4 / 1024 }'
echo "hum: underruns: $(sed -n 's/^hum: audio: \([0-9]*\) underruns\{0,1\} in .*/\1/p' "$out/stderr.txt")"
# The underruns' times (mm:ss or h:mm:ss from the start of the audio) in seconds, one a line.
sed -n 's/^hum: audio: [0-9]* underruns\{0,1\} in [0-9:]* (.*at \(.*\))$/\1/p' "$out/stderr.txt" | tr ',' '\n' |
    awk -F: 'NF { s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' > "$out/underruns.txt"
awk -v start="$start" -v tick="$tick" -v cpus="$(nproc)" '
    FNR == NR { at[++n] = $1 - start; ticks[n] = $2; next }
    { u[++m] = $1 }
    END {
        if (n < 2) { print "steal: not sampled"; exit }
        worst = 0
        for (i = 2; i <= n; i++) {
            ms[i] = (ticks[i] - ticks[i - 1]) * 1000 / tick
            if (ms[i] > worst) { worst = ms[i]; when = at[i] }
        }
        total = (ticks[n] - ticks[1]) / tick
        printf "steal: %.2f s of the %d CPUs over %.0f s (%.2f %%), the most in one second %.0f ms (at %d:%02d)\n",
            total, cpus, at[n] - at[1], 100 * total / (cpus * (at[n] - at[1])), worst, int(when / 60), when % 60
        for (k = 1; k <= m; k++) {
            near = 0
            for (i = 2; i <= n; i++) if (at[i] >= u[k] - 1 && at[i - 1] <= u[k] + 1) near += ms[i]
            printf "  underrun at %d:%02d: steal %.0f ms in the 3 s around it\n", int(u[k] / 60), u[k] % 60, near
        }
    }' "$out/steal.txt" "$out/underruns.txt"
