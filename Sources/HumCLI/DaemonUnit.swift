import HumCore
import HumSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `hum daemon --install` and `--uninstall`: the systemd user unit for the hum that runs the command, in
/// `$XDG_CONFIG_HOME/systemd/user/hum.service`, enabled and started through `systemctl --user` when a user manager
/// answers (with none, as in a container or over plain ssh, it says what to run at the next login).
struct DaemonUnit {
    enum Action { case install, uninstall }

    let context: CommandContext
    let path: String
    let runtimeDirectory: String?

    init(context: CommandContext) throws {
        self.context = context
        path = try UserFiles(context: context).configHome + "/systemd/user/hum.service"
        runtimeDirectory = context.environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// The unit: contrib/hum.service (a test keeps the two the same) with `ExecStart` naming `executable`.
    static func text(executable: String, paused: Bool) -> String {
        """
        # A hum player for your user session: plays the last mix, steered by 'hum ctl', shown by 'hum status' and
        # status bars, reached by the desktop's media keys. 'hum daemon --install' writes this file for the hum that runs
        # it (and enables it); the .deb, install.sh and make install put it in their prefix's lib/systemd/user.
        #   systemctl --user daemon-reload && systemctl --user enable --now hum
        [Unit]
        Description=hum, a calm focus companion (player)
        Documentation=man:hum(1)
        After=pipewire-pulse.service pulseaudio.service

        [Service]
        Type=notify
        NotifyAccess=main
        ExecStart=\(executable) daemon\(paused ? " --paused" : "")
        # SIGTERM fades the mix out; a second one stops at once.
        TimeoutStopSec=10
        Restart=on-failure
        RestartSec=5
        # 3: another hum player was running (a terminal hum), so this one did not start. Not restarted: it would take
        # over the sound seconds after that hum quits.
        RestartPreventExitStatus=3

        [Install]
        WantedBy=default.target

        """
    }

    func run(_ action: Action, paused: Bool) throws -> Int32 {
        switch action {
        case .install: return try install(paused: paused)
        case .uninstall: return try uninstall()
        }
    }

    private func install(paused: Bool) throws -> Int32 {
        guard let executable = Self.executable() else {
            throw HumError.failure("cannot tell where this hum is (/proc/self/exe); is /proc mounted?")
        }
        guard !executable.contains(where: { $0 == " " || $0 == "\\" || $0 == "%" || $0 == "\n" }) else {
            throw HumError.failure(
                "this hum's path \(executable.quoted) has a space, % or \\, which a unit's ExecStart would misread; "
                    + "copy hum to ~/.local/bin and run it from there")
        }
        try UserFiles(context: context).install(
            Self.text(executable: executable, paused: paused), at: path, context: context)
        let undo = "to undo: hum daemon --uninstall"
        guard managerAnswers else {
            context.stdout.write(
                "no systemd user manager answers here; in a session that has one, run:\n"
                    + "  systemctl --user daemon-reload && systemctl --user enable --now hum\n\(undo)\n")
            return ExitCode.success
        }
        try systemctl(["daemon-reload"])
        try systemctl(["enable", "--now", "hum"])
        context.stdout.write(
            "hum.service is enabled and started: it plays at each login ('systemctl --user status hum' shows it)\n"
                + "\(undo)\n")
        return ExitCode.success
    }

    private func uninstall() throws -> Int32 {
        let present = access(path, F_OK) == 0
        if present, managerAnswers { try systemctl(["disable", "--now", "hum"]) }
        if present {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw HumError.failure("cannot remove \(path.clippedPath): \(String(cString: strerror(errno)))")
            }
            if managerAnswers { try systemctl(["daemon-reload"]) }
            context.made("\(path.clippedPath) was removed", see: "ls \(path.clippedPath)")
            context.stdout.write(
                managerAnswers
                    ? "hum.service is disabled and stopped, and \(path.clippedPath) removed\n"
                    : "\(path.clippedPath) removed (no systemd user manager answers here to disable it)\n")
        } else {
            context.stdout.write("no hum.service at \(path.clippedPath): nothing to undo\n")
        }
        return ExitCode.success
    }

    /// Whether a user manager listens: systemd's private socket in the runtime directory takes a connection.
    var managerAnswers: Bool {
        guard let runtimeDirectory else { return false }
        let socketPath = runtimeDirectory + "/systemd/private"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Runs `systemctl --user WORDS`, its output passed through; a failure says what to run by hand.
    private func systemctl(_ words: [String]) throws {
        let command = "systemctl --user " + words.joined(separator: " ")
        guard let program = ChildProcess.resolve("systemctl", path: context.environment["PATH"]) else {
            throw HumError.failure("a user manager runs but systemctl is not on PATH; run '\(command)'")
        }
        let child: ChildProcess
        do {
            child = try ChildProcess(argv: ["systemctl", "--user"] + words, options: .init(program: program))
        } catch {
            throw HumError.failure("cannot run '\(command)': \(error)")
        }
        child.finish(within: 60, grace: 2)
        guard child.exitCode == 0 else {
            throw HumError.failure("'\(command)' failed (exit \(child.exitCode)); see its message above")
        }
    }

    static func executable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
