import CLinux
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

// hum-shieldd: strong mode's root helper (docs/shields.md, "Strong mode"). Usage:
//   hum-shieldd [--backend auto|nftables|hosts] [--socket PATH] [--state PATH] [--nft PATH] [--hosts PATH]
//               [--refresh SECONDS]
//   hum-shieldd --remove [--nft PATH] [--hosts PATH]   (deletes the table and /etc/hosts' section, to uninstall)
// The backend: nftables (the kernel relocks), or /etc/hosts where nftables is missing (weak; docs/shields.md,
// "Where nftables is missing"). auto, the default, takes nftables when `nft` exists and works.

let usage =
    "usage: hum-shieldd [--backend auto|nftables|hosts] [--socket PATH] [--state PATH] [--nft PATH] [--hosts PATH] "
    + "[--refresh SECONDS] | hum-shieldd --remove"

func fail(_ message: String, code: Int32 = 1) -> Never {
    log(message)
    exit(code)
}

var options = ShieldHelper.Options()
var remove = false
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let word = arguments.removeFirst()
    if word == "--remove" {
        remove = true
        continue
    }
    if word == "--help" || word == "-h" {
        print(usage)
        exit(0)
    }
    guard ["--socket", "--state", "--nft", "--hosts", "--backend", "--refresh"].contains(word), !arguments.isEmpty
    else {
        fail("\(word.debugDescription) is not an option here; \(usage)", code: 2)
    }
    let value = arguments.removeFirst()
    switch word {
    case "--socket": options.socket = value
    case "--state": options.state = value
    case "--nft": options.nft = value
    case "--hosts": options.hosts = value
    case "--backend":
        guard let backend = ShieldHelper.Backend(rawValue: value) else {
            fail("--backend takes auto, nftables or hosts, not \(value.debugDescription)", code: 2)
        }
        options.backend = backend
    default:
        guard let seconds = Double(value), seconds >= 1, seconds <= 86_400 else {
            fail("--refresh takes seconds from 1 to 86400, not \(value.debugDescription)", code: 2)
        }
        options.refresh = seconds
    }
}

guard geteuid() == 0 else { fail("it must run as root (it changes the firewall); see docs/shields.md") }
signal(SIGPIPE, SIG_IGN)

let helper = ShieldHelper(options: options)

// --remove: the table (where nft is installed) and the section of /etc/hosts (where there is one) go.
if remove {
    var failed = false
    if access(options.nft, X_OK) == 0 {
        do {
            let result = try CapturedCommand.run(
                [options.nft, "-f", "-"], input: Array(StrongShieldRuleset.removal.utf8), timeout: 10)
            if result.exitCode != 0 || result.timedOut {
                log("nft could not delete table inet \(StrongShield.table) (exit \(result.exitCode))")
                failed = true
            }
        } catch {
            log("cannot run \(options.nft): \((error as? any UserFacingError)?.message ?? "\(error)")")
            failed = true
        }
    }
    do throws(StrongShieldRefusal) {
        let old = try HostsFile.read(options.hosts)
        let new = StrongShieldHosts.stripped(old)
        if new != old { try HostsFile.write(options.hosts, new) }
    } catch {
        log("cannot take the section out of \(options.hosts): \(error.message)")
        failed = true
    }
    exit(failed ? 1 : 0)
}

// The socket: open to every user (0666) since every request acts only for its sender's uid (SO_PEERCRED).
let path = options.socket
var info = stat()
if lstat(path, &info) == 0 {
    guard info.st_mode & S_IFMT == S_IFSOCK else { fail("\(path) is in the way and is not a socket; remove it") }
    unlink(path)
}
let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
guard listener >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
let pathBytes = Array(path.utf8)
guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("the socket path is too long") }
withUnsafeMutableBytes(of: &address.sun_path) { raw in
    raw.copyBytes(from: pathBytes)
    raw[pathBytes.count] = 0
}
let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
}
guard bound == 0 else { fail("cannot listen on \(path): bind: \(String(cString: strerror(errno)))") }
guard chmod(path, 0o666) == 0, listen(listener, 64) == 0 else {
    fail("cannot listen on \(path): \(String(cString: strerror(errno)))")
}

do throws(StrongShieldRefusal) {
    try helper.start()
} catch {
    unlink(path)
    fail(error.message)
}
log("listening on \(path)")

/// Reads one line of at most `StrongShield.maximumLineBytes` within 2 s; nil when the client sent none.
func readRequest(_ fd: Int32) -> [UInt8]? {
    var limit = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var line: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while line.count < StrongShield.maximumLineBytes {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return line.isEmpty ? nil : line }
        if let end = buffer[..<n].firstIndex(of: 10) { return line + buffer[..<end] }
        line += buffer[..<n]
    }
    return []  // too long: answered as garbage
}

func serve(_ fd: Int32, _ helper: ShieldHelper) {
    var uid: uid_t = 0
    guard hum_peer_uid(fd, &uid) == 0 else { return }
    guard let line = readRequest(fd) else { return }
    let reply: StrongShieldReply
    if line.count >= StrongShield.maximumLineBytes || line.isEmpty {
        reply = .refused("the request is empty or longer than \(StrongShield.maximumLineBytes) bytes")
    } else {
        reply = helper.handle(line: line, uid: UInt32(uid))
    }
    let bytes = helper.encode(reply)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
}

while true {
    var watched = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    // The hosts backend's relock is this timer (no kernel timeout exists for a file): poll wakes at a lift's end.
    let due = min(helper.refreshDue, helper.relockDue ?? .infinity)
    let wait = Int32(min((due * 1000).rounded(.up) + 1, 3_600_000))
    let ready = poll(&watched, 1, wait)
    if ready < 0 {
        if errno == EINTR { continue }
        fail("poll: \(String(cString: strerror(errno)))")
    }
    if helper.refreshDue <= 0 { helper.refresh() }
    helper.relockIfDue()
    guard ready > 0 else { continue }
    let client = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
    guard client >= 0 else { continue }
    serve(client, helper)
    close(client)
}
