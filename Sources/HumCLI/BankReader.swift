import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The leisure time banked, for status lines: read through the ledger (which settles what dead processes left on
/// its first opening, like every command), never creating a database that does not exist (nothing banked yet).
/// A ledger that cannot be read costs the line its bank, not the player's status: one warning, then nil.
final class BankReader {
    let context: CommandContext
    private var database: HumDatabase?
    private var warned = false

    init(context: CommandContext) { self.context = context }

    /// Seconds banked (0 without a database); nil when the ledger cannot be read.
    func read() -> Int64? {
        guard access(context.paths.databasePath, F_OK) == 0 else { return 0 }
        return status()?.balance
    }

    /// The bank's figures (balance, earned today and the cap, the reserve, an open pass); nil without a database
    /// or when the ledger cannot be read.
    func status() -> BankStatus? {
        do {
            if database == nil {
                guard access(context.paths.databasePath, F_OK) == 0 else { return nil }
                database = try LedgerCLI.open(context, reading: true)
            }
            return try database?.bankStatus()
        } catch let error as any UserFacingError {
            warn(error.message)
        } catch {
            warn("\(error)")
        }
        return nil
    }

    private func warn(_ message: String) {
        guard !warned else { return }
        warned = true
        context.warn("the bank cannot be read (\(message)); the status goes on without it")
    }
}
