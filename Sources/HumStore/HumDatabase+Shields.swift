import HumCore

/// Shields (`hum shield`): their targets, their offs on the record and their lifts (docs/shields.md). Every
/// read-check-write runs in one `BEGIN IMMEDIATE` transaction; while a strict contract runs, what loosens a shield
/// (removing it or targets of it, turning it off) is refused in that same transaction.
extension HumDatabase {
    /// What `addShield` did: the shield as it is now, the targets it gained, and whether it was made.
    public struct ShieldAddition: Sendable, Equatable {
        public var shield: Shield
        public var added: [ShieldTarget]
        public var created: Bool
    }

    /// Makes the shield `name` with `targets`, or adds to it the targets it lacks (adding tightens, so a strict
    /// contract allows it). The name and targets were checked where they entered (`Shield.checkedName`,
    /// `ShieldTarget.checked`).
    public func addShield(name: String, targets: [ShieldTarget]) throws -> ShieldAddition {
        try guarded {
            try db.immediate {
                let now = calendar.now()
                var created = false
                var seq = try liveShieldSeq(name)
                if seq == nil {
                    try db.run(
                        "INSERT INTO shields(name, created_epoch, created_offset) VALUES (?, ?, ?)",
                        [.text(name), .int(now.epochSeconds), .int(Int64(now.offsetSeconds))])
                    seq = try db.scalarInt("SELECT last_insert_rowid()")
                    created = true
                }
                guard let seq, var shield = try loadShield(seq: seq) else {
                    throw ShieldStoreError.unknown(name, known: [])
                }
                var added: [ShieldTarget] = []
                for target in targets where !shield.targets.contains(target) && !added.contains(target) {
                    added.append(target)
                }
                guard shield.targets.count + added.count <= Shield.mostTargets else {
                    throw ShieldStoreError.tooManyTargets(name)
                }
                var position =
                    try db.scalarInt(
                        """
                        SELECT COALESCE(MAX(position), -1) + 1 FROM (
                            SELECT position FROM shield_targets WHERE shield_seq = ?1
                            UNION ALL SELECT position FROM shield_sites WHERE shield_seq = ?1)
                        """, [.int(seq)])
                    ?? 0
                for target in added {
                    if target.kind == .site {
                        try db.run(
                            "INSERT INTO shield_sites(shield_seq, position, value) VALUES (?, ?, ?)",
                            [.int(seq), .int(position), .text(target.value)])
                    } else {
                        try db.run(
                            "INSERT INTO shield_targets(shield_seq, position, kind, value) VALUES (?, ?, ?, ?)",
                            [.int(seq), .int(position), .text(target.kind.rawValue), .text(target.value)])
                    }
                    position += 1
                }
                shield.targets += added
                return ShieldAddition(shield: shield, added: added, created: created)
            }
        }
    }

    /// The shields, oldest first (removed ones left out).
    public func shields() throws -> [Shield] {
        try guarded { try db.reading { try loadShields() } }
    }

    /// The shield of that name, or nil.
    public func shield(named name: String) throws -> Shield? {
        try guarded { try db.reading { try liveShieldSeq(name).flatMap { try loadShield(seq: $0) } } }
    }

    /// Removes a shield: its offs and lifts end now (on the record), its row stays marked removed. Refused while a
    /// strict contract runs.
    public func removeShield(named name: String) throws {
        try guarded {
            try db.immediate {
                let seq = try requireShield(name)
                if let refusal = try strictRefusal(.removeShield(name)) { throw refusal }
                let now = calendar.clock.nowEpochSeconds()
                try db.run("UPDATE shields SET removed_epoch = ? WHERE seq = ?", [.int(now), .int(seq)])
                try endOffs(seq: seq, at: now)
                try db.run(
                    """
                    UPDATE shield_lifts SET ended_epoch = ?, ended_by = 'removed'
                    WHERE shield_seq = ? AND ended_epoch IS NULL AND deadline_epoch > ?
                    """, [.int(now), .int(seq), .int(now)])
            }
        }
    }

    /// Takes `targets` out of a shield (those it does not hold are named in the error). A shield keeps at least
    /// one target: removing the last is `removeShield`. Refused while a strict contract runs.
    public func removeTargets(_ targets: [ShieldTarget], fromShield name: String) throws -> Shield {
        try guarded {
            try db.immediate {
                let seq = try requireShield(name)
                guard var shield = try loadShield(seq: seq) else { throw ShieldStoreError.unknown(name, known: []) }
                if let missing = targets.first(where: { !shield.targets.contains($0) }) {
                    throw ShieldStoreError.noSuchTarget(name, missing)
                }
                let left = shield.targets.filter { !targets.contains($0) }
                guard !left.isEmpty else { throw ShieldStoreError.lastTarget(name) }
                if let refusal = try strictRefusal(.removeShieldTargets(name)) { throw refusal }
                for target in targets {
                    if target.kind == .site {
                        try db.run(
                            "DELETE FROM shield_sites WHERE shield_seq = ? AND value = ?",
                            [.int(seq), .text(target.value)])
                    } else {
                        try db.run(
                            "DELETE FROM shield_targets WHERE shield_seq = ? AND kind = ? AND value = ?",
                            [.int(seq), .text(target.kind.rawValue), .text(target.value)])
                    }
                }
                shield.targets = left
                return shield
            }
        }
    }

    /// Turns shields off for `seconds` from now, on the record with the reason: the named ones, or every shield
    /// when `names` is nil. Refused while a strict contract runs. Returns the offs written.
    public func turnShieldsOff(_ names: [String]?, seconds: Int64, reason: String?) throws -> [ShieldOff] {
        try guarded {
            try db.immediate {
                let now = calendar.now()
                var seqs: [(Int64, String)] = []
                if let names {
                    for name in names { seqs.append((try requireShield(name), name)) }
                } else {
                    try db.query("SELECT seq, name FROM shields WHERE removed_epoch IS NULL ORDER BY seq") {
                        seqs.append((try $0.int("seq"), try $0.text("name")))
                    }
                }
                if let first = seqs.first, let refusal = try strictRefusal(.shieldOff(names == nil ? "--all" : first.1))
                {
                    throw refusal
                }
                let end = now.epochSeconds.adding(saturating: max(1, seconds))
                var offs: [ShieldOff] = []
                for (seq, name) in seqs {
                    try db.run(
                        """
                        INSERT INTO shield_offs(shield_seq, start_epoch, start_offset, end_epoch, reason)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                        [
                            .int(seq), .int(now.epochSeconds), .int(Int64(now.offsetSeconds)), .int(end),
                            .optional(reason),
                        ])
                    offs.append(ShieldOff(shield: name, start: now.epochSeconds, end: end, reason: reason))
                }
                return offs
            }
        }
    }

    /// Ends the offs of a shield now (`hum shield on NAME`): it is up again unless lifted. Tightening, so a strict
    /// contract allows it. Returns how many offs were in force.
    @discardableResult
    public func turnShieldOn(named name: String) throws -> Int {
        try guarded {
            try db.immediate {
                let seq = try requireShield(name)
                return try endOffs(seq: seq, at: calendar.clock.nowEpochSeconds())
            }
        }
    }

    /// Everything the state of the shields depends on now, read in one transaction: the shields with their quotas,
    /// the offs and lifts not over yet, the schedules, this calendar's zone and the day boundary (`day.starts-at`).
    /// Give it to `ShieldState.shielded`, `ShieldState.lock` and `ShieldInputs.quota`.
    public func shieldInputs() throws -> ShieldInputs {
        try guarded { try db.reading { try shieldInputsLocked(now: calendar.clock.nowEpochSeconds()) } }
    }

    /// `shieldInputs` inside a transaction the caller holds.
    func shieldInputsLocked(now: Int64) throws -> ShieldInputs {
        var offs: [ShieldOff] = []
        try db.query(
            """
            SELECT s.name, o.start_epoch, MIN(o.end_epoch, COALESCE(o.ended_epoch, o.end_epoch)) AS until,
                o.reason
            FROM shield_offs o JOIN shields s ON s.seq = o.shield_seq
            WHERE s.removed_epoch IS NULL AND MIN(o.end_epoch, COALESCE(o.ended_epoch, o.end_epoch)) > ?
            ORDER BY o.seq
            """, [.int(now)]
        ) { row in
            offs.append(
                ShieldOff(
                    shield: try row.text("name"), start: try row.int("start_epoch"), end: try row.int("until"),
                    reason: try row.optionalText("reason")))
        }
        var lifts: [ShieldLift] = []
        try db.query(
            """
            SELECT l.id, s.name, l.entry_id, l.start_epoch, l.deadline_epoch, l.ended_epoch, l.budget
            FROM shield_lifts l JOIN shields s ON s.seq = l.shield_seq
            WHERE s.removed_epoch IS NULL AND l.ended_epoch IS NULL AND l.deadline_epoch > ?
            ORDER BY l.start_epoch, l.id
            """, [.int(now)]
        ) { row in lifts.append(try Self.lift(row)) }
        return ShieldInputs(
            shields: try loadShields(), offs: offs, lifts: lifts, schedules: try loadSchedules(),
            zone: calendar.zone, dayBoundary: try dayBoundaryLocked(), quotaLifts: try quotaLiftsLocked())
    }

    // MARK: Lifts

    /// Opens a lift of shield `name` for `seconds` from now, paid by ledger entry `entryID` (a pass's hold, an
    /// emergency draw) when one did. The deadline is absolute and stored, rounded up to the next whole second: the
    /// lift ends by itself whatever process dies. A pass that opens a lift writes it with `openLiftLocked`, in the
    /// transaction of its hold, so that the hold and the lift are one change.
    public func openLift(shield name: String, seconds: Int64, entryID: String?, budget: LiftBudget? = nil) throws
        -> ShieldLift
    {
        try guarded {
            try db.immediate { try openLiftLocked(shield: name, seconds: seconds, entryID: entryID, budget: budget) }
        }
    }

    /// `openLift` inside a transaction the caller holds. `budget` says what paid (the quota, the bank, the emergency
    /// reserve): a quota's lifts count against it, and only the reserve's open a shield a schedule locks.
    func openLiftLocked(shield name: String, seconds: Int64, entryID: String?, budget: LiftBudget? = nil) throws
        -> ShieldLift
    {
        let seq = try requireShield(name)
        let now = calendar.clock.nowEpochSeconds()
        // The wall clock here is whole seconds, cut down: the precise end (`seconds` after this instant) falls in
        // the second before this deadline, so a lift never lasts less than asked. The hum that holds the lift ends
        // it at the precise end (`endLift`); the deadline is the bound for when none is left to.
        let lift = ShieldLift(
            id: newID(), shield: name, entryID: entryID, start: now,
            deadline: now.adding(saturating: max(1, seconds)).adding(saturating: 1), budget: budget)
        try db.run(
            """
            INSERT INTO shield_lifts(id, shield_seq, entry_id, start_epoch, deadline_epoch, budget)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(lift.id), .int(seq), .optional(entryID), .int(lift.start), .int(lift.deadline),
                .optional(budget?.rawValue),
            ])
        return lift
    }

    /// Opens a pass that lifts the shield `shield` (`hum pass 15m --on games`): the hold and the lift, whose deadline
    /// is the pass's, are written in one transaction, so neither exists without the other. Refused as `openPass` is
    /// (too little banked, another pass open, a strict contract), and with `ShieldLiftRefusal` when the shield is
    /// not up (lifted already, or off).
    public func openPass(id: String, seconds: Int64, forfeit: Bool, lifting shield: String) throws
        -> (decision: LedgerDecision, lift: ShieldLift)
    {
        try guarded {
            try db.immediate {
                try requireUp(shield)
                let decision = try recordLocked(
                    .openPass(passID: id, seconds: seconds, label: shield, forfeit: forfeit), command: nil,
                    settledBy: "owner")
                let lift = try openLiftLocked(
                    shield: shield, seconds: seconds, entryID: decision.entry.id, budget: .bank)
                return (decision, lift)
            }
        }
    }

    /// What paid for a lift opened by `openPaidLift`: seconds from the shield's daily quota and from the bank, the
    /// bank's hold (when the bank paid some), the lift the shield is lifted by (`lift`, for the whole length) and the
    /// quota's own lift when the bank paid the rest.
    public struct PaidLift: Sendable, Equatable {
        public var quotaSeconds: Int64
        public var bankSeconds: Int64
        /// The pass's hold, when the bank paid part of it.
        public var decision: LedgerDecision?
        /// The lift that lasts the whole length: the bank's when it paid some, else the quota's.
        public var lift: ShieldLift
        /// The quota's lift (its length what the quota paid), when both paid; nil otherwise.
        public var quotaLift: ShieldLift?

        /// `6m from today's quota, 4m from the bank`, `10m from today's quota`, `10m from the bank`.
        public var payers: String {
            let f = DurationText.format(seconds:)
            let parts =
                (quotaSeconds > 0 ? ["\(f(quotaSeconds)) from today's quota"] : [])
                + (bankSeconds > 0 ? ["\(f(bankSeconds)) from the bank"] : [])
            return parts.joined(separator: ", ")
        }
    }

    /// Opens a pass that lifts the shield `shield` (`hum pass 10m --on video`), taking from today's quota of the
    /// shield first (the day by `day.starts-at`) and the rest from the bank, all in one transaction: the quota's
    /// standing is read in the transaction that writes its lift, so two passes asked at once cannot both take
    /// the last minutes. When only the quota pays, no pass is held: its lift (budget `quota`) is the record, and what
    /// it did not run stays in the quota. When the bank pays some, its hold (a pass of the bank's part) and a lift
    /// for the whole length are written, with a quota lift for the quota's part beside it. Refused as
    /// `openPass(lifting:)` is.
    public func openPaidLift(passID: String, seconds: Int64, forfeit: Bool, lifting shield: String) throws
        -> PaidLift
    {
        try guarded {
            try db.immediate {
                try requireUp(shield)
                let now = calendar.clock.nowEpochSeconds()
                let left = try shieldInputsLocked(now: now).quota(of: shield, now: now)?.leftToday ?? 0
                let fromQuota = min(max(0, left), seconds)
                let fromBank = seconds - fromQuota
                guard fromBank > 0 else {
                    let lift = try openLiftLocked(shield: shield, seconds: seconds, entryID: nil, budget: .quota)
                    return PaidLift(quotaSeconds: fromQuota, bankSeconds: 0, decision: nil, lift: lift, quotaLift: nil)
                }
                let decision = try recordLocked(
                    .openPass(passID: passID, seconds: fromBank, label: shield, forfeit: forfeit), command: nil,
                    settledBy: "owner")
                let quotaLift =
                    fromQuota > 0
                    ? try openLiftLocked(shield: shield, seconds: fromQuota, entryID: nil, budget: .quota) : nil
                let lift = try openLiftLocked(
                    shield: shield, seconds: seconds, entryID: decision.entry.id, budget: .bank)
                return PaidLift(
                    quotaSeconds: fromQuota, bankSeconds: fromBank, decision: decision, lift: lift,
                    quotaLift: quotaLift)
            }
        }
    }

    /// Draws `seconds` from the weekly emergency reserve and lifts the shield `shield` for that long
    /// (`hum emergency 5m --reason … --on games`), in one transaction, as `openPass(lifting:)` does for a pass; with
    /// `strictNote`, the draw is noted in the strict contract that runs. Refused as an emergency draw is (the
    /// reserve is spent) and with `ShieldLiftRefusal` when the shield is not up.
    public func drawEmergency(seconds: Int64, reason: String, strictNote: String?, lifting shield: String) throws
        -> (decision: LedgerDecision, lift: ShieldLift)
    {
        try guarded {
            try db.immediate {
                try requireUp(shield, emergency: true)
                let decision = try recordLocked(
                    .emergency(seconds: seconds, reason: reason, key: nil), command: nil, settledBy: "owner")
                if let strictNote { _ = try noteEmergencyLocked(decision, strictNote: strictNote) }
                let lift = try openLiftLocked(
                    shield: shield, seconds: seconds, entryID: decision.entry.id, budget: .emergency)
                return (decision, lift)
            }
        }
    }

    /// Refuses, inside the caller's transaction, to lift a shield that does not exist or is not up: two lifts asked
    /// at once cannot both see it up.
    /// A lift paid from the bank is refused too while a schedule's lock window holds the shield (`ScheduleLock`,
    /// exit 3); the emergency reserve still opens it.
    func requireUp(_ shield: String, emergency: Bool = false) throws {
        _ = try requireShield(shield)
        let now = calendar.clock.nowEpochSeconds()
        let inputs = try shieldInputsLocked(now: now)
        if !emergency, let lock = ShieldState.lock(on: shield, inputs, now: now) { throw lock }
        let state = ShieldState.shielded(inputs, now: now)[shield] ?? .up
        guard state == .up else { throw ShieldLiftRefusal.notUp(shield, state) }
    }

    /// Ends a lift now (the pass ended early, was settled, or its owner died): `by` is `owner`, `watchdog`,
    /// `reconcile`. False when it had already ended or reached its deadline.
    @discardableResult
    public func endLift(id: String, by: String = "owner") throws -> Bool {
        try guarded {
            let now = calendar.clock.nowEpochSeconds()
            try db.run(
                """
                UPDATE shield_lifts SET ended_epoch = ?, ended_by = ?
                WHERE id = ? AND ended_epoch IS NULL AND deadline_epoch > ?
                """, [.int(now), .text(by), .text(id), .int(now)])
            return db.changes > 0
        }
    }

    /// Every lift of a shield, oldest first, ended or not: its history.
    public func lifts(ofShield name: String) throws -> [ShieldLift] {
        try guarded {
            try db.reading {
                var lifts: [ShieldLift] = []
                try db.query(
                    """
                    SELECT l.id, s.name, l.entry_id, l.start_epoch, l.deadline_epoch, l.ended_epoch, l.budget
                    FROM shield_lifts l JOIN shields s ON s.seq = l.shield_seq WHERE s.name = ?
                    ORDER BY l.start_epoch, l.id
                    """, [.text(name)]
                ) { row in lifts.append(try Self.lift(row)) }
                return lifts
            }
        }
    }

    // MARK: Reading

    static func lift(_ row: Statement) throws -> ShieldLift {
        ShieldLift(
            id: try row.text("id"), shield: try row.text("name"), entryID: try row.optionalText("entry_id"),
            start: try row.int("start_epoch"), deadline: try row.int("deadline_epoch"),
            ended: try row.optionalInt("ended_epoch"),
            budget: try row.optionalText("budget").flatMap(LiftBudget.init(rawValue:)))
    }

    func liveShieldSeq(_ name: String) throws -> Int64? {
        try db.scalarInt("SELECT seq FROM shields WHERE name = ? AND removed_epoch IS NULL", [.text(name)])
    }

    func requireShield(_ name: String) throws -> Int64 {
        if let seq = try liveShieldSeq(name) { return seq }
        var known: [String] = []
        try db.query("SELECT name FROM shields WHERE removed_epoch IS NULL ORDER BY name") {
            known.append(try $0.text("name"))
        }
        throw ShieldStoreError.unknown(name, known: known)
    }

    @discardableResult
    func endOffs(seq: Int64, at now: Int64) throws -> Int {
        try db.run(
            """
            UPDATE shield_offs SET ended_epoch = ?
            WHERE shield_seq = ? AND ended_epoch IS NULL AND end_epoch > ?
            """, [.int(now), .int(seq), .int(now)])
        return Int(db.changes)
    }

    func loadShields() throws -> [Shield] {
        var seqs: [Int64] = []
        try db.query("SELECT seq FROM shields WHERE removed_epoch IS NULL ORDER BY seq") {
            seqs.append(try $0.int("seq"))
        }
        return try seqs.compactMap { try loadShield(seq: $0) }
    }

    func loadShield(seq: Int64) throws -> Shield? {
        var shield: Shield? = nil
        try db.query("SELECT * FROM shields WHERE seq = ?", [.int(seq)]) { row in
            shield = Shield(
                name: try row.text("name"), targets: [],
                created: Timestamp(
                    epochSeconds: try row.int("created_epoch"),
                    offsetSeconds: Int32(clamping: try row.int("created_offset"))),
                quota: try Self.quota(row))
        }
        try db.query(
            """
            SELECT kind, value, position FROM shield_targets WHERE shield_seq = ?1
            UNION ALL SELECT 'site', value, position FROM shield_sites WHERE shield_seq = ?1 ORDER BY position
            """, [.int(seq)]
        ) { row in
            let value = try row.text("value")
            switch ShieldTarget.Kind(rawValue: try row.text("kind")) {
            case .app: shield?.targets.append(.app(value))
            case .match: shield?.targets.append(.match(value))
            case .desktopID: shield?.targets.append(.desktopID(value))
            case .site:
                if let site = try? SitePattern.checked(value) { shield?.targets.append(.site(site)) }
            case nil: break
            }
        }
        return shield
    }
}

/// Why a shield could not be lifted: it is not up (lifted already, or off), so a lift would open nothing.
public enum ShieldLiftRefusal: Error, Equatable {
    case notUp(String, ShieldStatus)
}

/// Why a shield could not be changed as asked.
public enum ShieldStoreError: UserFacingError, Equatable {
    case unknown(String, known: [String])
    case noSuchTarget(String, ShieldTarget)
    case lastTarget(String)
    case tooManyTargets(String)

    public var kind: FailureKind { .usage }

    public var message: String {
        switch self {
        case .unknown(let name, let known):
            let hint = Suggest.closest(to: name, in: known).map { "did you mean \($0)? " } ?? ""
            return
                known.isEmpty
                ? "no shield \(name.quoted): there are none yet; make one with 'hum shield add NAME --app PROGRAM'"
                : "no shield \(name.quoted); \(hint)see 'hum shield list'"
        case .noSuchTarget(let name, let target):
            return "the shield \(name) has no target \(target.option.quoted); see 'hum shield show \(name)'"
        case .lastTarget(let name):
            return "that would leave the shield \(name) with no target; remove it with 'hum shield rm \(name)'"
        case .tooManyTargets(let name):
            return "the shield \(name) would hold more than \(Shield.mostTargets) targets; make another shield"
        }
    }
}
