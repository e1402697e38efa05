import HumCore

/// `hum sync`: one ledger on every machine, through a folder a sync tool keeps equal (docs/sync.md).
struct SyncCommand: HumCommand {
    static let name = "sync"
    static let abstract = "share the ledger, history, mixes and settings with other machines through a synced folder"
    static let discussion = """
        Each machine writes only its own append-only journal under DIR/hum-sync/v1/devices/ID/ and merges the
        others' into its database at each command that reads the bank, and in a running player as soon as they
        change. Syncthing, Nextcloud, a git repository or a USB stick keeps DIR equal between machines; hum
        never needs it to merge anything. See docs/sync.md.
        """
    static let examples = ["hum sync init ~/Sync/hum", "hum sync status"]
    static var subcommands: [any HumCommand.Type] { [SyncInitCommand.self, SyncStatusCommand.self] }

    init(_ arguments: ParsedArguments) throws {}

    /// `hum sync` alone is `hum sync status`.
    func run(context: CommandContext) throws -> Int32 { try SyncStatusCommand.show(context: context, json: false) }
}
