import HumCore
import Testing

@testable import HumCLI

@Suite struct ArgumentParserTests {
    static let duration = Option("for", aliases: ["duration"], .duration, help: "")
    static let output = Option("output", short: "o", .file, help: "")
    static let format = Option.format([.text, .json, .csv])
    static let quiet = Flag("quiet", short: "q", help: "")
    static let tag = Option("tag", .words("TAG"), repeatable: true, help: "")
    static let words = Positional("WORD", .text, variadic: true, required: false, help: "")
    static let command = CommandAfterDashes(required: false, help: "")
    static let all: [any Declared] = [duration, output, format, quiet, tag, words]

    func parse(_ words: [String], _ declarations: [any Declared] = all) throws -> ParsedArguments {
        try ArgumentParser.parse(words, declarations: declarations.map(\.info), path: "test", example: "hum test x")
    }

    @Test func readsEveryFormTyped() throws {
        let p = try parse(["rain=40", "--for", "30m", "-o", "x.wav", "--json", "-q", "--tag=a", "--tag", "b", "-5m"])
        #expect(try p.positionals(Self.words) == ["rain=40", "-5m"])
        #expect(try p.value(Self.duration) == 1800)
        #expect(try p.value(Self.output) == "x.wav")
        #expect(try p.value(Self.format) == .json)
        #expect(p.flag(Self.quiet))
        #expect(try p.values(Self.tag) == ["a", "b"])
        #expect(try parse(["-ox.wav"]).value(Self.output) == "x.wav")
        #expect(try parse(["--duration=90s"]).value(Self.duration) == 90)
        #expect(try parse(["--format", "csv"]).value(Self.format) == .csv)
        #expect(try parse([]).value(Self.format) == nil)
    }

    @Test func passesTheCommandAfterDashes() throws {
        let p = try parse(["10m", "--", "firefox", "--private", "-x"], [Self.words, Self.command])
        #expect(try p.positionals(Self.words) == ["10m"])
        #expect(try p.command(Self.command) == ["firefox", "--private", "-x"])
    }

    @Test(arguments: [
        (["--nope"], "unknown option --nope; see 'hum test --help'"),
        (["--outptu", "x"], "unknown option --outptu; did you mean --output? see 'hum test --help'"),
        (["--qiuet"], "unknown option --qiuet; did you mean --quiet? see 'hum test --help'"),
        (["--for"], "option --for needs a value (DURATION); see 'hum test --help'"),
        (["--quiet=yes"], "option --quiet takes no value, but got \"--quiet=yes\"; see 'hum test --help'"),
        (["--for", "1m", "--for", "2m"], "option --for is given twice; give it once"),
        (["--json", "--csv"], "--json and --csv cannot go together; choose one"),
        (["-z"], "unknown option -z in \"-z\"; see 'hum test --help'"),
    ])
    func rejectsBadOptionsWithTheirMessage(words: [String], message: String) {
        #expect { try parse(words) } throws: { error in
            guard let error = error as? HumError, case .usage(let text) = error else { return false }
            return text == message && error.exitCode == 2
        }
    }

    @Test(arguments: [
        (["--for", "soon"], "--for \"soon\" is not a duration; write for example 90s, 25m, 1h or 1h30m"),
        (["--duration", "soon"], "--duration \"soon\" is not a duration; write for example 90s, 25m, 1h or 1h30m"),
        (
            ["--for", "9000h"],
            "--for \"9000h\" is longer than a year, the longest hum takes; write for example 25m or 2h"
        ),
        (["--format", "xml"], "--format \"xml\" is not one of text, json or csv"),
        (["--format", "jsn"], "--format \"jsn\" is not one of text, json or csv; did you mean json?"),
    ])
    func badValuesNameTheOptionAsSpelled(words: [String], message: String) throws {
        let p = try parse(words)
        #expect(throws: HumError.usage(message)) {
            _ = try p.value(Self.duration)
            _ = try p.value(Self.format)
        }
    }

    @Test func missingArgumentsQuoteTheExample() throws {
        let required = Option("for", .duration, required: true, help: "")
        let one = Positional("FILE", .file, help: "")
        #expect(throws: HumError.usage("test needs --for DURATION, for example 'hum test x'")) {
            try parse([], [required]).required(required)
        }
        #expect(throws: HumError.usage("test needs FILE, for example 'hum test x'")) {
            try parse([], [one]).positional(one, at: 0)
        }
        #expect(throws: HumError.usage("unexpected argument \"b\"; see 'hum test --help'")) {
            try parse(["a", "b"], [one])
        }
    }

    /// Generated command lines over the declared spellings: the parser either accepts the line, and then every
    /// value it keeps is a word of the line in its place, or refuses it with a usage error (exit 2). Never a trap.
    @Test func fuzzAcceptsOrRefusesAsAUsageError() throws {
        var rng = SplitMix64(seed: 5)
        let pieces = [
            "--for", "-o", "--json", "--csv", "-q", "--", "--tag=", "-", "=", "x", "-5", "--json=1", "-qo", "é", "",
            "--format", "json", "30m", "--duration", "-oq",
        ]
        var accepted = 0
        for _ in 0..<5000 {
            let words = (0..<Int(rng.next() % 7)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            do {
                let p = try parse(words)
                accepted += 1
                for value in p.values.values.flatMap({ $0 }) {
                    #expect(
                        words.contains(value) || words.contains { $0.hasSuffix(value) } || value == "json"
                            || value == "csv")
                }
                for positional in p.positionals { #expect(words.contains(positional)) }
            } catch let error as HumError {
                #expect(error.exitCode == ExitCode.usage)
            }
        }
        #expect(accepted > 500 && accepted < 4500, "the generator should reach both outcomes: \(accepted)")
    }

    @Test(arguments: [
        ("rian", ["rain", "brown", "storm"], "rain"),
        ("strom", ["rain", "brown", "storm"], "storm"),
        ("--volum", ["--volume", "--for", "--fade"], "--volume"),
        ("rendr", ["render", "play", "focus"], "render"),
        ("xyzzy", ["render", "play", "focus"], nil),
        ("b", ["bank", "brown"], nil),
    ])
    func suggestionsReachBeyondOneLetter(word: String, candidates: [String], expected: String?) {
        #expect(Suggest.closest(to: word, in: candidates) == expected)
    }
}

@Suite struct DispatcherTests {
    @Test func everyCommandHasHelp() {
        for command in CommandTable.commands {
            let run = runInProcess([command.name, "--help"])
            #expect(run.status == 0)
            #expect(run.stdout.contains("Usage:\n  hum \(command.name)"))
            #expect(run.stdout.contains("--help"))
        }
        #expect(runInProcess(["--help"]).stdout.contains("Commands:"))
        #expect(runInProcess(["help", "render"]).stdout.contains("--for"))
    }

    @Test func unknownCommandIsAUsageErrorWithASuggestion() {
        let run = runInProcess(["rendr"])
        #expect(run.status == 2)
        #expect(run.stderr == "hum: unknown command or sound \"rendr\"; did you mean 'render'? see 'hum --help'\n")
        let sub = runInProcess(["ledger", "chek"])
        #expect(sub.status == 2)
        #expect(sub.stderr == "hum: unknown command \"ledger chek\"; did you mean 'check'? see 'hum ledger --help'\n")
    }

    @Test(arguments: [
        (["play", "rain=101"], "hum: the volume in \"rain=101\" is outside 0–100; for example rain=40\n"),
        (["play", "=3"], "hum: \"=3\" names no sound; write SOUND=VOLUME, for example rain=40\n"),
        (["rain=101"], "hum: the volume in \"rain=101\" is outside 0–100; for example rain=40\n"),
        (
            ["play", "/x.wav", "--for", "soon"],
            "hum: --for \"soon\" is not a duration; write for example 90s, 25m, 1h or 1h30m\n"
        ),
        (["play", "/x.wav", "--volume", "300"], "hum: --volume \"300\" is not a volume from 0 to 100\n"),
        (["play", "--volum", "3"], "hum: unknown option --volum; did you mean --volume? see 'hum play --help'\n"),
        (
            ["render", "/x.wav", "-o", "a.wav"],
            "hum: render needs --for DURATION, for example 'hum render rain=70 brown=40 --for 10m -o mix.wav'\n"
        ),
        (
            ["render", "/x.wav", "-d", "1m", "-o", "a.mp4"],
            "hum: cannot tell the format of \"a.mp4\"; name it .wav, .flac, .ogg or .opus\n"
        ),
        (
            ["render", "/x.wav", "--duration", "1m", "-o", "a.wav", "--rate", "12"],
            "hum: --rate \"12\" is not a sample rate from 8000 to 384000 Hz\n"
        ),
        (
            ["play", "rian"],
            "hum: unknown sound \"rian\" in \"rian\"; no built-in sounds were found; give a path to an audio file\n"
        ),
        (["sounds", "extra"], "hum: unexpected argument \"extra\"; see 'hum sounds --help'\n"),
        (["focus", "--focus", "0s"], "hum: --focus \"0s\" is not longer than 0s; give a positive duration\n"),
        (["focus", "--rounds", "0"], "hum: --rounds \"0\" is not a whole number from 1 to 1000\n"),
        (
            ["focus", "--auto-advance", "to-brake"],
            "hum: --auto-advance \"to-brake\" is not one of all, none, to-break or to-focus; did you mean to-break?\n"
        ),
        (
            ["config", "get", "earn.ration"],
            "hum: KEY \"earn.ration\" is not a setting; did you mean earn.ratio? (see 'hum config list'; profiles are "
                + "profile.NAME)\n"
        ),
    ])
    func usageErrorsNameTheBadWord(arguments: [String], expected: String) {
        let run = runInProcess(arguments)
        #expect(run.status == 2)
        #expect(run.stderr == expected)
        #expect(run.stdout.isEmpty)
    }

    @Test func versionPrints() {
        #expect(runInProcess(["--version"]).stdout == "hum \(humVersion) (\(BuildStamp.commit))\n")
        #expect(runInProcess(["-V"]).stdout == "hum \(humVersion) (\(BuildStamp.commit))\n")
    }

    /// The one quoting helper: escaped, and at most 60 characters of a value shown, whatever it holds.
    @Test func aQuotedValueIsEscapedAndClipped() {
        #expect("rain".quoted == "\"rain\"")
        #expect(String(repeating: "x", count: 60).quoted == "\"" + String(repeating: "x", count: 60) + "\"")
        #expect(String(repeating: "x", count: 61).quoted == "\"" + String(repeating: "x", count: 59) + "…\"")
        #expect(String(repeating: "x", count: 100_000).clipped.count == VisibleText.quoteLimit)
        // Escapes count as they print, and are never cut in two.
        #expect("a\u{1B}b\nc".quoted == "\"a\\eb\\nc\"")
        #expect(String(repeating: "\u{1B}", count: 1000).clipped == String(repeating: "\\e", count: 29) + "…")
        // One character of a thousand combining marks is clipped too.
        let heap = "e" + String(repeating: "\u{301}", count: 100_000)
        #expect(heap.quoted.utf8.count < 600)
        // A path keeps its start and its file name.
        let path = "/home/me/" + String(repeating: "deep/", count: 100) + "export.json"
        let shown = path.clippedPath
        #expect(shown.count == VisibleText.pathLimit && shown.hasPrefix("/home/me/") && shown.hasSuffix("export.json"))
        #expect("/tmp/a.json".clippedPath == "/tmp/a.json")
    }

    /// A 100 kB word given by mistake is quoted by its start, in an error of one short line, on every command.
    @Test func aHugeBadValueMakesAShortError() {
        let long = String(repeating: "x", count: 100_000)
        let s = Sandbox()
        let lines: [[String]] = [
            ["play", long], ["play", "rain=" + long], ["play", long + "=3"], ["play", "--for", long], [long],
            ["--" + long], ["play", "-" + long], ["play", "--for=" + long], ["focus", "--focus", long],
            ["focus", "--rounds", long], ["spend", long, "--on", "y"],
            ["spend", "5m", "--on", "y", "--key", "round:" + long],
            ["config", "set", long, "3"], ["config", "set", "focus.length", long], ["config", "set", "play.mix", long],
            ["config", "set", "play.mix", "rain=" + long], ["config", "set", "profile.x", "--focus " + long],
            ["config", "set", "profile.x", "--focus 5m " + long], ["config", "get", long], ["config", long],
            ["report", long], ["report", "week", long], ["history", "--since", long], ["export", "--since", long],
            ["status", "--template", "{" + long + "}"], ["ctl", long], ["sounds", long], ["mix", "save", long, "rain"],
            ["mix", "save", "night", long], ["contract", "show", long], ["ledger", "adjust", long, "--reason", "x"],
            ["ledger", "export", "-o", "/nonexistent/" + long], ["bank", "--format", long], ["bank", long],
            ["completions", long], ["render", "-o", "/tmp/" + long + ".xyz", "rain"],
        ]
        for words in lines {
            let r = s.run(words)
            let shown = String(words.joined(separator: " ").prefix(40))
            #expect(r.code == 1 || r.code == 2, "\(shown): \(r.code)")
            #expect(r.err.hasPrefix("hum: ") && r.err.utf8.count < 300, "\(shown): \(r.err.utf8.count) bytes")
            #expect(r.err.filter { $0 == "\n" }.count == 1, "\(shown)")
        }
    }
}
