import HumCore
import HumStore
import HumSystem

/// What every opening of the ledger does for sync (docs/sync.md), after the reconciliation: checks that the database
/// writes as this machine (a database copied from another machine is refused every write that would fork the first
/// machine's journal), appends the lines a crash left in the outbox, and merges what the other devices wrote since
/// the last merge. Never fails the command that opened the ledger: a problem is said once, and `hum sync status`
/// shows it while it lasts.
public enum SyncHook {
    /// `HUM_MACHINE_ID_PATH`: the file the machine id is read from instead of /etc/machine-id (for tests, and for
    /// containers that share one machine id).
    public static let machineIDVariable = "HUM_MACHINE_ID_PATH"

    public static func machineIDPaths(_ environment: PlayerEnvironment) -> [String] {
        environment.variables[machineIDVariable].map { [$0] } ?? DeviceIdentity.machineIDPaths
    }

    /// Why this database must not write as its stored device here, or nil when it may.
    public static func cloneRefusal(_ setup: HumDatabase.SyncSetup, environment: PlayerEnvironment) -> String? {
        do {
            switch try DeviceIdentity.origin(
                stored: setup.device, salt: setup.salt, paths: machineIDPaths(environment))
            {
            case .thisMachine: return nil
            case .copiedFromAnotherMachine(let stored, let here):
                return "this database was copied from another machine (it writes as device \(stored), this machine "
                    + "is \(here)); run 'hum sync init \(setup.dir)' to write as this machine"
            }
        } catch {
            return error.message
        }
    }

    public static func run(_ db: HumDatabase, environment: PlayerEnvironment) {
        guard !db.isReadOnly, let setup = try? db.syncSetup() else { return }
        if let refusal = cloneRefusal(setup, environment: environment) {
            db.refuseSyncWrites(refusal)
            environment.warn(refusal)
            return
        }
        do {
            try db.flushJournal()
        } catch {
            environment.warn("sync: \((error as? any UserFacingError)?.message ?? "\(error)")")
        }
        do {
            if let outcome = try db.mergeJournals() {
                for (device, problem) in outcome.newProblems.sorted(by: { $0.key < $1.key }) {
                    environment.warn(
                        "sync: the journal of device \(device) is merged only up to the damage: \(problem)")
                }
            }
        } catch {
            environment.warn("sync: merge failed: \((error as? any UserFacingError)?.message ?? "\(error)")")
        }
    }
}
