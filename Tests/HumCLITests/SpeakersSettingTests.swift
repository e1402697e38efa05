import Foundation
import HumCore
import Testing

@testable import HumAudio

/// `play.speakers` reaches the loader from the database and from HUM_SPEAKERS: `small` renders the heartbeat
/// high-passed and lifted, `full` (the default) as it always was.
@Suite struct SpeakersSettingTests {
    /// The samples of a 4 s float render of the heartbeat at 100.
    func render(_ s: Sandbox, _ extra: [String: String] = [:]) throws -> [Float] {
        let out = s.root + "/out-\(UUID().uuidString).wav"
        let r = try runBinary(
            ["render", "heartbeat=100", "--for", "4s", "--fade", "0", "--format", "f32", "-o", out],
            environment: s.environment.merging(extra) { $1 })
        #expect(r.code == 0, "\(r.err)")
        return try AudioFileReader.decode(path: out).samples
    }

    static func power(_ x: [Float]) -> Double { x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count) }

    @Test func theSettingAndItsVariableMakeTheLoopsForSmallSpeakers() throws {
        let s = Sandbox()
        let plain = try render(s)
        #expect(try render(s, ["HUM_SPEAKERS": "full"]) == plain)
        let small = try render(s, ["HUM_SPEAKERS": "small"])
        // High-passed (its weight under 150 Hz gone) and lifted by about 15 dB: another signal, with more power.
        #expect(small.count == plain.count && small != plain)
        let lift = 10 * log10(Self.power(small) / Self.power(plain))
        #expect(lift > 0.5 && lift < 15, "\(lift) dB")
        let set = try runBinary(["config", "set", "play.speakers", "small"], environment: s.environment)
        #expect(set.code == 0, "\(set.err)")
        #expect(try render(s) == small)
        #expect(try render(s, ["HUM_SPEAKERS": "full"]) == plain)  // the variable wins over the stored value
        let bad = try runBinary(["config", "set", "play.speakers", "tiny"], environment: s.environment)
        #expect(bad.code == 2, "\(bad.err)")
    }

    /// A value the variable cannot hold is said, as `hum play` says it, and the render goes on with the default.
    @Test func renderSaysAVariableItCannotRead() throws {
        let s = Sandbox()
        let out = s.root + "/out.wav"
        let r = try runBinary(
            ["render", "heartbeat=100", "--for", "1s", "-o", out],
            environment: s.environment.merging(["HUM_SPEAKERS": "tiny"]) { $1 })
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("HUM_SPEAKERS") && r.err.hasPrefix("hum: "), "\(r.err)")
    }
}
