#!/usr/bin/env python3
"""How much room a mix of built-in sounds leaves before the mixer's limiter has to act.

Usage: scripts/mix-headroom.py [--seconds S] [--gain DB] SOUND=VOLUME[,SOUND=VOLUME...] ...

Each argument is one mix. The sounds are read from Sounds/ (decoded by ffmpeg), looped to S seconds (default 60),
scaled by hum's cubic volume law ((v/100)^3) and summed, as the mixer does before its limiter; --gain adds DB
to every mix (what a library mastered that much louder would give). For each mix it
prints the integrated loudness of the sum (BS.1770, as scripts/measure-sounds.py), its sample peak, the share of
10 ms blocks whose peak passes the limiter's threshold (-1 dBFS), and how far the loudest one passes it. Nothing
here runs the limiter itself: the figures say how often, and how hard, any limiter at -1 dBFS would have to work.

A measuring tool, not part of hum: it needs python3 with numpy and scipy, and ffmpeg.
"""

import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("measure_sounds", os.path.join(HERE, "measure-sounds.py"))
ms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ms)

THRESHOLD_DB = -1.0


def looped(x, frames):
    reps = -(-frames // x.shape[1])
    return np.tile(x, (1, reps))[:, :frames]


def main(argv):
    seconds = 60
    gain_db = 0.0
    mixes = []
    i = 0
    while i < len(argv):
        if argv[i] == "--gain":
            gain_db = float(argv[i + 1])
            i += 2
        elif argv[i] == "--seconds":
            seconds = float(argv[i + 1])
            i += 2
        else:
            mixes.append(argv[i])
            i += 1
    if not mixes:
        print(__doc__, file=sys.stderr)
        return 2
    frames = int(seconds * ms.RATE)
    cache = {}
    for mix in mixes:
        total = np.zeros((2, frames))
        for word in mix.split(","):
            name, volume = word.split("=")
            if name not in cache:
                x = ms.decode(os.path.join(HERE, "..", "Sounds", name + ".ogg"))
                cache[name] = np.vstack([x, x]) if x.shape[0] == 1 else x
            total += looped(cache[name], frames) * (float(volume) / 100) ** 3 * 10 ** (gain_db / 20)
        lufs, _ = ms.integrated(list(total))
        block = ms.RATE // 100
        n = frames // block
        peaks = np.max(np.abs(total[:, : n * block]).reshape(2, n, block), axis=(0, 2))
        peak_db = 20 * np.log10(np.maximum(peaks, 1e-12))
        over = peak_db > THRESHOLD_DB
        excess = peak_db.max() - THRESHOLD_DB
        print(f"{mix:60} {lufs:7.2f} LUFS  peak {peak_db.max():6.2f} dBFS  over -1 dBFS in {100 * over.mean():5.2f}% "
              f"of 10 ms blocks, by at most {max(0.0, excess):4.1f} dB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
