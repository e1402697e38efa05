import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// The recents in the database (migration `recents`) and what sync does with them and with contracts: ten at most,
/// each mix once; the file's imported once; a play is a `mix.play` line whose hybrid time the row keeps; a contract
/// from another device replaces the one here, a running one staying as it runs here.
@Suite struct RecentsStoreTests {
    static func mix(_ volume: Int) -> [MixToken] { [MixToken(name: "rain", volume: Double(volume))] }

    @Test func theRecentsAreTenEachMixOnceAndTheFilesAreImportedOnce() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        #expect(try !db.recentsImported())
        // The file's, newest first; two in the same second keep their order.
        let file = (1...12).map {
            (mix: Self.mix($0), at: Timestamp(epochSeconds: 1_743_200_000 - Int64($0 / 2), offsetSeconds: 0))
        }
        try db.importRecents(file)
        #expect(try db.recentsImported())
        #expect(try db.recents().map { Int($0.mix[0].volume) } == Array(1...10))
        try db.importRecents([(mix: Self.mix(99), at: db.calendar.now())])  // once only
        #expect(try db.recents().map { Int($0.mix[0].volume) } == Array(1...10))
        // Played again: it moves up, once; a new one pushes the oldest out.
        try db.recordPlay(Self.mix(7))
        try db.recordPlay(Self.mix(7))
        try db.recordPlay(Self.mix(50))
        #expect(try db.recents().map { Int($0.mix[0].volume) } == [50, 7, 1, 2, 3, 4, 5, 6, 8, 9])
        #expect(try db.db.scalarInt("SELECT count(*) FROM recents") == 10)
        let times = try db.recents().map(\.time)
        #expect(times == times.sorted(by: >) && Set(times).count == 10)
    }

    @Test func aPlayWhileSyncIsOnIsAJournalLineWhoseTimeTheRowKeeps() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        try db.recordPlay(Self.mix(10))  // before sync: written with the history when it starts
        try db.startSync(dir: dir.path + "/Sync", device: "deva", salt: "salt")
        clock.advance(60)
        try db.recordPlay(Self.mix(20))
        try db.recordPlay(Self.mix(20))  // already the newest: no second line
        let path = HumDatabase.journalPath(dir: dir.path + "/Sync", device: "deva")
        let read = JournalReader.read(Array(try Data(contentsOf: URL(fileURLWithPath: path))), device: "deva")
        #expect(read.damage == nil)
        let plays = read.lines.compactMap { line -> (mix: [MixToken], time: HybridTime)? in
            guard case .played(let mix, _) = line.event else { return nil }
            return (mix, line.time)
        }
        #expect(plays.map(\.mix) == [Self.mix(10), Self.mix(20)])
        #expect(try db.recents().map(\.time) == Array(plays.map(\.time).reversed()))
        #expect(try db.recents()[0].at == db.calendar.now())
    }

    @Test func aContractFromAnotherDeviceReplacesTheOneHereButARunningOneRunsOn() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let start = ContractStoreTests.start
        let running = try db.createContract(start, rounds: 1, focusSeconds: 1500, endsAt: nil, baseline: [])
        var elsewhere = running
        elsewhere.proof = ContractProof(text: "half done", checked: [1])
        try db.db.immediate { try db.replaceContract(elsewhere) }
        var here = try db.contract(matching: start.id)
        #expect(here.status == .running && here.proof.text == "half done")
        #expect(try db.reconcile().interruptedContracts.isEmpty, "its owner here still runs it")
        // Finished here; a later version from elsewhere that says running is interrupted, as an import has it; one
        // reviewed elsewhere replaces it with its reviews, once however often it comes.
        _ = try db.finishContract(id: start.id, completed: true, evidence: nil)
        try db.db.immediate { try db.replaceContract(elsewhere) }
        #expect(try db.contract(matching: start.id).status == .interrupted)
        var reviewed = try db.contract(matching: start.id)
        reviewed.status = .completed
        reviewed.attempts = 1
        reviewed.reviews = [ContractStoreTests.review(1, .needsMore, at: db.calendar.now())]
        for _ in 0..<2 { try db.db.immediate { try db.replaceContract(reviewed) } }
        here = try db.contract(matching: start.id)
        #expect(here == reviewed)
        #expect(try db.db.scalarInt("SELECT count(*) FROM contract_reviews") == 1)
    }
}
