import HumCore
import Testing

@testable import HumCLI

@Suite struct ArgumentParserTests {
    let options = [
        OptionSpec("for", value: "DURATION", help: ""),
        OptionSpec("output", short: "o", value: "FILE", help: ""),
        OptionSpec("json", help: ""),
        OptionSpec("quiet", short: "q", help: ""),
        OptionSpec("tag", value: "TAG", repeatable: true, help: ""),
    ]

    func parse(_ words: [String], positionals: Bool = true, dashes: Bool = false) throws -> ParsedArguments {
        try ArgumentParser.parse(
            words, options: options, commandName: "test", takesPositionals: positionals,
            takesCommandAfterDashes: dashes)
    }

    @Test func parsesEveryForm() throws {
        let p = try parse(["rain=40", "--for", "30m", "-o", "x.wav", "--json", "-q", "--tag=a", "--tag", "b", "-5m"])
        #expect(p.positionals == ["rain=40", "-5m"])
        #expect(p.value("for") == "30m")
        #expect(p.value("output") == "x.wav")
        #expect(p.flag("json") && p.flag("quiet"))
        #expect(p.all("tag") == ["a", "b"])
        #expect(try parse(["-ox.wav"]).value("output") == "x.wav")
    }

    @Test func passesTheCommandAfterDashes() throws {
        let p = try parse(["10m", "--", "firefox", "--private", "-x"], dashes: true)
        #expect(p.positionals == ["10m"])
        #expect(p.command == ["firefox", "--private", "-x"])
    }

    @Test(arguments: [
        (["--nope"], "unknown option --nope"),
        (["--for"], "option --for needs a value"),
        (["--json=yes"], "option --json takes no value"),
        (["--for", "1m", "--for", "2m"], "option --for is given twice"),
        (["-z"], "unknown option -z"),
    ])
    func rejectsBadOptions(words: [String], message: String) {
        #expect { try parse(words) } throws: { error in
            guard let error = error as? HumError, case .usage(let text) = error else { return false }
            return text.hasPrefix(message) && error.exitCode == 2
        }
    }

    @Test func rejectsPositionalsWhenNoneAreTaken() {
        #expect(throws: HumError.self) { try parse(["stray"], positionals: false) }
    }

    @Test func fuzzNeverCrashes() {
        var rng = SplitMix64(seed: 5)
        let pieces = ["--for", "-o", "--json", "-q", "--", "--tag=", "-", "=", "x", "-5", "--json=1", "-qo", "é", ""]
        for _ in 0..<5000 {
            let words = (0..<Int(rng.next() % 6)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            _ = try? parse(words, positionals: rng.next() % 2 == 0, dashes: rng.next() % 2 == 0)
        }
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
        #expect(runInProcess(["help", "render"]).stdout.contains("--duration"))
    }

    @Test func unknownCommandIsAUsageErrorWithASuggestion() {
        let run = runInProcess(["rendr"])
        #expect(run.status == 2)
        #expect(run.stderr == "hum: unknown command \"rendr\"; did you mean 'render'? see 'hum --help'\n")
    }

    @Test(arguments: [
        (["play", "rain=101"], "hum: the volume in \"rain=101\" is outside 0–100; for example rain=40\n"),
        (["play", "=3"], "hum: \"=3\" names no sound; write SOUND=VOLUME, for example rain=40\n"),
        (
            ["play", "/x.wav", "--for", "soon"],
            "hum: --for \"soon\" is not a duration; write for example 90s, 25m, 1h or 1h30m\n"
        ),
        (["play", "/x.wav", "--volume", "300"], "hum: --volume \"300\" is not a volume from 0 to 100\n"),
        (["render", "/x.wav", "-o", "a.wav"], "hum: render needs --duration, for example --duration 10m\n"),
        (
            ["render", "/x.wav", "-d", "1m", "-o", "a.mp4"],
            "hum: cannot tell the format of \"a.mp4\"; name it .wav, .flac, .ogg or .opus\n"
        ),
        (
            ["render", "/x.wav", "-d", "1m", "-o", "a.wav", "--rate", "12"],
            "hum: --rate \"12\" is not a sample rate from 8000 to 384000 Hz\n"
        ),
        (
            ["play", "rian"],
            "hum: unknown sound \"rian\" in \"rian\"; no built-in sounds were found; give a path to an audio file\n"
        ),
        (["sounds", "extra"], "hum: unexpected argument \"extra\"; see 'hum sounds --help'\n"),
    ])
    func usageErrorsNameTheBadWord(arguments: [String], expected: String) {
        let run = runInProcess(arguments)
        #expect(run.status == 2)
        #expect(run.stderr == expected)
        #expect(run.stdout.isEmpty)
    }

    @Test func versionPrints() {
        #expect(runInProcess(["--version"]).stdout == "hum \(humVersion)\n")
    }
}
