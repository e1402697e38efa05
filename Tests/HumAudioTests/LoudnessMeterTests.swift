import Testing

@testable import HumAudio

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct LoudnessMeterTests {
    /// Interleaved sine frames, the same on every channel.
    static func sine(
        frequency: Double, amplitude: Double, seconds: Double, channels: Int, sampleRate: Int = 48_000,
        phase: Double = 0
    ) -> [Float] {
        let frames = Int(seconds * Double(sampleRate))
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate) + phase))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    static func dB(_ amplitude: Double) -> Double { 20 * log10(amplitude) }

    /// EBU Tech 3341, test 1: a stereo 1 kHz sine at -23 dBFS on both channels reads -23.0 ±0.1 LUFS.
    @Test func stereoSineAtMinus23ReadsMinus23LUFS() throws {
        let signal = Self.sine(frequency: 997, amplitude: pow(10, -23.0 / 20), seconds: 20, channels: 2)
        let m = try LoudnessMeter.measure(signal, channels: 2, sampleRate: 48_000)
        #expect(abs(m.integratedLUFS - -23) < 0.1)
        #expect(abs(m.truePeakDBTP - -23) < 0.1)
        #expect(abs(m.samplePeakDBFS - -23) < 0.1)
    }

    /// EBU Tech 3341, test 2: the same at -33 dBFS reads -33.0 ±0.1 LUFS.
    @Test func stereoSineAtMinus33ReadsMinus33LUFS() throws {
        let signal = Self.sine(frequency: 997, amplitude: pow(10, -33.0 / 20), seconds: 20, channels: 2)
        let m = try LoudnessMeter.measure(signal, channels: 2, sampleRate: 48_000)
        #expect(abs(m.integratedLUFS - -33) < 0.1)
    }

    /// BS.1770: one channel alone reads 3.01 dB below the same signal on two; counted as dual mono it reads the same.
    @Test func monoIsDualMonoUnlessAskedOtherwise() throws {
        let signal = Self.sine(frequency: 997, amplitude: pow(10, -20.0 / 20), seconds: 10, channels: 1)
        let dual = try LoudnessMeter.measure(signal, channels: 1, sampleRate: 48_000)
        let single = try LoudnessMeter.measure(signal, channels: 1, sampleRate: 48_000, monoAsDualMono: false)
        #expect(abs(dual.integratedLUFS - -20) < 0.1)
        #expect(abs(single.integratedLUFS - -23.01) < 0.1)
    }

    /// A sine at a quarter of the sample rate, sampled 45° off its crests: every sample is 3 dB below the real
    /// peak, which only a true-peak (oversampling) meter sees. EBU Tech 3341 allows +0.2/-0.4 dB at 48 kHz.
    @Test func truePeakSeesBetweenSamples() throws {
        let signal = Self.sine(frequency: 12_000, amplitude: 0.5, seconds: 5, channels: 2, phase: Double.pi / 4)
        let m = try LoudnessMeter.measure(signal, channels: 2, sampleRate: 48_000)
        #expect(abs(m.samplePeakDBFS - (Self.dB(0.5) - 3.01)) < 0.05)
        #expect(m.truePeakDBTP > Self.dB(0.5) - 0.4 && m.truePeakDBTP < Self.dB(0.5) + 0.2)
    }

    /// Fed in pieces or at once, the reading is the same.
    @Test func addingInPiecesMatchesAddingAtOnce() throws {
        let signal = Self.sine(frequency: 440, amplitude: 0.1, seconds: 4, channels: 2)
        let whole = try LoudnessMeter.measure(signal, channels: 2, sampleRate: 48_000)
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48_000)
        var start = 0
        while start < signal.count {
            let end = min(signal.count, start + 2 * 7_919)
            try meter.add(Array(signal[start..<end]))
            start = end
        }
        #expect(try meter.integratedLoudness() == whole.integratedLUFS)
    }

    @Test func silenceIsMinusInfinity() throws {
        let m = try LoudnessMeter.measure([Float](repeating: 0, count: 96_000), channels: 2, sampleRate: 48_000)
        #expect(m.integratedLUFS == -Double.infinity)
        #expect(m.truePeakDBTP == -Double.infinity)
    }

    @Test func impossibleLayoutIsAnErrorNamingTheCall() {
        #expect(throws: LoudnessError(call: "ebur128_init", code: -1)) {
            _ = try LoudnessMeter(channels: 0, sampleRate: 48_000)
        }
        #expect(LoudnessError(call: "ebur128_true_peak", code: 3).description.contains("ebur128_true_peak"))
    }
}
