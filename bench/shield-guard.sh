#!/usr/bin/env bash
# Benchmark (not a test): what the shields' guard costs the player (issue 22: under 0.2 % of a core to find new
# processes on a desktop with 500 processes). 500 idle processes of this user (sleep) run; a silent player
# (`hum daemon --no-sound`) runs SECONDS (default 60) with no shield, then SECONDS more with one shield up that
# names a program not running (so the guard looks at every process once a second and freezes nothing). The player's
# CPU (user + system, from /proc/PID/stat) over each window, in % of one core, and the ratio with/without.
# Usage: bench/shield-guard.sh [SECONDS]   (the release build by default: make release; HUM_BIN for another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
hum=$(realpath "${HUM_BIN:-.build/release/hum}")
base=$(mktemp -d /dev/shm/hum-bench-shield.XXXXXX)
chmod 700 "$base"
export XDG_RUNTIME_DIR=$base/run XDG_DATA_HOME=$base/data XDG_STATE_HOME=$base/state XDG_CONFIG_HOME=$base/config
mkdir -m 700 "$XDG_RUNTIME_DIR"
idle=()
player=
cleanup() {
    [ -n "$player" ] && kill "$player" 2>/dev/null || true
    for pid in "${idle[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$base"
}
trap cleanup EXIT
for _ in $(seq 500); do
    sleep 100000 &
    idle+=($!)
done
echo "processes on the machine: $(ls -d /proc/[0-9]* | wc -l) (500 of them idle sleeps started here)"
tick=$(getconf CLK_TCK)
# The player's CPU ticks (utime + stime, fields 14 and 15 of /proc/PID/stat).
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
# CPU of the player over `seconds`, in % of one core.
window() {
    local before after
    before=$(ticks "$player")
    sleep "$seconds"
    after=$(ticks "$player")
    awk -v d=$((after - before)) -v t="$tick" -v s="$seconds" 'BEGIN { printf "%.3f", 100 * d / t / s }'
}
"$hum" ledger adjust +1m --reason bench >/dev/null 2>&1
"$hum" daemon --no-sound >"$base/player.log" 2>&1 &
player=$!
for _ in $(seq 100); do "$hum" status --json >/dev/null 2>&1 && break; sleep 0.1; done
sleep 2
without=$(window)
"$hum" shield add bench --app no-such-game-here >/dev/null
"$hum" status | grep -q 'shields: bench up' || { echo "the shield is not up" >&2; exit 1; }
sleep 2
with=$(window)
echo "player's CPU over ${seconds} s, no shield:        ${without} % of a core"
echo "player's CPU over ${seconds} s, one shield up:    ${with} % of a core"
awk -v a="$without" -v b="$with" 'BEGIN {
    if (a > 0) printf "ratio with/without: %.2f; the guard alone: %.3f %% of a core\n", b / a, b - a
    else printf "ratio with/without: (no CPU without); the guard alone: %.3f %% of a core\n", b - a }'
