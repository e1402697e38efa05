import Foundation
import HumCore
import Testing

@testable import HumSystem

@Suite struct DeviceIDTests {
    /// A folder of its own with the files given, removed at the end.
    static func withFiles(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hum-device-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        try body(dir)
    }

    static let one = "4f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f"
    static let two = "0123456789abcdef0123456789abcdef"

    @Test func theIdIsStableShortAndPrintable() throws {
        try Self.withFiles(["machine-id": Self.one + "\n"]) { dir in
            let a = try DeviceIdentity.current(salt: "s1", paths: [dir + "/machine-id"])
            let b = try DeviceIdentity.current(salt: "s1", paths: [dir + "/machine-id"])
            #expect(a == b)
            #expect(a.count == 16)
            #expect(a.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
            #expect(!a.contains(Self.one.prefix(8)))
            #expect(a == DeviceIdentity.derive(machineID: Self.one, salt: "s1"))
        }
    }

    @Test func anotherSaltOrMachineGivesAnotherId() {
        let base = DeviceIdentity.derive(machineID: Self.one, salt: "s1")
        #expect(DeviceIdentity.derive(machineID: Self.one, salt: "s2") != base)
        #expect(DeviceIdentity.derive(machineID: Self.two, salt: "s1") != base)
        var rng = SplitMix64(seed: 7)
        let salts = (0..<50).map { _ in DeviceIdentity.makeSalt(using: &rng) }
        #expect(Set(salts).count == 50 && salts.allSatisfy { $0.count == 32 })
    }

    @Test func theDBusCopyIsReadWhenEtcHasNone() throws {
        try Self.withFiles(["dbus-id": Self.two.uppercased() + "\n"]) { dir in
            let id = try DeviceIdentity.machineID(paths: [dir + "/missing", dir + "/dbus-id"])
            #expect(id == Self.two)
        }
    }

    @Test func anEmptyOrBadMachineIdIsRefused() throws {
        try Self.withFiles(["empty": "", "short": "abc\n", "zeros": String(repeating: "0", count: 32) + "\n"]) { dir in
            #expect(throws: DeviceIdentity.Failure.self) {
                try DeviceIdentity.machineID(paths: [dir + "/empty", dir + "/short", dir + "/zeros", dir + "/none"])
            }
        }
    }

    @Test func aDatabaseCopiedFromAnotherMachineIsTold() throws {
        let salt = "salt-of-the-install"
        let stored = DeviceIdentity.derive(machineID: Self.one, salt: salt)
        try Self.withFiles(["here": Self.one + "\n", "there": Self.two + "\n"]) { dir in
            #expect(try DeviceIdentity.origin(stored: stored, salt: salt, paths: [dir + "/here"]) == .thisMachine)
            let copied = try DeviceIdentity.origin(stored: stored, salt: salt, paths: [dir + "/there"])
            #expect(
                copied
                    == .copiedFromAnotherMachine(
                        stored: stored, here: DeviceIdentity.derive(machineID: Self.two, salt: salt)))
        }
    }
}
