import FoundationEssentials
import HumControl
import HumCore

/// How `hum status` prints: a line for people (or the template's), the whole state as JSON, Waybar's object, or
/// an i3bar block (i3blocks).
enum StatusFormat: String, CaseIterable, Sendable {
    case text, json, waybar, i3bar
}

/// `hum status`: what the player is doing, for people, scripts and status bars; `--follow` for bars that keep one
/// process running.
struct StatusCommand: HumCommand {
    static let name = "status"
    static let abstract = "show what the player is doing, once or at every change (for scripts and status bars)"
    static let discussion = """
        One line: the focus phase and round, the time left, the mix and the leisure time banked, like
        'focus 2/4 · 12:04 · rain 40 brown 25 · 42m banked'; 'idle · 42m banked' when no player runs (it never
        waits for one, and never creates the database). --json prints the whole state as one object (pid, state,
        phase, round, rounds, remaining_seconds, deadline, paused, mix, master, session, bank_seconds, …: see
        docs/control.md); --waybar prints the object a Waybar custom module reads; --i3bar prints an i3bar
        block ({"name":"hum","full_text":…,"short_text":…,"color":…}) for i3blocks' format=json.

        --template shapes the line (and Waybar's text) from fields in braces: {state} {phase} {round} {rounds}
        {remaining} {remaining_seconds} {remaining_minutes} {deadline} {percent} {paused} {waiting} {mix}
        {sounds} {master} {mix_name} {bank} {bank_seconds} {goal} {tags} {elapsed} {note} {pid} {session}
        {line}. A field that does not apply is empty; {#phase}…{/phase} shows its inside only when {phase} is
        not empty, {^phase}…{/phase} only when it is; {{ and }} are braces.

        --follow keeps one connection to the player and prints again at every change, and when the countdown
        it shows moves: every second with {remaining}, at each minute with only {remaining_minutes}, never with
        neither (--json prints only at changes: count down from "deadline"). When the player stops it prints
        the idle line and waits, without polling, for the next one.
        """
    static let examples = [
        "hum status",
        "hum status --json",
        "hum status --template '{#phase}{phase} {remaining}{/phase}{^phase}{state}{/phase}'",
        "hum status --waybar --follow     # a Waybar module (docs/status-bars.md)",
        "hum status --i3bar --follow      # an i3blocks block with format=json",
    ]

    static let format = Option<StatusFormat>(
        "format", flagAliases: [("json", "json"), ("waybar", "waybar"), ("i3bar", "i3bar")],
        ValueKind<String>.oneOf(StatusFormat.allCases.map(\.rawValue), placeholder: "FORMAT").map {
            .success(StatusFormat(rawValue: $0)!)
        },
        help:
            "print as text (the default), json (the whole state), waybar (a Waybar custom module's JSON) or i3bar "
            + "(an i3bar block, for i3blocks)")
    static let template = Option(
        "template", ValueKind<String>.text.named("TEMPLATE"),
        help: "the line (or Waybar's text) made from {fields}, like '{phase} {round}/{rounds} {remaining}'")
    static let follow = Flag(
        "follow", short: "f", help: "keep running: print again at every change, across player restarts")
    static let names = Flag(
        "names", help: "print the sounds of the running mix, one per line (for scripts and completions)")
    static let arguments: [any Declared] = [format, template, follow, names]

    let format: StatusFormat
    let template: StatusTemplate?
    let follow: Bool
    let namesOnly: Bool

    init(_ arguments: ParsedArguments) throws {
        format = try arguments.value(Self.format) ?? .text
        follow = arguments.flag(Self.follow)
        namesOnly = arguments.flag(Self.names)
        if let text = try arguments.value(Self.template) {
            guard format != .json else {
                throw HumError.usage(
                    "--template shapes the text line and Waybar's text; --json prints the whole state (pick fields "
                        + "with jq)"
                )
            }
            do throws(StatusTemplate.Problem) {
                template = try StatusTemplate(parsing: text)
            } catch {
                throw HumError.usage(Self.describe(error, in: text))
            }
        } else {
            template = nil
        }
        if namesOnly, arguments.given(Self.format) || follow || template != nil {
            throw HumError.usage("--names prints only the sounds; leave out --format, --template and --follow")
        }
    }

    static func describe(_ problem: StatusTemplate.Problem, in text: String) -> String {
        let quoted = "--template \(text.quoted)"
        guard case .unknownField(let name) = problem else { return "\(quoted) \(problem.message)" }
        let fields = StatusField.allCases.map(\.rawValue)
        let hint = Suggest.closest(to: name, in: fields).map { "did you mean {\($0)}? " } ?? ""
        return "\(quoted) names {\(name.clipped)}, which is not a field; \(hint)see 'hum status --help' for the fields"
    }

    /// The fields whose motion decides when a followed output changes with the clock alone.
    var movingFields: Set<StatusField> {
        switch format {
        case .text: return template?.fields ?? [.line]
        case .json: return []
        case .waybar: return WaybarStatus.fields(template: template)
        case .i3bar: return I3barStatus.fields(template: template)
        }
    }

    /// The output for a report, without its newline.
    func render(_ report: StatusReport) throws -> String {
        switch format {
        case .text:
            let escape: (String) -> String = { VisibleText.escape($0) }
            return template?.render(report, escape: escape) ?? report.line(escape)
        case .json:
            return String(decoding: try CompactJSONEncoder().encode(StatusDocument(report)), as: UTF8.self)
        case .waybar:
            return String(
                decoding: try CompactJSONEncoder().encode(WaybarStatus(report, template: template)), as: UTF8.self)
        case .i3bar:
            return String(
                decoding: try CompactJSONEncoder().encode(I3barStatus(report, template: template)), as: UTF8.self)
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        if follow { return try StatusFollower(command: self, context: context).run() }
        let player = try StatusCommand.ask(context)
        if namesOnly {
            context.stdout.write(player.map { $0.mix.tracks.map { $0.sound + "\n" }.joined() } ?? "")
            return ExitCode.success
        }
        let report = StatusReport(player: player, bankSeconds: BankReader(context: context).read())
        context.stdout.write(try render(report) + "\n")
        return ExitCode.success
    }

    /// The running player's status; nil when none runs (or it went away while asked). Within 2 s, answer or
    /// error: a bar that runs `hum status` every second never piles up processes waiting on a flooded player.
    static func ask(_ context: CommandContext) throws -> PlayerStatus? {
        guard let client = try PlayerLink.connect(context, timeoutMilliseconds: 800) else { return nil }
        do {
            return try PlayerLink.send(.status, to: client, timeoutMilliseconds: 1000)
        } catch ControlClient.Problem.closed {
            return nil
        }
    }
}
