#!/usr/bin/env bash
# Report benchmark (not a test): `hum report month` over 100,000 rounds (bench/ledger.sh's fixture: a focus round
# every 2 hours from 2020-09-13 on, 80,000 of them granted), and the other readings of the history. Release build.
# Prints the figures that go into docs/PERFORMANCE.md ("Reports"). The goal: hum report month under 200 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product hum >/dev/null
HUM="$PWD/.build/release/hum"
work="$(mktemp -d /tmp/hum-bench-report.XXXXXX)"
trap 'rm -rf "$work"' EXIT

. bench/timing.sh

export XDG_DATA_HOME="$work/data" TZ=Europe/Paris
"$HUM" bank >/dev/null
python3 bench/ledger-fixture.py "$XDG_DATA_HOME/hum/hum.db" 80000 100000
echo "== 100,000 rounds, 80,000 grants; this month holds $("$HUM" history --since "this month" --until "this month" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["sessions"]))') of them"
echo "hum report month:              $(time_median 20 "$HUM" report month)"
echo "hum report month --json:       $(time_median 20 "$HUM" report month --json)"
echo "hum report week:               $(time_median 20 "$HUM" report week)"
echo "hum report year:               $(time_median 10 "$HUM" report year)"
echo "hum report month --tag bench:  $(time_median 20 "$HUM" report month --tag bench)"
echo "hum history (the last 7 days): $(time_median 20 "$HUM" history)"
echo "hum export --format ical:      $(time_median 3 "$HUM" export --format ical -o "$work/all.ics") (all 100,000 rounds)"
echo "  file: $(du -h "$work/all.ics" | cut -f1)"
