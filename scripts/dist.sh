#!/usr/bin/env bash
# Builds dist/hum-VERSION-linux-ARCH.tar.gz from a built hum: the stripped binary, the built-in sounds, the
# manual page and the completions (made by that binary), the systemd user unit, the desktop entry, the icon, the
# AppStream metadata, the licence, and install.sh. Inside, the files sit as they sit under a prefix (bin/,
# share/), so the unpacked folder is itself a place hum runs from (bin/hum finds ../share/hum/sounds).
#   HUM_BIN   the binary to package (default .build/release/hum, what `make release` builds)
#   DIST_DIR  where the tarball goes (default dist)
#   HUM_ALLOW_DYNAMIC_SWIFT=1  package a binary that loads the Swift runtime from the toolchain (a debug build,
#             for the tests only: such a tarball runs only where that toolchain is)
# Prints the tarball's path on its last line.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${HUM_BIN:-$root/.build/release/hum}"
out="${DIST_DIR:-$root/dist}"
[ -x "$bin" ] || { echo "dist.sh: no binary at $bin; run 'make release' or set HUM_BIN" >&2; exit 1; }
"$root/scripts/check-static-swift.sh" "$bin"

# The version is written once, in the binary (humVersion); `hum --version` says "hum VERSION (COMMIT)".
version=$("$bin" --version | awk '{print $2}')
name="hum-$version-linux-$(uname -m)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/$name"

install -d "$stage/bin" "$stage/share/hum/sounds" "$stage/share/man/man1" \
    "$stage/share/bash-completion/completions" "$stage/share/zsh/site-functions" \
    "$stage/share/fish/vendor_completions.d" "$stage/share/applications" \
    "$stage/share/icons/hicolor/scalable/apps" "$stage/share/metainfo" "$stage/share/systemd/user"
strip -o "$stage/bin/hum" "$bin"
chmod 0755 "$stage/bin/hum"
echo "binary: $(stat -c %s "$bin") bytes, $(stat -c %s "$stage/bin/hum") stripped" >&2
install -m 0644 "$root/Sounds/sounds.json" "$root"/Sounds/*.ogg "$stage/share/hum/sounds/"
# The one-shot event clips some sounds play over their loops (Sounds/events/ID/NN.ogg).
for d in "$root"/Sounds/events/*/; do
    [ -d "$d" ] || continue
    install -d "$stage/share/hum/sounds/events/$(basename "$d")"
    install -m 0644 "$d"*.ogg "$stage/share/hum/sounds/events/$(basename "$d")/"
done
"$bin" manpage > "$stage/share/man/man1/hum.1"
"$bin" completions bash > "$stage/share/bash-completion/completions/hum"
"$bin" completions zsh > "$stage/share/zsh/site-functions/_hum"
"$bin" completions fish > "$stage/share/fish/vendor_completions.d/hum.fish"
install -m 0644 "$root/contrib/hum.desktop" "$stage/share/applications/"
install -m 0644 "$root/contrib/hum.svg" "$stage/share/icons/hicolor/scalable/apps/"
install -m 0644 "$root/contrib/io.github.hum.metainfo.xml" "$stage/share/metainfo/"
# The unit keeps its @PREFIX@: install.sh puts the prefix it installs into.
install -m 0644 "$root/contrib/hum.service" "$stage/share/systemd/user/"
install -m 0644 "$root/LICENSE" "$root/NOTICE" "$root/README.md" "$root/CHANGELOG.md" "$stage/"
install -m 0755 "$root/scripts/dist/install.sh" "$stage/"

# The same bytes for the same commit: files in name order, owned by root, dated by the last commit.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
mkdir -p "$out"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" \
    | gzip -9n > "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
