/// One line of /proc/PID/stat, read once for every use: the command name between the first `(` and the last `)`
/// (it may itself hold spaces and parentheses), then the numbered fields after it (proc(5)).
struct ProcStat: Equatable {
    var comm: String
    /// Field 3: `R`, `S`, `D`, `T` stopped, `t` traced, `Z` zombie, `X` dead, `I` idle kernel thread.
    var state: Character
    var parent: Int32
    var group: Int32
    var session: Int32
    var tty: Int32
    /// Field 9, the kernel's flags: PF_KTHREAD (0x00200000) marks a kernel thread.
    var flags: UInt64
    /// Field 22: clock ticks after boot.
    var start: Int64

    var isKernelThread: Bool { flags & 0x0020_0000 != 0 }

    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else {
            return nil
        }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]),
            let group = Int32(fields[2]), let session = Int32(fields[3]), let tty = Int32(fields[4]),
            let flags = UInt64(fields[6]), let start = Int64(fields[19])
        else { return nil }
        comm = String(text[text.index(after: open)..<close])
        self.state = state
        self.parent = parent
        self.group = group
        self.session = session
        self.tty = tty
        self.flags = flags
        self.start = start
    }

    static func read(_ pid: Int32) -> ProcStat? {
        LinuxProcessProbe.readSmallFile("/proc/\(pid)/stat").flatMap(ProcStat.init)
    }
}
