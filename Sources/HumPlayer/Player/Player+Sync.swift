import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a watch of a synced folder's journals on the player's loop; `handler` runs there when one may have
/// changed. The object keeps the watch alive.
typealias JournalWatchFactory = (any EventLoopProtocol, String, @escaping () -> Void) throws -> AnyObject

/// Sync in a running player (docs/sync.md): while sync is on, the other devices' journals are merged as soon as the
/// sync tool changes them, woken by inotify on the folder (no polling), as a command that reads the bank would.
extension Player {
    static func journalFolderWatch(_ loop: any EventLoopProtocol, _ folder: String, _ handler: @escaping () -> Void)
        throws -> AnyObject
    {
        try JournalFolderWatch(loop: loop, folder: folder, handler: handler)
    }

    /// Starts the watch when sync is on (the ledger is not made for it when there is none yet).
    func startSyncWatch() {
        guard access(environment.paths.databasePath, F_OK) == 0,
            let db = try? LedgerAccess.open(environment), let setup = try? db.syncSetup()
        else { return }
        let folder = HumDatabase.journalsFolder(dir: setup.dir)
        do {
            try HumDatabase.makeJournalFolder(dir: setup.dir, device: setup.device)
            journalWatch = try options.watchJournals(loop, folder) { [unowned self] in self.mergeJournals() }
        } catch {
            environment.warn(
                "sync: \(folder) cannot be watched (\(error)); this player's ledger merges at the next command")
        }
    }

    /// Opens the ledger, which merges what is new (`SyncHook`).
    func mergeJournals() {
        _ = try? LedgerAccess.open(environment)
    }
}
