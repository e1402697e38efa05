#!/usr/bin/env bash
# Benchmark (not a test): the same work for hum, ffmpeg and sox, in one run — 16 looped tracks (30 s loops at
# 44.1 and 48 kHz, mono and stereo) mixed for 5 minutes into a 48 kHz 16-bit stereo WAV under /dev/shm.
# Prints wall time, CPU time (user + system) and peak RSS of each, and the ratios against hum.
# Usage: bench/render.sh [RUNS]   (best of RUNS, default 3; needs a release build: make release)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
hum=${HUM_BIN:-.build/release/hum}
dir=$(bench/make-inputs.sh)
out=/dev/shm/hum-bench-out
mkdir -p "$out"
tracks=("$dir"/t{0..15}.wav)

measure() { # name, command...: best wall time of $runs, with its CPU and RSS
  local name=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    local line
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>&1
    line=$(tail -1 "$out/time.txt")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best=$line; fi
  done
  echo "$name $best"
}

hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
ff_inputs=(); for t in "${tracks[@]}"; do ff_inputs+=(-stream_loop -1 -i "$t"); done
sox_inputs=(); for t in "${tracks[@]}"; do sox_inputs+=("|sox $t -r 48000 -c 2 -p repeat 9"); done

{
  measure hum "$hum" render "${hum_args[@]}" --raw --fade 0 --duration 5m -o "$out/hum.wav"
  measure ffmpeg ffmpeg -nostdin -y -loglevel error "${ff_inputs[@]}" \
      -filter_complex "amix=inputs=16:normalize=0:duration=longest" -t 300 -ar 48000 -ac 2 -c:a pcm_s16le "$out/ffmpeg.wav"
  measure sox sox -m "${sox_inputs[@]}" -r 48000 -c 2 -b 16 "$out/sox.wav" trim 0 300
} > "$out/results.txt"

for f in hum ffmpeg sox; do
  printf '%-7s %8s bytes\n' "$f" "$(stat -c %s "$out/$f.wav")"
done
awk '
  { wall[$1]=$2; cpu[$1]=$3+$4; rss[$1]=$5 }
  END {
    printf "%-7s %9s %9s %10s %12s %12s\n", "tool", "wall s", "cpu s", "peak MB", "wall ratio", "cpu ratio"
    split("hum ffmpeg sox", order, " ")
    for (i = 1; i <= 3; i++) { t = order[i]
      printf "%-7s %9.2f %9.2f %10.1f %11.1fx %11.1fx\n", t, wall[t], cpu[t], rss[t] / 1024, wall[t] / wall["hum"], cpu[t] / cpu["hum"] }
  }' "$out/results.txt"
