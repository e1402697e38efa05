import HumCore
import HumStore

/// `hum shield list` and `hum shield show NAME`: the shields, their targets and their state now (up, lifted until,
/// off until), for people or as JSON.
struct ShieldList: HumCommand {
    static let name = "list"
    static let abstract = "list the shields and whether each is up"
    static let examples = ["hum shield list", "hum shield list --json"]
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [format]
    let json: Bool
    init(_ arguments: ParsedArguments) throws { json = try arguments.value(Self.format) == .json }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let views = try ShieldView.all(db)
        if json {
            context.stdout.write(try LedgerCLI.json(ShieldView.List(shields: views)) + "\n")
            return ExitCode.success
        }
        if views.isEmpty {
            context.stdout.write("no shields; make one with 'hum shield add games --app steam'\n")
            return ExitCode.success
        }
        let width = views.map { DisplayWidth.columns($0.name) }.max() ?? 0
        for view in views {
            context.stdout.write(
                LedgerCLI.fit(view.name, width) + "  " + view.stateText(db) + "  "
                    + view.targets.map { $0.target.option }.joined(separator: ", ") + "\n")
        }
        return ExitCode.success
    }
}

struct ShieldShow: HumCommand {
    static let name = "show"
    static let abstract = "show a shield: its targets, its state, its offs and lifts in force"
    static let examples = ["hum shield show games", "hum shield show games --json"]
    static let arguments: [any Declared] = [ShieldCommand.shieldName, ShieldList.format]
    let name: String
    let json: Bool
    init(_ arguments: ParsedArguments) throws {
        name = try arguments.positional(ShieldCommand.shieldName, at: 0)!
        json = try arguments.value(ShieldList.format) == .json
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        guard let view = try ShieldView.all(db).first(where: { $0.name == name }) else {
            throw ShieldStoreError.unknown(name, known: try db.shields().map(\.name))
        }
        if json {
            context.stdout.write(try LedgerCLI.json(view) + "\n")
            return ExitCode.success
        }
        var out = "shield \(view.name): \(view.stateText(db))\ncreated \(view.created)\n"
        out += view.targets.map { "  \($0.target.option)\n" }.joined()
        for off in view.offs {
            out +=
                "off from \(db.calendar.stamp(off.start).localClock) until \(db.calendar.stamp(off.end).localClock)"
                + (off.reason.map { " (\($0.visible))" } ?? "") + "\n"
        }
        if let quota = view.quota { out += quota.text + "\n" }
        for lift in view.lifts {
            out +=
                "lifted until \(db.calendar.stamp(lift.deadline).localClock)"
                + (lift.entryID.map { " (entry \($0))" } ?? "") + "\n"
        }
        context.stdout.write(out)
        return ExitCode.success
    }
}

/// A shield as `list` and `show` print it; its JSON is the `--json` shape (docs/shields.md).
struct ShieldView: Encodable {
    struct Target: Encodable {
        var target: ShieldTarget
        func encode(to encoder: any Encoder) throws { try target.encode(to: encoder) }
    }
    struct List: Encodable { var shields: [ShieldView] }

    var name: String
    var created: String
    var targets: [Target]
    /// `up`, `lifted` or `off`.
    var state: String
    /// When a lifted or off shield is up again (RFC 3339), nil when up.
    var until: String?
    var offs: [ShieldOff]
    var lifts: [ShieldLift]
    /// Its daily quota and today's use, when it has one.
    var quota: QuotaView?
    /// The epoch second of `until`, for the text form.
    private var untilEpoch: Int64?

    enum CodingKeys: String, CodingKey { case name, created, targets, state, until, offs, lifts, quota }

    static func all(_ db: HumDatabase) throws -> [ShieldView] {
        let inputs = try db.shieldInputs()
        let now = db.calendar.clock.nowEpochSeconds()
        let state = ShieldState.shielded(inputs, now: now)
        return inputs.shields.map { shield in
            let status = state[shield.name] ?? .up
            return ShieldView(
                name: shield.name, created: shield.created.rfc3339, targets: shield.targets.map { Target(target: $0) },
                state: status.word, until: status.until.map { db.calendar.stamp($0).rfc3339 },
                offs: inputs.offs.filter { $0.shield == shield.name && $0.start <= now },
                lifts: inputs.lifts.filter { $0.shield == shield.name && $0.start <= now },
                quota: shield.quota.flatMap { q in
                    inputs.quota(of: shield.name, now: now).map { QuotaView(quota: q, standing: $0) }
                }, untilEpoch: status.until)
        }
    }

    func stateText(_ db: HumDatabase) -> String {
        guard let untilEpoch else { return state }
        let stamp = db.calendar.stamp(untilEpoch)
        return untilEpoch - db.calendar.clock.nowEpochSeconds() > 300 * 86_400
            ? "\(state) until 'hum shield on'" : "\(state) until \(stamp.localClock)"
    }
}
