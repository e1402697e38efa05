import Foundation
import Testing

@testable import HumCLI

@Suite struct DocsCommandTests {
    @Test func bashCompletionOffersEveryCommandAndItsOptions() throws {
        let script = runInProcess(["completions", "bash"])
        #expect(script.status == 0)
        let box = Sandbox()
        let path = box.root + "/hum.bash"
        try FileManager.default.createDirectory(atPath: box.root, withIntermediateDirectories: true)
        try script.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        func complete(_ words: String, _ cword: Int) throws -> [String] {
            let out = box.root + "/out"
            let program =
                "source \(path); COMP_WORDS=(\(words)); COMP_CWORD=\(cword); _hum; printf '%s\\n' \"${COMPREPLY[@]}\""
            #expect(waitFor(try spawnAny("/bin/bash", ["-c", program], stdout: out)) == 0)
            return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        #expect(try complete("hum ''", 1).contains("focus"))
        #expect(Set(try complete("hum ''", 1)).isSuperset(of: CommandTable.commands.map { $0.name }))
        #expect(try complete("hum render --d", 2) == ["--duration"])
        #expect(try complete("hum ledger ch", 2) == ["check"])
        #expect(try complete("hum ledger check --", 3) == ["--help"])
    }

    @Test func otherShellsAndTheManPageCoverEveryCommand() {
        let fish = runInProcess(["completions", "fish"]).stdout
        let zsh = runInProcess(["completions", "zsh"]).stdout
        let man = runInProcess(["manpage"]).stdout
        #expect(man.hasPrefix(".TH HUM 1"))
        for command in CommandTable.commands {
            #expect(fish.contains("-a \(command.name) "))
            #expect(zsh.contains("'\(command.name)'*)"))
            #expect(man.contains(".SS \"hum \(command.name)\""))
        }
        #expect(runInProcess(["completions", "tcsh"]).status == 2)
    }
}
