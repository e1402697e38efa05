import CLinux
import FoundationEssentials
import HumCore
import HumStore
import HumSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The running native messaging host: one poll over stdin (the browser's frames), an inotify watch on the
/// ledger's folder (a pass opened or ended elsewhere), and one wall-clock timer at the next lease's end. It wakes
/// only when one of them has something to say; it leaves when the browser closes stdin.
final class ShieldHost {
    let context: CommandContext
    let caller: String
    private let loop = EventLoop()
    private let db: HumDatabase
    private var reader = NativeFrames.Reader()
    private var lastState: String?
    private var leaseTimer: EventLoop.Timer?
    private var settleTimer: EventLoop.Timer?
    private var inotify: Int32 = -1
    private var lastContactWrite: Int64 = 0
    /// When this host first saw each lift (wall-clock milliseconds): see `preciseEnd`.
    private var firstSeen: [String: Int64] = [:]

    init(context: CommandContext, caller: String) throws {
        self.context = context
        self.caller = caller
        db = try LedgerCLI.open(context)
    }

    func run() {
        noteContact(force: true)
        _ = loop.watch(STDIN_FILENO) { [unowned self] _ in readInput() }
        watchLedger()
        leaseTimer = try? loop.timer(clock: CLOCK_REALTIME) { [unowned self] in pushIfChanged() }
        settleTimer = try? loop.timer { [unowned self] in pushIfChanged() }
        armLeaseTimer()
        loop.run()
    }

    // MARK: Input

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return }
        guard n > 0 else {
            // The browser closed the port (or the extension went away): done.
            loop.stop()
            return
        }
        for event in reader.feed(buffer[0..<n]) {
            switch event {
            case .tooLarge(let length):
                sendError("a message of \(length) bytes is over the 1 MB limit; it was skipped")
            case .message(let payload):
                handle(payload)
            }
        }
    }

    private func handle(_ payload: [UInt8]) {
        noteContact(force: false)
        guard let object = try? JournalJSONParser.parse(payload), case .object = object else {
            sendError("a message must be a JSON object with a \"type\"")
            return
        }
        switch object["type"]?.stringValue {
        case "state":
            sendState(force: true)
        case "lift":
            lift(payload)
        case "usage":
            usage(payload)
        case let other:
            sendError("unknown message type \((other ?? "none").quoted); known: state, lift, usage")
        }
    }

    // MARK: Lift

    /// Runs the very command a person would type (`hum pass Nm --on S`, `hum emergency Nm --reason R --on S`) in
    /// this process, with its output captured: the same checks, ledger path and refusals.
    private func lift(_ payload: [UInt8]) {
        struct Lift: Decodable {
            var shield: String?
            var minutes: Int?
            var emergency: Bool?
            var reason: String?
        }
        let request = try? JSONDecoder().decode(Lift.self, from: Data(payload))
        guard let shield = request?.shield, (try? Shield.checkedName(shield)) != nil else {
            sendError("lift needs \"shield\": the name of a shield")
            return
        }
        guard let minutes = request?.minutes, (1...1440).contains(minutes) else {
            sendError("lift needs \"minutes\": a whole number from 1 to 1440")
            return
        }
        let emergency = request?.emergency ?? false
        var words = ["hum"]
        if emergency {
            let reason = request?.reason.flatMap { $0.isEmpty ? nil : $0 } ?? "asked in the browser"
            words += ["emergency", "\(minutes)m", "--reason", reason, "--on", shield]
        } else {
            words += ["pass", "\(minutes)m", "--on", shield]
        }
        let out = CapturedText()
        let err = CapturedText()
        let captured = CommandContext(
            environment: context.environment, stdout: out, stderr: err, stdoutIsTerminal: false,
            stdinIsTerminal: false, closedDescriptors: context.closedDescriptors)
        var inner = captured
        inner.paths = context.paths
        let code = HumMain.run(arguments: words, context: inner)
        let message = (err.text + out.text).split(separator: "\n").map {
            $0.hasPrefix("hum: ") ? String($0.dropFirst(5)) : String($0)
        }.joined(separator: " ")
        send([
            "type": .string("lift"), "ok": .bool(code == ExitCode.success), "exit": .int(Int64(code)),
            "shield": .string(shield), "minutes": .int(Int64(minutes)), "emergency": .bool(emergency),
            "message": .string(message),
        ])
        sendState(force: true)
    }

    // MARK: Usage

    /// Time on a lifted site's active tab, added to the shield's distracting time of today (by `day.starts-at`), as
    /// the guard adds its programs' time (docs/shields.md, "Distracting time"). A shield hum does not know is
    /// acknowledged and not recorded.
    private func usage(_ payload: [UInt8]) {
        struct Usage: Decodable {
            var seconds: Double?
            var site: String?
            var shield: String?
        }
        let report = try? JSONDecoder().decode(Usage.self, from: Data(payload))
        guard let seconds = report?.seconds, seconds >= 0, seconds <= 86_400 else {
            sendError("usage needs \"seconds\": the active time, 0 to 86400")
            return
        }
        let site = report?.site ?? ""
        noteContact(force: true, usage: ["site": .string(site), "seconds": Self.number(seconds)])
        var recorded = false
        if let shield = report?.shield, Int64(seconds) > 0,
            (try? db.shieldInputs().shields.contains { $0.name == shield }) == true
        {
            do {
                try db.addMeasuredUsage([(shield: shield, day: try db.usageToday(), seconds: Int64(seconds))])
                recorded = true
            } catch {
                sendError("the time on \(site.isEmpty ? shield : site) was not recorded: \(error)")
                return
            }
        }
        send(["type": .string("usage"), "ok": .bool(true), "recorded": .bool(recorded)])
    }

    // MARK: State

    /// The state the extension needs: the shields that name sites, each with its sites, and the leases in force
    /// on them (lifts, offs, free windows) with their absolute ends; the bank.
    func state() throws -> [String: JournalJSON] {
        let inputs = try db.shieldInputs()
        let now = db.calendar.clock.nowEpochSeconds()
        let states = ShieldState.shielded(inputs, now: now)
        var shields: [JournalJSON] = []
        var leases: [JournalJSON] = []
        for shield in inputs.shields {
            let sites = shield.targets.compactMap { target -> SitePattern? in
                if case .site(let site) = target { return site }
                return nil
            }
            guard !sites.isEmpty else { continue }
            let status = states[shield.name] ?? .up
            shields.append(
                .object([
                    "name": .string(shield.name), "sites": .array(sites.map { .string($0.text) }),
                    "regexes": .array(sites.map { .string($0.regexSource) }), "state": .string(status.word),
                ]))
            if let until = status.until {
                var lease: [String: JournalJSON] = [
                    "shield": .string(shield.name), "kind": .string(status.word),
                    "end": .string(db.calendar.stamp(until).rfc3339), "endMs": .int(until * 1000),
                    "deadlineMs": .int(until * 1000),
                ]
                if case .lifted(_, let id) = status {
                    lease["id"] = .string(id)
                    if let lift = inputs.lifts.first(where: { $0.id == id }), until == lift.deadline {
                        lease["endMs"] = .int(preciseEnd(lift))
                    }
                }
                leases.append(.object(lease))
            }
        }
        let bank = try db.bankStatus()
        return [
            "type": .string("state"), "nowMs": .int(now * 1000), "shields": .array(shields),
            "leases": .array(leases),
            "bank": .object([
                "seconds": .int(bank.balance), "text": .string(DurationText.format(seconds: bank.balance)),
                "emergencySeconds": .int(bank.emergencyLeft),
                "emergencyText": .string(DurationText.format(seconds: bank.emergencyLeft)),
            ]),
        ]
    }

    /// The end of a lift as precisely as this host can know it, in epoch milliseconds. The ledger keeps the deadline
    /// in whole seconds, rounded up (up to 1 s after the paid end); the player's guard ends the lift at the paid end
    /// counted from just after it wrote the lift. When this host saw the lift appear (its inotify watch, 50 ms
    /// later) within the second after the lift's start, the moment it saw it plus the seconds paid plus 0.1 s is an
    /// end that is never before the paid one and close to it: the extension relocks then when no hum is left to
    /// tell it. Otherwise the deadline.
    private func preciseEnd(_ lift: ShieldLift) -> Int64 {
        let seen: Int64
        if let known = firstSeen[lift.id] {
            seen = known
        } else {
            var clock = timespec()
            clock_gettime(CLOCK_REALTIME, &clock)
            seen = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000
            firstSeen[lift.id] = seen
        }
        let deadline = lift.deadline * 1000
        guard seen >= lift.start * 1000, seen - lift.start * 1000 <= 1500 else { return deadline }
        return min(deadline, seen + lift.paidSeconds * 1000 + 100)
    }

    /// Sends the state when asked (`force`), or when it differs from the last sent in what the extension acts on.
    private func sendState(force: Bool) {
        do {
            let state = try state()
            let key = JournalJSON.object(state.filter { $0.key != "nowMs" && $0.key != "bank" }).canonicalText
            let bankKey = (state["bank"] ?? .null).canonicalText
            guard force || key + bankKey != lastState else { return }
            lastState = key + bankKey
            send(state)
        } catch {
            sendError("cannot read the shields: \((error as? any UserFacingError)?.message ?? "\(error)")")
        }
        armLeaseTimer()
    }

    private func pushIfChanged() { sendState(force: false) }

    /// Wakes at the next instant a shield's state can change by itself (a lease ends), on the wall clock.
    private func armLeaseTimer() {
        guard let inputs = try? db.shieldInputs() else { return }
        let now = db.calendar.clock.nowEpochSeconds()
        guard let next = ShieldState.nextChange(inputs, after: now) else {
            leaseTimer?.disarm()
            return
        }
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        let seconds = Double(next) - (Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9)
        leaseTimer?.arm(after: max(seconds, 0.001))
    }

    /// The ledger's folder: a write to the database or its WAL means a pass may have opened or ended; the state
    /// is read 50 ms later (a transaction's writes come together) and sent if it changed.
    private func watchLedger() {
        inotify = hum_inotify_init()
        guard inotify >= 0 else { return }
        let folder = PathText.directory(db.path)
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_DELETE)
        guard inotify_add_watch(inotify, folder, mask) >= 0 else { return }
        _ = loop.watch(inotify) { [unowned self] _ in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
            settleTimer?.arm(after: 0.05)
        }
    }

    // MARK: Output

    /// Sends one message: the object as JSON (HumCore's `JournalJSON`, in its canonical form) in a frame.
    private func send(_ object: [String: JournalJSON]) {
        guard let frame = NativeFrames.encode(JournalJSON.object(object).canonicalBytes) else {
            sendError("the answer is over the 1 MB limit")
            return
        }
        var offset = 0
        while offset < frame.count {
            let n = frame[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                loop.stop()  // the browser went away
                return
            }
            offset += n
        }
    }

    private func sendError(_ message: String) {
        send(["type": .string("error"), "error": .string(message)])
    }

    /// A JSON number: whole numbers as integers, the others in Swift's shortest form (finite numbers only: what is
    /// sent is range-checked before).
    static func number(_ value: Double) -> JournalJSON {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .int(Int64(value)) }
        return .decimal("\(value)")
    }

    // MARK: Contact

    /// Notes the browser's last contact for `hum shield status`: when, who, and this host's pid (alive means
    /// connected now). Written at most every 10 s unless `force`, atomically.
    private func noteContact(force: Bool, usage: [String: JournalJSON]? = nil) {
        let now = db.calendar.clock.nowEpochSeconds()
        guard force || now - lastContactWrite >= 10 else { return }
        lastContactWrite = now
        var note: [String: JournalJSON] = ["at": .int(now), "caller": .string(caller), "pid": .int(Int64(getpid()))]
        if let usage { note["lastUsage"] = .object(usage) }
        BrowserContact.write(JournalJSON.object(note).canonicalText, paths: context.paths)
    }
}

/// The note of the browser's last contact (`$XDG_STATE_HOME/hum/browser-contact.json`).
enum BrowserContact {
    static func path(_ paths: HumPaths) -> String { paths.stateDirectory + "/browser-contact.json" }

    static func write(_ text: String, paths: HumPaths) {
        let path = path(paths)
        try? FileManager.default.createDirectory(atPath: paths.stateDirectory, withIntermediateDirectories: true)
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    struct Note {
        var at: Int64
        var caller: String
        var pid: Int32
    }

    static func read(_ paths: HumPaths) -> Note? {
        guard let data = FileManager.default.contents(atPath: path(paths)),
            let object = try? JournalJSONParser.parse(data), let at = object["at"]?.intValue,
            let pid = object["pid"]?.intValue
        else { return nil }
        return Note(at: at, caller: object["caller"]?.stringValue ?? "", pid: Int32(clamping: pid))
    }
}

/// A command's output kept in memory (the host runs `hum pass` in its own process and sends what it said).
final class CapturedText: TextOutput, @unchecked Sendable {
    private let lock = Mutex<String>("")
    var text: String { lock.withLock { $0 } }
    func write(_ text: String) { lock.withLock { $0 += text } }
}
