/// The tables of focus contracts (schema 3). A contract's row changes as it moves on (running, in review, paid…);
/// its reviews and events are only ever added; its grant is an entry of the ledger (key `contract:<id>`), written in
/// the same transaction as the approval or the override.
enum ContractSchema {
    static let migration = """
        ALTER TABLE entries ADD COLUMN contract_id TEXT;
        CREATE UNIQUE INDEX entries_one_grant_per_contract ON entries(contract_id) WHERE kind = 'grant';
        ALTER TABLE rounds ADD COLUMN contract_id TEXT;
        ALTER TABLE rounds ADD COLUMN by_hand INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX rounds_contract ON rounds(contract_id) WHERE contract_id IS NOT NULL;
        CREATE INDEX rounds_end ON rounds(end_epoch);
        CREATE TABLE contracts(
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            goal TEXT NOT NULL,
            first_step TEXT,
            strict INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'approved', 'rejected', 'overridden',
                'abandoned', 'interrupted')),
            created_at TEXT NOT NULL,
            created_epoch INTEGER NOT NULL,
            created_offset INTEGER NOT NULL,
            ends_epoch INTEGER,
            ends_offset INTEGER,
            ended_epoch INTEGER,
            ended_offset INTEGER,
            ratio_milli INTEGER NOT NULL,
            rounds INTEGER NOT NULL,
            focus_seconds INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            reward INTEGER,
            reward_entry_id TEXT,
            override_reason TEXT,
            override_epoch INTEGER,
            override_offset INTEGER,
            device TEXT NOT NULL,
            owner_pid INTEGER,
            owner_start INTEGER,
            owner_boot TEXT,
            baseline TEXT,
            evidence TEXT,
            proof TEXT NOT NULL
        );
        CREATE INDEX contracts_created ON contracts(created_epoch);
        CREATE INDEX contracts_running ON contracts(status) WHERE status = 'running';
        CREATE UNIQUE INDEX contracts_one_strict ON contracts(strict) WHERE status = 'running' AND strict = 1;
        CREATE TABLE contract_criteria(
            contract_seq INTEGER NOT NULL REFERENCES contracts(seq),
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (contract_seq, position)
        ) WITHOUT ROWID;
        CREATE TABLE contract_watch(
            contract_seq INTEGER NOT NULL REFERENCES contracts(seq),
            position INTEGER NOT NULL,
            path TEXT NOT NULL,
            PRIMARY KEY (contract_seq, position)
        ) WITHOUT ROWID;
        CREATE TABLE contract_reviews(
            contract_seq INTEGER NOT NULL REFERENCES contracts(seq),
            attempt INTEGER NOT NULL,
            at_epoch INTEGER NOT NULL,
            at_offset INTEGER NOT NULL,
            reviewer TEXT NOT NULL,
            proof TEXT NOT NULL,
            checks TEXT NOT NULL,
            cannot_check TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('approved', 'needs_more', 'rejected')),
            confidence REAL NOT NULL,
            reason TEXT NOT NULL,
            missing TEXT NOT NULL,
            question TEXT,
            PRIMARY KEY (contract_seq, attempt)
        ) WITHOUT ROWID;
        CREATE TABLE contract_events(
            contract_seq INTEGER NOT NULL REFERENCES contracts(seq),
            position INTEGER NOT NULL,
            at_epoch INTEGER NOT NULL,
            at_offset INTEGER NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            PRIMARY KEY (contract_seq, position)
        ) WITHOUT ROWID;
        """
}
