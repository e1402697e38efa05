import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

@testable import HumAudio

/// `hum focus` as a person runs it: real time, real audio, the real database.
@Suite(.serialized) struct FocusEndToEndTests {
    /// A hook that writes each phase change with a precise wall time, to line the audio up with the phases.
    func eventLog(_ box: Sandbox) throws -> (hook: String, log: String) {
        let log = box.path("events.log")
        let hook = box.path("hook.sh")
        try
            ("#!/bin/sh\necho \"$HUM_EVENT $HUM_PHASE $HUM_ROUND $HUM_ROUNDS $HUM_SESSION_ID $(date +%s.%N)\" >> "
            + "\(log)\n")
            .write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        // Read by sh rather than executed: a file just written can be "busy" for exec (ETXTBSY) while any child
        // another test spawned at that moment still holds the writer's descriptor, and the hook would not run.
        return ("/bin/sh " + hook, log)
    }

    /// The sandbox's player's status now (nil when it does not answer).
    func playerStatus(_ box: Sandbox, _ environment: [String: String] = [:]) -> PlayerStatus? {
        let socket = ControlSocketPath(environment: box.audioEnvironment.merging(environment) { $1 })
        return (try? ControlClient.connect(to: socket)?.request(.status))?.status
    }

    /// The rounds the sandbox's player runs now (nil when it runs none or does not answer).
    func rounds(_ box: Sandbox) -> PlayerStatus.Focus? { playerStatus(box)?.focus }

    func sessions(_ box: Sandbox) throws -> [[String: Any]] {
        let run = try box.hum(["history", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return object?["sessions"] as? [[String: Any]] ?? []
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio daemon started by scripts/test.sh"))
    func roundsDriveTheMixAndAreRecorded() throws {
        let box = Sandbox()
        let (hook, log) = try eventLog(box)
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        // Built-in rain, from the repository's library.
        var env = sink.environment
        env["HUM_SOUNDS_DIR"] =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds").path
        let run = try box.hum(
            [
                "focus", "rain=60", "--focus", "4s", "--short-break", "3s", "--rounds", "2", "--fade", "1s",
                "--on-event", hook,
            ], environment: env)
        let left = try sink.stop()
        #expect(run.status == 0, "\(run.stderr)")

        // Not a terminal: one line per phase change.
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 4, "\(run.stdout)")
        #expect(lines.first?.hasSuffix("start focus 1/2 00:04") == true)
        #expect(lines.last?.contains("finish") == true)

        // The hook saw every phase change.
        let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ")
        }
        #expect(
            events.map { "\($0[0]) \($0[1]) \($0[2])" } == [
                "start focus 1", "start short-break 1", "start focus 2", "finish finished 2",
            ])

        // Line the audio up by its chimes: each phase that runs out ends with one (a sharp onset over near silence).
        let env50 = envelope(left)
        var chimes: [Double] = []
        for i in 1..<env50.count where env50[i].rms > 0.015 && env50[i - 1].rms < 0.01 {
            // One chime lasts 1.5 s: a dip inside it (a scheduling hiccup on a loaded machine) is not a new one.
            if let last = chimes.last, env50[i].time - last < 1.6 { continue }
            chimes.append(env50[i].time)
        }
        #expect(chimes.count == 3, "chime onsets at \(chimes)")
        guard chimes.count == 3 else { return }
        let (breakStart, focus2, end) = (chimes[0], chimes[1], chimes[2])
        #expect(abs(focus2 - breakStart - 3) < 0.15 && abs(end - focus2 - 4) < 0.15)
        #expect(breakStart > 3.2, "the recording must hold all of round one")
        func level(_ from: Double, _ to: Double) -> [Float] {
            env50.filter { $0.time >= from && $0.time + 0.05 <= to }.map(\.rms)
        }
        let steady1 = level(breakStart - 2.8, breakStart - 1.2)
        let steady2 = level(focus2 + 1.2, end - 1.2)
        let typical = steady1.sorted()[steady1.count / 2]
        // Audible through both focus rounds.
        #expect(typical > 0.001)
        #expect(steady1.allSatisfy { $0 > typical / 3 })
        #expect(!steady2.isEmpty && steady2.allSatisfy { $0 > typical / 3 })
        // Fading over the last second of round one: lower in its second half, near silence at its end.
        func mean(_ values: [Float]) -> Float { values.reduce(0, +) / Float(max(values.count, 1)) }
        let early = mean(level(breakStart - 0.95, breakStart - 0.6))
        let late = mean(level(breakStart - 0.35, breakStart - 0.1))
        #expect(early < typical * 0.6 && early > typical * 0.02, "early \(early), typical \(typical)")
        #expect(late < typical * 0.1, "late \(late), typical \(typical)")
        // The break: the chime rings at its start, then silence (exact zeros) until round two.
        #expect(level(breakStart, breakStart + 0.5).max()! > typical)
        #expect(level(breakStart + 1.75, focus2 - 0.1).allSatisfy { $0 == 0 })

        // The records: two completed focus rounds and one completed break, with the mix, and the earnings.
        let records = try sessions(box)
        #expect(records.map { $0["kind"] as? String } == ["focus", "short-break", "focus"])
        #expect(records.allSatisfy { $0["status"] as? String == "completed" })
        #expect(records.map { $0["active_seconds"] as? Int } == [4, 3, 4])
        #expect((records[0]["mix"] as? [[String: Any]])?.first?["sound"] as? String == "rain")
        #expect(records[0]["earned_seconds"] as? Int == 1)  // floor(4 / 3)
    }

    /// `hum focus` sent to a running player: its round fades the player's mix out to silence at the deadline with
    /// the chime, is recorded as from a `hum focus` of its own, and the mix comes back when the rounds are over.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio daemon started by scripts/test.sh"))
    func roundsOnARunningPlayerFadeChimeAndGiveTheMixBack() throws {
        let box = Sandbox()
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        var env = sink.environment
        env["HUM_SOUNDS_DIR"] =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds").path
        let player = try box.startHum(["play", "rain=60"], environment: env)
        let socket = ControlSocketPath(environment: box.audioEnvironment.merging(env) { $1 })
        #expect(eventually(within: 10) { (try? ControlClient.connect(to: socket)) != nil }, "\(player.stderr)")
        #expect(sink.waitForSound(), "the player was not heard")
        // The mix's fade in (1 s) is over before the round, whose level is measured.
        #expect(sink.waitForRecording(1), "the recording stalled")
        let focus = try box.hum(["focus", "--focus", "3s", "--rounds", "1", "--fade", "1s"], environment: env)
        #expect(focus.status == 0, "\(focus.stderr)")
        // The round (3 s), then the mix back for a while: the recording holds 3.5 s after the round's end.
        #expect(
            eventually(within: 15) { playerStatus(box, env).map { $0.focus == nil } ?? false }, "the round did not end")
        let over = Date().timeIntervalSince(sink.recordingStarted)
        #expect(eventually { sink.recordedSeconds >= over + 3.6 }, "the recording stalled")
        player.signal(SIGTERM)
        #expect(player.wait() == 0, "\(player.stderr)")
        let left = try sink.stop()
        let env50 = envelope(left)
        // The round's end: the chime's onset over the silence the fade reached.
        var chimes: [Double] = []
        for i in 1..<env50.count where env50[i].rms > 0.015 && env50[i - 1].rms < 0.01 {
            if let last = chimes.last, env50[i].time - last < 1.6 { continue }
            chimes.append(env50[i].time)
        }
        #expect(chimes.count == 1, "chime onsets at \(chimes)")
        guard let end = chimes.first else { return }
        func level(_ from: Double, _ to: Double) -> [Float] {
            env50.filter { $0.time >= from && $0.time + 0.05 <= to }.map(\.rms)
        }
        func mean(_ values: [Float]) -> Float { values.reduce(0, +) / Float(max(values.count, 1)) }
        let before = level(end - 2.9, end - 1.2)
        #expect(!before.isEmpty)
        let typical = before.sorted()[before.count / 2]
        #expect(typical > 0.001)
        #expect(mean(level(end - 0.3, end - 0.05)) < typical * 0.1, "silent at the deadline")
        // The mix comes back after the rounds (a 1 s fade in, after the chime).
        let after = level(end + 2.0, end + 3.5)
        #expect(!after.isEmpty && mean(after) > typical / 3, "the mix plays on: \(mean(after)) vs \(typical)")
        let rounds = try sessions(box)
        #expect(rounds.map { $0["kind"] as? String } == ["focus"])
        #expect(rounds.first?["status"] as? String == "completed")
        #expect(rounds.first?["active_seconds"] as? Int == 3)
        #expect((rounds.first?["mix"] as? [[String: Any]])?.first?["sound"] as? String == "rain")
    }

    /// kill -9 in the middle of a round: the next hum command records it as interrupted with its real active
    /// time, and the ledger has no grant for it.
    @Test func aKilledSessionLeavesAnInterruptedRoundAndNoGrant() throws {
        let box = Sandbox()
        let hum = try box.startHum(["focus", "--no-sound", "--focus", "1m", "--rounds", "1"])
        // Past the first heartbeat (every 5 s), by the round's own clock.
        #expect(eventually(within: 20) { (rounds(box)?.remainingSeconds ?? 60) <= 53 }, "\(hum.stderr)")
        hum.signal(SIGKILL)
        hum.wait()
        let records = try sessions(box)
        #expect(records.count == 1)
        let round = try #require(records.first)
        #expect(round["kind"] as? String == "focus")
        #expect(round["status"] as? String == "interrupted")
        let active = round["active_seconds"] as? Int ?? -1
        #expect(active >= 5 && active <= 8, "active \(active) s")
        #expect(round["earned_seconds"] as? Int == 0)
        let bank = try box.hum(["bank", "--json"])
        let balance =
            (try JSONSerialization.jsonObject(with: Data(bank.stdout.utf8)) as? [String: Any])?["balance_seconds"]
            as? Int
        #expect(balance == 0)
    }

    /// A second `hum focus` goes to the running player, which already runs rounds: refused, naming it.
    @Test func aSecondFocusRefusesAndNamesTheFirst() throws {
        let box = Sandbox()
        let first = try box.startHum(["focus", "--no-sound", "--focus", "1m"])
        defer {
            first.signal(SIGKILL)
            first.wait()
        }
        #expect(eventually(within: 10) { rounds(box) != nil }, "\(first.stderr)")
        let second = try box.hum(["focus", "--no-sound"])
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("hum: focus rounds are already running (pid \(first.pid), focus 1/4);"))
    }

    @Test(arguments: [
        (
            ["focus", "--focus", "0s", "--no-sound"],
            "hum: --focus \"0s\" is not longer than 0s; give a positive duration\n"
        ),
        (["focus", "--focus", "0.5s", "--no-sound"], "hum: focus is 500ms: use 1s or more\n"),
        (["focus", "--rounds", "many", "--no-sound"], "hum: --rounds \"many\" is not a whole number from 1 to 1000\n"),
        (
            ["focus", "--auto-advance", "sometimes", "--no-sound"],
            "hum: --auto-advance \"sometimes\" is not one of all, none, to-break or to-focus\n"
        ),
        (["focus", "rain", "--no-sound"], "hum: --no-sound plays nothing; leave out the sounds or drop --no-sound\n"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], expected: String) throws {
        let run = try Sandbox().hum(arguments)
        #expect(run.status == 2)
        #expect(run.stderr == expected)
    }
}
