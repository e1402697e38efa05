import FoundationEssentials
import HumAudio
import HumControl
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// A volume as `hum ctl` takes it: `40` sets it, `+5` and `-5` move it from where it is (kept within 0–100).
enum VolumeChange: Sendable, Equatable {
    case to(Double)
    case by(Double)

    func applied(to current: Double) -> Double {
        switch self {
        case .to(let v): return v
        case .by(let step): return Volume.checked(min(100, max(0, current + step))) ?? 0
        }
    }

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
/// (docs/control.md); the player applies it at once and answers with its status, printed as `hum status` prints
/// it (unless --quiet). Exit 1 when no player runs, 2 when the request is wrong (here or by the player's word).
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
    static var subcommands: [any HumCommand.Type] {
        [
            Pause.self, Resume.self, Toggle.self, Skip.self, Restart.self, Extend.self, EndFocus.self, Stop.self,
            SoundVolume.self,
            Mute.self, Master.self, Add.self, Remove.self, LoadMix.self,
        ]
    }

    init(_ arguments: ParsedArguments) throws {}

    func run(context: CommandContext) throws -> Int32 {
        throw HumError.usage(
            "hum ctl needs a request: \(ValueKind<String>.list(Self.subcommands.map { $0.name })); see 'hum ctl --help'"
        )
    }

    static let quiet = Flag("quiet", short: "q", help: "print nothing after the change")

    static let sound = Positional(
        "SOUND",
        ValueKind<String>("SOUND", completion: .playing) { text in
            text.isEmpty ? .failure(.init("is empty; name a sound of the mix (see 'hum status')")) : .success(text)
        }, help: "a sound of the playing mix, by its name (see 'hum status')")

    /// Sends one request and prints the status after it (the bank with it, read only then: `--quiet` opens no
    /// database). A relative change (`+5`) is its own request, computed by the player.
    static func send(_ command: PlayerCommand, quiet: Bool, context: CommandContext) throws -> Int32 {
        try send(quiet: quiet, context: context) { command }
    }

    /// Sends the request that `make` builds once a player answers (so "no player" comes before anything else).
    static func send(quiet: Bool, context: CommandContext, _ make: () throws -> PlayerCommand) throws -> Int32 {
        guard let client = try PlayerLink.connect(context) else { throw PlayerLink.noPlayer }
        let command = try make()
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

    /// A request with no argument.
    protocol Plain: HumCommand {
        static var request: PlayerCommand { get }
        var quiet: Bool { get }
    }

    struct Pause: Plain {
        static let name = "pause"
        static let abstract = "pause: the mix fades out and the focus countdown stops"
        static let request = PlayerCommand.pause
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Resume: Plain {
        static let name = "resume"
        static let abstract = "resume after a pause, or start a phase that waits (--auto-advance)"
        static let request = PlayerCommand.resume
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Toggle: Plain {
        static let name = "toggle"
        static let abstract = "pause when playing, resume when paused (the space key)"
        static let request = PlayerCommand.toggle
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Restart: Plain {
        static let name = "restart"
        static let abstract = "start the focus round under way again (it is recorded as interrupted)"
        static let request = PlayerCommand.restart
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Skip: Plain {
        static let name = "skip"
        static let abstract = "skip to the next focus phase (the round is recorded as skipped)"
        static let request = PlayerCommand.skip
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct EndFocus: Plain {
        static let name = "end-focus"
        static let abstract = "stop the focus rounds (recorded as interrupted); the mix plays on"
        static let request = PlayerCommand.endFocus
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Stop: Plain {
        static let name = "stop"
        static let abstract = "fade out and stop the player"
        static let request = PlayerCommand.stop
        static let arguments: [any Declared] = [CtlCommand.quiet]
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws { quiet = arguments.flag(CtlCommand.quiet) }
    }

    struct Extend: HumCommand {
        static let name = "extend"
        static let abstract = "make the focus phase longer (by 5 minutes, or DURATION)"
        static let examples = ["hum ctl extend", "hum ctl extend 10m"]
        static let duration = Positional(
            "DURATION",
            ValueKind<Int64>.seconds.map { seconds in
                PlayerCommand.extendSeconds.contains(seconds)
                    ? .success(seconds) : .failure(.init("is longer than 24h, the most one extend adds"))
            }, required: false, help: "how much longer, 1s to 24h, like 10m (default: 5 minutes, the e key)")
        static let arguments: [any Declared] = [duration, CtlCommand.quiet]
        let seconds: Int64?
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            seconds = try arguments.positional(Self.duration, at: 0)
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            try CtlCommand.send(.extend(seconds: seconds), quiet: quiet, context: context)
        }
    }

    struct SoundVolume: HumCommand {
        static let name = "volume"
        static let abstract = "set a sound's volume (it is unmuted)"
        static let examples = ["hum ctl volume rain 30", "hum ctl volume rain +5"]
        static let volume = Positional("VOLUME", VolumeChange.kind, help: "0–100, or +N / -N")
        static let arguments: [any Declared] = [CtlCommand.sound, volume, CtlCommand.quiet]
        let sound: String
        let volume: VolumeChange
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            sound = try arguments.positional(CtlCommand.sound, at: 0)!
            volume = try arguments.positional(Self.volume, at: 1)!
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            switch volume {
            case .to(let v): try CtlCommand.send(.volume(sound: sound, volume: v), quiet: quiet, context: context)
            case .by(let step): try CtlCommand.send(.volumeBy(sound: sound, step: step), quiet: quiet, context: context)
            }
        }
    }

    struct Mute: HumCommand {
        static let name = "mute"
        static let abstract = "mute or unmute a sound (without on|off: the other way round, like the m key)"
        static let examples = ["hum ctl mute rain", "hum ctl mute rain off"]
        static let state = Positional(
            "on|off", ValueKind<String>.oneOf(["on", "off"], placeholder: "on|off"), required: false,
            help: "on mutes, off unmutes (default: toggle)")
        static let arguments: [any Declared] = [CtlCommand.sound, state, CtlCommand.quiet]
        let sound: String
        let muted: Bool?
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            sound = try arguments.positional(CtlCommand.sound, at: 0)!
            muted = try arguments.positional(Self.state, at: 1).map { $0 == "on" }
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            try CtlCommand.send(.mute(sound: sound, muted: muted), quiet: quiet, context: context)
        }
    }

    struct Master: HumCommand {
        static let name = "master"
        static let abstract = "set the master volume"
        static let examples = ["hum ctl master 60", "hum ctl master -10"]
        static let volume = Positional("VOLUME", VolumeChange.kind, help: "0–100, or +N / -N")
        static let arguments: [any Declared] = [volume, CtlCommand.quiet]
        let volume: VolumeChange
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            volume = try arguments.positional(Self.volume, at: 0)!
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            switch volume {
            case .to(let v): try CtlCommand.send(.master(volume: v), quiet: quiet, context: context)
            case .by(let step): try CtlCommand.send(.masterBy(step: step), quiet: quiet, context: context)
            }
        }
    }

    struct Add: HumCommand {
        static let name = "add"
        static let abstract = "add a sound to the playing mix"
        static let examples = ["hum ctl add fire=30", "hum ctl add ~/sounds/cafe.flac"]
        static let word = Positional(
            "SOUND[=VOLUME]", .mixWord, help: "a built-in or user sound, or an audio file, at VOLUME (default 75)")
        static let arguments: [any Declared] = [word, CtlCommand.quiet]
        let word: String
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            word = try arguments.positional(Self.word, at: 0)!
            quiet = arguments.flag(CtlCommand.quiet)
            if word.hasPrefix("@") {
                throw HumError.usage(
                    "add takes one sound; to play the saved mix, run 'hum ctl mix \(word.dropFirst())'")
            }
        }
        func run(context: CommandContext) throws -> Int32 {
            try CtlCommand.send(quiet: quiet, context: context) {
                // Resolved here, so a typo is told with a suggestion, and a file is named by its whole path: the
                // player does not run in this directory.
                let entry = try MixSetup.resolve(words: [word], catalog: MixSetup.catalog(context), context: context)
                    .entries[0]
                var sound = entry.token.name
                if entry.sound.source == .file, !sound.hasPrefix("/") {
                    sound = FileManager.default.currentDirectoryPath + "/" + sound
                }
                return .add(sound: sound, volume: entry.token.volume)
            }
        }
    }

    struct Remove: HumCommand {
        static let name = "remove"
        static let abstract = "take a sound out of the playing mix"
        static let examples = ["hum ctl remove rain"]
        static let arguments: [any Declared] = [CtlCommand.sound, CtlCommand.quiet]
        let sound: String
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            sound = try arguments.positional(CtlCommand.sound, at: 0)!
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            try CtlCommand.send(.remove(sound: sound), quiet: quiet, context: context)
        }
    }

    struct LoadMix: HumCommand {
        static let name = "mix"
        static let abstract = "play a saved mix instead (see 'hum mix list')"
        static let examples = ["hum ctl mix night"]
        static let arguments: [any Declared] = [HumCLI.MixCommand.nameArgument, CtlCommand.quiet]
        let name: String
        let quiet: Bool
        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(HumCLI.MixCommand.nameArgument, at: 0)!
            quiet = arguments.flag(CtlCommand.quiet)
        }
        func run(context: CommandContext) throws -> Int32 {
            try CtlCommand.send(quiet: quiet, context: context) {
                // No database yet: no saved mix, and none is created to find that out.
                let saved =
                    access(context.paths.databasePath, F_OK) == 0 ? try LedgerCLI.open(context).mix(named: name) : nil
                guard var mix = saved else {
                    throw HumError.usage("there is no saved mix \(name.quoted); see 'hum mix list'")
                }
                mix.name = name
                return .play(mix)
            }
        }
    }
}

extension CtlCommand.Plain {
    func run(context: CommandContext) throws -> Int32 {
        try CtlCommand.send(Self.request, quiet: quiet, context: context)
    }
}
