import Testing

@testable import HumCore

/// Lines, their chain, and reading a journal up to its first damage.
@Suite struct JournalTests {
    static let t0: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    static func entry(_ id: String, _ kind: EntryKind, _ amount: Int64, device: String, at ms: Int64) -> LedgerEntry {
        var e = LedgerEntry(
            id: id, key: nil, kind: kind, amount: amount, at: Timestamp(epochSeconds: ms / 1000, offsetSeconds: 3600),
            device: device, payload: "\(kind.rawValue) \(amount)")
        switch kind {
        case .spend: e.label = "game"
        case .adjustment: e.reason = "test"
        default: break
        }
        return e
    }

    /// A journal of `count` lines of `device`: adjustments, a saved mix, a setting.
    static func journal(_ device: String, count: Int) throws -> (bytes: [UInt8], lines: [JournalLine]) {
        var writer = JournalWriter(device: device)
        var lines: [JournalLine] = []
        for i in 1...count {
            let event: JournalEvent
            switch i % 3 {
            case 0: event = .mixSaved(name: "m\(i)", mix: Mix(tracks: [.init(sound: "rain", volume: 33.5)], master: 80))
            case 1: event = .entry(entry("\(device)-\(i)", .adjustment, 60 * Int64(i), device: device, at: t0))
            default: event = .setting(key: SettingCatalog.focusLength, value: "50m")
            }
            lines.append(try writer.append(event, wallMs: t0 + Int64(i) * 1000))
        }
        return (lines.flatMap(\.fileBytes), lines)
    }

    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    static func join(_ lines: [[UInt8]]) -> [UInt8] { lines.flatMap { $0 + [0x0A] } }

    @Test func aLineIsCanonicalSelfDescribingAndReadsBackAsWritten() throws {
        let (bytes, lines) = try Self.journal("dev-a", count: 3)
        let text = String(decoding: Self.split(bytes)[0], as: UTF8.self)
        #expect(text.hasPrefix("{\"device\":\"dev-a\",\"event\":{"))
        #expect(text.contains("\"format\":\"hum.journal\""))
        #expect(text.contains("\"prev\":\"\(JournalLine.genesis)\""))
        #expect(text.contains("\"v\":1}"))
        #expect(!text.contains("\": ") && !text.contains(", \""))
        // Volumes that are whole are integers; 33.5 keeps its fraction.
        #expect(String(decoding: Self.split(bytes)[2], as: UTF8.self).contains("\"volume\":33.5"))
        let read = JournalReader.read(bytes, device: "dev-a")
        #expect(read.damage == nil)
        #expect(read.lines == lines)
        #expect(read.cursor.offset == bytes.count && read.cursor.lastSeq == 3)
        #expect(lines[1].prev == lines[0].hash && lines[2].prev == lines[1].hash)
    }

    @Test func readingGoesOnFromTheCursorWithOnlyNewLines() throws {
        let (bytes, lines) = try Self.journal("dev-a", count: 6)
        let firstFour = Array(bytes[0..<(lines[0...3].reduce(0) { $0 + $1.bytes.count + 1 })])
        let first = JournalReader.read(firstFour, device: "dev-a")
        #expect(first.lines.count == 4 && first.damage == nil)
        let next = JournalReader.read(bytes, device: "dev-a", from: first.cursor)
        #expect(next.lines.map(\.seq) == [5, 6] && next.damage == nil)
        #expect(JournalReader.read(bytes, device: "dev-a", from: next.cursor).lines.isEmpty)
    }

    @Test func aTruncatedLastLineIsPendingAndReadOnceComplete() throws {
        let (bytes, _) = try Self.journal("dev-a", count: 5)
        let cut = Array(bytes.dropLast(12))
        let read = JournalReader.read(cut, device: "dev-a")
        #expect(read.lines.map(\.seq) == [1, 2, 3, 4])
        #expect(read.damage?.kind == .partialLine && read.damage?.isPending == true)
        let healed = JournalReader.read(bytes, device: "dev-a", from: read.cursor)
        #expect(healed.lines.map(\.seq) == [5] && healed.damage == nil)
    }

    @Test func aReorderedLineStopsTheReadAtIt() throws {
        var lines = Self.split(try Self.journal("dev-a", count: 6).bytes)
        lines.swapAt(2, 3)
        let read = JournalReader.read(Self.join(lines), device: "dev-a")
        #expect(read.lines.map(\.seq) == [1, 2])
        #expect(read.damage?.kind == .reordered(expected: 3, found: 4))
        lines.remove(at: 3)  // line 3 gone for good
        #expect(JournalReader.read(Self.join(lines), device: "dev-a").damage?.kind == .gap(expected: 3, found: 4))
    }

    @Test func aDuplicatedLineIsARepeat() throws {
        var lines = Self.split(try Self.journal("dev-a", count: 4).bytes)
        lines.insert(lines[1], at: 2)
        let read = JournalReader.read(Self.join(lines), device: "dev-a")
        #expect(read.lines.map(\.seq) == [1, 2] && read.damage?.kind == .repeated(expected: 3, found: 2))
    }

    @Test func aLineEditedByHandIsCaughtAtItself() throws {
        var lines = Self.split(try Self.journal("dev-a", count: 5).bytes)
        var text = String(decoding: lines[3], as: UTF8.self)  // line 4: an adjustment of 240 s
        text = text.replacing("\"amount_seconds\":240", with: "\"amount_seconds\":24000")
        lines[3] = Array(text.utf8)
        let read = JournalReader.read(Self.join(lines), device: "dev-a")
        #expect(read.lines.map(\.seq) == [1, 2, 3] && read.damage?.kind == .hashMismatch)
        // Spaces added: still JSON, not as hum writes it.
        lines[3] = Array(String(decoding: lines[3], as: UTF8.self).replacing(",", with: ", ").utf8)
        #expect(JournalReader.read(Self.join(lines), device: "dev-a").damage?.kind == .notCanonical)
    }

    @Test func aForgedLineWithItsOwnHashBreaksTheChainAndNeitherSideIsMerged() throws {
        let (bytes, lines) = try Self.journal("dev-a", count: 5)
        let forged = try JournalLine(
            device: "dev-a", seq: 3, time: lines[2].time, prev: lines[1].hash,
            event: .entry(Self.entry("forged", .adjustment, 36_000, device: "dev-a", at: Self.t0)))
        var raw = Self.split(bytes)
        raw[2] = forged.bytes
        let read = JournalReader.read(Self.join(raw), device: "dev-a")
        #expect(read.damage?.kind == .brokenChain(seq: 4))
        #expect(read.lines.map(\.seq) == [1, 2])  // the forged line 3 is withheld too
        #expect(read.cursor.lastSeq == 2 && read.cursor.lastHash == lines[1].hash)
        let plan = SyncMerge.plan(known: SyncKnown(), journals: ["dev-a": read])
        #expect(!plan.entries.contains { $0.id == "forged" } && plan.stopped["dev-a"] != nil)
    }

    @Test func lineOfAnotherDeviceOrAnUnknownVersionStopsTheRead() throws {
        let other = try Self.journal("dev-b", count: 1).bytes
        let mine = try Self.journal("dev-a", count: 2).bytes
        #expect(JournalReader.read(other + mine, device: "dev-a").damage?.kind == .otherDevice("dev-b"))
        var text = String(decoding: Self.split(mine)[1], as: UTF8.self)
        text = text.replacing("\"v\":1}", with: "\"v\":2}")
        let read = JournalReader.read(Self.join([Self.split(mine)[0], Array(text.utf8)]), device: "dev-a")
        #expect(read.lines.count == 1 && read.damage?.kind == .unknownVersion("2"))
    }

    /// Two databases writing as one device (a copied database): the journal read later says something else at a
    /// line already merged.
    @Test func aJournalFromAClonedDatabaseIsAFork() throws {
        var original = JournalWriter(device: "dev-a")
        var lines: [JournalLine] = []
        for i in 1...3 {
            lines.append(try original.append(.mixRemoved(name: "m\(i)"), wallMs: Self.t0 + Int64(i)))
        }
        var clone = original  // the copied database carries on from the same last line
        let first = lines + [try original.append(.mixRemoved(name: "original"), wallMs: Self.t0 + 10)]
        let second = lines + [try clone.append(.mixRemoved(name: "clone"), wallMs: Self.t0 + 11)]
        #expect(JournalReader.fork(between: first, and: second) == 4)
        #expect(JournalReader.fork(between: first, and: lines) == nil)
        let merged = JournalReader.read(first.flatMap(\.fileBytes), device: "dev-a")
        let later = JournalReader.read(second.flatMap(\.fileBytes), device: "dev-a", from: merged.cursor)
        #expect(later.damage?.kind == .forked(seq: 4) && later.lines.isEmpty)
        #expect(later.cursor == merged.cursor)
        // A journal restored from an older copy.
        let old = JournalReader.read(lines.flatMap(\.fileBytes), device: "dev-a", from: merged.cursor)
        #expect(old.damage?.kind == .shrunk(merged: 4, found: 3))
    }

    @Test func aLinesClockMustGoForward() throws {
        var writer = JournalWriter(device: "dev-a")
        let a = try writer.append(.mixRemoved(name: "a"), wallMs: Self.t0)
        let b = try JournalLine(
            device: "dev-a", seq: 2, time: HybridTime(physicalMs: Self.t0 - 5, logical: 0, device: "dev-a"),
            prev: a.hash, event: .mixRemoved(name: "b"))
        let read = JournalReader.read(a.fileBytes + b.fileBytes, device: "dev-a")
        #expect(read.lines.count == 1 && read.damage?.kind == .clockBackwards(seq: 2))
    }

    @Test func everyKindOfEventRoundTrips() throws {
        var writer = JournalWriter(device: "d")
        let at = Timestamp(epochSeconds: Self.t0 / 1000, offsetSeconds: -14_400)
        var grant = Self.entry("g", .grant, 500, device: "d", at: Self.t0)
        grant.roundID = "r1"
        grant.requested = 500
        grant.cut = 0
        grant.cap = 10_800
        grant.key = "round:r1"
        let round = RoundRecord(
            id: "r1", kind: .focus, status: .completed, start: at,
            end: Timestamp(epochSeconds: at.epochSeconds + 1500, offsetSeconds: -14_400),
            plannedSeconds: 1500, activeSeconds: 1500, pausedSeconds: 0, mix: [MixItem(sound: "rain", volume: 0.6)],
            goal: "chapter \"3\"\n", tags: ["writing", "é"], earnedSeconds: 500)
        let events: [JournalEvent] = [
            .round(round), .entry(grant),
            .mixSaved(name: "night", mix: Mix(tracks: [.init(sound: "brown", volume: 50, muted: true)])),
            .mixRemoved(name: "night"), .played(mix: [MixToken(name: "rain", volume: 75)], at: at),
            .setting(
                key: SettingCatalog.earnDailyCap, value: try SettingCatalog.normalise(SettingCatalog.earnDailyCap, "2h")
            ),
            .setting(key: SettingCatalog.focusLength, value: nil),
            .hoursLogged(
                HourLogRecord(
                    id: "h1", day: at.localDate, verdict: .productive, seconds: 3600, source: "command", at: at)),
        ]
        let lines = try events.map { try writer.append($0, wallMs: Self.t0) }
        let read = JournalReader.read(lines.flatMap(\.fileBytes), device: "d")
        #expect(read.damage == nil)
        #expect(read.lines.map(\.event) == events)
        #expect(
            read.lines.map { $0.event.kind.rawValue } == [
                "round", "grant", "mix.save", "mix.remove", "mix.play", "setting.set", "setting.unset", "hours.log",
            ])
    }

    @Test func settingsThatStayOnTheirMachineAreNotRead() throws {
        #expect(!SyncSettings.travels(SettingCatalog.playDevice))
        #expect(!SyncSettings.travels(SettingCatalog.focusOnEvent))
        #expect(!SyncSettings.travels(SettingCatalog.reviewCommand))
        #expect(SyncSettings.travels(SettingCatalog.earnRatio) && SyncSettings.travels("profile.deep"))
        let line = try JournalLine(
            device: "d", seq: 1, time: HybridTime(physicalMs: 1, logical: 0, device: "d"), prev: JournalLine.genesis,
            event: .setting(key: SettingCatalog.focusOnEvent, value: "rm -rf ~"))
        let read = JournalReader.read(line.fileBytes, device: "d")
        #expect(read.lines.isEmpty)
        guard case .malformed = read.damage?.kind else {
            Issue.record("expected malformed, got \(String(describing: read.damage))")
            return
        }
    }

    @Test func theParserIsStrict() throws {
        for bad in [
            "{\"a\":1,\"a\":2}", "[1,]", "01", "{\"a\":1} x", "\"\\ud800\"", "1e", "-", "{\"a\" 1}",
            "[" + String(repeating: "[", count: 70) + String(repeating: "]", count: 71), "99999999999999999999",
        ] {
            #expect(throws: JournalJSONError.self, "\(bad)") { try JournalJSONParser.parse(Array(bad.utf8)) }
        }
        let parsed = try JournalJSONParser.parse(Array("{\"b\":[1,-2,3.5e1,\"\\u00e9\\n\"],\"a\":null}".utf8))
        #expect(parsed.canonicalText == "{\"a\":null,\"b\":[1,-2,3.5e1,\"é\\n\"]}")
    }
}
