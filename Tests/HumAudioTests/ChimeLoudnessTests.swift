import Testing

@testable import HumAudio
@testable import HumCore

@Suite struct ChimeLoudnessTests {
    /// The player's chime is scaled to the sounds' loudness, measured as it plays (dual mono), at the stream's rate.
    @Test(arguments: [(48_000, -23.0), (44_100, -30.0)])
    func theChimeIsMatchedToTheSoundsLoudness(rate: Int, target: Double) throws {
        let chime = Chime.matched(rate: rate, targetLUFS: target)
        #expect(chime.channels == 1 && chime.frames == Int(1.5 * Double(rate)))
        let samples = (0..<chime.frames).map { Float(chime.samples[$0]) / 32768 }
        let measured = try LoudnessMeter.measure(samples, channels: 1, sampleRate: rate)
        #expect(abs(measured.integratedLUFS - target) < 0.1, "\(measured.integratedLUFS)")
    }
}
