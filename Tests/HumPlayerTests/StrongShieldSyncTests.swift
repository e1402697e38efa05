import HumCore
import HumTestSupport
import Synchronization
import Testing

@testable import HumPlayer

/// The player tells strong mode's helper what its shields want, once per change, and never while no shield names a
/// site; a helper that refuses is said, and the next change is sent again.
@Suite struct StrongShieldSyncTests {
    @Test func eachChangeIsSentOnceAndNothingWithoutSites() throws {
        let link = RecordingStrongShieldLink()
        let sync = StrongShieldSync(link: link)
        let at = Timestamp(epochSeconds: 0, offsetSeconds: 0)
        let games = Shield(name: "games", targets: [.app("steam")], created: at)
        sync.update(shields: [games], states: ["games": .up], now: 100)
        sync.drain()
        #expect(link.sent.isEmpty, "no site, no helper call")
        let video = Shield(name: "video", targets: [.site(try SitePattern.checked("youtube.com"))], created: at)
        sync.update(shields: [games, video], states: ["video": .up], now: 100)
        sync.update(shields: [games, video], states: ["video": .up], now: 101)
        sync.drain()
        #expect(link.sent == [StrongShieldWanted(domains: ["www.youtube.com", "youtube.com"])])
        sync.update(shields: [video], states: ["video": .lifted(until: 200, lift: "l")], now: 102)
        sync.drain()
        #expect(link.sent.last?.lifts == ["youtube.com": 200, "www.youtube.com": 200])
        let said = Said()
        sync.onSent = { said.add($0) }
        link.refusal = StrongShieldRefusal("no")
        sync.update(shields: [video], states: ["video": .up], now: 150)
        sync.drain()
        #expect(said.all == ["no"])
        // Removing the last site clears what the helper holds.
        link.refusal = nil
        sync.update(shields: [], states: [:], now: 160)
        sync.drain()
        #expect(link.sent.last == StrongShieldWanted(domains: []))
    }
}

private final class Said: Sendable {
    private let lines = Mutex<[String?]>([])
    func add(_ line: String?) { lines.withLock { $0.append(line) } }
    var all: [String?] { lines.withLock { $0 } }
}
