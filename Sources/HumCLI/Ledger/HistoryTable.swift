import HumCore

/// The table `hum history` prints: rounds grouped by local day, one line each (time, kind, status, active time, a
/// short id, goal and tags), made to fit the width given (80 columns when not on a terminal).
struct HistoryTable {
    var rounds: [RoundRecord]
    var width: Int
    /// Full ids, the full start and end instants, planned and paused time and the mix.
    var long: Bool

    /// The shortest prefix of each id that tells it apart from the others shown (at least 4 characters).
    static func shortIDs(_ ids: [String]) -> [String: String] {
        let sorted = Array(Set(ids)).sorted()
        var out: [String: String] = [:]
        func common(_ a: String, _ b: String) -> Int { zip(a, b).prefix { $0 == $1 }.count }
        for (i, id) in sorted.enumerated() {
            var need = 4
            if i > 0 { need = max(need, common(id, sorted[i - 1]) + 1) }
            if i + 1 < sorted.count { need = max(need, common(id, sorted[i + 1]) + 1) }
            out[id] = String(id.prefix(need))
        }
        return out
    }

    static func weekday(_ date: CivilDate) -> String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][date.isoWeekday - 1]
    }

    static func offsetText(_ seconds: Int32) -> String {
        let a = abs(Int(seconds))
        let h = a / 3600
        let m = a % 3600 / 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// The lines, each ending in a newline.
    func render(into out: inout String, flush: (inout String) throws -> Void) rethrows {
        let f = LedgerCLI.format
        let offsets = Set(rounds.map(\.start.offsetSeconds))
        let ids = HistoryTable.shortIDs(rounds.map(\.id))
        let idWidth = min(12, ids.values.map(\.count).max() ?? 4)
        var day: CivilDate? = nil
        for r in rounds {
            let date = r.start.localDate
            if date != day {
                day = date
                var header = "\(HistoryTable.weekday(date)) \(date)"
                if offsets.count > 1 {
                    let here = Set(rounds.filter { $0.start.localDate == date }.map(\.start.offsetSeconds)).sorted()
                    header += "  (UTC" + here.map(HistoryTable.offsetText).joined(separator: ", UTC") + ")"
                }
                out += (out.isEmpty ? "" : "\n") + header + "\n"
            }
            var line = "  \(r.start.localClock)  \(r.kind.rawValue.padding(11)) \(r.status.rawValue.padding(11))"
            line += " " + LedgerCLI.rightAligned(f(r.activeSeconds), 7)
            var details: [String] = []
            if let goal = r.goal, !goal.isEmpty { details.append(goal.visible) }
            details += r.tags.map { "#" + $0.visible }
            if r.recordedByHand { details.append("(recorded by hand)") }
            if let contract = r.contractID { details.append("(contract \(ContractText.short(contract)))") }
            if long {
                out += (line + "  " + details.joined(separator: "  ")).trimmingTrailingSpaces() + "\n"
                var more = "      id \(r.id.visible)\n      \(r.start.rfc3339) to \(r.end?.rfc3339 ?? "(running)")"
                more += ", planned \(f(r.plannedSeconds)), paused \(f(r.pausedSeconds))"
                if r.kind == .focus {
                    more += r.contractID == nil ? ", earned \(f(r.earnedSeconds))" : ", earns through its contract"
                }
                if !r.mix.isEmpty {
                    more +=
                        "\n      mix "
                        + r.mix.map { "\($0.sound.visible)=\(Int(($0.volume * 100).rounded()))" }.joined(separator: " ")
                }
                out += more + "\n"
            } else {
                let id = ids[r.id] ?? r.id
                line += "  " + LedgerCLI.fit(id.visible, idWidth)
                let room = width - DisplayWidth.columns(line) - 2
                if !details.isEmpty, room > 0 {
                    line += "  " + LedgerCLI.fit(details.joined(separator: "  "), room)
                }
                while line.last == " " { line.removeLast() }
                out += line + "\n"
            }
            if out.utf8.count > 1 << 20 { try flush(&out) }
        }
    }

    /// The day and week summaries: what the rows above count (and, unfiltered, the ledger's spending and emergency
    /// draws of those days).
    static func summaries(days: [PeriodSummary], weeks: [PeriodSummary], into out: inout String) {
        let f = LedgerCLI.format
        func table(_ title: String, _ rows: [PeriodSummary]) {
            guard let first = rows.first else { return }
            var head = "\n\(title.padding(10)) " + LedgerCLI.rightAligned("focused", 8)
            head += " " + LedgerCLI.rightAligned("done", 5) + " " + LedgerCLI.rightAligned("stopped", 7)
            head += " " + LedgerCLI.rightAligned("skipped", 7) + " " + LedgerCLI.rightAligned("earned", 8)
            if first.includesLedger {
                head += " " + LedgerCLI.rightAligned("spent", 8) + " " + LedgerCLI.rightAligned("emergency", 9)
            }
            out += head + "\n"
            for s in rows {
                var line = "\(s.period.padding(10)) " + LedgerCLI.rightAligned(f(s.focusedSeconds), 8)
                line += " " + LedgerCLI.rightAligned(String(s.completed), 5)
                line += " " + LedgerCLI.rightAligned(String(s.interrupted), 7)
                line += " " + LedgerCLI.rightAligned(String(s.skipped), 7)
                line += " " + LedgerCLI.rightAligned(f(s.earnedSeconds), 8)
                if s.includesLedger {
                    line += " " + LedgerCLI.rightAligned(f(s.spentSeconds), 8)
                    line += " " + LedgerCLI.rightAligned(f(s.emergencySeconds), 9)
                }
                out += line + "\n"
            }
        }
        table("day", days)
        table("week", weeks)
    }
}
