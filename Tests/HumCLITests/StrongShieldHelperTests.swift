import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Strong mode's root helper end to end, as root inside `unshare --net --mount --pid` (a network, mounts and processes
/// of its own: the host's ruleset and /etc/hosts are never touched, and no hum process of the host is seen). In there: loopback up, a TCP listener on 127.0.0.2, a private
/// /etc/hosts bind-mounted over the real one saying `shielded.test` is 127.0.0.2 (so the helper resolves the name
/// through getaddrinfo as it would any other, with no test-only path in it), and hum-shieldd with its socket in a
/// temporary folder. The clients are other uids (setpriv): 65534 shields the name and lifts it for 2 s; 1234 asks
/// for 65534's lease and is refused.
@Suite(.serialized) struct StrongShieldHelperTests {
    static var helperBinary: String {
        URL(fileURLWithPath: humBinary).deletingLastPathComponent().appendingPathComponent("hum-shieldd").path
    }

    /// A client for the socket in Python: sends argv[2] as one line to the socket argv[1], prints the reply line.
    static let client = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sys.argv[1])
        s.sendall(sys.argv[2].encode() + b"\\n")
        data = b""
        while not data.endswith(b"\\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        sys.stdout.write(data.decode())
        """

    /// The scenario, in bash, run inside the namespaces. It prints `KEY: value` lines the test reads.
    static let scenario = #"""
        set -u
        T=$1; HELPER=$2; HUM=$3
        ip link set lo up
        printf '127.0.0.1 localhost\n127.0.0.2 shielded.test\n' > "$T/hosts"
        mount --bind "$T/hosts" /etc/hosts
        /usr/bin/python3 -c '
        import socket
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.2", 8080)); s.listen(64)
        while True: s.accept()[0].close()' &
        LISTENER=$!
        as() { local uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; }
        probe() { if as 65534 bash -c 'exec 3<>/dev/tcp/127.0.0.2/8080' 2>/dev/null; then echo open; else echo shut; fi; }
        ask() { local uid=$1; shift; as "$uid" /usr/bin/python3 "$T/client.py" "$T/s.sock" "$1"; }
        now() { date +%s.%N; }
        for i in $(seq 50); do probe >/dev/null && [ "$(probe)" = open ] && break; sleep 0.05; done
        echo "BEFORE: $(probe)"
        "$HELPER" --socket "$T/s.sock" --state "$T/state" 2>"$T/helper.err" &
        HPID=$!
        for i in $(seq 100); do [ -S "$T/s.sock" ] && break; sleep 0.05; done
        echo "MODE: $(stat -c %a "$T/s.sock")"
        echo "GARBAGE: $(ask 65534 'not json')"
        echo "BADNAME: $(ask 65534 '{"version":1,"op":"set","domains":["a;b.com"]}')"
        echo "HUGE: $(ask 65534 "{\"version\":1,\"op\":\"set\",\"domains\":[\"$(head -c 70000 /dev/zero | tr '\0' a).com\"]}")"
        echo "SET: $(ask 65534 '{"version":1,"op":"set","domains":["Shielded.test"]}')"
        echo "SHIELDED: $(probe)"
        echo "ROOT: $(if bash -c 'exec 3<>/dev/tcp/127.0.0.2/8080' 2>/dev/null; then echo open; else echo shut; fi)"
        echo "STATUS: $(as 65534 env HUM_SHIELDD_SOCKET="$T/s.sock" HOME=/nonexistent "$HUM" shield strong status 2>&1 | tr "\n" "|")"
        UNTIL=$(echo "$(now) + 2" | bc)
        echo "OTHER: $(ask 1234 "{\"version\":1,\"op\":\"set\",\"uid\":65534,\"domains\":[\"shielded.test\"],\"lifts\":[{\"domain\":\"shielded.test\",\"until\":$UNTIL}]}")"
        echo "AFTEROTHER: $(probe)"
        T0=$(now)
        echo "LIFT: $(ask 65534 "{\"version\":1,\"op\":\"set\",\"domains\":[\"shielded.test\"],\"lifts\":[{\"domain\":\"shielded.test\",\"until\":$UNTIL}]}")"
        echo "LIFTED: $(probe)"
        echo "LIFTTOOK: $(echo "$(now) - $T0" | bc)"
        kill -9 $HPID; wait $HPID 2>/dev/null
        echo "HELPERS: $(pgrep -c -x hum-shieldd || true) $(pgrep -c -x hum || true)"
        sleep "$(echo "$UNTIL - $(now) - 0.6" | bc)"
        echo "NEAREND: $(probe)"
        sleep "$(echo "$UNTIL - $(now) + 0.5" | bc)"
        echo "RELOCKED: $(probe) $(echo "$(now) - $UNTIL" | bc)"
        # A new helper reads the state: 65534 is still shielded, and the lift that ended is not in force.
        "$HELPER" --socket "$T/s.sock" --state "$T/state" 2>>"$T/helper.err" &
        HPID=$!
        for i in $(seq 100); do ask 65534 '{"version":1,"op":"status"}' >/dev/null 2>&1 && break; sleep 0.05; done
        echo "RESTARTED: $(ask 65534 '{"version":1,"op":"status"}')"
        echo "RESTARTPROBE: $(probe)"
        echo "CLEAR: $(ask 65534 '{"version":1,"op":"set","domains":[]}')"
        echo "CLEARED: $(probe)"
        kill $HPID $LISTENER; wait 2>/dev/null
        """#

    @Test func statusSaysWhenNoHelperAnswers() throws {
        let folder = NSTemporaryDirectory() + "hum-shieldd-none-" + UUID().uuidString
        let result = try runBinary(
            ["shield", "strong", "status"],
            environment: ["HOME": "/nonexistent", "HUM_SHIELDD_SOCKET": folder + "/s.sock"])
        #expect(result.code == 1, "\(result)")
        #expect(
            result.err == "hum: no strong-mode helper answers at \(folder)/s.sock; install it with 'sudo make "
                + "install-shield' and start it (systemctl enable --now hum-shieldd)\n")
    }

    @Test func theKernelRelocksALiftWithNoProcessOfOursAlive() throws {
        guard geteuid() == 0 else {
            Issue.record("needs root, as the suite runs (unshare, nft, setpriv)")
            return
        }
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "install nftables (make test-deps)")
        try #require(FileManager.default.isExecutableFile(atPath: Self.helperBinary), "build hum-shieldd")
        let folder = NSTemporaryDirectory() + "hum-shieldd-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.client.write(toFile: folder + "/client.py", atomically: true, encoding: .utf8)
        try Self.scenario.write(toFile: folder + "/scenario.sh", atomically: true, encoding: .utf8)
        let hostRules = try runBinary(["list", "ruleset"], environment: [:], program: "/usr/sbin/nft").out

        let result = try runBinary(
            [
                "--net", "--mount", "--pid", "--fork", "--mount-proc", "--propagation", "private", "bash",
                folder + "/scenario.sh", folder, Self.helperBinary, humBinary,
            ],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], program: "/usr/bin/unshare")
        var lines: [String: String] = [:]
        for line in result.out.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            lines[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let report =
            "\(result.out)\n\(result.err)\n\((try? String(contentsOfFile: folder + "/helper.err", encoding: .utf8)) ?? "")"
        #expect(lines["BEFORE"] == "open", "\(report)")
        #expect(lines["MODE"] == "666", "\(report)")
        #expect(lines["GARBAGE"]?.contains(#""ok":false"#) == true, "\(report)")
        #expect(lines["BADNAME"]?.contains(#""ok":false"#) == true, "\(report)")
        #expect(lines["HUGE"]?.contains("longer than 65536 bytes") == true, "\(report)")
        #expect(
            lines["SET"]?.contains(#""ok":true"#) == true && lines["SET"]?.contains("127.0.0.2") == true, "\(report)")
        #expect(lines["SET"]?.contains(#""uid":65534"#) == true, "\(report)")
        #expect(lines["SHIELDED"] == "shut", "\(report)")
        #expect(lines["ROOT"] == "open", "another uid is not shielded: \(report)")
        #expect(
            lines["STATUS"]?.contains("uid 65534") == true && lines["STATUS"]?.contains("shielded.test") == true,
            "\(report)")
        #expect(lines["OTHER"]?.contains("may not ask for uid 65534") == true, "\(report)")
        #expect(lines["AFTEROTHER"] == "shut", "\(report)")
        #expect(lines["LIFT"]?.contains("liftedUntil") == true, "\(report)")
        #expect(lines["LIFTED"] == "open", "\(report)")
        #expect(lines["HELPERS"] == "0 0", "\(report)")
        #expect(lines["NEAREND"] == "open", "the lift holds with the helper dead: \(report)")
        #expect(lines["RELOCKED"]?.hasPrefix("shut") == true, "\(report)")
        #expect(lines["RESTARTED"]?.contains("shielded.test") == true, "\(report)")
        #expect(lines["RESTARTED"]?.contains("liftedUntil") == false, "\(report)")
        #expect(lines["RESTARTPROBE"] == "shut", "\(report)")
        #expect(lines["CLEAR"]?.contains(#""ok":true"#) == true, "\(report)")
        #expect(lines["CLEARED"] == "open", "\(report)")
        // The host's own ruleset is as it was.
        #expect(try runBinary(["list", "ruleset"], environment: [:], program: "/usr/sbin/nft").out == hostRules)
    }
}
