# Sourced by the benchmarks that time a short command many times (bench/ledger.sh, bench/report.sh).

# time_median RUNS COMMAND...: the median wall time of RUNS runs, in milliseconds.
time_median() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print("median %.1f ms, min %.1f ms, max %.1f ms over %d runs" % (times[len(times) // 2], times[0], times[-1], runs))
PY
}
