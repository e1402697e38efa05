import FoundationEssentials
import HumCore
import HumStore
import HumSystem

/// `hum history`: the rounds of the last days in a table, with summaries per day and week.
struct HistoryCommand: HumCommand {
    static let name = "history"
    static let abstract = "list the rounds (focus and break) of the last days, with summaries per day and week"
    static let discussion = """
        Without --since, --until or --limit: the last 7 days (today included). DATE is today, yesterday, a weekday
        (monday: the latest Monday, today included), "this week", "last week", "this month", "last month", Nd (the
        last N days, today included: 7d), 2025-03-30 (a local day) or an RFC 3339 instant; --since takes the start
        of what DATE names and --until its end. The table shows local times as they were recorded, and the
        shortest start of each id that tells it apart (--long: full ids, instants and the mix). The summaries
        count the rounds shown; spending and emergency draws are shown unless rounds are filtered by tag or goal.
        """
    static let examples = [
        "hum history",
        "hum history --since monday --tag writing",
        "hum history --since \"last week\" --until \"last week\"",
        "hum history --limit 20 --long",
        "hum history --since 2025-03-01 --json",
    ]
    static let since = Option("since", .date, help: "only rounds that started from DATE on")
    static let until = Option("until", .date, help: "only rounds that started up to DATE (its whole day)")
    static let limit = Option(
        "limit", .count(1...1_000_000), help: "only the last N rounds (of the range, if one is given)")
    static let tag = Option(
        "tag", .words("TAG"), repeatable: true, help: "only rounds with this tag (repeatable: all of them)")
    static let goal = Option("goal", .words("TEXT"), help: "only rounds whose goal holds TEXT (any case)")
    static let long = Flag("long", help: "full ids, start and end instants, planned and paused time, the mix")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [since, until, limit, tag, goal, long, format]
    static var subcommands: [any HumCommand.Type] { [Record.self] }
    /// The range shown when none is given: the last 7 days.
    static let defaultSince = DateWord.lastDays(7)

    let since: DateWord?
    let until: DateWord?
    let limit: Int?
    let filter: RoundFilter
    let long: Bool
    let json: Bool
    init(_ arguments: ParsedArguments) throws {
        let since = try arguments.value(Self.since)
        let until = try arguments.value(Self.until)
        limit = try arguments.value(Self.limit)
        // Nothing asked: the last 7 days, today included (and nothing dated later, such as an import's).
        let recent = since == nil && until == nil && limit == nil
        self.since = recent ? Self.defaultSince : since
        self.until = recent ? .today : until
        filter = RoundFilter(tags: try arguments.values(Self.tag), goal: try arguments.value(Self.goal))
        long = arguments.flag(Self.long)
        json = try arguments.value(Self.format) == .json
    }

    struct Output: Encodable {
        var sessions: [RoundRecord]
        var days: [PeriodSummary]
        var weeks: [PeriodSummary]
        var contracts: [ContractRecord]
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let from = since?.epoch(endOfDay: false, calendar: db.calendar)
        let to = until?.epoch(endOfDay: true, calendar: db.calendar)
        var rounds = try db.rounds(from: from, to: to)
        if !filter.isEmpty { rounds = rounds.filter(filter.keeps) }
        if let limit, rounds.count > limit { rounds = Array(rounds.suffix(limit)) }
        // The ledger's figures of the days shown (from the first round's day when --limit cut the range).
        var entries: [LedgerEntry]? = nil
        if filter.isEmpty {
            let low = limit == nil ? from : rounds.first.map { db.calendar.startOfDay($0.start.localDate) }
            entries = try db.entries(from: low, to: to).entries
            if limit != nil, let first = rounds.first?.start.localDate {
                entries = entries?.filter { $0.localDay >= first }
            }
        }
        let days = HistorySummary.days(rounds: rounds, entries: entries)
        let weeks = HistorySummary.weeks(rounds: rounds, entries: entries)
        let contracts = try db.contracts(from: from, to: to)
        if json {
            var bytes = try CompactJSONEncoder().encode(
                Output(sessions: rounds, days: days, weeks: weeks, contracts: contracts))
            bytes.append(10)
            context.stdout.write(String(decoding: bytes, as: UTF8.self))
            return ExitCode.success
        }
        var out = ""
        if rounds.isEmpty {
            var what = "no rounds recorded"
            if !filter.isEmpty { what += " that match" }
            if since == Self.defaultSince && until == .today {
                what += " in the last 7 days; try --since 30d"
            } else {
                if let since { what += " since \(since)" }
                if let until { what += " up to \(until)" }
            }
            out += what + "\n"
        }
        let table = HistoryTable(rounds: rounds, width: LedgerCLI.width(context), long: long)
        try table.render(into: &out) { buffer in
            context.stdout.write(buffer)
            buffer = ""
            try context.checkOutput()  // a full disk or a closed pipe: stop here
        }
        HistoryTable.summaries(days: days, weeks: weeks, into: &out)
        out += ContractText.history(contracts)
        context.stdout.write(out)
        return ExitCode.success
    }

    /// `hum history record`: a round timed elsewhere (another timer, a script), earning like a timer round.
    struct Record: HumCommand {
        static let name = "record"
        static let abstract = "record a round timed elsewhere; a completed focus round earns like one from the timer"
        static let discussion = """
            The round's id is its idempotency key: recording the same id again changes nothing, and its earnings are
            never granted twice. The start defaults to now minus the active and paused time; --start takes the words
            of 'hum history --since' with a local time after them (yesterday 14:00, monday 9:30, 2025-03-30 08:15,
            a bare 14:00 for today) or an RFC 3339 instant.
            """
        static let examples = [
            "hum history record --active 25m --goal \"chapter 3\" --tag writing",
            "hum history record --active 50m --start \"yesterday 14:00\"",
            "hum history record --id pomo-2025-03-30-1 --active 50m --planned 50m --sound rain=60",
        ]
        static let active = Option("active", .elapsedSeconds, required: true, help: "time focused")
        static let kind = Option(
            "kind", .oneOf(RoundKind.allCases.map(\.rawValue), placeholder: "KIND"),
            help: "focus (default), short-break or long-break")
        static let status = Option(
            "status", .oneOf(["completed", "interrupted", "skipped"], placeholder: "STATUS"),
            help: "completed (default), interrupted or skipped")
        static let id = Option(
            "id",
            ValueKind<String>("ID") { text in
                (1...200).contains(text.utf8.count)
                    ? .success(text) : .failure(.init("is not an id: use 1 to 200 bytes"))
            }, help: "the round's id (default: a new random id)")
        static let start = Option(
            "start", .moment,
            help: "when it started: the words of --since with a time, like \"yesterday 14:00\", or RFC 3339")
        static let planned = Option("planned", .elapsedSeconds, help: "planned length (default: the active time)")
        static let paused = Option("paused", .elapsedSeconds, help: "time paused (default 0)")
        static let goal = FocusCommand.goal
        static let tag = FocusCommand.tag
        static let sound = Option(
            "sound", .mixItem, repeatable: true,
            help: "a sound of the mix at its volume 0–100, like rain=60 (repeatable; rain:0.6 is read too)")
        static let arguments: [any Declared] = [active, kind, status, id, start, planned, paused, goal, tag, sound]

        let active: Int64
        let paused: Int64
        let planned: Int64
        let kind: RoundKind
        let status: RoundStatus
        let id: String?
        let start: Moment?
        let mix: [MixItem]
        let goal: String?
        let tags: [String]

        init(_ arguments: ParsedArguments) throws {
            active = try arguments.required(Self.active)
            paused = try arguments.value(Self.paused) ?? 0
            planned = try arguments.value(Self.planned) ?? active
            kind = try arguments.value(Self.kind).flatMap(RoundKind.init(rawValue:)) ?? .focus
            status = try arguments.value(Self.status).flatMap(RoundStatus.init(rawValue:)) ?? .completed
            id = try arguments.value(Self.id)
            start = try arguments.value(Self.start)
            mix = try arguments.values(Self.sound)
            goal = try arguments.value(Self.goal)
            tags = try arguments.values(Self.tag)
        }

        /// The round to record: the start defaults to now minus the time it took.
        func record(calendar: LocalCalendar) -> RoundRecord {
            let start: Timestamp =
                switch self.start {
                case .instant(let given)?: given  // as written, with its own offset
                case let moment?: calendar.stamp(moment.epoch(calendar: calendar))
                case nil: calendar.stamp(calendar.clock.nowEpochSeconds() - active - paused)
                }
            var rng = SystemRandomNumberGenerator()
            return RoundRecord(
                id: id ?? Identifier.make(using: &rng), kind: kind, status: status, start: start,
                end: Timestamp(epochSeconds: start.epochSeconds + active + paused, offsetSeconds: start.offsetSeconds),
                plannedSeconds: planned,
                activeSeconds: active, pausedSeconds: paused, mix: mix, goal: goal, tags: tags)
        }

        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let record = record(calendar: db.calendar)
            let outcome = try db.recordRound(record)
            let day = record.start.localDate
            context.made("the round was recorded", see: "hum history --since \(day) --until \(day)")
            let f = LedgerCLI.format
            var out =
                "recorded \(record.kind.rawValue) round \(record.id.visible) by hand: \(record.status.rawValue), "
                + "\(f(record.activeSeconds)) active"
            if let grant = outcome.grant {
                let e = grant.entry
                if case .exists = grant {
                    out += "; already recorded, nothing changed"
                } else {
                    out += ", earned \(f(e.amount)) on \(e.localDay)"
                    if let cut = e.cut, cut > 0 { out += " (\(f(cut)) cut by that day's cap)" }
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
    static let abstract = "export the history and the ledger as JSON, JSON lines or CSV, or the rounds as iCalendar"
    static let discussion = """
        json is one document, {"schema": "\(ExportDocument.schemaName)", "exported_at", "sessions", "ledger",
        "contracts"}, described by docs/export.schema.json; jsonl is a header line then one typed line per session,
        entry and contract; csv lists the sessions (the ledger's CSV is 'hum ledger --csv'); ical writes the finished
        rounds as calendar events (RFC 5545), each at its recorded local time and offset. A session's mix volumes
        are 0–100, as everywhere in hum. With -o the file is written atomically. A json or jsonl export is also a
        backup: 'hum ledger import FILE' restores it (exports of hum.export/1 and /2, with volumes 0–1, too).
        """
    static let examples = [
        "hum export -o ~/hum-backup.json",
        "hum export --since 2025-03-01 --format csv -o march.csv",
        "hum export --format ical -o ~/hum.ics",
    ]
    static let since = Option("since", .date, help: "only what happened from DATE on")
    static let until = Option("until", .date, help: "only what happened up to DATE")
    static let format = Option.format([.json, .jsonl, .csv, .ical])
    static let output = LedgerCommand.Export.output
    static let arguments: [any Declared] = [since, until, format, output]

    let since: DateWord?
    let until: DateWord?
    let format: OutputFormat
    let output: String?

    init(_ arguments: ParsedArguments) throws {
        since = try arguments.value(Self.since)
        until = try arguments.value(Self.until)
        format = try arguments.value(Self.format) ?? .json
        output = try arguments.value(Self.output)
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
        "id,kind,status,start,end,planned_seconds,active_seconds,paused_seconds,earned_seconds,goal,tags,mix,contract_id,recorded_by_hand"

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let from = since?.epoch(endOfDay: false, calendar: db.calendar)
        let to = until?.epoch(endOfDay: true, calendar: db.calendar)
        // A backup (json, jsonl) carries what its records need to import whole; the csv lists the range's sessions.
        let listing = format == .csv || format == .ical
        let rounds = listing ? try db.rounds(from: from, to: to) : try db.exportRounds(from: from, to: to)
        let contracts = listing ? [] : try db.exportContracts(from: from, to: to)
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
            case .json, .text:
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
                try db.forEachExportEntry(from: from, to: to) { e in
                    if !first { buffer.append(0x2C) }
                    first = false
                    try encoder.encode(e, into: &buffer)
                    if buffer.count >= 1 << 20 {
                        try write(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                buffer.append(contentsOf: Array("],\"contracts\":".utf8))
                try encoder.encode(contracts, into: &buffer)
                buffer.append(contentsOf: Array("}\n".utf8))
                try write(buffer)
            case .jsonl:
                try write(try line(Header(exportedAt: now)))
                for r in rounds { try write(try line(Typed(type: "session", value: r))) }
                try db.forEachExportEntry(from: from, to: to) { e in
                    try write(try line(Typed(type: "entry", value: e)))
                }
                for c in contracts { try write(try line(Typed(type: "contract", value: c))) }
            case .ical:
                try ICalendar.write(rounds: rounds, exportedAt: now, version: humVersion) { try write(Array($0.utf8)) }
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
                                c(r.contractID ?? ""), r.recordedByHand ? "true" : "false",
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
