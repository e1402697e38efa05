#!/usr/bin/env python3
"""Fills a hum database (already created by `hum bank`) with synthetic ledger entries and sessions, for
bench/ledger.sh. Writes through SQLite like any other program would; the schema's triggers keep the balance."""
import random, sqlite3, sys, uuid

def stamp(epoch, offset=3600):
    import datetime
    t = datetime.datetime.fromtimestamp(epoch + offset, datetime.timezone.utc).replace(tzinfo=None)
    sign = "+" if offset >= 0 else "-"
    o = abs(offset)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + "%s%02d:%02d" % (sign, o // 3600, o % 3600 // 60), t.strftime("%Y-%m-%d"), "%04d-W%02d" % t.isocalendar()[:2]

def main(path, entries, sessions):
    rnd = random.Random(4)
    db = sqlite3.connect(path)
    device = db.execute("SELECT value FROM meta WHERE key = 'device'").fetchone()[0]
    start = 1_600_000_000
    db.execute("BEGIN IMMEDIATE")
    rows = []
    balance = 0
    # Sessions: a focus round every 2 hours, 4 in 5 completed, each completed one granted 500 s.
    for i in range(sessions):
        epoch = start + i * 7200
        at, day, week = stamp(epoch)
        end, _, _ = stamp(epoch + 1500)
        rid = "bench-round-%d" % i
        completed = i % 5 != 0
        db.execute("""INSERT INTO rounds(id, kind, status, start_at, start_epoch, start_offset, end_at, end_epoch, end_offset,
                      planned, active, paused, goal, earned, heartbeat_epoch) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                   (rid, "focus", "completed" if completed else "interrupted", at, epoch, 3600, end, epoch + 1500, 3600,
                    1500, 1500 if completed else 700, 0, "goal %d" % i, 500 if completed else 0, epoch + 1500))
        seq = db.execute("SELECT last_insert_rowid()").fetchone()[0]
        db.execute("INSERT INTO round_mix VALUES (?,?,?,?)", (seq, 0, "rain", 0.6))
        db.execute("INSERT INTO round_mix VALUES (?,?,?,?)", (seq, 1, "cafe", 0.3))
        db.execute("INSERT INTO round_tags VALUES (?,?,?)", (seq, 0, "bench"))
        if completed:
            g_at, g_day, g_week = stamp(epoch + 1500)
            rows.append((str(uuid.UUID(int=rnd.getrandbits(128))), "round:" + rid, "grant", 500, g_at, epoch + 1500, 3600,
                         g_day, g_week, device, "grant round=%s active=1500" % rid, None, None, rid, None, 500, 0, 10800,
                         None, None, None, None))
            balance += 500
    # Other entries up to the count: spends and corrections, never overdrawing.
    epoch = start
    n = len(rows)
    while n < entries:
        epoch += 7
        at, day, week = stamp(epoch)
        if balance >= 60 and rnd.random() < 0.45:
            rows.append((str(uuid.UUID(int=rnd.getrandbits(128))), None, "spend", -60, at, epoch, 3600, day, week, device,
                         "spend 60 on=bench", "bench", None, None, None, None, None, None, None, None, None, None))
            balance -= 60
        else:
            rows.append((str(uuid.UUID(int=rnd.getrandbits(128))), None, "adjustment", 60, at, epoch, 3600, day, week, device,
                         "adjustment 60 reason=bench", None, "bench", None, None, None, None, None, None, None, None, None))
            balance += 60
        n += 1
    rows.sort(key=lambda r: r[5])
    db.executemany("""INSERT INTO entries(id, key, kind, amount, at, at_epoch, at_offset, local_day, iso_week, device, payload,
                      label, reason, round_id, pass_id, requested, cut, cap, used, forfeit, reserve, allowance)
                      VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""", rows)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
