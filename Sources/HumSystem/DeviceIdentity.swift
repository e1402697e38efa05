import CLinux
import HumCore

/// The device id a hum database writes its sync journal as: stable on one machine, different on every other.
///
/// It is derived from the machine's id (`/etc/machine-id`, or D-Bus's `/var/lib/dbus/machine-id`, 128 random bits
/// set at install) and a per-install salt (random, kept by the caller in the database), through SHA-256, so the
/// machine id itself never appears in a synced folder (machine-id(5) asks for that: it must not leak to the
/// network). A database copied to another machine keeps its stored id but derives another one there:
/// `origin(stored:…)` tells, so hum can ask to re-initialise instead of writing as the first machine.
public enum DeviceIdentity {
    public static let machineIDPaths = ["/etc/machine-id", "/var/lib/dbus/machine-id"]

    /// Why no device id could be made.
    public struct Failure: UserFacingError, Equatable {
        public var paths: [String]
        public var message: String {
            "cannot tell this machine's id: \(paths.joined(separator: " and ")) are missing or not 32 hexadecimal "
                + "digits (run 'systemd-machine-id-setup' or 'dbus-uuidgen --ensure')"
        }
    }

    /// The machine id from the first of `paths` that holds one (32 hexadecimal digits and a newline), lower-cased.
    public static func machineID(paths: [String] = machineIDPaths) throws(Failure) -> String {
        for path in paths {
            guard let text = LinuxProcessProbe.readSmallFile(path, limit: 128) else { continue }
            let id = text.split(whereSeparator: \.isNewline).first.map { String($0).lowercased() } ?? ""
            if id.utf8.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                id != String(repeating: "0", count: 32)
            {
                return id
            }
        }
        throw Failure(paths: paths)
    }

    /// The short printable id for a machine id and a salt: 16 characters of lower-case base32 (80 bits) of
    /// SHA-256("hum device\n" machine-id "\n" salt). Pure.
    public static func derive(machineID: String, salt: String) -> String {
        let digest = SHA256.digest(Array("hum device\n\(machineID)\n\(salt)".utf8))
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        var out: [UInt8] = []
        var bits: UInt32 = 0
        var count = 0
        for byte in digest where out.count < 16 {
            bits = bits << 8 | UInt32(byte)
            count += 8
            while count >= 5, out.count < 16 {
                count -= 5
                out.append(alphabet[Int((bits >> UInt32(count)) & 31)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// This machine's device id for `salt`.
    public static func current(salt: String, paths: [String] = machineIDPaths) throws(Failure) -> String {
        derive(machineID: try machineID(paths: paths), salt: salt)
    }

    /// A new salt for an install: 128 random bits as 32 hexadecimal digits. The caller stores it with the database.
    public static func makeSalt<R: RandomNumberGenerator>(using rng: inout R) -> String {
        SHA256.hexText((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    /// A new salt from the kernel's random source.
    public static func makeSalt() -> String {
        var rng = SystemRandomNumberGenerator()
        return makeSalt(using: &rng)
    }

    /// Where a database's stored device id comes from.
    public enum Origin: Sendable, Equatable {
        /// Made on this machine with this salt.
        case thisMachine
        /// Made on another machine (the database was copied here): writing as `stored` would fork its journal.
        case copiedFromAnotherMachine(stored: String, here: String)
    }

    /// Whether the database whose device id is `stored` (made with `salt`) was made on this machine.
    public static func origin(stored: String, salt: String, paths: [String] = machineIDPaths) throws(Failure)
        -> Origin
    {
        let here = try current(salt: salt, paths: paths)
        return here == stored ? .thisMachine : .copiedFromAnotherMachine(stored: stored, here: here)
    }
}
