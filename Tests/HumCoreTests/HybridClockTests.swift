import Testing

@testable import HumCore

@Suite struct HybridClockTests {
    @Test func aClockSetBackNeverOrdersANewEditBeforeAnOldOne() {
        var clock = HybridClock(device: "a")
        let first = clock.tick(wallMs: 1_000_000)
        let second = clock.tick(wallMs: 1_000)  // the wall clock jumped back by 16 minutes
        let third = clock.tick(wallMs: 1_000)
        #expect(first < second && second < third)
        #expect(second.physicalMs == 1_000_000 && second.logical == 1 && third.logical == 2)
        #expect(clock.tick(wallMs: 2_000_000) == HybridTime(physicalMs: 2_000_000, logical: 0, device: "a"))
    }

    @Test func anEditMadeAfterSeeingAnotherDevicesEditWinsEvenWithASlowClock() {
        var laptop = HybridClock(device: "laptop")
        var desktop = HybridClock(device: "desktop")
        let ahead = laptop.tick(wallMs: 86_400_000 + 5_000)  // a day ahead
        desktop.receive(ahead, wallMs: 5_000)
        let edit = desktop.tick(wallMs: 5_001)
        #expect(ahead < edit)
    }

    @Test func receiveFollowsTheStandardRules() {
        var c = HybridClock(device: "b")
        _ = c.tick(wallMs: 100)
        // Remote and local at the same millisecond: the larger counter plus one.
        #expect(c.receive(HybridTime(physicalMs: 100, logical: 7, device: "a"), wallMs: 50).logical == 8)
        // Remote ahead: its millisecond, its counter plus one.
        #expect(
            c.receive(HybridTime(physicalMs: 200, logical: 3, device: "a"), wallMs: 50)
                == .init(physicalMs: 200, logical: 4, device: "b"))
        // Wall clock ahead of both: counter back to 0.
        #expect(c.receive(HybridTime(physicalMs: 150, logical: 9, device: "a"), wallMs: 300).logical == 0)
        // Local ahead of the remote: the local counter plus one.
        #expect(
            c.receive(HybridTime(physicalMs: 10, logical: 9, device: "a"), wallMs: 20)
                == .init(physicalMs: 300, logical: 1, device: "b"))
    }

    @Test func readingsOfTwoDevicesAreNeverEqualAndOrderByDeviceLast() {
        let a = HybridTime(physicalMs: 5, logical: 1, device: "a")
        let b = HybridTime(physicalMs: 5, logical: 1, device: "b")
        #expect(a != b && a < b && !(b < a))
    }

    @Test func aResumedClockCarriesOnAfterItsLastLine() {
        var c = HybridClock(device: "x", resumingAfter: HybridTime(physicalMs: 900, logical: 4, device: "x"))
        #expect(c.tick(wallMs: 10) == HybridTime(physicalMs: 900, logical: 5, device: "x"))
    }
}
