import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// `play.speakers = small` at load: each loop high-passed at 150 Hz (`LoopBuffer.highPass`, off the audio thread:
/// no power spent on bass the speakers cannot give) and lifted, at most +20 dB, so that its loudness as the
/// speakers play it matches its loudness on full-range ones. The speakers are modelled by the same 150 Hz
/// second-order high-pass, applied for the measurement only: what they play of the filtered loop is the loop
/// through both (a fourth-order slope, as the measurement of heartbeat −13, train −8, thunder −4 LU).
/// The lift is a gain on the track (its normalization), not on the 16-bit samples, so a lifted peak is the
/// limiter's to hold, never clipped in the loop.
enum SmallSpeakerLift {
    /// Filters `loop` in place and returns the gain that brings it, as small speakers play it, back to the
    /// loudness it had (1 when either loudness cannot be measured, e.g. silence).
    static func apply(to loop: LoopBuffer, sampleRate: Int) -> Float {
        let filter = HighPassFilter(cutoffHz: SpeakerSize.smallCutoffHz, sampleRate: sampleRate)
        let before = loudness(loop, sampleRate: sampleRate, through: nil)
        loop.highPass(filter, primingFrames: sampleRate / 2)
        let after = loudness(loop, sampleRate: sampleRate, through: filter)
        guard before.isFinite, after.isFinite else { return 1 }
        let db = min(SpeakerSize.maximumLiftDB, max(0, before - after))
        return Float(pow(10, db / 20))
    }

    /// The loop's integrated loudness (LUFS), through `filter` if given (primed over the loop's last half second,
    /// as it plays into its start), −∞ when it cannot be measured.
    static func loudness(_ loop: LoopBuffer, sampleRate: Int, through filter: HighPassFilter?) -> Double {
        guard let meter = try? LoudnessMeter(channels: loop.channels, sampleRate: sampleRate, histogram: true) else {
            return -.infinity
        }
        let channels = loop.channels
        var states = [HighPassFilter?](repeating: filter, count: channels)
        let ok = loop.withSamples { samples -> Bool in
            if filter != nil {
                for i in max(0, samples.count - sampleRate / 2 * channels)..<samples.count {
                    _ = states[i % channels]?.step(Double(samples[i]) / 32768)
                }
            }
            let block = 65536 * channels
            var floats = [Float](repeating: 0, count: min(block, samples.count))
            var done = 0
            while done < samples.count {
                let n = min(block, samples.count - done)
                for i in 0..<n {
                    let x = Double(samples[done + i]) / 32768
                    floats[i] = Float(states[i % channels]?.step(x) ?? x)
                }
                guard
                    (try? floats.withUnsafeBufferPointer { try meter.add(UnsafeBufferPointer(rebasing: $0[..<n])) })
                        != nil
                else { return false }
                done += n
            }
            return true
        }
        guard ok, let m = try? meter.measurement() else { return -.infinity }
        return m.integratedLUFS
    }
}
