#!/usr/bin/env python3
"""Fills a hum database (already created by `hum bank`) with N synthetic ledger entries of its own device, for
bench/sync.sh: corrections and spends a few seconds apart, never overdrawing. Writes through SQLite like any other
program would; the schema's triggers keep the balance (sync is still off, so nothing is journalled yet)."""
import datetime, random, sqlite3, sys, uuid

def main(path, entries, seed):
    rnd = random.Random(seed)
    db = sqlite3.connect(path)
    device = db.execute("SELECT value FROM meta WHERE key = 'device'").fetchone()[0]
    epoch = 1_600_000_000 + seed * 3
    balance = 0
    rows = []
    for _ in range(entries):
        epoch += 11
        t = datetime.datetime.fromtimestamp(epoch + 3600, datetime.timezone.utc).replace(tzinfo=None)
        at = t.strftime("%Y-%m-%dT%H:%M:%S") + "+01:00"
        day = t.strftime("%Y-%m-%d")
        week = "%04d-W%02d" % t.isocalendar()[:2]
        uid = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        if balance >= 60 and rnd.random() < 0.45:
            rows.append((uid, "spend", -60, at, epoch, day, week, device, "spend 60 on=bench", "bench", None))
            balance -= 60
        else:
            rows.append((uid, "adjustment", 60, at, epoch, day, week, device, "adjustment 60 reason=bench", None, "bench"))
            balance += 60
    db.execute("BEGIN IMMEDIATE")
    db.executemany("""INSERT INTO entries(id, kind, amount, at, at_epoch, at_offset, local_day, iso_week, device, payload,
                      label, reason) VALUES (?,?,?,?,?,3600,?,?,?,?,?,?)""", rows)
    db.execute("COMMIT")

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
