import Testing

@testable import HumCore

/// One device of the simulation: its journal, what it merged, its writer, and what it knew at its last spend.
struct SimDevice {
    let name: String
    var writer: JournalWriter
    var journal: [UInt8] = []
    var known = SyncKnown()
    var entries: [LedgerEntry] = []
    var rounds: [String: RoundRecord] = [:]
    var mixes: [String: SyncRegister<Mix>] = [:]
    var settings: [String: SyncRegister<String>] = [:]
    var plays: [PlayedMix] = []
    /// The recents as the store keeps them: the ten newest plays, each mix once, and nothing older.
    var recents: [PlayedMix] = []
    var contracts: [String: (record: ContractRecord, time: HybridTime)] = [:]
    var hours: [String: HourLogRecord] = [:]
    var skewMs: Int64
    /// Ids known when this device last took time, and that entry's id.
    var viewAtLastSpend: Set<String>? = nil
    var lastSpendID: String? = nil

    init(name: String, skewMs: Int64) {
        self.name = name
        self.skewMs = skewMs
        writer = JournalWriter(device: name)
    }

    mutating func write(_ event: JournalEvent, wallMs: Int64) throws {
        let line = try writer.append(event, wallMs: wallMs + skewMs)
        journal += line.fileBytes
        known.cursors[name] = JournalCursor(
            offset: journal.count, lastSeq: line.seq, lastHash: line.hash, lastTime: line.time)
        apply(line.event, time: line.time)
    }

    mutating func apply(_ event: JournalEvent, time: HybridTime) {
        switch event {
        case .entry(let e):
            entries.append(e)
            known.addEntry(e)
        case .round(let r):
            rounds[r.id] = r
            known.rounds.insert(r.id)
        case .contract(let c):
            if SyncMerge.contractReplaces(
                paid: c.status.granted, time: time, herePaid: known.paidContracts.contains(c.id),
                hereTime: known.contracts[c.id])
            {
                setContract(c, time)
            }
        case .mixSaved(let name, let mix): setMix(name, SyncRegister(value: mix, time: time))
        case .mixRemoved(let name): setMix(name, SyncRegister(value: nil, time: time))
        case .played(let mix, let at):
            plays.append(PlayedMix(mix: mix, at: at, time: time))
            recents = SyncRecents.newest(recents + [PlayedMix(mix: mix, at: at, time: time)])
            known.recents = recents
        case .hoursLogged(let h):
            hours[h.id] = h
            known.hours.insert(h.id)
        case .setting(let key, let value):
            if settings[key].map({ $0.time < time }) ?? true {
                settings[key] = SyncRegister(value: value, time: time)
                known.settings[key] = time
            }
        }
    }

    mutating func setContract(_ c: ContractRecord, _ time: HybridTime) {
        contracts[c.id] = (c, time)
        known.contracts[c.id] = time
        if c.status.granted { known.paidContracts.insert(c.id) } else { known.paidContracts.remove(c.id) }
    }

    mutating func setMix(_ name: String, _ r: SyncRegister<Mix>) {
        if mixes[name].map({ $0.time < r.time }) ?? true {
            mixes[name] = r
            known.mixes[name] = r.time
        }
    }

    /// Merges what `read` gave of other devices' journals, as the store will: the plan, applied whole.
    mutating func merge(_ reads: [String: JournalRead], wallMs: Int64) {
        let plan = SyncMerge.plan(known: known, journals: reads)
        for e in plan.entries {
            entries.append(e)
            known.addEntry(e)
        }
        for r in plan.rounds {
            rounds[r.id] = r
            known.rounds.insert(r.id)
        }
        for (name, r) in plan.mixes { setMix(name, r) }
        for (key, r) in plan.settings where settings[key].map({ $0.time < r.time }) ?? true {
            settings[key] = r
            known.settings[key] = r.time
        }
        plays += plan.played
        // As the store: the plan's recents replace those here, its contracts replace those here.
        if let r = plan.recents {
            recents = r
            known.recents = r
        }
        for (c, time) in plan.contracts { setContract(c, time) }
        for h in plan.hours {
            #expect(hours[h.id] == nil, "an hour merged twice")
            hours[h.id] = h
            known.hours.insert(h.id)
        }
        for (device, cursor) in plan.cursors { known.cursors[device] = cursor }
        if let latest = plan.latest { writer.receive(latest, wallMs: wallMs + skewMs) }
    }

    /// A ledger request decided on what this device knows, written when the rules accept it.
    mutating func request(_ r: LedgerRequest, wallMs: Int64, mode: SyncSpending, id: String) throws -> LedgerEntry? {
        let now = Timestamp(epochSeconds: (wallMs + skewMs) / 1000, offsetSeconds: 0)
        do {
            try SyncLedger.checkSpending(r, entries: entries, device: name, mode: mode)
            let decision = try LedgerRules.decide(
                r, snapshot: SyncLedger.snapshot(entries, for: r, now: now), config: LedgerConfig(), now: now,
                newID: id, device: name)
            guard case .record(let e) = decision else { return nil }
            if SyncLedger.takes(r) > 0 {
                viewAtLastSpend = Set(entries.map(\.id))
                lastSpendID = e.id
            }
            try write(.entry(e), wallMs: wallMs)
            return e
        } catch is LedgerRefusal {
            return nil
        }
    }

    var mixValues: [String: Mix] { mixes.compactMapValues(\.value) }
    var contractValues: [String: ContractRecord] { contracts.mapValues(\.record) }
    var settingValues: [String: String] { settings.compactMapValues(\.value) }
}

@Suite struct SyncMergeTests {
    static let t0: Int64 = 1_767_225_600_000

    /// Three devices, one with its clock a day behind, one an hour ahead, do random things and sync random parts of
    /// each other's journals (half-copied files, the same file twice, in any order); then everything is exchanged.
    static func simulate(seed: UInt64, steps: Int, mode: SyncSpending) throws -> [SimDevice] {
        var rng = SplitMix64(seed: seed)
        var devices = [
            SimDevice(name: "dev-a", skewMs: 0), SimDevice(name: "dev-b", skewMs: -86_400_000),
            SimDevice(name: "dev-c", skewMs: 3_600_000),
        ]
        var wall = t0
        var serial = 0
        func next() -> String {
            serial += 1
            return "id-\(seed)-\(serial)"
        }
        let mixNames = ["night", "rain", "deep"]
        for _ in 0..<steps {
            wall += Int64.random(in: 1...600_000, using: &rng)
            let d = Int.random(in: 0..<3, using: &rng)
            switch Int.random(in: 0..<12, using: &rng) {
            case 0, 1:
                let active = Int64.random(in: 60...3000, using: &rng)
                let id = next()
                let start = Timestamp(epochSeconds: (wall + devices[d].skewMs) / 1000 - active, offsetSeconds: 0)
                if let grant = try devices[d].request(
                    .grant(roundID: id, activeSeconds: active), wallMs: wall, mode: mode, id: next())
                {
                    let round = RoundRecord(
                        id: id, kind: .focus, status: .completed, start: start,
                        end: Timestamp(epochSeconds: start.epochSeconds + active, offsetSeconds: 0),
                        plannedSeconds: active,
                        activeSeconds: active, pausedSeconds: 0, earnedSeconds: grant.amount)
                    try devices[d].write(.round(round), wallMs: wall)
                }
            case 2:
                _ = try devices[d].request(
                    .spend(seconds: Int64.random(in: 60...900, using: &rng), label: "game", key: nil), wallMs: wall,
                    mode: mode, id: next())
            case 3:
                let pass = next()
                let held = Int64.random(in: 60...900, using: &rng)
                if try devices[d].request(
                    .openPass(passID: pass, seconds: held, label: nil, forfeit: false), wallMs: wall, mode: mode,
                    id: next()) != nil
                {
                    _ = try devices[d].request(
                        .settlePass(passID: pass, usedSeconds: Int64.random(in: 0...held, using: &rng)),
                        wallMs: wall + 1000,
                        mode: mode, id: next())
                }
            case 4:
                _ = try devices[d].request(
                    .emergency(seconds: 60, reason: "call", key: nil), wallMs: wall, mode: mode, id: next())
                let at = Timestamp(epochSeconds: (wall + devices[d].skewMs) / 1000, offsetSeconds: 0)
                try devices[d].write(
                    .hoursLogged(
                        HourLogRecord(
                            id: next(), day: at.localDate, verdict: .distracting, seconds: 1800, source: "nudge", at: at
                        )),
                    wallMs: wall)
            case 5:
                let name = mixNames[Int.random(in: 0..<3, using: &rng)]
                if Bool.random(using: &rng) {
                    try devices[d].write(
                        .mixSaved(
                            name: name,
                            mix: Mix(tracks: [
                                .init(sound: "rain", volume: Double(Int.random(in: 0...100, using: &rng)))
                            ])),
                        wallMs: wall)
                } else {
                    try devices[d].write(.mixRemoved(name: name), wallMs: wall)
                }
            case 6:
                // Eighteen mixes: more than the recents hold, so the oldest are dropped.
                let mix = [
                    MixToken(
                        name: mixNames[Int.random(in: 0..<3, using: &rng)],
                        volume: Double(Int.random(in: 0..<6, using: &rng) * 10))
                ]
                try devices[d].write(
                    .played(mix: mix, at: Timestamp(epochSeconds: wall / 1000, offsetSeconds: 0)), wallMs: wall)
            case 7:
                let value = ["25m", "50m", nil][Int.random(in: 0..<3, using: &rng)]
                try devices[d].write(
                    .setting(
                        key: SettingCatalog.focusLength,
                        value: try value.map { try SettingCatalog.normalise(SettingCatalog.focusLength, $0) }),
                    wallMs: wall)
            case 8:
                // A contract made here: written running, then its rounds end and it waits for its review.
                let made = Timestamp(epochSeconds: (wall + devices[d].skewMs) / 1000, offsetSeconds: 0)
                var c = ContractRecord(
                    id: next(), goal: "write the chapter", doneWhen: ["ten pages"], firstStep: nil, watch: [],
                    strict: false,
                    status: .running, createdAt: made, ratioMilli: 1000, rounds: 1, focusSeconds: 1500,
                    device: devices[d].name)
                try devices[d].write(.contract(c), wallMs: wall)
                c.status = .completed
                c.endedAt = Timestamp(epochSeconds: made.epochSeconds + 1500, offsetSeconds: 0)
                try devices[d].write(.contract(c), wallMs: wall + 1)
            case 9:
                // A change to a contract this device knows, made on any device: a review (the one that made it may
                // approve it and be paid, key `contract:<id>`), or giving up one that was rejected.
                let ids = devices[d].contracts.keys.sorted()
                guard !ids.isEmpty else { continue }
                var c = devices[d].contracts[ids[Int.random(in: 0..<ids.count, using: &rng)]]!.record
                let at = Timestamp(epochSeconds: (wall + devices[d].skewMs) / 1000, offsetSeconds: 0)
                if c.status == .completed {
                    let approve = c.device == devices[d].name && Bool.random(using: &rng)
                    var grant: LedgerEntry? = nil
                    if approve {
                        grant = try devices[d].request(
                            .grantContract(contractID: c.id, activeSeconds: 1500, ratioMilli: 1000), wallMs: wall,
                            mode: mode, id: next())
                        guard grant != nil else { continue }
                    }
                    c.attempts += 1
                    c.reviews.append(
                        ContractReviewRecord(
                            attempt: c.attempts, at: at, reviewer: devices[d].name, proof: ContractProof(), checks: [],
                            cannotCheck: [],
                            decision: approve
                                ? ReviewDecision(status: .approved, confidence: 0.9, reason: "done")
                                : ReviewDecision(
                                    status: .needsMore, confidence: 0.4, reason: "not yet", question: "which file?")))
                    if let grant {
                        c.status = .approved
                        c.rewardSeconds = grant.amount
                        c.rewardEntryID = grant.id
                    } else if c.attempts >= ContractRules.attempts {
                        c.status = .rejected
                    }
                } else if c.status == .rejected {
                    c.status = .abandoned
                    c.events.append(ContractEvent(at: at, kind: "abandoned", detail: ""))
                } else {
                    continue
                }
                try devices[d].write(.contract(c), wallMs: wall)
            default:
                // d reads another device's journal as the sync tool left it: maybe cut mid-line, maybe twice.
                let o = (d + Int.random(in: 1...2, using: &rng)) % 3
                // (A sync tool replaces a file whole, so a copy is never shorter than one read before.)
                let source = devices[o].journal
                let cursor = devices[d].known.cursors[devices[o].name] ?? .start
                let cut =
                    Bool.random(using: &rng) ? Int.random(in: cursor.offset...source.count, using: &rng) : source.count
                let bytes = Array(source[0..<cut])
                let read = JournalReader.read(bytes, device: devices[o].name, from: cursor)
                #expect(read.damage == nil || read.damage?.isPending == true, "\(String(describing: read.damage))")
                devices[d].merge([devices[o].name: read], wallMs: wall)
                if Bool.random(using: &rng) { devices[d].merge([devices[o].name: read], wallMs: wall) }  // twice
            }
        }
        // Everything is exchanged, in a random order, some of it twice.
        for _ in 0..<2 {
            for d in [0, 1, 2].shuffled(using: &rng) {
                var reads: [String: JournalRead] = [:]
                for o in 0..<3 where o != d {
                    reads[devices[o].name] = JournalReader.read(
                        devices[o].journal, device: devices[o].name,
                        from: devices[d].known.cursors[devices[o].name] ?? .start)
                }
                devices[d].merge(reads, wallMs: wall)
            }
        }
        return devices
    }

    /// The single-machine result: every line of every journal, applied in hybrid-time order on one fresh device.
    static func singleMachine(_ devices: [SimDevice]) -> SimDevice {
        var one = SimDevice(name: "single", skewMs: 0)
        let lines = devices.flatMap { JournalReader.read($0.journal, device: $0.name).lines }.sorted {
            $0.time < $1.time
        }
        for line in lines { one.apply(line.event, time: line.time) }
        return one
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func everyDeviceConvergesToTheSingleMachineResult(seed: UInt64) throws {
        let devices = try Self.simulate(seed: seed, steps: 150, mode: .lenient)
        let one = Self.singleMachine(devices)
        for d in devices {
            #expect(Set(d.entries.map(\.id)) == Set(one.entries.map(\.id)), "seed \(seed) \(d.name)")
            #expect(d.entries.count == one.entries.count, "seed \(seed) \(d.name): an entry applied twice")
            #expect(SyncLedger.balance(d.entries) == SyncLedger.balance(one.entries), "seed \(seed) \(d.name)")
            #expect(d.rounds == one.rounds, "seed \(seed) \(d.name)")
            #expect(d.hours == one.hours, "seed \(seed) \(d.name)")
            #expect(d.mixValues == one.mixValues, "seed \(seed) \(d.name)")
            #expect(d.settingValues == one.settingValues, "seed \(seed) \(d.name)")
            #expect(d.recents == SyncRecents.newest(one.plays), "seed \(seed) \(d.name)")
            #expect(d.recents.count <= SyncRecents.count)
            #expect(d.contractValues == one.contractValues, "seed \(seed) \(d.name)")
            // The ledger's rules hold: a paid contract says which grant paid it, that grant is here, and it is the
            // only grant of its key.
            for (id, c) in d.contractValues where c.status.granted {
                let grants = d.entries.filter { $0.key == "contract:" + id }
                #expect(grants.map(\.id) == [c.rewardEntryID], "seed \(seed) \(d.name) contract \(id)")
                #expect(c.validationProblem() == nil)
            }
        }
        #expect(
            one.entries.count > 20 && !one.mixes.isEmpty && !one.hours.isEmpty,
            "the simulation did too little to test anything")
        // The bank is the sum over devices.
        #expect(SyncLedger.perDevice(one.entries).values.reduce(0, +) == SyncLedger.balance(one.entries))
    }

    /// The convergence test is tested only if its seeds, together, play more mixes than the recents hold and change
    /// contracts on other devices than the one that made them, paid and not.
    @Test func theConvergenceSeedsPlayAndReviewEnough() throws {
        var manyPlays = false
        var paid = false
        var unpaidReviewed = false
        var reviewedElsewhere = false
        for seed in [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64] {
            let devices = try Self.simulate(seed: seed, steps: 150, mode: .lenient)
            let one = Self.singleMachine(devices)
            manyPlays = manyPlays || Set(one.plays.map { MixSpec.format($0.mix) }).count > SyncRecents.count
            let reviewed = one.contractValues.values.filter { !$0.reviews.isEmpty }
            paid = paid || reviewed.contains { $0.status.granted }
            unpaidReviewed = unpaidReviewed || reviewed.contains { !$0.status.granted }
            reviewedElsewhere =
                reviewedElsewhere || reviewed.contains { c in c.reviews.contains { $0.reviewer != c.device } }
        }
        #expect(manyPlays, "no seed plays more mixes than the recents hold")
        #expect(paid && unpaidReviewed, "no seed pays a contract, or none reviews one without paying it")
        #expect(reviewedElsewhere, "no seed reviews a contract on another device than the one that made it")
    }

    /// The documented bound: the debt is at most what the other devices spent that a device had not seen when it
    /// last spent.
    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func theOverdraftStaysWithinItsBound(seed: UInt64) throws {
        let devices = try Self.simulate(seed: seed, steps: 200, mode: .lenient)
        let merged = devices[0].entries
        let balance = SyncLedger.balance(merged)
        for d in devices {
            guard let view = d.viewAtLastSpend, let own = d.lastSpendID else { continue }
            let unseen = merged.filter { $0.device != d.name && !view.contains($0.id) && $0.id != own && $0.amount < 0 }
            let bound = unseen.reduce(Int64(0)) { $0 - $1.amount }
            #expect(balance >= -bound, "seed \(seed): balance \(balance), bound from \(d.name) \(bound)")
        }
    }

    /// The bound above is tested only if the simulation spends what another device had not seen: over its seeds,
    /// some device spends past what it saw, so the bound has something to hold.
    @Test func theBoundsSeedsSpendUnseenMinutes() throws {
        var unseenSpends = 0
        for seed in [11, 12, 13, 14, 15, 16] as [UInt64] {
            let devices = try Self.simulate(seed: seed, steps: 200, mode: .lenient)
            let merged = devices[0].entries
            for d in devices {
                guard let view = d.viewAtLastSpend, let own = d.lastSpendID else { continue }
                unseenSpends +=
                    merged.filter {
                        $0.device != d.name && !view.contains($0.id) && $0.id != own && $0.amount < 0
                    }.count
            }
        }
        #expect(unseenSpends > 0, "no seed spends minutes another device had not seen: the bound test tests nothing")
    }

    @Test(arguments: [21, 22, 23, 24, 25] as [UInt64])
    func strictSpendingNeverOverdraws(seed: UInt64) throws {
        let devices = try Self.simulate(seed: seed, steps: 200, mode: .strict)
        #expect(SyncLedger.balance(devices[0].entries) >= 0)
        for (_, own) in SyncLedger.perDevice(devices[0].entries) { #expect(own >= 0) }
    }

    /// Two devices offline spend the same banked minutes: the merge shows the debt, bounded, on both.
    @Test func concurrentOfflineSpendingBecomesDebtOnBoth() throws {
        var a = SimDevice(name: "dev-a", skewMs: 0)
        var b = SimDevice(name: "dev-b", skewMs: 0)
        _ = try a.request(.adjust(seconds: 600, reason: "seed", key: nil), wallMs: Self.t0, mode: .lenient, id: "e1")
        b.merge(["dev-a": JournalReader.read(a.journal, device: "dev-a")], wallMs: Self.t0)
        #expect(
            try a.request(.spend(seconds: 500, label: "x", key: nil), wallMs: Self.t0 + 1, mode: .lenient, id: "e2")
                != nil)
        #expect(
            try b.request(.spend(seconds: 400, label: "y", key: nil), wallMs: Self.t0 + 2, mode: .lenient, id: "e3")
                != nil)
        a.merge(
            ["dev-b": JournalReader.read(b.journal, device: "dev-b", from: a.known.cursors["dev-b"] ?? .start)],
            wallMs: Self.t0 + 3)
        b.merge(
            ["dev-a": JournalReader.read(a.journal, device: "dev-a", from: b.known.cursors["dev-a"]!)],
            wallMs: Self.t0 + 3)
        #expect(SyncLedger.balance(a.entries) == -300 && SyncLedger.balance(b.entries) == -300)
        // Spending is blocked in debt; the next earnings repay it.
        #expect(
            try a.request(.spend(seconds: 60, label: "z", key: nil), wallMs: Self.t0 + 4, mode: .lenient, id: "e4")
                == nil)
        _ = try a.request(.grant(roundID: "r", activeSeconds: 1500), wallMs: Self.t0 + 5, mode: .lenient, id: "e5")
        #expect(SyncLedger.balance(a.entries) == 200)
        // Strict: b could only spend what it earned itself (nothing).
        var c = SimDevice(name: "dev-c", skewMs: 0)
        c.merge(["dev-a": JournalReader.read(a.journal, device: "dev-a")], wallMs: Self.t0 + 6)
        #expect(
            try c.request(.spend(seconds: 60, label: "y", key: nil), wallMs: Self.t0 + 7, mode: .strict, id: "e6")
                == nil)
        #expect(
            try c.request(.spend(seconds: 60, label: "y", key: nil), wallMs: Self.t0 + 7, mode: .lenient, id: "e7")
                != nil)
    }

    /// The cap holds across devices for a grant decided after a merge; concurrent offline earnings are reported.
    @Test func theDailyCapCountsEveryDevicesGrants() throws {
        var a = SimDevice(name: "dev-a", skewMs: 0)
        var b = SimDevice(name: "dev-b", skewMs: 0)
        let cap = LedgerConfig().dailyCapSeconds
        let active = cap * 3  // at ratio 3, exactly one cap
        _ = try a.request(.grant(roundID: "r1", activeSeconds: active), wallMs: Self.t0, mode: .lenient, id: "g1")
        b.merge(["dev-a": JournalReader.read(a.journal, device: "dev-a")], wallMs: Self.t0)
        let late = try b.request(
            .grant(roundID: "r2", activeSeconds: 1500), wallMs: Self.t0 + 1000, mode: .lenient, id: "g2")
        #expect(late?.amount == 0 && late?.cut == 500)
        var c = SimDevice(name: "dev-c", skewMs: 0)
        _ = try c.request(.grant(roundID: "r3", activeSeconds: 1500), wallMs: Self.t0 + 2000, mode: .lenient, id: "g3")
        b.merge(["dev-c": JournalReader.read(c.journal, device: "dev-c")], wallMs: Self.t0 + 3000)
        #expect(SyncLedger.capOverflow(b.entries).values.first == 500)
    }

    /// A clock a day behind cannot make its newer edit lose, once it has seen the other device's edit.
    @Test func lastWriterWinsByHybridTimeNotByWallClock() throws {
        var ahead = SimDevice(name: "dev-a", skewMs: 86_400_000)
        var behind = SimDevice(name: "dev-b", skewMs: -86_400_000)
        try ahead.write(.mixSaved(name: "night", mix: Mix(tracks: [.init(sound: "rain", volume: 10)])), wallMs: Self.t0)
        behind.merge(["dev-a": JournalReader.read(ahead.journal, device: "dev-a")], wallMs: Self.t0 + 1)
        try behind.write(
            .mixSaved(name: "night", mix: Mix(tracks: [.init(sound: "brown", volume: 90)])), wallMs: Self.t0 + 2)
        ahead.merge(["dev-b": JournalReader.read(behind.journal, device: "dev-b")], wallMs: Self.t0 + 3)
        #expect(ahead.mixValues["night"]?.tracks.first?.sound == "brown")
        #expect(behind.mixValues["night"]?.tracks.first?.sound == "brown")
    }

    /// A user's key reused on another device for another request stops that device's merge at that line.
    @Test func aKeyTakenByAnotherPayloadStopsThatJournalOnly() throws {
        var a = SimDevice(name: "dev-a", skewMs: 0)
        var b = SimDevice(name: "dev-b", skewMs: 0)
        _ = try a.request(.adjust(seconds: 900, reason: "seed", key: "k1"), wallMs: Self.t0, mode: .lenient, id: "a1")
        _ = try b.request(.adjust(seconds: 300, reason: "other", key: "k1"), wallMs: Self.t0, mode: .lenient, id: "b1")
        try b.write(.mixRemoved(name: "x"), wallMs: Self.t0 + 1)
        let plan = SyncMerge.plan(known: a.known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")])
        #expect(plan.entries.isEmpty && plan.mixes.isEmpty && plan.stopped["dev-b"] != nil)
        #expect(plan.cursors["dev-b"] == nil)
    }

    static func contract(_ id: String, _ status: ContractStatus, device: String = "dev-b") -> ContractRecord {
        var c = ContractRecord(
            id: id, goal: "ship it", doneWhen: ["shipped"], firstStep: nil, watch: [], strict: false, status: status,
            createdAt: Timestamp(epochSeconds: t0 / 1000, offsetSeconds: 0), ratioMilli: 1000, rounds: 1,
            focusSeconds: 1500, device: device)
        if status != .running { c.endedAt = Timestamp(epochSeconds: t0 / 1000 + 1500, offsetSeconds: 0) }
        if status.granted {
            c.attempts = 1
            c.reviews = [
                ContractReviewRecord(
                    attempt: 1, at: c.endedAt!, reviewer: "local", proof: ContractProof(), checks: [], cannotCheck: [],
                    decision: ReviewDecision(status: .approved, confidence: 1, reason: "done"))
            ]
            c.rewardSeconds = 500
            c.rewardEntryID = "grant-" + id
        }
        return c
    }

    /// A contract changed on another device (a review) replaces the one here when it is newer by hybrid time, and
    /// only then; the same line twice changes nothing the second time.
    @Test func aContractChangedElsewhereReplacesTheOneHereWhenNewer() throws {
        var b = SimDevice(name: "dev-b", skewMs: 0)
        var reviewed = Self.contract("c1", .completed)
        reviewed.attempts = 1
        reviewed.reviews = [
            ContractReviewRecord(
                attempt: 1, at: reviewed.endedAt!, reviewer: "local", proof: ContractProof(), checks: [],
                cannotCheck: [],
                decision: ReviewDecision(status: .needsMore, confidence: 0.3, reason: "no", question: "?"))
        ]
        try b.write(.contract(Self.contract("c1", .completed)), wallMs: Self.t0)
        try b.write(.contract(reviewed), wallMs: Self.t0 + 10)
        let lines = JournalReader.read(b.journal, device: "dev-b").lines
        var known = SyncKnown()
        known.contracts["c1"] = HybridTime(physicalMs: Self.t0 + 5, logical: 0, device: "dev-a")
        let plan = SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")])
        #expect(plan.contracts.map(\.record) == [reviewed])
        #expect(plan.contracts.map(\.time) == [lines[1].time])
        // Here is newer than both: nothing replaces it.
        known.contracts["c1"] = HybridTime(physicalMs: Self.t0 + 20, logical: 0, device: "dev-a")
        #expect(
            SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")]).contracts
                .isEmpty)
        // Merged once, its cursor says so: the same journal again plans nothing.
        known.contracts["c1"] = lines[1].time
        known.cursors["dev-b"] = plan.cursors["dev-b"]
        #expect(
            SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")]).contracts
                .isEmpty)
    }

    /// A paid contract is final: a newer version that was not paid (a review made elsewhere before the approval
    /// was seen) never replaces it, and a paid version replaces a newer one that was not paid.
    @Test func aPaidContractIsNeverReplacedByOneNotPaid() throws {
        var b = SimDevice(name: "dev-b", skewMs: 0)
        try b.write(.contract(Self.contract("c1", .rejected)), wallMs: Self.t0 + 50)
        try b.write(.contract(Self.contract("c2", .approved)), wallMs: Self.t0 + 60)
        var known = SyncKnown()
        known.contracts["c1"] = HybridTime(physicalMs: Self.t0, logical: 0, device: "dev-a")
        known.paidContracts = ["c1"]
        known.contracts["c2"] = HybridTime(physicalMs: Self.t0 + 99, logical: 0, device: "dev-a")
        let plan = SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")])
        #expect(plan.contracts.map(\.record.id) == ["c2"])
        #expect(plan.cursors["dev-b"]?.lastSeq == 2, "a line not applied is still merged")
        let t = HybridTime(physicalMs: 5, logical: 0, device: "a")
        let later = HybridTime(physicalMs: 6, logical: 0, device: "a")
        #expect(SyncMerge.contractReplaces(paid: false, time: later, herePaid: false, hereTime: t))
        #expect(!SyncMerge.contractReplaces(paid: false, time: t, herePaid: false, hereTime: later))
        #expect(!SyncMerge.contractReplaces(paid: false, time: later, herePaid: true, hereTime: t))
        #expect(SyncMerge.contractReplaces(paid: true, time: t, herePaid: false, hereTime: later))
        #expect(!SyncMerge.contractReplaces(paid: true, time: t, herePaid: true, hereTime: later))
        #expect(!SyncMerge.contractReplaces(paid: true, time: later, herePaid: true, hereTime: t), "paid is final")
        #expect(SyncMerge.contractReplaces(paid: false, time: t, herePaid: false, hereTime: nil))
    }

    /// The recents after a merge: the ten newest of those here and those played elsewhere, each mix once; a play
    /// older than all ten here changes nothing.
    @Test func theRecentsAreTheTenNewestOfHereAndElsewhere() throws {
        func mix(_ v: Int) -> [MixToken] { [MixToken(name: "rain", volume: Double(v))] }
        let at = Timestamp(epochSeconds: Self.t0 / 1000, offsetSeconds: 0)
        var known = SyncKnown()
        known.recents = (0..<10).map {
            PlayedMix(
                mix: mix($0), at: at,
                time: HybridTime(physicalMs: Self.t0 + 1000 - Int64($0), logical: 0, device: "dev-a"))
        }
        var b = SimDevice(name: "dev-b", skewMs: 0)
        try b.write(.played(mix: mix(50), at: at), wallMs: Self.t0 - 5000)  // older than all ten
        let old = SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")])
        #expect(old.played.count == 1 && old.recents == nil)
        try b.write(.played(mix: mix(7), at: at), wallMs: Self.t0 + 2000)  // played again: moves up
        try b.write(.played(mix: mix(60), at: at), wallMs: Self.t0 + 3000)  // new, newest
        let plan = SyncMerge.plan(known: known, journals: ["dev-b": JournalReader.read(b.journal, device: "dev-b")])
        #expect(plan.recents?.map { Int($0.mix[0].volume) } == [60, 7, 0, 1, 2, 3, 4, 5, 6, 8])
        #expect(plan.recents?[0].time.device == "dev-b")
    }

    /// A contract paid on one device and reviewed later (by hybrid time) on another that had not seen the payment:
    /// every device keeps the paid version, with its one grant, whatever order the journals cross in.
    @Test func aReviewMadeBeforeThePaymentWasSeenDoesNotUndoIt() throws {
        var a = SimDevice(name: "dev-a", skewMs: 0)
        var b = SimDevice(name: "dev-b", skewMs: 3_600_000)  // an hour ahead: its review is the newer line
        let completed = Self.contract("c1", .completed, device: "dev-a")
        try a.write(.contract(completed), wallMs: Self.t0)
        b.merge(["dev-a": JournalReader.read(a.journal, device: "dev-a")], wallMs: Self.t0 + 1)
        let grant = try #require(
            try a.request(
                .grantContract(contractID: "c1", activeSeconds: 1500, ratioMilli: 1000), wallMs: Self.t0 + 2,
                mode: .lenient, id: "grant-c1"))
        var paid = Self.contract("c1", .approved, device: "dev-a")
        paid.rewardSeconds = grant.amount
        try a.write(.contract(paid), wallMs: Self.t0 + 3)
        var asked = completed
        asked.attempts = 1
        asked.reviews = [
            ContractReviewRecord(
                attempt: 1, at: completed.endedAt!, reviewer: "local", proof: ContractProof(), checks: [],
                cannotCheck: [],
                decision: ReviewDecision(status: .needsMore, confidence: 0.3, reason: "no", question: "?"))
        ]
        try b.write(.contract(asked), wallMs: Self.t0 + 4)
        #expect(b.contracts["c1"]!.time > a.contracts["c1"]!.time, "the unpaid review is the newer line")
        a.merge(
            ["dev-b": JournalReader.read(b.journal, device: "dev-b", from: a.known.cursors["dev-b"] ?? .start)],
            wallMs: Self.t0 + 5)
        b.merge(
            ["dev-a": JournalReader.read(a.journal, device: "dev-a", from: b.known.cursors["dev-a"]!)],
            wallMs: Self.t0 + 5)
        for d in [a, b] {
            #expect(d.contracts["c1"]?.record == paid, "\(d.name)")
            #expect(d.entries.filter { $0.key == "contract:c1" }.map(\.id) == ["grant-c1"], "\(d.name)")
        }
    }

    /// Two devices approving the same contract offline: neither is paid twice. Both grants have the key
    /// `contract:<id>`: the same decision is the entry already here (counted once, each device keeping its own
    /// approval and grant); another decision (here another amount) conflicts, and each device's merge of the other
    /// stops at it, before the contract line that claims it (a contract's line follows its grant's).
    @Test(arguments: [1500, 1200] as [Int64])
    func aContractApprovedOnTwoDevicesOfflineIsPaidOnceOnEach(activeOnB: Int64) throws {
        var a = SimDevice(name: "dev-a", skewMs: 0)
        var b = SimDevice(name: "dev-b", skewMs: 0)
        try a.write(.contract(Self.contract("c1", .completed, device: "dev-a")), wallMs: Self.t0)
        b.merge(["dev-a": JournalReader.read(a.journal, device: "dev-a")], wallMs: Self.t0 + 1)
        func approve(_ device: inout SimDevice, active: Int64) throws {
            let grant = try #require(
                try device.request(
                    .grantContract(contractID: "c1", activeSeconds: active, ratioMilli: 1000), wallMs: Self.t0 + 2,
                    mode: .lenient, id: "grant-" + device.name))
            var paid = Self.contract("c1", .approved, device: "dev-a")
            paid.rewardSeconds = grant.amount
            paid.rewardEntryID = grant.id
            try device.write(.contract(paid), wallMs: Self.t0 + 3)
        }
        try approve(&a, active: 1500)
        try approve(&b, active: activeOnB)
        let fromB = SyncMerge.plan(
            known: a.known,
            journals: [
                "dev-b": JournalReader.read(b.journal, device: "dev-b", from: a.known.cursors["dev-b"] ?? .start)
            ])
        let fromA = SyncMerge.plan(
            known: b.known,
            journals: ["dev-a": JournalReader.read(a.journal, device: "dev-a", from: b.known.cursors["dev-a"]!)])
        for (plan, other) in [(fromB, "dev-b"), (fromA, "dev-a")] {
            #expect(plan.entries.isEmpty && plan.contracts.isEmpty, "\(other)")
            if activeOnB == 1500 {
                #expect(plan.stopped.isEmpty && plan.alreadyHere == 1, "\(String(describing: plan.stopped))")
            } else {
                #expect(plan.stopped[other]?.contains("contract:c1") == true, "\(String(describing: plan.stopped))")
            }
        }
    }
}
