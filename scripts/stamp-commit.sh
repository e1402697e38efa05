#!/usr/bin/env bash
# Writes Sources/HumCLI/BuildStamp.swift (or the file named by $1): the commit hum is built from, which
# `hum --version` prints. Swift has no way to pass a value into a build without a package plugin, so make writes
# this file, gitignored, before it builds; its `BuildStamp.commit` shadows the default in HumMain.swift, so a plain
# `swift build` without it still compiles and says "commit unknown". "-dirty" marks changes not committed. The
# file is rewritten only when its text changes, so an unchanged tree rebuilds nothing; outside a git checkout it
# is removed, so no stale commit is ever printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/Sources/HumCLI/BuildStamp.swift}"
if ! commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
    rm -f "$out"
    exit 0
fi
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit-dirty"
fi
text="// Written by scripts/stamp-commit.sh before make builds; not in git (see BuildStamp in HumMain.swift).
extension BuildStamp {
    public static var commit: String { \"$commit\" }
}"
if [ ! -f "$out" ] || [ "$(cat "$out")" != "$text" ]; then
    printf '%s\n' "$text" > "$out"
fi
