import FoundationEssentials
import HumCore
import HumStore

/// `hum ledger`: the register, and the subcommands that check, correct, export and merge the ledger.
struct LedgerCommand: HumCommand {
    static let name = "ledger"
    static let abstract = "list the ledger with a running balance; check, adjust, export, import"
    static let usage = [
        "ledger [--since DATE] [--json|--csv]", "ledger check", "ledger adjust ±DUR --reason TEXT [--key KEY]",
        "ledger export [--jsonl] [-o FILE]", "ledger import FILE",
    ]
    static let discussion = """
        One line per entry, oldest first: date, kind, what it was, the amount and the balance after it.
        Corrections (ledger adjust) are marked with * and totalled apart. DATE is today, yesterday, 2025-03-30
        or an RFC 3339 instant.

        Examples:
          hum ledger --since 2025-03-01
          hum ledger --csv > ledger.csv
        """
    static let options = [
        OptionSpec("since", value: "DATE", help: "only entries from DATE on"),
        OptionSpec.json,
        OptionSpec("csv", help: "print CSV with a stable header"),
    ]
    static var subcommands: [any HumCommand.Type] { [Check.self, Adjust.self, Export.self, Import.self] }

    enum Format { case text, json, csv }
    let since: String?
    let format: Format

    init(arguments: ParsedArguments, context: CommandContext) throws {
        if arguments.flag("json") && arguments.flag("csv") { throw HumError.usage("choose one of --json and --csv") }
        format = arguments.flag("json") ? .json : arguments.flag("csv") ? .csv : .text
        since = arguments.value("since")
        _ = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: .system)
    }

    static func key(_ arguments: ParsedArguments) throws -> String? {
        guard let key = arguments.value("key") else { return nil }
        guard !key.isEmpty, key.utf8.count <= 200, !key.contains(where: { $0.isNewline }) else {
            throw HumError.usage("--key must be 1 to 200 bytes on one line")
        }
        for reserved in ["round:", "pass:", "settle:"] where key.hasPrefix(reserved) {
            throw HumError.usage("--key must not start with \"\(reserved)\", which hum uses itself")
        }
        return key
    }

    /// One entry with the balance after it, as the register's JSON prints it.
    struct Line: Encodable {
        var entry: LedgerEntry
        var balance: Int64
        enum Keys: String, CodingKey {
            case balance = "balance_seconds"
            case correction
        }
        func encode(to encoder: any Encoder) throws {
            try entry.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(balance, forKey: .balance)
            try c.encode(entry.isCorrection, forKey: .correction)
        }
    }

    static func describe(_ e: LedgerEntry) -> String {
        let f = LedgerCLI.format
        switch e.kind {
        case .grant:
            var s = "focus round \(e.roundID.map { String($0.prefix(8)) } ?? "")"
            if let cut = e.cut, cut > 0 { s += " (\(f(cut)) cut by the daily cap)" }
            return s
        case .spend: return "on \(e.label ?? "")"
        case .hold: return "pass\(e.label.map { " on \($0)" } ?? ""): held\((e.forfeit ?? false) ? " (forfeit)" : "")"
        case .settle:
            let used = e.used ?? 0
            let rest = (e.forfeit ?? false) ? "rest forfeited" : "\(f(e.amount)) returned"
            return "pass\(e.label.map { " on \($0)" } ?? ""): \(f(used)) used, \(rest)"
        case .emergency: return "emergency \(f(e.reserve ?? 0)) from the reserve: \(e.reason ?? "")"
        case .adjustment: return "* correction: \(e.reason ?? "")"
        }
    }

    static let csvHeader =
        "id,time,kind,amount_seconds,balance_seconds,correction,label,reason,key,round_id,pass_id,requested_seconds,cut_seconds,used_seconds,reserve_seconds,device"

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let from = try LedgerCLI.bound(since, option: "since", endOfDay: false, calendar: db.calendar)
        let (opening, entries) = try LedgerCLI.run { try db.entries(from: from, to: nil) }
        var balance = opening
        switch format {
        case .json:
            var lines: [Line] = []
            for e in entries {
                balance += e.amount
                lines.append(Line(entry: e, balance: balance))
            }
            context.stdout.write(try LedgerCLI.json(lines) + "\n")
        case .csv:
            var out = LedgerCommand.csvHeader + "\n"
            // Text cells are neutralised against formulas; the numbers are hum's own (see CSVText).
            let c = CSVText.text
            func n(_ v: Int64?) -> String { CSVText.number(v) }
            for e in entries {
                balance += e.amount
                out +=
                    CSVText.row([
                        c(e.id), e.at.rfc3339, e.kind.rawValue, n(e.amount), n(balance),
                        e.isCorrection ? "true" : "false",
                        c(e.label ?? ""), c(e.reason ?? ""), c(e.key ?? ""), c(e.roundID ?? ""), c(e.passID ?? ""),
                        n(e.requested), n(e.cut), n(e.used), n(e.reserve), c(e.device),
                    ]) + "\n"
                if out.utf8.count > 1 << 20 {
                    context.stdout.write(out)
                    out = ""
                    try context.checkOutput()  // a full disk or a closed pipe: stop here
                }
            }
            context.stdout.write(out)
        case .text:
            let width = LedgerCLI.width(context)
            let amountWidth = 10
            let describeWidth = max(10, width - 10 - 1 - 11 - 2 * (amountWidth + 1))
            var corrections: Int64 = 0
            var correctionCount = 0
            var out = ""
            if from != nil {
                out +=
                    "\("".padding(10)) \("".padding(11))\(LedgerCLI.fit("opening balance", describeWidth)) \(LedgerCLI.rightAligned("", amountWidth)) \(LedgerCLI.rightAligned(LedgerCLI.format(opening), amountWidth))\n"
            }
            for e in entries {
                balance += e.amount
                if e.isCorrection {
                    corrections += e.amount
                    correctionCount += 1
                }
                let kind = e.isCorrection ? "correction" : e.kind.rawValue
                out +=
                    e.localDay.description + " " + kind.padding(11)
                    + LedgerCLI.fit(LedgerCommand.describe(e).visible, describeWidth)
                    + " " + LedgerCLI.rightAligned(LedgerCLI.signed(e.amount), amountWidth)
                    + " " + LedgerCLI.rightAligned(LedgerCLI.format(balance), amountWidth) + "\n"
                if out.utf8.count > 1 << 20 {
                    context.stdout.write(out)
                    out = ""
                    try context.checkOutput()  // a full disk or a closed pipe: stop here
                }
            }
            if entries.isEmpty {
                out += "no entries\(since.map { " since \($0)" } ?? ""); earn time by completing focus rounds\n"
            }
            if correctionCount > 0 {
                out +=
                    "* \(correctionCount) correction\(correctionCount == 1 ? "" : "s") by hand, \(LedgerCLI.signed(corrections)) in all\n"
            }
            if balance < 0 {
                out +=
                    "the bank is in debt by \(LedgerCLI.format(-balance)): spending is blocked until earnings cover it\n"
            }
            context.stdout.write(out)
        }
        return ExitCode.success
    }

    /// `hum ledger check`.
    struct Check: HumCommand {
        static let name = "check"
        static let abstract = "verify every invariant of the ledger and the database's integrity"
        static let usage = ["ledger check"]
        static let discussion =
            "Prints nothing and exits 0 when all holds; names each failure on stderr and exits 1 otherwise.\n"
        init(arguments: ParsedArguments, context: CommandContext) throws {}
        func run(context: CommandContext) throws -> Int32 {
            let failures = try LedgerCLI.run { try LedgerCLI.open(context).check() }
            for failure in failures { context.stderr.write("hum: ledger check: \(failure.visible)\n") }
            return failures.isEmpty ? ExitCode.success : ExitCode.failure
        }
    }

    /// `hum ledger adjust ±DUR --reason TEXT [--key KEY]`.
    struct Adjust: HumCommand {
        static let name = "adjust"
        static let abstract = "record a correction by hand, with its reason"
        static let usage = ["ledger adjust ±DUR --reason TEXT [--key KEY]"]
        static let discussion = """
            A correction is recorded as such and shown apart in every listing. A negative correction cannot take the
            bank below zero.

            Examples:
              hum ledger adjust +25m --reason "focused on paper, timer was off"
              hum ledger adjust -10m --reason "double-counted" --key fix-42
            """
        static let options = [
            OptionSpec("reason", value: "TEXT", help: "why (required)"),
            OptionSpec("key", value: "KEY", help: "an idempotency key"),
        ]
        static let takesPositionals = true
        let seconds: Int64, reason: String, key: String?
        init(arguments: ParsedArguments, context: CommandContext) throws {
            guard arguments.positionals.count == 1 else {
                throw HumError.usage("ledger adjust needs one amount, like 'hum ledger adjust +10m --reason \"why\"'")
            }
            seconds = try LedgerCLI.signedSeconds(arguments.positionals[0], what: "amount")
            guard let reason = arguments.value("reason"), reason.contains(where: { !$0.isWhitespace }) else {
                throw HumError.usage("ledger adjust needs --reason TEXT, saying why")
            }
            self.reason = reason
            key = try LedgerCommand.key(arguments)
        }
        func run(context: CommandContext) throws -> Int32 {
            let (decision, status) = try LedgerCLI.run {
                let db = try LedgerCLI.open(context)
                return (try db.record(.adjust(seconds: seconds, reason: reason, key: key)), try db.bankStatus())
            }
            if case .exists = decision {
                context.stdout.write("already recorded with key \((key ?? "").visible); nothing changed\n")
            } else {
                context.stdout.write(
                    "recorded correction \(LedgerCLI.signed(seconds)) (\(reason.visible)); \(LedgerCLI.format(status.balance)) in the bank\n"
                )
            }
            return ExitCode.success
        }
    }

    /// `hum ledger export --jsonl`.
    struct Export: HumCommand {
        static let name = "export"
        static let abstract = "print every entry as JSON lines, to merge into another machine's ledger"
        static let usage = ["ledger export [--jsonl] [-o FILE]"]
        static let discussion = """
            Examples:
              hum ledger export --jsonl > laptop.jsonl      # then, on the other machine: hum ledger import laptop.jsonl
            """
        static let options = [
            OptionSpec("jsonl", help: "JSON lines, one entry per line (the only format, and the default)"),
            OptionSpec("output", short: "o", value: "FILE", help: "write to FILE atomically instead of stdout"),
        ]
        let output: String?
        init(arguments: ParsedArguments, context: CommandContext) throws { output = arguments.value("output") }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let encoder = CompactJSONEncoder()
            let emit: (_ write: ([UInt8]) throws -> Void) throws -> Void = { write in
                try LedgerCLI.run {
                    try db.forEachEntry(from: nil, to: nil) { e in
                        var bytes = try encoder.encode(e)
                        bytes.append(10)
                        try write(bytes)
                    }
                }
            }
            try OutputFile.write(to: output, context: context, newFileMode: OutputFile.privateData, emit)
            return ExitCode.success
        }
    }

    /// `hum ledger import FILE`.
    struct Import: HumCommand {
        static let name = "import"
        static let abstract = "merge entries (and sessions) from an export, by id: idempotent, in any order"
        static let usage = ["ledger import FILE"]
        static let discussion = """
            FILE is the output of 'hum ledger export --jsonl' or of 'hum export' (json or jsonl), or - for stdin.
            Entries already present are skipped; an entry that disagrees with one here stops the import and nothing
            is imported. An overdraft the merge creates shows as debt.

            Examples:
              hum ledger import laptop.jsonl
              hum ledger import backup.json       # restore into a new database
            """
        static let takesPositionals = true
        let file: String
        init(arguments: ParsedArguments, context: CommandContext) throws {
            guard arguments.positionals.count == 1 else {
                throw HumError.usage("ledger import needs one FILE (or - for stdin)")
            }
            file = arguments.positionals[0]
        }
        func run(context: CommandContext) throws -> Int32 {
            let data = try ImportReader.read(file)
            let parsed = try ImportReader.parse(data, name: file)
            let db = try LedgerCLI.open(context)
            let (added, present) = try LedgerCLI.run { try db.merge(parsed.entries) }
            let rounds = try LedgerCLI.run { try db.importRounds(parsed.sessions) }
            var out = "imported \(added) entr\(added == 1 ? "y" : "ies") (\(present) already here)"
            if !parsed.sessions.isEmpty {
                out +=
                    " and \(rounds) session\(rounds == 1 ? "" : "s") (\(parsed.sessions.count - rounds) already here)"
            }
            let status = try LedgerCLI.run { try db.bankStatus() }
            out += "; \(LedgerCLI.format(status.balance)) in the bank"
            if status.debt > 0 {
                out += ", in debt by \(LedgerCLI.format(status.debt)): spending is blocked until earnings cover it"
            }
            context.stdout.write(out + "\n")
            return ExitCode.success
        }
    }
}
