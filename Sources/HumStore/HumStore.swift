/// SQLite storage of the ledger and the history. Empty until the ledger lands.
enum HumStoreModule {}
