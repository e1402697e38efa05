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
