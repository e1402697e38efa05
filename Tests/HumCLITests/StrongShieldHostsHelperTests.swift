import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Strong mode's weak fallback end to end: `hum-shieldd --backend hosts`, as root inside `unshare --net --mount
/// --pid`. The host's /etc is never touched: a copy of it is bind-mounted over /etc in the private mount namespace,
/// whose hosts file holds the user's own lines (no trailing newline) and whose resolver is a small DNS server on
/// 127.0.0.1 that says `shielded.test` is 127.0.0.2 (a name must come from DNS for /etc/hosts to override it: glibc
/// merges every /etc/hosts line of a name). A TCP listener on 127.0.0.2 stands for the site; uid 65534 (setpriv)
/// resolves and connects with Python's getaddrinfo, as a browser without DNS-over-HTTPS would.
@Suite(.serialized) struct StrongShieldHostsHelperTests {
    /// A DNS server on 127.0.0.1:53 (UDP): `shielded.test` A is 127.0.0.2, its AAAA is empty, any other name is
    /// NXDOMAIN.
    static let dns = """
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 53))
        while True:
            q, peer = s.recvfrom(512)
            i, labels = 12, []
            while q[i]:
                labels.append(q[i + 1:i + 1 + q[i]].decode().lower())
                i += 1 + q[i]
            qtype = int.from_bytes(q[i + 1:i + 3], "big")
            name = ".".join(labels)
            answer = b""
            flags = 0x8180
            if name != "shielded.test":
                flags = 0x8183
            elif qtype == 1:
                answer = b"\\xc0\\x0c\\x00\\x01\\x00\\x01\\x00\\x00\\x00\\x05\\x00\\x04\\x7f\\x00\\x00\\x02"
            count = b"\\x00\\x01" if answer else b"\\x00\\x00"
            s.sendto(q[:2] + flags.to_bytes(2, "big") + b"\\x00\\x01" + count + b"\\x00\\x00\\x00\\x00"
                     + q[12:i + 5] + answer, peer)
        """

    static let scenario = #"""
        set -u
        T=$1; HELPER=$2; HUM=$3
        ip link set lo up
        cp -a /etc "$T/etc"
        printf '127.0.0.1 localhost\n# my own line\n10.9.8.7 mine.test' > "$T/etc/hosts"
        chmod 0604 "$T/etc/hosts"
        rm -f "$T/etc/resolv.conf"; printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:2\n' > "$T/etc/resolv.conf"
        sed -i 's/^hosts:.*/hosts: files dns/' "$T/etc/nsswitch.conf"
        mount --bind "$T/etc" /etc
        cp /etc/hosts "$T/hosts.before"
        /usr/bin/python3 "$T/dns.py" &
        DNS=$!
        /usr/bin/python3 -c '
        import socket
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.2", 8080)); s.listen(64)
        while True: s.accept()[0].close()' &
        LISTENER=$!
        as() { local uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; }
        resolve() { as 65534 /usr/bin/python3 -c 'import socket; print(" ".join(sorted({a[4][0] for a in socket.getaddrinfo("shielded.test", 8080, proto=socket.IPPROTO_TCP)})))' 2>/dev/null || echo none; }
        probe() { if as 65534 /usr/bin/python3 -c 'import socket; socket.create_connection(("shielded.test", 8080), timeout=2)' 2>/dev/null; then echo open; else echo shut; fi; }
        ask() { local uid=$1; shift; as "$uid" /usr/bin/python3 "$T/client.py" "$T/s.sock" "$1"; }
        kept() { /usr/bin/python3 -c 'import sys; a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read(); print("yes" if a.endswith(b) else "no")' "$1" "$T/hosts.before"; }
        now() { date +%s.%N; }
        lift() { echo "{\"version\":1,\"op\":\"set\",\"domains\":[\"shielded.test\"],\"lifts\":[{\"domain\":\"shielded.test\",\"until\":$1}]}"; }
        start() { "$HELPER" --backend hosts --socket "$T/s.sock" --state "$1" 2>>"$T/helper.err" & HPID=$!; for i in $(seq 100); do ask 65534 '{"version":1,"op":"status"}' >/dev/null 2>&1 && break; sleep 0.05; done; }
        for i in $(seq 50); do [ "$(resolve)" = 127.0.0.2 ] && break; sleep 0.1; done
        echo "BEFORE: $(resolve) $(probe)"
        INODE=$(stat -c %i /etc/hosts)
        start "$T/state"
        echo "SET: $(ask 65534 '{"version":1,"op":"set","domains":["shielded.test"]}')"
        echo "SHIELDED: $(resolve) $(probe)"
        echo "KEPT1: $(kept /etc/hosts) $(stat -c '%a %u %g' /etc/hosts) $([ "$(stat -c %i /etc/hosts)" != "$INODE" ] && echo replaced)"
        echo "STATUS: $(as 65534 env HUM_SHIELDD_SOCKET="$T/s.sock" HOME=/nonexistent "$HUM" shield strong status 2>&1 | tr "\n" "|")"
        # The file is the machine's: while uid 1234 holds the name, 65534's lift does not open it.
        echo "OTHERSET: $(ask 1234 '{"version":1,"op":"set","domains":["shielded.test"]}')"
        UNTIL=$(echo "$(now) + 2" | bc)
        echo "LIFT: $(ask 65534 "$(lift "$UNTIL")")"
        echo "HELDBYOTHER: $(resolve) $(probe)"
        echo "OTHERCLEAR: $(ask 1234 '{"version":1,"op":"set","domains":[]}')"
        echo "LIFTED: $(resolve) $(probe)"
        echo "KEPT2: $(kept /etc/hosts)"
        sleep "$(echo "$UNTIL - $(now) - 0.5" | bc)"
        echo "NEAREND: $(probe)"
        while ! grep -q '^0.0.0.0 shielded.test$' /etc/hosts && [ "$(echo "$(now) < $UNTIL + 1" | bc)" = 1 ]; do sleep 0.005; done
        echo "RELOCKAT: $(echo "$(now) - $UNTIL" | bc)"
        sleep "$(echo "$UNTIL - $(now) + 0.5" | bc)"
        echo "RELOCKED: $(resolve) $(probe) $(kill -0 $HPID && echo alive)"
        # Killed during a lift, the helper cannot relock (weak); restarted after the end, it relocks from its state.
        echo "LIFT2: $(ask 65534 "$(lift "$(echo "$(now) + 1" | bc)")")"
        kill -9 $HPID; wait $HPID 2>/dev/null
        sleep 1.2
        echo "DEAD: $(probe)"
        start "$T/state"
        echo "RESTARTED: $(resolve) $(probe)"
        echo "KEPT3: $(kept /etc/hosts)"
        kill $HPID; wait $HPID 2>/dev/null
        "$HELPER" --remove --nft /nonexistent 2>>"$T/helper.err"
        echo "REMOVED: $? $(cmp -s /etc/hosts "$T/hosts.before" && echo same) $(resolve)"
        # /etc/hosts as a mount point (as in containers): rename fails with EBUSY, the file is written in place.
        cp "$T/hosts.before" "$T/hosts.file"
        mount --bind "$T/hosts.file" /etc/hosts
        start "$T/state2"
        echo "INPLACE: $(ask 65534 '{"version":1,"op":"set","domains":["shielded.test"]}' | head -c 20) $(resolve) $(kept "$T/hosts.file")"
        kill $HPID; wait $HPID 2>/dev/null
        "$HELPER" --remove --nft /nonexistent 2>>"$T/helper.err"
        echo "INPLACEREMOVED: $? $(cmp -s "$T/hosts.file" "$T/hosts.before" && echo same)"
        kill $DNS $LISTENER; wait 2>/dev/null
        """#

    @Test func theHostsFallbackListsNamesAndRelocksByItsOwnTimer() throws {
        guard geteuid() == 0 else {
            Issue.record("needs root, as the suite runs (unshare, mount, setpriv)")
            return
        }
        let helper = StrongShieldHelperTests.helperBinary
        try #require(FileManager.default.isExecutableFile(atPath: helper), "build hum-shieldd")
        let folder = NSTemporaryDirectory() + "hum-shieldd-hosts-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try StrongShieldHelperTests.client.write(toFile: folder + "/client.py", atomically: true, encoding: .utf8)
        try Self.dns.write(toFile: folder + "/dns.py", atomically: true, encoding: .utf8)
        try Self.scenario.write(toFile: folder + "/scenario.sh", atomically: true, encoding: .utf8)
        let hostFile = try Data(contentsOf: URL(fileURLWithPath: "/etc/hosts"))

        let result = try runBinary(
            [
                "--net", "--mount", "--pid", "--fork", "--mount-proc", "--propagation", "private", "bash",
                folder + "/scenario.sh", folder, helper, humBinary,
            ],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], program: "/usr/bin/unshare")
        var lines: [String: String] = [:]
        for line in result.out.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            lines[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let report =
            "\(result.out)\n\(result.err)\n\((try? String(contentsOfFile: folder + "/helper.err", encoding: .utf8)) ?? "")"
        #expect(lines["BEFORE"] == "127.0.0.2 open", "\(report)")
        #expect(lines["SET"]?.contains(#""backend":"hosts""#) == true, "\(report)")
        #expect(lines["SHIELDED"] == "0.0.0.0 :: shut", "\(report)")
        #expect(lines["KEPT1"] == "yes 604 0 0 replaced", "the user's lines, mode and owner kept: \(report)")
        #expect(lines["STATUS"]?.contains("(hosts), uid 65534") == true, "\(report)")
        #expect(lines["STATUS"]?.contains("weak") == true, "\(report)")
        #expect(lines["OTHERSET"]?.contains(#""ok":true"#) == true, "\(report)")
        #expect(lines["LIFT"]?.contains("liftedUntil") == true, "\(report)")
        #expect(lines["HELDBYOTHER"] == "0.0.0.0 :: shut", "another user's shield keeps the name listed: \(report)")
        #expect(lines["OTHERCLEAR"]?.contains(#""ok":true"#) == true, "\(report)")
        #expect(lines["LIFTED"] == "127.0.0.2 open", "\(report)")
        #expect(lines["KEPT2"] == "yes", "\(report)")
        #expect(lines["NEAREND"] == "open", "\(report)")
        #expect(lines["RELOCKED"] == "0.0.0.0 :: shut alive", "the helper's timer relocks: \(report)")
        #expect(lines["LIFT2"]?.contains("liftedUntil") == true, "\(report)")
        #expect(lines["DEAD"] == "open", "with the helper dead the lift outlives its end (weak): \(report)")
        #expect(lines["RESTARTED"] == "0.0.0.0 :: shut", "a restarted helper relocks from its state: \(report)")
        #expect(lines["KEPT3"] == "yes", "\(report)")
        #expect(lines["REMOVED"] == "0 same 127.0.0.2", "--remove leaves the file as it was: \(report)")
        #expect(lines["INPLACE"] == #"{"backend":"hosts"," 0.0.0.0 :: yes"#, "\(report)")
        #expect(lines["INPLACEREMOVED"] == "0 same", "\(report)")
        // The host's own /etc/hosts is as it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/etc/hosts")) == hostFile)
    }
}
