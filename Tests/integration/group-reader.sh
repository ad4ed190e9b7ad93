#!/usr/bin/env bash
# Readers of another user read the SQLite accounts in the documented set-up: the file 0640 and its
# folder 0750, both in the reader's group, written by root's signup. The readers run as their own
# users and may create nothing beside the file: Dovecot's auth worker as `dovecot`, Python's
# sqlite3 and PHP's PDO as `nobody` in the `dovecot` group. Each must read the accounts after
# signup wrote, read and closed the database, and while another signup is writing.
# usage: SIGNUP_BIN=… group-reader.sh
set -euo pipefail
: "${SIGNUP_BIN:?}"
tmp="$(mktemp -d /tmp/signup-group-reader.XXXXXX)"
chmod 0755 "$tmp"
config="$tmp/dovecot.conf"
cleanup() {
    [ -f "$tmp/run/master.pid" ] && doveadm -c "$config" stop >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

group=dovecot
folder="$tmp/var"
db="$folder/accounts.sqlite"
install -d -m 0750 -o root -g "$group" "$folder"
password="Quartz-Lantern-58"
SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email alice@example.com --db "$db" </dev/null
# What docs/storage.md tells an administrator to do; signup's next write puts the file, which its
# group may now read, in the rollback journal: no -wal or -shm for the readers to need.
chgrp "$group" "$db"; chmod 0640 "$db"
SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email bob@example.com --db "$db" </dev/null
"$SIGNUP_BIN" list --db "$db" >/dev/null  # a reader of root's was the last to close

failures=0
check() {  # check DESCRIPTION EXPECTED COMMAND...
    local got
    got="$("${@:3}" 2>&1)" || true
    if [ "$got" = "$2" ]; then echo "group reader: $1: ok"
    else echo "group reader: $1: FAILED (expected '$2', got '$got')"; failures=$((failures + 1)); fi
}
as_reader() { setpriv --reuid=nobody --regid="$group" --clear-groups "$@"; }
python_count() { as_reader /usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM account").fetchone()[0])' "$db"; }
php_count() { as_reader php -r '$d = new PDO("sqlite:" . $argv[1]); echo $d->query("SELECT count(*) FROM account")->fetchColumn(), "\n";' "$db"; }

ls -l "$folder" | sed 's/^/  /'
check "the reader may not create files beside the database" "refused" \
    as_reader sh -c 'touch "$1/x" 2>/dev/null && echo created || echo refused' _ "$folder"
check "Python's sqlite3 as nobody reads both accounts" "2" python_count
check "PHP's PDO as nobody reads both accounts" "2" php_count

# While another signup writes: every read succeeds, and sees no fewer accounts than the read
# before it (an import commits batch by batch) and none beyond the file's 400 and the two.
rows="$tmp/import.csv"
{ echo "email,password_hash"; hash="$(printf '%s' "$password" | argon2 saltsalt-1234 -id -m 12 -t 1 -p 1 -e)"
  for i in $(seq 1 400); do echo "user$i@example.com,$hash"; done; } >"$rows"
for i in 1 2 3 4 5; do "$SIGNUP_BIN" import "$tmp/import.csv" --db "$db" --update >/dev/null 2>&1; done &
writer=$!
reads=0; bad=0; last=2
while kill -0 "$writer" 2>/dev/null; do
    count="$(python_count 2>&1)" || true
    reads=$((reads + 1))
    if [[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge "$last" ] && [ "$count" -le 402 ]; then last="$count"
    else bad=$((bad + 1)); echo "  a read during the import said: $count (the one before: $last)"; fi
done
wait "$writer"
check "$reads reads by nobody during five imports all succeed and never go back" "0" echo "$bad"
check "after them nobody reads all 402 accounts" "402" python_count

# Dovecot's auth worker as its own user, through its SQL driver.
cat >"$tmp/dovecot-sql.conf.ext" <<SQL
driver = sqlite
connect = $db
default_pass_scheme = ARGON2ID
password_query = SELECT email_key AS user, password_hash AS password FROM account WHERE email_key = '%Lu' AND state = 'active'
SQL
cat >"$config" <<CONF
base_dir = $tmp/run
state_dir = $tmp/state
log_path = $tmp/dovecot.log
protocols =
ssl = no
auth_mechanisms = plain
auth_failure_delay = 0
auth_username_chars =
service auth-worker {
  user = dovecot
}
passdb {
  driver = sql
  args = $tmp/dovecot-sql.conf.ext
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=$tmp/home
}
CONF
dovecot -c "$config"
check "Dovecot's auth worker as dovecot accepts bob's password" "accepted" \
    sh -c 'doveadm -c "$1" auth test bob@example.com "$2" >/dev/null 2>&1 && echo accepted || echo refused' _ "$config" "$password"
check "Dovecot's auth worker as dovecot refuses a wrong one" "refused" \
    sh -c 'doveadm -c "$1" auth test bob@example.com "$2" >/dev/null 2>&1 && echo accepted || echo refused' _ "$config" "Quartz-Lantern-59"
check "the auth worker ran as dovecot" "dovecot" \
    sh -c 'ps -o user= -C auth | sort -u | grep -x dovecot || ps -eo user=,args= | awk "/dovecot\\/auth worker/ {print \$1}" | sort -u'
doveadm -c "$config" stop
if [ "$failures" -ne 0 ]; then
    echo "--- dovecot log"; cat "$tmp/dovecot.log" 2>/dev/null || true
fi
[ "$failures" -eq 0 ]
