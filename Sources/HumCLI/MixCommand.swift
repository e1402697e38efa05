import FoundationEssentials
import HumCore
import HumPlayer
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// `hum mix save|list|rm`: mixes saved by name, played as `@NAME` wherever a mix is given.
struct MixCommand: HumCommand {
    static let name = "mix"
    static let abstract = "save mixes by name and list them; play one with @NAME"
    static let discussion = """
        A saved mix is its sounds with their volumes, and the master volume. '@NAME' plays it wherever a mix is
        given: 'hum play @night', 'hum focus @deep', 'hum ctl mix night'. Saved mixes live in the database
        ($XDG_DATA_HOME/hum/hum.db).
        """
    static let examples = [
        "hum mix save night rain=70 brown=40",
        "hum mix save deep          # what the player plays now",
        "hum mix list",
        "hum play @night",
    ]
    static var subcommands: [any HumCommand.Type] { [Save.self, List.self, Remove.self] }
    static let arguments: [any Declared] = List.arguments

    let list: List
    init(_ arguments: ParsedArguments) throws { list = try List(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    static let nameArgument = Positional(
        "NAME",
        ValueKind<String>("NAME", completion: .mixes) { text in
            let name = text.hasPrefix("@") ? String(text.dropFirst()) : text
            do throws(Mix.Problem) {
                try Mix.checkName(name)
                return .success(name)
            } catch {
                return .failure(.init("cannot name a mix: use 1 to 64 letters, digits, '-', '_' or '.'"))
            }
        }, help: "the mix's name")

    struct Save: HumCommand {
        static let name = "save"
        static let abstract = "save a mix under a name (without sounds: what the player plays now)"
        static let examples = ["hum mix save night rain=70 brown=40", "hum mix save deep"]
        static let sounds = Positional(
            "SOUND[=VOLUME]", .mixWord, variadic: true, required: false, help: "the sounds (default: the player's mix)")
        static let master = Option("volume", .volume, help: "the mix's master volume 0–100 (default 100)")
        static let arguments: [any Declared] = [MixCommand.nameArgument, sounds, master]

        let name: String
        let words: [String]
        let master: Double?

        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(MixCommand.nameArgument, at: 0)!
            words = try arguments.positionals(Self.sounds, from: 1)
            master = try arguments.value(Self.master)
        }

        func run(context: CommandContext) throws -> Int32 {
            var mix: Mix
            if words.isEmpty {
                guard let client = try PlayerLink.connect(context) else {
                    throw HumError.usage(
                        "no hum player is running to take the mix from; give the sounds, like 'hum mix save \(name) "
                            + "rain=40'"
                    )
                }
                mix = try PlayerLink.send(.status, to: client).mix
            } else {
                let requested = try MixSetup.resolve(
                    words: words, catalog: MixSetup.catalog(context.runtime), environment: context.runtime)
                mix = Mix(tokens: requested.entries.map(\.token), master: requested.master ?? 100)
            }
            if let master { mix.master = master }
            try LedgerCLI.open(context).saveMix(mix, as: name)
            context.made("the mix @\(name) was saved", see: "hum mix list")
            context.stdout.write("saved @\(name): \(VisibleText.escape(mix.summary))\n")
            return ExitCode.success
        }
    }

    struct List: HumCommand {
        static let name = "list"
        static let abstract = "list the saved mixes, then the ten played most recently"
        static let format = Option.format([.text, .json])
        static let names = Flag("names", help: "print only the names, one per line (for scripts and completions)")
        static let arguments: [any Declared] = [format, names]

        let json: Bool
        let namesOnly: Bool

        init(_ arguments: ParsedArguments) throws {
            json = try arguments.value(Self.format) == .json
            namesOnly = arguments.flag(Self.names)
        }

        /// A saved mix (`kind` "saved", with its name and when it was saved) or a recent one (`kind` "recent", with
        /// when it was last played).
        struct Listing: Encodable {
            var kind: String
            var name: String?
            var mix: Mix
            var savedAt: String?
            var playedAt: String?
            enum CodingKeys: String, CodingKey {
                case kind, name, mix
                case savedAt = "saved_at"
                case playedAt = "played_at"
            }
        }

        func run(context: CommandContext) throws -> Int32 {
            // Completions ask for the names at every tab: without a database yet, there are none to create one for.
            if namesOnly, access(context.paths.databasePath, F_OK) != 0 { return ExitCode.success }
            let db = try LedgerCLI.open(context)
            let saved = try db.savedMixes()
            if namesOnly {
                context.stdout.write(saved.map { $0.name + "\n" }.joined())
                return ExitCode.success
            }
            let recent = MixSetup.recentMixes(context.runtime, database: db)
            if json {
                let listings =
                    saved.map { Listing(kind: "saved", name: $0.name, mix: $0.mix, savedAt: $0.savedAt) }
                    + recent.map { Listing(kind: "recent", mix: Mix(tokens: $0.mix), playedAt: $0.playedAt) }
                context.stdout.write(try LedgerCLI.json(listings) + "\n")
                return ExitCode.success
            }
            var out = ""
            if saved.isEmpty {
                out += "no saved mixes; save one with 'hum mix save NAME rain=70 brown=40'\n"
            } else {
                let width = saved.map { DisplayWidth.columns(VisibleText.escape($0.name)) + 1 }.max() ?? 0
                for (name, mix, _) in saved {
                    let master = mix.master == 100 ? "" : "  (master \(MixSpec.formatVolume(mix.master)))"
                    out +=
                        "\(VisibleText.escape("@" + name).padding(width))  "
                        + "\(VisibleText.escape(mix.summary))\(master)\n"
                }
            }
            if !recent.isEmpty {
                // Played most recently first, with the local day and time (as the history shows them), and the words
                // that play it again.
                out += "\nrecent:\n"
                for entry in recent {
                    let when = entry.playedAt.prefix(16).replacing("T", with: " ")
                    out += "  \(when)  \(VisibleText.escape(MixSpec.format(entry.mix)))\n"
                }
            }
            context.stdout.write(out)
            return ExitCode.success
        }
    }

    struct Remove: HumCommand {
        static let name = "rm"
        static let abstract = "remove a saved mix"
        static let examples = ["hum mix rm night"]
        static let arguments: [any Declared] = [MixCommand.nameArgument]

        let name: String
        init(_ arguments: ParsedArguments) throws { name = try arguments.positional(MixCommand.nameArgument, at: 0)! }

        func run(context: CommandContext) throws -> Int32 {
            guard try LedgerCLI.open(context).removeMix(named: name) else {
                throw HumError.failure("there is no saved mix \(name.quoted); see 'hum mix list'")
            }
            context.made("the mix @\(name) was removed", see: "hum mix list")
            context.stdout.write("removed @\(name)\n")
            return ExitCode.success
        }
    }
}
