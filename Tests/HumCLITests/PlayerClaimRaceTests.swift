import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A player that is ending closes its socket a moment before it lets go of its claim (`player.lock`). A hum
/// starting a player in that moment finds the claim held and no player answering: once the claim is let go, it
/// must start one, not fail ("it stopped before it answered").
@Suite struct PlayerClaimRaceTests {
    /// Holds the claim from another process for `seconds` with no socket, as an ending player does; returns once
    /// the lock is taken.
    static func holdClaim(_ box: Sandbox, for seconds: Double) throws -> Process {
        let folder = box.runtimeDirectory + "/hum"
        mkdir(folder, 0o700)
        let script = """
            import fcntl, os, struct, sys, time
            fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0) + bytes(4))
            print("held", flush=True)
            time.sleep(float(sys.argv[2]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, folder + "/player.lock", "\(seconds)"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        try #require(line.hasPrefix("held"), "the claim was not taken: \(line)")
        return process
    }

    @Test func aClaimLetGoWithNoPlayerAnsweringIsTakenAgain() throws {
        let box = Sandbox()
        try StatusCtlTests().userSound(box)
        let holder = try Self.holdClaim(box, for: 0.6)
        defer { holder.terminate() }
        let run = try runBinary(["play", "tone=30", "--detach", "--device", "null"], environment: box.environment)
        #expect(run.code == 0, "\(run)")
        let status = try runBinary(["status", "--json"], environment: box.environment)
        #expect(status.out.contains("\"state\":\"playing\""), "\(status)")
        #expect(try runBinary(["ctl", "stop", "-q"], environment: box.environment).code == 0)
        holder.waitUntilExit()
    }
}
