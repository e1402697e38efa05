import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// A user loop resampled to the output rate wraps exactly: a tone that loops seamlessly at 44.1 kHz has no phase
/// jump at the wrap at 48 kHz. Before, the loop kept round(L · 48000 / 44100) frames of a resampling at the true
/// ratio: 44,173 frames became 48,079 where the tone needs 48,079.456, a 0.6 rad jump at every wrap.
@Suite struct ResampledWrapTests {
    /// Runs sox with `arguments`; fails the test if it fails.
    static func sox(_ arguments: [String]) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        child.arguments = arguments
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        try #require(child.terminationStatus == 0, "sox \(arguments)")
    }

    /// The phase (radians) at t = 0 of the sine of angular frequency `omega` (per frame) that best fits `samples`,
    /// the first of which is at time `t0` (a least-squares fit of a·cos + b·sin).
    static func phase(_ samples: ArraySlice<Float>, t0: Int, omega: Double) -> Double {
        var cc = 0.0
        var ss = 0.0
        var cs = 0.0
        var yc = 0.0
        var ys = 0.0
        for (k, y) in samples.enumerated() {
            let t = Double(t0 + k)
            let c = cos(omega * t)
            let s = sin(omega * t)
            cc += c * c
            ss += s * s
            cs += c * s
            yc += Double(y) * c
            ys += Double(y) * s
        }
        let det = cc * ss - cs * cs
        let a = (yc * ss - ys * cs) / det
        let b = (ys * cc - yc * cs) / det
        return atan2(-b, a)  // a·cos(ωt) + b·sin(ωt) = A·cos(ωt + φ)
    }

    static func wrapped(_ x: Double) -> Double { atan2(sin(x), cos(x)) }

    /// The phase jump at the loop's wrap, in radians: the tone fitted over `window` frames before the end (as
    /// played into the wrap) against the tone fitted over `window` frames from the start, both read at the wrap.
    /// The frequency is the loop's own, refined from two fits far apart inside the loop.
    static func wrapJump(_ loop: [Float], nominal: Double, window: Int = 1500) -> Double {
        let n = loop.count
        var omega = 2 * Double.pi * nominal
        let (p, q) = (n / 8, n / 8 + 3 * n / 4 - window)
        for _ in 0..<2 {
            // With ω off by δ, a window's fitted phase drifts by δ times its time: δ = Δφ / (q − p).
            let ap = phase(loop[p..<(p + window)], t0: p, omega: omega)
            let aq = phase(loop[q..<(q + window)], t0: q, omega: omega)
            omega += wrapped(aq - ap) / Double(q - p)
        }
        let before = phase(loop[(n - window)..<n], t0: -window, omega: omega)
        let after = phase(loop[0..<window], t0: 0, omega: omega)
        return wrapped(after - before)
    }

    @Test func aTenKilohertzToneAt44100WrapsWithoutAPhaseJumpAt48000() throws {
        let dir = temporaryDirectory()
        let path = dir + "/tone.wav"
        // 44,173 frames holding exactly 10,000 cycles (9983.5 Hz): it loops seamlessly at its own rate, and
        // 44,173 · 48000 / 44100 = 48,079.456 is not a whole number of frames.
        let frames = 44_173
        let frequency = 10_000.0 * 44_100 / Double(frames)
        try Self.sox([
            "-r", "44100", "-n", "-c", "1", "-b", "24", path, "synth", "\(frames)s", "sine",
            String(format: "%.9f", frequency), "vol", "0.5",
        ])
        let sound = SoundReference(name: "tone", title: "tone", path: path, source: .user, loop: nil, loudnessLUFS: nil)
        let loop = try TrackLoader.load(sound, outputRate: 48000).loop
        #expect(loop.frames == 48_079)
        let samples = (0..<loop.frames).map { loop.sample(frame: $0, channel: 0) }
        // 10,000 cycles in 48,079 frames.
        let jump = Self.wrapJump(samples, nominal: 10_000 / Double(loop.frames))
        #expect(abs(jump) < 1e-4, "\(jump) rad at the wrap")
        // The loop wrapped exactly: its last sample runs into its first as any two neighbours do.
        let step = abs(samples[0] - samples[loop.frames - 1])
        let steps = (1..<loop.frames).map { abs(samples[$0] - samples[$0 - 1]) }
        #expect(step <= steps.max()! + 1e-4)
    }

    /// A loop of whole tone cycles, resampled, is the same tone at the output rate at every frame: at the wrap,
    /// where the frames made in the second time round take over from the first (about 50 ms in), and in a loop
    /// shorter than that. And the resampler reads the loop once, plus its head: a loop whose length shares no
    /// factor with its length at the output rate was read twice before.
    @Test(arguments: [(44_173, 1, 10_000), (44_173, 2, 331), (44_100, 2, 997), (1_001, 1, 23), (300, 2, 7)])
    func aLoopOfWholeCyclesIsTheSameToneAtEveryFrameAndIsReadOnce(frames: Int, channels: Int, cycles: Int) throws {
        let input = (0..<frames).flatMap { i in
            [Float](repeating: 0.5 * Float(sin(2 * Double.pi * Double(cycles * i) / Double(frames))), count: channels)
        }
        let loopOut = Resampler.loopFrames(frames, from: 44100, to: 48000)
        var out = [Float](repeating: .nan, count: loopOut * channels)
        var read = 0
        var writes = 0
        try input.withUnsafeBufferPointer { input in
            try Resampler.resampleLoop(
                frames: frames, channels: channels, from: 44100, to: 48000,
                read: { start, count, destination in
                    read += count
                    destination.update(from: input.baseAddress! + start * channels, count: count * channels)
                },
                write: { frame, block in
                    for (i, v) in block.enumerated() {
                        #expect(out[frame * channels + i].isNaN, "frame \(frame + i / channels) written twice")
                        out[frame * channels + i] = v
                    }
                    writes += block.count
                })
        }
        #expect(writes == loopOut * channels)
        #expect(read <= frames + Resampler.headPaddingFrames(from: 44100, to: 48000))
        // The tone's phase at output frame j is 2π · cycles · j / Lout (the ratio is Lout / L exactly).
        var worst = 0.0
        var worstFrame = 0
        for j in 0..<loopOut {
            let expected = 0.5 * sin(2 * Double.pi * Double(cycles) * Double(j) / Double(loopOut))
            for c in 0..<channels where abs(Double(out[j * channels + c]) - expected) > worst {
                worst = abs(Double(out[j * channels + c]) - expected)
                worstFrame = j
            }
        }
        #expect(worst < 1e-4, "off by \(worst) at frame \(worstFrame) of \(loopOut)")
    }
}
