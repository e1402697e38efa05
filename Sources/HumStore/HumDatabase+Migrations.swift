import HumCore

/// Bringing a database up to the latest schema.
extension HumDatabase {
    func migrate() throws {
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version == Schema.latestVersion { return }
        let device = newID()
        let created = calendar.now().rfc3339
        try db.immediate { try HumDatabase.migrate(db, path: path, device: device, created: created) }
    }

    /// Runs the migrations the database lacks; the caller holds the write lock. A new database gets hum's marker
    /// and its device id.
    static func migrate(_ db: Connection, path: String, device: String, created: String) throws {
        let current = try db.scalarInt("PRAGMA user_version") ?? 0
        if current > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: current) }
        for step in Int(current)..<Schema.migrations.count {
            try db.execute(Schema.migrations[step])
        }
        if current == 0 {
            try db.execute("PRAGMA application_id = \(Schema.applicationID)")
            try db.run("INSERT INTO meta(key, value) VALUES ('device', ?)", [.text(device)])
            try db.run("INSERT INTO meta(key, value) VALUES ('created', ?)", [.text(created)])
        }
        try db.execute("PRAGMA user_version = \(Schema.latestVersion)")
    }
}
