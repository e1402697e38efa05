/// A ledger entry as a journal line's payload, written and read directly: most lines of a journal are entries, and
/// going through `Codable` and a `JournalJSON` tree for each took most of a cold merge's time. The bytes are exactly
/// those of `JournalJSON.encoding(entry).canonicalBytes` (the keys of `LedgerEntry.CodingKeys` in UTF-8 order, a
/// field that is nil left out); `JournalTests` holds the two to each other.
extension LedgerEntry {
    /// Appends the entry's canonical journal payload.
    func writeJournalPayload(to out: inout [UInt8]) {
        var first = true
        func member(_ name: StaticString) {
            out.append(first ? 0x7B : 0x2C)
            first = false
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: [0x22, 0x3A])
        }
        func int(_ name: StaticString, _ value: Int64?) {
            guard let value else { return }
            member(name)
            JSONByteWriter.appendInteger(value, to: &out)
        }
        func text(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            member(name)
            JSONByteWriter.appendString(value, to: &out)
        }
        int("allowance_seconds", allowance)
        int("amount_seconds", amount)
        text("at", at.rfc3339)
        int("cap_seconds", cap)
        text("contract_id", contractID)
        int("cut_seconds", cut)
        text("device", device)
        if let forfeit {
            member("forfeit")
            out.append(contentsOf: forfeit ? Array("true".utf8) : Array("false".utf8))
        }
        text("id", id)
        text("key", self.key)
        text("kind", kind.rawValue)
        text("label", label)
        text("pass_id", passID)
        text("payload", payload)
        text("reason", reason)
        int("requested_seconds", requested)
        int("reserve_seconds", reserve)
        text("round_id", roundID)
        int("used_seconds", used)
        out.append(0x7D)
    }

    /// Reads an entry from a canonical journal payload: the members in UTF-8 order, each once, every one known,
    /// none null, each value in its one canonical form (strings as `JSONByteWriter` escapes them, integers without
    /// leading zeros, the timestamp as `Timestamp.rfc3339` writes it). Nil for anything else (the caller then reads
    /// it through `Codable`, which says what is wrong). So an entry read writes back to the same bytes
    /// (`writeJournalPayload`; `JournalFastPathTests` holds the two to each other). The caller still checks the
    /// entry (`validationProblem`).
    static func readJournalPayload(_ bytes: UnsafeBufferPointer<UInt8>) -> LedgerEntry? {
        var r = CanonicalReader(bytes)
        guard r.take("{") else { return nil }
        var id: String?
        var kind: EntryKind?
        var amount: Int64?
        var at: Timestamp?
        var device: String?
        var payload: String?
        var e = LedgerEntry(
            id: "", key: nil, kind: .adjustment, amount: 0, at: Timestamp(epochSeconds: 0, offsetSeconds: 0),
            device: "", payload: "")
        var last = -1
        if r.take("}") { return nil }
        repeat {
            guard let index = r.member(of: Self.journalMembers, after: last) else { return nil }
            last = index
            // Each member must give a value of its type (a wrong type, or null, gives none).
            switch Self.journalKeys[index] {
            case "allowance_seconds":
                guard let v = r.integer() else { return nil }
                e.allowance = v
            case "amount_seconds":
                guard let v = r.integer() else { return nil }
                amount = v
            case "at":
                // Only the one writing `rfc3339` gives (not `Z`, fractions or another separator).
                guard let text = r.plainString(), let v = Timestamp(rfc3339UTF8: text),
                    v.withRFC3339({ $0.elementsEqual(text) })
                else { return nil }
                at = v
            case "cap_seconds":
                guard let v = r.integer() else { return nil }
                e.cap = v
            case "contract_id":
                guard let v = r.string() else { return nil }
                e.contractID = v
            case "cut_seconds":
                guard let v = r.integer() else { return nil }
                e.cut = v
            case "device":
                guard let v = r.string() else { return nil }
                device = v
            case "forfeit":
                guard let v = r.bool() else { return nil }
                e.forfeit = v
            case "id":
                guard let v = r.string() else { return nil }
                id = v
            case "key":
                guard let v = r.string() else { return nil }
                e.key = v
            case "kind":
                guard let v = r.string().flatMap(EntryKind.init(rawValue:)) else { return nil }
                kind = v
            case "label":
                guard let v = r.string() else { return nil }
                e.label = v
            case "pass_id":
                guard let v = r.string() else { return nil }
                e.passID = v
            case "payload":
                guard let v = r.string() else { return nil }
                payload = v
            case "reason":
                guard let v = r.string() else { return nil }
                e.reason = v
            case "requested_seconds":
                guard let v = r.integer() else { return nil }
                e.requested = v
            case "reserve_seconds":
                guard let v = r.integer() else { return nil }
                e.reserve = v
            case "round_id":
                guard let v = r.string() else { return nil }
                e.roundID = v
            default:
                guard let v = r.integer() else { return nil }
                e.used = v  // "used_seconds", the last key
            }
        } while r.take(",")
        guard r.take("}"), r.atEnd, let id, let kind, let amount, let at, let device, let payload else { return nil }
        e.id = id
        e.kind = kind
        e.amount = amount
        e.at = at
        e.device = device
        e.payload = payload
        return e
    }

    /// The members of an entry's payload, in UTF-8 order (the canonical order).
    static let journalKeys = [
        "allowance_seconds", "amount_seconds", "at", "cap_seconds", "contract_id", "cut_seconds", "device", "forfeit",
        "id", "key", "kind", "label", "pass_id", "payload", "reason", "requested_seconds", "reserve_seconds",
        "round_id", "used_seconds",
    ]

    /// `journalKeys` as the bytes that open each member: `"name":`.
    static let journalMembers = journalKeys.map { Array("\"\($0)\":".utf8) }
}
