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

    /// Validates and stores a setting; throws `LedgerConfig.ConfigError` for a bad key or value. While a strict
    /// contract runs, a change that loosens the rules is refused (`StrictRules.Refusal`); tightening is allowed.
    public func setConfig(_ key: String, to value: String) throws {
        var config = LedgerConfig()
        try config.set(key, to: value)
        let normalised = try config.text(for: key)
        try guarded {
            try db.immediate {
                let old = try loadConfig()
                var new = old
                try new.set(key, to: value)
                if StrictRules.loosens(key, from: old, to: new),
                    let refusal = try strictRefusal(.setting(key: key, from: try old.text(for: key), to: normalised))
                {
                    throw refusal
                }
                try db.run(
                    "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [.text(key), .text(normalised)])
            }
        }
    }
}

/// The consent given to an external reviewer (`review.command`): kept for the exact command line it was given for,
/// so a changed command asks again.
extension HumDatabase {
    public func reviewConsent() throws -> String? {
        try guarded { try db.scalarText("SELECT value FROM config WHERE key = 'review.consent'") }
    }

    public func setReviewConsent(_ command: String) throws {
        try guarded {
            try db.run(
                "INSERT INTO config(key, value) VALUES ('review.consent', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(command)])
        }
    }
}
