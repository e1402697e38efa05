import FoundationEssentials
import HumCore

/// Saved mixes (`hum mix save NAME`, `@NAME` wherever a mix is given).
extension HumDatabase {
    /// Saves (or replaces) a mix under a name.
    public func saveMix(_ mix: Mix, as name: String) throws {
        try guarded { try db.immediate { try saveMixLocked(mix, as: name) } }
    }

    func saveMixLocked(_ mix: Mix, as name: String) throws {
        var stored = mix
        stored.name = nil
        let json = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try db.run(
            """
            INSERT INTO mixes(name, mix, saved_at) VALUES (?, ?, ?)
            ON CONFLICT(name) DO UPDATE SET mix = excluded.mix, saved_at = excluded.saved_at
            """, [.text(name), .text(json), .text(calendar.now().rfc3339)])
    }

    /// The mix saved under `name`, carrying its name; nil when there is none.
    public func mix(named name: String) throws -> Mix? {
        try guarded {
            var found: Mix? = nil
            try db.query("SELECT mix FROM mixes WHERE name = ?", [.text(name)]) { row in
                found = try Self.decodeMix(try row.text("mix"), name: name)
            }
            return found
        }
    }

    /// Every saved mix, by name.
    public func savedMixes() throws -> [(name: String, mix: Mix, savedAt: String)] {
        try guarded {
            var out: [(String, Mix, String)] = []
            try db.query("SELECT name, mix, saved_at FROM mixes ORDER BY name") { row in
                let name = try row.text("name")
                out.append((name, try Self.decodeMix(try row.text("mix"), name: name), try row.text("saved_at")))
            }
            return out
        }
    }

    /// Removes a saved mix; false when there was none of that name.
    @discardableResult
    public func removeMix(named name: String) throws -> Bool {
        try guarded {
            try db.immediate {
                try db.run("DELETE FROM mixes WHERE name = ?", [.text(name)])
                return db.changes > 0
            }
        }
    }

    static func decodeMix(_ json: String, name: String) throws -> Mix {
        do {
            var mix = try JSONDecoder().decode(Mix.self, from: Data(json.utf8))
            mix.name = name
            return mix
        } catch {
            throw DamagedMix(name: name)
        }
    }
}

/// A saved mix whose stored form cannot be read (edited by hand, or written by something else).
public struct DamagedMix: UserFacingError, Equatable {
    public var name: String
    public var message: String {
        "the saved mix \(name.quoted) cannot be read; save it again with 'hum mix save \(name) SOUND=VOLUME...'"
    }
}
