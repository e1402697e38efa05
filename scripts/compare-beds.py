#!/usr/bin/env python3
"""Compares built-in beds played in random segments (their manifest's `segments`) with the same beds looping round
and round, each rendered alone at 100 with `--seed 1` and no fade.

Usage: HUM_BIN=.build/debug/hum scripts/compare-beds.py [--minutes N] [NAME...]

For each sound with segments it prints, looping then in segments:
- LUFS: integrated loudness (BS.1770), and its change;
- short-term spread: the standard deviation of the short-term loudness (3 s windows, 0.5 s apart), in LU: a level
  dip at every join would widen it;
- momentary dips: the 1st percentile of the momentary loudness (0.4 s windows, 0.1 s apart) below its median;
- HF flux: the largest frame-to-frame rise of the energy above 8 kHz in 2 ms frames over its median (the seam tests'
  measure of a click), its 99.99th percentile too.
The looping renders use a copy of the library whose manifest has no `segments` (HUM_SOUNDS_DIR).
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy import signal

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("measure_sounds", os.path.join(HERE, "measure-sounds.py"))
ms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ms)
RATE = ms.RATE


def plain_library(folder, sounds):
    """A library in `folder` that links to the real files, with a manifest without segments."""
    with open(os.path.join(sounds, "sounds.json")) as f:
        manifest = json.load(f)
    for entry in manifest["sounds"]:
        entry.pop("segments", None)
    for name in os.listdir(sounds):
        if name != "sounds.json":
            os.symlink(os.path.join(sounds, name), os.path.join(folder, name))
    with open(os.path.join(folder, "sounds.json"), "w") as f:
        json.dump(manifest, f)


def render(hum, name, minutes, out, library):
    env = dict(os.environ, HUM_SOUNDS_DIR=library)
    subprocess.run([hum, "render", f"{name}=100", "--for", f"{minutes}m", "--seed", "1", "--fade", "0", "-o", out],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return ms.decode(out)


def figures(channels):
    pair = list(channels) if channels.shape[0] > 1 else [channels[0], channels[0]]
    lufs, _ = ms.integrated(pair)
    short = -0.691 + 10 * np.log10(np.maximum(ms.block_loudness(pair, 3 * RATE, RATE // 2), 1e-20))
    momentary = -0.691 + 10 * np.log10(np.maximum(ms.block_loudness(pair, int(0.4 * RATE), RATE // 10), 1e-20))
    mono = channels.mean(axis=0)
    high = signal.sosfilt(signal.butter(4, 8000, "highpass", fs=RATE, output="sos"), mono)
    frame = RATE // 500
    energy = (high[: high.size // frame * frame].reshape(-1, frame) ** 2).sum(axis=1)
    rise = np.maximum(np.diff(energy), 0) / max(float(np.median(energy)), 1e-30)
    return {
        "lufs": lufs,
        "short_sd": float(np.std(short)),
        "dip": float(np.median(momentary) - np.percentile(momentary, 1)),
        "flux_max": float(rise.max()),
        "flux_9999": float(np.percentile(rise, 99.99)),
    }


def main(argv):
    minutes = 5
    names = []
    i = 0
    while i < len(argv):
        if argv[i] == "--minutes":
            minutes = float(argv[i + 1])
            i += 2
        else:
            names.append(argv[i])
            i += 1
    hum = os.environ.get("HUM_BIN") or "hum"
    sounds = os.environ.get("HUM_SOUNDS_DIR") or os.path.join(HERE, "..", "Sounds")
    with open(os.path.join(sounds, "sounds.json")) as f:
        manifest = json.load(f)
    segmented = [e["id"] for e in manifest["sounds"] if e.get("segments")]
    names = names or segmented
    print(f"{'sound':10} {'LUFS loop':>9} {'segm':>6} {'Δ LU':>5}  {'short-term SD loop':>18} {'segm':>5}"
          f"  {'momentary dip loop':>18} {'segm':>5}  {'HF flux max loop':>16} {'segm':>6}  {'p99.99 loop':>11} {'segm':>5}")
    with tempfile.TemporaryDirectory() as work:
        plain = os.path.join(work, "plain")
        os.mkdir(plain)
        plain_library(plain, os.path.abspath(sounds))
        for name in names:
            a = figures(render(hum, name, minutes, os.path.join(work, "a.wav"), plain))
            b = figures(render(hum, name, minutes, os.path.join(work, "b.wav"), os.path.abspath(sounds)))
            print(f"{name:10} {a['lufs']:9.2f} {b['lufs']:6.2f} {b['lufs'] - a['lufs']:+5.2f}  {a['short_sd']:18.2f}"
                  f" {b['short_sd']:5.2f}  {a['dip']:18.2f} {b['dip']:5.2f}  {a['flux_max']:16.1f} {b['flux_max']:6.1f}"
                  f"  {a['flux_9999']:11.1f} {b['flux_9999']:5.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
