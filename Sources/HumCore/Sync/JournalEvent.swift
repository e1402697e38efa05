/// What a line of a sync journal records: one event hum wrote on its device. Ledger events carry the entry exactly
/// as the ledger stores it (so the store merges them by the ledger's own ids and keys, as an import does); the rest
/// carry what their table holds.
public enum JournalEvent: Sendable, Equatable {
    /// A finished round of the history (focus or break), as `hum export` writes it.
    case round(RoundRecord)
    /// An entry of the ledger: a grant (of a round or a contract), a spend, a pass's hold or its settlement, an
    /// emergency draw, an adjustment. Its `kind` names the line.
    case entry(LedgerEntry)
    /// A contract as it stands after a change (made, proof submitted, reviewed, overridden, paid), with its reviews.
    case contract(ContractRecord)
    /// A mix saved under a name (`hum mix save`); last writer wins by the hybrid clock.
    case mixSaved(name: String, mix: Mix)
    /// A saved mix removed: a tombstone, so an older save arriving later does not bring it back.
    case mixRemoved(name: String)
    /// A mix played: the recents are the newest of these, each mix once.
    case played(mix: [MixToken], at: Timestamp)
    /// A setting that travels set (`value`) or unset (nil); last writer wins by the hybrid clock.
    case setting(key: String, value: String?)
    /// An hour logged by hand without a shield (`hum log 1h --productive`, a nudge's button): added once, by its id.
    case hoursLogged(HourLogRecord)

    /// The name of a line's kind, as written in its `kind` field.
    public enum Kind: String, Sendable, CaseIterable {
        case round
        case grant, spend, hold, settle, emergency, adjustment
        case contract
        case mixSave = "mix.save"
        case mixRemove = "mix.remove"
        case mixPlay = "mix.play"
        case settingSet = "setting.set"
        case settingUnset = "setting.unset"
        case hoursLog = "hours.log"
    }

    public var kind: Kind {
        switch self {
        case .round: .round
        case .entry(let e):
            switch e.kind {
            case .grant: .grant
            case .spend: .spend
            case .hold: .hold
            case .settle: .settle
            case .emergency: .emergency
            case .adjustment: .adjustment
            }
        case .contract: .contract
        case .mixSaved: .mixSave
        case .mixRemoved: .mixRemove
        case .played: .mixPlay
        case .setting(_, let value): value == nil ? .settingUnset : .settingSet
        case .hoursLogged: .hoursLog
        }
    }

    /// The event's fields as a journal value.
    func payload() throws -> JournalJSON {
        switch self {
        case .round(let r): return try .encoding(r)
        case .entry(let e): return try .encoding(e)
        case .contract(let c): return try .encoding(c)
        case .mixSaved(let name, let mix):
            var stored = mix
            stored.name = nil
            return .object(["name": .string(name), "mix": try .encoding(stored)])
        case .mixRemoved(let name): return .object(["name": .string(name)])
        case .played(let mix, let at): return .object(["mix": try .encoding(mix), "at": .string(at.rfc3339)])
        case .setting(let key, let value):
            return .object(["key": .string(key), "value": value.map { .string($0) } ?? .null])
        case .hoursLogged(let h): return try .encoding(h)
        }
    }

    /// Appends the event's canonical payload: `payload().canonicalBytes`, an entry written directly.
    func writePayload(to out: inout [UInt8]) throws {
        if case .entry(let e) = self {
            e.writeJournalPayload(to: &out)
        } else {
            try payload().write(into: &out)
        }
    }

    /// Reads an event of `kind` from the payload bytes of a line, only when they are exactly what `writePayload`
    /// writes for it, and with the checks of `read(kind:payload:)`; nil otherwise. An entry is read directly
    /// (`LedgerEntry.readJournalPayload`, which takes only the canonical form, so it is not written back to
    /// compare), anything else through `read(kind:payload:)` and written back.
    static func readWritten(kind: Kind, payload bytes: UnsafeBufferPointer<UInt8>) -> JournalEvent? {
        let event: JournalEvent
        switch kind {
        case .grant, .spend, .hold, .settle, .emergency, .adjustment:
            guard let e = LedgerEntry.readJournalPayload(bytes), e.validationProblem() == nil,
                e.kind.rawValue == kind.rawValue
            else { return nil }
            return .entry(e)
        default:
            guard let value = try? JournalJSONParser.parse(bytes), let read = read(kind: kind, payload: value) else {
                return nil
            }
            event = read
        }
        var written: [UInt8] = []
        written.reserveCapacity(bytes.count)
        guard (try? event.writePayload(to: &written)) != nil, written.elementsEqual(bytes) else { return nil }
        return event
    }

    /// Reads an event of `kind` from its payload, with the checks its records have on import. Nil when the payload
    /// is not one of that kind.
    static func read(kind: Kind, payload: JournalJSON) -> JournalEvent? {
        do {
            switch kind {
            case .round:
                let r = try payload.decode(RoundRecord.self)
                return r.validationProblem() == nil && r.status != .running ? .round(r) : nil
            case .grant, .spend, .hold, .settle, .emergency, .adjustment:
                let e = try payload.decode(LedgerEntry.self)
                guard e.validationProblem() == nil, e.kind.rawValue == kind.rawValue else { return nil }
                return .entry(e)
            case .contract:
                let c = try payload.decode(ContractRecord.self)
                return c.validationProblem() == nil ? .contract(c) : nil
            case .mixSave:
                guard let name = payload["name"]?.stringValue, let mix = payload["mix"] else { return nil }
                return .mixSaved(name: name, mix: try mix.decode(Mix.self))
            case .mixRemove:
                return payload["name"]?.stringValue.map { .mixRemoved(name: $0) }
            case .mixPlay:
                guard let mix = payload["mix"], let at = payload["at"]?.stringValue.flatMap(Timestamp.init(rfc3339:))
                else { return nil }
                let tokens = try mix.decode([MixToken].self)
                guard tokens.count <= Mix.maximumTracks else { return nil }
                return .played(mix: tokens, at: at)
            case .settingSet, .settingUnset:
                guard let key = payload["key"]?.stringValue, SyncSettings.travels(key) else { return nil }
                if kind == .settingUnset { return payload["value"] == .null ? .setting(key: key, value: nil) : nil }
                guard let value = payload["value"]?.stringValue,
                    (try? SettingCatalog.normalise(key, value)) == value
                else { return nil }
                return .setting(key: key, value: value)
            case .hoursLog:
                let h = try payload.decode(HourLogRecord.self)
                return h.validationProblem() == nil ? .hoursLogged(h) : nil
            }
        } catch {
            return nil
        }
    }
}

/// Which settings travel between devices. The rest stay on their machine: the sound card (`play.device`) and its
/// speakers (`play.speakers`), and
/// anything that runs a command (`focus.on-event`, `review.command`, and the consent to it), since a file that
/// arrived from a synced folder must never make this machine run a program.
public enum SyncSettings {
    static let staying: Set<String> = [
        SettingCatalog.playDevice, SettingCatalog.playSpeakers, SettingCatalog.focusOnEvent,
        SettingCatalog.reviewCommand, "review.consent",
        SettingCatalog.syncDir, SettingCatalog.syncStrict,
    ]

    public static func travels(_ key: String) -> Bool {
        guard !staying.contains(key) else { return false }
        return (try? SettingCatalog.definition(key)) != nil
    }
}
