import HumCore
import HumStore
import HumSystem

extension HumDatabase {
    /// Opens the database at `path` on this machine: its wall clock and time zone for the instants and days written,
    /// and /proc to name this process as an owner and to tell whether an owner died.
    convenience init(path: String) throws {
        try self.init(path: path, calendar: .system, probe: LinuxProcessProbe())
    }
}
