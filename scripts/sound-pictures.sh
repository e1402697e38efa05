#!/usr/bin/env bash
# Draws the small spectrogram of every built-in sound for docs/sounds.md (needs sox, which reads Ogg Vorbis):
# 300×120 pixels, the whole loop from left to right, 0-16 kHz from bottom to top (linear), both channels mixed.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs/sounds
for f in Sounds/*.ogg; do
    id=$(basename "$f" .ogg)
    sox "$f" -n remix - rate 32k spectrogram -x 300 -y 120 -z 80 -r -o "docs/sounds/$id.png"
done
echo "drew $(ls Sounds/*.ogg | wc -l) pictures in docs/sounds/"
