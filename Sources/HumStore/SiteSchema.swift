/// The websites shields name (`hum shield add video --site youtube.com`, docs/shields.md "Sites"): a table beside
/// `shield_targets` rather than a new kind in it, because that table's CHECK names its kinds and SQLite cannot
/// change a CHECK without rebuilding the table. A site shares the shield's `position` numbering with the other
/// targets, so a shield lists its targets in the order they were added. Named migration: `shield-sites`.
enum SiteSchema {
    static let migration = """
        CREATE TABLE shield_sites(
            shield_seq INTEGER NOT NULL REFERENCES shields(seq),
            position INTEGER NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (shield_seq, position)
        ) WITHOUT ROWID;
        """
}
