import HumCore

/// What is drawn where, for a size and a state. Two forms: the desk form (80×24 and up to fit; from 50×20) with
/// the time in big digits, the mixer and the bank side by side; and the small form (down to 40×12 and below) with
/// the time in normal digits and the bank on one line. With the controls hidden, only the time and one summary
/// line remain, in the middle of the screen.
public enum DeskLayout {
    /// The smallest size that shows the big digits.
    public static let bigColumns = 50
    public static let bigRows = 20
    /// The bank column's width in the desk form.
    static let bankWidth = 26

    public static func frame(_ state: DeskState, columns: Int, rows: Int) -> DeskFrame {
        var frame = DeskFrame(columns: columns, rows: rows)
        guard columns > 0, rows > 0 else { return frame }
        let big = columns >= bigColumns && rows >= bigRows
        if !state.controlsShown {
            calm(state, big: big, into: &frame)
        } else if big {
            desk(state, into: &frame)
        } else {
            small(state, into: &frame)
        }
        return frame
    }

    // MARK: The pieces

    /// The big or small time: the countdown during focus rounds, else the time of day.
    static func timeText(_ state: DeskState) -> String {
        var text = state.clock
        if let focus = state.status?.focus { text = DurationText.clock(seconds: focus.remainingSeconds) }
        // A blinking colon (only when asked for) takes the room of one, as a space.
        if state.blink, state.nowEpoch % 2 != 0 { text = String(text.map { $0 == ":" ? " " : $0 }) }
        return text
    }

    /// Under the time: the phase, round n/N and the goal; in a break, what comes next.
    static func caption(_ state: DeskState) -> String {
        guard let status = state.status else { return "connecting to the player…" }
        guard let focus = status.focus else {
            if status.state == .stopping { return "stopping…" }
            return status.state == .paused ? "paused" : "f starts focus rounds"
        }
        var parts: [String] = []
        switch focus.phase {
        case .focus:
            parts.append("focus · round \(focus.round)/\(focus.rounds)")
            if let goal = focus.goal, !goal.isEmpty { parts.append(VisibleText.escape(goal)) }
        case .shortBreak, .longBreak:
            let name = focus.phase == .longBreak ? "long break" : "break"
            parts.append("\(name) · next: focus \(min(focus.round + 1, focus.rounds))/\(focus.rounds)")
        }
        if focus.waiting {
            parts.append("space starts it")
        } else if focus.paused || status.state == .paused {
            parts.append("paused")
        } else if state.fading {
            parts.append("fading out")
        }
        return parts.joined(separator: " · ")
    }

    /// The phase's progress as a bar of `width` cells and a percentage.
    static func progress(_ focus: PlayerStatus.Focus, width: Int) -> [DeskFrame.Span] {
        let planned = max(focus.plannedSeconds, 1)
        let done = min(1, max(0, Double(planned - focus.remainingSeconds) / Double(planned)))
        let cells = max(width, 1)
        let filled = Int((done * Double(cells)).rounded(.down))
        return [
            DeskFrame.Span(String(repeating: "█", count: filled)),
            DeskFrame.Span(String(repeating: "░", count: cells - filled), .dim),
            DeskFrame.Span(" \(Int((done * 100).rounded(.down)))%"),
        ]
    }

    /// A volume as a bar of `width` cells.
    static func bar(_ volume: Double, width: Int, muted: Bool) -> [DeskFrame.Span] {
        let filled = Int((min(100, max(0, volume)) / 100 * Double(width)).rounded())
        return [
            DeskFrame.Span(String(repeating: "█", count: filled), muted ? .dim : .plain),
            DeskFrame.Span(String(repeating: "░", count: width - filled), .dim),
        ]
    }

    static func pad(_ text: String, _ width: Int) -> String {
        DisplayWidth.padded(DisplayWidth.fit(text, columns: width), to: width)
    }

    /// The one-line summary: the sounds and their volumes, the master, the bank.
    static func summary(_ state: DeskState) -> String {
        guard let status = state.status else { return "" }
        let sounds = status.mix.tracks.map {
            "\(VisibleText.escape($0.displayName)) \($0.muted ? "muted" : MixSpec.formatVolume($0.volume))"
        }
        var parts = ["♪ " + (sounds.isEmpty ? "no sounds" : sounds.joined(separator: " · "))]
        parts.append("master \(MixSpec.formatVolume(status.mix.master))")
        if let bank = state.bank { parts.append("bank \(DurationText.format(seconds: bank.balanceSeconds))") }
        if let shields = shieldsSummary(state) { parts.append("shields: " + shields) }
        return parts.joined(separator: " │ ")
    }

    static func earnedSpans(_ state: DeskState) -> [DeskFrame.Span]? {
        guard let earned = state.earned, earned > 0 else { return nil }
        return [DeskFrame.Span(" +\(DurationText.format(seconds: earned)) earned ", .accent)]
    }

    static func bankLines(_ state: DeskState) -> [(String, String)] {
        guard let bank = state.bank else { return [("bank", "cannot be read")] }
        func f(_ s: Int64) -> String { DurationText.format(seconds: s) }
        var lines = [
            ("balance", f(bank.balanceSeconds)),
            ("today", "\(f(bank.earnedTodaySeconds)) / \(f(bank.dailyCapSeconds))"),
            ("reserve", "\(f(bank.emergencyLeftSeconds)) / \(f(bank.emergencyWeeklySeconds))"),
        ]
        if let pass = bank.pass {
            let label = pass.label.map { VisibleText.escape($0) + " " } ?? ""
            lines.append(("pass", "\(label)\(f(state.secondsLeft(pass))) left"))
        } else {
            lines.append(("pass", "none open"))
        }
        return lines
    }

    /// One line per shield for the bank's column: its name, then `up`, `lifted until 14:32`, `off until 15:00`.
    static func shieldLines(_ state: DeskState) -> [String] {
        (state.status?.shields ?? []).map { shield in
            pad(VisibleText.escape(shield.name), 7) + " " + shieldState(shield)
        }
    }

    /// `up`, `lifted until 14:32`: a shield's state as the screen says it.
    static func shieldState(_ shield: ShieldLine) -> String {
        shield.until.map { "\(shield.state) until \($0.localClock)" } ?? shield.state
    }

    /// The shields on one line: `games up, social lifted until 14:32`; nil when there are none.
    static func shieldsSummary(_ state: DeskState) -> String? {
        guard let shields = state.status?.shields, !shields.isEmpty else { return nil }
        return shields.map { VisibleText.escape($0.name) + " " + shieldState($0) }.joined(separator: ", ")
    }

    static func header(_ state: DeskState, into frame: inout DeskFrame, clock: Bool) {
        var left = " hum"
        if let name = state.status?.mix.name { left += " · @" + VisibleText.escape(name) }
        frame.put(0, 0, left, .bold)
        var right = ""
        if let status = state.status {
            right = status.state == .playing ? "playing" : status.state == .paused ? "paused" : "stopping…"
            if status.focus?.paused == true { right = "paused" }
        }
        if clock, state.status?.focus != nil { right = state.clock + "  " + right }
        if !right.isEmpty, right.count + left.count + 2 <= frame.columns {
            frame.put(0, frame.columns - right.count - 1, right, .dim)
        }
    }

    // MARK: The mixer

    /// The mixer's lines from `top` to `bottom` (inclusive) in columns `left..<left + width`: a line per sound
    /// (the cursor, the name, the bar, the number or "muted"), then the master. Scrolls to keep the cursor seen.
    static func mixer(
        _ state: DeskState, top: Int, bottom: Int, left: Int, width: Int, into frame: inout DeskFrame
    ) {
        guard let status = state.status, bottom >= top else { return }
        let tracks = status.mix.tracks
        let selected = min(max(state.selected, 0), max(tracks.count - 1, 0))
        let nameWidth = min(12, max(6, width / 4))
        let numberWidth = 6
        let barWidth = max(4, width - nameWidth - numberWidth - 4)
        let room = bottom - top  // lines for sounds; the last is the master's
        var first = 0
        if tracks.count > room, room > 0 { first = min(max(0, selected - room + 1), tracks.count - room) }
        var row = top
        if tracks.isEmpty {
            frame.put(row, left, "  no sounds: a adds one", .dim)
            row += 1
        }
        for index in tracks.indices.dropFirst(first) where row < bottom {
            let track = tracks[index]
            let mark = index == selected ? "› " : "  "
            let name = pad(VisibleText.escape(track.displayName), nameWidth)
            let number = track.muted ? " muted" : pad(" " + MixSpec.formatVolume(track.volume), numberWidth)
            var spans = [
                DeskFrame.Span(mark),
                DeskFrame.Span(name, index == selected ? .reverse : (track.muted ? .dim : .plain)),
                DeskFrame.Span(" "),
            ]
            spans += bar(track.volume, width: barWidth, muted: track.muted)
            spans.append(DeskFrame.Span(number, track.muted ? .dim : .plain))
            frame.put(row, left, spans)
            frame.bars.append(
                DeskFrame.Bar(row: row, column: left + 3 + nameWidth, width: barWidth, sound: track.sound, index: index)
            )
            row += 1
        }
        var master = [DeskFrame.Span("  "), DeskFrame.Span(pad("master", nameWidth), .bold), DeskFrame.Span(" ")]
        master += bar(status.mix.master, width: barWidth, muted: false)
        master.append(DeskFrame.Span(pad(" " + MixSpec.formatVolume(status.mix.master), numberWidth)))
        frame.put(row, left, master)
        frame.bars.append(
            DeskFrame.Bar(row: row, column: left + 3 + nameWidth, width: barWidth, sound: nil, index: nil))
    }

    // MARK: The panels

    /// The add, save, load or help panel in rows `top...bottom`.
    static func panel(_ state: DeskState, top: Int, bottom: Int, into frame: inout DeskFrame) {
        let width = frame.columns - 2
        switch state.panel {
        case .main: return
        case .add:
            frame.put(top, 1, [DeskFrame.Span("add a sound: ", .bold), DeskFrame.Span(state.filter + "▏")])
            let matches = state.matches
            let room = max(0, bottom - top - 1)
            if matches.isEmpty {
                frame.put(top + 1, 3, "no sound matches; backspace to widen", .dim)
            }
            let first =
                matches.count > room && room > 0 ? min(max(0, state.cursor - room + 1), matches.count - room) : 0
            let nameWidth = min(12, max(6, width / 4))
            for (offset, sound) in matches.dropFirst(first).prefix(room).enumerated() {
                let index = first + offset
                let chosen = index == state.cursor
                frame.put(
                    top + 1 + offset, 1,
                    [
                        DeskFrame.Span(chosen ? "› " : "  "),
                        DeskFrame.Span(pad(VisibleText.escape(sound.name), nameWidth), chosen ? .reverse : .plain),
                        DeskFrame.Span(" " + VisibleText.escape(sound.description), .dim),
                    ])
            }
            frame.put(bottom, 1, "type to filter · ↑/↓ choose · enter adds · esc back", .dim)
        case .save:
            frame.put(top, 1, [DeskFrame.Span("save the mix as: ", .bold), DeskFrame.Span(state.name + "▏")])
            if let status = state.status {
                frame.put(top + 2, 3, VisibleText.escape(status.mix.summary), .dim)
            }
            frame.put(bottom, 1, "letters, digits, - _ . · enter saves · esc back", .dim)
        case .load:
            frame.put(top, 1, "load a saved mix", .bold)
            if state.mixes.isEmpty {
                frame.put(top + 1, 3, "no saved mixes yet: S saves this one", .dim)
            }
            let room = max(0, bottom - top - 1)
            let first =
                state.mixes.count > room && room > 0
                ? min(max(0, state.cursor - room + 1), state.mixes.count - room) : 0
            let nameWidth = min(16, max(8, (state.mixes.map { $0.name.count }.max() ?? 0) + 2))
            for (offset, mix) in state.mixes.dropFirst(first).prefix(room).enumerated() {
                let chosen = first + offset == state.cursor
                frame.put(
                    top + 1 + offset, 1,
                    [
                        DeskFrame.Span(chosen ? "› " : "  "),
                        DeskFrame.Span(pad("@" + VisibleText.escape(mix.name), nameWidth), chosen ? .reverse : .plain),
                        DeskFrame.Span(" " + VisibleText.escape(mix.summary), .dim),
                    ])
            }
            frame.put(bottom, 1, "↑/↓ choose · enter loads · esc back", .dim)
        case .help:
            frame.put(top, 1, "keys", .bold)
            let keys = DeskKeys.help
            let room = max(1, bottom - top)
            let columnsOfKeys = keys.count > room && width >= 70 ? 2 : 1
            let perColumn = (keys.count + columnsOfKeys - 1) / columnsOfKeys
            let columnWidth = width / columnsOfKeys
            for (index, entry) in keys.enumerated() {
                let column = index / perColumn
                let row = top + 1 + index % perColumn
                guard row <= bottom else { continue }
                frame.put(
                    row, 1 + column * columnWidth,
                    [DeskFrame.Span(pad(entry.keys, 6), .bold), DeskFrame.Span(" " + entry.what)])
            }
        }
    }

    // MARK: The forms

    /// The desk form: big digits, caption and progress, then the mixer beside the bank, a message line, the keys.
    static func desk(_ state: DeskState, into frame: inout DeskFrame) {
        let columns = frame.columns
        let rows = frame.rows
        header(state, into: &frame, clock: true)
        let digits = BigDigits.render(timeText(state))
        let digitStyle: DeskFrame.Style = state.fading || state.status?.focus?.paused == true ? .dim : .bold
        for (offset, line) in digits.enumerated() { frame.center(2 + offset, line, digitStyle) }
        frame.center(8, caption(state), .dim)
        if let focus = state.status?.focus {
            frame.center(9, progress(focus, width: min(40, columns - 20)))
        }
        let top = 11
        let bottom = rows - 3
        if state.panel != .main {
            panel(state, top: top, bottom: bottom, into: &frame)
        } else {
            let mixerWidth = columns - bankWidth - 4
            frame.put(top, 2, "sounds", .bold)
            mixer(state, top: top + 1, bottom: bottom, left: 0, width: mixerWidth, into: &frame)
            let bankLeft = columns - bankWidth
            frame.put(top, bankLeft, "bank", .bold)
            for (offset, line) in bankLines(state).enumerated() where top + 1 + offset <= bottom {
                frame.put(top + 1 + offset, bankLeft, pad(line.0, 9) + line.1)
            }
            if let earned = earnedSpans(state), top + 6 <= bottom { frame.put(top + 6, bankLeft, earned) }
            // The shields under the bank: what the bank lifts.
            let shields = shieldLines(state)
            if !shields.isEmpty, top + 8 <= bottom {
                frame.put(top + 7, bankLeft, "shields", .bold)
                let room = bottom - (top + 8) + 1
                let shown = shields.count <= room ? shields : Array(shields.prefix(room - 1))
                for (offset, line) in shown.enumerated() { frame.put(top + 8 + offset, bankLeft, line) }
                if shown.count < shields.count {
                    frame.put(bottom, bankLeft, "+\(shields.count - shown.count) more (hum shield list)", .dim)
                }
            }
        }
        footer(state, into: &frame)
    }

    /// The message (or the player's note) and the keys, on the last two rows.
    static func footer(_ state: DeskState, into frame: inout DeskFrame) {
        let rows = frame.rows
        guard rows >= 3 else { return }
        if let message = state.message ?? state.status?.note {
            frame.put(rows - 2, 1, VisibleText.escape(message))
        }
        let hint = state.panel == .main ? DeskKeys.hint : "esc back"
        frame.put(rows - 1, 1, hint.count <= frame.columns - 2 ? hint : "? keys · q quit", .dim)
    }

    /// The small form, for a small pane: the time on the header line, then the caption, the progress, the mixer,
    /// the bank on one line.
    static func small(_ state: DeskState, into frame: inout DeskFrame) {
        let columns = frame.columns
        let rows = frame.rows
        header(state, into: &frame, clock: false)
        var row = 1
        var time = timeText(state)
        if state.status?.focus != nil { time += "  (" + state.clock + ")" }
        frame.center(row, time, state.fading ? .dim : .bold)
        row += 1
        frame.center(row, caption(state), .dim)
        row += 1
        if let focus = state.status?.focus, row < rows {
            frame.center(row, progress(focus, width: max(4, min(30, columns - 12))))
            row += 1
        }
        let bottom = rows - 3
        if state.panel != .main {
            panel(state, top: row, bottom: bottom, into: &frame)
        } else {
            mixer(state, top: row, bottom: bottom - 1, left: 0, width: columns, into: &frame)
            if bottom >= row {
                if let earned = earnedSpans(state) {
                    frame.put(bottom, 1, earned)
                } else if let bank = state.bank {
                    let f = DurationText.format(seconds:)
                    var text =
                        "bank \(f(bank.balanceSeconds)) · today "
                        + "\(f(bank.earnedTodaySeconds))/\(f(bank.dailyCapSeconds))"
                    if let pass = bank.pass { text += " · pass \(f(state.secondsLeft(pass)))" }
                    frame.put(bottom, 1, text, .dim)
                }
                // The shields on the row under the bank (the message's row when there is no message).
                if let shields = shieldsSummary(state), state.message == nil, state.status?.note == nil {
                    frame.put(bottom + 1, 1, "shields: " + shields, .dim)
                }
            }
        }
        footer(state, into: &frame)
    }

    /// Controls hidden: the time, the caption, the progress and one summary line, in the middle.
    static func calm(_ state: DeskState, big: Bool, into frame: inout DeskFrame) {
        let rows = frame.rows
        let hasFocus = state.status?.focus != nil
        let height = (big ? BigDigits.height : 1) + 2 + (hasFocus ? 1 : 0) + 2
        var row = max(0, (rows - height) / 2)
        let style: DeskFrame.Style = state.fading || state.status?.focus?.paused == true ? .dim : .bold
        if big {
            for line in BigDigits.render(timeText(state)) {
                frame.center(row, line, style)
                row += 1
            }
        } else {
            frame.center(row, timeText(state), style)
            row += 1
        }
        row += 1
        frame.center(row, caption(state), .dim)
        row += 1
        if let focus = state.status?.focus {
            frame.center(row, progress(focus, width: max(4, min(40, frame.columns - 20))))
            row += 1
        }
        row += 1
        if let earned = earnedSpans(state) {
            frame.center(row, earned)
        } else {
            frame.center(row, summary(state), .dim)
        }
    }
}
