import HumCore

/// What `hum report` reads beyond a period's rounds and entries: the focus of every day, for the streak.
extension HumDatabase {
    /// Active seconds of focus rounds per local day (the day each started, with the offset it was recorded with),
    /// over the whole history. One aggregate query: a streak is computed from it without loading the rounds.
    public func focusByDay(boundary: DayBoundary = .midnight) throws -> [CivilDate: Int64] {
        try guarded {
            var out: [CivilDate: Int64] = [:]
            // Floor division by whole days: shifted by a million days, so instants before 1970 floor too. The day
            // starts at the boundary (`day.starts-at`) on the wall clock each round was recorded with.
            try db.query(
                """
                SELECT (start_epoch + start_offset - ? + 86400000000) / 86400 - 1000000 AS day,
                    TOTAL(active) AS active
                FROM rounds WHERE kind = 'focus' GROUP BY day
                """, [.int(boundary.start.seconds)]
            ) { row in
                let seconds = try row.double("active")
                out[CivilDate(daysSinceEpoch: try row.int("day"))] =
                    seconds.isFinite ? Int64(min(max(seconds, 0), 9e15)) : 0
            }
            return out
        }
    }
}
