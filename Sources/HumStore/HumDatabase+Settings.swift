import HumCore

/// The settings (`hum config`): every key of HumCore's `SettingCatalog`, stored as text in the `config` table.
extension HumDatabase {
    /// The ledger's rules (its three, and the contracts' reviewer and strict-mode settings), as its rules read them.
    public func config() throws -> LedgerConfig {
        try guarded { try loadConfig() }
    }

    func loadConfig() throws -> LedgerConfig {
        var config = LedgerConfig()
        try db.query("SELECT key, value FROM config") { row in
            let key = try row.text("key")
            guard LedgerConfig.keys.contains(key) else { return }  // hum's other settings: not the ledger's rules
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

    /// Validates and stores a setting; throws `SettingError` for a bad key or value. While a strict contract runs,
    /// a change of the ledger's rules that loosens them is refused (`StrictRules.Refusal`); tightening is allowed.
    public func setConfig(_ key: String, to value: String) throws {
        let normalised = try SettingCatalog.normalise(key, value)
        try guarded {
            try db.immediate {
                try refuseLoosening(key, to: normalised)
                try db.run(
                    "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
                        + "excluded.value",
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
                "INSERT INTO config(key, value) VALUES ('review.consent', ?) ON CONFLICT(key) DO UPDATE SET value = "
                    + "excluded.value",
                [.text(command)])
        }
    }

    /// Removes a stored setting (it goes back to its default); false when none was stored.
    @discardableResult
    public func removeConfig(_ key: String) throws -> Bool {
        try guarded {
            try db.immediate {
                if LedgerConfig.keys.contains(key) { try refuseLoosening(key, to: try LedgerConfig().text(for: key)) }
                try db.run("DELETE FROM config WHERE key = ?", [.text(key)])
                return db.changes > 0
            }
        }
    }

    /// While a strict contract runs, refuses a change of one of the ledger's rules that loosens them.
    private func refuseLoosening(_ key: String, to value: String) throws {
        guard LedgerConfig.keys.contains(key) else { return }
        let old = try loadConfig()
        var new = old
        try new.set(key, to: value)
        if StrictRules.loosens(key, from: old, to: new),
            let refusal = try strictRefusal(.setting(key: key, from: try old.text(for: key), to: value))
        {
            throw refusal
        }
    }
}
