import Foundation

@testable import HumAudio

/// The long-term average spectrum of a sound in 1/3-octave bands, for tests that compare sounds: the channel mean,
/// cut into Hann-windowed frames of 16384 samples (no overlap), each frame's power spectrum averaged, the bins summed
/// into bands. scripts/measure-sounds.py computes the same figures (its `--pairs`).
struct BandSpectrum {
    /// Band centres, 31.5 Hz to 16 kHz (25 Hz · 2^(k/3), k = 1…28).
    static let centres: [Double] = (1...28).map { 25 * pow(2, Double($0) / 3) }
    static let frameSize = 16384
    /// Bands quieter than this (dB re full-scale mean square) count as this: 57 dB under the reference level,
    /// where a difference no longer matters to the ear.
    static let floorDB = -80.0

    /// Mean-square level of each band, dB re full scale, floored at `floorDB`.
    var levels: [Double]

    init(_ audio: DecodedAudio) {
        let n = Self.frameSize
        let channels = audio.channels
        let frames = audio.frames
        var mono = [Double](repeating: 0, count: frames)
        audio.samples.withUnsafeBufferPointer { s in
            for f in 0..<frames {
                var v = 0.0
                for c in 0..<channels { v += Double(s[f * channels + c]) }
                mono[f] = v / Double(channels)
            }
        }
        var window = [Double](repeating: 0, count: n)
        var windowPower = 0.0
        for i in 0..<n {
            window[i] = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            windowPower += window[i] * window[i]
        }
        var fft = FFT(size: n)
        var power = [Double](repeating: 0, count: n / 2 + 1)
        // Frames in pairs: two real frames go through one complex transform.
        let count = max(1, frames / n)
        var frame = 0
        while frame < count {
            let a = frame * n
            let b = (frame + 1 < count ? frame + 1 : frame) * n
            let weight = frame + 1 < count ? 1.0 : 0.5  // an odd last frame is counted once, not twice
            for i in 0..<n {
                fft.re[i] = (a + i < frames ? mono[a + i] : 0) * window[i]
                fft.im[i] = (b + i < frames ? mono[b + i] : 0) * window[i]
            }
            fft.transform()
            for k in 0...(n / 2) {
                let j = (n - k) % n
                // X = (Z[k] + conj Z[n-k]) / 2, Y = (Z[k] - conj Z[n-k]) / 2i.
                let xr = (fft.re[k] + fft.re[j]) / 2
                let xi = (fft.im[k] - fft.im[j]) / 2
                let yr = (fft.im[k] + fft.im[j]) / 2
                let yi = (fft.re[j] - fft.re[k]) / 2
                power[k] += weight * (xr * xr + xi * xi + yr * yr + yi * yi)
            }
            frame += 2
        }
        // One-sided mean square per bin.
        let scale = 2 / (Double(count) * Double(n) * windowPower)
        let binHz = Double(audio.sampleRate) / Double(n)
        levels = Self.centres.map { fc in
            let low = fc / pow(2, 1.0 / 6)
            let high = fc * pow(2, 1.0 / 6)
            var sum = 0.0
            for k in 1...(n / 2) {
                let f = Double(k) * binHz
                if f >= low && f < high { sum += power[k] * scale }
            }
            return max(Self.floorDB, 10 * log10(max(sum, 1e-30)))
        }
    }

    /// Root-mean-square difference of the band levels, dB: 0 for the same spectrum.
    func distance(to other: BandSpectrum) -> Double {
        var sum = 0.0
        for (a, b) in zip(levels, other.levels) { sum += (a - b) * (a - b) }
        return (sum / Double(levels.count)).squareRoot()
    }
}

/// An in-place iterative radix-2 complex FFT (forward, unnormalized).
struct FFT {
    let size: Int
    var re: [Double]
    var im: [Double]
    private let cosTable: [Double]
    private let sinTable: [Double]

    init(size: Int) {
        precondition(size > 1 && size & (size - 1) == 0)
        self.size = size
        re = [Double](repeating: 0, count: size)
        im = re
        cosTable = (0..<(size / 2)).map { cos(2 * Double.pi * Double($0) / Double(size)) }
        sinTable = (0..<(size / 2)).map { -sin(2 * Double.pi * Double($0) / Double(size)) }
    }

    mutating func transform() {
        let n = size
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                cosTable.withUnsafeBufferPointer { ct in
                    sinTable.withUnsafeBufferPointer { st in
                        var j = 0
                        for i in 1..<n {
                            var bit = n >> 1
                            while j & bit != 0 {
                                j ^= bit
                                bit >>= 1
                            }
                            j |= bit
                            if i < j {
                                re.swapAt(i, j)
                                im.swapAt(i, j)
                            }
                        }
                        var length = 2
                        while length <= n {
                            let half = length / 2
                            let step = n / length
                            var start = 0
                            while start < n {
                                for k in 0..<half {
                                    let wr = ct[k * step]
                                    let wi = st[k * step]
                                    let p = start + k
                                    let q = p + half
                                    let tr = re[q] * wr - im[q] * wi
                                    let ti = re[q] * wi + im[q] * wr
                                    re[q] = re[p] - tr
                                    im[q] = im[p] - ti
                                    re[p] += tr
                                    im[p] += ti
                                }
                                start += length
                            }
                            length <<= 1
                        }
                    }
                }
            }
        }
    }
}
