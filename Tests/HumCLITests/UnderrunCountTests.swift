import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

/// The player counts the times the sound server ran dry (issue 27: "no underrun in a 10-minute run" is read from
/// this count): `hum play --verbose` says it as it ends, and the status carries it while it plays.
@Suite(.serialized) struct UnderrunCountTests {
    /// The count of the `--verbose` end line (`hum: audio: 2 underruns in 00:03`), nil when there is none.
    func underruns(in stderr: String) -> Int? {
        for line in stderr.split(separator: "\n") where line.hasPrefix("hum: audio: ") && line.contains(" in ") {
            let words = line.dropFirst("hum: audio: ".count).split(separator: " ")
            if words.count >= 2, words[1].hasPrefix("underrun") { return Int(words[0]) }
        }
        return nil
    }

    /// A player stopped for 300 ms (SIGSTOP) misses the server's requests: the 100 ms it keeps queued plays out
    /// and the server reports an underflow, which the player counts, shows in its status, and says at its end.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func aStoppedPlayerCountsTheUnderrun() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(["play", "\(tone)=80", "--for", "4s", "--verbose"], environment: sink.environment)
        #expect(sink.waitForSound(), "hum was not heard: \(hum.stderr)")
        let before = playerStatus(box, sink.environment)?.underruns
        hum.signal(SIGSTOP)
        usleep(300_000)  // a time: three times what the server keeps queued, so the stream runs dry
        hum.signal(SIGCONT)
        #expect(sink.waitForRecording(0.5), "the recording stalled")
        let after = playerStatus(box, sink.environment)?.underruns
        let status = hum.wait()
        _ = try sink.stop()

        #expect(status == 0, "\(hum.stderr)")
        #expect(before == 0, "underruns before the stop: \(String(describing: before))")
        #expect((after ?? 0) >= 1, "underruns in the status after the stop: \(String(describing: after))")
        let said = underruns(in: hum.stderr)
        #expect((said ?? 0) >= 1, "\(hum.stderr)")
        #expect(said == nil || after == nil || said! >= after!)
        // When: the stop came about a second in, well within the first four seconds.
        #expect(hum.stderr.contains(" (at 00:0"), "\(hum.stderr)")
    }

    /// A player left alone plays without an underrun, and says so.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func aSteadyPlayerCountsNone() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let played = try box.hum(["play", "\(tone)=80", "--for", "2s", "--verbose"], environment: sink.environment)
        _ = try sink.stop()
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("the sound server (native stream"), "\(played.stderr)")
        #expect(underruns(in: played.stderr) == 0, "\(played.stderr)")
    }

    func playerStatus(_ box: Sandbox, _ environment: [String: String]) -> PlayerStatus? {
        let socket = ControlSocketPath(environment: box.audioEnvironment.merging(environment) { $1 })
        return (try? ControlClient.connect(to: socket)?.request(.status))?.status
    }
}
