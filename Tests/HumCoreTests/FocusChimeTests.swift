import Testing

@testable import HumCore

@Suite struct FocusChimeTests {
    func rms(_ x: [Float]) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    func dB(_ x: Double) -> Double { 20 * log10(x) }

    /// log10 by way of the chime's exp, by bisection: good enough for a test and free of C.
    func log10(_ x: Double) -> Double {
        var lo = -20.0
        var hi = 20.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if ChimeMath.exp(mid * 2.302_585_092_994_046) < x { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// Energy at one frequency (Goertzel), normalized by length.
    func power(_ x: [Float], at frequency: Double, rate: Double) -> Double {
        let coefficient = 2 * ChimeMath.cosTurns(frequency / rate)
        var s1 = 0.0
        var s2 = 0.0
        for v in x {
            let s = Double(v) + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / Double(x.count * x.count)
    }

    @Test func mathIsAccurate() {
        #expect(abs(ChimeMath.sinTurns(1.0 / 12) - 0.5) < 1e-14)  // sin 30°
        #expect(abs(ChimeMath.sinTurns(0.25) - 1) < 1e-15)
        #expect(abs(ChimeMath.sinTurns(0.75) + 1) < 1e-15)
        #expect(abs(ChimeMath.sinTurns(0.6) + 0.587_785_252_292_473_1) < 1e-14)
        #expect(abs(ChimeMath.cosTurns(0) - 1) < 1e-15 && abs(ChimeMath.cosTurns(0.5) + 1) < 1e-15)
        #expect(abs(ChimeMath.cosTurns(1.0 / 6) - 0.5) < 1e-14)
        #expect(abs(ChimeMath.exp(1) - 2.718_281_828_459_045) < 1e-15)
        #expect(abs(ChimeMath.exp(-10) / 4.539_992_976_248_485e-05 - 1) < 1e-14)
        #expect(abs(ChimeMath.exp(50) / 5.184_705_528_587_072e21 - 1) < 1e-14)
        #expect(ChimeMath.exp(0) == 1 && ChimeMath.exp(-800) == 0 && ChimeMath.exp(800) == .infinity)
    }

    @Test(arguments: [44_100, 48_000, 96_000])
    func levelIsFixed(rate: Int) {
        let x = Chime.render(sampleRate: rate)
        #expect(x.count == rate * 3 / 2)
        #expect(abs(dB(rms(x)) - Chime.targetRMSdBFS) < 0.01)
        let peak = Double(x.map { abs($0) }.max()!)
        #expect(dB(peak) < -6)  // below the sounds' true-peak ceiling, with room to spare
        #expect(dB(peak) > -25)  // and not a whisper either
    }

    @Test func gainScales() {
        let unit = Chime.render(sampleRate: 48_000)
        let half = Chime.render(sampleRate: 48_000, gain: 0.5)
        #expect(zip(unit, half).allSatisfy { abs($0 * 0.5 - $1) < 1e-7 })
    }

    @Test func startsWithoutAClick() {
        let rate = 48_000
        let x = Chime.render(sampleRate: rate)
        let peak = x.map { abs($0) }.max()!
        #expect(x[0] == 0)
        // The first millisecond stays under 2 % of the peak, its first steps are tiny, and no step in the attack is
        // larger than the steps the tone itself makes once it rings.
        #expect(x[0..<(rate / 1000)].allSatisfy { abs($0) < 0.02 * peak })
        func steps(_ s: ArraySlice<Float>) -> [Float] { zip(s, s.dropFirst()).map { abs($1 - $0) } }
        let attack = steps(x[0..<(rate * 12 / 1000)])
        let body = steps(x[(rate * 12 / 1000)...])
        #expect(attack.prefix(10).allSatisfy { $0 < 0.001 * peak })
        #expect(attack.max()! <= body.max()!)
    }

    @Test func endsInSilence() {
        let rate = 44_100
        let x = Chime.render(sampleRate: rate)
        let peak = x.map { abs($0) }.max()!
        #expect(x.last == 0)
        // The last 50 ms are more than 50 dB below the peak.
        #expect(x.suffix(rate / 20).allSatisfy { abs($0) < 0.003_2 * peak })
        // And it decays: each 300 ms quieter than the one before.
        let windows = stride(from: 0, to: x.count - rate * 3 / 10 + 1, by: rate * 3 / 10).map {
            rms(Array(x[$0..<($0 + rate * 3 / 10)]))
        }
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $1 < $0 })
    }

    @Test func isDeterministic() {
        #expect(Chime.render(sampleRate: 48_000) == Chime.render(sampleRate: 48_000))
    }

    @Test func soundsLikeItsPartials() {
        let rate = 48_000.0
        let x = Chime.render(sampleRate: Int(rate))
        let fundamental = power(x, at: Chime.fundamental, rate: rate)
        let octave = power(x, at: Chime.fundamental * 2, rate: rate)
        let between = power(x, at: Chime.fundamental * 1.5, rate: rate)  // no partial here
        #expect(fundamental > 100 * between)
        #expect(octave > 10 * between)
        #expect(fundamental > octave)
    }
}
