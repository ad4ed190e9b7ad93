#!/usr/bin/env bash
# Readers of another user keep reading the SQLite accounts whatever program closed the file last.
# The documented set-up: the file 0640 and its folder 0750, in the `dovecot` group, written by
# root's signup. Dovecot's auth worker runs as `dovecot`, and Python's sqlite3 as `nobody` in the
# group; neither may create a file beside the database. Each must still read the accounts after
# the sqlite3 shell's `.backup`, a Python writer, PHP's PDO, `signup backup` and `signup restore`
# each closed the database last. `signup backup` writes one whole file with the database's owner,
# group and mode; `signup restore` puts back exactly what it held.
# usage: SIGNUP_BIN=… backup.sh
set -euo pipefail
: "${SIGNUP_BIN:?}"
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib/dovecot.sh"
tmp="$(mktemp -d /tmp/signup-backup.XXXXXX)"
chmod 0755 "$tmp"
cleanup() {
    dovecot_stop "$tmp"
    rm -rf "$tmp"
}
trap cleanup EXIT

group=dovecot
folder="$tmp/var"
db="$folder/accounts.sqlite"
install -d -m 0750 -o root -g "$group" "$folder"
password="Quartz-Lantern-58"
SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email alice@example.com --db "$db" </dev/null
chgrp "$group" "$db"; chmod 0640 "$db"
# The next write gives a file its group may read the rollback journal: no -wal or -shm to lose.
SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email bob@example.com --db "$db" </dev/null

failures=0
check() {  # check DESCRIPTION EXPECTED COMMAND...
    local got
    got="$("${@:3}" 2>&1)" || true
    if [ "$got" = "$2" ]; then echo "backup: $1: ok"
    else echo "backup: $1: FAILED (expected '$2', got '$got')"; failures=$((failures + 1)); fi
}
as_reader() { setpriv --reuid=nobody --regid="$group" --clear-groups "$@"; }
python_count() { as_reader /usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM account").fetchone()[0])' "$db"; }
login() { dovecot_login "$tmp" "$@"; }  # accepted or refused, by Dovecot's auth worker as dovecot

cat >"$tmp/dovecot-sql.conf.ext" <<SQL
driver = sqlite
connect = $db
default_pass_scheme = ARGON2ID
password_query = SELECT email_key AS user, password_hash AS password FROM account WHERE email_key = '%Lu' AND state = 'active'
SQL
dovecot_start "$tmp" "$tmp/dovecot-sql.conf.ext"

check "the database its group may read is in the rollback journal" "delete" sqlite3 "$db" "PRAGMA journal_mode"
check "no -wal or -shm beside it" "" sh -c 'ls "$1"-wal "$1"-shm 2>/dev/null' _ "$db"
check "the reader may not create files beside the database" "refused" \
    as_reader sh -c 'touch "$1/x" 2>/dev/null && echo created || echo refused' _ "$folder"
check "Dovecot as dovecot accepts bob" "accepted" login bob@example.com "$password"

# Each program closes the database last, then the readers read.
last_closer() {  # last_closer NAME COMMAND...
    "${@:2}" >/dev/null
    check "after $1 closed it last: Python as nobody reads both accounts" "2" python_count
    check "after $1 closed it last: Dovecot as dovecot accepts alice" "accepted" login alice@example.com "$password"
    check "after $1 closed it last: Dovecot refuses a wrong password" "refused" login alice@example.com "Quartz-Lantern-59"
}
last_closer "the sqlite3 shell's .backup" sqlite3 "$db" ".backup $tmp/shell-copy.sqlite"
last_closer "a Python writer" /usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE account SET state = state"); c.commit(); c.close()' "$db"
last_closer "PHP's PDO" php -r '$d = new PDO("sqlite:" . $argv[1]); $d->exec("UPDATE account SET state = state"); echo $d->query("SELECT count(*) FROM account")->fetchColumn(), "\n";' "$db"

# signup backup: one whole file, the database's owner, group and mode, while Dovecot reads.
install -d -m 0700 "$tmp/backups"
last_closer "signup backup" "$SIGNUP_BIN" backup "$tmp/backups/accounts.sqlite" --db "$db"
check "the backup has the database's group and mode" "root:$group 640" stat -c '%U:%G %a' "$tmp/backups/accounts.sqlite"
check "the backup is one file, whole" "ok delete" sh -c 'printf "%s %s" "$(sqlite3 "$1" "PRAGMA integrity_check")" "$(sqlite3 "$1" "PRAGMA journal_mode")"; ls "$1"-wal "$1"-shm 2>/dev/null' _ "$tmp/backups/accounts.sqlite"
check "the backup holds both accounts" "alice@example.com bob@example.com" sh -c 'sqlite3 "$1" "SELECT email FROM account ORDER BY id" | tr "\n" " " | sed "s/ $//"' _ "$tmp/backups/accounts.sqlite"
check "a second backup replaces the first" "0" sh -c '"$1" backup "$2" --db "$3" && ls "$(dirname "$2")" | grep -c partial' _ "$SIGNUP_BIN" "$tmp/backups/accounts.sqlite" "$db"

# signup restore: what the backup held, in the same file (owner, group, mode), while Dovecot reads.
rows_of() { sqlite3 "$1" "SELECT email, password_hash, state, origin, created_at, password_changed_at FROM account ORDER BY id"; }
before="$(rows_of "$db")"
"$SIGNUP_BIN" delete bob@example.com --yes --db "$db" >/dev/null
SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email carol@example.com --db "$db" </dev/null
inode="$(stat -c %i "$db")"
last_closer "signup restore" "$SIGNUP_BIN" restore --yes "$tmp/backups/accounts.sqlite" --db "$db"
check "the restored database holds exactly the backup's rows" "same" sh -c '[ "$1" = "$2" ] && echo same || printf "%s\n---\n%s\n" "$1" "$2"' _ "$before" "$(rows_of "$db")"
check "the restored database is the same file, with its owner, group and mode" "$inode root:$group 640" stat -c "%i %U:%G %a" "$db"
check "Dovecot accepts bob again" "accepted" login bob@example.com "$password"
check "Dovecot refuses carol, who came after the backup" "refused" login carol@example.com "$password"
check "restore asks first: without --yes and a terminal it is a usage error" "64" \
    sh -c '"$1" restore "$2" --db "$3" </dev/null >/dev/null 2>&1; echo $?' _ "$SIGNUP_BIN" "$tmp/backups/accounts.sqlite" "$db"

# A backup goes where it was told or nowhere: a folder that does not exist is refused, and
# nothing lands in the deepest folder on the way that does.
check "a backup into a missing folder fails with 74 and names it" "74 the folder $tmp/backups/nope does not exist" \
    sh -c '"$1" backup "$2/nope/x.sqlite" --db "$3" 2>"$2/err"; s=$?; printf "%s %s" "$s" "$(grep -o "the folder .* does not exist" "$2/err")"' _ "$SIGNUP_BIN" "$tmp/backups" "$db"
check "... and writes nothing in the folder above it" "" sh -c 'ls "$1" | grep -v "^accounts.sqlite$\|^err$" || true' _ "$tmp/backups"
check "a restore from a file that is not there says so, 74" "74 cannot read the backup" \
    sh -c '"$1" restore --yes "$2/none.sqlite" --db "$3" 2>"$2/err"; s=$?; printf "%s %s" "$s" "$(grep -o "cannot read the backup" "$2/err")"' _ "$SIGNUP_BIN" "$tmp/backups" "$db"
# A signal while a restore or a backup waits for the database (another program's transaction)
# waits for it to end: the restore ends whole, no journal is left for the mail server's reader
# (who cannot roll one back), and a backup leaves no partial copy beside its destination.
held_restore() {  # held_restore COMMAND...: the command under a 2 s exclusive lock, SIGTERM at 0.5 s
    (printf 'BEGIN EXCLUSIVE;\n'; sleep 2; printf 'COMMIT;\n') | sqlite3 "$db" & local holder=$!
    sleep 0.3
    "$@" >"$tmp/held.out" 2>&1 & local run=$!
    sleep 0.5; kill -TERM "$run"
    local status=0; wait "$run" || status=$?
    wait "$holder" || true
    echo "$status"
}
status="$(held_restore "$SIGNUP_BIN" restore --yes "$tmp/backups/accounts.sqlite" --db "$db")"
check "SIGTERM during a restore that waits: it ends whole, exit 0" "0 Restored" printf '%s %s' "$status" "$(grep -o '^Restored' "$tmp/held.out")"
check "... no journal is left beside the database" "" sh -c 'ls "$1"-journal "$1"-wal 2>/dev/null' _ "$db"
check "... and Dovecot as dovecot accepts alice at once" "accepted" login alice@example.com "$password"
status="$(held_restore "$SIGNUP_BIN" backup "$tmp/backups/accounts.sqlite" --db "$db")"
check "SIGTERM during a backup that waits: it ends whole, exit 0, no partial copy" "0 0" printf '%s %s' "$status" "$(ls "$tmp/backups" | grep -c partial)"

dovecot_stop "$tmp"
if [ "$failures" -ne 0 ]; then
    echo "--- dovecot log"; cat "$tmp/dovecot.log" 2>/dev/null || true
fi
[ "$failures" -eq 0 ]
