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

    /// Resolves the directories from an environment. A relative XDG value is ignored, as the specification says.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        func base(_ variable: String, _ fallback: String) -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        self.init(
            dataDirectory: base("XDG_DATA_HOME", ".local/share") + "/hum",
            stateDirectory: base("XDG_STATE_HOME", ".local/state") + "/hum",
            cacheDirectory: base("XDG_CACHE_HOME", ".cache") + "/hum")
    }
}
