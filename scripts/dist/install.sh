#!/bin/sh
# Installs hum from this unpacked release into ~/.local (or PREFIX=DIR), and says what it put where.
#   ./install.sh                    into ~/.local
#   PREFIX=/usr/local ./install.sh  into /usr/local (as root)
#   ./install.sh --uninstall        removes what it installs (same PREFIX)
# The binary and its built-in sounds go to PREFIX/lib/hum (bin/hum and share/hum/sounds, where hum finds them,
# beside the real binary), and PREFIX/bin/hum links to it: with the default PREFIX, PREFIX/share/hum/sounds
# is the folder of your own sounds ($XDG_DATA_HOME/hum/sounds), and the built-in ones must not land there.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-"$HOME/.local"}
case "$prefix" in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;; esac

mode=install
case "${1:-}" in
    "") ;;
    --uninstall) mode=uninstall ;;
    -h | --help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$1'; try --uninstall or --help" >&2; exit 2 ;;
esac

# What goes where: the path in this release, the path under PREFIX, its mode, and what it is.
files="
bin/hum lib/hum/bin/hum 0755 binary
share/man/man1/hum.1 share/man/man1/hum.1 0644 manual
share/bash-completion/completions/hum share/bash-completion/completions/hum 0644 bash
share/zsh/site-functions/_hum share/zsh/site-functions/_hum 0644 zsh
share/fish/vendor_completions.d/hum.fish share/fish/vendor_completions.d/hum.fish 0644 fish
share/applications/hum.desktop share/applications/hum.desktop 0644 desktop
share/icons/hicolor/scalable/apps/hum.svg share/icons/hicolor/scalable/apps/hum.svg 0644 icon
share/metainfo/io.github.hum.metainfo.xml share/metainfo/io.github.hum.metainfo.xml 0644 metainfo
share/systemd/user/hum.service share/systemd/user/hum.service 0644 service
"
sounds=lib/hum/share/hum/sounds

if [ "$mode" = uninstall ]; then
    echo "$files" | while read -r src dest perm what; do
        [ -n "$src" ] || continue
        if [ -e "$prefix/$dest" ]; then rm -f "$prefix/$dest" && echo "removed $prefix/$dest"; fi
    done
    if [ -L "$prefix/bin/hum" ]; then rm -f "$prefix/bin/hum" && echo "removed $prefix/bin/hum"; fi
    if [ -d "$prefix/lib/hum" ]; then rm -rf "$prefix/lib/hum" && echo "removed $prefix/lib/hum"; fi
    echo "your own data (\$XDG_DATA_HOME/hum: the database, your sounds and settings) is kept"
    exit 0
fi

echo "$files" | while read -r src dest perm what; do
    [ -n "$src" ] || continue
    mkdir -p "$(dirname "$prefix/$dest")"
    case "$dest" in
        # The unit and the desktop entry name the binary by its full path: ~/.local/bin is often not in the
        # PATH that systemd or the desktop gives.
        *hum.service | *hum.desktop)
            sed -e "s|@PREFIX@|$prefix|g" -e "s|^Exec=hum |Exec=$prefix/bin/hum |" "$here/$src" > "$prefix/$dest.tmp"
            chmod "$perm" "$prefix/$dest.tmp"
            mv -f "$prefix/$dest.tmp" "$prefix/$dest"
            ;;
        *)
            cp "$here/$src" "$prefix/$dest.tmp"
            chmod "$perm" "$prefix/$dest.tmp"
            mv -f "$prefix/$dest.tmp" "$prefix/$dest"
            ;;
    esac
    printf '%-9s %s\n' "$what" "$prefix/$dest"
done
mkdir -p "$prefix/bin"
ln -sfn ../lib/hum/bin/hum "$prefix/bin/hum"
printf '%-9s %s\n' link "$prefix/bin/hum -> ../lib/hum/bin/hum"
rm -rf "${prefix:?}/$sounds"
mkdir -p "$prefix/$sounds"
cp -R "$here"/share/hum/sounds/* "$prefix/$sounds/"
chmod -R u=rwX,go=rX "$prefix/$sounds"
printf '%-9s %s\n' sounds "$prefix/$sounds/ ($(ls "$here"/share/hum/sounds/*.ogg | wc -l) sounds)"
echo
echo "installed hum $("$prefix/bin/hum" --version | cut -d' ' -f2-) into $prefix"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not in your PATH; add it to use 'hum'" ;; esac
echo "zsh: completions are in $prefix/share/zsh/site-functions; unless that is in your fpath, add"
echo "     fpath=($prefix/share/zsh/site-functions \$fpath) to ~/.zshrc before compinit"
if [ "$prefix" != "$HOME/.local" ]; then
    echo "fish: completions are found when $prefix/share is in XDG_DATA_DIRS"
fi
echo "player service: systemctl --user daemon-reload && systemctl --user enable --now hum"
echo "to remove: $0 --uninstall$( [ -n "${PREFIX:-}" ] && echo " (with PREFIX=$prefix)")"
