import HumCore

/// The mixes played most recently (`hum mix list`; docs/sync.md, "Recents"): ten at most, each mix once, newest first
/// by the hybrid time of the play. A play here is a `mix.play` line of this device's journal (written before the same
/// transaction commits, like every event); the plays of other devices come in with a merge (`applyRecents`).
extension HumDatabase {
    /// The recents, newest first. A row that cannot be read (edited by hand) is left out.
    public func recents() throws -> [PlayedMix] {
        try guarded { try recentsLocked() }
    }

    func recentsLocked() throws -> [PlayedMix] {
        var out: [PlayedMix] = []
        try db.query(
            """
            SELECT mix, played_at, hlc_ms, hlc_c, hlc_d FROM recents ORDER BY hlc_ms DESC, hlc_c DESC, hlc_d DESC
            LIMIT \(SyncRecents.count)
            """
        ) { row in
            guard let mix = Self.recentTokens(try row.text("mix")),
                let at = Timestamp(rfc3339: try row.text("played_at"))
            else { return }
            out.append(
                PlayedMix(
                    mix: mix, at: at,
                    time: HybridTime(
                        physicalMs: try row.int("hlc_ms"), logical: try row.int("hlc_c"), device: try row.text("hlc_d"))
                ))
        }
        return out
    }

    /// Records a play of `mix` now: it becomes the newest of the recents (the oldest beyond ten is dropped), and,
    /// while sync is on, a `mix.play` line of the journal. A mix that is already the newest is not written again
    /// (the player remembers its mix when it starts and when it ends).
    public func recordPlay(_ mix: [MixToken]) throws {
        guard !mix.isEmpty, mix.count <= Mix.maximumTracks else { return }
        let key = try Self.recentKey(mix)
        try guarded {
            try db.immediate {
                let newest = try db.scalarText(
                    "SELECT mix FROM recents ORDER BY hlc_ms DESC, hlc_c DESC, hlc_d DESC LIMIT 1")
                guard newest != key else { return }
                try upsertRecent(key, playedAt: calendar.now().rfc3339, time: try nextRecentTime())
                try pruneRecents()
            }
        }
    }

    /// Whether the recents of the player's file were imported into this database (once).
    public func recentsImported() throws -> Bool {
        try guarded { try db.scalarText("SELECT value FROM meta WHERE key = 'recents-imported'") != nil }
    }

    /// Imports the recents the player kept in its file before they moved here (newest first, as the file has
    /// them), once: a second call does nothing. Each keeps its time; a mix played here meanwhile is newer and stays.
    public func importRecents(_ newestFirst: [(mix: [MixToken], at: Timestamp)]) throws {
        try guarded {
            try db.immediate {
                guard try db.scalarText("SELECT value FROM meta WHERE key = 'recents-imported'") == nil else { return }
                var last: HybridTime? = nil
                for (mix, at) in newestFirst.prefix(SyncRecents.count).reversed()
                where !mix.isEmpty && mix.count <= Mix.maximumTracks {
                    let key = try Self.recentKey(mix)
                    guard try db.scalarInt("SELECT 1 FROM recents WHERE mix = ?", [.text(key)]) == nil else {
                        continue
                    }
                    // In the file's order, even when two were played in the same second.
                    let ms = max(at.epochSeconds &* 1000, last?.physicalMs ?? 0)
                    let time = HybridTime(
                        physicalMs: ms, logical: last.map { $0.physicalMs == ms ? $0.logical + 1 : 0 } ?? 0,
                        device: device)
                    try upsertRecent(key, playedAt: at.rfc3339, time: time)
                    last = time
                }
                try pruneRecents()
                try db.run(
                    "INSERT INTO meta(key, value) VALUES ('recents-imported', ?)", [.text(calendar.now().rfc3339)])
            }
        }
    }

    /// The recents a merge planned (`SyncPlan.recents`) replace those here. The caller holds the lock.
    func applyRecents(_ recents: [PlayedMix]) throws {
        try db.run("DELETE FROM recents")
        for p in recents.prefix(SyncRecents.count) {
            try upsertRecent(try Self.recentKey(p.mix), playedAt: p.at.rfc3339, time: p.time)
        }
    }

    /// The hybrid time of a play here before its journal line gives it one (or for good while sync is off): after
    /// every play known here, and the wall clock.
    func nextRecentTime() throws -> HybridTime {
        let wall = calendar.clock.nowEpochSeconds() &* 1000
        var out = HybridTime(physicalMs: wall, logical: 0, device: device)
        try db.query("SELECT hlc_ms, hlc_c FROM recents ORDER BY hlc_ms DESC, hlc_c DESC LIMIT 1") { row in
            let ms = try row.int("hlc_ms")
            if ms >= wall { out = HybridTime(physicalMs: ms, logical: try row.int("hlc_c") + 1, device: device) }
        }
        return out
    }

    func upsertRecent(_ key: String, playedAt: String, time: HybridTime) throws {
        try db.run(
            """
            INSERT INTO recents(mix, played_at, hlc_ms, hlc_c, hlc_d) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(mix) DO UPDATE SET played_at = excluded.played_at, hlc_ms = excluded.hlc_ms,
                hlc_c = excluded.hlc_c, hlc_d = excluded.hlc_d
            """, [.text(key), .text(playedAt), .int(time.physicalMs), .int(time.logical), .text(time.device)])
    }

    /// Keeps the ten newest.
    func pruneRecents() throws {
        try db.run(
            """
            DELETE FROM recents WHERE mix NOT IN (SELECT mix FROM recents
                ORDER BY hlc_ms DESC, hlc_c DESC, hlc_d DESC LIMIT \(SyncRecents.count))
            """)
    }

    /// A play's line takes its time: the row keeps it, so every device orders the recents alike.
    func setRecentTime(_ key: String, _ time: HybridTime) throws {
        try db.run(
            "UPDATE recents SET hlc_ms = ?, hlc_c = ?, hlc_d = ? WHERE mix = ?",
            [.int(time.physicalMs), .int(time.logical), .text(time.device), .text(key)])
    }

    /// The journal event of the play of a row (nil once it is gone or cannot be read).
    func playEvent(_ key: String) throws -> JournalEvent? {
        guard let mix = Self.recentTokens(key),
            let at = try db.scalarText("SELECT played_at FROM recents WHERE mix = ?", [.text(key)]).flatMap(
                Timestamp.init(rfc3339:))
        else { return nil }
        return .played(mix: mix, at: at)
    }

    /// A mix as the key of its row: its sounds and volumes in canonical JSON, so one mix is one row.
    static func recentKey(_ mix: [MixToken]) throws -> String { try JournalJSON.encoding(mix).canonicalText }

    static func recentTokens(_ key: String) -> [MixToken]? {
        guard let value = try? JournalJSONParser.parse(Array(key.utf8)),
            let mix = try? value.decode([MixToken].self), !mix.isEmpty, mix.count <= Mix.maximumTracks,
            mix.allSatisfy({ !$0.name.isEmpty && Volume.range.contains($0.volume) })
        else { return nil }
        return mix
    }
}
