import HumCore

/// Bringing a database up to the latest schema.
extension HumDatabase {
    func migrate() throws {
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version == Schema.latestVersion { return }
        try db.immediate {
            let current = try db.scalarInt("PRAGMA user_version") ?? 0
            if current > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: current) }
            for step in Int(current)..<Schema.migrations.count {
                try db.execute(Schema.migrations[step])
            }
            if current == 0 {
                try db.execute("PRAGMA application_id = \(Schema.applicationID)")
                try db.run("INSERT INTO meta(key, value) VALUES ('device', ?)", [.text(Identifier.make(using: &rng))])
                try db.run("INSERT INTO meta(key, value) VALUES ('created', ?)", [.text(calendar.now().rfc3339)])
            }
            try db.execute("PRAGMA user_version = \(Schema.latestVersion)")
        }
    }
}
