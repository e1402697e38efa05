import HumCore

extension Player {
    /// The audio engine said something: it started, finished, lost its device, got it back.
    func engineChanged() {
        guard let audio else { return }
        audio.reclaim()  // sounds the audio thread let go of
        if audio.hasStarted, let ready = onReady {
            onReady = nil
            ready()
        }
        if audio.hasStarted, let run = pendingFocus {
            pendingFocus = nil
            focus = run
            do {
                try run.begin()
            } catch let error as any UserFacingError {
                environment.warn(error.message)
                stop()
            } catch {
                stop()
            }
            changed([.focus])
        }
        switch audio.engineState {
        case .finished:
            finish()
        case .deviceLost:
            if state == .stopping {
                audio.abort()
                finish()
                return
            }
            if !reportedLost {
                reportedLost = true
                deviceNote = "waiting for the audio device"
                let reason = audio.lostReason.map { " (\($0))" } ?? ""
                environment.warn(
                    "the audio device \(audio.device.quoted) went away\(reason); the mix is kept and plays again "
                        + "when it returns"
                )
                changed([.note])
            }
        case .playing:
            if reportedLost {
                reportedLost = false
                deviceNote = nil
                environment.warn("the audio device \(audio.device.quoted) is back")
                changed([.note])
            }
        case .idle:
            break
        }
    }
}

extension Player {
    /// `--verbose`, as the player ends: how many times the audio device ran dry while it ran, and when, counted
    /// from the start of the audio (`hum: audio: 0 underruns in 10:00`, `hum: audio: 2 underruns in 10:00 (at
    /// 01:02, 04:30)`), the figure the goal of a player that never skips is read from (docs/PERFORMANCE.md).
    func sayUnderruns() {
        guard verboseAudio, let audio else { return }
        let count = audio.underruns
        let ran = DurationText.clock(seconds: Int64((loop.monotonicSeconds - started).rounded()))
        environment.stderr.write(
            "hum: audio: \(count) underrun\(count == 1 ? "" : "s") in \(ran)"
                + Player.underrunTimes(audio.underrunSeconds, of: count) + "\n")
    }

    /// ` (at 01:02, 04:30)`, or ` (the first 64 at …)` when the engine kept fewer times than it counted; empty
    /// without underruns.
    static func underrunTimes(_ seconds: [Double], of count: Int) -> String {
        guard !seconds.isEmpty else { return "" }
        let times = seconds.map { DurationText.clock(seconds: Int64($0.rounded(.down))) }.joined(separator: ", ")
        return seconds.count < count ? " (the first \(seconds.count) at \(times))" : " (at \(times))"
    }
}
