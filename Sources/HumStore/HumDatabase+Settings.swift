import HumCore

/// The settings (`hum config`): every key of HumCore's `SettingCatalog`, stored as text in the `config` table.
extension HumDatabase {
    /// The ledger's three, as its rules read them.
    public func config() throws -> LedgerConfig {
        try guarded { try loadConfig() }
    }

    func loadConfig() throws -> LedgerConfig {
        var config = LedgerConfig()
        try db.query("SELECT key, value FROM config WHERE key IN ('earn.ratio', 'earn.daily-cap', 'emergency.weekly')")
        { row in
            let key = try row.text("key")
            let value = try row.text("value")
            try? config.set(key, to: value)  // a bad value written by hand falls back to the default
        }
        return config
    }

    /// Every stored setting, key to value, as written (a value written by hand may not read: `Settings` says so).
    public func storedSettings() throws -> [String: String] {
        try guarded {
            var out: [String: String] = [:]
            try db.query("SELECT key, value FROM config") { row in out[try row.text("key")] = try row.text("value") }
            return out
        }
    }

    /// The settings in force: the stored values over the defaults, and `environment`'s `HUM_…` over both.
    public func settings(environment: [String: String]) throws -> Settings {
        Settings(stored: try storedSettings(), environment: environment)
    }

    /// Validates and stores a setting; throws `SettingError` for a bad key or value.
    public func setConfig(_ key: String, to value: String) throws {
        let normalised = try SettingCatalog.normalise(key, value)
        try guarded {
            try db.run(
                "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(normalised)])
        }
    }

    /// Removes a stored setting (it goes back to its default); false when none was stored.
    @discardableResult
    public func removeConfig(_ key: String) throws -> Bool {
        try guarded {
            try db.run("DELETE FROM config WHERE key = ?", [.text(key)])
            return db.changes > 0
        }
    }
}
