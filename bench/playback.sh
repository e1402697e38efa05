#!/usr/bin/env bash
# Benchmark (not a test): 60 s of real-time playback of 8 looped tracks through ALSA `default` into a PulseAudio
# null sink, for hum, for 8 `play … repeat` processes of sox, and for ffmpeg mixing live. Prints CPU time
# (user + system, all processes of each tool) as a share of one core over the run, and peak RSS.
# Usage: bench/playback.sh [SECONDS]   (default 60; needs a release build: make release)
#        bench/playback.sh --screens [SECONDS]: the same 8-track playback seen through each screen, in tmux at
#        80x24: the one-line screen of `hum play`, and the full screen (`hum ui`) attached to a player (`hum daemon`),
#        without and with focus rounds counting down. Prints the CPU of the screen's process and the player's, and
#        the wake-ups of each one's event loop (its main thread's voluntary context switches over the run).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --screens ]; then
    shift
    exec bench/screens.sh "$@"
fi
seconds=${1:-60}
hum=${HUM_BIN:-.build/release/hum}
dir=$(bench/make-inputs.sh)
. scripts/pulse-null-sink.sh
start_null_sink
trap stop_null_sink_daemon EXIT
tracks=("$dir"/t{0..7}.wav)
out=/dev/shm/hum-bench-out
mkdir -p "$out"

hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
# hum (its loudness cache is warmed first, as it would be after the first play of a user's files)
"$hum" render "${hum_args[@]}" --duration 1s -o "$out/warm.wav" >/dev/null
/usr/bin/time -f "hum %e %U %S %M" -o "$out/play-hum.txt" "$hum" play "${hum_args[@]}" --for "${seconds}s" --fade 0

# sox: one `play` per track, looping, all at once
: > "$out/play-sox.txt"
for t in "${tracks[@]}"; do
    /usr/bin/time -a -f "sox %e %U %S %M" -o "$out/play-sox.txt" timeout -s INT "$seconds" play -q "$t" repeat 9999 2>/dev/null &
done
wait

# ffmpeg: all tracks looped and mixed live to ALSA default
ff_inputs=(); for t in "${tracks[@]}"; do ff_inputs+=(-re -stream_loop -1 -i "$t"); done
/usr/bin/time -f "ffmpeg %e %U %S %M" -o "$out/play-ffmpeg.txt" ffmpeg -nostdin -loglevel error "${ff_inputs[@]}" \
    -filter_complex "amix=inputs=8:normalize=0" -t "$seconds" -ar 48000 -ac 2 -f alsa default || true

cat "$out"/play-{hum,sox,ffmpeg}.txt | grep -v "^Command" | awk -v s="$seconds" '
  { cpu[$1] += $3 + $4; if ($5 > rss[$1]) rss[$1] = $5; n[$1]++ }
  END {
    printf "%-7s %10s %12s %16s\n", "tool", "cpu s", "% of a core", "peak RSS MB (max)"
    split("hum sox ffmpeg", order, " ")
    for (i = 1; i <= 3; i++) { t = order[i]
      printf "%-7s %10.2f %11.2f%% %16.1f\n", t, cpu[t], 100 * cpu[t] / s, rss[t] / 1024 }
  }'
