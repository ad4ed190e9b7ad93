#!/usr/bin/env bash
# scripts/install, run as root as CI runs it, into throwaway prefixes:
# the files and their modes, a reinstall, folders another user planted or can write (refused,
# nothing written), a path the Debian package manager owns (refused), --uninstall removing
# only what the manifest says it wrote, a full disk (the installed binary stays), HOME unset,
# a trailing slash on --prefix, and the notes for completion folders no shell searches.
# Each check prints "install: PASS|FAIL …"; the script fails if any failed.
# usage: install.sh   (SIGNUP_INSTALL_SCRIPT=scripts/… runs the checks against another version)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
script="${SIGNUP_INSTALL_SCRIPT:-$root/scripts/install}"
. "$root/scripts/lib/setup.sh"
if [ "$(id -u)" -ne 0 ]; then echo "install: SKIP, these checks need root (another user plants the folders)"; exit 0; fi
export SWIFT_BACKTRACE=enable=no
ensure_swift
tmp="$(mktemp -d /tmp/signup-install.XXXXXX)"
chmod 0755 "$tmp"
full="$tmp/full" package=""
cleanup() {
    chattr -i "$tmp/p/share/zsh/site-functions/_signup" 2>/dev/null || true
    mountpoint -q "$full" && umount "$full"
    [ -z "$package" ] || dpkg --purge "$package" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
[ -z "${SIGNUP_INSTALL_DEBUG:-}" ] || trap - EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
    if "${@:2}"; then echo "install: PASS $1"; else echo "install: FAIL $1"; failures=$((failures + 1)); fi
}
run() {  # run NAME ARGS...: the script's exit status in $tmp/NAME.rc, its output in NAME.out, NAME.err
    local name="$1" status=0; shift
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || status=$?
    echo "$status" >"$tmp/$name.rc"
    grep -vE '^(\[[0-9]+/[0-9]+\]|Build|Generat|Compiling|Write|Linking)' "$tmp/$name.err" | sed "s/^/install: [$name] /" | tail -n 12 || true
}
rc() { [ "$(cat "$tmp/$1.rc")" = "$2" ]; }
says() { grep -qF -- "$2" "$tmp/$1.err"; }
mode() { [ "$(stat -c %a -- "$1")" = "$2" ]; }
nothing_under() { [ -z "$(find "$1" -mindepth 1 -print -quit)" ]; }
files=(bin/signup share/man/man1/signup.1 share/bash-completion/completions/signup
    share/zsh/site-functions/_signup share/fish/vendor_completions.d/signup.fish share/man/man5/signup-policy.5 share/man/man5/signup.conf.5
    share/doc/signup/public-signup.md share/man/de/man1/signup.1 share/man/de/man5/signup-policy.5
    share/man/de/man5/signup.conf.5)
manifest=share/signup/install-manifest
# manifest_matches PREFIX: the manifest lists each of the files with its sha256.
manifest_matches() {
    for file in "${files[@]}"; do
        grep -qxF "file $(sha256sum <"$1/$file" | cut -d' ' -f1) $1/$file" "$1/$manifest" || return 1
    done
}

# --- an install, with a trailing slash ---------------------------------------------------
# The release build under test (SIGNUP_BIN, as scripts/test's build_release made it, catalogs
# beside it; else built here) is installed with --binary: these checks are of where files go
# and what is refused, and a build run again from here started over in full runs (minutes on
# two cores, for a reason not found), while scripts/test and scripts/package build it already.
release="${SIGNUP_BIN:-$(build_release "$root" 2>/dev/null)}"
p="$tmp/p"
run install bash "$script" --prefix "$p/" --binary "$release"
installed_ok() {
    rc install 0 && mode "$p/bin/signup" 755 && "$p/bin/signup" --version >/dev/null || return 1
    for file in "${files[@]:1}"; do mode "$p/$file" 644 || return 1; done
    mode "$p/$manifest" 644 && manifest_matches "$p"
}
check "installs the binary (0755, runs), the page and completions (0644) and a manifest of their sha256" installed_ok
check "the man page names the documents it cites where they are installed" \
    grep -qF "$p/share/doc/signup/public-signup.md" "$p/share/man/man1/signup.1"
check "man -L de finds the German signup(1), signup-policy(5) and signup.conf(5), complete (no English section name), and both render without warnings" bash -c '
    MANPATH="$1/share/man" man -L de -w signup | grep -qxF "$1/share/man/de/man1/signup.1" &&
    MANPATH="$1/share/man" man -L de -w signup-policy | grep -qxF "$1/share/man/de/man5/signup-policy.5" &&
    MANPATH="$1/share/man" man -L de -w signup.conf | grep -qxF "$1/share/man/de/man5/signup.conf.5" &&
    MANPATH="$1/share/man" man -L de signup 2>/dev/null | grep -q "^BESCHREIBUNG" &&
    MANPATH="$1/share/man" man -L de signup 2>/dev/null | grep -qE "^ +signup passwd a@example.com +ein Passwort an diesem Terminal" &&
    MANPATH="$1/share/man" man -L de signup-policy 2>/dev/null | grep -q "^EINGEBAUTE REGELN" &&
    ! MANPATH="$1/share/man" man -L de signup 2>/dev/null | grep -qE "^(DESCRIPTION|EXAMPLES|ENVIRONMENT|FILES|EXIT STATUS)$" &&
    for f in "$1"/share/man/de/man*/*; do w="$(groff -k -mandoc -Tutf8 -ww -z "$f" 2>&1)"; [ -z "$w" ] || { echo "$w" >&2; exit 1; }; done' _ "$p"
check "installs the German catalog (0644, in the manifest), and the installed binary speaks German with it" bash -c '
    f="$1/share/locale/de/LC_MESSAGES/signup.mo"
    [ "$(stat -c %a -- "$f")" = 644 ] && grep -qxF "file $(sha256sum <"$f" | cut -d" " -f1) $f" "$1/share/signup/install-manifest" &&
        printf "a@example.com\n" | env -i LANGUAGE=de LC_ALL=C.UTF-8 "$1/bin/signup" --db "$2/de.sqlite" 2>&1 | grep -qx "E-Mail: a@example.com"' _ "$p" "$tmp"
check "without DIR/bin on PATH it says so" grep -qxF "note: $p/bin is not on PATH" "$tmp/install.err"
mkdir -m 0755 "$tmp/on-path"
PATH="$tmp/on-path/p/bin:$PATH" run on-path bash "$script" --prefix "$tmp/on-path/p/" --binary "$release"
check "--prefix DIR/ with DIR/bin on PATH gives no 'not on PATH' note" bash -c '[ "$(cat "$1/on-path.rc")" = 0 ] && ! grep -q "not on PATH" "$1/on-path.err"' _ "$tmp"
check "names the completion folders bash, zsh and fish do not search, with the line to add" bash -c '
    grep -qxF "    . $1/share/bash-completion/completions/signup" "$2" &&
    grep -qxF "    fpath=($1/share/zsh/site-functions \$fpath)" "$2" &&
    grep -qxF "    set -p fish_complete_path $1/share/fish/vendor_completions.d" "$2"' _ "$p" "$tmp/install.err"
# Each line printed, run in its shell (when installed), makes that shell complete signup.
note_line() { grep -A1 -F "note: $1 does not search" "$tmp/install.err" | sed -n '2s/^    //p'; }
if command -v zsh >/dev/null 2>&1 && command -v fish >/dev/null 2>&1; then
    completes_ok() {
        bash -c "$(note_line bash-completion); complete -p signup" >/dev/null 2>&1 &&
        [ "$(zsh -fc "$(note_line zsh); autoload -Uz compinit; compinit -u -d $tmp/zcompdump; print -r -- \${_comps[signup]}")" = _signup ] &&
        # Captured first: grep -q would stop reading early, and fish's SIGPIPE fail the pipeline.
        local offered; offered="$(PATH="$p/bin:$PATH" fish -c "$(note_line fish); complete -C 'signup --'")" &&
        grep -q '^--db' <<<"$offered"
    }
    check "... and each line, run in bash, zsh and fish, makes that shell complete signup" completes_ok
else
    echo "install: SKIP running the notes' lines in zsh and fish (not installed)"
fi
# Into a home's ~/.local: bash and fish search ~/.local/share, zsh does not.
h="$tmp/home"; mkdir -m 0755 "$h"
HOME="$h" run home bash "$script" --prefix "$h/.local" --binary "$release"
check "into ~/.local: a note for zsh only, the line for ~/.zshrc" bash -c '
    [ "$(cat "$1/home.rc")" = 0 ] && grep -qxF "    fpath=($2/.local/share/zsh/site-functions \$fpath)" "$1/home.err" &&
    grep -qF "add before compinit in ~/.zshrc" "$1/home.err" && ! grep -qE "note: (bash-completion|fish)" "$1/home.err"' _ "$tmp" "$h"
before="$(sha256sum <"$p/bin/signup")"
run reinstall bash "$script" --prefix "$p" --binary "$release"
reinstalled_ok() {
    rc reinstall 0 && [ "$(sha256sum <"$p/bin/signup")" = "$before" ] && manifest_matches "$p" &&
        [ -z "$(find "$p" -name ".*" -print -quit)" ]
}
check "a reinstall succeeds: the same binary, a manifest that matches, no staging file left" reinstalled_ok

# --- the outside review's attack: a shared prefix whose folders another user made links ----
mkdir -m 0755 "$tmp/v" "$tmp/v/rootonly"; mkdir "$tmp/v/shared"; chown nobody: "$tmp/v/shared"
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'cd "$1" && mkdir -p share/bash-completion &&
    ln -s "$2" share/bash-completion/completions && ln -s "$2" bin' _ "$tmp/v/shared" "$tmp/v/rootonly"
run planted bash "$script" --prefix "$tmp/v/shared"
check "refuses a prefix another user owns and linked to a root-only folder, writing nothing there" bash -c '
    [ "$(cat "$1/planted.rc")" = 1 ] && grep -qF "$1/v/shared belongs to nobody" "$1/planted.err" &&
    [ -z "$(ls -A "$1/v/rootonly")" ] && [ -z "$(find "$1/v/shared" -type f -print -quit)" ]' _ "$tmp"
echo "root's own file" >"$tmp/v/rootonly/signup"
run planted-uninstall bash "$script" --prefix "$tmp/v/shared" --uninstall
check "--uninstall refuses it too: root's file behind the planted link stays" bash -c '
    [ "$(cat "$1/planted-uninstall.rc")" = 1 ] && [ "$(cat "$1/v/rootonly/signup")" = "root'\''s own file" ]' _ "$tmp"
# The link itself is root's now, but the folder holding it is still another user's.
chown -h root: "$tmp/v/shared/bin"
run planted-link bash "$script" --prefix "$tmp/v/shared" --uninstall
check "... and still refuses when only the link is root's" rc planted-link 1

# --- a folder on the way that another user owns, or that its group can write ----------------
f="$tmp/foreign"; mkdir -m 0755 "$f" "$f/share"; chown nobody: "$f/share"
run foreign bash "$script" --prefix "$f"
check "refuses a folder on the way that another user owns, naming it and the owner, writing nothing" bash -c '
    [ "$(cat "$1/foreign.rc")" = 1 ] && grep -qF "$2/share belongs to nobody" "$1/foreign.err" &&
    [ "$(find "$2" -mindepth 1 | wc -l)" = 1 ]' _ "$tmp" "$f"
g="$tmp/group"; mkdir -m 0775 "$g"; chgrp nogroup "$g"
run group bash "$script" --prefix "$g/sub"
check "refuses a prefix under a folder its group (not root's) can write" bash -c '
    [ "$(cat "$1/group.rc")" = 1 ] && grep -qF "the folder $2 (owner root, mode 775)" "$1/group.err" && [ ! -e "$2/sub" ]' _ "$tmp" "$g"

# --- a path the Debian package manager owns --------------------------------------------
# A real package, installed for this check only, that owns PREFIX/bin/signup.
d="$tmp/dpkg-prefix"
package="signup-install-test-$$"
mkdir -p "$tmp/deb/DEBIAN" "$tmp/deb$d/bin"
echo "the package's signup" >"$tmp/deb$d/bin/signup"
printf 'Package: %s\nVersion: 1\nArchitecture: all\nMaintainer: test <test@example.invalid>\nDescription: test\n' \
    "$package" >"$tmp/deb/DEBIAN/control"
dpkg_installed=false
if dpkg-deb -b "$tmp/deb" "$tmp/test.deb" >/dev/null 2>&1; then
    for _ in $(seq 30); do dpkg -i "$tmp/test.deb" >/dev/null 2>&1 && { dpkg_installed=true; break; }; sleep 2; done
fi
if $dpkg_installed; then
    run dpkg bash "$script" --prefix "$d"
    check "refuses to install over a path a Debian package owns, naming the package" bash -c '
        [ "$(cat "$1/dpkg.rc")" = 1 ] && grep -qF "belongs to the Debian package $3" "$1/dpkg.err" &&
        [ "$(cat "$2/bin/signup")" = "the package'\''s signup" ] && [ ! -e "$2/share/man" ]' _ "$tmp" "$d" "$package"
    dpkg --purge "$package" >/dev/null 2>&1 || true
else
    echo "install: SKIP the dpkg-owned path (dpkg -i of a test package failed: the dpkg lock is held?)"
fi
package=""

# --- --uninstall ----------------------------------------------------------------------
# Files present at the five paths, but no manifest: nothing of scripts/install's.
o="$tmp/other"; mkdir -p "$o/bin"; echo "someone else's" >"$o/bin/signup"
run other bash "$script" --prefix "$o" --uninstall
check "--uninstall leaves a file it has no manifest for, saying why" bash -c '
    [ "$(cat "$2/bin/signup")" = "someone else'\''s" ] && grep -qF "left $2/bin/signup" "$1/other.err"' _ "$tmp" "$o"
# An installed tree with the man page edited and the fish file replaced by a link.
echo ".\\\" edited" >>"$p/share/man/man1/signup.1"
ln -sf /dev/null "$p/share/fish/vendor_completions.d/signup.fish"
# The zsh file cannot be removed (immutable): a removal that fails.
if chattr +i "$p/share/zsh/site-functions/_signup" 2>/dev/null; then
    run stuck bash "$script" --prefix "$p" --uninstall
    chattr -i "$p/share/zsh/site-functions/_signup"
    check "--uninstall exits 1 and keeps its manifest when a removal fails" bash -c '
        [ "$(cat "$1/stuck.rc")" = 1 ] && grep -qF "could not remove $2/share/zsh/site-functions/_signup" "$1/stuck.err" &&
        [ -f "$2/share/signup/install-manifest" ]' _ "$tmp" "$p"
else
    echo "install: SKIP the failing removal (chattr +i does not work on $tmp's file system)"
fi
run uninstall bash "$script" --prefix "$p" --uninstall
uninstalled_ok() {
    rc uninstall 0 || return 1
    # What it wrote is gone, and the folders it made and left empty.
    for gone in bin share/bash-completion share/zsh share/signup share/doc; do
        [ ! -e "$p/$gone" ] || { echo "install: $p/$gone is still there"; return 1; }
    done
    # The edited page and the link stay, with their folders, and it says why.
    grep -qF '.\" edited' "$p/share/man/man1/signup.1" && [ -L "$p/share/fish/vendor_completions.d/signup.fish" ] &&
        says uninstall "left $p/share/man/man1/signup.1: its content changed" &&
        says uninstall "left $p/share/fish/vendor_completions.d/signup.fish"
}
check "--uninstall removes what it wrote and its empty folders, leaves an edited file and a link, saying why" uninstalled_ok

# --- a full disk: the reinstall fails, the installed binary stays ----------------------------
mkdir "$full"
# Room for twice the unstripped binary (install -s copied it whole, then strip wrote a
# stripped copy beside it) and a little more.
size_kib=$(( 2 * $(stat -c %s "$release") / 1024 + 16384 ))
if mount -t tmpfs -o "size=${size_kib}k" tmpfs "$full" 2>/dev/null; then
    run full-first bash "$script" --prefix "$full/p" --binary "$release"
    if rc full-first 0; then
        kept="$(sha256sum <"$full/p/bin/signup")"
        dd if=/dev/zero of="$full/filler" bs=64k 2>/dev/null || true
        run full bash "$script" --prefix "$full/p" --binary "$release"
        check "on a full disk a reinstall fails and the installed binary stays, working, with no staging file" bash -c '
            [ "$(cat "$1/full.rc")" != 0 ] && [ "$(sha256sum <"$2/bin/signup")" = "$3" ] && "$2/bin/signup" --version >/dev/null &&
            [ -z "$(find "$2" -name ".*" -print -quit)" ]' _ "$tmp" "$full/p" "$kept"
    else
        echo "install: FAIL the first install into a ${size_kib} KiB tmpfs failed"; failures=$((failures + 1))
    fi
    umount "$full"
else
    echo "install: SKIP the full disk (mount -t tmpfs is not allowed here)"
fi

# --- HOME unset, as a user who is not root ----------------------------------------------
run nohome setpriv --reuid=nobody --regid=nogroup --clear-groups env -u HOME bash "$script"
check "HOME unset for a user: a usage message that names HOME, exit 64" bash -c '
    [ "$(cat "$1/nohome.rc")" = 64 ] && grep -q "^usage: .*HOME" "$1/nohome.err"' _ "$tmp"

# --binary names a program that is not signup: a usage message, nothing written.
mkdir -m 0755 "$tmp/b"
run badbinary bash "$script" --prefix "$tmp/b/p" --binary /bin/false
check "--binary FILE that is not signup: a usage message that names it, exit 64, nothing written" bash -c '
    [ "$(cat "$1/badbinary.rc")" = 64 ] && grep -q "^usage: .*--binary /bin/false" "$1/badbinary.err" && [ ! -e "$1/b/p" ]' _ "$tmp"

echo "install: $failures failed"
[ "$failures" -eq 0 ]
