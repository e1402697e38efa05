/// Migration `rounds-away` (docs/rules.md, "Away"): the seconds a round's person was away (the session locked or
/// idle, from logind), recorded on the round. 0 for rounds before it and rounds nobody left.
enum AwaySchema {
    static let name = "rounds-away"
    static let migration = """
        ALTER TABLE rounds ADD COLUMN away INTEGER NOT NULL DEFAULT 0 CHECK (away >= 0);
        """
}
