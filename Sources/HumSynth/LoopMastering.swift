import HumAudio
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Takes a rendered loop to a finished file: matched to a loudness target, peaks under a true-peak ceiling,
/// encoded, and checked on the decoded file (the only thing a listener hears).
public enum LoopMastering {
    public struct Settings: Sendable {
        /// Integrated loudness to match, LUFS.
        public var targetLUFS: Double
        /// Highest true peak allowed in the decoded file, dBTP.
        public var truePeakLimitDBTP: Double
        /// How close to the target the decoded file must measure before we stop adjusting, LU.
        public var aimLU: Double
        /// Encoder quality (libsndfile's 0…1 VBR quality) for one and for two channels.
        public var monoQuality: Double
        public var stereoQuality: Double

        public init(
            targetLUFS: Double, truePeakLimitDBTP: Double, aimLU: Double = 0.1,
            monoQuality: Double, stereoQuality: Double
        ) {
            self.targetLUFS = targetLUFS
            self.truePeakLimitDBTP = truePeakLimitDBTP
            self.aimLU = aimLU
            self.monoQuality = monoQuality
            self.stereoQuality = stereoQuality
        }
    }

    /// What the finished file measures.
    public struct Result: Sendable {
        public var measurement: LoudnessMeasurement
        public var frames: Int
        public var channels: Int
        public var continuity: LoopContinuity
        /// Encode-decode-measure rounds it took.
        public var rounds: Int
        /// Gain applied to the rendered loop, dB.
        public var gainDB: Double
        /// Ceiling the limiter held sample peaks to before encoding, dBFS (0 when it never had to act).
        public var limiterCeilingDBFS: Double
        /// The largest channel's mean in the decoded file, dBFS.
        public var dcDBFS: Double
    }

    /// The largest channel mean of interleaved samples, dBFS (−∞ for none).
    public static func dcDBFS(interleaved samples: [Float], channels: Int) -> Double {
        let frames = channels > 0 ? samples.count / channels : 0
        guard frames > 0 else { return -.infinity }
        var largest = 0.0
        for c in 0..<channels {
            var sum = 0.0
            for f in 0..<frames { sum += Double(samples[f * channels + c]) }
            largest = max(largest, abs(sum / Double(frames)))
        }
        return largest > 0 ? SynthMath.decibels(largest) : -.infinity
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Interleaves equal-length channels.
    public static func interleave(_ channels: [[Float]]) -> [Float] {
        guard let frames = channels.first?.count else { return [] }
        let n = channels.count
        var out = [Float](repeating: 0, count: frames * n)
        for c in 0..<n {
            let channel = channels[c]
            for f in 0..<frames { out[f * n + c] = channel[f] }
        }
        return out
    }

    /// The share of a signal's power above 12 kHz, dB (the top octave, where a lossy stereo coder merges the
    /// channels first): 4th-order high-pass, all channels together.
    public static func topOctaveShareDB(_ channels: [[Float]], sampleRate: Double) -> Double {
        var total = 0.0
        var top = 0.0
        for c in channels {
            let high = Loop.filtered(
                c,
                FilterChain([
                    Biquad.highPass(12_000, q: 0.5412, sampleRate: sampleRate),
                    Biquad.highPass(12_000, q: 1.3066, sampleRate: sampleRate),
                ]))
            total += c.reduce(0) { $0 + Double($1) * Double($1) }
            top += high.reduce(0) { $0 + Double($1) * Double($1) }
        }
        return total > 0 ? 10 * SynthMath.log10(max(top / total, 1e-30)) : -.infinity
    }

    /// Masters `channels` (one array per channel, periodic) into `path` (the codec comes from its extension): DC
    /// removed, loudness matched, peaks held.
    /// The file is written beside `path` and renamed into place only once it measures right.
    /// - Parameters:
    ///   - oggSerial: for an Ogg file, the stream serial number to write (libsndfile picks a random one, which
    ///     would make every run's bytes differ).
    ///   - oneShot: the channels are a one-shot clip starting and ending in silence, not a loop: their mean is
    ///     left alone (taking it out would leave a step at both ends).
    public static func master(
        _ channels: [[Float]], sampleRate: Int, to path: String,
        settings: Settings, oggSerial: UInt32? = nil, oneShot: Bool = false
    ) throws -> Result {
        let n = channels.count
        guard let frames = channels.first?.count, frames > 0 else {
            throw Failure(description: "\(path): nothing rendered")
        }
        // DC goes first: the loudness and peaks are those of what is left.
        let channels = oneShot ? channels : channels.map(Loop.withoutDC)
        let raw = try LoudnessMeter.measure(interleave(channels), channels: n, sampleRate: sampleRate)
        guard raw.integratedLUFS.isFinite else { throw Failure(description: "\(path): the rendered loop is silent") }
        var gainDB = settings.targetLUFS - raw.integratedLUFS
        // Sample peaks start 1 dB under the true-peak limit; the codec and inter-sample peaks need the rest.
        var ceilingDB = settings.truePeakLimitDBTP - 1
        let quality = n == 1 ? settings.monoQuality : settings.stereoQuality
        // Keeps the extension, which picks the codec: Sounds/rain.opus is made as Sounds/rain.partial.opus.
        let temporary: String
        if let dot = path.lastIndex(of: "."), !path[dot...].contains("/") {
            temporary = String(path[..<dot]) + ".partial" + String(path[dot...])
        } else {
            temporary = path + ".partial"
        }
        for round in 1...8 {
            let gain = Float(SynthMath.amplitude(dB: gainDB))
            let scaled = channels.map { Loop.scaled($0, gain) }
            let held = LoopLimiter.limit(
                scaled, ceiling: Float(SynthMath.amplitude(dB: ceilingDB)),
                sampleRate: Double(sampleRate))
            let limiterActed = held.indices.contains { held[$0] != scaled[$0] }
            // The limiter's dips on lopsided peaks can leave a trace of DC: taken out again.
            let limited = limiterActed && !oneShot ? held.map(Loop.withoutDC) : held
            do {
                let writer = try AudioFileWriter(path: temporary, sampleRate: sampleRate, channels: n, quality: quality)
                try writer.write(interleave(limited))
                try writer.finish()
            }
            if let oggSerial { try OggSerialNumber.set(oggSerial, inFile: temporary) }
            let decoded = try AudioFileReader.decode(path: temporary)
            guard decoded.frames == frames, decoded.channels == n, decoded.sampleRate == sampleRate else {
                unlink(temporary)
                throw Failure(
                    description:
                        "\(path): decodes to \(decoded.frames) frames × \(decoded.channels) channels at "
                        + "\(decoded.sampleRate) Hz, not the \(frames) × \(n) at \(sampleRate) Hz encoded"
                )
            }
            let m = try LoudnessMeter.measure(decoded)
            let loudnessOK = abs(m.integratedLUFS - settings.targetLUFS) <= settings.aimLU
            let peakOK = m.truePeakDBTP <= settings.truePeakLimitDBTP - 0.1
            if loudnessOK && peakOK {
                guard rename(temporary, path) == 0 else {
                    throw Failure(
                        description:
                            "\(path): cannot move the finished file into place (\(String(cString: strerror(errno))))")
                }
                return Result(
                    measurement: m, frames: frames, channels: n,
                    continuity: LoopContinuity(interleaved: decoded.samples, channels: n), rounds: round,
                    gainDB: gainDB, limiterCeilingDBFS: limiterActed ? ceilingDB : 0,
                    dcDBFS: dcDBFS(interleaved: decoded.samples, channels: n))
            }
            gainDB += settings.targetLUFS - m.integratedLUFS
            if !peakOK { ceilingDB -= m.truePeakDBTP - (settings.truePeakLimitDBTP - 0.3) }
        }
        unlink(temporary)
        throw Failure(
            description:
                "\(path): could not reach \(settings.targetLUFS) LUFS with true peaks under "
                + "\(settings.truePeakLimitDBTP) dBTP"
        )
    }
}
