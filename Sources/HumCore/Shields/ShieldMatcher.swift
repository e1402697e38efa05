/// Which shields' targets a process is: the shields' patterns compiled once, then asked of every process of a
/// scan. Regular expressions are Swift's own `Regex`, which runs on Linux with this toolchain (pure Swift, no C).
public struct ShieldMatcher: @unchecked Sendable {
    // `Regex<AnyRegexOutput>` is not declared Sendable; a compiled matcher is only read after init.
    private var entries: [(shield: String, target: ShieldTarget, regex: Regex<AnyRegexOutput>?)] = []

    /// Targets whose pattern does not compile (stored by an older or newer hum) are left out: they match nothing.
    public init(shields: [Shield]) {
        for shield in shields {
            for target in shield.targets {
                if case .match(let pattern) = target {
                    guard let regex = try? Regex(pattern) else { continue }
                    entries.append((shield.name, target, regex))
                } else {
                    entries.append((shield.name, target, nil))
                }
            }
        }
    }

    /// The names of the shields that hold `process`, each once, in the shields' order.
    public func shields(holding process: ProcessFacts) -> [String] {
        var names: [String] = []
        for entry in entries where !names.contains(entry.shield) {
            if matches(entry.target, entry.regex, process) { names.append(entry.shield) }
        }
        return names
    }

    /// Whether `process` is the target of any shield.
    public func matches(_ process: ProcessFacts) -> Bool {
        entries.contains { matches($0.target, $0.regex, process) }
    }

    private func matches(_ target: ShieldTarget, _ regex: Regex<AnyRegexOutput>?, _ p: ProcessFacts) -> Bool {
        switch target {
        case .app(let name):
            return ShieldTarget.namesApp(name, p)
        case .match:
            guard let regex, !p.cmdline.isEmpty else { return false }
            return p.commandLine.contains(regex)
        case .desktopID(let id):
            return p.desktopID == id
        case .site:
            return false  // a website is the browser extension's to block, never a process
        }
    }
}

extension ShieldTarget {
    /// Whether this target names `process`. For many processes, build a `ShieldMatcher` once instead.
    public func matches(_ process: ProcessFacts) -> Bool {
        ShieldMatcher(shields: [
            Shield(name: "t", targets: [self], created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
        ])
        .matches(process)
    }

    /// The kernel keeps 15 bytes of a command name (TASK_COMM_LEN is 16 with its NUL).
    static let commBytes = 15

    /// `--app NAME` names a process whose executable file is NAME, whose kernel command name is NAME (for a script,
    /// the script's name: `steam` is a shell script), or that was called NAME (argv[0], for wrappers).
    static func namesApp(_ name: String, _ p: ProcessFacts) -> Bool {
        if p.exe == name || p.argv0Name == name { return true }
        if p.comm == name { return true }
        // A long name shows in comm cut to 15 bytes: accept the cut form only when it is exactly that.
        let cut = String(decoding: name.utf8.prefix(commBytes), as: UTF8.self)
        return name.utf8.count > commBytes && p.comm.utf8.count == commBytes && p.comm == cut
    }
}
