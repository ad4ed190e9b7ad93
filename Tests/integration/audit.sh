#!/usr/bin/env bash
# The audit log (docs/audit-log.md) as a real syslog daemon receives it: a private rsyslogd in a
# temporary folder, whose socket is /dev/log only inside this script's own mount namespace (the
# machine's logging is never touched), takes the lines of real signup runs: sign-ups, passwd,
# disable, enable, delete, an import, a verify that upgrades a hash, and public sign-ups refused
# (the per-client and overall limits, a taken address, the input's end, the idle timeout and the
# session's time, and at a pseudo-terminal Ctrl-C, too many attempts and a hang-up). The lines
# written are compared with the expected ones; no password or hash is anywhere in the file; a
# hostile email stays on one line; fail2ban-regex with the shipped filter matches the refusals,
# with their host, and none of the changes. Then a run with no /dev/log, and one with a socket
# nobody listens on, still work and say nothing more.
# usage: SIGNUP_BIN=… audit.sh   (as root: it makes a mount namespace)
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then
    echo "audit: skipped (needs root, for a mount namespace of its own)"; exit 0
fi
if [ -z "${SIGNUP_AUDIT_NAMESPACE:-}" ]; then
    . "$root/scripts/lib/setup.sh"
    ensure_debian_packages rsyslog fail2ban sqlite3 argon2
    # Mounts made from here on are seen by this script and its children only.
    exec env SIGNUP_AUDIT_NAMESPACE=1 unshare --mount --propagation private bash "${BASH_SOURCE[0]}"
fi

tmp="$(mktemp -d /tmp/signup-audit.XXXXXX)"
cleanup() {
    if [ -f "$tmp/rsyslogd.pid" ]; then kill "$(cat "$tmp/rsyslogd.pid")" 2>/dev/null || true; fi
    # The mounts are this namespace's and go with it; the folder is removed only once the machine's
    # /dev is no longer bound inside it, and never across a mount.
    umount -R /dev 2>/dev/null || umount -l /dev 2>/dev/null || true
    umount -R "$tmp/host-dev" 2>/dev/null || umount -l "$tmp/host-dev" 2>/dev/null || true
    if ! mountpoint -q "$tmp/host-dev"; then rm -rf --one-file-system "$tmp"; fi
}
trap cleanup EXIT
failures=0
fail() { echo "audit: FAIL $*"; failures=$((failures + 1)); }

# /dev of this namespace: a tmpfs with the machine's null, zero, urandom, pseudo-terminals… bound in, and /dev/log
# (a socket of the private daemon once it runs). The machine's /dev, and its /dev/log if it has
# one, stay as they are.
mkdir -p "$tmp/host-dev"
mount --rbind /dev "$tmp/host-dev"
mount -t tmpfs -o mode=0755,size=1m signup-audit-dev /dev
for node in null zero full random urandom tty; do
    touch "/dev/$node"; mount --bind "$tmp/host-dev/$node" "/dev/$node"
done
mkdir /dev/pts && mount --rbind "$tmp/host-dev/pts" /dev/pts && ln -s pts/ptmx /dev/ptmx  # pseudo-terminals
ln -s /proc/self/fd /dev/fd
for n in 0 1 2; do ln -s "/proc/self/fd/$n" "/dev/$(echo stdin stdout stderr | cut -d ' ' -f $((n + 1)))"; done

# The private rsyslogd: its own socket, no other input, the lines as they came (control
# characters not escaped by rsyslog, so what signup sent is what the file holds), in the usual
# file format (for fail2ban) and with facility and severity (for the checks).
cat >"$tmp/rsyslog.conf" <<CONFIG
global(workDirectory="$tmp" parser.escapeControlCharactersOnReceive="off")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$tmp/log.sock" RateLimit.Interval="0")
template(name="classic" type="string" string="%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n")
template(name="tagged" type="string" string="%syslogfacility-text%.%syslogseverity-text% %syslogtag%%msg:::sp-if-no-1st-sp%%msg:::drop-last-lf%\n")
*.* action(type="omfile" file="$tmp/syslog" template="classic")
*.* action(type="omfile" file="$tmp/tagged" template="tagged")
CONFIG
rsyslogd -f "$tmp/rsyslog.conf" -i "$tmp/rsyslogd.pid"
for _ in $(seq 100); do [ -S "$tmp/log.sock" ] && break; sleep 0.05; done
touch /dev/log && mount --bind "$tmp/log.sock" /dev/log
# A line through logger first: the daemon is listening, and the files exist.
logger -t audit-test ready
for _ in $(seq 100); do grep -q 'audit-test: ready' "$tmp/tagged" 2>/dev/null && break; sleep 0.05; done
grep -q 'audit-test: ready' "$tmp/tagged" || { echo "audit: FAIL the private rsyslogd wrote nothing"; exit 1; }

db="$tmp/accounts.sqlite"
password="Quartz-Lantern-58" other="Velvet-Harbor-93"
user="$(id -un) (uid $(id -u))"
run() {  # run EXPECTED-STATUS ARGS… (standard input: the answers); output in $tmp/out, $tmp/err
    local expected="$1" status=0; shift
    "$SIGNUP_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq "$expected" ] || fail "signup $* exited $status, not $expected: $(tail -n 2 "$tmp/err")"
}
public() {  # public CLIENT EXPECTED-STATUS ARGS…: a stranger's sign-up from CLIENT (SSH_CONNECTION's first word)
    local client="$1"; shift
    SSH_CONNECTION="$client 50022 192.0.2.1 22" run "$@"
}
answers() { printf '%s\n' "$1" "$2" "$2"; }

# Changes.
answers alice@example.com "$password" | run 0 --db "$db"
answers dry@example.com "$password" | run 0 --db "$db" --dry-run
printf '%s\n' "$other" >"$tmp/other"
run 0 passwd alice@example.com --db "$db" --password-file "$tmp/other"
answers alice@example.com "$password" | run 65 --db "$db"  # taken: nothing changed, no line
run 67 disable nobody@example.com --db "$db"  # no such account: no line
run 0 disable alice@example.com --db "$db"
run 0 disable alice@example.com --db "$db"  # already disabled: no change, no line
run 0 enable alice@example.com --db "$db"
# A hash with lower costs than the policy's: verify upgrades it.
weak="$(printf '%s' "$password" | argon2 "saltsaltsalt" -id -t 1 -k 1024 -p 1 -e)"
printf 'email,password_hash\nweak@example.com,%s\nbad-row,%s\n' "$weak" "$weak" >"$tmp/import.csv"
run 65 import "$tmp/import.csv" --db "$db"
printf 'email,password\nnobody@example.com,%s\n' "$password" >"$tmp/dry.csv"
run 0 import "$tmp/dry.csv" --db "$db" --dry-run
printf '%s\n' "$password" | run 0 verify weak@example.com --db "$db"
printf '%s\n' "$password" | run 0 verify weak@example.com --db "$db"  # already upgraded: no line
run 0 delete weak@example.com --db "$db" --yes

# Public refusals: the per-client limit (1), a taken address, an early end, the idle timeout.
# The mail command keeps each message in $tmp/mail (a real MTA: ssh.sh).
mkdir -p "$tmp/mail"
printf '#!/bin/sh\ncat >"%s/mail/$$"\n' "$tmp" >"$tmp/keep-mail"; chmod 0755 "$tmp/keep-mail"
printf 'mail.command = %s -t -i\n' "$tmp/keep-mail" >"$tmp/mail.conf"
pub=(--public --no-prove-address --limit-per-client 1 --db "$db")
answers stranger1@example.com "$password" | public 203.0.113.7 0 "${pub[@]}"
answers stranger2@example.com "$password" | public 203.0.113.7 75 "${pub[@]}"
answers stranger3@example.com "$password" | public 2001:db8::7 0 --dry-run "${pub[@]}"  # a dry run: no line
# A taken address: the stranger hears what a new account's maker hears; its owner is mailed.
answers alice@example.com "$password" | SIGNUP_CONFIG="$tmp/mail.conf" public 198.51.100.23 0 "${pub[@]}"
grep -q 'Subject: Someone tried to sign up on' "$tmp"/mail/* || fail "the owner of a taken address was not mailed"
# Proof of the address (public mode's default): the code mailed, a wrong one typed.
printf 'coded@example.com\n000000\n%s\n%s\n' "$password" "$password" | SIGNUP_CONFIG="$tmp/mail.conf" public 198.51.100.40 65 --public --db "$db"
printf 'half@example.com\n' | public 198.51.100.24 66 "${pub[@]}"
sleep 3 | public 2001:db8::9 75 "${pub[@]}" --idle-timeout 1
sleep 3 | public 2001:db8::10 75 "${pub[@]}" --idle-timeout 5 --session-limit 1
# At a terminal (a pseudo-terminal, as sshd gives `ssh -t`): Ctrl-C at the first question, five
# refused emails (the fifth ends the session), and a hang-up while a question waits.
python3 - "$SIGNUP_BIN" "$db" <<'PY' || fail "the sessions at a terminal did not end as expected"
import os, pty, select, signal, sys, time
def session(client, keys, status):
    pid, fd = pty.fork()
    if pid == 0:
        # As sshd starts a session: every signal at its default. A test run started in the
        # background (`scripts/test &`, nohup) would pass on SIGINT and SIGHUP ignored, and
        # signup keeps a signal its parent ignores ignored (docs/usage.md).
        for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb", "HOME": "/nonexistent",
               "SSH_CONNECTION": client + " 50022 192.0.2.1 22"}
        os.execve(sys.argv[1], [sys.argv[1], "--public", "--db", sys.argv[2]], env)
    seen = b""
    def wait_for(count):  # until the count-th Email: prompt, and a quiet moment after it
        nonlocal seen
        # A loaded CI machine has taken over 20 s to start a program: a key sent before the
        # prompt is another test (a Ctrl-C before the terminal is the child's is lost).
        deadline = time.time() + 90
        while seen.count(b"Email: ") < count and time.time() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try: seen += os.read(fd, 4096)
                except OSError: break
        time.sleep(0.6)
        return seen.count(b"Email: ") >= count
    for n, key in enumerate(keys, 1):
        if not wait_for(n):
            print(f"audit: the session from {client} never showed question {n}; it showed {seen[-200:]!r}")
            os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
            return False
        if key is None:
            os.close(fd); fd = None; break  # the terminal goes away: SIGHUP
        os.write(fd, key)
    while fd is not None and select.select([fd], [], [], 10)[0]:
        try:
            if not os.read(fd, 4096): break
        except OSError: break
    _, code = os.waitpid(pid, 0)
    got = os.waitstatus_to_exitcode(code)
    if got != status: print(f"audit: the session from {client} ended with {got}, not {status}"); return False
    return True
ok = session("198.51.100.31", [b"\x03"], 130)
ok &= session("198.51.100.32", [b"bad\r"] * 5, 75)
ok &= session("198.51.100.33", [None], -signal.SIGHUP)
sys.exit(0 if ok else 1)
PY
answers nowhere@example.com "$password" | SSH_CONNECTION="not-an-address 1 2 3" run 75 "${pub[@]}" --limit-overall 1

# A hostile email, stored by another program (the library, a hand-made row): a newline that would
# start a forged line, an escape sequence, a `]`, and a length far beyond any address.
forged=$'evil@example.com\nJan  1 00:00:00 host signup[1]: public sign-up refused from 192.0.2.66 by x (uid 0): client limit reached'
hostile="${forged}]"$'\e[2J'"$(printf 'x%.0s' $(seq 3000))"
hex() { printf '%s' "$1" | od -v -An -tx1 | tr -d ' \n'; }
# The key is the email case-folded: ASCII here, so lower case.
sqlite3 "$db" "INSERT INTO account (email, email_key, password_hash, created_at) SELECT CAST(X'$(hex "$hostile")' AS TEXT),
    CAST(X'$(hex "$(printf '%s' "$hostile" | tr 'A-Z' 'a-z')")' AS TEXT), password_hash, created_at FROM account WHERE email = 'alice@example.com'"
# As a line shows it: controls in caret form, cut to 254 bytes with `...`.
shown="$(printf '%s' "$hostile" | python3 -c 'import sys; t = sys.stdin.read().replace("\n", "^J").replace("\x1b", "^["); print(t[:251] + "...")')"
run 0 disable "$hostile" --db "$db"

sleep 1  # rsyslogd writes what it received
pgrep -F "$tmp/rsyslogd.pid" >/dev/null || fail "rsyslogd is no longer running"

# The lines, in order, without the process id.
expected="$tmp/expected"
cat >"$expected" <<LINES
authpriv.info signup: account created by $user: alice@example.com
authpriv.info signup: password changed by $user: alice@example.com
authpriv.info signup: account disabled by $user: alice@example.com
authpriv.info signup: account enabled by $user: alice@example.com
authpriv.info signup: accounts imported by $user: 1 created, 0 updated, 0 already there, 1 rejected
authpriv.info signup: password hash upgraded by $user: weak@example.com
authpriv.info signup: account deleted by $user: weak@example.com
authpriv.info signup: pending account created from 203.0.113.7 by $user: stranger1@example.com
authpriv.warning signup: public sign-up refused from 203.0.113.7 by $user: client limit reached
authpriv.notice signup: public sign-up refused from 198.51.100.23 by $user: email taken: alice@example.com
authpriv.info signup: sign-up notice mailed to the owner from 198.51.100.23 by $user: alice@example.com
authpriv.info signup: address code mailed from 198.51.100.40 by $user: coded@example.com
authpriv.warning signup: public sign-up refused from 198.51.100.40 by $user: wrong code
authpriv.notice signup: public sign-up refused from 198.51.100.24 by $user: session ended early: input ended
authpriv.warning signup: public sign-up refused from 2001:db8::9 by $user: no answer for 1 s
authpriv.warning signup: public sign-up refused from 2001:db8::10 by $user: session time is up
authpriv.notice signup: public sign-up refused from 198.51.100.31 by $user: session ended early: cancelled
authpriv.warning signup: public sign-up refused from 198.51.100.32 by $user: too many attempts at one answer
authpriv.notice signup: public sign-up refused from 198.51.100.33 by $user: session ended early: hang-up or termination
authpriv.warning signup: public sign-up refused by $user: overall limit reached
authpriv.info signup: account disabled by $user: $shown
LINES
grep ' signup\[' "$tmp/tagged" | sed -E 's/signup\[[0-9]+\]:/signup:/' >"$tmp/got"
if diff -u "$expected" "$tmp/got"; then
    echo "audit: $(wc -l <"$tmp/got") lines as expected (changes, an import's summary, a hash upgrade, public refusals, a hostile email on one line)"
else
    fail "the lines differ from the expected ones (above)"
fi
# The process id is signup's own, one per run.
grep -Eq '^authpriv\.info signup\[[0-9]+\]: account created by' "$tmp/tagged" || fail "no process id in the lines"

# The configuration's syslog.facility moves the lines to auth (signup.conf(5)).
printf 'syslog.facility = auth\n' >"$tmp/auth.conf"
answers facility@example.com "$password" | SIGNUP_CONFIG="$tmp/auth.conf" run 0 --db "$db"
for _ in $(seq 100); do grep -q 'facility@example.com' "$tmp/tagged" && break; sleep 0.05; done
if sed -E 's/signup\[[0-9]+\]:/signup:/' "$tmp/tagged" | grep -qxF "auth.info signup: account created by $user: facility@example.com"; then
    echo "audit: syslog.facility = auth in the configuration writes the lines at auth"
else
    fail "syslog.facility = auth did not move the line to auth: $(grep facility@ "$tmp/tagged")"
fi

# No secret anywhere: neither password, nor any hash (the file's own, or a PHC string at all).
failures_before="$failures"
for secret in "$password" "$other" "$weak" '$argon2'; do
    if grep -qF -- "$secret" "$tmp/syslog" "$tmp/tagged"; then fail "the log holds a password or a hash ($secret)"; fi
done
while read -r hash; do
    grep -qF -- "$hash" "$tmp/syslog" && fail "the log holds a stored hash"
done < <(sqlite3 "$db" "SELECT password_hash FROM account")
[ "$failures" -ne "$failures_before" ] || echo "audit: no password and no hash in the log"

# The hostile email: one line, and the forged refusal inside it is not a line of its own.
[ "$(grep -c 'evil@example.com' "$tmp/syslog")" -eq 1 ] || fail "the hostile email did not stay on one line"
if grep -q '^Jan  1 00:00:00 host' "$tmp/syslog" \
    || grep -Eq '^\S+ +\S+ \S+ \S+ signup\[[0-9]+\]: public sign-up refused from 192\.0\.2\.66' "$tmp/syslog"; then
    fail "the forged line stands on its own"
fi
# Only the syslog line's bound: an email is cut, the line stays far below rsyslog's 8 KiB.
[ "$(grep 'evil@example.com' "$tmp/syslog" | wc -c)" -lt 600 ] || fail "the hostile email was not cut to its bound"

# fail2ban: the shipped filter matches the refusals with a host, each with its host, and nothing else.
# The filter as installed: in a filter.d beside fail2ban's own common.conf.
failures_before="$failures"
mkdir -p "$tmp/fail2ban/filter.d"
cp /etc/fail2ban/filter.d/common.conf "$root/docs/fail2ban/filter.d/signup.conf" "$tmp/fail2ban/filter.d/"
filter="$tmp/fail2ban/filter.d/signup.conf"
fail2ban-regex --print-all-matched "$tmp/syslog" "$filter" >"$tmp/f2b" 2>&1 || fail "fail2ban-regex failed: $(tail -n 5 "$tmp/f2b")"
matched="$(sed -n 's/^Lines: [0-9]* lines, [0-9]* ignored, \([0-9]*\) matched.*/\1/p' "$tmp/f2b")"
[ "$matched" = 9 ] || { cat "$tmp/f2b"; fail "fail2ban-regex matched ${matched:-?} lines, not the 9 refusals with an address"; }
# The matched lines are exactly the refusals with an address: no change, not the forged text.
sed -n '/^|- Matched line(s):/,/^`-/p' "$tmp/f2b" | grep '^|  ' | sed -E 's/^\|  //; s/^.* signup\[[0-9]+\]: //' >"$tmp/f2b-matched"
grep -E '^[^ ]+ signup: public sign-up refused from ' "$tmp/got" | sed -E 's/^[^ ]+ signup: //' >"$tmp/f2b-want"
diff -u "$tmp/f2b-want" "$tmp/f2b-matched" || fail "fail2ban matched other lines than the refusals with an address"
# Each match's host, as fail2ban would ban it: the line's client address.
fail2ban-regex -v "$tmp/syslog" "$filter" 2>&1 | grep -E '^\|\s+[0-9a-f.:]+\s+[A-Z][a-z]{2} [A-Z][a-z]{2} ' | awk '{print $2}' >"$tmp/f2b-hosts"
printf '%s\n' 203.0.113.7 198.51.100.23 198.51.100.40 198.51.100.24 2001:db8::9 2001:db8::10 198.51.100.31 198.51.100.32 198.51.100.33 | diff -u - "$tmp/f2b-hosts" || fail "fail2ban's hosts are not the refused clients"
# docs/audit-log.md shows both files' settings: the same as the files shipped.
python3 - "$root/docs/audit-log.md" "$root/docs/fail2ban" <<'PY' || fail "docs/audit-log.md and docs/fail2ban disagree"
import re, sys
doc = open(sys.argv[1]).read()
def settings(text): return [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
for name in ("filter.d/signup.conf", "jail.d/signup.conf"):
    block = re.search(r"`/etc/fail2ban/" + re.escape(name) + r"`:\n\n```\n(.*?)```", doc, re.S)
    if not block or settings(block.group(1)) != settings(open(sys.argv[2] + "/" + name).read()):
        sys.exit(f"audit: {name} is not what docs/audit-log.md shows")
PY
[ "$failures" -ne "$failures_before" ] || echo "audit: fail2ban-regex matched the $matched refusals with an address, each with its host, and none of the changes"

# A reset's lines say what was mailed, and name the login it came in as: the recipe's `reset`
# shares its uid with `new` (docs/public-signup.md), here with root's, in this namespace's own
# copy of the password database; sshd sets LOGNAME to the login.
failures_before="$failures"
cp /etc/passwd "$tmp/passwd"
printf 'reset:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$(id -u)" "$(id -g)" >>"$tmp/passwd"
mount --bind "$tmp/passwd" /etc/passwd
reset_status=0
printf 'alice@example.com\n000000\n' | LOGNAME=reset SIGNUP_CONFIG="$tmp/mail.conf" SSH_CONNECTION="198.51.100.50 50022 192.0.2.1 22" \
    "$SIGNUP_BIN" reset --public --db "$db" >/dev/null 2>&1 || reset_status=$?
printf 'nobody-here@example.com\n000000\n' | LOGNAME=reset SIGNUP_CONFIG="$tmp/mail.conf" public 198.51.100.51 "$reset_status" reset --public --db "$db"
for _ in $(seq 100); do grep -q 'nobody-here@example.com' "$tmp/tagged" && break; sleep 0.05; done
reset_user="reset (uid $(id -u))"
for want in "authpriv.info signup: password reset code mailed from 198.51.100.50 by $reset_user: alice@example.com" \
            "authpriv.info signup: password reset refusal mailed from 198.51.100.51 by $reset_user: nobody-here@example.com"; do
    sed -E 's/signup\[[0-9]+\]:/signup:/' "$tmp/tagged" | grep -qxF "$want" || fail "no line '$want': $(grep -F 'password reset' "$tmp/tagged")"
done
umount /etc/passwd
# A public session whose mail command fails: the line says from where.
printf 'mail.command = /bin/false\n' >"$tmp/false-mail.conf"
printf 'failed@example.com\n' | SIGNUP_CONFIG="$tmp/false-mail.conf" public 198.51.100.52 75 --public --db "$db"
for _ in $(seq 100); do grep -q 'mail not sent from 198.51.100.52' "$tmp/tagged" && break; sleep 0.05; done
sed -E 's/signup\[[0-9]+\]:/signup:/' "$tmp/tagged" | grep -qF "authpriv.err signup: mail not sent from 198.51.100.52 by $user: " \
    || fail "a public session's failed mail has no line with the client's address: $(grep -F 'mail not sent' "$tmp/tagged")"
[ "$failures" -ne "$failures_before" ] || echo "audit: a reset's lines say code mailed or refusal mailed, by the login it came in as; a failed mail says from where"

# No logger at all: no /dev/log, then a socket nobody listens on. signup works and says no more.
failures_before="$failures"
daemon="$(cat "$tmp/rsyslogd.pid")"; kill "$daemon"; rm -f "$tmp/rsyslogd.pid"
for _ in $(seq 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.05; done
umount /dev/log; rm /dev/log
answers quiet@example.com "$password" | run 0 --db "$db" --quiet
[ ! -s "$tmp/err" ] && grep -qx 'Account created for quiet@example.com' "$tmp/out" || fail "a run with no /dev/log was not silent: $(cat "$tmp/err")"
run 0 disable quiet@example.com --db "$db"
[ ! -s "$tmp/err" ] || fail "disable with no /dev/log wrote to standard error: $(cat "$tmp/err")"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/dev/log")'
answers quiet2@example.com "$password" | public 203.0.113.99 0 "${pub[@]}" --quiet
[ "$(cat "$tmp/err")" = "An administrator must enable the account before you can sign in." ] || fail "a socket nobody reads changed the output: $(cat "$tmp/err")"
[ "$failures" -ne "$failures_before" ] || echo "audit: with no /dev/log, and with a socket nobody reads, signup works and says nothing more"

# A logger that stopped reading (its queue full): a public session at a terminal that hangs up
# still ends by SIGHUP, its line given up 2 s later; it exited 75, the time limits' status.
python3 - "$SIGNUP_BIN" "$db" <<'PY' || fail "a hang-up with a stuck logger did not end by SIGHUP"
import os, pty, select, signal, socket, sys, time
if os.path.exists("/dev/log"): os.unlink("/dev/log")
logger = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); logger.bind("/dev/log")
filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); filler.setblocking(False)
try:
    while True: filler.sendto(b"x" * 256, "/dev/log")
except BlockingIOError: pass
pid, fd = pty.fork()
if pid == 0:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb", "HOME": "/nonexistent",
           "SIGNUP_CONFIG": "/dev/null", "SSH_CONNECTION": "198.51.100.34 50022 192.0.2.1 22"}
    os.execve(sys.argv[1], [sys.argv[1], "--public", "--no-prove-address", "--db", sys.argv[2]], env)
seen, deadline = b"", time.time() + 90
while b"Email: " not in seen and time.time() < deadline:
    if select.select([fd], [], [], 0.2)[0]:
        try: seen += os.read(fd, 4096)
        except OSError: break
time.sleep(0.3)
os.close(fd)  # the terminal goes away: SIGHUP
started = time.time()
_, code = os.waitpid(pid, 0)
got, took = os.waitstatus_to_exitcode(code), time.time() - started
if got != -signal.SIGHUP or took > 10:
    print(f"audit: with a logger that stopped reading, a hang-up ended with {got} after {took:.1f} s, not by SIGHUP"); sys.exit(1)
print(f"audit: with a logger that stopped reading, a hang-up still ends by SIGHUP ({took:.1f} s)")
PY
rm -f /dev/log

# A logger that stopped reading holds no command: each of these stores its change, gives the
# line up within moments with a note (none in public mode: that is the stranger's screen), and
# ends with its usual status; syslog(3) held every one of them for ever after its commit, with
# its signals held, and a sign-up said "Waiting for the database" meanwhile. A SIGTERM during
# the wait ends the process by SIGTERM.
python3 - "$SIGNUP_BIN" "$tmp" "$password" "$other" "$weak" "$reset_status" <<'PY' || fail "a logger that stopped reading held a command"
import os, signal, socket, sqlite3, subprocess, sys, time
binary, tmp, password, other, weak, reset_status = sys.argv[1:7]
db = tmp + "/stuck.sqlite"
logger = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); logger.bind("/dev/log")
filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); filler.setblocking(False)
try:
    while True: filler.sendto(b"x" * 256, "/dev/log")
except BlockingIOError: pass
note = "warning: the system logger did not take the audit log's line in time: the line is lost\n"
public_env = {"SSH_CONNECTION": "203.0.113.60 50022 192.0.2.1 22"}
def state(email):
    row = sqlite3.connect(db).execute("SELECT state, password_hash FROM account WHERE email = ?", (email,)).fetchone()
    return row
with open(tmp + "/stuck.csv", "w") as f:
    f.write("email,password_hash\nweak2@example.com,%s\n" % weak)
runs = [  # (name, arguments, input, expected status, noted, stored)
    ("sign-up", ["--db", db], f"s@example.com\n{password}\n{password}\n", 0, True, lambda: state("s@example.com") is not None),
    ("public sign-up", ["--public", "--no-prove-address", "--db", db], f"p@example.com\n{password}\n{password}\n", 0, False,
     lambda: state("p@example.com")[0] == "pending"),
    ("passwd", ["passwd", "s@example.com", "--db", db, "--password-file", tmp + "/other"], "", 0, True, lambda: True),
    ("disable", ["disable", "s@example.com", "--db", db], "", 0, True, lambda: state("s@example.com")[0] == "disabled"),
    ("enable", ["enable", "s@example.com", "--db", db], "", 0, True, lambda: state("s@example.com")[0] == "active"),
    ("import", ["import", tmp + "/stuck.csv", "--db", db], "", 0, True, lambda: state("weak2@example.com") is not None),
    ("verify", ["verify", "weak2@example.com", "--db", db], password + "\n", 0, True, lambda: state("weak2@example.com")[1] != weak),
    ("delete", ["delete", "weak2@example.com", "--db", db, "--yes"], "", 0, True, lambda: state("weak2@example.com") is None),
    ("public reset", ["reset", "--public", "--db", db], "s@example.com\n000000\n", int(reset_status), False, lambda: True),
]
ok = True
for name, arguments, given, status, noted, stored in runs:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent", "SIGNUP_CONFIG": tmp + "/mail.conf"}
    if "--public" in arguments: env.update(public_env)
    started = time.time()
    try:
        run = subprocess.run([binary] + arguments, input=given.encode(), capture_output=True, timeout=15, env=env)
    except subprocess.TimeoutExpired:
        print(f"audit: with a logger that stopped reading, {name} did not end in 15 s"); ok = False; continue
    took, err = time.time() - started, run.stderr.decode()
    if run.returncode != status or not stored() or (note in err) != noted or "Waiting for the database" in err:
        print(f"audit: with a logger that stopped reading, {name} exited {run.returncode} (not {status}), stored: {stored()}: {err[-300:]!r}"); ok = False
    else:
        print(f"audit: with a logger that stopped reading, {name} ended with {status} in {took:.1f} s, its change stored" + (", noted" if noted else ""))
# SIGTERM while the line waits: it ends the wait, and the change, stored, is reported with exit 0
# as after any commit (the signal is held from the commit on). Sent as soon as the change is seen.
ended = None
for attempt in range(3):
    subprocess.run([binary, "enable", "s@example.com", "--db", db], capture_output=True, timeout=15, env={"PATH": "/usr/bin:/bin"})
    child = subprocess.Popen([binary, "disable", "s@example.com", "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "SIGNUP_CONFIG": "/dev/null"})
    deadline = time.time() + 15
    while time.time() < deadline and child.poll() is None and state("s@example.com")[0] != "disabled": time.sleep(0.005)
    child.send_signal(signal.SIGTERM)
    try: ended = child.wait(timeout=15)
    except subprocess.TimeoutExpired:
        child.kill(); child.wait(); ended = "hung"; break
    child.stderr.close()
    if ended != 0: break
if ended != 0 or state("s@example.com")[0] != "disabled":
    print(f"audit: with a logger that stopped reading, SIGTERM after the change ended disable with {ended}, not 0"); ok = False
else:
    print("audit: with a logger that stopped reading, SIGTERM during the wait ends it; the change is stored and reported with 0")
sys.exit(0 if ok else 1)
PY
rm -f /dev/log

[ "$failures" -eq 0 ]
