#!/usr/bin/env python3
"""Measures sound files the same way, whoever made them: hum's built-ins and reference recordings alike.

Usage: scripts/measure-sounds.py [--json OUT] [--bands OUT] [--pairs N] [--peaks] [--repeat] [--texture] FILE...
       scripts/measure-sounds.py --library [--minutes M] [--json OUT] [SOUND...]

Each file is decoded by ffmpeg to 48 kHz float (any format ffmpeg reads) and measured:
  lufs       integrated loudness, EBU R128 / ITU-R BS.1770-4 (K-weighting, 400 ms blocks, -70 LUFS absolute and
             -10 LU relative gates); a mono file counts as dual mono, as hum plays it on both speakers
  dbtp       true peak (4x oversampled), dBTP
  dc         the largest channel's mean, dBFS
  centroid   spectral centroid of the long-term power spectrum of the channel mean, Hz
  rolloff    the frequency under which 85% of that power lies, Hz
  kurt1k     kurtosis of the signal high-passed at 1 kHz (3 = Gaussian; drops, crackles and clicks raise it)
  lra        loudness range (EBU Tech 3342: 10th to 95th percentile of the gated 3 s short-term loudness), LU
  ev/s       transients a second: in three bands (20-250 Hz in 40 ms frames, 250-2000 Hz in 10 ms, above 2 kHz
             in 5 ms), a frame 10 dB or more above the band's running median over a second starts an event;
             onsets within 30 ms of each other count once (a tick, a crackle, a loud drop, a call, a clink)
  slope      spectral slope, dB per octave: the least-squares line through the 1/3-octave band levels from 100 Hz
             to 12.5 kHz (bands at the -80 dB floor left out); pink noise reads about -3, white 0, brown -6
  corr12k    correlation of the two channels above 12 kHz (4th-order high-pass), 1 for mono: how much of the top
             octave's width survives (independent noises read about 0; a lossy encoder that merges them, more)
  sw/min     swells a minute: peaks of the 0.25 s RMS envelope (smoothed over 1 s) with 3 dB or more of
             prominence, at least 1.5 s apart (a wave, a gust, a roll of thunder, a passing car)
--peaks also prints how many peaks of the 1 ms envelope above 2 kHz (at least 5 ms apart) stand 6, 10, 15, 20,
25 and 30 dB over its median, a second: the size distribution of crackles, drops and splashes.
--texture also prints four figures of how a texture is made (the ones the sound review used for café, city and
birds): "lm/min", band landmarks a minute (episodes of 300 ms or more where an octave band from 125 Hz to 8 kHz,
not 40 dB or more under the loudest, stands 15 dB or more over its own median, in 50 ms frames: a clink, a steam
wand, a near song, a horn); "flat", the mean spectral flatness of 43 ms frames over 1-8 kHz (0 for a pure tone,
about 0.56 for white noise; buzzing vowels read near 0, a room of voices 0.07-0.18); "tonal", the share of those
frames whose strongest 1-8 kHz bin stands 25 dB over the band's median; "env2-8k", the standard deviation of the
10 ms level above 2-8 kHz in dB (low for a continuous floor, high for highs that come and go).
--repeat (and --library) also prints "repeat": the longest stretch from the start before any 10 s of the file
comes back identical (normalised correlation of the two 10 s windows 0.99 or more, at any lag from 0.5 s), in
seconds, or "none" if no 10 s window repeats within the file; and the lag of that repeat. A loop of L seconds
played on its own reads about L + 10. The lags tried are the 24 strongest peaks of the autocorrelation, and up to
4000 more screened on quarter-second blocks at 12 kHz (a rhythmic sound peaks at every beat, all about as high).
--library renders each built-in sound (all of them, or the SOUNDs named) alone for M minutes (30 unless given)
with `hum render --seed 1` (the hum binary from $HUM_BIN, else `hum` on PATH) and measures each render with
--repeat, so events scheduled at random count as they are heard.
--json writes all figures; --bands writes the 1/3-octave band levels (31.5 Hz-16 kHz, mean square in dB re full
scale, floored at -80: as Tests/HumAudioTests/BandSpectrum.swift computes them); --pairs prints every pair's
distance (the root-mean-square difference of those levels, dB) from the closest up, as the distinctness test does.

A measuring tool, not part of hum: it needs python3 with numpy and scipy, and ffmpeg.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy import signal
from scipy.ndimage import median_filter

RATE = 48_000


def decode(path):
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels", "-of",
         "default=nw=1:nk=1", path], capture_output=True, text=True, check=True)
    channels = int(probe.stdout.split()[0])
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-acodec", "pcm_f32le", "-ar", str(RATE), "-"],
        capture_output=True, check=True).stdout
    x = np.frombuffer(raw, dtype="<f4").astype(np.float64)
    return x.reshape(-1, channels).T  # channels × frames


def k_weight(x):
    # BS.1770 pre-filter (high shelf) and RLB high-pass, coefficients for 48 kHz.
    b1 = [1.53512485958697, -2.69169618940638, 1.19839281085285]
    a1 = [1.0, -1.69065929318241, 0.73248077421585]
    b2 = [1.0, -2.0, 1.0]
    a2 = [1.0, -1.99004745483398, 0.99007225036621]
    return signal.lfilter(b2, a2, signal.lfilter(b1, a1, x))


def block_loudness(channels, block, hop):
    weighted = [k_weight(c) for c in channels]
    n = channels[0].size
    starts = range(0, max(1, n - block + 1), hop)
    power = np.zeros(len(starts))
    for w in weighted:
        sq = np.concatenate([[0.0], np.cumsum(w * w)])
        power += np.array([(sq[s + block] - sq[s]) / block for s in starts])
    return power


def integrated(channels):
    if len(channels) == 1:
        channels = [channels[0], channels[0]]
    p = block_loudness(channels, int(0.4 * RATE), int(0.1 * RATE))
    lk = -0.691 + 10 * np.log10(np.maximum(p, 1e-20))
    p = p[lk > -70]
    if p.size == 0:
        return float("-inf"), channels
    rel = -0.691 + 10 * np.log10(p.mean()) - 10
    lk = -0.691 + 10 * np.log10(p)
    return float(-0.691 + 10 * np.log10(p[lk > rel].mean())), channels


def loudness_range(channels):
    p = block_loudness(channels, 3 * RATE, RATE // 10)
    st = -0.691 + 10 * np.log10(np.maximum(p, 1e-20))
    st = st[st > -70]
    if st.size == 0:
        return 0.0
    rel = -0.691 + 10 * np.log10(np.mean(10 ** ((st + 0.691) / 10))) - 20
    st = st[st > rel]
    return float(np.percentile(st, 95) - np.percentile(st, 10))


def true_peak(channels):
    peak = 0.0
    for c in channels:
        peak = max(peak, np.max(np.abs(signal.resample_poly(c, 4, 1))))
    return 20 * np.log10(max(peak, 1e-20))


THIRD_OCTAVES = [25 * 2 ** (k / 3) for k in range(1, 29)]  # 31.5 Hz … 16 kHz
FLOOR_DB = -80.0


def spectrum(mono):
    f, p = signal.welch(mono, RATE, nperseg=8192, noverlap=4096, window="hann")
    return f, p


def band_levels(mono):
    """Mean-square level of each 1/3-octave band, dB re full scale, floored at -80: Hann frames of 16384 samples
    without overlap, as Tests/HumAudioTests/BandSpectrum.swift computes them."""
    n = 16384
    count = max(1, mono.size // n)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)
    frames = np.zeros((count, n))
    for k in range(count):
        chunk = mono[k * n:(k + 1) * n]
        frames[k, :chunk.size] = chunk
    power = (np.abs(np.fft.rfft(frames * w, axis=1)) ** 2).sum(axis=0) * 2 / (count * n * (w * w).sum())
    f = np.arange(power.size) * RATE / n
    levels = []
    for fc in THIRD_OCTAVES:
        sel = (f >= fc / 2 ** (1 / 6)) & (f < fc * 2 ** (1 / 6)) & (f > 0)
        levels.append(max(FLOOR_DB, 10 * np.log10(max(power[sel].sum(), 1e-30))))
    return np.array(levels)


def envelope_db(mono, frame):
    n = mono.size // frame
    e = np.sqrt(np.mean(mono[: n * frame].reshape(n, frame) ** 2, axis=1))
    return 20 * np.log10(np.maximum(e, 1e-9))


def high_peaks(mono):
    """Peaks a second of the 1 ms envelope above 2 kHz standing 6, 10, 15, 20, 25 and 30 dB over its median."""
    hp = signal.sosfilt(signal.butter(4, 2000, "highpass", fs=RATE, output="sos"), mono)
    frame = RATE // 1000
    n = hp.size // frame
    env = 10 * np.log10(np.mean(hp[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-20)
    peaks, _ = signal.find_peaks(env, distance=5)
    over = env[peaks] - np.median(env)
    seconds = mono.size / RATE
    return [round(float(np.sum(over >= t)) / seconds, 1) for t in (6, 10, 15, 20, 25, 30)]


def distance(a, b):
    return float(np.sqrt(np.mean((np.array(a) - np.array(b)) ** 2)))


EVENT_BANDS = [(20, 250, 0.040), (250, 2000, 0.010), (2000, 20000, 0.005)]  # Hz, Hz, frame seconds


def events(mono):
    """Transients a second and swells a minute (see the module's help)."""
    seconds = mono.size / RATE
    onsets = []
    for lo, hi, frame in EVENT_BANDS:
        sos = signal.butter(4, [lo, min(hi, RATE / 2 * 0.95)], "bandpass", fs=RATE, output="sos")
        band = signal.sosfilt(sos, mono)
        hop = int(frame * RATE / 2)
        n = (band.size - 2 * hop) // hop
        idx = np.arange(n)[:, None] * hop + np.arange(2 * hop)[None, :]
        env = 10 * np.log10(np.maximum(np.mean(band[idx] ** 2, axis=1), 1e-18))
        # The band's background: the running median over a second around each frame.
        width = int(1.0 / (frame / 2)) | 1
        base = median_filter(env, width)
        above = env - base >= 10
        rising = np.flatnonzero(above[1:] & ~above[:-1]) + 1
        onsets.extend((rising * hop / RATE).tolist())
    onsets.sort()
    merged = [t for k, t in enumerate(onsets) if k == 0 or t - onsets[k - 1] > 0.03]
    slow = envelope_db(mono, int(0.25 * RATE))
    slow = np.convolve(np.pad(slow, 2, mode="wrap"), np.ones(4) / 4, mode="same")[2:-2]
    swells, _ = signal.find_peaks(slow, prominence=3, distance=6)
    return len(merged) / seconds, swells.size / seconds * 60


def texture(mono):
    """Band landmarks a minute, 1-8 kHz flatness and tonal share, 2-8 kHz envelope spread (see the help)."""
    seconds = mono.size / RATE
    frame = int(0.05 * RATE)
    envs = []
    for fc in (125, 250, 500, 1000, 2000, 4000, 8000):
        sos = signal.butter(4, [fc / 2 ** 0.5, min(fc * 2 ** 0.5, RATE / 2 * 0.95)], "bandpass", fs=RATE,
                            output="sos")
        envs.append(envelope_db(signal.sosfilt(sos, mono), frame))
    medians = [float(np.median(e)) for e in envs]
    landmarks = 0
    for e, m in zip(envs, medians):
        if m < max(medians) - 40:
            continue
        above = np.concatenate([[False], e - m >= 15, [False]])
        edges = np.flatnonzero(above[1:] != above[:-1])
        landmarks += int(np.sum(edges[1::2] - edges[::2] >= 6))
    n = 2048
    frames = mono[: mono.size // n * n].reshape(-1, n) * np.hanning(n)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2 + 1e-20
    f = np.fft.rfftfreq(n, 1 / RATE)
    band = power[:, (f >= 1000) & (f <= 8000)]
    flat = np.exp(np.mean(np.log(band), axis=1)) / np.mean(band, axis=1)
    tonal = np.max(band, axis=1) / np.median(band, axis=1) >= 10 ** 2.5
    hf = signal.sosfilt(signal.butter(4, [2000, 8000], "bandpass", fs=RATE, output="sos"), mono)
    env = envelope_db(hf, RATE // 100)
    return landmarks / seconds * 60, float(np.mean(flat)), float(np.mean(tonal)), float(np.std(env))


def spectral_slope(levels):
    """dB per octave of the power spectral density, from the 1/3-octave band levels from 100 Hz to 12.5 kHz
    (floored bands left out): a band's power grows 3.01 dB an octave with its width, so that is taken off."""
    centres = np.array(THIRD_OCTAVES)
    sel = (centres >= 95) & (centres <= 13000) & (levels > FLOOR_DB)
    if np.count_nonzero(sel) < 3:
        return 0.0
    return float(np.polyfit(np.log2(centres[sel]), levels[sel], 1)[0]) - 10 * np.log10(2)


def high_correlation(channels):
    """Correlation of the first two channels above 12 kHz; 1 for a mono file."""
    if channels.shape[0] < 2:
        return 1.0
    sos = signal.butter(4, 12000, "highpass", fs=RATE, output="sos")
    a = signal.sosfilt(sos, channels[0])
    b = signal.sosfilt(sos, channels[1])
    denominator = np.sqrt(np.sum(a * a) * np.sum(b * b))
    return float(np.sum(a * b) / denominator) if denominator > 0 else 1.0


REPEAT_WINDOW = 10.0  # seconds
REPEAT_LIKENESS = 0.99
REPEAT_CANDIDATES = 24
# A rhythmic sound (a clock, a heart, a train) has an autocorrelation peak at every beat, all about as high: the
# strongest 24 say nothing of where a stretch came back. So up to this many more peaks are screened, cheaply, first.
REPEAT_SCREENED = 4000
REPEAT_SCREEN_LIKENESS = 0.95


def screened(small, lags, auto, window):
    """The lags (at the decimated rate) under which some window of nearly `window` samples of `small` comes back
    with a normalised correlation of REPEAT_SCREEN_LIKENESS or more: computed on quarter-second blocks (a window of
    39 blocks lies inside any 10 s one), so thousands of lags take a minute."""
    block = int(0.25 * RATE / 4)
    count = max(1, window // block - 1)
    x = small.astype(np.float64)
    squares = np.concatenate(([0.0], np.cumsum(x * x)))
    kept = []
    for lag in lags:
        if auto[lag] < 0.05:
            continue
        blocks = (x.size - lag) // block
        if blocks < count:
            continue
        product = (x[:blocks * block] * x[lag:lag + blocks * block]).reshape(blocks, block).sum(1)
        edges = np.arange(blocks + 1) * block
        first = np.diff(squares[edges])
        second = np.diff(squares[edges + lag])
        sums = np.concatenate(([0.0], np.cumsum(product)))
        a = np.concatenate(([0.0], np.cumsum(first)))
        b = np.concatenate(([0.0], np.cumsum(second)))
        p = sums[count:] - sums[:-count]
        e = (a[count:] - a[:-count]) * (b[count:] - b[:-count])
        if np.max(p / np.sqrt(np.maximum(e, 1e-30))) >= REPEAT_SCREEN_LIKENESS:
            kept.append(lag)
    return np.array(kept, dtype=int)


def first_repeat(mono):
    """(seconds from the start to the end of the first 10 s window that repeats an earlier one, its lag in
    seconds), or (None, None). Candidate lags are the strongest peaks of the autocorrelation of the signal band-
    limited and decimated by 4 (FFT, so 30 minutes take seconds); each is refined to the sample at 48 kHz, and the
    normalised correlation of every 10 s window with the one a lag earlier is then computed exactly by running
    sums."""
    window = int(REPEAT_WINDOW * RATE)
    if mono.size < 2 * window:
        return None, None
    small = signal.resample_poly(mono, 1, 4).astype(np.float32)
    n = small.size
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectrum_ = np.fft.rfft(small, size)
    auto = np.fft.irfft(spectrum_ * np.conj(spectrum_), size)[:n]
    del spectrum_
    overlap = n - np.arange(n)  # the autocorrelation of a lag sums over fewer samples as the lag grows
    auto = auto / np.maximum(overlap, 1) / max(float(auto[0]) / n, 1e-30)
    lo = int(0.5 * RATE / 4)
    hi = n - window // 4
    if hi <= lo:
        return None, None
    peaks, _ = signal.find_peaks(auto[lo:hi], distance=max(1, int(0.25 * RATE / 4)))
    ranked = peaks[np.argsort(auto[lo:hi][peaks])[::-1]] + lo
    peaks = np.concatenate((ranked[:REPEAT_CANDIDATES],
                            screened(small, ranked[REPEAT_CANDIDATES:REPEAT_SCREENED], auto, window // 4)))
    x = mono.astype(np.float64)
    energy = np.concatenate(([0.0], np.cumsum(x * x)))
    best = None
    for coarse in peaks:
        if auto[coarse] < 0.05:
            continue
        # The lag at 48 kHz: the one of the nine around the coarse one whose whole-signal product is largest.
        fine = [lag for lag in range(int(coarse) * 4 - 4, int(coarse) * 4 + 5) if 0 < lag and lag + window <= x.size]
        if not fine:
            continue
        best_lag = max(fine, key=lambda lag: float(np.dot(x[:-lag], x[lag:])))
        for lag in (best_lag,):
            product = np.concatenate(([0.0], np.cumsum(x[:-lag] * x[lag:])))
            sums = product[window:] - product[:-window]
            first = energy[window:x.size - lag + 1] - energy[:x.size - lag - window + 1]
            second = energy[lag + window:] - energy[lag:x.size - window + 1]
            rho = sums[: first.size] / np.sqrt(np.maximum(first * second, 1e-30))
            hits = np.flatnonzero(rho >= REPEAT_LIKENESS)
            if hits.size:
                end = (hits[0] + lag + window) / RATE
                if best is None or end < best[0]:
                    best = (end, lag / RATE)
    return best if best else (None, None)


def measure(path, repeat=False, textured=False):
    channels = decode(path)
    lufs, _ = integrated(list(channels))
    mono = channels.mean(axis=0)
    f, p = spectrum(mono)
    centroid = float((f * p).sum() / p.sum())
    cum = np.cumsum(p) / p.sum()
    rolloff = float(f[np.searchsorted(cum, 0.85)])
    hp = signal.sosfilt(signal.butter(4, 1000, "highpass", fs=RATE, output="sos"), mono)
    kurt = float(np.mean(hp ** 4) / np.mean(hp ** 2) ** 2)
    ev, sw = events(mono)
    levels = band_levels(mono)
    result = {
        "file": path,
        "seconds": round(channels.shape[1] / RATE, 1),
        "channels": int(channels.shape[0]),
        "lufs": round(lufs, 2),
        "dbtp": round(true_peak(channels), 2),
        "dc": round(float(20 * np.log10(max(np.max(np.abs(channels.mean(axis=1))), 1e-12))), 1),
        "centroid": round(centroid),
        "rolloff": round(rolloff),
        "kurt1k": round(kurt, 1),
        "lra": round(loudness_range(list(channels) if channels.shape[0] > 1 else [mono, mono]), 1),
        "events_per_s": round(ev, 2),
        "swells_per_min": round(sw, 1),
        "slope_db_per_octave": round(spectral_slope(levels), 2),
        "correlation_above_12k": round(high_correlation(channels), 2),
        "bands": [round(float(b), 2) for b in levels],
        "high_peaks_per_s": high_peaks(mono),
    }
    if textured:
        lm, flat, tonal, spread = texture(mono)
        result.update({"landmarks_per_min": round(lm, 1), "flatness_1_8k": round(flat, 3),
                       "tonal_share": round(tonal, 2), "envelope_std_2_8k_db": round(spread, 1)})
    if repeat:
        end, lag = first_repeat(mono)
        result["first_repeat_s"] = None if end is None else round(end, 1)
        result["repeat_lag_s"] = None if lag is None else round(lag, 3)
    return result


def library_files(names, minutes, folder):
    """Renders each built-in sound (or the names given) alone; returns [(name, path)]."""
    hum = os.environ.get("HUM_BIN") or shutil.which("hum")
    if not hum:
        raise SystemExit("measure-sounds: no hum binary; set HUM_BIN or put hum on PATH")
    if not names:
        listing = json.loads(subprocess.run([hum, "sounds", "--json"], capture_output=True, text=True,
                                            check=True).stdout)
        names = [e["name"] for e in listing if e.get("source") == "built-in" and e.get("problem") is None]
    seeded = "--seed" in subprocess.run([hum, "render", "--help"], capture_output=True, text=True).stdout
    files = []
    for name in names:
        out = os.path.join(folder, f"{name}.wav")
        subprocess.run([hum, "render", f"{name}=100", "--for", f"{minutes}m", "-o", out]
                       + (["--seed", "1"] if seeded else []), check=True, stdout=subprocess.DEVNULL)
        files.append((name, out))
    return files


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return 0
    json_out = bands_out = None
    pairs = 0
    show_peaks = repeat = library = textured = False
    minutes = 30
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--json":
            json_out = argv[i + 1]
            i += 2
        elif argv[i] == "--peaks":
            show_peaks = True
            i += 1
        elif argv[i] == "--texture":
            textured = True
            i += 1
        elif argv[i] == "--repeat":
            repeat = True
            i += 1
        elif argv[i] == "--library":
            library = repeat = True
            i += 1
        elif argv[i] == "--minutes":
            minutes = float(argv[i + 1])
            i += 2
        elif argv[i] == "--pairs":
            pairs = int(argv[i + 1])
            i += 2
        elif argv[i] == "--bands":
            bands_out = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not files and not library:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="measure-sounds.") as folder:
        named = library_files(files, minutes, folder) if library else [(path, path) for path in files]
        rows = report(named, show_peaks, repeat, textured)
    if pairs:
        found = []
        for a in range(len(rows)):
            for b in range(a + 1, len(rows)):
                found.append((distance(rows[a]["bands"], rows[b]["bands"]), rows[a]["file"], rows[b]["file"]))
        found.sort()
        for d, a, b in found[:pairs]:
            print(f"{d:5.1f} dB  {a}  {b}")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(rows, f, indent=1)
    if bands_out:
        with open(bands_out, "w") as f:
            json.dump({"centres_hz": [round(c, 1) for c in THIRD_OCTAVES],
                       "sounds": {r["file"]: r["bands"] for r in rows}}, f, indent=1)
    return 0


def report(named, show_peaks, repeat, textured=False):
    """Measures each (name, path) and prints its row as it goes; returns the rows."""
    rows = []
    print(f"{'file':42} {'s':>5} {'ch':>2} {'LUFS':>7} {'dBTP':>6} {'DC':>6} {'centroid':>8} {'rolloff':>7} "
          f"{'kurt1k':>6} {'LRA':>5} {'slope':>6} {'c>12k':>5} {'ev/s':>6} {'sw/min':>6}"
          + (f" {'lm/min':>6} {'flat':>5} {'tonal':>5} {'env2-8k':>7}" if textured else "")
          + (f" {'repeat':>8}" if repeat else ""))
    for name, path in named:
        m = measure(path, repeat, textured)
        m["file"] = name
        rows.append(m)
        label = name if len(name) <= 42 else "…" + name[-41:]
        again = ""
        if repeat:
            again = f" {'none':>8}" if m["first_repeat_s"] is None else f" {m['first_repeat_s']:8.1f}"
        print(f"{label:42} {m['seconds']:5.0f} {m['channels']:2d} {m['lufs']:7.2f} {m['dbtp']:6.1f} {m['dc']:6.0f} "
              f"{m['centroid']:8d} {m['rolloff']:7d} {m['kurt1k']:6.1f} {m['lra']:5.1f} "
              f"{m['slope_db_per_octave']:6.1f} {m['correlation_above_12k']:5.2f} {m['events_per_s']:6.2f} "
              f"{m['swells_per_min']:6.1f}"
              + (f" {m['landmarks_per_min']:6.1f} {m['flatness_1_8k']:5.3f} {m['tonal_share']:5.2f} "
                 f"{m['envelope_std_2_8k_db']:7.1f}" if textured else "") + again
              + (f"   peaks/s >6..30 dB: {m['high_peaks_per_s']}" if show_peaks else ""), flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
