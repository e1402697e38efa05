/// Where hum keeps its files, following the XDG base directory specification.
///
/// Pure: computed from an environment dictionary, so tests can point hum anywhere.
public struct HumPaths: Sendable, Equatable {
    /// `$XDG_DATA_HOME/hum` (default `~/.local/share/hum`): the database and user sounds.
    public var dataDirectory: String
    /// `$XDG_STATE_HOME/hum` (default `~/.local/state/hum`): the last mix played and other small state.
    public var stateDirectory: String
    /// `$XDG_CACHE_HOME/hum` (default `~/.cache/hum`): measured loudness of user sounds.
    public var cacheDirectory: String

    public var userSoundsDirectory: String { dataDirectory + "/sounds" }
    public var databasePath: String { dataDirectory + "/hum.db" }

    public init(dataDirectory: String, stateDirectory: String, cacheDirectory: String) {
        self.dataDirectory = dataDirectory
        self.stateDirectory = stateDirectory
        self.cacheDirectory = cacheDirectory
    }

    /// Why some directory has no place: nil when every one has. Set when neither `HOME` nor the account's home
    /// directory is known and the XDG variable of that directory is unset. The directories then point into
    /// `/nonexistent` (which stays absent), and commands that use files refuse with this line: hum never falls
    /// back to a shared directory such as /tmp, which another user could create first.
    public var problem: String? = nil

    /// Resolves the directories from an environment. A relative XDG value is ignored, as the specification says.
    /// `accountHome` is the home directory from the password database, used when `HOME` is unset or not absolute
    /// (looking it up is I/O: the caller does it, `AccountHome.lookup()` in HumSystem).
    public init(environment: [String: String], accountHome: String? = nil) {
        let home = [environment["HOME"], accountHome].compactMap { $0 }.first { $0.hasPrefix("/") }
        var missing: [String] = []
        func base(_ variable: String, _ fallback: String) -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            if let home { return home + "/" + fallback }
            missing.append(variable)
            return "/nonexistent/" + fallback
        }
        self.init(
            dataDirectory: base("XDG_DATA_HOME", ".local/share") + "/hum",
            stateDirectory: base("XDG_STATE_HOME", ".local/state") + "/hum",
            cacheDirectory: base("XDG_CACHE_HOME", ".cache") + "/hum")
        if !missing.isEmpty {
            problem =
                "no home directory: HOME is unset and the password database has none for this user; set HOME (or "
                + "\(missing.joined(separator: ", "))) to a folder of yours"
        }
    }
}
