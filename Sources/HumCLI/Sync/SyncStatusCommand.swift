import HumCore
import HumStore

/// `hum sync status`: each device of the synced folder, its last event, how far behind this database is, and what
/// stops a merge.
struct SyncStatusCommand: HumCommand {
    static let name = "status"
    static let abstract = "show each device of the synced folder: its last event, lag and problems"
    static let discussion = """
        One line per device, this machine's first: the last line written or merged, when it happened (by the
        device's hybrid clock), the lines not merged yet (for this machine: lines not yet appended to its
        journal) and the damage that stops a merge (a journal truncated, reordered, edited or forked). Nothing
        after damage is merged; what came before it is.
        """
    static let examples = ["hum sync status", "hum sync status --json"]
    static let arguments: [any Declared] = [Flag.json]

    let json: Bool
    init(_ arguments: ParsedArguments) throws { json = arguments.flag(Flag.json) }

    func run(context: CommandContext) throws -> Int32 { try Self.show(context: context, json: json) }

    struct Row: Encodable {
        var device: String
        var here: Bool
        var lastSeq: Int64
        var lastEvent: String?
        var behind: Int
        var problem: String?
        enum CodingKeys: String, CodingKey {
            case device, here, behind, problem
            case lastSeq = "last_seq"
            case lastEvent = "last_event"
        }
    }

    struct Report: Encodable {
        var dir: String?
        var devices: [Row]
    }

    static func show(context: CommandContext, json: Bool) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let dir = try db.syncSetup()?.dir
        let rows = (try db.syncStatus() ?? []).map { s in
            Row(
                device: s.device, here: s.here, lastSeq: s.lastSeq,
                lastEvent: s.lastEventEpoch.map { db.calendar.stamp($0).rfc3339 }, behind: s.behind,
                problem: s.problem)
        }
        if json {
            context.stdout.write(try LedgerCLI.json(Report(dir: dir, devices: rows)) + "\n")
            return ExitCode.success
        }
        guard let dir else {
            context.stdout.write("sync is off; turn it on with 'hum sync init DIR'\n")
            return ExitCode.success
        }
        var out = "synced folder: \(dir)\n"
        for row in rows {
            out += "\(row.device)\(row.here ? " (this machine)" : ""): line \(row.lastSeq)"
            if let last = row.lastEvent { out += ", last event \(last)" }
            if row.behind > 0 { out += row.here ? ", \(row.behind) to append" : ", \(row.behind) not merged yet" }
            if let problem = row.problem { out += "\n  problem: \(problem.visible)" }
            out += "\n"
        }
        context.stdout.write(out)
        return ExitCode.success
    }
}
