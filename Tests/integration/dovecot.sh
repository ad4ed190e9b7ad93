#!/usr/bin/env bash
# Dovecot, a real consumer, reads the accounts signup wrote: from the SQLite file and from the
# PostgreSQL table (SIGNUP_TEST_PG, as scripts/test sets it). A throwaway Dovecot (no protocols,
# no system service) in a temporary folder; `doveadm auth test` must accept the right password
# and refuse a wrong one, for an ASCII and a non-ASCII account and one signed up with its domain
# in punycode (keyed in its Unicode form, so logged in with that), and refuse a disabled account
# even with its right password.
# usage: SIGNUP_BIN=… SIGNUP_TEST_PG=… dovecot.sh
set -euo pipefail
: "${SIGNUP_BIN:?}" "${SIGNUP_TEST_PG:?}"
tmp="$(mktemp -d /tmp/signup-dovecot.XXXXXX)"
chmod 0755 "$tmp"
config="$tmp/dovecot.conf"
cleanup() {
    [ -f "$tmp/run/master.pid" ] && doveadm -c "$config" stop >/dev/null 2>&1 || true
    psql -X -q -d "$SIGNUP_TEST_PG dbname=postgres" -c "DROP DATABASE IF EXISTS signup_dovecot WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

password="Quartz-Lantern-58"
accounts=("alice@example.com" "José@Bücher.de" "Anna@XN--BCHER-KVA.de")
# What a person types at the mail client's login: Dovecot lowercases ASCII only (%Lu); a domain
# is in the key in its Unicode form, whichever form was typed at sign-up.
logins=("Alice@Example.com" "josé@bücher.de" "anna@bücher.de")

# The same two accounts in SQLite and in PostgreSQL, written by signup.
psql -X -q -v ON_ERROR_STOP=1 -d "$SIGNUP_TEST_PG dbname=postgres" -c "CREATE DATABASE signup_dovecot OWNER signup_app"
pg="$SIGNUP_TEST_PG dbname=signup_dovecot user=signup_app"
for email in "${accounts[@]}"; do
    SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email "$email" --db "$tmp/accounts.sqlite" </dev/null
    SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email "$email" --db "$pg" </dev/null
done
# A third account, disabled by signup: its row and password stay, and it must not log in.
disabled="carol@example.com"
for db in "$tmp/accounts.sqlite" "$pg"; do
    SIGNUP_PASSWORD="$password" "$SIGNUP_BIN" --quiet --email "$disabled" --db "$db" </dev/null >/dev/null
    "$SIGNUP_BIN" disable "$disabled" --db "$db" >/dev/null
done
# Dovecot's auth worker runs as `dovecot`: it must be able to read the SQLite file (group read
# is how an admin grants it; here the whole temporary folder is readable).
chmod 0644 "$tmp/accounts.sqlite"

failures=0
for backend in sqlite pgsql; do
    if [ "$backend" = sqlite ]; then connect="$tmp/accounts.sqlite"; else connect="$pg"; fi
    cat >"$tmp/dovecot-sql.conf.ext" <<SQL
driver = $backend
connect = $connect
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
    # Right passwords first: after a failure Dovecot slows the next login down (auth penalty).
    for index in 0 1 2; do
        login="${logins[$index]}"
        if doveadm -c "$config" auth test "$login" "$password" >"$tmp/out" 2>&1; then
            echo "dovecot $backend: $login with the right password: accepted"
        else
            echo "dovecot $backend: $login with the right password: REFUSED"; cat "$tmp/out"; failures=$((failures + 1))
        fi
    done
    for index in 0 1 2; do
        login="${logins[$index]}"
        if doveadm -c "$config" auth test "$login" "Quartz-Lantern-59" >"$tmp/out" 2>&1; then
            echo "dovecot $backend: $login with a wrong password: ACCEPTED"; failures=$((failures + 1))
        else
            echo "dovecot $backend: $login with a wrong password: refused"
        fi
    done
    if doveadm -c "$config" auth test "$disabled" "$password" >"$tmp/out" 2>&1; then
        echo "dovecot $backend: disabled $disabled with the right password: ACCEPTED"; failures=$((failures + 1))
    else
        echo "dovecot $backend: disabled $disabled with the right password: refused"
    fi
    doveadm -c "$config" stop
done
if [ "$failures" -ne 0 ]; then
    echo "--- dovecot log"; cat "$tmp/dovecot.log" 2>/dev/null || true
fi
[ "$failures" -eq 0 ]
