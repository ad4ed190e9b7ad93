#!/usr/bin/env bash
# Under signup's ident, only signup's lines: a public sign-up by a user who is not root (as every
# public session over SSH is) writes its audit line and nothing else to syslog. libdispatch once
# added "Failed to set thread priority for worker thread: pqc=… errno=13" through syslog(3) under
# signup's ident, from the thread of a Dispatch timer. A private rsyslogd (as Tests/integration/audit.sh
# runs it: its socket is /dev/log only in this script's mount namespace) takes the lines.
# usage: SIGNUP_BIN=… syslog-ident.sh   (as root: it makes a mount namespace)
set -euo pipefail
: "${SIGNUP_BIN:?}"
if [ "$(id -u)" -ne 0 ]; then
    echo "syslog-ident: skipped (needs root, for a mount namespace of its own)"; exit 0
fi
if [ -z "${SIGNUP_SYSLOG_NAMESPACE:-}" ]; then
    exec env SIGNUP_SYSLOG_NAMESPACE=1 unshare --mount --propagation private bash "${BASH_SOURCE[0]}"
fi
tmp="$(mktemp -d /tmp/signup-syslog.XXXXXX)"
chmod 0755 "$tmp"
cleanup() {
    if [ -f "$tmp/rsyslogd.pid" ]; then kill "$(cat "$tmp/rsyslogd.pid")" 2>/dev/null || true; fi
    umount -R /dev 2>/dev/null || umount -l /dev 2>/dev/null || true
    umount -R "$tmp/host-dev" 2>/dev/null || umount -l "$tmp/host-dev" 2>/dev/null || true
    if ! mountpoint -q "$tmp/host-dev"; then rm -rf --one-file-system "$tmp"; fi
}
trap cleanup EXIT
mkdir -p "$tmp/host-dev"
mount --rbind /dev "$tmp/host-dev"
mount -t tmpfs -o mode=0755,size=1m signup-syslog-dev /dev
for node in null zero full random urandom tty; do
    touch "/dev/$node"; mount --bind "$tmp/host-dev/$node" "/dev/$node"
done
ln -s /proc/self/fd /dev/fd
cat >"$tmp/rsyslog.conf" <<CONFIG
global(workDirectory="$tmp")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$tmp/log.sock" RateLimit.Interval="0")
template(name="tagged" type="string" string="%syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n")
*.* action(type="omfile" file="$tmp/tagged" template="tagged")
CONFIG
rsyslogd -f "$tmp/rsyslog.conf" -i "$tmp/rsyslogd.pid"
for _ in $(seq 100); do [ -S "$tmp/log.sock" ] && break; sleep 0.05; done
chmod 0666 "$tmp/log.sock"
touch /dev/log && mount --bind "$tmp/log.sock" /dev/log
logger -t syslog-test ready
for _ in $(seq 100); do grep -q 'syslog-test: ready' "$tmp/tagged" 2>/dev/null && break; sleep 0.05; done

# The stranger's session runs as a user who is not root (nobody), in a folder of nobody's.
install -d -m 0700 -o nobody "$tmp/db"
password="Quartz-Lantern-58"
status=0
printf '%s\n' stranger@example.com "$password" "$password" \
    | HOME="$tmp/db" SSH_CONNECTION="203.0.113.7 50022 192.0.2.1 22" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$SIGNUP_BIN" --public --no-prove-address --db "$tmp/db/accounts.sqlite" >"$tmp/out" 2>"$tmp/err" || status=$?
logger -t syslog-test done
for _ in $(seq 100); do grep -q 'syslog-test: done' "$tmp/tagged" 2>/dev/null && break; sleep 0.05; done
failures=0
if [ "$status" -ne 0 ]; then echo "syslog-ident: FAIL the public sign-up as nobody exited $status: $(cat "$tmp/err")"; failures=1; fi
lines="$(grep '^signup' "$tmp/tagged" || true)"
if ! grep -q 'stranger@example.com' <<<"$lines"; then
    echo "syslog-ident: FAIL the sign-up's own audit line is missing"; failures=1
fi
if grep -v 'stranger@example.com' <<<"$lines" | grep -q .; then
    echo "syslog-ident: FAIL lines under signup's ident that are not signup's:"; grep -v 'stranger@example.com' <<<"$lines" | sed 's/^/  /'
    failures=1
fi
[ "$failures" -ne 0 ] || echo "syslog-ident: a public sign-up as nobody wrote its audit line and nothing else under signup's ident"
[ "$failures" -eq 0 ]
