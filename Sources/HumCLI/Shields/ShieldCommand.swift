import HumCore
import HumStore
import HumSystem

/// `hum shield add|list|show|rm|off|on`: shields hold programs frozen until banked time lifts them
/// (docs/shields.md). Bare `hum shield` lists them.
struct ShieldCommand: HumCommand {
    static let name = "shield"
    static let abstract = "name distracting programs that stay frozen while their shield is up"
    static let discussion = """
        A shield names programs the way people know them: --app NAME (the executable's name), --match REGEX (a
        pattern searched in the command line, for launchers and interpreters) or --desktop-id ID (the desktop
        application id); --site SITE names a website (a domain and its subdomains, maybe with a path; '*' in the
        path stands for anything), which the browser extension blocks ('hum shield install-browser',
        docs/shields.md). While a shield is up, the guard in the running player freezes its programs of this user
        (SIGSTOP) within a second or two, whole process groups at once; 'hum shield add' starts a silent player in
        the background when none runs, and 'hum ctl stop' stops it and thaws what it froze. 'hum pass 15m --on NAME'
        lifts a shield for the minutes it spends. hum never touches pid 1, a session leader, hum itself and the
        processes it runs under, its terminal's foreground, another user's processes or kernel threads, and
        'hum shield add' refuses a target that names one of them (exit 3). This is friction you chose, not
        security: you can always stop hum. Not built yet: notifications and distracting time (docs/shields.md).
        While a strict contract runs, 'hum shield rm' (of a shield or of targets) and 'hum shield off' are refused
        (exit 3); adding targets, new shields and 'hum shield on' stay allowed.
        """
    static let examples = [
        "hum shield add games --app steam --app minecraft-launcher",
        "hum shield add social --desktop-id org.telegram.desktop --match 'chromium.*--app=https://discord'",
        "hum shield add video --site youtube.com --site 'reddit.com/r/*'",
        "hum shield list --json",
        "hum shield off games --for 1h --reason \"friends over\"",
    ]
    static var subcommands: [any HumCommand.Type] {
        [
            Add.self, ShieldList.self, ShieldShow.self, Remove.self, ShieldOffCommand.self, ShieldOnCommand.self,
            ShieldSetCommand.self, ShieldStatusCommand.self, ShieldInstallBrowserCommand.self, ShieldStrongCommand.self,
        ]
    }
    static let arguments: [any Declared] = ShieldList.arguments

    static let shieldName = Positional(
        "NAME",
        ValueKind<String>("NAME") { text in
            guard let name = try? Shield.checkedName(text) else {
                return .failure(
                    .init(
                        "is not a shield name: use 1 to \(Shield.longestName) lower-case letters, digits, - or _, "
                            + "starting with a letter or digit (for example games)"))
            }
            return .success(name)
        }, help: "the shield's name (a-z, 0-9, - and _)")
    static let app = Option(
        "app", ValueKind<String>.text.named("NAME"), repeatable: true, help: "a program by its executable's name")
    static let match = Option(
        "match", ValueKind<String>.text.named("REGEX"), repeatable: true,
        help: "a program whose command line holds a match of this regular expression")
    static let desktopID = Option(
        "desktop-id", ValueKind<String>.text.named("ID"), repeatable: true,
        help: "a program by its desktop application id (org.telegram.desktop)")
    static let site = Option(
        "site", ValueKind<String>.text.named("SITE"), repeatable: true,
        help: "a website for the browser extension: a domain (and its subdomains), maybe with a path ('reddit.com/r/*')"
    )

    /// The targets given with --app, --match and --desktop-id, each checked.
    static func targets(_ arguments: ParsedArguments) throws -> [ShieldTarget] {
        var out: [ShieldTarget] = []
        for (option, kind) in [(app, ShieldTarget.Kind.app), (match, .match), (desktopID, .desktopID), (site, .site)] {
            for value in try arguments.values(option) { out.append(try ShieldTarget.checked(kind, value)) }
        }
        return out
    }

    let list: ShieldList
    init(_ arguments: ParsedArguments) throws { list = try ShieldList(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    struct Add: HumCommand {
        static let name = "add"
        static let abstract = "make a shield, or add programs or websites to one"
        static let discussion = """
            Adding to an existing shield only tightens it, so it is allowed during a strict contract. A target that
            names a process hum never touches, running now (hum, its shell or terminal, pid 1, a session leader),
            is refused with exit 3 and nothing is changed.
            """
        static let examples = [
            "hum shield add games --app steam --app lutris",
            "hum shield add games --match 'java .*minecraft'",
        ]
        static let arguments: [any Declared] = [ShieldCommand.shieldName, app, match, desktopID, site]
        let name: String
        let targets: [ShieldTarget]
        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(ShieldCommand.shieldName, at: 0)!
            targets = try ShieldCommand.targets(arguments)
            guard !targets.isEmpty else {
                throw HumError.usage(
                    "shield add needs a program or a website: --app NAME, --match REGEX, --desktop-id ID or --site SITE, "
                        + "for example "
                        + "'hum shield add \(name) --app steam'")
            }
        }

        func run(context: CommandContext) throws -> Int32 {
            let reader = ProcessFactsReader(readsDesktopIDs: targets.contains { $0.kind == .desktopID })
            let processes = reader.snapshot()
            let safety = ShieldSafety(me: ProcessFactsReader.me(), among: processes)
            for target in targets {
                if let refusal = safety.refusal(for: target, among: processes) { throw refusal }
            }
            let addition = try LedgerCLI.open(context).addShield(name: name, targets: targets)
            context.made("the shield was saved", see: "hum shield show \(name)")
            let what = addition.added.map(\.option).joined(separator: ", ")
            if addition.created {
                context.stdout.write("shield \(name) made: \(what)\n")
            } else if addition.added.isEmpty {
                context.stdout.write("shield \(name) already holds all of these; nothing was changed\n")
            } else {
                context.stdout.write("shield \(name): added \(what) (\(addition.shield.targets.count) targets)\n")
            }
            try ShieldGuardLink.ensureGuard(context)
            return ExitCode.success
        }
    }

    struct Remove: HumCommand {
        static let name = "rm"
        static let abstract = "remove a shield, or some of its targets"
        static let discussion = """
            Its programs are thawed by the guard. The shield's offs and lifts stay on the record. Refused while a
            strict contract runs (exit 3).
            """
        static let examples = ["hum shield rm games", "hum shield rm games --app lutris"]
        static let arguments: [any Declared] = [ShieldCommand.shieldName, app, match, desktopID, site]
        let name: String
        let targets: [ShieldTarget]
        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(ShieldCommand.shieldName, at: 0)!
            targets = try ShieldCommand.targets(arguments)
        }

        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            if targets.isEmpty {
                try db.removeShield(named: name)
                context.made("the shield was removed", see: "hum shield list")
                context.stdout.write("shield \(name) removed\n")
                ShieldGuardLink.tell(context)
            } else {
                let shield = try db.removeTargets(targets, fromShield: name)
                context.made("the targets were removed", see: "hum shield show \(name)")
                context.stdout.write(
                    "shield \(name): removed \(targets.map(\.option).joined(separator: ", ")) "
                        + "(\(shield.targets.count) left)\n")
                ShieldGuardLink.tell(context)
            }
            return ExitCode.success
        }
    }
}
