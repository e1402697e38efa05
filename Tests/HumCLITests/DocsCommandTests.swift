import Foundation
import HumCore
import Testing

@testable import HumCLI

@Suite struct DocsCommandTests {
    /// Every command path of the table, with its declaration.
    static var paths: [(path: String, command: CommandEntry)] { ManpageCommand.paths() }

    /// The declaration is the one source: every option's every spelling, every positional and every subcommand is
    /// named by `--help`, by the man page and by each shell's completion script.
    @Test func helpManPageAndCompletionsNameEveryDeclaredArgument() {
        let man = runInProcess(["manpage"]).stdout
        let scripts = ["bash", "zsh", "fish"].map { runInProcess(["completions", $0]).stdout }
        #expect(man.hasPrefix(".TH HUM 1"))
        // Each command's own part of each text, so a spelling another command has cannot stand in for a missing one.
        func section(of text: String, from start: String, to end: String) -> String {
            guard let from = text.range(of: start) else { return "" }
            let rest = text[from.upperBound...]
            return String(rest[..<(rest.range(of: end)?.lowerBound ?? rest.endIndex)])
        }
        func lines(of text: String, containing marker: String) -> String {
            text.split(separator: "\n").filter { $0.contains(marker) }.joined(separator: "\n")
        }
        for (path, command) in Self.paths {
            let help = runInProcess(path.split(separator: " ").map(String.init) + ["--help"]).stdout
            #expect(help.hasPrefix(command.abstract + "\n\nUsage:\n  hum \(path)"), "\(path)")
            #expect(man.contains(".SS \"hum \(ManpageCommand.escape(path))\""), "\(path)")
            let manSection = section(of: man, from: ".SS \"hum \(ManpageCommand.escape(path))\"", to: "\n.SS ")
            let ownScripts = [
                section(of: scripts[0], from: "'\(path)') words=", to: ";;"),
                section(of: scripts[1], from: "'\(path)') opts=", to: ";;"),
                lines(of: scripts[2], containing: "__hum_at \\'\(path)\\''"),
            ]
            for sub in command.subcommands {
                #expect(help.contains("  \(sub.name) "), "\(path) \(sub.name)")
                for script in scripts { #expect(script.contains(sub.name), "\(path) \(sub.name)") }
            }
            for info in command.infos {
                switch info.role {
                case .option, .flag:
                    for spelling in info.spellings {
                        #expect(help.contains(spelling), "help of \(path) misses \(spelling)")
                        #expect(
                            manSection.contains(ManpageCommand.escape(spelling)), "man page misses \(path) \(spelling)")
                        for (shell, script) in zip(["bash", "zsh", "fish"], ownScripts) {
                            let name = String(spelling.dropFirst(2))
                            #expect(
                                script.contains(spelling) || script.contains("-l \(name) "),
                                "the \(shell) completion misses \(path) \(spelling)")
                        }
                    }
                    // The usage line shows it, by its long or short name.
                    let usage = Help.usage(for: command, path: path)[0]
                    #expect(
                        usage.contains("--\(info.name)") || info.short.map { usage.contains("-\($0) ") } == true,
                        "usage of \(path) misses --\(info.name)")
                case .positional, .commandAfterDashes:
                    #expect(help.contains(info.label), "help of \(path) misses \(info.label)")
                    #expect(Help.usage(for: command, path: path)[0].contains(info.synopsis), "\(path)")
                }
            }
        }
        #expect(runInProcess(["completions", "tcsh"]).status == 2)
    }

    /// What each shell offers for a command line, asked of the real shell with the generated script.
    final class Shells {
        let box = Sandbox()
        let bin: String

        init() throws {
            bin = (humBinary as NSString).deletingLastPathComponent
            for shell in ["bash", "zsh", "fish"] {
                try runInProcess(["completions", shell]).stdout.write(
                    toFile: box.root + "/hum.\(shell)", atomically: true, encoding: .utf8)
            }
            // zsh's completion builtins work only inside a completion widget: stand-ins print what they are given.
            try """
            compdef() { :; }
            compadd() { local a skip=0; for a in "$@"; do
                if [[ $a == -- ]]; then skip=1; elif ((skip)); then print -r -- "$a"; elif [[ $a != -* ]]; then print -rl -- "${(@P)a}"; fi
            done; }
            _describe() { local x; for x in "${(@P)4}"; do print -r -- "${x%%:*}"; done; }
            _files() { print -r -- '<files>'; }
            _command_names() { print -r -- '<commands>'; }
            source \(box.root)/hum.zsh

            """.write(toFile: box.root + "/stubs.zsh", atomically: true, encoding: .utf8)
        }

        func run(_ program: String, _ arguments: [String]) throws -> [String] {
            let out = box.root + "/out"
            let script = box.root + "/run.sh"
            let path = "\(bin):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let home = "HOME=\(box.root) XDG_DATA_HOME=\(box.root)/data XDG_STATE_HOME=\(box.root)/state"
            try "cd \(box.root) && PATH=\(path) \(home) HUM_SOUNDS_DIR=/nonexistent \(program) \"$@\"".write(
                toFile: script, atomically: true, encoding: .utf8)
            #expect(waitFor(try spawnAny("/bin/sh", [script] + arguments, stdout: out)) == 0)
            return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        /// `line` is what was typed before the cursor; the last word is the one being completed.
        func bash(_ line: String) throws -> [String] {
            var words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }
            if line.hasSuffix(" ") { words[words.count - 1] = "''" }
            let program =
                "source \(box.root)/hum.bash; COMP_WORDS=(\(words.joined(separator: " "))); "
                + "COMP_CWORD=\(words.count - 1); _hum; printf '%s\\n' \"${COMPREPLY[@]}\""
            return try run("/bin/bash", ["-c", program]).filter { !$0.isEmpty }
        }

        func zsh(_ line: String) throws -> [String] {
            var words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }
            if line.hasSuffix(" ") { words[words.count - 1] = "''" }
            let program =
                "source \(box.root)/stubs.zsh; words=(\(words.joined(separator: " "))); CURRENT=\(words.count); _hum"
            let typed = String(line.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
            // zsh's compadd filters by what is typed; the stand-in does not, so filter here.
            return try run("zsh", ["-f", "-c", program]).filter { $0.hasPrefix(typed) || $0.hasPrefix("<") }
        }

        func fish(_ line: String) throws -> [String] {
            try run("fish", ["-c", "source \(box.root)/hum.fish; complete -C'\(line)'"]).map {
                String($0.split(separator: "\t").first ?? "")
            }
        }
    }

    @Test(arguments: [
        ("hum ledger ch", ["check"]),
        ("hum ledger check --", ["--help"]),
        ("hum focus --auto-advance ", ["all", "none", "to-break", "to-focus"]),
        ("hum focus --rounds 3 --auto-advance t", ["to-break", "to-focus"]),
        ("hum config get ", (SettingCatalog.keys + ["profile."]).sorted()),
        ("hum config set earn.ratio ", []),
        ("hum completions ", ["bash", "fish", "zsh"]),
        ("hum export --format ", ["csv", "ical", "json", "jsonl"]),
        ("hum focus --goal ", []),
        ("hum render --sample", ["--sample-format"]),
        ("hum ledger --s", ["--since"]),
        // A flag standing for a value (--csv for --format csv) takes no value after it.
        ("hum ledger --csv --s", ["--since"]),
        ("hum export --jsonl --for", ["--format"]),
    ])
    func everyShellCompletesTheSameWords(line: String, expected: [String]) throws {
        let shells = try Shells()
        #expect(try shells.bash(line).sorted() == expected, "bash: \(line)")
        #expect(try shells.zsh(line).sorted() == expected, "zsh: \(line)")
        #expect(try shells.fish(line).sorted() == expected, "fish: \(line)")
    }

    @Test func savedMixesCompleteWhereAMixIsGiven() throws {
        let shells = try Shells()
        let saved = try saveMix(in: shells.box)
        #expect(saved)
        for complete in [shells.bash, shells.zsh, shells.fish] {
            #expect(try complete("hum mix rm ") == ["night"])
            #expect(try complete("hum play @n") == ["@night"])
        }
    }

    /// Saves a mix of a generated file under the sandbox's data directory.
    func saveMix(in box: Sandbox) throws -> Bool {
        let file = box.root + "/tone.wav"
        let bytes: [UInt8] =
            Array("RIFF".utf8) + [36 + 8, 0, 0, 0] + Array("WAVEfmt ".utf8)
            + [16, 0, 0, 0, 1, 0, 1, 0, 0x80, 0xBB, 0, 0, 0, 0x77, 1, 0, 2, 0, 16, 0] + Array("data".utf8)
            + [8, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0]
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return box.run("mix", "save", "night", file + "=40").code == 0
    }

    /// `hum ctl`'s requests are the rows of one table: every row is a subcommand that help lists and every shell
    /// completes, in the table's order, and what a row's examples ask of the player is the protocol's request of
    /// the row's name (`mix` plays a saved mix: `play`).
    @Test func ctlRequestsAreTheRowsOfOneTable() throws {
        let rows = CtlCommand.requests.map(\.name)
        let ctl = try #require(Self.paths.first { $0.path == "ctl" }?.command)
        #expect(ctl.subcommands.map(\.name) == rows)
        let help = runInProcess(["ctl", "--help"]).stdout
        let commands = help.components(separatedBy: "\nCommands:\n").last?.components(separatedBy: "\n\n").first
        let names = commands?.split(separator: "\n").filter { !$0.hasPrefix("   ") }.map { $0.split(separator: " ")[0] }
        #expect(names?.map { String($0) } == rows)
        let shells = try Shells()
        for complete in [shells.bash, shells.zsh, shells.fish] {
            #expect(try complete("hum ctl ").sorted() == rows.sorted())
        }
        #expect(try saveMix(in: shells.box))
        let context = CommandContext(
            environment: shells.box.environment, stdout: Buffer(), stderr: Buffer(), stdoutIsTerminal: false,
            stdinIsTerminal: false)
        for (row, entry) in zip(CtlCommand.requests, ctl.subcommands) {
            #expect(entry.infos.last?.name == "quiet", "\(row.name)")
            for example in row.examples.isEmpty ? ["hum ctl \(row.name)"] : row.examples {
                let words = example.split(separator: " ").dropFirst(3).map { String($0) }
                let parsed = try ArgumentParser.parse(words, declarations: entry.infos, path: "ctl \(row.name)")
                let request = try row.read(parsed)(context)
                #expect(request.name == (row.name == "mix" ? "play" : row.name), "\(example)")
            }
        }
    }

    @Test func commandsAndFilesWhereTheyBelong() throws {
        let shells = try Shells()
        #expect(Set(try shells.bash("hum ")).isSuperset(of: CommandTable.commands.map { $0.name }))
        #expect(try shells.zsh("hum pass 5m -- ") == ["<commands>"])
        #expect(try shells.zsh("hum render -o ") == ["<files>"])
        #expect(try shells.bash("hum render --d") == ["--duration"])
        #expect(try shells.fish("hum render --d").contains("--duration"))
    }

    /// The man page names every `HUM_` variable hum's sources read or set, carries a date, and renders without a
    /// warning under plain `groff -man` on the PostScript, ASCII and UTF-8 devices.
    @Test func manPageNamesEveryVariableAndRendersWithoutWarnings() throws {
        let man = runInProcess(["manpage"]).stdout
        #expect(man.hasPrefix(".TH HUM 1 \(humVersionDate) "))
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources").path
        var variables: Set<String> = []
        for case let file as String in FileManager.default.enumerator(atPath: sources)! where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: /"(HUM_[A-Z_]+)"/) { variables.insert(String(match.1)) }
        }
        #expect(variables.count > 20)
        for variable in variables.sorted() { #expect(man.contains(variable), "\(variable)") }
        for section in [".SH ENVIRONMENT", ".SH FILES", ".SH SEE ALSO", ".SH EXIT STATUS"] {
            #expect(man.contains(section))
        }
        let page = NSTemporaryDirectory() + "hum-man-" + UUID().uuidString + ".1"
        defer { unlink(page) }
        try man.write(toFile: page, atomically: true, encoding: .utf8)
        for device in ["ps", "ascii", "utf8"] {
            let result = try shell(
                "LC_ALL=C groff -man -T\(device) -ww -z \(page)", environment: ["PATH": "/usr/bin:/bin"])
            #expect(result.code == 0 && result.err.isEmpty, "\(device): \(result.err)")
        }
    }

    /// The volume a sound is added at (the full screen's `a`, `hum ctl add` without a volume) is the one the help,
    /// the README and the docs name: `Volume.default`.
    @Test func theVolumeASoundIsAddedAtIsTheOneDocumented() throws {
        let volume = MixSpec.formatVolume(Volume.default)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        func doc(_ path: String) throws -> String {
            try String(contentsOf: root.appending(path: path), encoding: .utf8)
        }
        #expect(
            runInProcess(["ui", "--help"]).stdout.contains(
                "a add a sound\n(type to filter; it comes in at \(volume))"))
        let add = runInProcess(["ctl", "add", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(add.contains("(default \(volume))"), "\(add)")
        #expect(
            try doc("README.md").contains("`a` add a sound (type to filter; at volume \(volume), as `hum ctl add`)"))
        #expect(try doc("docs/ui.md").contains("Enter adds at \(volume),"))
        #expect(try doc("docs/control.md").contains("`volume` (0–100, optional, \(volume))"))
    }
}
