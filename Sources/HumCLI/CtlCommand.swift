import FoundationEssentials
import HumAudio
import HumControl
import HumCore
import HumPlayer

#if canImport(Glibc)
    import Glibc
#endif

/// A volume as `hum ctl` takes it: `40` sets it, `+5` and `-5` move it from where it is (kept within 0–100).
enum VolumeChange: Sendable, Equatable {
    case to(Double)
    case by(Double)

    static let kind = ValueKind<VolumeChange>("VOLUME") { text in
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        let body = relative ? String(text.dropFirst()) : text
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let v = Double(body).flatMap(Volume.checked)
        else {
            return .failure(.init("is not a volume: give 0 to 100, or +N / -N to move it"))
        }
        return .success(relative ? .by(text.hasPrefix("-") ? -v : v) : .to(v))
    }
}

/// `hum ctl`: steers the running player, as its keys do. Each subcommand is one request of the control protocol
/// (docs/control.md), declared as one row of `requests`; the player applies it at once and answers with its status,
/// printed as `hum status` prints it (unless --quiet). Exit 1 when no player runs, 2 when the request is wrong (here
/// or by the player's word).
struct CtlCommand: HumCommand {
    static let name = "ctl"
    static let abstract = "steer the running player: pause, skip, volumes, sounds, another saved mix"
    static let discussion = """
        Sends one request to the player started by 'hum play', 'hum focus' or bare 'hum' (of this user, through
        its socket in $XDG_RUNTIME_DIR/hum), prints the status after it (as 'hum status' does; --quiet prints
        nothing), and exits 0. With no player running it exits 1; a wrong request exits 2. VOLUME is 0–100, or
        +N / -N to move the volume from where it is (the player computes it: two clients moving it at once each
        get their step).
        """
    static let examples = [
        "hum ctl toggle",
        "hum ctl volume rain 30",
        "hum ctl master -10",
        "hum ctl extend 10m",
        "hum ctl mix night",
    ]
    static var subcommandRows: [CommandEntry] { requests.map(\.entry) }

    init(_ arguments: ParsedArguments) throws {}

    func run(context: CommandContext) throws -> Int32 {
        throw HumError.usage(
            "hum ctl needs a request: \(ValueKind<String>.list(Self.requests.map(\.name))); see 'hum ctl --help'")
    }

    /// One request of `hum ctl`, a row of `requests`: its words for people, its arguments (`--quiet` follows them),
    /// and what it asks of the player.
    struct Request: Sendable {
        /// Makes the request once a player answers (so "no player" comes before anything else), with the context
        /// for what is looked up on the way (a sound's file, a saved mix).
        typealias Make = (CommandContext) throws -> PlayerCommand

        let name: String
        let abstract: String
        let examples: [String]
        let arguments: [any Declared]
        /// Reads the parsed arguments: a bad value is a usage error here, before any player is asked (no I/O).
        let read: @Sendable (ParsedArguments) throws -> Make

        init(
            _ name: String, _ abstract: String, examples: [String] = [], arguments: [any Declared] = [],
            read: @escaping @Sendable (ParsedArguments) throws -> Make
        ) {
            self.name = name
            self.abstract = abstract
            self.examples = examples
            self.arguments = arguments
            self.read = read
        }

        /// A request with no argument.
        init(_ name: String, _ abstract: String, _ request: PlayerCommand) {
            self.init(name, abstract) { _ in { _ in request } }
        }

        /// The row as a subcommand: what help, the man page, the completions and the dispatcher read.
        var entry: CommandEntry {
            let read = read
            return CommandEntry(
                name: name, abstract: abstract, examples: examples, arguments: arguments + [CtlCommand.quiet]
            ) { parsed in
                let make = try read(parsed)
                let quiet = parsed.flag(CtlCommand.quiet)
                return { context in try CtlCommand.send(quiet: quiet, context: context, make) }
            }
        }
    }

    /// Every request, in the order help lists them.
    static let requests: [Request] = [
        Request("pause", "pause: the mix fades out and the focus countdown stops", .pause),
        Request("resume", "resume after a pause, or start a phase that waits (--auto-advance)", .resume),
        Request("toggle", "pause when playing, resume when paused (the space key)", .toggle),
        Request("skip", "skip to the next focus phase (the round is recorded as skipped)", .skip),
        Request("restart", "start the focus round under way again (it is recorded as interrupted)", .restart),
        Request(
            "extend", "make the focus phase longer (by 5 minutes, or DURATION)",
            examples: ["hum ctl extend", "hum ctl extend 10m"], arguments: [duration]
        ) { arguments in
            let seconds = try arguments.positional(duration, at: 0)
            return { _ in .extend(seconds: seconds) }
        },
        Request("end-focus", "stop the focus rounds (recorded as interrupted); the mix plays on", .endFocus),
        Request("stop", "fade out and stop the player", .stop),
        Request(
            "volume", "set a sound's volume (it is unmuted)",
            examples: ["hum ctl volume rain 30", "hum ctl volume rain +5"], arguments: [sound, volume]
        ) { arguments in
            let sound = try arguments.positional(CtlCommand.sound, at: 0)!
            let request: PlayerCommand =
                switch try arguments.positional(volume, at: 1)! {
                case .to(let v): .volume(sound: sound, volume: v)
                case .by(let step): .volumeBy(sound: sound, step: step)
                }
            return { _ in request }
        },
        Request(
            "mute", "mute or unmute a sound (without on|off: the other way round, like the m key)",
            examples: ["hum ctl mute rain", "hum ctl mute rain off"], arguments: [sound, muteState]
        ) { arguments in
            let sound = try arguments.positional(CtlCommand.sound, at: 0)!
            let muted = try arguments.positional(muteState, at: 1).map { $0 == "on" }
            return { _ in .mute(sound: sound, muted: muted) }
        },
        Request(
            "master", "set the master volume", examples: ["hum ctl master 60", "hum ctl master -10"],
            arguments: [volume]
        ) { arguments in
            let request: PlayerCommand =
                switch try arguments.positional(volume, at: 0)! {
                case .to(let v): .master(volume: v)
                case .by(let step): .masterBy(step: step)
                }
            return { _ in request }
        },
        Request(
            "add", "add a sound to the playing mix",
            examples: ["hum ctl add fire=30", "hum ctl add ~/sounds/cafe.flac"],
            arguments: [mixWord]
        ) { arguments in
            let word = try arguments.positional(mixWord, at: 0)!
            if word.hasPrefix("@") {
                throw HumError.usage(
                    "add takes one sound; to play the saved mix, run 'hum ctl mix \(word.dropFirst())'")
            }
            return { context in
                // Resolved here, so a typo is told with a suggestion, and a file is named by its whole path: the
                // player does not run in this directory.
                let entry = try MixSetup.resolve(
                    words: [word], catalog: MixSetup.catalog(context.runtime), environment: context.runtime
                )
                .entries[0]
                var sound = entry.token.name
                if entry.sound.source == .file, !sound.hasPrefix("/") {
                    sound = FileManager.default.currentDirectoryPath + "/" + sound
                }
                return .add(sound: sound, volume: entry.token.volume)
            }
        },
        Request(
            "remove", "take a sound out of the playing mix", examples: ["hum ctl remove rain"], arguments: [sound]
        ) { arguments in
            let sound = try arguments.positional(CtlCommand.sound, at: 0)!
            return { _ in .remove(sound: sound) }
        },
        Request(
            "mix", "play a saved mix instead (see 'hum mix list')", examples: ["hum ctl mix night"],
            arguments: [MixCommand.nameArgument]
        ) { arguments in
            let name = try arguments.positional(MixCommand.nameArgument, at: 0)!
            return { context in
                // No database yet: no saved mix, and none is created to find that out.
                let saved =
                    access(context.paths.databasePath, F_OK) == 0 ? try LedgerCLI.open(context).mix(named: name) : nil
                guard var mix = saved else {
                    throw HumError.usage("there is no saved mix \(name.quoted); see 'hum mix list'")
                }
                mix.name = name
                return .play(mix)
            }
        },
    ]

    static let quiet = Flag("quiet", short: "q", help: "print nothing after the change")

    static let sound = Positional(
        "SOUND",
        ValueKind<String>("SOUND", completion: .playing) { text in
            text.isEmpty ? .failure(.init("is empty; name a sound of the mix (see 'hum status')")) : .success(text)
        }, help: "a sound of the playing mix, by its name (see 'hum status')")

    static let volume = Positional("VOLUME", VolumeChange.kind, help: "0–100, or +N / -N")

    static let duration = Positional(
        "DURATION",
        ValueKind<Int64>.seconds.map { seconds in
            PlayerCommand.extendSeconds.contains(seconds)
                ? .success(seconds) : .failure(.init("is longer than 24h, the most one extend adds"))
        }, required: false, help: "how much longer, 1s to 24h, like 10m (default: 5 minutes, the e key)")

    static let muteState = Positional(
        "on|off", ValueKind<String>.oneOf(["on", "off"], placeholder: "on|off"), required: false,
        help: "on mutes, off unmutes (default: toggle)")

    static let mixWord = Positional(
        "SOUND[=VOLUME]", .mixWord, help: "a built-in or user sound, or an audio file, at VOLUME (default 75)")

    /// Sends the request that `make` builds once a player answers, and prints the status after it (the bank with
    /// it, read only then: `--quiet` opens no database). A relative change (`+5`) is its own request, computed by
    /// the player.
    static func send(quiet: Bool, context: CommandContext, _ make: Request.Make) throws -> Int32 {
        guard let client = try PlayerLink.connect(context) else { throw PlayerLink.noPlayer }
        let command = try make(context)
        let status: PlayerStatus?
        do {
            status = try PlayerLink.send(command, to: client)
        } catch ControlClient.Problem.closed where command == .stop || command == .endFocus {
            status = nil  // a player that ends with the request may close before it answers: it did what was asked
        }
        context.made("the player carried out the request", see: "hum status")
        if !quiet {
            let report = StatusReport(player: status, bankSeconds: BankReader(context: context).read())
            context.stdout.write(report.line { VisibleText.escape($0) } + "\n")
        }
        return ExitCode.success
    }
}
