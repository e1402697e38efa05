import FoundationEssentials
import HumCore
import HumStore

/// `hum history`: every round with its status, times, mix and earnings, and summaries per day and week.
struct HistoryCommand: HumCommand {
    static let name = "history"
    static let abstract = "list every round (focus and break) with summaries per day and week"
    static let usage = ["history [--since DATE] [--until DATE] [--json]", "history record --active DUR [options]"]
    static let discussion = """
        DATE is today, yesterday, 2025-03-30 (local day; --until includes the whole day) or an RFC 3339 instant.

        Examples:
          hum history --since 2025-03-24
          hum history --since today --json
        """
    static let options = [
        OptionSpec("since", value: "DATE", help: "only rounds that started from DATE on"),
        OptionSpec("until", value: "DATE", help: "only rounds that started up to DATE"),
        OptionSpec.json,
    ]
    static var subcommands: [any HumCommand.Type] { [Record.self] }

    let since: String?, until: String?, json: Bool
    init(arguments: ParsedArguments, context: CommandContext) throws {
        since = arguments.value("since")
        until = arguments.value("until")
        json = arguments.flag("json")
        _ = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: .system)
        _ = try LedgerCLI.bound(until, option: "until", endOfDay: true, calendar: .system)
    }

    struct Output: Encodable {
        var sessions: [RoundRecord]
        var days: [PeriodSummary]
        var weeks: [PeriodSummary]
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let from = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: db.calendar)
        let to = try LedgerCLI.bound(until, option: "until", endOfDay: true, calendar: db.calendar)
        let rounds = try LedgerCLI.run { try db.rounds(from: from, to: to) }
        let entries = try LedgerCLI.run { try db.entries(from: from, to: to).entries }
        let days = HistorySummary.days(rounds: rounds, entries: entries)
        let weeks = HistorySummary.weeks(rounds: rounds, entries: entries)
        if json {
            var bytes = try CompactJSONEncoder().encode(Output(sessions: rounds, days: days, weeks: weeks))
            bytes.append(10)
            context.stdout.write(String(decoding: bytes, as: UTF8.self))
            return ExitCode.success
        }
        let f = LedgerCLI.format
        var out = ""
        if rounds.isEmpty { out += "no rounds recorded\(since.map { " since \($0)" } ?? "")\n" }
        for r in rounds {
            let end = r.end.map { $0.rfc3339 } ?? "(running)"
            out += "\(r.start.rfc3339)  \(end)  \(r.kind.rawValue.padding(11)) \(r.status.rawValue.padding(11))"
            out += " planned \(f(r.plannedSeconds)), active \(f(r.activeSeconds)), paused \(f(r.pausedSeconds))"
            if r.kind == .focus { out += ", earned \(f(r.earnedSeconds))" }
            out += "\n"
            var details: [String] = []
            if let goal = r.goal, !goal.isEmpty { details.append("goal: \(goal.visible)") }
            if !r.tags.isEmpty { details.append("tags: " + r.tags.map(\.visible).joined(separator: ", ")) }
            if !r.mix.isEmpty {
                details.append(
                    "mix: "
                        + r.mix.map { "\($0.sound.visible) \(Int(($0.volume * 100).rounded()))%" }.joined(
                            separator: ", "))
            }
            if !details.isEmpty { out += "    " + details.joined(separator: "; ") + "  (\(r.id.visible))\n" }
            if out.utf8.count > 1 << 20 {
                context.stdout.write(out)
                out = ""
                try context.checkOutput()  // a full disk or a closed pipe: stop here
            }
        }
        func table(_ title: String, _ rows: [PeriodSummary]) {
            guard !rows.isEmpty else { return }
            out +=
                "\n\(title.padding(10)) \("focused".padding(9)) \("done".padding(5)) \("stopped".padding(8)) \("earned".padding(9)) \("spent".padding(9))\n"
            for s in rows {
                out +=
                    "\(s.period.padding(10)) \(f(s.focusedSeconds).padding(9)) \(String(s.completed).padding(5)) \(String(s.interrupted).padding(8)) \(f(s.earnedSeconds).padding(9)) \(f(s.spentSeconds).padding(9))\n"
            }
        }
        table("day", days)
        table("week", weeks)
        context.stdout.write(out)
        return ExitCode.success
    }

    /// `hum history record`: a round timed elsewhere (another timer, a script), earning like a timer round.
    struct Record: HumCommand {
        static let name = "record"
        static let abstract = "record a round timed elsewhere; a completed focus round earns like one from the timer"
        static let usage = [
            "history record --active DUR [--kind focus|short-break|long-break] [--status STATUS] [--id ID] [--start TIME] [--planned DUR] [--paused DUR] [--goal TEXT] [--tag TAG]... [--sound NAME:VOLUME]..."
        ]
        static let discussion = """
            The round's id is its idempotency key: recording the same id again changes nothing, and its earnings are
            never granted twice. The start defaults to now minus the active and paused time.

            Examples:
              hum history record --active 25m --goal "chapter 3" --tag writing
              hum history record --id pomo-2025-03-30-1 --active 50m --planned 50m --sound rain:0.6
            """
        static let options = [
            OptionSpec("active", value: "DUR", help: "time focused (required)"),
            OptionSpec("kind", value: "KIND", help: "focus (default), short-break or long-break"),
            OptionSpec("status", value: "STATUS", help: "completed (default), interrupted or skipped"),
            OptionSpec("id", value: "ID", help: "the round's id (default: a new random id)"),
            OptionSpec("start", value: "TIME", help: "when it started, RFC 3339"),
            OptionSpec("planned", value: "DUR", help: "planned length (default: the active time)"),
            OptionSpec("paused", value: "DUR", help: "time paused (default 0)"),
            OptionSpec("goal", value: "TEXT", help: "what the round was for"),
            OptionSpec("tag", value: "TAG", repeatable: true, help: "a tag (repeatable)"),
            OptionSpec(
                "sound", value: "NAME:VOLUME", repeatable: true, help: "a sound of the mix, volume 0 to 1 (repeatable)"),
        ]

        let record: RoundRecord
        init(arguments: ParsedArguments, context: CommandContext) throws {
            guard let activeText = arguments.value("active") else {
                throw HumError.usage("history record needs --active DUR, like --active 25m")
            }
            func duration(_ text: String, _ what: String) throws -> Int64 {
                guard let ms = try? DurationText.parseMilliseconds(text) else {
                    throw HumError.usage("\(what) \"\(text)\" is not a duration; try 25m or 90s")
                }
                return (ms + 500) / 1000
            }
            let active = try duration(activeText, "--active")
            let paused = try arguments.value("paused").map { try duration($0, "--paused") } ?? 0
            let planned = try arguments.value("planned").map { try duration($0, "--planned") } ?? active
            let kind =
                try arguments.value("kind").map { text in
                    guard let kind = RoundKind(rawValue: text) else {
                        throw HumError.usage("--kind \"\(text)\" is not focus, short-break or long-break")
                    }
                    return kind
                } ?? .focus
            let status =
                try arguments.value("status").map { text in
                    guard let status = RoundStatus(rawValue: text), status != .running else {
                        throw HumError.usage("--status \"\(text)\" is not completed, interrupted or skipped")
                    }
                    return status
                } ?? .completed
            let calendar = LocalCalendar.system
            let start: Timestamp
            if let text = arguments.value("start") {
                guard let t = Timestamp(rfc3339: text) else {
                    throw HumError.usage("--start \"\(text)\" is not an RFC 3339 time like 2025-03-30T09:00:00+01:00")
                }
                start = t
            } else {
                start = calendar.stamp(calendar.clock.nowEpochSeconds() - active - paused)
            }
            let mix = try arguments.all("sound").map { text -> MixItem in
                guard let colon = text.lastIndex(of: ":"), let volume = Double(text[text.index(after: colon)...]),
                    volume.isFinite, (0...1).contains(volume), colon != text.startIndex
                else {
                    throw HumError.usage(
                        "--sound \"\(text)\" is not NAME:VOLUME with a volume from 0 to 1, like rain:0.6")
                }
                return MixItem(sound: String(text[..<colon]), volume: volume)
            }
            var rng = SystemRandomNumberGenerator()
            let id = arguments.value("id") ?? Identifier.make(using: &rng)
            guard !id.isEmpty, id.utf8.count <= 200 else { throw HumError.usage("--id must be 1 to 200 bytes") }
            record = RoundRecord(
                id: id, kind: kind, status: status, start: start,
                end: calendar.stamp(start.epochSeconds + active + paused), plannedSeconds: planned,
                activeSeconds: active, pausedSeconds: paused, mix: mix, goal: arguments.value("goal"),
                tags: arguments.all("tag"))
        }

        func run(context: CommandContext) throws -> Int32 {
            let outcome = try LedgerCLI.run { try LedgerCLI.open(context).recordRound(record) }
            let f = LedgerCLI.format
            var out =
                "recorded \(record.kind.rawValue) round \(record.id.visible): \(record.status.rawValue), \(f(record.activeSeconds)) active"
            if let grant = outcome.grant {
                let e = grant.entry
                if case .exists = grant {
                    out += "; already recorded, nothing changed"
                } else {
                    out += ", earned \(f(e.amount))"
                    if let cut = e.cut, cut > 0 { out += " (\(f(cut)) cut by the daily cap)" }
                }
            }
            context.stdout.write(out + "\n")
            return ExitCode.success
        }
    }
}

/// `hum export`: the history and the ledger, for other tools and for backups.
struct ExportCommand: HumCommand {
    static let name = "export"
    static let abstract = "export the history and the ledger as JSON, JSON lines or CSV"
    static let usage = ["export [--since DATE] [--until DATE] [--format json|jsonl|csv] [-o FILE]"]
    static let discussion = """
        json is one document, {"schema": "hum.export/1", "exported_at", "sessions", "ledger"}, described by
        docs/export.schema.json; jsonl is a header line then one typed line per session and entry; csv lists the
        sessions (the ledger's CSV is 'hum ledger --csv'). With -o the file is written atomically. An export is
        also a backup: 'hum ledger import FILE' restores it.

        Examples:
          hum export -o ~/hum-backup.json
          hum export --since 2025-03-01 --format csv -o march.csv
        """
    static let options = [
        OptionSpec("since", value: "DATE", help: "only what happened from DATE on"),
        OptionSpec("until", value: "DATE", help: "only what happened up to DATE"),
        OptionSpec("format", value: "FORMAT", help: "json (default), jsonl or csv"),
        OptionSpec("output", short: "o", value: "FILE", help: "write to FILE atomically instead of stdout"),
    ]

    enum Format: String { case json, jsonl, csv }
    let since: String?, until: String?, format: Format, output: String?

    init(arguments: ParsedArguments, context: CommandContext) throws {
        since = arguments.value("since")
        until = arguments.value("until")
        let text = arguments.value("format") ?? "json"
        guard let format = Format(rawValue: text) else {
            throw HumError.usage("--format \"\(text)\" is not json, jsonl or csv")
        }
        self.format = format
        output = arguments.value("output")
        if output?.isEmpty == true { throw HumError.usage("-o needs a file name") }
        _ = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: .system)
        _ = try LedgerCLI.bound(until, option: "until", endOfDay: true, calendar: .system)
    }

    struct Header: Encodable {
        var type = "header"
        var schema = ExportDocument.schemaName
        var exportedAt: Timestamp
        enum CodingKeys: String, CodingKey {
            case type, schema
            case exportedAt = "exported_at"
        }
    }

    /// A session or an entry with a `type` field, for JSON lines.
    struct Typed<T: Encodable>: Encodable {
        var type: String
        var value: T
        enum Keys: String, CodingKey { case type }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(type, forKey: .type)
            try value.encode(to: encoder)
        }
    }

    static let csvHeader =
        "id,kind,status,start,end,planned_seconds,active_seconds,paused_seconds,earned_seconds,goal,tags,mix"

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let from = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: db.calendar)
        let to = try LedgerCLI.bound(until, option: "until", endOfDay: true, calendar: db.calendar)
        let rounds = try LedgerCLI.run { try db.rounds(from: from, to: to) }
        let now = db.calendar.now()
        let format = self.format
        let emit: (_ write: ([UInt8]) throws -> Void) throws -> Void = { write in
            let encoder = CompactJSONEncoder()  // streaming: the JSON of 100,000 sessions in well under a second
            func line<T: Encodable>(_ value: T) throws -> [UInt8] {
                var bytes = try encoder.encode(value)
                bytes.append(10)
                return bytes
            }
            switch format {
            case .json:
                // The same bytes as encoding an ExportDocument (keys in its order), written as it goes.
                var buffer: [UInt8] = Array(
                    "{\"schema\":\"\(ExportDocument.schemaName)\",\"exported_at\":\"\(now.rfc3339)\",\"sessions\":["
                        .utf8)
                for (i, r) in rounds.enumerated() {
                    if i > 0 { buffer.append(0x2C) }
                    try encoder.encode(r, into: &buffer)
                    if buffer.count >= 1 << 20 {
                        try write(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                buffer.append(contentsOf: Array("],\"ledger\":[".utf8))
                var first = true
                try LedgerCLI.run {
                    try db.forEachEntry(from: from, to: to) { e in
                        if !first { buffer.append(0x2C) }
                        first = false
                        try encoder.encode(e, into: &buffer)
                        if buffer.count >= 1 << 20 {
                            try write(buffer)
                            buffer.removeAll(keepingCapacity: true)
                        }
                    }
                }
                buffer.append(contentsOf: Array("]}\n".utf8))
                try write(buffer)
            case .jsonl:
                try write(try line(Header(exportedAt: now)))
                for r in rounds { try write(try line(Typed(type: "session", value: r))) }
                try LedgerCLI.run {
                    try db.forEachEntry(from: from, to: to) { e in try write(try line(Typed(type: "entry", value: e))) }
                }
            case .csv:
                try write(Array((ExportCommand.csvHeader + "\n").utf8))
                // Text cells are neutralised against formulas; tags and mix are JSON arrays (see CSVText).
                let c = CSVText.text
                func n(_ v: Int64?) -> String { CSVText.number(v) }
                for r in rounds {
                    try write(
                        Array(
                            (CSVText.row([
                                c(r.id), r.kind.rawValue, r.status.rawValue, r.start.rfc3339, r.end?.rfc3339 ?? "",
                                n(r.plannedSeconds), n(r.activeSeconds), n(r.pausedSeconds), n(r.earnedSeconds),
                                c(r.goal ?? ""), try CSVText.list(r.tags), try CSVText.mix(r.mix),
                            ]) + "\n").utf8))
                }
            }
        }
        try OutputFile.write(to: output, context: context, newFileMode: OutputFile.privateData, emit)
        if let output {
            context.stderr.write(
                "hum: exported \(rounds.count) session\(rounds.count == 1 ? "" : "s") to \(output.visible)\n")
        }
        return ExitCode.success
    }
}
