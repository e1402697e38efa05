#!/usr/bin/env bash
# Makes the benchmark's 16 input loops (30 s each): 4 at 44.1 kHz mono, 4 at 44.1 kHz stereo, 4 at 48 kHz mono,
# 4 at 48 kHz stereo, 16-bit WAV, different noises and tones so no two are alike. Idempotent.
set -euo pipefail
dir=${1:-/dev/shm/hum-bench}
mkdir -p "$dir"
colours=(whitenoise pinknoise brownnoise "sine 220" "sine 330" tpdfnoise "square 110" "sine 440")
i=0
for rate in 44100 48000; do
  for channels in 1 2; do
    for k in 0 1 2 3; do
      f="$dir/t$i.wav"
      if [ ! -f "$f" ]; then
        sox -q -n -r "$rate" -c "$channels" -b 16 "$f" synth 30 ${colours[$(( (i + k) % 8 ))]} vol 0.3
      fi
      i=$((i + 1))
    done
  done
done
echo "$dir"
