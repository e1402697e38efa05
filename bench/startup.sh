#!/usr/bin/env bash
# Benchmark (not a test): the size of a hum binary and what starting it costs, for issue 28's table in
# docs/PERFORMANCE.md. For `hum --version` and `hum status --json` (no player, a fresh database), 100 runs each
# after 5 to warm up: the wall time (minimum and median) and the CPU time (user + system, the mean).
# Usage: bench/startup.sh [BINARY...]   (default .build/release/hum; each is measured stripped, as shipped)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- .build/release/hum
base=$(mktemp -d /dev/shm/hum-bench-startup.XXXXXX)
trap 'rm -rf "$base"' EXIT
export XDG_RUNTIME_DIR=$base/run XDG_DATA_HOME=$base/data XDG_STATE_HOME=$base/state XDG_CONFIG_HOME=$base/config \
    XDG_CACHE_HOME=$base/cache HOME=$base
mkdir -m 700 "$XDG_RUNTIME_DIR"
printf '%-28s %12s %12s  %-16s %9s %9s %9s\n' binary bytes stripped command "min ms" "median ms" "cpu ms"
for bin in "$@"; do
    stripped=$base/$(basename "$bin")-stripped
    strip -o "$stripped" "$bin"
    "$stripped" status --json >/dev/null  # creates the database once
    for command in "--version" "status --json"; do
        python3 - "$stripped" $command <<'PY' | while read -r min median cpu; do
import os, resource, statistics, subprocess, sys, time
argv = sys.argv[1:]
for _ in range(5):
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
walls = []
before = resource.getrusage(resource.RUSAGE_CHILDREN)
for _ in range(100):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - start)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / 100
print("%.2f %.2f %.2f" % (min(walls) * 1000, statistics.median(walls) * 1000, cpu * 1000))
PY
            printf '%-28s %12s %12s  %-16s %9s %9s %9s\n' "$(basename "$bin")" "$(stat -c %s "$bin")" \
                "$(stat -c %s "$stripped")" "hum $command" "$min" "$median" "$cpu"
        done
    done
done
