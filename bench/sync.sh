#!/usr/bin/env bash
# Sync benchmark (not a test): 100,000 ledger events across 3 devices, each device's journal written by
# `hum sync init`; then a fourth machine's cold merge of all three journals (the first `hum bank` after they
# arrive) and its warm check (a `hum bank` with nothing new), against `hum bank` on the same database with sync
# off. Release build unless HUM is given. Prints the figures that go into docs/PERFORMANCE.md ("Sync").
# KEEP=DIR (a folder that does not exist yet): work there and keep it, with the fourth machine as it was just before
# its cold merge in DIR/merger.before, to time that merge again on fresh copies (docs/PERFORMANCE.md, "Sync").
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${HUM:-}" ]; then
    swift build -c release --product hum >/dev/null
    HUM="$PWD/.build/release/hum"
fi
if [ -n "${KEEP:-}" ]; then
    mkdir "$KEEP"
    work="$(cd "$KEEP" && pwd)"
else
    work="$(mktemp -d /tmp/hum-bench-sync.XXXXXX)"
    trap 'rm -rf "$work"' EXIT
fi

. bench/timing.sh

home() {  # home NAME: the environment of one machine (its data, its machine id)
    export XDG_DATA_HOME="$work/$1/data" XDG_STATE_HOME="$work/$1/state" XDG_RUNTIME_DIR="$work/$1/run"
    export HUM_MACHINE_ID_PATH="$work/$1/machine-id"
    mkdir -p "$work/$1/run" && chmod 700 "$work/$1/run"
    [ -f "$HUM_MACHINE_ID_PATH" ] || python3 -c 'import uuid; print(uuid.uuid4().hex)' > "$HUM_MACHINE_ID_PATH"
}

echo "== 3 devices, 33,334 + 33,333 + 33,333 ledger events"
counts=(33334 33333 33333)
for i in 0 1 2; do
    home "dev$i"
    "$HUM" bank >/dev/null
    python3 bench/sync-fixture.py "$XDG_DATA_HOME/hum/hum.db" "${counts[$i]}" "$((i + 1))"
    start=$(date +%s%N)
    "$HUM" sync init "$work/dev$i/Sync" >/dev/null
    echo "device $i: hum sync init (writes ${counts[$i]} lines): $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
echo "journals: $(du -ch "$work"/dev*/Sync/hum-sync/v1/devices/*/journal.jsonl | tail -1 | cut -f1)"

echo "== a fourth machine merges them"
home merger
"$HUM" sync init "$work/merger/Sync" >/dev/null
for i in 0 1 2; do cp -r "$work/dev$i/Sync/hum-sync/v1/devices/"* "$work/merger/Sync/hum-sync/v1/devices/"; done
if [ -n "${KEEP:-}" ]; then cp -a "$work/merger" "$work/merger.before"; fi
start=$(date +%s%N)
"$HUM" bank >/dev/null
echo "cold merge (first hum bank, 100,000 lines): $(( ($(date +%s%N) - start) / 1000000 )) ms"
"$HUM" sync status | head -5
echo "warm hum bank (sync on, nothing new): $(time_median 30 "$HUM" bank)"
mkdir -p "$work/plain/data/hum"
cp "$work/merger/data/hum/hum.db" "$work/plain/data/hum/hum.db"
sqlite3 "$work/plain/data/hum/hum.db" "UPDATE sync_self SET dir = NULL; DELETE FROM config WHERE key = 'sync.dir'"
home plain
echo "hum bank, same database, sync off: $(time_median 30 "$HUM" bank)"
