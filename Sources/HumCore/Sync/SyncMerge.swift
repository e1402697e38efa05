/// A register of last-writer-wins: a value (nil once removed) and the hybrid time of the write that set it.
public struct SyncRegister<Value: Sendable & Equatable>: Sendable, Equatable {
    public var value: Value?
    public var time: HybridTime
    public init(value: Value?, time: HybridTime) {
        self.value = value
        self.time = time
    }
}

/// A mix played, for the recents.
public struct PlayedMix: Sendable, Equatable {
    public var mix: [MixToken]
    public var at: Timestamp
    public var time: HybridTime
    public init(mix: [MixToken], at: Timestamp, time: HybridTime) {
        self.mix = mix
        self.at = at
        self.time = time
    }
}

/// What the local database holds, as far as the merge needs it: the ledger's entries (their ids and keys), the
/// rounds and contracts by id, the registers of saved mixes and travelling settings with the time they were
/// written, and, per other device, the cursor after the last line merged from it.
public struct SyncKnown: Sendable, Equatable {
    public var entriesByID: [String: LedgerEntry] = [:]
    public var entriesByKey: [String: LedgerEntry] = [:]
    public var rounds: Set<String> = []
    /// Hours logged by hand, by id.
    public var hours: Set<String> = []
    public var contracts: [String: HybridTime] = [:]
    /// The contracts here whose reward was granted (approved or overridden): a version that was not paid never
    /// replaces one that was (`SyncMerge.contractReplaces`).
    public var paidContracts: Set<String> = []
    public var mixes: [String: HybridTime] = [:]
    public var settings: [String: HybridTime] = [:]
    public var cursors: [String: JournalCursor] = [:]
    /// The recents here, newest first: at most `SyncRecents.count` plays, each mix once.
    public var recents: [PlayedMix] = []

    public init() {}

    public mutating func addEntry(_ e: LedgerEntry) {
        entriesByID[e.id] = e
        if let k = e.key { entriesByKey[k] = e }
    }
}

/// What to apply to the local database after reading other devices' journals. Apply it in one transaction: the
/// entries, rounds and contracts through the ledger's import (by id, checked inside), then the registers and the
/// recents, then store the cursors. Applying the same plan twice changes nothing the second time.
public struct SyncPlan: Sendable, Equatable {
    public var entries: [LedgerEntry] = []
    public var rounds: [RoundRecord] = []
    /// Hours logged by hand on other devices, not here yet.
    public var hours: [HourLogRecord] = []
    /// Contracts newer (by hybrid time) than the one held here.
    public var contracts: [(record: ContractRecord, time: HybridTime)] = []
    /// Saved mixes to set (a mix) or remove (nil), newer than the register here.
    public var mixes: [String: SyncRegister<Mix>] = [:]
    public var settings: [String: SyncRegister<String>] = [:]
    /// Mixes played on other devices (the recents are the newest of all, each mix once: `SyncRecents`).
    public var played: [PlayedMix] = []
    /// The recents after the merge, newest first (the newest of those here and those played elsewhere, each mix
    /// once); nil when they stay as they are.
    public var recents: [PlayedMix]?
    /// Lines merged per device, and the cursor to keep for each.
    public var cursors: [String: JournalCursor] = [:]
    /// Lines whose ledger event is already here (by id, or by key with the same payload).
    public var alreadyHere = 0
    /// Per device, why its journal was merged only up to a line (damage found by the reader, or a ledger conflict).
    public var stopped: [String: String] = [:]
    /// The newest hybrid time merged: the local clock takes it in (`JournalWriter.receive`).
    public var latest: HybridTime?

    public static func == (a: SyncPlan, b: SyncPlan) -> Bool {
        a.entries == b.entries && a.rounds == b.rounds && a.hours == b.hours
            && a.contracts.map(\.record) == b.contracts.map(\.record)
            && a.contracts.map(\.time) == b.contracts.map(\.time) && a.mixes == b.mixes && a.settings == b.settings
            && a.played == b.played && a.recents == b.recents && a.cursors == b.cursors
            && a.alreadyHere == b.alreadyHere
            && a.stopped == b.stopped && a.latest == b.latest
    }
}

/// The merge rules, pure: which events of other devices' verified journals to apply here.
///
/// - Idempotent by (device, sequence): a line at or before the device's cursor was merged before and is skipped;
///   and by the ledger's own ids and keys (`LedgerMerge.classify`): an entry already here is skipped, one whose id
///   or key is taken by another payload stops that device's merge at that line (reported, never half-applied).
/// - The bank is the sum of every device's entries; nothing is re-decided on merge.
/// - Saved mixes, travelling settings and contracts: last writer wins by hybrid time (`HybridTime` order, device
///   breaking ties), a removal being a write like any other. A contract whose reward was granted is final: a
///   version of it that was not paid never replaces it, however new (its grant is in the ledger, never taken back).
/// - Recents: every play of every device, the newest ten by hybrid time, each mix once.
/// - Hours logged by hand: a grow-only set by id, like rounds.
public enum SyncMerge {
    /// `journals`: per device, what `JournalReader` read of its journal from the cursor in `known` (or from the
    /// start: lines at or before the cursor are skipped), with its damage if any.
    public static func plan(known: SyncKnown, journals: [String: JournalRead]) -> SyncPlan {
        var plan = SyncPlan()
        var known = known
        // A cold merge adds every line's entry to the plan and to what is known here: room for all of them up front,
        // so the dictionaries of 100,000 entries are not grown (and rehashed) step by step.
        let incoming = journals.values.reduce(0) { $0 + $1.lines.count }
        known.entriesByID.reserveCapacity(known.entriesByID.count + incoming)
        known.entriesByKey.reserveCapacity(known.entriesByKey.count + incoming)
        plan.entries.reserveCapacity(incoming)
        for device in journals.keys.sorted() {
            guard let read = journals[device] else { continue }
            var cursor = known.cursors[device] ?? .start
            if let damage = read.damage, !damage.isPending { plan.stopped[device] = damage.message }
            lines: for (index, line) in read.lines.enumerated() where line.seq > cursor.lastSeq {
                guard line.seq == cursor.lastSeq + 1, line.prev == cursor.lastHash else {
                    plan.stopped[device] = "line \(line.seq) does not follow line \(cursor.lastSeq) merged before"
                    break
                }
                switch line.event {
                case .entry(let e):
                    do {
                        switch try LedgerMerge.classify(
                            e, byID: known.entriesByID[e.id], byKey: e.key.flatMap { known.entriesByKey[$0] })
                        {
                        case .skip: plan.alreadyHere += 1
                        case .add:
                            plan.entries.append(e)
                            known.addEntry(e)
                        }
                    } catch {
                        plan.stopped[device] = "line \(line.seq): \(error.message)"
                        break lines
                    }
                case .round(let r):
                    if known.rounds.insert(r.id).inserted { plan.rounds.append(r) } else { plan.alreadyHere += 1 }
                case .hoursLogged(let h):
                    if known.hours.insert(h.id).inserted { plan.hours.append(h) } else { plan.alreadyHere += 1 }
                case .contract(let c):
                    if contractReplaces(
                        paid: c.status.granted, time: line.time, herePaid: known.paidContracts.contains(c.id),
                        hereTime: known.contracts[c.id])
                    {
                        known.contracts[c.id] = line.time
                        if c.status.granted { known.paidContracts.insert(c.id) }
                        plan.contracts.removeAll { $0.record.id == c.id }
                        plan.contracts.append((c, line.time))
                    }
                case .mixSaved(let name, let mix):
                    if known.mixes[name].map({ $0 < line.time }) ?? true {
                        known.mixes[name] = line.time
                        plan.mixes[name] = SyncRegister(value: mix, time: line.time)
                    }
                case .mixRemoved(let name):
                    if known.mixes[name].map({ $0 < line.time }) ?? true {
                        known.mixes[name] = line.time
                        plan.mixes[name] = SyncRegister(value: nil, time: line.time)
                    }
                case .played(let mix, let at):
                    plan.played.append(PlayedMix(mix: mix, at: at, time: line.time))
                case .setting(let key, let value):
                    if known.settings[key].map({ $0 < line.time }) ?? true {
                        known.settings[key] = line.time
                        plan.settings[key] = SyncRegister(value: value, time: line.time)
                    }
                }
                cursor = JournalCursor(
                    offset: index < read.lineEnds.count ? read.lineEnds[index] : cursor.offset, lastSeq: line.seq,
                    lastHash: line.hash, lastTime: line.time)
                if plan.latest.map({ $0 < line.time }) ?? true { plan.latest = line.time }
            }
            if cursor != (known.cursors[device] ?? .start) {
                plan.cursors[device] = cursor
                known.cursors[device] = cursor
            }
        }
        plan.entries.sort { a, b in (a.at.epochSeconds, a.id) < (b.at.epochSeconds, b.id) }
        if !plan.played.isEmpty {
            let recents = SyncRecents.newest(known.recents + plan.played)
            if recents != known.recents { plan.recents = recents }
        }
        return plan
    }

    /// Whether a version of a contract (`paid`: its reward granted; written at `time`) replaces the one here (nil:
    /// none here). A paid contract is final: nothing replaces it (a paid contract never changes again where it was
    /// paid, and its grant here is the one its `rewardEntryID` names), and a paid version replaces one that was not,
    /// whatever their times (its grant is in the ledger and is never taken back). Otherwise the newer by hybrid time
    /// wins. Every device keeps the same version, whatever order the lines come in, unless two devices paid it
    /// offline: then each keeps its own approval with its own grant (the same key, counted once, or a conflict that
    /// stops the merge: docs/sync.md).
    public static func contractReplaces(paid: Bool, time: HybridTime, herePaid: Bool, hereTime: HybridTime?) -> Bool {
        guard let hereTime else { return true }
        if herePaid { return false }
        if paid { return true }
        return hereTime < time
    }
}

/// The recents: the newest plays by hybrid time, each mix once.
public enum SyncRecents {
    public static let count = 10

    public static func newest(_ plays: [PlayedMix]) -> [PlayedMix] {
        var out: [PlayedMix] = []
        for p in plays.sorted(by: { $0.time > $1.time }) where !out.contains(where: { $0.mix == p.mix }) {
            out.append(p)
            if out.count == count { break }
        }
        return out
    }
}
