import FoundationEssentials
import HumCore
import HumStore
import HumSystem

/// `hum ledger`: the register, and the subcommands that check, correct, export and merge the ledger.
struct LedgerCommand: HumCommand {
    static let name = "ledger"
    static let abstract = "list the ledger with a running balance; check, adjust, export, import"
    static let discussion = """
        One line per entry, oldest first: date, kind, what it was, the amount and the balance after it.
        Corrections (ledger adjust) are marked with * and totalled apart. DATE is today, yesterday, 2025-03-30
        (a local day; --until includes the whole day) or an RFC 3339 instant.
        """
    static let examples = [
        "hum ledger --since 2025-03-01",
        "hum ledger --csv > ledger.csv",
    ]
    static let since = Option("since", .date, help: "only entries from DATE on")
    static let until = Option("until", .date, help: "only entries up to DATE")
    static let format = Option.format([.text, .json, .csv])
    static let arguments: [any Declared] = [since, until, format]
    static var subcommands: [any HumCommand.Type] { [Check.self, Adjust.self, Export.self, Import.self] }

    let since: DateWord?
    let until: DateWord?
    let format: OutputFormat

    init(_ arguments: ParsedArguments) throws {
        since = try arguments.value(Self.since)
        until = try arguments.value(Self.until)
        format = try arguments.value(Self.format) ?? .text
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
            var s =
                e.contractID.map { "contract \(String($0.prefix(8)))" }
                ?? "focus round \(e.roundID.map { String($0.prefix(8)) } ?? "")"
            if let label = e.label { s += ", \(label)" }
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
        "id,time,kind,amount_seconds,balance_seconds,correction,label,reason,key,round_id,pass_id,requested_seconds,cut_seconds,used_seconds,reserve_seconds,device,contract_id"

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let from = since?.epoch(endOfDay: false, calendar: db.calendar)
        let to = until?.epoch(endOfDay: true, calendar: db.calendar)
        let (opening, entries) = try db.entries(from: from, to: to)
        var balance = opening
        switch format {
        case .json:
            var lines: [Line] = []
            for e in entries {
                balance = balance.adding(saturating: e.amount)
                lines.append(Line(entry: e, balance: balance))
            }
            context.stdout.write(try LedgerCLI.json(lines) + "\n")
        case .csv, .jsonl, .ical:  // ical is not offered here
            var out = LedgerCommand.csvHeader + "\n"
            // Text cells are neutralised against formulas; the numbers are hum's own (see CSVText).
            let c = CSVText.text
            func n(_ v: Int64?) -> String { CSVText.number(v) }
            for e in entries {
                balance = balance.adding(saturating: e.amount)
                out +=
                    CSVText.row([
                        c(e.id), e.at.rfc3339, e.kind.rawValue, n(e.amount), n(balance),
                        e.isCorrection ? "true" : "false",
                        c(e.label ?? ""), c(e.reason ?? ""), c(e.key ?? ""), c(e.roundID ?? ""), c(e.passID ?? ""),
                        n(e.requested), n(e.cut), n(e.used), n(e.reserve), c(e.device), c(e.contractID ?? ""),
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
                    "\("".padding(10)) \("".padding(11))\(LedgerCLI.fit("opening balance", describeWidth)) "
                    + "\(LedgerCLI.rightAligned("", amountWidth)) "
                    + "\(LedgerCLI.rightAligned(LedgerCLI.format(opening), amountWidth))\n"
            }
            for e in entries {
                balance = balance.adding(saturating: e.amount)
                if e.isCorrection {
                    corrections = corrections.adding(saturating: e.amount)
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
                    "* \(correctionCount) correction\(correctionCount == 1 ? "" : "s") by hand, "
                    + "\(LedgerCLI.signed(corrections)) in all\n"
            }
            if balance < 0 {
                out +=
                    "the bank is in debt by \(LedgerCLI.format(balance.negatedSaturating)): spending is blocked until "
                    + "earnings cover it\n"
            }
            context.stdout.write(out)
        }
        return ExitCode.success
    }

    /// `hum ledger check`.
    struct Check: HumCommand {
        static let name = "check"
        static let abstract = "verify every invariant of the ledger and the database's integrity"
        static let discussion =
            "Prints nothing and exits 0 when all holds; names each failure on stderr and exits 1 otherwise.\n"
        init(_ arguments: ParsedArguments) throws {}
        func run(context: CommandContext) throws -> Int32 {
            let failures = try LedgerCLI.open(context, reading: true).check()
            for failure in failures { context.stderr.write("hum: ledger check: \(failure.visible)\n") }
            return failures.isEmpty ? ExitCode.success : ExitCode.failure
        }
    }

    /// `hum ledger adjust ±DUR --reason TEXT [--key KEY]`.
    struct Adjust: HumCommand {
        static let name = "adjust"
        static let abstract = "record a correction by hand, with its reason"
        static let discussion = """
            A correction is recorded as such and shown apart in every listing. A negative correction cannot take the
            bank below zero.
            """
        static let examples = [
            "hum ledger adjust +25m --reason \"focused on paper, timer was off\"",
            "hum ledger adjust -10m --reason \"double-counted\" --key fix-42",
        ]
        static let amount = Positional("±DURATION", .signedSeconds, help: "the correction, +25m or -10m")
        static let reason = Option("reason", .words("TEXT"), required: true, help: "why")
        static let key = SpendCommand.key
        static let arguments: [any Declared] = [amount, reason, key]
        let seconds: Int64
        let reason: String
        let key: String?
        init(_ arguments: ParsedArguments) throws {
            seconds = try arguments.positional(Self.amount, at: 0)!
            reason = try arguments.required(Self.reason)
            key = try arguments.value(Self.key)
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let decision = try db.record(.adjust(seconds: seconds, reason: reason, key: key))
            context.made("the correction was recorded", see: "hum ledger --since today")
            let status = try db.bankStatus()
            if case .exists = decision {
                context.stdout.write("already recorded with key \((key ?? "").visible); nothing changed\n")
            } else {
                context.stdout.write(
                    "recorded correction \(LedgerCLI.signed(seconds)) (\(reason.visible)); "
                        + "\(LedgerCLI.format(status.balance)) in the bank\n"
                )
            }
            return ExitCode.success
        }
    }

    /// `hum ledger export --jsonl`.
    struct Export: HumCommand {
        static let name = "export"
        static let abstract = "print every entry as JSON lines, to merge into another machine's ledger"
        static let discussion = """
            One entry per line, oldest first; then, as typed lines ({"type": "contract", …}), the contracts its
            grants pay, which an import needs to accept those grants.
            """
        static let examples = [
            "hum ledger export --jsonl > laptop.jsonl  # then, on the other machine: hum ledger import laptop.jsonl"
        ]
        static let format = Option.format([.jsonl])
        static let output = Option(
            "output", short: "o", .file, help: "write to FILE (atomically, when it is a regular file) instead of stdout"
        )
        static let arguments: [any Declared] = [format, output]
        let output: String?
        init(_ arguments: ParsedArguments) throws {
            _ = try arguments.value(Self.format)
            output = try arguments.value(Self.output)
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context, reading: true)
            let encoder = CompactJSONEncoder()
            let emit: (_ write: ([UInt8]) throws -> Void) throws -> Void = { write in
                var paid = Set<String>()
                try db.forEachEntry(from: nil, to: nil) { e in
                    if e.kind == .grant, let contract = e.contractID { paid.insert(contract) }
                    var bytes = try encoder.encode(e)
                    bytes.append(10)
                    try write(bytes)
                }
                // A contract's grant is accepted only with its contract: the contracts paid come along.
                guard !paid.isEmpty else { return }
                for contract in try db.contracts() where paid.contains(contract.id) {
                    var bytes = try encoder.encode(ExportCommand.Typed(type: "contract", value: contract))
                    bytes.append(10)
                    try write(bytes)
                }
            }
            try OutputFile.write(to: output, context: context, newFileMode: OutputFile.privateData, emit)
            return ExitCode.success
        }
    }

    /// An import the ledger's invariants refuse (exit 3): nothing was imported.
    struct ImportRefusal: UserFacingError {
        var message: String
        var kind: FailureKind { .refused }
    }

    /// `hum ledger import FILE`.
    struct Import: HumCommand {
        static let name = "import"
        static let abstract = "merge entries (and sessions) from an export, by id: idempotent, in any order"
        static let discussion = """
            FILE is the output of 'hum ledger export --jsonl' or of 'hum export' (json or jsonl), or - for stdin.
            Entries already present are skipped; an entry that disagrees with one here stops the import and nothing
            is imported. An overdraft the merge creates shows as debt.
            """
        static let examples = [
            "hum ledger import laptop.jsonl",
            "hum ledger import backup.json       # restore into a new database",
        ]
        static let file = Positional("FILE", .file, help: "the export to read, or - for stdin")
        static let arguments: [any Declared] = [file]
        let file: String
        init(_ arguments: ParsedArguments) throws { file = try arguments.positional(Self.file, at: 0)! }
        func run(context: CommandContext) throws -> Int32 {
            let parsed = try ImportReader.read(file)
            let db = try LedgerCLI.open(context)
            let outcome: ImportOutcome
            do {
                outcome = try db.importLedger(
                    entries: parsed.entries, sessions: parsed.sessions, contracts: parsed.contracts)
            } catch StoreError.importBreaks(let failure) {
                // Refused whole: name the first record of the file that the failure is about.
                let place = parsed.place(of: failure.subject).map { " \($0)" } ?? ""
                throw ImportRefusal(
                    message:
                        "\(file)\(place) would leave the ledger failing its check: \(failure.message); nothing was "
                        + "imported"
                )
            } catch let conflict as LedgerMerge.Conflict {
                let place = parsed.entryPlaces[conflict.id].map { "\(file) \($0): " } ?? ""
                throw ImportReader.Failure(message: place + conflict.message)
            }
            context.made("the import was recorded", see: "hum ledger check")
            var out =
                "imported \(outcome.added) entr\(outcome.added == 1 ? "y" : "ies") (\(outcome.present) already here)"
            if !parsed.sessions.isEmpty {
                out +=
                    " and \(outcome.roundsAdded) session\(outcome.roundsAdded == 1 ? "" : "s") "
                    + "(\(outcome.roundsPresent) already here)"
            }
            if !parsed.contracts.isEmpty {
                out +=
                    ", \(outcome.contractsAdded) contract\(outcome.contractsAdded == 1 ? "" : "s") "
                    + "(\(outcome.contractsPresent) already here)"
            }
            let status = try db.bankStatus()
            out += "; \(LedgerCLI.format(status.balance)) in the bank"
            if status.debt > 0 {
                out += ", in debt by \(LedgerCLI.format(status.debt)): spending is blocked until earnings cover it"
            }
            context.stdout.write(out + "\n")
            return ExitCode.success
        }
    }
}
