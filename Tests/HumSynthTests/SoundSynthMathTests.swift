import HumCore
import Testing

@testable import HumSynth

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SoundSynthMathTests {
    static func relativeError(_ a: Double, _ b: Double) -> Double {
        a == b ? 0 : abs(a - b) / max(abs(b), 1e-300)
    }

    @Test func trigonometryMatchesLibm() {
        var rng = SplitMix64(seed: 1)
        for _ in 0..<20_000 {
            let x = Double(rng.nextSignedUnit()) * 1_000 + Double(rng.nextSignedUnit())
            #expect(abs(SynthMath.sin(x) - Glibc.sin(x)) < 1e-13)
            #expect(abs(SynthMath.cos(x) - Glibc.cos(x)) < 1e-13)
        }
        for x in [0.0, 1e-9, Double.pi / 4, Double.pi / 2, Double.pi, 3 * Double.pi / 2] {
            #expect(abs(SynthMath.sin(x) - Glibc.sin(x)) < 1e-15)
            #expect(abs(SynthMath.cos(x) - Glibc.cos(x)) < 1e-15)
        }
        // Far out, the argument itself is only known to its ulp (1.5e-11 at 1e5).
        #expect(abs(SynthMath.sin(1e5 + 0.3) - Glibc.sin(1e5 + 0.3)) < 1e-11)
        #expect(abs(SynthMath.tan(0.3) - Glibc.tan(0.3)) < 1e-14)
        #expect(SynthMath.sinCycles(3.25) == SynthMath.sinCycles(0.25))
    }

    @Test func exponentialAndLogarithmMatchLibm() {
        var rng = SplitMix64(seed: 2)
        for _ in 0..<20_000 {
            let x = Double(rng.nextSignedUnit()) * 700
            #expect(Self.relativeError(SynthMath.exp(x), Glibc.exp(x)) < 1e-14)
            let y = Glibc.exp(Double(rng.nextSignedUnit()) * 700)
            #expect(abs(SynthMath.log(y) - Glibc.log(y)) < 1e-13 * max(1, abs(Glibc.log(y))))
        }
        #expect(SynthMath.exp(0) == 1)
        #expect(SynthMath.log(1) == 0)
        #expect(SynthMath.log(0) == -.infinity)
        #expect(SynthMath.log(-1).isNaN)
        #expect(SynthMath.exp(-1000) == 0)
        #expect(SynthMath.exp(1000) == .infinity)
        #expect(Self.relativeError(SynthMath.pow(2, 10), 1024) < 1e-14)
        #expect(Self.relativeError(SynthMath.pow(10, -23.0 / 20), Glibc.pow(10, -23.0 / 20)) < 1e-14)
        #expect(abs(SynthMath.decibels(SynthMath.amplitude(dB: -27)) - -27) < 1e-12)
        #expect(abs(SynthMath.tanh(0.5) - Glibc.tanh(0.5)) < 1e-15)
    }
}
