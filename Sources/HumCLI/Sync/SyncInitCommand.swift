import HumCore
import HumPlayer
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum sync init DIR` (and `hum config set sync.dir DIR`): this machine writes its journal into DIR and merges the
/// others' from it.
struct SyncInitCommand: HumCommand {
    static let name = "init"
    static let abstract = "write this machine's journal into a synced folder and merge the other machines' from it"
    static let discussion = """
        DIR is a folder that a sync tool keeps equal between machines (made when absent). The first time, and
        after the database was copied from another machine, this machine gets a device id of its own and writes
        everything the database holds as the first lines of its journal, so the other machines get the history
        from before sync. The same as 'hum config set sync.dir DIR'; 'hum config unset sync.dir' stops writing.
        """
    static let examples = ["hum sync init ~/Sync/hum"]
    static let dir = Positional("DIR", ValueKind<String>.file.named("DIR"), help: "the synced folder")
    static let arguments: [any Declared] = [dir]

    let dir: String
    init(_ arguments: ParsedArguments) throws { dir = try arguments.positional(Self.dir, at: 0)! }

    func run(context: CommandContext) throws -> Int32 {
        try Self.start(Self.absolute(dir), context: context)
        return ExitCode.success
    }

    static func absolute(_ path: String) -> String {
        var out = path.hasPrefix("/") ? path : ContractSetup.currentDirectory() + "/" + path
        while out.count > 1, out.hasSuffix("/") { out.removeLast() }
        return out
    }

    /// Sets sync up in `dir`, keeping this machine's device id when it already writes there, and prints what it did.
    static func start(_ dir: String, context: CommandContext) throws {
        var info = stat()
        if stat(dir, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            throw HumError.usage("\(dir.quoted) is not a folder; give the synced folder")
        }
        let db = try LedgerCLI.open(context)
        let identity = try db.syncIdentity()
        let paths = SyncHook.machineIDPaths(context.runtime)
        var device = identity.device
        var salt = identity.salt
        let same = !salt.isEmpty && (try? DeviceIdentity.current(salt: salt, paths: paths)) == device
        if !same || identity.dir == nil {
            salt = DeviceIdentity.makeSalt()
            device = try DeviceIdentity.current(salt: salt, paths: paths)
        }
        if identity.dir == dir, device == identity.device {
            context.stdout.write("sync is already on in \(dir) as device \(device)\n")
            return
        }
        try db.startSync(dir: dir, device: device, salt: salt)
        context.made("sync was set up in \(dir)", see: "hum sync status")
        let written = try db.syncSetup()?.written ?? 0
        context.stdout.write(
            "this machine writes its journal as device \(device) in \(dir) (\(written) line\(written == 1 ? "" : "s") "
                + "so far)\n")
        if let outcome = try db.mergeJournals(), outcome.lines > 0 {
            context.stdout.write("merged \(outcome.lines) line\(outcome.lines == 1 ? "" : "s") of other machines\n")
        }
    }
}
