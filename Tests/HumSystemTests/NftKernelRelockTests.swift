import Foundation
import HumCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The root helper's relock is the kernel's (issue 23, strong mode; the helper itself is not built): the table
/// `NftShieldTable` writes, applied with `nft -f` inside a network namespace of its own (`unshare --net`, so the
/// machine's ruleset is never touched), rejects uid 65534's connections to a shielded address; a 2 s lift lets it
/// connect; 0.5 s after the lift's end it is rejected again, with no process of ours running; a lift replaced by a
/// shorter one in one transaction ends at the shorter end. Needs root and nftables (`make test` installs it).
@Suite struct NftKernelRelockTests {
    @Test func aLiftIsAKernelTimeoutThatRelocksWithNoProcessOfOurs() throws {
        #expect(getuid() == 0, "needs root, to make a network namespace and load nftables")
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "apt-get install nftables")
        let folder = NSTemporaryDirectory() + "hum-nft-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o755)
        let table = try NftShieldTable.ruleset([
            .init(shield: "video", uids: [65534], v4: ["127.0.0.2"], v6: [])
        ])
        try table.write(toFile: folder + "/table.nft", atomically: true, encoding: .utf8)
        try NftShieldTable.lift(shield: "video", uid: 65534, milliseconds: 2000)
            .write(toFile: folder + "/lift.nft", atomically: true, encoding: .utf8)
        try NftShieldTable.lift(shield: "video", uid: 65534, milliseconds: 60_000)
            .write(toFile: folder + "/long.nft", atomically: true, encoding: .utf8)
        try NftShieldTable.lift(shield: "video", uid: 65534, milliseconds: 1000)
            .write(toFile: folder + "/short.nft", atomically: true, encoding: .utf8)
        // Every step in the namespace prints one word; the client runs as uid 65534.
        let script = """
            set -e
            ip link set lo up
            nft -f \(folder)/table.nft
            /usr/bin/python3 -c '
            import socket
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.2", 8080)); s.listen(50)
            while True:
                c, _ = s.accept(); c.close()' &
            server=$!
            sleep 0.3
            try() { setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -c '
            import socket
            s = socket.socket(); s.settimeout(1)
            try:
                s.connect(("127.0.0.2", 8080)); print("open")
            except OSError:
                print("refused")'; }
            echo "shielded $(try)"
            echo "root $(/usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.2", 8080), 1); print("open")')"
            nft -f \(folder)/lift.nft
            echo "lifted $(try)"
            sleep 2.5
            echo "after $(try)"
            nft -f \(folder)/long.nft
            nft -f \(folder)/short.nft
            echo "replaced $(try)"
            sleep 1.5
            echo "after-replaced $(try)"
            kill $server
            """
        try script.write(toFile: folder + "/run.sh", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--net", "/bin/sh", folder + "/run.sh"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        // While the lifts ran, the test's only processes were the namespace's shell, the server and the client:
        // the relocks after them are the kernel's timeouts.
        #expect(
            text.split(separator: "\n").filter { !$0.hasPrefix("+") } == [
                "shielded refused", "root open", "lifted open", "after refused", "replaced open",
                "after-replaced refused",
            ], "\(text)")
    }
}
