#!/usr/bin/env bash
# A public sign-up over real SSH: OpenSSH's sshd on a loopback port in a temporary folder, with its
# own host key and configuration (docs/public-signup.md's Match block, for a dedicated user made
# for this run, who logs in with no key and no password), forcing `signup --public`; driven with
# the real ssh client: a sign-up over `ssh -tt` in a hostile window, one over `ssh -T` with piped
# answers, an idle session cut off, concurrent clients, disconnects mid-hash; connections that
# never start signup (`ssh -N`, a session never given a command, one never acknowledged), more of
# them than the process limit, and connections that never log in.
# usage: SIGNUP_BIN=… ssh.sh   (as root: it adds a user for the run and removes it)
set -euo pipefail
: "${SIGNUP_BIN:?}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/sbin/sshd ]; then
    echo "ssh: skipped (needs root and openssh-server)"; exit 0
fi
# A client of its own making speaks SSH through paramiko, with Debian's python3.
/usr/bin/python3 -c 'import paramiko' 2>/dev/null || { echo "ssh: FAIL needs python3-paramiko (scripts/test installs it)"; exit 1; }
. "$root/scripts/lib/pg.sh"  # pg_free_port
tmp="$(mktemp -d /tmp/signup-ssh.XXXXXX)"
# The recipe's dedicated user, one per run (the process limit counts a user's processes, so two
# runs at once must not share one); users left by runs that were killed are removed first.
user="signup-ssh-$$"
for stale in $(getent passwd | cut -d: -f1 | grep -E '^signup-ssh-[0-9]+$' || true); do
    kill -0 "${stale#signup-ssh-}" 2>/dev/null || userdel "$stale" 2>/dev/null || true
done
cleanup() {
    [ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null
    command -v mta_stop >/dev/null 2>&1 && mta_stop "$tmp/mta"
    for pid in $(pgrep -u "$user" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    for _ in $(seq 50); do pgrep -u "$user" >/dev/null 2>&1 || break; sleep 0.1; done
    userdel "$user" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
useradd --system --no-create-home --home-dir "$tmp/home" --shell /bin/sh "$user"
passwd -d "$user" >/dev/null  # an empty password: anyone may log in, as the recipe says
chmod 0711 "$tmp"; install -d -o "$user" -g "$user" -m 0700 "$tmp/home" "$tmp/db"
mkdir -p /run/sshd
# The user runs signup: from where it was built when the user may, else a copy of it.
bin="$SIGNUP_BIN"
if ! setpriv --reuid="$user" --regid="$user" --clear-groups "$bin" --version >/dev/null 2>&1; then
    install -m 0755 "$SIGNUP_BIN" "$tmp/signup"; bin="$tmp/signup"
fi
port="$(pg_free_port)"
db="$tmp/db/accounts.sqlite"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
# The checks below come from one address (127.0.0.1): the limits of accounts per client are
# lifted for them, and checked at the end with a configuration of their own. UsePAM is off (no
# system file is touched); a process limit, which the recipe sets through PAM, is set on sshd.
# Password authentication is off for the server and on for the user, as a hardened server does.
write_config() {  # write_config SIGNUP_OPTIONS DATABASE [GLOBAL_LINES]
cat >"$tmp/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
${3:-MaxStartups 30:30:60}
LoginGraceTime 20
PermitUserEnvironment no
Match User $user
    ForceCommand exec $bin --public --idle-timeout 4 --session-limit 60 $1 --db $2
    PasswordAuthentication yes
    PermitEmptyPasswords yes
    AuthenticationMethods none
    PermitTTY yes
    DisableForwarding yes
    PermitTunnel no
    PermitUserRC no
    MaxSessions 1
    UnusedConnectionTimeout $unused
    ClientAliveInterval 15
    ClientAliveCountMax 2
CONFIG
}
unused=3  # the recipe's UnusedConnectionTimeout is 10 s: 3 s keeps this test short
start_sshd() {  # start_sshd [PROCESS_LIMIT]
    [ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null && sleep 0.3
    rm -f "$tmp/sshd.pid"
    if [ -n "${1:-}" ]; then
        prlimit --nproc="$1:$1" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log"
    else
        /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log"
    fi
    for _ in $(seq 50); do [ -s "$tmp/sshd.pid" ] && break; sleep 0.1; done
}
write_config "--no-prove-address --limit-per-client 1000 --limit-overall 1000" "$db"
start_sshd

failures=0
fail() { echo "ssh: FAIL $*"; failures=$((failures + 1)); }
ssh_options=(-q -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes)
ssh_t() { ssh -T "${ssh_options[@]}" "$@" "$user@127.0.0.1"; }
rows() { "$SIGNUP_BIN" list --db "$db" | grep -c "$1" || true; }
drive() { python3 "$root/Tests/integration/ssh_drive.py" "$port" "$user" "$db" "$@" | tee "$tmp/drive.out"
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

# The Match block tested is the recipe's (docs/public-signup.md), keyword for keyword.
recipe="$(awk '/^Match User new$/ { p = 1; next } p && /^```$/ { exit } p { print $1 }' "$root/docs/public-signup.md")"
tested="$(awk '/^Match User / { p = 1; next } p { print $1 }' "$tmp/sshd_config")"
[ -n "$recipe" ] && [ "$recipe" = "$tested" ] || fail "the Match block tested is not the recipe's: $(diff <(echo "$recipe") <(echo "$tested") | tr '\n' ' ')"
seconds() { sed -n "s/.*$1 after \([0-9.]*\) s.*/\1/p" "$tmp/drive.out" | head -n 1; }
within() { awk -v a="${1:-999}" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# Connections that never start signup escape all of signup's limits; sshd closes them
# (UnusedConnectionTimeout), counting from the log-in or from the end of the last session.
# `ssh -N`: logged in, no session.
started=$SECONDS
timeout $((unused + 20)) ssh -N "${ssh_options[@]}" "$user@127.0.0.1" </dev/null >/dev/null 2>&1 && status=0 || status=$?
lived=$((SECONDS - started))
echo "ssh -N: closed after $lived s (UnusedConnectionTimeout $unused), exit $status"
[ "$status" -eq 255 ] && [ "$lived" -le $((unused + 4)) ] || fail "ssh -N: open $lived s, exit $status (124: still open when killed)"
grep -q "terminating inactive connection from user $user" "$tmp/sshd.log" || fail "ssh -N: sshd did not say why it closed it"
# A session never given a command, from a client of its own making.
raw() { /usr/bin/python3 "$root/Tests/integration/ssh_drive.py" "$port" "$user" "$db" "$@" | tee "$tmp/drive.out"; }
raw nocommand $((unused + 20))
within "$(seconds closed)" $((unused + 4)) || fail "a session never given a command stayed open"
# A client that never acknowledges the end of its session: sshd counts it open after signup ended,
# so UnusedConnectionTimeout does not apply; the recipe's reaper (docs/public-signup.md, run here
# with a wait of 1 s) ends it, and leaves a session that runs signup alone.
awk '/^#!\/bin\/sh$/ { p = 1 } p && /^```$/ { exit } p' "$root/docs/public-signup.md" >"$tmp/reap"
raw noclose 40 >/dev/null & never=$!
sleep $((4 + unused + 3))  # signup's idle timeout, then more than UnusedConnectionTimeout
kill -0 "$never" 2>/dev/null || fail "noclose: sshd closed it itself (docs/public-signup.md says it does not)"
(sleep 6 | ssh_t >"$tmp/waiting.out" 2>&1 && s=0 || s=$?; echo "status=$s" >>"$tmp/waiting.out") & waiting=$!
# The reaper must see that session's signup running (a login takes seconds on a busy machine).
for _ in $(seq 300); do [ "$(pgrep -u "$user" -c -x signup || true)" -ge 1 ] && break; sleep 0.1; done
[ "$(pgrep -u "$user" -c -x signup || true)" -ge 1 ] || fail "the waiting session's signup did not start within 30 s"
sh "$tmp/reap" "$user" 1
wait "$never" || true
cat "$tmp/drive.out"
within "$(seconds closed)" $((4 + unused + 3 + 5)) || fail "noclose: the reaper did not end it"
wait "$waiting" || true
grep -q "No answer for 4 s" "$tmp/waiting.out" && grep -q "status=75" "$tmp/waiting.out" \
    || fail "the reaper ended a session that ran signup: $(tr '\n' ' ' <"$tmp/waiting.out")"

# More connections without a session than the process limit (the recipe sets one through PAM;
# here on sshd): while they stay no sign-up can start, so the limit is real, and once sshd has
# closed them a sign-up succeeds.
limit=4 unused=8  # long enough for all of them to log in on a busy machine
write_config "--no-prove-address --limit-per-client 1000 --limit-overall 1000" "$db"
start_sshd "$limit"
holders=()
for _ in $(seq $((limit + 2))); do
    timeout $((unused + 20)) ssh -N "${ssh_options[@]}" "$user@127.0.0.1" </dev/null >/dev/null 2>&1 & holders+=($!)
done
for _ in $(seq 100); do [ "$(pgrep -u "$user" -c -x sshd || true)" -gt "$limit" ] && break; sleep 0.1; done
held="$(pgrep -u "$user" -c -x sshd || true)"
sign_up() { printf '%s\nQuartz-Lantern-58\nQuartz-Lantern-58\n' "$1" | ssh_t >/dev/null 2>&1 && echo 0 || echo $?; }
during="$(sign_up flood@example.com)"
started=$SECONDS
for _ in $(seq $(((unused + 10) * 10))); do pgrep -u "$user" >/dev/null || break; sleep 0.1; done
closed=$((SECONDS - started))
after="$(sign_up flood@example.com)"
for pid in "${holders[@]}"; do wait "$pid" || true; done
echo "flood: $held connections without a session against a process limit of $limit: a sign-up exited $during while they stayed; $closed s later no process of the user was left, and a sign-up exited $after"
[ "$held" -gt "$limit" ] || fail "flood: only $held connections at once"
[ "$during" -ne 0 ] || fail "flood: a sign-up started past the process limit: the limit is not real here"
[ "$closed" -le $((unused + 8)) ] || fail "flood: the connections stayed $closed s"
[ "$after" -eq 0 ] && [ "$(rows flood@example.com)" -eq 1 ] || fail "flood: no sign-up once they were closed (exit $after)"

# Connections that never log in: MaxStartups 10 here (from 10 of them every new connection is
# refused, whoever makes it); PerSourceMaxStartups keeps one address to 4, so a sign-up from
# another address still gets in while 127.0.0.1 holds 12.
write_config "--no-prove-address --limit-per-client 1000 --limit-overall 1000" "$db" "MaxStartups 10
PerSourceMaxStartups 4"
start_sshd
python3 -c 'import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(12)]
time.sleep(15)' "$port" & holder=$!
sleep 1
status="$(printf 'other@example.com\nQuartz-Lantern-58\nQuartz-Lantern-58\n' | ssh_t -b 127.0.0.2 >/dev/null 2>&1 && echo 0 || echo $?)"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true
echo "startups: 12 connections from 127.0.0.1 that never log in; a sign-up from 127.0.0.2 exited $status"
[ "$status" -eq 0 ] && [ "$(rows other@example.com)" -eq 1 ] || fail "startups: one address kept another out (exit $status)"

# The limit of accounts per client, counted in the store: 8 concurrent clients from one address,
# a limit of 3 per client: exactly 3 accounts, pending; the others end with exit 75 and a line.
limited="$tmp/db/limited.sqlite"
write_config "--no-prove-address --limit-per-client 3 --limit-overall 100" "$limited"
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

# Proof of the address with a real MTA (scripts/lib/mta.sh: Exim on loopback, delivering to a
# mailbox in $tmp/mta): a stranger signs up over ssh with the code read from the mailbox; a taken
# address and a free one give the same conversation; then the password is reset over a forced
# `signup reset --public`, again with the mailed code.
. "$root/scripts/lib/mta.sh"
if mta_start "$tmp/mta" >"$tmp/mta.out" 2>&1; then
    printf 'mail.command = %s -t -i\n' "$(mta_sendmail_command "$tmp/mta")" >"$tmp/signup.conf"
    chmod 0644 "$tmp/signup.conf"
    proved="$tmp/db/proved.sqlite"
    # The code is typed once it arrives: a question may wait 30 s here.
    write_config "--config $tmp/signup.conf --idle-timeout 30" "$proved"
    start_sshd
    code_of() { sed -n 's/^    \([0-9]\{6\}\)\r\{0,1\}$/\1/p' "$1"; }
    with_code() {  # with_code EMAIL PASSWORD: the email, the code from its mail, the password twice
        printf '%s\n' "$1"
        mta_wait_message "$tmp/mta" "$1" 40 >"$tmp/mail.$1" || true
        code="$(code_of "$tmp/mail.$1")"; printf '%s\n' "${code:-000000}" "$2" "$2"
    }
    out="$(with_code proved@example.com Quartz-Lantern-58 | ssh_t 2>&1)" && status=0 || status=$?
    grep -q '^To: proved@example.com' "$tmp/mail.proved@example.com" && grep -q '^Subject: Your sign-up code for ' "$tmp/mail.proved@example.com" \
        && [ -n "$(code_of "$tmp/mail.proved@example.com")" ] || fail "proof: no code mail was delivered: $(cat "$tmp/mail.proved@example.com")"
    "$SIGNUP_BIN" list --state pending --db "$proved" | grep -q 'proved@example.com' \
        && [ "$status" -eq 0 ] || fail "proof: the sign-up with the mailed code did not store a pending account (exit $status): $out"
    grep -q 'Quartz-Lantern-58' "$tmp/mail.proved@example.com" && fail "proof: the mail holds the password"
    echo "proof: a sign-up over ssh with the code from the real MTA's mailbox: exit $status, the account pending"
    # A taken address and a free one (as long), a stranger without the code: the same conversation.
    stranger() { { printf '%s\n' "$1"; mta_wait_message "$tmp/mta" "$1" 40 >"$tmp/mail.$1" || true; printf '123456\n%s\n%s\n' Quartz-Lantern-58 Quartz-Lantern-58; } \
        | ssh_t 2>&1 | sed "s/$1/ADDRESS/g"; }
    taken="$(stranger proved@example.com)" || true; free="$(stranger freeme@example.com)" || true
    if [ "$taken" = "$free" ] && grep -q '^Subject: Someone tried to sign up on ' "$tmp/mail.proved@example.com" \
        && grep -q '^Subject: Your sign-up code for ' "$tmp/mail.freeme@example.com"; then
        echo "proof: a taken and a free address over ssh: the same conversation; the owner was mailed a notice"
    else
        fail "proof: a taken and a free address differ over ssh: $(diff <(echo "$taken") <(echo "$free"))"
    fi
    # The account enabled by the administrator, then its password reset over ssh.
    setpriv --reuid="$user" --regid="$user" --clear-groups "$bin" enable proved@example.com --db "$proved" >/dev/null
    write_config "--config $tmp/signup.conf" "$proved"
    sed -i -E "s|^( *ForceCommand exec ).*|\1$bin reset --public --config $tmp/signup.conf --db $proved|" "$tmp/sshd_config"
    start_sshd
    out="$(with_code proved@example.com Velvet-Harbor-93 | ssh_t 2>&1)" && status=0 || status=$?
    grep -q '^Subject: Your password reset code for ' "$tmp/mail.proved@example.com" || fail "reset: no reset code was delivered"
    if [ "$status" -eq 0 ] && printf 'Velvet-Harbor-93\n' | setpriv --reuid="$user" --regid="$user" --clear-groups "$bin" verify proved@example.com --db "$proved" >/dev/null 2>&1; then
        echo "reset: a forgotten password reset over ssh with the code from the real MTA's mailbox"
    else
        fail "reset: the password was not reset over ssh (exit $status): $out"
    fi
    mta_stop "$tmp/mta"
else
    fail "proof: the MTA did not start: $(tail -n 5 "$tmp/mta.out")"
fi

[ "$failures" -eq 0 ] && echo "ssh: all checks passed" || exit 1
