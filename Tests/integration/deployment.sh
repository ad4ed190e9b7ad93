#!/usr/bin/env bash
# The guide's own test: docs/deployment.md's commands as written, one deployment where every part
# uses one database. It runs in namespaces of its own so that the machine is not changed: a mount
# namespace where /etc and /usr are overlays whose changes (useradd's, /etc/signup, /etc/cron.d,
# /usr/bin/signup, /usr/sbin/sendmail) stay in a folder of the run, and /var/lib/signup,
# /var/lib/signup-public, /var/backups/signup and /run/postgresql are private folders; a network
# namespace with only loopback, where sshd listens on port 22 and PostgreSQL on 5432 as the guide
# says; a PID namespace, so that no server outlives the run whatever ends it.
#
# In the guide's order: the users, the folder and signup.conf; the database made as `new`; Exim
# (scripts/lib/mta.sh) as the machine's MTA behind /usr/sbin/sendmail, signup's default
# mail.command; sshd with docs/public-signup.md's configuration, PAM included; a stranger's
# `ssh new@localhost` with the code from the mailbox, approved by the administrator; Dovecot's auth
# worker as `dovecot` with the guide's dovecot-sql.conf.ext; a forgotten password reset over
# `ssh reset@localhost` with its mailed code; the nightly backup, `sqlite3 .backup` and `signup
# backup` while Dovecot keeps logging in; the restore; PostgreSQL by export and import, every
# account whole, then the forced commands and Dovecot on it.
# usage: SIGNUP_BIN=… deployment.sh   (as root)
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then echo "deployment: skipped (needs root)"; exit 0; fi
if [ -z "${SIGNUP_DEPLOYMENT_NAMESPACE:-}" ]; then
    SIGNUP_BIN="$(readlink -f "$SIGNUP_BIN")"
    exec env SIGNUP_DEPLOYMENT_NAMESPACE=1 SIGNUP_BIN="$SIGNUP_BIN" \
        unshare --mount --net --pid --fork --kill-child=TERM --mount-proc --propagation private bash "${BASH_SOURCE[0]}" </dev/null
fi
. "$root/scripts/lib/dovecot.sh"
. "$root/scripts/lib/mta.sh"  # and pg.sh's pg_bin
started=$SECONDS
tmp="$(mktemp -d /tmp/signup-deployment.XXXXXX)"
chmod 0755 "$tmp"
pg="$tmp/pg"
cleanup() {  # every step whatever the one before did: a server may never have started
    [ -s "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null || true
    dovecot_stop "$tmp" || true
    dovecot_stop "$tmp/dovecot-pg" || true
    mta_stop "$tmp/mta" || true
    [ -d "$pg/data" ] && runuser -u postgres -- "$(pg_bin)/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    for m in /var/lib/signup /var/lib/signup-public /var/backups/signup /run/postgresql /usr /etc; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
ip link set lo up
mkdir -p "$tmp/etc-upper" "$tmp/etc-work" "$tmp/usr-upper" "$tmp/usr-work"
mount -t overlay signup-deployment -o "lowerdir=/etc,upperdir=$tmp/etc-upper,workdir=$tmp/etc-work" /etc
mount -t overlay signup-deployment -o "lowerdir=/usr,upperdir=$tmp/usr-upper,workdir=$tmp/usr-work" /usr
rm -rf /etc/signup /etc/cron.d/signup-backup
mkdir -p /var/backups
for d in /var/lib/signup /var/lib/signup-public /var/backups/signup /run/postgresql; do
    mkdir -p "$d"; mount -t tmpfs -o mode=0755 signup-deployment "$d"
done
chown postgres:postgres /run/postgresql; chmod 2775 /run/postgresql
# PostgreSQL, as Debian's cluster would be (owner postgres, peer on its socket in /run/postgresql,
# passwords over TCP, port 5432), made meanwhile: it is needed only at the end.
install -d -o postgres -g postgres -m 0700 "$pg"
( runuser -u postgres -- "$(pg_bin)/initdb" -D "$pg/data" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=peer --auth-host=scram-sha-256 --no-sync \
  && runuser -u postgres -- "$(pg_bin)/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
      -o "-k /run/postgresql -p 5432 -c listen_addresses=localhost -c fsync=off" start ) >"$tmp/pg.out" 2>&1 &
pg_starting=$!
# signup where the guide has it: the built binary, or a copy where other users may not reach it.
if setpriv --reuid=nobody --regid=nogroup --clear-groups "$SIGNUP_BIN" --version >/dev/null 2>&1; then
    ln -sf "$SIGNUP_BIN" /usr/bin/signup
else
    install -m 0755 "$SIGNUP_BIN" /usr/bin/signup
fi
# The machine's MTA: Exim in this run's folder, behind /usr/sbin/sendmail.
mta_start "$tmp/mta" >"$tmp/mta.out" 2>&1 || { echo "deployment: FAILED: the MTA did not start: $(tail -n 5 "$tmp/mta.out")"; exit 1; }
ln -sfn "$(mta_sendmail_command "$tmp/mta")" /usr/sbin/sendmail
unset SIGNUP_DB SIGNUP_CONFIG
# The administrator's home (the guide's ~/.pgpass and ~/accounts.jsonl), private to this run.
export HOME="$tmp/admin"
install -d -m 0700 "$HOME"
password="Quartz-Lantern-58"
export SIGNUP_PASSWORD="$password"  # the terminal's answer to the postmaster's password, for a script
failures=0
ok() { echo "deployment: [$((SECONDS - started))] $1: ok"; }
failed() { echo "deployment: $1: FAILED${2:+ ($2)}"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION EXPECTED COMMAND...
    local got
    got="$("${@:3}" 2>&1)" || true
    if [ "$got" = "$2" ]; then ok "$1"; else failed "$1" "expected '$2', got '$got'"; fi
}
# The marked blocks, in order.
awk '/deployment.sh runs this block/ { want = 1; next } want && /^```sh$/ { inblock = 1; n++; next } inblock && /^```$/ { inblock = 0; want = 0; next } inblock { print > (dir "/block" n ".sh") }' \
    dir="$tmp" "$root/docs/deployment.md"
block() {  # block N DESCRIPTION: runs the guide's Nth marked block with bash -e, with no input
    local status=0
    bash -e "$tmp/block$1.sh" </dev/null >"$tmp/block$1.out" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then ok "block $1 ($2) runs"; else failed "block $1 ($2) runs" "exit $status: $(tail -n 5 "$tmp/block$1.out" | tr '\n' ' ')"; fi
}
# The Nth configuration block of a document whose first line is LINE, without that line.
config_block() {  # config_block FILE LINE N
    awk -v line="$2" -v want="$3" '$0 == line { n++; p = (n == want); next } p && /^```$/ { exit } p' "$1"
}
check "the guide marks eight blocks" "8" sh -c 'ls "$1"/block*.sh | wc -l' _ "$tmp"

block 1 "users, folder, signup.conf"
block 2 "the database, as new, then dovecot's group"
db=/var/lib/signup/accounts.sqlite
check "the database is new's, dovecot's group may read it" "new:dovecot 640" stat -c '%U:%G %a' "$db"
check "it is in the rollback journal" "delete" sqlite3 "$db" "PRAGMA journal_mode"

config_block "$root/docs/deployment.md" "# /etc/dovecot/dovecot-sql.conf.ext" 1 >"$tmp/dovecot-sql.conf.ext"
dovecot_start "$tmp" "$tmp/dovecot-sql.conf.ext"
login() { dovecot_login "$tmp" "$@"; }
check "Dovecot accepts the postmaster" "accepted" login postmaster@example.org "$password"

# sshd as docs/public-signup.md configures it: its lines outside the Match blocks, the blocks of
# new and reset, the process limit; on port 22 of this namespace's loopback.
ssh-keygen -q -t ed25519 -N '' -f "$tmp/ssh_host_ed25519_key"
{
    printf 'HostKey %s\nPidFile %s\n' "$tmp/ssh_host_ed25519_key" "$tmp/sshd.pid"
    awk '/^and, outside the `Match` block/ { want = 1; next } want && /^```$/ { if (inblock) exit; inblock = 1; next } inblock' "$root/docs/public-signup.md"
    config_block "$root/docs/public-signup.md" "Match User new" 1 | sed '1i Match User new'
    config_block "$root/docs/public-signup.md" "Match User reset" 1 | sed '1i Match User reset'
} >"$tmp/sshd_config"
config_block "$root/docs/public-signup.md" "# /etc/security/limits.d/signup-public.conf" 1 | grep -v '^#' | head -n 1 \
    >/etc/security/limits.d/signup-public.conf
grep -q '^ *ForceCommand exec /usr/bin/signup --public$' "$tmp/sshd_config" \
    && grep -q '^ *ForceCommand exec /usr/bin/signup reset --public$' "$tmp/sshd_config" \
    && grep -q '^UsePAM yes$' "$tmp/sshd_config" && ok "sshd's configuration is the recipe's, PAM on" \
    || failed "sshd's configuration is the recipe's" "$(tr '\n' '|' <"$tmp/sshd_config")"
mkdir -p /run/sshd
/usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log"
for _ in $(seq 100); do [ -s "$tmp/sshd.pid" ] && break; sleep 0.05; done
ssh_as() {  # ssh_as USER: as a stranger, `ssh USER@localhost`, answers on standard input
    ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o LogLevel=ERROR "$1@localhost"
}
code_of() { sed -n 's/^    \([0-9]\{6\}\)\r\{0,1\}$/\1/p' "$1"; }
with_code() {  # with_code EMAIL PASSWORD: the email, the code from its mail, the password twice
    printf '%s\n' "$1"
    mta_wait_message "$tmp/mta" "$1" 20 >"$tmp/mail.$1" || true
    code="$(code_of "$tmp/mail.$1")"; printf '%s\n' "${code:-000000}" "$2" "$2"
}
over_ssh() {  # over_ssh DESCRIPTION USER EMAIL PASSWORD SUBJECT
    local status=0
    with_code "$3" "$4" | ssh_as "$2" >"$tmp/ssh.out" 2>&1 || status=$?
    if [ "$status" -eq 0 ] && grep -q "^Subject: $5" "$tmp/mail.$3" && [ -n "$(code_of "$tmp/mail.$3")" ]; then ok "$1"
    else failed "$1" "exit $status; $(tr '\n' ' ' <"$tmp/ssh.out"); mail: $(grep '^Subject' "$tmp/mail.$3")"; fi
}

# A stranger signs up over `ssh new@localhost` with the code mailed through /usr/sbin/sendmail;
# pending until the administrator approves it (the guide's block).
stranger=stranger@example.com
over_ssh "a stranger's ssh new@localhost with the mailed code" new "$stranger" "$password" "Your sign-up code for "
check "the stranger is pending, in the one database" "pending" sqlite3 "$db" "SELECT state FROM account WHERE email_key = '$stranger'"
check "Dovecot refuses the pending stranger" "refused" login "$stranger" "$password"
block 3 "the administrator approves"
grep -q "$stranger" "$tmp/block3.out" && ok "signup list --state pending showed the stranger" \
    || failed "signup list --state pending showed the stranger" "$(cat "$tmp/block3.out")"
check "Dovecot accepts the approved stranger" "accepted" login "$stranger" "$password"
check "the database is still new's, 0640, in the rollback journal" "new:dovecot 640 delete" \
    sh -c 'echo "$(stat -c "%U:%G %a" "$1") $(sqlite3 "$1" "PRAGMA journal_mode")"' _ "$db"

# The stranger forgets the password: `ssh reset@localhost` with the reset code mailed.
renewed="Velvet-Harbor-93"
over_ssh "a forgotten password reset over ssh reset@localhost with the mailed code" reset "$stranger" "$renewed" "Your password reset code for "
check "Dovecot accepts the new password" "accepted" login "$stranger" "$renewed"
check "Dovecot refuses the old one" "refused" login "$stranger" "$password"

# The nightly backup, the sqlite3 shell's .backup and signup backup, three times each, while
# Dovecot's auth worker (as dovecot) keeps logging the stranger in.
block 4 "the nightly backup's cron file"
backup_command="$(sed -n 's/^30 3 \* \* \* root //p' /etc/cron.d/signup-backup | sed 's/\\%/%/g')"
( while [ ! -e "$tmp/logins.stop" ]; do login "$stranger" "$renewed"; done >"$tmp/logins" ) & logins=$!
for _ in $(seq 250); do [ -s "$tmp/logins" ] && break; sleep 0.02; done
backups=0
for i in 1 2 3; do
    sh -c "$backup_command" >>"$tmp/backups.out" 2>&1 \
        && sqlite3 "$db" ".backup $tmp/shell-copy-$i.sqlite" >>"$tmp/backups.out" 2>&1 \
        && signup backup "$tmp/signup-copy-$i.sqlite" >>"$tmp/backups.out" 2>&1 \
        && backups=$((backups + 1))
done
touch "$tmp/logins.stop"; wait "$logins"
[ "$backups" -eq 3 ] && ok "the nightly command, sqlite3 .backup and signup backup ran 3 times each" \
    || failed "the backups ran" "$(tail -n 5 "$tmp/backups.out" | tr '\n' ' ')"
tries="$(wc -l <"$tmp/logins")"; refused="$(grep -vc '^accepted$' "$tmp/logins" || true)"
[ "$refused" -eq 0 ] && [ "$tries" -ge 3 ] && ok "Dovecot logged in all along: $tries logins, none refused" \
    || failed "Dovecot logged in all along" "$refused of $tries logins refused"
check "and after them" "accepted" login "$stranger" "$renewed"
copies_whole=0
for copy in /var/backups/signup/accounts-"$(date +%F)".sqlite "$tmp"/shell-copy-3.sqlite "$tmp"/signup-copy-3.sqlite; do
    [ "$(sqlite3 "$copy" 'PRAGMA integrity_check')" = ok ] \
        && [ "$(signup list --db "$copy" 2>/dev/null | grep -c '@')" -eq 2 ] && copies_whole=$((copies_whole + 1))
done
check "each kind of copy is whole, with both accounts" "3" echo "$copies_whole"
check "the nightly copy has the database's owner, group and mode" "new:dovecot 640" \
    stat -c '%U:%G %a' /var/backups/signup/accounts-"$(date +%F)".sqlite

signup disable "$stranger" >/dev/null
check "a disabled account: Dovecot refuses" "refused" login "$stranger" "$renewed"
# The restore block names a dated file: the backup of this run, under that name.
cp -p /var/backups/signup/accounts-"$(date +%F)".sqlite /var/backups/signup/accounts-2026-11-28.sqlite
block 5 "the restore"
check "after the restore the stranger is enabled again, as backed up" "accepted" login "$stranger" "$renewed"
dovecot_stop "$tmp"

# PostgreSQL: the roles, the move by export and import, the grants, new's password file.
wait "$pg_starting" || { failed "PostgreSQL started" "$(tail -n 5 "$tmp/pg.out" | tr '\n' ' ')"; exit 1; }
# A disabled account and a pending one too must arrive whole.
signup disable postmaster@example.org >/dev/null
over_ssh "another stranger's sign-up, left pending" new pending@example.com "$password" "Your sign-up code for "
block 6 "PostgreSQL's roles and database"
block 7 "the move by export and import, the grants"
admin_db='host=localhost dbname=accounts user=signup_admin'
check "the export is private" "600" stat -c '%a' "$HOME/accounts.jsonl"
sqlite_export="$(signup export --db "$db" 2>/dev/null)"
pg_export="$(signup export --db "$admin_db" 2>/dev/null)"
[ -n "$pg_export" ] && [ "$pg_export" = "$sqlite_export" ] \
    && [ "$(printf '%s\n' "$pg_export" | grep -c '"password_hash"')" -eq 3 ] \
    && ok "every account whole in PostgreSQL (hash, state, origin, dates)" \
    || failed "every account whole in PostgreSQL" "$(diff <(echo "$sqlite_export") <(echo "$pg_export") | tr '\n' ' ')"
check "signup list --json of both is the same (the guide's diff)" "" \
    diff <(signup list --json --db "$db") <(signup list --json --db "$admin_db")
block 8 "signup.conf names PostgreSQL"
config_block "$root/docs/deployment.md" "# /etc/dovecot/dovecot-sql.conf.ext" 2 >"$tmp/dovecot-sql-pg.conf.ext"
grep -q '^driver = pgsql$' "$tmp/dovecot-sql-pg.conf.ext" || failed "the guide's Dovecot file for PostgreSQL"
mkdir -p "$tmp/dovecot-pg"
dovecot_start "$tmp/dovecot-pg" "$tmp/dovecot-sql-pg.conf.ext"
pg_login() { dovecot_login "$tmp/dovecot-pg" "$@"; }
check "Dovecot on PostgreSQL accepts the stranger's new password" "accepted" pg_login "$stranger" "$renewed"
check "and refuses the old one" "refused" pg_login "$stranger" "$password"
check "and refuses the disabled postmaster" "refused" pg_login postmaster@example.org "$password"
# The forced commands on PostgreSQL, as signup_public with new's ~/.pgpass.
third="Copper-Meadow-71"
over_ssh "a reset over ssh reset@localhost, on PostgreSQL" reset "$stranger" "$third" "Your password reset code for "
check "Dovecot on PostgreSQL accepts the password reset there" "accepted" pg_login "$stranger" "$third"
newcomer=newcomer@example.net
over_ssh "a sign-up over ssh new@localhost, on PostgreSQL" new "$newcomer" "$password" "Your sign-up code for "
check "Dovecot refuses the pending newcomer" "refused" pg_login "$newcomer" "$password"
signup enable "$newcomer" --db "$admin_db" >/dev/null 2>&1 || true
check "the administrator (--db) approves it: Dovecot accepts it" "accepted" pg_login "$newcomer" "$password"
check "nothing was written to the SQLite database since the move" "3" sqlite3 "$db" "SELECT count(*) FROM account"

echo "deployment: $((SECONDS - started)) s"
if [ "$failures" -ne 0 ]; then
    for log in dovecot.log dovecot-pg/dovecot.log sshd.log pg/server.log; do
        [ -s "$tmp/$log" ] && { echo "--- $log"; tail -n 20 "$tmp/$log"; }
    done
fi
[ "$failures" -eq 0 ]
