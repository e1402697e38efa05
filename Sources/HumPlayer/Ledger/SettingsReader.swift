import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The settings in force for a command that plays: stored in the database, `HUM_…` from the environment over them.
/// Reading them never creates a database (without one, every setting is its default or its environment variable).
public enum SettingsReader {
    /// `required`: a database that cannot be read is an error (hum focus needs it anyway for its rounds);
    /// otherwise one warning, and the defaults (the music should not stop for it).
    public static func read(_ environment: PlayerEnvironment, required: Bool = false) throws -> Settings {
        var settings = Settings(stored: [:], environment: environment.variables)
        if access(environment.paths.databasePath, F_OK) == 0 {
            do {
                settings = try LedgerAccess.open(environment, reading: true).settings(
                    environment: environment.variables)
            } catch let error as any UserFacingError where !required {
                environment.warn("the settings cannot be read (\(error.message)); playing with the defaults")
            }
        }
        for problem in settings.ignored { environment.warn(problem) }
        return settings
    }
}
