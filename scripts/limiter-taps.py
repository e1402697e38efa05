#!/usr/bin/env python3
"""Prints the taps of TruePeakLimiter's 4x true-peak interpolator as Swift, so the constants are reproducible.

Each of the three in-between phases (1/4, 1/2, 3/4 of a sample after x[u]) is a sinc under a Kaiser window
(beta 9, 16 samples either side), over x[u-15] ... x[u+16], normalized to unity gain at DC. Also prints the
largest sum of |taps| over the phases (no point between samples exceeds the largest nearby |sample| times it).

    python3 scripts/limiter-taps.py
"""

import math

TAPS = 32  # per phase
LAG = TAPS // 2 - 1  # samples before x[u]
HALF = TAPS / 2  # the window's half-width, in samples
BETA = 9.0


def bessel_i0(x):
    """The modified Bessel function of order 0, by its power series."""
    total, term, k = 1.0, 1.0, 1
    while term > 1e-17 * total:
        term *= (x / (2 * k)) ** 2
        total += term
        k += 1
    return total


def phase(fraction):
    """The taps that interpolate the point `fraction` of a sample after x[u]."""
    taps = []
    for k in range(TAPS):
        t = fraction - (k - LAG)  # the point's distance from the sample under tap k
        sinc = 1.0 if t == 0 else math.sin(math.pi * t) / (math.pi * t)
        r = t / HALF
        window = bessel_i0(BETA * math.sqrt(max(0.0, 1 - r * r))) / bessel_i0(BETA)
        taps.append(sinc * window)
    total = sum(taps)
    return [v / total for v in taps]


def main():
    phases = [phase(p / 4) for p in (1, 2, 3)]
    bound = max(sum(abs(v) for v in taps) for taps in phases)
    print(f"    /// Largest sum of |taps| over the phases: {bound:.6f}")
    print(f"    static let interpolationBound: Float = {math.ceil(bound * 1000) / 1000:.3f}")
    print("    static let taps: [[Float]] = [")
    for taps in phases:
        print("        [")
        values = [f"{v:.9f}" for v in taps]
        for start in range(0, TAPS, 7):
            print("            " + ", ".join(values[start:start + 7]) + ",")
        print("        ],")
    print("    ]")


if __name__ == "__main__":
    main()
