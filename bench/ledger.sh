#!/usr/bin/env bash
# Ledger benchmark (not a test): `hum bank` with 1,000,000 ledger entries, and `hum export --format json` of
# 100,000 sessions. Release build. Prints the figures that go into docs/PERFORMANCE.md ("Ledger").
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product hum >/dev/null
HUM="$PWD/.build/release/hum"
work="$(mktemp -d /tmp/hum-bench-ledger.XXXXXX)"
trap 'rm -rf "$work"' EXIT

. bench/timing.sh

echo "== 1,000,000 ledger entries (100,000 of them grants of 100,000 sessions)"
export XDG_DATA_HOME="$work/big"
"$HUM" bank >/dev/null
python3 bench/ledger-fixture.py "$XDG_DATA_HOME/hum/hum.db" 1000000 100000
"$HUM" bank
echo "hum bank:                 $(time_median 50 "$HUM" bank)"
echo "hum bank --json:          $(time_median 50 "$HUM" bank --json)"
echo "hum export --format json: $(time_median 5 "$HUM" export --format json -o "$work/big.json") (all 100,000 sessions and 1,000,000 entries)"

echo "== 100,000 sessions and their 80,000 grants"
export XDG_DATA_HOME="$work/sessions"
"$HUM" bank >/dev/null
python3 bench/ledger-fixture.py "$XDG_DATA_HOME/hum/hum.db" 80000 100000
echo "hum export --format json: $(time_median 5 "$HUM" export --format json -o "$work/sessions.json")"
echo "  file: $(du -h "$work/sessions.json" | cut -f1)"
echo "hum export --format jsonl: $(time_median 5 "$HUM" export --format jsonl -o "$work/sessions.jsonl")"
echo "hum history --json:       $(time_median 3 "$HUM" history --json)"
echo "hum ledger check:         $(time_median 1 "$HUM" ledger check)"
