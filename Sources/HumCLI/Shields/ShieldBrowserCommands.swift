import FoundationEssentials
import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The browser side of shields: where the extension finds `hum shield-host` (`install-browser`), and whether a
/// browser with the extension is in touch (`status`). docs/shields.md "Sites".
enum BrowserHost {
    /// The native messaging host's name, as the extension's `connectNative` names it.
    static let name = "hum.shield"
    /// The extension's id in Chromium and Chrome: derived from the public key in contrib/browser/manifest.json
    /// (the first 32 hex digits of the SHA-256 of the key, written with a–p).
    static let chromiumID = "icijkclhbacomgclikafmoifhoeogkme"
    /// The extension's id in Firefox (`browser_specific_settings.gecko.id` in the manifest).
    static let firefoxID = "hum-shield@hum.invalid"

    enum Browser: String, CaseIterable {
        case firefox, chromium, chrome
        var label: String {
            switch self {
            case .firefox: "Firefox"
            case .chromium: "Chromium"
            case .chrome: "Chrome"
            }
        }
    }

    /// The host manifest for `browser`, pointing at `wrapper`.
    static func manifest(_ browser: Browser, wrapper: String) -> String {
        var object: [String: JournalJSON] = [
            "name": .string(name), "description": .string("hum: shields for websites (hum shield-host)"),
            "path": .string(wrapper), "type": .string("stdio"),
        ]
        switch browser {
        case .firefox: object["allowed_extensions"] = .array([.string(firefoxID)])
        case .chromium, .chrome: object["allowed_origins"] = .array([.string("chrome-extension://\(chromiumID)/")])
        }
        return JournalJSON.object(object).canonicalText + "\n"
    }

    /// The wrapper the manifests point at: a manifest names a program but cannot pass it words.
    static func wrapper(hum: String) -> String {
        "#!/bin/sh\n# Written by 'hum shield install-browser': the browsers start hum's native messaging host here.\n"
            + "exec '\(hum.replacing("'", with: "'\\''"))' shield-host \"$@\"\n"
    }

    /// Where each browser reads a user's host manifests.
    static func userManifest(_ browser: Browser, home: String, configHome: String) -> String {
        switch browser {
        case .firefox: home + "/.mozilla/native-messaging-hosts/\(name).json"
        case .chromium: configHome + "/chromium/NativeMessagingHosts/\(name).json"
        case .chrome: configHome + "/google-chrome/NativeMessagingHosts/\(name).json"
        }
    }

    /// Where each browser reads host manifests for every user.
    static func systemManifest(_ browser: Browser) -> String {
        switch browser {
        case .firefox: "/usr/lib/mozilla/native-messaging-hosts/\(name).json"
        case .chromium: "/etc/chromium/native-messaging-hosts/\(name).json"
        case .chrome: "/etc/opt/chrome/native-messaging-hosts/\(name).json"
        }
    }

    /// This hum's own path.
    static func thisHum() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `hum shield install-browser`: the host manifests for Firefox, Chromium and Chrome, and the wrapper they start.
struct ShieldInstallBrowserCommand: HumCommand {
    static let name = "install-browser"
    static let abstract = "let Firefox, Chromium and Chrome start hum for the shields' browser extension"
    static let discussion = """
        Writes the native messaging host manifests (name hum.shield) where each browser reads a user's: Firefox
        ~/.mozilla/native-messaging-hosts, Chromium ~/.config/chromium/NativeMessagingHosts, Chrome
        ~/.config/google-chrome/NativeMessagingHosts; and the small script they start, which runs this hum's
        'shield-host' ($XDG_DATA_HOME/hum/hum-shield-host). Each file is replaced atomically. --system writes them
        for every user instead (/usr/lib/mozilla, /etc/chromium, /etc/opt/chrome; the script in PREFIX/lib/hum),
        under --root when given (for packaging). Then load the extension in contrib/browser (docs/shields.md).
        """
    static let examples = [
        "hum shield install-browser", "sudo hum shield install-browser --system",
    ]
    static let system = Flag("system", help: "install for every user (as root), not for you")
    static let root = Option(
        "root", ValueKind<String>.text.named("DIR"), help: "with --system: write under this folder (DESTDIR)")
    static let hum = Option(
        "hum", ValueKind<String>.text.named("PATH"), help: "the hum the browsers start (default: this one)")
    static let arguments: [any Declared] = [system, root, hum]

    let system: Bool
    let root: String
    let humPath: String?
    init(_ arguments: ParsedArguments) throws {
        system = arguments.flag(Self.system)
        root = try arguments.value(Self.root) ?? ""
        humPath = try arguments.value(Self.hum)
        if !root.isEmpty && !system { throw HumError.usage("--root goes with --system") }
        if let humPath, !humPath.hasPrefix("/") {
            throw HumError.usage("--hum \(humPath.quoted) must be an absolute path, as browsers need one")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        guard let hum = humPath ?? BrowserHost.thisHum() else {
            throw HumError.failure("cannot tell where this hum is (/proc/self/exe); give it with --hum PATH")
        }
        let files = try UserFiles(context: context)
        let wrapper: String
        var manifests: [(BrowserHost.Browser, String)] = []
        if system {
            let prefix = PathText.directory(PathText.directory(hum))
            wrapper = prefix + "/lib/hum/hum-shield-host"
            manifests = BrowserHost.Browser.allCases.map { ($0, BrowserHost.systemManifest($0)) }
        } else {
            guard let home = context.environment["HOME"], home.hasPrefix("/") else {
                throw HumError.failure("HOME is not set to a folder, so the browsers' folders are unknown")
            }
            wrapper = context.paths.dataDirectory + "/hum-shield-host"
            manifests = BrowserHost.Browser.allCases.map {
                ($0, BrowserHost.userManifest($0, home: home, configHome: files.configHome))
            }
        }
        try files.install(BrowserHost.wrapper(hum: hum), at: root + wrapper, context: context)
        guard chmod(root + wrapper, 0o755) == 0 else {
            throw HumError.failure("cannot make \(wrapper.clippedPath) executable: \(String(cString: strerror(errno)))")
        }
        context.stdout.write("\(wrapper.clippedPath): starts \(hum) shield-host\n")
        for (browser, path) in manifests {
            try files.install(BrowserHost.manifest(browser, wrapper: wrapper), at: root + path, context: context)
            context.stdout.write("\(browser.label): \(path.clippedPath)\n")
        }
        context.made("the host manifests were written", see: "hum shield status")
        context.stdout.write(
            "now load the extension (contrib/browser) in each browser: docs/shields.md, \"Sites\"; "
                + "'hum shield status' says when it is in touch\n")
        return ExitCode.success
    }
}

/// `hum shield status`: the shields that name sites, and whether a browser with the extension is in touch.
struct ShieldStatusCommand: HumCommand {
    static let name = "status"
    static let abstract = "say whether a browser with the extension is in touch, and the sites' shields"
    static let examples = ["hum shield status"]
    static let arguments: [any Declared] = []
    init(_ arguments: ParsedArguments) throws {}

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let views = try ShieldView.all(db)
        let now = db.calendar.clock.nowEpochSeconds()
        var out = ""
        let siteShields = views.filter { $0.targets.contains { $0.target.kind == .site } }
        for view in siteShields {
            let sites = view.targets.filter { $0.target.kind == .site }.map(\.target.value)
            out += "\(view.name)  \(view.stateText(db))  \(sites.joined(separator: ", "))\n"
        }
        if siteShields.isEmpty {
            out += "no shield names a website; add one with 'hum shield add video --site youtube.com'\n"
        }
        out += "browser: " + Self.browserLine(context: context, now: now, calendar: db.calendar) + "\n"
        context.stdout.write(out)
        return ExitCode.success
    }

    /// "connected now (chrome-extension://…/)", "last in touch 14:02 (3 min ago)", or never.
    static func browserLine(context: CommandContext, now: Int64, calendar: LocalCalendar) -> String {
        guard let note = BrowserContact.read(context.paths) else {
            return "no browser with the extension has been in touch; run 'hum shield install-browser' and load "
                + "contrib/browser (docs/shields.md), so the sites' shields cover something"
        }
        let ago = DurationText.format(seconds: max(0, now - note.at))
        let who = note.caller.isEmpty ? "" : " (\(note.caller.visible))"
        if Self.hostAlive(note.pid) {
            return "the extension is connected now\(who); last message \(ago) ago"
        }
        return "the extension was last in touch at \(calendar.stamp(note.at).localClock) (\(ago) ago)\(who); "
            + "no browser with it runs now, so the sites' shields cover nothing until one does"
    }

    /// Whether `pid` is a running `hum shield-host`.
    static func hostAlive(_ pid: Int32) -> Bool {
        guard pid > 0, let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "shield-host" }
    }
}
