#!/usr/bin/env bash
# A public sign-up over real SSH: OpenSSH's sshd on a loopback port in a temporary folder, with its
# own host key and configuration (docs/public-signup.md's Match block), forcing `signup --public`;
# driven with the real ssh client: a sign-up over `ssh -tt` in a hostile window, one over `ssh -T`
# with piped answers, an idle session cut off, concurrent clients, disconnects mid-hash.
# usage: SIGNUP_BIN=… ssh.sh   (as root: the test server logs the client in as root)
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/sbin/sshd ]; then
    echo "ssh: skipped (needs root and openssh-server)"; exit 0
fi
. "$root/scripts/lib/pg.sh"  # pg_free_port
tmp="$(mktemp -d /tmp/signup-ssh.XXXXXX)"
trap '[ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 0700 "$tmp"; mkdir -m 0700 "$tmp/db"; mkdir -p /run/sshd
port="$(pg_free_port)"
db="$tmp/db/accounts.sqlite"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/client_key"
cp "$tmp/client_key.pub" "$tmp/authorized_keys"
# The checks below come from one address (127.0.0.1): the limits of accounts per client are
# lifted for them, and checked at the end with a configuration of their own.
write_config() {  # write_config LIMITS DATABASE
LIMITS="$1" db="$2"
cat >"$tmp/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin yes
StrictModes no
MaxStartups 30:30:60
LoginGraceTime 20
Match User root
    ForceCommand exec $SIGNUP_BIN --public --idle-timeout 4 --session-limit 60 $LIMITS --db $db
    PermitTTY yes
    AllowTcpForwarding no
    AllowStreamLocalForwarding no
    AllowAgentForwarding no
    X11Forwarding no
    PermitTunnel no
    PermitUserRC no
    MaxSessions 1
    ClientAliveInterval 15
    ClientAliveCountMax 2
CONFIG
}
start_sshd() {
    rm -f "$tmp/sshd.pid"
    /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log"
    for _ in $(seq 50); do [ -s "$tmp/sshd.pid" ] && break; sleep 0.1; done
}
write_config "--limit-per-client 1000 --limit-overall 1000" "$db"
start_sshd

failures=0
fail() { echo "ssh: FAIL $*"; failures=$((failures + 1)); }
ssh_t() { ssh -T -q -i "$tmp/client_key" -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o BatchMode=yes root@127.0.0.1; }
rows() { "$SIGNUP_BIN" list --db "$db" | grep -c "$1" || true; }
drive() { python3 "$root/Tests/integration/ssh_drive.py" "$port" "$tmp/client_key" "$db" "$@" | tee "$tmp/drive.out"
    ! grep -q '^FAIL' "$tmp/drive.out" || failures=$((failures + 1)); }

# ssh -T with piped answers: the script protocol, no password echoed.
out="$(printf 'piped@example.com\nQuartz-Lantern-58\nQuartz-Lantern-58\n' | ssh_t 2>&1)" && status=0 || status=$?
[ "$status" -eq 0 ] || fail "ssh -T sign-up: exit $status"
[ "$(rows piped@example.com)" -eq 1 ] || fail "ssh -T sign-up: no row"
case "$out" in *Quartz*) fail "ssh -T sign-up: the password was shown";; esac

# ssh -T that sends nothing: cut off at the idle timeout with exit 75, nothing stored.
start=$SECONDS
out="$( (sleep 10; printf 'late@example.com\n') | ssh_t 2>&1)" && status=0 || status=$?
[ "$status" -eq 75 ] || fail "idle ssh -T: exit $status, expected 75"
case "$out" in *"No answer for 4 s"*) ;; *) fail "idle ssh -T: no line saying why";; esac
[ "$(rows late@example.com)" -eq 0 ] || fail "idle ssh -T: a row was stored"

drive tty
# Ctrl-C in the middle of a password, the rest typed after it: never shown, never an answer.
drive ctrlc
if [ "$(rows ctrlc@example.com)" -eq 1 ]; then
    "$SIGNUP_BIN" enable ctrlc@example.com --db "$db" >/dev/null
    printf 'Violet-Lantern-Qx7-zq\n' | "$SIGNUP_BIN" verify ctrlc@example.com --db "$db" >/dev/null 2>&1 \
        || fail "ctrlc: the password stored is not the one typed whole"
else
    fail "ctrlc: no row"
fi
drive many 20
drive hangup 12
# Each disconnect left a whole row (which verifies) or none.
whole=0
for i in $(seq 0 11); do
    if [ "$(rows "hup$i@example.com")" -eq 1 ]; then
        # A stranger's account is pending: enabled here so that verify checks its hash.
        "$SIGNUP_BIN" enable "hup$i@example.com" --db "$db" >/dev/null
        printf 'Quartz-Lantern-58\n' | "$SIGNUP_BIN" verify "hup$i@example.com" --db "$db" 2>/dev/null \
            && whole=$((whole + 1)) || fail "disconnect $i: a row that does not verify"
    else
        whole=$((whole + 1))
    fi
done
echo "hangup: 12 disconnects at random moments after the review, $whole of 12 left a whole row or none"
[ "$(sqlite3 "$db" 'PRAGMA integrity_check' 2>/dev/null || echo ok)" = ok ] || fail "database integrity"


# The limit of accounts per client, counted in the store: 8 concurrent clients from one address,
# a limit of 3 per client: exactly 3 accounts, pending; the others end with exit 75 and a line.
kill "$(cat "$tmp/sshd.pid")"; sleep 0.3
limited="$tmp/db/limited.sqlite"
write_config "--limit-per-client 3 --limit-overall 100" "$limited"
start_sshd
for i in $(seq 0 7); do
    ( printf 'rate%s@example.com\nQuartz-Lantern-58\nQuartz-Lantern-58\n' "$i" | ssh_t >"$tmp/rate$i.out" 2>&1 && s=0 || s=$?
      echo "$s" >"$tmp/rate$i.status" ) &
done
wait
created=$("$SIGNUP_BIN" list --state pending --db "$limited" | grep -c '@example.com' || true)
refused=0
for i in $(seq 0 7); do
    if [ "$(cat "$tmp/rate$i.status")" = 75 ] && grep -q "too many accounts were created from your address" "$tmp/rate$i.out"; then refused=$((refused + 1)); fi
done
echo "rate limit: 8 concurrent clients from one address, limit 3: $created created (pending), $refused refused with exit 75"
[ "$created" -eq 3 ] && [ "$refused" -eq 5 ] || fail "rate limit: $created created, $refused refused"

[ "$failures" -eq 0 ] && echo "ssh: all checks passed" || exit 1
