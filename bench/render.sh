#!/usr/bin/env bash
# Benchmark (not a test): the same work for hum, ffmpeg and sox, in one run — 16 looped tracks (30 s loops at
# 44.1 and 48 kHz, mono and stereo) mixed for 5 minutes into a 48 kHz 16-bit stereo WAV under /dev/shm.
# Prints wall time, CPU time (user + system) and peak RSS of each, and the ratios against hum.
# Usage: bench/render.sh [--cold] [RUNS]   (best of RUNS, default 3; needs a release build: make release)
#   hum's loop cache ($XDG_CACHE_HOME/hum/loops) is warmed by a first render, as after a first play or render of
#   the same files; --cold: every hum run starts with an empty cache on the disk (a new directory under $TMPDIR
#   or /tmp), as a render of files hum has never loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
cold=
if [ "${1:-}" = --cold ]; then
    cold=1
    shift
fi
runs=${1:-3}
hum=${HUM_BIN:-.build/release/hum}
dir=$(bench/make-inputs.sh)
out=/dev/shm/hum-bench-out
mkdir -p "$out"
tracks=("$dir"/t{0..15}.wav)

caches=$(mktemp -d)
trap 'rm -rf "$caches"' EXIT
measure() { # name, command...: best wall time of $runs, with its CPU and RSS
  local name=$1; shift
  local best=""
  for i in $(seq "$runs"); do
    local line
    if [ -n "$cold" ]; then export XDG_CACHE_HOME=$caches/$name-$i; else export XDG_CACHE_HOME=$caches/warm; fi
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>&1
    line=$(tail -1 "$out/time.txt")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best=$line; fi
  done
  echo "$name $best"
}

hum_args=(); for t in "${tracks[@]}"; do hum_args+=("$t=50"); done
ff_inputs=(); for t in "${tracks[@]}"; do ff_inputs+=(-stream_loop -1 -i "$t"); done
sox_inputs=(); for t in "${tracks[@]}"; do sox_inputs+=("|sox $t -r 48000 -c 2 -p repeat 9"); done

if [ -z "$cold" ]; then  # the first render of these files fills the cache
  XDG_CACHE_HOME=$caches/warm "$hum" render "${hum_args[@]}" --raw --fade 0 --duration 1s -o "$out/hum.wav"
fi
{
  measure hum "$hum" render "${hum_args[@]}" --raw --fade 0 --duration 5m -o "$out/hum.wav"
  measure ffmpeg ffmpeg -nostdin -y -loglevel error "${ff_inputs[@]}" \
      -filter_complex "amix=inputs=16:normalize=0:duration=longest" -t 300 -ar 48000 -ac 2 -c:a pcm_s16le "$out/ffmpeg.wav"
  measure sox sox -m "${sox_inputs[@]}" -r 48000 -c 2 -b 16 "$out/sox.wav" trim 0 300
} > "$out/results.txt"

[ -n "$cold" ] && echo "hum: an empty loop cache at every run (--cold)" || echo "hum: its loop cache warm"
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
