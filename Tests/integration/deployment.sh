#!/usr/bin/env bash
# docs/deployment.md's commands as written, in a mount namespace of this script's own so that the
# machine is not changed: /etc is an overlay whose changes (useradd's, /etc/signup, /etc/cron.d)
# stay in a folder of the run, as Tests/integration/config.sh makes it, and /var/lib/signup,
# /var/lib/signup-public and /var/backups/signup are private folders. The blocks the guide marks are run with the built
# binary as `signup`; then Dovecot's auth worker as dovecot logs in with the guide's
# dovecot-sql.conf.ext, after the nightly backup's command ran, and again after the restore.
# usage: SIGNUP_BIN=… deployment.sh   (as root)
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$root/scripts/lib/dovecot.sh"
if [ "$(id -u)" -ne 0 ]; then echo "deployment: skipped (needs root)"; exit 0; fi
if [ -z "${SIGNUP_DEPLOYMENT_NAMESPACE:-}" ]; then
    exec env SIGNUP_DEPLOYMENT_NAMESPACE=1 unshare --mount --propagation private bash "${BASH_SOURCE[0]}"
fi
tmp="$(mktemp -d /tmp/signup-deployment.XXXXXX)"
chmod 0755 "$tmp"
cleanup() {
    dovecot_stop "$tmp"
    for m in /var/lib/signup /var/lib/signup-public /var/backups/signup /etc; do
        umount "$m" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/etc-upper" "$tmp/etc-work"
mount -t overlay signup-deployment -o "lowerdir=/etc,upperdir=$tmp/etc-upper,workdir=$tmp/etc-work" /etc
rm -rf /etc/signup /etc/cron.d/signup-backup
mkdir -p /var/backups
for d in /var/lib/signup /var/lib/signup-public /var/backups/signup; do
    mkdir -p "$d"; mount -t tmpfs -o mode=0755 signup-deployment "$d"
done
mkdir -p "$tmp/bin"; ln -s "$SIGNUP_BIN" "$tmp/bin/signup"
export PATH="$tmp/bin:$PATH" SIGNUP_CONFIG= HOME=/root
unset SIGNUP_DB
password="Quartz-Lantern-58"
export SIGNUP_PASSWORD="$password"  # the terminal's answer to the postmaster's password, for a script
failures=0
check() {  # check DESCRIPTION EXPECTED COMMAND...
    local got
    got="$("${@:3}" 2>&1)" || true
    if [ "$got" = "$2" ]; then echo "deployment: $1: ok"
    else echo "deployment: $1: FAILED (expected '$2', got '$got')"; failures=$((failures + 1)); fi
}
# The marked blocks, in order.
awk '/deployment.sh runs this block/ { want = 1; next } want && /^```sh$/ { inblock = 1; n++; next } inblock && /^```$/ { inblock = 0; want = 0; next } inblock { print > (dir "/block" n ".sh") }' \
    dir="$tmp" "$root/docs/deployment.md"
check "the guide marks four blocks" "4" sh -c 'ls "$1"/block*.sh | wc -l' _ "$tmp"
check "block 1 (users, folder, signup.conf) runs" "0" sh -c 'bash -e "$1/block1.sh" >/dev/null 2>&1; echo $?' _ "$tmp"
check "block 2 (the database, as new, then dovecot's group) runs" "0" sh -c 'bash -e "$1/block2.sh" </dev/null >/dev/null 2>&1; echo $?' _ "$tmp"
db=/var/lib/signup/accounts.sqlite
check "the database is new's, dovecot's group may read it" "new:dovecot 640" stat -c '%U:%G %a' "$db"
check "it is in the rollback journal" "delete" sqlite3 "$db" "PRAGMA journal_mode"

cat >"$tmp/dovecot-sql.conf.ext" <<SQL
$(awk '/^# \/etc\/dovecot\/dovecot-sql.conf.ext$/ { p = 1; next } p && /^```$/ { exit } p' "$root/docs/deployment.md")
SQL
dovecot_start "$tmp" "$tmp/dovecot-sql.conf.ext"
login() { dovecot_login "$tmp" "$@"; }
check "Dovecot accepts the postmaster" "accepted" login postmaster@example.org "$password"

# A stranger's sign-up as the forced command runs it (as new), approved by the administrator.
printf '%s\n' stranger@example.com "$password" "$password" \
    | SSH_CONNECTION="203.0.113.7 50022 192.0.2.1 22" runuser -u new -- env HOME=/var/lib/signup-public signup --public --no-prove-address >/dev/null 2>&1 || true
check "Dovecot refuses the pending stranger" "refused" login stranger@example.com "$password"
signup enable stranger@example.com >/dev/null
check "Dovecot accepts the approved stranger" "accepted" login stranger@example.com "$password"

check "block 3 (the nightly backup's cron file) runs" "0" sh -c 'bash -e "$1/block3.sh" >/dev/null 2>&1; echo $?' _ "$tmp"
backup_command="$(sed -n 's/^30 3 \* \* \* root //p' /etc/cron.d/signup-backup | sed 's/\\%/%/g')"
check "the nightly backup's command runs" "0" sh -c "$backup_command >/dev/null 2>&1; echo \$?"
check "Dovecot still accepts the stranger after the backup" "accepted" login stranger@example.com "$password"
sqlite3 "$db" ".backup $tmp/shell-copy.sqlite"
check "after sqlite3's .backup closed it last too" "accepted" login stranger@example.com "$password"

signup disable stranger@example.com >/dev/null
check "a disabled account: Dovecot refuses" "refused" login stranger@example.com "$password"
# The restore block names a dated file: the backup of this run, under that name.
cp -p /var/backups/signup/accounts-"$(date +%F)".sqlite /var/backups/signup/accounts-2026-11-28.sqlite 2>/dev/null || true
check "block 4 (the restore) runs" "0" sh -c 'bash -e "$1/block4.sh" >/dev/null 2>&1; echo $?' _ "$tmp"
check "after the restore the stranger is enabled again, as backed up" "accepted" login stranger@example.com "$password"

dovecot_stop "$tmp"
if [ "$failures" -ne 0 ]; then echo "--- dovecot log"; cat "$tmp/dovecot.log" 2>/dev/null || true; fi
[ "$failures" -eq 0 ]
