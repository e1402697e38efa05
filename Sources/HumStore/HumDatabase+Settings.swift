import HumCore

/// The ledger's settings (`hum config`).
extension HumDatabase {
    public func config() throws -> LedgerConfig {
        try guarded { try loadConfig() }
    }

    func loadConfig() throws -> LedgerConfig {
        var config = LedgerConfig()
        try db.query("SELECT key, value FROM config") { row in
            let key = try row.text("key")
            let value = try row.text("value")
            try? config.set(key, to: value)  // a bad value written by hand falls back to the default
        }
        return config
    }

    /// Validates and stores a setting; throws `LedgerConfig.ConfigError` for a bad key or value.
    public func setConfig(_ key: String, to value: String) throws {
        var config = LedgerConfig()
        try config.set(key, to: value)
        let normalised = try config.text(for: key)
        try guarded {
            try db.run(
                "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(normalised)])
        }
    }
}
