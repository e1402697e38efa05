#if canImport(Glibc)
    import Glibc
#endif

/// Every git command hum runs is built and run here, and nowhere else. Watching a repository must never execute
/// anything the repository (or anyone's configuration) names: a repository is data, not code. So each call gets a
/// fixed, minimal configuration over whatever the repository, the user and the system configure:
///
/// - no fsmonitor (`core.fsmonitor=false`: `ls-files --others` would run it), no untracked cache;
/// - no hooks (`core.hooksPath=/dev/null`), no pager (`--no-pager`, `GIT_PAGER=cat`, `PAGER=cat`);
/// - no signature checks (`log.showSignature=false`, `--no-show-signature`; `gpg.*.program` pointed at
///   `/bin/false` should anything still ask), no textconv and no external diff (`--no-textconv`, `--no-ext-diff`
///   on every command that prints diffs);
/// - no transport at all (`protocol.allow=never`, so no ssh, `core.sshCommand`, remote helper or lazy fetch of a
///   partial clone), no credential helper, no askpass, no prompt (`GIT_TERMINAL_PROMPT=0`);
/// - every clean, smudge and process filter the configuration names (found with `git config --get-regexp`, itself
///   run this way) emptied and made optional, through `GIT_CONFIG_COUNT` (a driver's name may hold any character);
/// - hum's own `GIT_*` environment left out (a `GIT_DIR`, `GIT_EXTERNAL_DIFF` or `GIT_CONFIG_PARAMETERS` of the
///   shell hum was started from would change what is read or run), the system configuration and attributes skipped.
///
/// git itself is looked for only in the absolute directories of PATH. A call is run directly (no shell) through
/// `CapturedCommand`: a process group of its own, stopped after the time.
public struct GitCommand {
    /// The git program (an absolute path, found on PATH).
    public let program: String

    /// git, found in the absolute directories of PATH (`searchPath`) only: an empty or relative entry names the
    /// folder hum runs in, which may well be the watched repository, with a `git` of its own.
    public static func find(searchPath: String?) -> GitCommand? {
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").filter {
            $0.hasPrefix("/")
        }
        guard !directories.isEmpty else { return nil }
        return ChildProcess.resolve("git", path: directories.joined(separator: ":")).map { GitCommand(program: $0) }
    }

    /// The configuration every call gets, set on the command line (which wins over every configuration file).
    public static let fixedConfiguration: [(String, String)] = [
        ("core.fsmonitor", "false"), ("core.untrackedCache", "false"), ("core.hooksPath", "/dev/null"),
        ("core.pager", "cat"), ("log.showSignature", "false"), ("gpg.program", "/bin/false"),
        ("gpg.openpgp.program", "/bin/false"), ("gpg.ssh.program", "/bin/false"), ("gpg.x509.program", "/bin/false"),
        ("protocol.allow", "never"), ("credential.helper", ""), ("core.askPass", ""),
        ("safe.bareRepository", "explicit"), ("core.quotePath", "false"),
    ]

    /// Commands that can print a diff: they are told not to convert text nor run an external diff.
    public static let diffing: Set<String> = [
        "log", "show", "diff", "diff-tree", "diff-index", "diff-files", "whatchanged",
    ]
    /// Commands that can show signatures.
    public static let signing: Set<String> = ["log", "show", "whatchanged"]

    /// The most filter drivers neutralised; a configuration naming more is not run at all.
    public static let filterLimit = 256

    /// The command line of `git ARGUMENTS` in `directory`.
    public func argv(_ arguments: [String], in directory: String) -> [String] {
        var argv = [program, "--no-pager"]
        for (key, value) in Self.fixedConfiguration { argv += ["-c", key + "=" + value] }
        argv += ["-C", directory]
        guard let command = arguments.first else { return argv }
        argv.append(command)
        if Self.diffing.contains(command) { argv += ["--no-textconv", "--no-ext-diff"] }
        if Self.signing.contains(command) { argv.append("--no-show-signature") }
        return argv + arguments.dropFirst()
    }

    /// The environment changes of every call: hum's `GIT_*` left out, ours added (`extra`: more `NAME=value`).
    public static func environment(extra: [String] = []) -> (set: [String], removing: Set<String>) {
        var removing: Set<String> = ["SSH_ASKPASS"]
        var pointer = environ
        while let entry = pointer.pointee {
            let name = String(cString: entry).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if name.hasPrefix("GIT_") { removing.insert(name) }
            pointer += 1
        }
        let set = [
            "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1",
            "GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0",
        ]
        return (set + extra, removing)
    }

    /// Runs `git ARGUMENTS` in `directory`, its stderr on /dev/null. Nil when it could not be run safely (the filter
    /// drivers could not be read) or not at all.
    public func run(_ arguments: [String], in directory: String, limit: Int, timeout: Double = 10) -> CapturedCommand
        .Result?
    {
        guard let filters = filterDrivers(in: directory, timeout: timeout) else { return nil }
        var extra: [String] = []
        var count = 0
        for name in filters {
            for (variable, value) in [("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")] {
                extra += ["GIT_CONFIG_KEY_\(count)=filter.\(name).\(variable)", "GIT_CONFIG_VALUE_\(count)=\(value)"]
                count += 1
            }
        }
        if count > 0 { extra.append("GIT_CONFIG_COUNT=\(count)") }
        return capture(arguments, in: directory, extra: extra, limit: limit, timeout: timeout)
    }

    /// The names of the filter drivers the configuration seen from `directory` defines (`filter.NAME.…`), read with
    /// the fixed configuration (reading configuration runs nothing). Nil when they could not be read.
    public func filterDrivers(in directory: String, timeout: Double) -> [String]? {
        guard
            let result = capture(
                ["config", "-z", "--name-only", "--get-regexp", "^filter\\."], in: directory, extra: [], limit: 1 << 20,
                timeout: timeout),
            !result.timedOut, !result.tooLong
        else { return nil }
        // 1: nothing matched. Outside a repository git reads the user's configuration only, and succeeds the same.
        guard result.exitCode == 0 || result.exitCode == 1 else { return nil }
        var names: [String] = []
        for key in result.output.split(separator: 0) {
            let text = String(decoding: key, as: UTF8.self)
            guard text.hasPrefix("filter."), let dot = text.lastIndex(of: ".") else { continue }
            let start = text.index(text.startIndex, offsetBy: 7)
            guard start < dot else { continue }  // `filter.clean`: no driver name
            let name = String(text[start..<dot])
            if !names.contains(name) { names.append(name) }
        }
        return names.count <= Self.filterLimit ? names : nil
    }

    private func capture(
        _ arguments: [String], in directory: String, extra: [String], limit: Int, timeout: Double
    ) -> CapturedCommand.Result? {
        let environment = Self.environment(extra: extra)
        return try? CapturedCommand.run(
            argv(arguments, in: directory), timeout: timeout, limit: limit, quiet: true,
            environment: environment.set, removing: environment.removing)
    }
}
