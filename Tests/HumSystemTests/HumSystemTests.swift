import Foundation
import HumCore
import Testing

@testable import HumSystem

@Suite struct SystemTimeTests {
    @Test func theWallClockIsTheMachines() {
        let before = Int64(Date().timeIntervalSince1970.rounded(.down))
        let now = SystemClock().nowEpochSeconds()
        let after = Int64(Date().timeIntervalSince1970.rounded(.up))
        #expect(before <= now && now <= after)
    }

    @Test func theZoneAgreesWithFoundation() {
        let zone = SystemZone()
        // Around a spring and an autumn change in Europe and the US, and the epoch.
        for epoch: Int64 in [0, 1_711_846_799, 1_711_846_800, 1_730_001_600, 1_730_613_600] {
            let expected = TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(epoch)))
            #expect(zone.offsetSeconds(atEpoch: epoch) == Int32(expected), "at \(epoch)")
        }
        let calendar = LocalCalendar.system
        #expect(abs(calendar.now().epochSeconds - Int64(Date().timeIntervalSince1970)) <= 1)
    }

    @Test func theMonotonicClockNeverGoesBack() {
        let first = monotonicSeconds()
        let second = monotonicSeconds()
        #expect(first > 0 && second >= first)
    }
}

@Suite struct LinuxProcessProbeTests {
    let probe = LinuxProcessProbe()

    @Test func thisProcessIsAliveUnderItsOwnStartTime() {
        let me = probe.current()
        #expect(me.pid == getpid() && me.startTicks > 0 && !me.bootID.isEmpty)
        #expect(probe.owner(of: me.pid) == me)
        #expect(probe.isAlive(me))
        // The same pid started at another time or on another boot is another process; pid 0 is nobody.
        #expect(!probe.isAlive(ProcessOwner(pid: me.pid, startTicks: me.startTicks + 1, bootID: me.bootID)))
        #expect(!probe.isAlive(ProcessOwner(pid: me.pid, startTicks: me.startTicks, bootID: "another boot")))
        #expect(!probe.isAlive(ProcessOwner(pid: 0, startTicks: me.startTicks, bootID: me.bootID)))
    }

    @Test func aCommandIsFoundByItsEnvironmentAndIsDeadOnceReaped() throws {
        let value = UUID().uuidString
        let entry = "HUM_SYSTEM_TEST=\(value)"
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The shell says it is ready once it runs with the entry in its environment, then becomes sleep, same pid.
        child.arguments = ["-c", "echo ready; exec sleep 30"]
        child.environment = ["PATH": "/usr/bin:/bin", "HUM_SYSTEM_TEST": value]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // SIGKILL: a signal this test process ignores (or blocks) would be ignored (or blocked) by the child too.
        defer {
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        }
        let ready = output.fileHandleForReading.readData(ofLength: 6)
        #expect(String(decoding: ready, as: UTF8.self) == "ready\n")
        let table = ProcessTable.snapshot()
        let found = table.carrying(environment: entry)
        #expect(found.map(\.pid) == [child.processIdentifier])
        let entryFound = try #require(found.first)
        #expect(entryFound.parent == getpid() && table.members(ofGroup: entryFound.group).contains(entryFound))
        let owner = try #require(probe.owner(of: entryFound.pid))
        #expect(probe.isAlive(owner) && owner.startTicks == entryFound.start)
        #expect(table.carrying(environment: entry + "x").isEmpty)
        #expect(table.descendants(of: getpid()).contains { $0.pid == child.processIdentifier })
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(!probe.isAlive(owner))
    }
}
