#!/usr/bin/env bash
# Failover: a primary and a streaming standby (pg_basebackup -R) on two loopback ports, and one
# two-host URL with target_session_attrs=read-write. Sign-ups go to the primary; the standby
# refuses writes; with the primary stopped and the standby promoted, sign-ups continue with
# no configuration change.
# usage: SIGNUP_BIN=… failover.sh
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$root/scripts/lib/pg.sh"
tmp="$(mktemp -d /tmp/signup-failover.XXXXXX)"
chmod 0755 "$tmp"
primary="$tmp/primary" standby="$tmp/standby"
trap 'pg_stop "$primary"; pg_stop "$standby"; rm -rf "$tmp"' EXIT
p1="$(pg_free_port)"; p2="$(pg_free_port)"
while [ "$p2" = "$p1" ]; do p2="$(pg_free_port)"; done

pg_init "$primary"
pg_start "$primary" "$p1"
secret="pw-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
psql -X -q -v ON_ERROR_STOP=1 -d "host=$primary port=$p1 user=postgres dbname=postgres" \
    -c "CREATE ROLE signup_app LOGIN PASSWORD '$secret'" -c "CREATE DATABASE accounts OWNER signup_app"
mkdir -p "$standby"; chown nobody:nogroup "$standby" 2>/dev/null || true; chmod 0755 "$standby"
pg_as_owner "$(pg_bin)/pg_basebackup" -w -h 127.0.0.1 -p "$p1" -U postgres -D "$standby/data" -R -X stream -c fast
pg_start "$standby" "$p2"

export PGPASSFILE="$tmp/pgpass"
printf '127.0.0.1:*:*:signup_app:%s\n' "$secret" >"$PGPASSFILE"; chmod 0600 "$PGPASSFILE"
url="postgresql://signup_app@127.0.0.1:$p1,127.0.0.1:$p2/accounts?target_session_attrs=read-write&sslmode=disable&connect_timeout=3"
failures=0
sign_up() {  # sign_up EMAIL DB EXPECTED-STATUS
    local status=0
    SIGNUP_PASSWORD="Quartz-Lantern-58" "$SIGNUP_BIN" --quiet --json --email "$1" --db "$2" </dev/null >"$tmp/out" 2>/dev/null || status=$?
    echo "failover: $1 -> exit $status $(cat "$tmp/out")"
    [ "$status" -eq "$3" ] || { echo "failover: FAIL, expected exit $3"; failures=$((failures + 1)); }
}
rows() {  # rows PORT
    psql -X -A -t -d "host=$tmp/$1 port=$2 user=postgres dbname=accounts" -c "SELECT count(*) FROM account"
}

for n in 1 2 3; do sign_up "before$n@example.com" "$url" 0; done
sign_up "direct@example.com" "host=127.0.0.1 port=$p2 user=signup_app dbname=accounts sslmode=disable" 74
for _ in $(seq 100); do [ "$(rows standby "$p2")" = 3 ] && break; sleep 0.1; done
echo "failover: primary has $(rows primary "$p1") accounts, the standby has $(rows standby "$p2")"

pg_stop "$primary"
sign_up "between@example.com" "$url" 74
pg_as_owner "$(pg_bin)/pg_ctl" -D "$standby/data" -w promote >/dev/null
for n in 1 2 3; do sign_up "after$n@example.com" "$url" 0; done
sign_up "before1@example.com" "$url" 65
echo "failover: the promoted standby has $(rows standby "$p2") accounts"
[ "$(rows standby "$p2")" = 6 ] || { echo "failover: FAIL, expected 6 accounts"; failures=$((failures + 1)); }
printf 'Quartz-Lantern-58\n' | "$SIGNUP_BIN" verify before2@example.com --db "$url" 2>/dev/null \
    && echo "failover: an account made before the failover verifies on the new primary" \
    || { echo "failover: FAIL, before2 does not verify"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ]
